"""What a fresh user sees of the CLI: ``--help`` at 80 and 120 columns keeps every option name whole
and shows no type for a flag, every error trajpipe reports has the prefix typer's usage errors have,
and the run summary says which numbers count trajectories and which count reason codes."""
from __future__ import annotations

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
    cases = [(["stats", str(tmp_path / "nope")], "is not a folder"),
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
