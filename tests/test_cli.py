"""What a fresh user sees of the CLI: ``--help`` at 80 and 120 columns keeps every option name whole
and shows no type for a flag, every error trajpipe reports has the prefix typer's usage errors have,
and the run summary says which numbers count trajectories and which count reason codes."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from pipeline import cli
from pipeline.cli import app

ROOT = Path(__file__).resolve().parents[1]


def _commands(command=None, path=()):
    """(argv path, click command) of the app and every command and sub-command under it."""
    command = command or typer.main.get_command(app)
    yield list(path), command
    for name, sub in sorted((getattr(command, "commands", None) or {}).items()):
        yield from _commands(sub, (*path, name))


def _help(path: list[str], width: int) -> str:
    res = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": str(width), "TERMINAL_WIDTH": str(width)},
                             terminal_width=width)
    assert res.exit_code == 0, res.output
    return res.output


@pytest.mark.parametrize("width", [80, 120])
def test_help_never_breaks_an_option_name(width):
    """At 80 columns 15 names of `trajpipe run --help` were broken across two lines (``--max-ret`` /
    ``ries`` style: ``--tasks-per-blue``/``print``, ``--summarize-with-`` / ``model``, and the
    ``--no-...`` halves of flags). Every name of every command must now be whole on one line."""
    checked = 0
    for path, command in _commands():
        out = _help(path, width)
        lines = out.splitlines()
        assert max(len(line) for line in lines) <= width, path
        assert "…" not in out, (path, [line for line in lines if "…" in line][:3])
        for param in command.params:
            for name in [*param.opts, *param.secondary_opts]:
                if not name.startswith("-"):
                    continue
                whole = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")
                assert any(whole.search(line) for line in lines), (path, name, width)
                checked += 1
    assert checked > 150  # run alone has 60 options


def test_help_shows_no_type_for_a_flag():
    """Typer's rich help gave every flag a ``<bool>`` type (``--gradient-checkpointing/
    --no-gradient-checkpointing  <bool>``, ``--help <bool>``), though a flag takes no value."""
    for width in (80, 120):
        for path, _ in _commands():
            out = _help(path, width)
            assert "<bool>" not in out, (path, [line for line in out.splitlines() if "<bool>" in line][:3])
    train = _help(["train"], 120)
    flag = next(line for line in train.splitlines() if "--gradient-checkpointing" in line)
    assert not re.search(r"--gradient-checkpointing\s+<", flag), flag
    assert "--no-gradient-checkpointing" in train
    assert re.search(r"--lora-r\s+<int>", train)  # options that take a value keep their type
    rollout = _help(["rollout"], 120)
    assert re.search(r"--grounded\s+With the grammar", rollout)


def test_help_paragraphs_are_not_broken_mid_sentence():
    """Typer's rich help keeps a docstring's line breaks: ``trajpipe run --help`` showed "... skips every
    stage whose" / "output is complete." at any width. Paragraphs are now one line each, wrapped by rich."""
    for path, command in _commands():
        for paragraph in (command.help or "").split("\n\n"):
            assert "\n" not in paragraph, (path, paragraph)
    assert "skips every stage whose output is complete." in _help(["run"], 120)


def test_errors_have_one_prefix(tmp_path, capsys):
    """trajpipe printed ``error: ...`` while typer's usage errors say ``Error``; every error of ours
    now goes through pipeline.cli_config.die / print_error and starts with ``Error:``."""
    runner = CliRunner()
    cases = [(["stats", str(tmp_path / "nope")], "output folder not found: "),
             (["run", "--config", str(tmp_path / "nope.yaml")], "config file not found"),
             (["train", "--data", str(tmp_path), "--out", str(tmp_path / "m")], "no sft.parquet"),
             (["domain", "check", "airline", "--logs", str(tmp_path / "nope.jsonl")], ""),
             (["anonymize", "--eval", "--tau", str(tmp_path / "no-tau")], "tau-bench data not found")]
    for args, msg in cases:
        res = runner.invoke(app, args, env={"COLUMNS": "200"})
        assert res.exit_code == 2, (args, res.output)
        assert res.output.startswith("Error: ") and msg in res.output, (args, res.output)
        assert "error:" not in res.output, (args, res.output)
    usage = runner.invoke(app, ["run", "--k", "x"])  # typer's own usage error, for comparison
    assert usage.exit_code == 2 and "Error" in usage.output

    from pipeline.cli_config import ERROR_PREFIX, print_error

    assert ERROR_PREFIX == "Error:"
    print_error("a message with [bold]brackets[/bold] kept")  # no rich markup is read in a message
    assert capsys.readouterr().err.strip() == "Error: a message with [bold]brackets[/bold] kept"

    # one helper: no CLI module but cli_config (which defines it) spells an error prefix of its own
    # (tool results an agent reads, "Error: ..." in the domains, are no CLI messages)
    cli_modules = {*(ROOT / "pipeline").rglob("cli*.py"), *(ROOT / "pipeline" / "commands").glob("*.py")}
    assert ROOT / "pipeline" / "anonymize" / "cli_eval.py" in cli_modules
    for path in sorted(cli_modules - {ROOT / "pipeline" / "cli_config.py"}):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"""["'](\[red\])?error:""", text, re.IGNORECASE), path
        assert "def _die" not in text, path


MANIFEST = {
    "counts": {
        "ingest": {"by_reason": {"INGEST_NO_DOMAIN": 1}, "in": 7, "ok": 6, "quarantined": 1},
        "rollout": {"by_hint_mode": {"guided": 3}, "faults_injected": {}, "finish_reasons": {"turn_limit": 3},
                    "recovery": 0, "tasks": 3, "tokens": {"completion": 258, "prompt": 15908}, "trajectories": 3},
        "verify_trajectory": {"by_reason": {"TRAJ_NO_REFUSAL": 1, "TRAJ_TURN_LIMIT": 3, "TRAJ_WRONG_FINAL_STATE": 2},
                              "in": 3, "outcome_ok": 0, "outcome_rate": 0.0, "pass_rate": 0.0, "passed": 0,
                              "passed_by_hint_mode": {}},
        "select": {"by_reason": {"TRAJ_TURN_LIMIT": 3}, "in": 3, "kept_after_dedupe": 0, "kept_by_hint_mode": {},
                   "rejected": 3, "selected": 0},
    },
    "wall_seconds": {"ingest": 0.01, "rollout": 50.8, "verify_trajectory": 0.03, "select": 0.0},
}


def test_run_summary_says_what_each_number_counts(monkeypatch, capsys):
    """The run summary printed each stage's counts as raw JSON: ``"by_reason": {"TRAJ_TURN_LIMIT": 3,
    "TRAJ_WRONG_FINAL_STATE": 2, ...}, "in": 3`` gave 6 reasons beside 3 trajectories with nothing
    saying that one trajectory can carry several codes. Now every line names its unit."""
    monkeypatch.setenv("COLUMNS", "250")  # one table row per line
    cli._print_counts(MANIFEST)
    out = capsys.readouterr().err
    rows: dict[str, list[str]] = {}
    stage = ""
    for line in out.splitlines():
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if len(cells) == 3 and cells[1]:
            stage = cells[0] or stage  # a continuation line belongs to the stage above
            rows.setdefault(stage, []).append(cells[1])
    assert rows["verify_trajectory"] == [
        "trajectories: in 3, passed 0, outcome_ok 0, outcome_rate 0.0, pass_rate 0.0",
        "reason codes of failed trajectories (codes, not trajectories: a trajectory can have several): "
        "TRAJ_TURN_LIMIT 3, TRAJ_WRONG_FINAL_STATE 2, TRAJ_NO_REFUSAL 1"]
    assert rows["select"][0] == "trajectories: in 3, selected 0, kept_after_dedupe 0, rejected 3"
    assert rows["select"][1].startswith("rejected trajectories by reason (one each")
    assert rows["ingest"] == ["records: in 7, ok 6, quarantined 1",
                              "quarantined records by reason (one each): INGEST_NO_DOMAIN 1"]
    assert "trajectories by finish reason (one each): turn_limit 3" in rows["rollout"]
    assert '"by_reason"' not in out and "faults_injected" not in out  # no raw JSON; empty breakdowns left out


# --- trajpipe run: errors before and after the flow -------------------------------------------------


def _no_flow(monkeypatch):
    """Make the flow fail the test if it is started at all."""
    import flows.trajpipe_flow as flow_mod

    def started(**_):
        raise AssertionError("the flow was started")

    monkeypatch.setattr(flow_mod, "trajpipe_run", started)


def test_run_checks_format_and_backend_before_any_stage(monkeypatch, tmp_path):
    """`trajpipe run --format foo` started Prefect, ran the flow and after ~20 s printed 377 lines ending in
    ``ValueError: unknown input format 'foo'``; `--backend vllm` without vLLM ran every stage up to rollout and
    printed 452. Both are now one ``Error:`` line, exit 2, before the flow starts."""
    _no_flow(monkeypatch)
    work = ["--work", str(tmp_path / "w"), "--out", str(tmp_path / "o")]
    runner = CliRunner()
    res = runner.invoke(app, ["run", "--format", "foo", *work], env={"COLUMNS": "250"})
    assert res.exit_code == 2, res.output
    assert res.output.startswith("Error: unknown input format 'foo'") and "canonical" in res.output, res.output
    assert "Traceback" not in res.output and len(res.output.strip().splitlines()) == 1

    import pipeline.rollout.backends as backends

    monkeypatch.setattr(backends, "vllm_usable", lambda: False)  # vLLM does not import (nothing is started)
    res = runner.invoke(app, ["run", "--backend", "vllm", *work], env={"COLUMNS": "250"})
    assert res.exit_code == 2, res.output
    assert res.output.startswith("Error: --backend vllm: vLLM is not installed"), res.output
    assert "scripts/install.sh --vllm" in res.output and "Traceback" not in res.output
    monkeypatch.setenv("TRAJPIPE_AUTO_BACKEND", "bogus")  # auto cannot resolve
    res = runner.invoke(app, ["run", "--backend", "auto", *work], env={"COLUMNS": "250"})
    assert res.exit_code == 2 and res.output.startswith("Error: $TRAJPIPE_AUTO_BACKEND"), res.output


def test_run_reports_a_user_error_from_the_flow_as_one_line(monkeypatch, tmp_path):
    """An error of the input or setup raised inside the flow (a stage's ValueError / FileNotFoundError, a
    backend's ImportError) escaped `trajpipe run` as a traceback, and Prefect logged another; the stage
    commands report the same errors as ``Error: ...``. Now `run` does too, and Prefect's log record keeps
    its one-line message without the traceback. A bug (another exception type) keeps its traceback."""
    import io
    import logging

    import flows.trajpipe_flow as flow_mod
    from pipeline.rollout.backends.vllm_backend import VLLM_MISSING

    monkeypatch.setattr(cli, "_check_backend", lambda cfg: None)  # (the check before the flow is tested above)
    monkeypatch.setenv("TRAJPIPE_SECRET", "s")  # (no note about a missing secret before the error)
    log = io.StringIO()
    handler = logging.StreamHandler(log)
    flow_logger = logging.getLogger("prefect.flow_runs")
    monkeypatch.setattr(flow_logger, "handlers", [handler])  # (not Prefect's API handler: no flow run here)
    monkeypatch.setattr(flow_logger, "propagate", False)
    monkeypatch.setattr(flow_logger, "disabled", False)
    raised: list[BaseException] = []

    def failing(**_):
        exc = raised[-1]
        try:
            raise exc
        except BaseException:
            flow_logger.exception("Encountered exception during execution: %r", exc)  # as Prefect's flow engine
            raise

    monkeypatch.setattr(flow_mod, "trajpipe_run", failing)
    work = ["--work", str(tmp_path / "w"), "--out", str(tmp_path / "o"), "--backend", "transformers"]
    runner = CliRunner()
    try:
        for exc, code, text in [(ValueError("unknown thing 'x'"), 2, "Error: unknown thing 'x'"),
                                (FileNotFoundError("input not found: a.jsonl"), 2, "Error: input not found: a.jsonl"),
                                (ImportError(VLLM_MISSING), 2, "Error: vLLM is not installed")]:
            raised.append(exc)
            log.truncate(0)
            log.seek(0)
            res = runner.invoke(app, ["run", *work], env={"COLUMNS": "300"})
            assert res.exit_code == code, (exc, res.output)
            assert res.output.startswith(text) and len(res.output.strip().splitlines()) == 1, res.output
            assert "Traceback" not in res.output and "Traceback" not in log.getvalue(), log.getvalue()
            assert "Encountered exception during execution" in log.getvalue()
        raised.append(RuntimeError("a bug"))
        log.truncate(0)
        log.seek(0)
        res = runner.invoke(app, ["run", *work])
        assert isinstance(res.exception, RuntimeError)  # not turned into an Error: line
        assert "Traceback" in log.getvalue()
        assert not any(isinstance(f, cli._NoTracebackFor) for n in cli.PREFECT_RUN_LOGGERS
                       for f in logging.getLogger(n).filters)  # the filter is removed after the run
    finally:
        handler.close()


# --- stats / browse / view: what to pass ----------------------------------------------------------


def test_output_folder_errors_say_what_to_pass(tmp_path):
    """`stats /x` / `browse /x` said only "is not a folder", `stats WORK` "no .parquet files in work", and
    `view OUT/manifest.json` "output folder not found" though the file exists. One helper now says what
    is expected for all three commands."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "manifest.json").write_text("{}")
    (out / "sft.parquet").write_bytes(b"")
    work = tmp_path / "work"
    (work / "ingest").mkdir(parents=True)
    (work / "ingest" / "latest").write_text("abc\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    stray = tmp_path / "notes.txt"
    stray.write_text("x")
    runner = CliRunner()

    def error(*args) -> str:
        res = runner.invoke(app, list(args), env={"COLUMNS": "400"})
        assert res.exit_code == 2, (args, res.output)
        assert res.output.startswith("Error: ") and len(res.output.strip().splitlines()) == 1, (args, res.output)
        return res.output

    for cmd in ("stats", "browse", "view"):
        msg = error(cmd, str(tmp_path / "x"))
        assert "output folder not found: " in msg and "; pass the output folder written by `trajpipe run --out`" in msg, msg
        msg = error(cmd, str(out / "manifest.json"))
        assert f"is a file; pass its folder: `trajpipe {cmd} {out}`" in msg, msg
        assert "is a file; pass the output folder written by `trajpipe run --out`" in error(cmd, str(stray))
    for cmd in ("stats", "browse"):
        msg = error(cmd, str(work))
        assert "is a work folder" in msg and "pass the --out folder" in msg, msg
        msg = error(cmd, str(empty))
        assert "no .parquet files" in msg and "sft.parquet, rl.parquet, manifest.json" in msg, msg
    assert "output folder" not in runner.invoke(app, ["view", str(work)]).output  # view reads a work folder


# --- usage lines and table widths -----------------------------------------------------------------


def test_usage_shows_argument_names_upper_case():
    """Typer 0.29 showed `Usage: trajpipe browse [OPTIONS] {out}` (and `domain init ... {name}`); arguments
    are now named as click names them: `OUT`, `NAME`, `Missing argument 'OUT'`."""
    for path, arg in [(["browse"], "OUT"), (["stats"], "OUT"), (["view"], "OUT"), (["domain", "init"], "NAME")]:
        out = _help(path, 120)
        usage = next(line for line in out.splitlines() if "Usage:" in line)
        assert usage.strip().endswith(f" {' '.join(path)} [OPTIONS] {arg}"), usage  # (prog: "root" in CliRunner)
        assert "{" not in out.split("Options")[0], out
    for path, _ in _commands():
        assert not re.search(r"Usage:.*\{", _help(path, 120)), path
    res = CliRunner().invoke(app, ["stats"], env={"COLUMNS": "120"})
    assert res.exit_code == 2 and "Missing argument 'OUT'" in res.output, res.output


class _Tty:
    """A stdout that is a terminal."""

    def __init__(self) -> None:
        import io

        self.buf = io.StringIO()

    def write(self, s):
        return self.buf.write(s)

    def flush(self):
        pass

    def isatty(self):
        return True

    def fileno(self):
        raise OSError("no descriptor")


def test_wide_tables_fit_a_terminal(monkeypatch):
    """`_wide_console(140/160)` forced its width even on an 80-column terminal, so `trajpipe stats` and
    `trajpipe blueprints` rows wrapped into unreadable pieces. A terminal now gets its own width; piped
    or redirected output keeps the wide width (one table row per line in a file or log)."""
    import sys

    for var in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "NO_COLOR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("COLUMNS", "80")
    tty = _Tty()
    monkeypatch.setattr(sys, "stdout", tty)
    con = cli._wide_console(160)
    assert con.is_terminal and con.width == 80
    from rich.table import Table

    t = Table()
    for c in ("dataset", "rows", "notes"):
        t.add_column(c)
    t.add_row("sft", "12", "a long note " * 20)
    con.print(t)
    shown = re.sub(r"\x1b\[[0-9;]*m", "", tty.buf.getvalue())  # (a terminal gets colour codes)
    assert max(len(line) for line in shown.splitlines()) <= 80

    import io

    monkeypatch.setattr(sys, "stdout", io.StringIO())  # piped: not a terminal
    con = cli._wide_console(160)
    assert not con.is_terminal and con.width == 160
    monkeypatch.setenv("COLUMNS", "200")
    assert cli._wide_console(160).width == 200  # never narrower than asked, wider when COLUMNS says so


def test_an_empty_input_is_named_not_sent_to_quarantine(tmp_path):
    """A run on an empty log file said "no input record was usable; see quarantine.parquet for
    reasons", and quarantine was empty: it now says the input holds no records."""
    from pipeline.cli import _input_warning

    empty = _input_warning({"in": 0, "ok": 0, "quarantined": 0}, str(tmp_path / "empty.jsonl"))
    assert "empty.jsonl holds no records" in empty and "quarantine" not in empty
    bad = _input_warning({"in": 3, "ok": 0, "quarantined": 3}, "logs.jsonl")
    assert "all 3 quarantined" in bad and "quarantine.parquet" in bad
    assert _input_warning({"in": 3, "ok": 1, "quarantined": 2}, "logs.jsonl") is None


def test_run_on_an_empty_file_says_so(tmp_path, monkeypatch):
    """The same through `trajpipe run` (the flow replaced by the manifest an empty input gives, so
    no model runs): the warning names the file."""
    import sys
    from types import SimpleNamespace

    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    manifest = {"counts": {"ingest": {"in": 0, "ok": 0, "quarantined": 0}}, "files": {}}
    monkeypatch.setitem(sys.modules, "flows.trajpipe_flow", SimpleNamespace(trajpipe_run=lambda config: manifest))
    monkeypatch.delenv("TRAJPIPE_SECRET", raising=False)
    res = CliRunner().invoke(app, ["run", "--input", str(empty), "--out", str(tmp_path / "out"),
                                   "--backend", "transformers"], env={"COLUMNS": "300"})
    assert res.exit_code == 0, res.output
    assert "empty.jsonl holds no records" in " ".join(res.output.split()), res.output
    # a fresh user reran the quick start and waited 11 minutes again with no hint why
    assert "Note: TRAJPIPE_SECRET is not set: pseudonyms are random for this run, so a rerun redoes" in res.output
    res = CliRunner().invoke(app, ["run", "--input", str(empty), "--out", str(tmp_path / "out"),
                                   "--backend", "transformers"], env={"COLUMNS": "300", "TRAJPIPE_SECRET": "s"})
    assert res.exit_code == 0 and "TRAJPIPE_SECRET is not set" not in res.output, res.output


def test_errors_stay_on_one_line_in_a_log(tmp_path):
    """A fresh user saw ``Error: output folder not found: ...`` broken over 3 lines when stderr
    was a file (rich wraps at 80 columns off a terminal); errors are printed as one line."""
    import subprocess
    import sys

    path = tmp_path / ("a-rather-long-folder-name-" * 3) / "missing"
    res = subprocess.run([sys.executable, "-m", "pipeline.cli", "stats", str(path)], capture_output=True,
                         text=True, env={**os.environ, "COLUMNS": "80", "TERM": "dumb"}, timeout=120)
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: output folder not found: ") and str(path) in lines[0], lines


def test_run_summary_says_which_stages_were_reused(monkeypatch, capsys):
    """A rerun with the same config reused every stage up to rollout, and the summary showed their
    load times as if they had run; a reused stage now reads ``reused`` in the wall-time column."""
    monkeypatch.setenv("COLUMNS", "250")
    cli._print_counts({**MANIFEST, "reused_stages": ["ingest", "rollout"]})
    walls = {}
    for line in capsys.readouterr().err.splitlines():
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if len(cells) == 3 and cells[0]:
            walls[cells[0]] = cells[2]
    assert walls["ingest"] == "reused" and walls["rollout"] == "reused"
    assert walls["verify_trajectory"] == "0.03" and walls["select"] == "0.0"


def test_anonymize_on_an_empty_work_folder_says_so_at_once(tmp_path):
    """`trajpipe anonymize --work EMPTY` loaded presidio (~10 s) before saying that ingest had not
    run; the missing input is reported first, without importing the anonymizer."""
    import subprocess
    import sys

    code = ("import sys; from pipeline.cli import app\n"
            "try:\n    app(['anonymize', '--work', sys.argv[1]])\n"
            "except SystemExit as e:\n"
            "    print('anonymizer loaded' if 'pipeline.anonymize.anonymizer' in sys.modules else 'not loaded', e.code)\n")
    res = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert "needs the output of 'ingest'" in res.stderr and "trajpipe ingest --work" in res.stderr, res.stderr
    assert res.stdout.strip() == "not loaded 2", res.stdout
