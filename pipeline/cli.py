"""``trajpipe`` command line: the whole flow (``run``) or one stage at a time over a work folder.

Stage commands read and write JSONL files in ``--work`` so any stage can be rerun alone:

    ingest -> logs.jsonl, quarantine.jsonl
    anonymize -> anonymized.jsonl, anonymize_quarantine.jsonl, anonymization_report.json
    blueprints -> blueprints.jsonl
    synthesize -> tasks.jsonl, synth_rejects.jsonl
    verify -> task_verdicts.jsonl (and verdicts.jsonl when trajectories.jsonl exists)
    rollout -> trajectories.jsonl
    export -> Parquet datasets + manifest.json in --out
"""
from __future__ import annotations

import inspect
import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.table import Table

from pipeline.cli_config import die, print_error, warn  # the one way trajpipe reports an error or a warning

# no telemetry calls home from the ephemeral Prefect server (this machine has no internet anyway)
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("DO_NOT_TRACK", "1")
# the first start of the ephemeral server migrates a fresh database: give a busy machine two minutes
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")


class _TypeCell:
    """The type cell of an option row, e.g. ``<auto|transformers|vllm|openai>``: it wraps only after
    a ``|`` (rich wraps at spaces, and a type has none, so it would break mid-word)."""

    def __init__(self, text) -> None:
        self.text = text

    def _parts(self):
        return self.text.divide([i + 1 for i, ch in enumerate(self.text.plain) if ch == "|"])

    def __rich_measure__(self, console, options):
        from rich.measure import Measurement

        return Measurement(max((p.cell_len for p in self._parts()), default=0), self.text.cell_len)

    def __rich_console__(self, console, options):
        from rich.text import Text

        lines, line = [], Text()
        for part in self._parts():
            if line.cell_len and line.cell_len + part.cell_len > options.max_width:
                lines.append(line)
                line = Text()
            line.append_text(part)
        out = Text("\n").join([*lines, line])
        out.overflow = "fold"
        yield out


def _option_row(cells: list) -> list:
    """One row of typer's options table, ``[required?] long short negative negative-short type help``,
    as ``[required?] names type help``: the names cell holds the option's names, the negative
    (``--no-x``) on its own line, so no name is ever broken, and no column is spent on negatives."""
    from rich.text import Text

    req, (long, short, neg, neg_short, typ, help_) = cells[:-6], cells[-6:]

    def joined(*names) -> Text:
        return Text(", ").join([n for n in names if isinstance(n, Text) and n.plain])

    names = joined(long, short)
    if isinstance(neg, Text) and neg.plain:
        names = Text("\n").join([names, joined(neg, neg_short)]) if names.plain else joined(neg, neg_short)
    return [*req, names, _TypeCell(typ) if isinstance(typ, Text) else typ, help_]


def _upper_case_arguments(typer_core) -> None:
    """Arguments named as click (and typer before 0.29) name them: ``Usage: trajpipe stats [OPTIONS] OUT``,
    ``OUT`` in the Arguments panel, ``Missing argument 'OUT'``. Typer 0.29 shows the parameter's own name
    in braces, ``{out}`` (``{name}`` for ``domain init``), which reads like a placeholder to fill in
    literally. A given ``metavar`` is kept; an optional argument is ``[NAME]``, a repeated one ``NAME...``."""
    arg = getattr(typer_core, "TyperArgument", None)
    if arg is None or getattr(arg, "_trajpipe_upper_case", False) or not hasattr(arg, "_usage_display_name"):
        return

    def display_name_raw(self) -> str:
        return self.metavar if self.metavar is not None else (self.name or "").upper()

    def _usage_display_name(self) -> str:
        name = self.display_name_raw
        if not self.required:
            name = f"[{name}]"
        if self.nargs != 1:
            name += "..."
        return name

    arg.display_name_raw = property(display_name_raw)
    arg._usage_display_name = _usage_display_name
    arg._trajpipe_upper_case = True


def _tidy_help_tables() -> None:
    """Typer's ``--help`` tables (typer.rich_utils), made readable at 80 columns:

    * option names are never broken or cut: each option's names (``--x``, ``-x``, and ``--no-x`` on
      a second line) share one column that is never wrapped, so it is as wide as the longest name
      (at 80 columns ``trajpipe run --help`` had 15 names split, e.g. ``--tasks-per-blue``/``print``,
      ``--summarize-with-``/``model``; rich's default crop had given ``--tasks-per-blu…``);
    * the type column wraps only after a ``|`` of a choice list; help texts wrap at spaces and fold
      a word longer than their column instead of cutting it to "…";
    * a boolean flag (``--x/--no-x``, ``--force``, ``--help``) shows no type: typer's rich help gave
      every flag ``<bool>``, though a flag takes no value (its plain help already shows none).

    Typer builds these tables with ``rich.table.Table`` looked up in ``typer.rich_utils``; the
    subclass below is put there."""
    from rich.columns import Columns
    from rich.text import Text
    from typer import core as typer_core
    from typer import rich_utils

    class _HelpTable(Table):
        def add_row(self, *renderables, **kwargs):
            cells = list(renderables)
            options_row = self.highlight and len(cells) in (6, 7)  # an options or arguments panel
            if options_row:
                cells = _option_row(cells)
            super().add_row(*cells, **kwargs)
            for col in self.columns:
                col.overflow = "fold"
            if options_row:
                self.columns[len(cells) - 3].no_wrap = True  # the names
            for r in cells:  # the help cell: Columns of Text (help, default, env var)
                for item in (r.renderables if isinstance(r, Columns) else [r]):
                    if isinstance(item, Text):
                        item.overflow = "fold"

    rich_utils.Table = _HelpTable

    _upper_case_arguments(typer_core)

    shown_type = getattr(typer_core.TyperOption, "display_type_rich", None)  # (typer 0.2x: gives flags <bool>)
    if shown_type is not None and not getattr(shown_type, "_trajpipe_no_flag_type", False):
        def display_type_rich(self, ctx):
            if self.is_flag and not self.count:  # a flag takes no value: nothing to show
                return None
            return shown_type(self, ctx)

        display_type_rich._trajpipe_no_flag_type = True
        typer_core.TyperOption.display_type_rich = display_type_rich


_tidy_help_tables()

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="trajpipe: business agent logs -> verified multi-turn tool-use training data (Parquet).")
console = Console(stderr=True)


def _exit_on_sigterm() -> None:
    """Turn SIGTERM (a scheduler stopping the job, ``kill``) into ``SystemExit(143)`` in the main
    thread, so ``finally`` blocks and exit handlers run: a vLLM engine's processes are shut down
    with the command instead of being left running (the default SIGTERM action skips both)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return

    def _raise(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, _raise)


@app.callback()
def _every_command() -> None:
    # no docstring: the app's help stays the one given to typer.Typer
    _exit_on_sigterm()


def _wide_console(min_width: int) -> Console:
    """A stdout console for wide tables (catalog, coverage matrix, stats): on a terminal as wide as
    the terminal (rich's default; a forced wider width made every row wrap into unreadable pieces at
    80 columns), and at least ``min_width`` columns wide when output is piped or redirected, so a
    file or log keeps one table row per line and never truncates ids or reason codes."""
    probe = Console()
    if probe.is_terminal:
        return probe
    return Console(width=max(probe.width, min_width))



#: what the plain numbers of a stage's counts count (the manifest's ``counts`` keys); the other
#: stages name their units in their keys (blueprints 3, in_logs 6; tasks 3, trajectories 3, ...)
COUNT_UNITS = {"ingest": "records", "anonymize": "records", "verify_task": "tasks",
               "verify_trajectory": "trajectories", "select": "trajectories"}
#: the order plain numbers are shown in (others follow, as the manifest has them)
_FIRST = ("in", "ok", "tasks", "trajectories", "passed", "selected", "kept_after_dedupe", "outcome_ok")
#: what each breakdown counts: records with one key each, or reasons / faults, of which one task or
#: trajectory can have several (so those add up to more than the stage has records). Keys not
#: listed are shown under their own name.
BREAKDOWN_LABELS = {
    ("ingest", "by_reason"): "quarantined records by reason (one each)",
    ("synthesize", "by_reason"): "rejected tasks by reason (one each)",
    ("verify_task", "by_reason"): "reason codes of failed tasks (codes, not tasks: a task can have several)",
    ("rollout", "finish_reasons"): "trajectories by finish reason (one each)",
    ("rollout", "by_hint_mode"): "trajectories by hint mode",
    ("rollout", "user_simulator"): "trajectories by user simulator",
    ("rollout", "faults_injected"): "injected faults by kind (faults, not trajectories: a trajectory can have several)",
    ("verify_trajectory", "by_reason"): ("reason codes of failed trajectories (codes, not trajectories: a trajectory "
                                         "can have several)"),
    ("verify_trajectory", "passed_by_hint_mode"): "passed trajectories by hint mode",
    ("select", "by_reason"): ("rejected trajectories by reason (one each: its first failed check, over the cap, "
                              "or a duplicate)"),
    ("select", "kept_by_hint_mode"): "kept trajectories by hint mode",
}


def _count_lines(stage: str, counts: dict) -> list[str]:
    """A stage's manifest counts as labelled lines: its plain numbers after their unit
    (``trajectories: in 8, passed 2, ...``), then one line per breakdown, labelled with what it
    counts (:data:`BREAKDOWN_LABELS`: records, or reason codes of which a record can have several;
    reason counts largest first). Empty breakdowns are left out."""
    def pairs(items) -> str:
        return ", ".join(f"{k} {v}" for k, v in items)

    scalars = {k: v for k, v in counts.items() if not isinstance(v, (dict, list))}
    lines = []
    if scalars:
        first = [k for k in _FIRST if k in scalars]
        unit = COUNT_UNITS.get(stage)
        lines.append((f"{unit}: " if unit else "")
                     + pairs((k, scalars[k]) for k in first + [k for k in scalars if k not in first]))
    for key, val in counts.items():
        if key in ("catalog", "entities") or not isinstance(val, (dict, list)) or not val:
            continue
        label = BREAKDOWN_LABELS.get((stage, key), key)
        if isinstance(val, list):
            lines.append(f"{label}: {', '.join(map(str, val))}")
        elif key == "by_reason":
            lines.append(f"{label}: {pairs(sorted(val.items(), key=lambda kv: (-kv[1], kv[0])))}")
        else:
            lines.append(f"{label}: {pairs(val.items())}")
    return lines


def _print_counts(manifest: dict) -> None:
    t = Table(title="counts per stage")
    t.add_column("stage")
    t.add_column("counts")
    t.add_column("wall s", justify="right")
    wall = manifest.get("wall_seconds", {})
    reused = set(manifest.get("reused_stages", ()))
    order = ["ingest", "anonymize", "blueprints", "synthesize", "verify_task", "rollout", "verify_trajectory", "select"]
    counts = manifest.get("counts", {})
    for stage in sorted(counts, key=lambda k: order.index(k) if k in order else len(order)):
        # a stage reused from the work folder says so instead of its (load) time
        t.add_row(stage, "\n".join(_count_lines(stage, counts[stage])),
                  "reused" if stage in reused else str(wall.get(stage, "")))
    console.print(t, markup=False, highlight=False)


def _check_model(cfg) -> None:
    """Exit 2 with a clear message when the teacher weights cannot be found (before any stage runs)."""
    from pipeline.rollout.models import ModelNotFound, resolve_model

    try:
        if cfg.rollout.backend != "openai":
            resolve_model(cfg.rollout.model)
    except ModelNotFound as exc:
        die(str(exc))


def _check_input(cfg) -> None:
    p = cfg.ingest.input_path
    if p is not None and not Path(p).exists():
        die(f"input not found: {p}")
    if p is not None and not Path(p).is_file():
        die(f"--input must be a log file, not a folder: {p}")


def _check_format(cfg) -> None:
    """Exit 2 when ``--format`` names no input format (before any stage runs: the ingest stage would
    raise the same only after Prefect started)."""
    fmt = cfg.ingest.format
    if fmt is None:
        return
    from pipeline.ingest import known_formats

    known = known_formats()
    if fmt not in known:
        die(f"unknown input format {fmt!r} (--format); known: {', '.join(known)}; or leave --format out to "
            "detect it from the file")


def _check_backend(cfg) -> None:
    """Exit 2 when the teacher backend cannot be used (before any stage runs): ``--backend vllm``
    (or ``auto`` forced to it by $TRAJPIPE_AUTO_BACKEND) where vLLM does not import, with the
    install hint the rollout stage gives; a bad $TRAJPIPE_AUTO_BACKEND. No engine is started."""
    import importlib.util

    from pipeline.rollout.backends import resolve_backend, vllm_usable

    try:
        name = resolve_backend(cfg.rollout.backend)
    except ValueError as exc:
        die(str(exc))
    if name == "vllm" and not vllm_usable():
        from pipeline.rollout.backends.vllm_backend import VLLM_MISSING

        die(f"--backend vllm: {VLLM_MISSING}; or use --backend transformers")
    if name == "transformers" and importlib.util.find_spec("transformers") is None:
        die("--backend transformers: transformers is not installed (`bash scripts/install.sh`); or use "
            "--backend openai with a served model")


def _user_errors() -> tuple[type[BaseException], ...]:
    """Errors of the user's input or setup that a stage raises, the types the stage commands report as
    ``Error:`` (:func:`_run_stages`, exit 2); anything else is a bug and keeps its traceback."""
    from pipeline.runner import StageNotReady

    return (StageNotReady, FileNotFoundError, ValueError, ImportError)


def _backend_errors() -> tuple[type[BaseException], ...]:
    """A teacher server's failure (exit 1: the work failed, not the input)."""
    from pipeline.rollout.backends.openai_compat import OpenAICompatError

    return (OpenAICompatError,)


class _NoTracebackFor(logging.Filter):
    """Drops the traceback of a Prefect log record whose exception is one of ``types`` (its message,
    one line, is kept): a user-facing error is reported once, as ``Error: ...``."""

    def __init__(self, types: tuple[type[BaseException], ...]) -> None:
        super().__init__()
        self.types = types

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if isinstance(record.exc_info, tuple) else None
        if isinstance(exc, self.types):
            record.exc_info = None
            record.exc_text = None
        return True


PREFECT_RUN_LOGGERS = ("prefect.flow_runs", "prefect.task_runs")


def _run_flow(cfg) -> dict:
    """``trajpipe_run(config=cfg)``; a user-facing error escaping it (bad input, missing file, a
    backend that cannot load, a teacher server failing) is one ``Error:`` line, exit 2 (1 for a
    server failure), as the stage commands report it, with no traceback in Prefect's log either.
    Any other exception (a bug) keeps its traceback."""
    from flows.trajpipe_flow import trajpipe_run

    user, backend = _user_errors(), _backend_errors()
    quiet = _NoTracebackFor(user + backend)
    loggers = [logging.getLogger(n) for n in PREFECT_RUN_LOGGERS]
    for lg in loggers:
        lg.addFilter(quiet)
    try:
        return trajpipe_run(config=cfg)
    except user as exc:
        die(str(exc) or type(exc).__name__)
    except backend as exc:
        die(f"the teacher backend failed: {exc}", 1)
    finally:
        for lg in loggers:
            lg.removeFilter(quiet)


def _input_warning(ingest: dict[str, Any], input_path: str | None) -> str | None:
    """The warning a run prints when no input record got through ingest (None when some did):
    an empty input says so, rather than pointing at an empty quarantine."""
    if ingest.get("in", 0) == 0:
        return (f"{input_path or 'the input'} holds no records (an empty file?): nothing to do; "
                "the datasets were written empty")
    if ingest.get("ok", 0) == 0:
        return f"no input record was usable (all {ingest['in']} quarantined); see quarantine.parquet for reasons"
    return None


#: said by `trajpipe run` and `trajpipe anonymize` when $TRAJPIPE_SECRET is unset (a rerun then
#: redoes every stage after ingest: random pseudonyms are never reused)
SECRET_NOTE = ("TRAJPIPE_SECRET is not set: pseudonyms are random for this run, so a rerun redoes every "
               "stage after ingest; set it (any private string, never written) to resume and reuse stages")


def _run_body(cfg) -> None:
    """Run the whole Prefect flow: ingest, anonymize, blueprints, synthesize, verify, rollout, select, export.

    Stage outputs go to the work folder (--work): a rerun with the same config skips every stage whose
    output is complete."""
    _check_input(cfg)
    _check_format(cfg)
    _check_model(cfg)
    _check_backend(cfg)
    if not os.environ.get("TRAJPIPE_SECRET"):
        warn(SECRET_NOTE, prefix="Note:")

    t0 = time.perf_counter()
    manifest = _run_flow(cfg)
    out = cfg.export.out_dir
    _print_counts(manifest)
    note = _input_warning(manifest["counts"]["ingest"], cfg.ingest.input_path)
    if note:
        warn(note)
    vt = manifest["counts"].get("verify_trajectory") or {}
    ro = manifest["counts"].get("rollout") or {}
    n_err = (ro.get("finish_reasons") or {}).get("error", 0)
    if ro.get("trajectories") and n_err == ro["trajectories"]:
        # the teacher never generated: an engine failure, not a weak model (the datasets are written
        # so nothing is lost, but the run failed)
        die(f"all {n_err} rollouts ended with a generation error (finish_reason 'error'; the backend's exception "
            "is in each trajectory's last message in the work folder's rollout/<signature>/trajectories.jsonl). "
            "Nothing was learnt from the teacher; fix the backend and rerun.", 1)
    if vt.get("in") and not vt.get("passed"):
        warn(f"0 of {vt['in']} trajectories passed verification, so sft.parquet and dpo.parquet are empty (rl, "
             "steps, groups and trajectories_failed are written). The bundled 135M teacher rarely solves a task; use "
             "a stronger one with --model PATH (or a served one with --backend openai). Why they failed: "
             f"`trajpipe stats {out}` or the rejects table.", prefix="Note:")
    from pipeline.card import hint_mode_line  # sft rows per help mode (help during generation only)
    console.print(hint_mode_line("sft rows", ((manifest.get("files") or {}).get("sft") or {}).get("rows_by_hint_mode")
                                 or {}) + " (help during generation only, never in the data)")
    console.print(f"done in {time.perf_counter() - t0:.1f}s -> {out}/ (browse with `trajpipe browse {out}`)",
                  soft_wrap=True)  # one line: the command in it must survive copy and paste


def _runner(cfg):
    import pipeline.stages  # noqa: F401  (registers the stages)
    from pipeline.runner import Runner

    return Runner(cfg)


def _run_stages(cfg, names: list[str], optional: tuple[str, ...] = ()) -> dict:
    """Run ``names`` in order over the work folder (inputs from earlier stages' newest outputs;
    a stage whose output for this config is complete is reused). ``optional``: stages run only
    when their inputs exist. Returns stage name -> StageResult."""
    from pipeline.runner import StageNotReady

    runner = _runner(cfg)
    done = {}
    for name in names:
        try:
            res = runner.run(name, run_missing=False)
        except StageNotReady as exc:
            if name in optional:
                continue
            die(str(exc))
        except _user_errors() as exc:  # StageNotReady is caught above
            die(f"{name}: {exc}")
        done[name] = res
        where = runner.folder(name, res.signature)
        summary = json.dumps({k: v for k, v in res.stats.items() if k not in ('catalog', 'entities')}, default=str)
        cut = f"{summary[:300]}… (all in {where}/_SUCCESS.json)" if len(summary) > 300 else summary
        console.print(f"{name}: {'reused' if res.reused else 'done'} -> {where}/  " + cut, markup=False)
    return done


def _ingest_body(cfg) -> None:
    """Read and validate logs and route each to the domain that owns its tools; bad or unowned
    records go to quarantine with a reason code -> WORK/ingest/<signature>/logs.jsonl, quarantine.jsonl.

    Exits with status 3 when records came in and none passed (all quarantined), so that a
    scheduled job notices; the quarantine is written all the same."""
    _check_input(cfg)
    st = _run_stages(cfg, ["ingest"])["ingest"].stats
    console.print(f"ingest: {st['in']} in = {st['ok']} ok + {st['quarantined']} quarantined records"
                  + "".join(f"; {line}" for line in _count_lines("ingest", {"by_reason": st["by_reason"]})),
                  markup=False, highlight=False)
    if st["in"] and not st["ok"]:
        # a fresh-clone check: every record of a company's own system was set aside and the next
        # stages ran on nothing, with no word about it
        hint = ("records whose tools no installed domain owns need a domain: run ingest again with --domain NAME "
                "naming an installed domain (plain chats without tool calls take any: --domain airline), or "
                "make one - trajpipe domain init NAME "
                "--from-logs LOGS --out DIR, then pip install -e DIR and run ingest again with --domain NAME "
                "(docs/domains.md); a record's own metadata.domain must name an installed domain too - "
                "quarantine.jsonl's detail says which tools or domain it lacked"
                if st["by_reason"].get("INGEST_NO_DOMAIN")
                else "see the reasons in quarantine.jsonl")
        console.print(f"warning: no record passed ingest - later stages will have nothing to work on; {hint}",
                      markup=False, highlight=False)
        # (exit 3: every record quarantined - a nightly job must not report success on nothing;
        # sixteenth round, a known limit of the fifteenth)
        raise typer.Exit(code=3)
    elif not st["in"]:
        console.print("warning: the input holds no record", markup=False, highlight=False)


def _anonymize_body(cfg, eval_: bool = False, tau: Optional[Path] = None, eval_limit: Optional[int] = None,
                    review: bool = False) -> None:
    """Pseudonymize the ingested logs with presidio (offline) -> WORK/anonymize/<signature>/anonymized.jsonl and
    anonymization_report.json.

    Pseudonyms are keyed by $TRAJPIPE_SECRET (random per run when unset; never written).
    With --eval, prints the anonymizer's recall/precision table on the labelled tau-bench logs."""
    if eval_:
        from pipeline.anonymize.cli_eval import run_eval_cli

        raise typer.Exit(run_eval_cli(tau=tau, limit=eval_limit))
    # a bad --pii-config (PiiConfigError, a ValueError) is reported by _run_stages; importing the
    # anonymizer here would load presidio (~10 s) before a missing ingest output is reported
    res = _run_stages(cfg, ["anonymize"])["anonymize"]
    if not res.stats.get("in"):
        # a fresh-clone check (eighteenth round): after an ingest that set every record aside, this
        # command said "done" over an empty anonymized.jsonl
        warn("no record to anonymize: ingest passed none (see ingest's quarantine.jsonl for why), so "
             "anonymized.jsonl is empty")
    report = res.outputs.get("anonymization_report") or {}
    audit = report.get("audit") or {}
    leaks, suspects = audit.get('leaks', {}).get('count', 0), audit.get('suspects', {}).get('count', 0)
    # the residual scan's real values left (a fresh-clone check: a passport zone's surname the
    # report counted was never printed)
    residual_real = (report.get("residual") or {}).get("real_values", 0) or 0
    # the audit line and the review list are the command's result: on stdout, for a pipe or a file
    # (progress and notes stay on stderr; a fresh-clone check found everything on stderr)
    result = Console()
    result.print(f"audit: {leaks} leaks, {suspects} suspects, {residual_real} real values left by the "
                  f"residual scan (values never shown)"
                  + ("; see them in masked context with --review, and extend the PII config (--pii-config) "
                     "for what it missed" if (leaks or suspects or residual_real) and not review else ""))
    if not os.environ.get("TRAJPIPE_SECRET"):  # a fresh user's check of a clone: it said nothing
        warn(SECRET_NOTE, prefix="Note:")
    if review:
        anonymizer = None if res.reused else (res.runtime.get("denylist") and
                                              getattr(res.runtime["denylist"], "__self__", None))
        if anonymizer is None:
            console.print("--review needs a fresh anonymization (the findings are kept in memory only, never "
                          "written): run again with --force or a new work folder")
            return
        for item in anonymizer.review():
            kind = "LEAK" if item["leak"] else "suspect"
            result.print(f"  {kind:<7} {item['record_id']}  {item['type']:<20} {item['context']}",
                         markup=False, highlight=False, soft_wrap=True)


def _blueprints_body(cfg) -> None:
    """Cluster the anonymized logs into task blueprints -> WORK/blueprints/<signature>/blueprints.jsonl,
    catalog.json, coverage.json; prints the catalog and the blueprint x skill coverage matrix."""
    from pipeline.coverage import coverage_tables

    res = _run_stages(cfg, ["blueprints"])["blueprints"]
    cat = res.outputs["catalog"]
    t = Table(title=f"blueprint catalog ({len(cat)} blueprints from {res.stats.get('in_logs')} logs)")
    for c in ("blueprint", "kind", "outcome", "size", "success", "skills", "rule variants"):
        t.add_column(c)
    for row in cat:
        t.add_row(row["blueprint_id"], str(row["task_kind"]), row["outcome"], str(row["size"]),
                  str(row["n_success"]), ",".join(row["skills"]), ",".join(row["rule_variants"]))
    out = _wide_console(160)
    out.print(t)
    for table in coverage_tables(res.outputs["coverage"]):
        out.print(table)


def _synthesize_body(cfg) -> None:
    """Synthesize task packages from the blueprints -> WORK/synthesize/<signature>/tasks.jsonl (+ synth_rejects,
    task_coverage); prints the blueprint x skill coverage of the tasks."""
    from pipeline.coverage import coverage_tables

    res = _run_stages(cfg, ["synthesize"])["synthesize"]
    out = _wide_console(160)
    for table in coverage_tables(res.outputs["task_coverage"]):
        out.print(table)
    st = res.stats
    targets = cfg.synthesize.target_skills
    console.print(f"synthesize: {st['tasks']} tasks, {st['rejected']} rejects"
                  + (f", {st.get('targeted', 0)} for --target-skills {targets}" if targets else ""))
    if st.get("unmet_targets"):
        warn(f"no task kind or variant yields all of {st['unmet_targets']}")


def _verify_body(cfg) -> None:
    """Verify tasks (-> task_verdicts) and, when rollouts exist, trajectories (-> verdicts, and the difficulty band
    over each task's pass rate -> task_verdicts_banded). Prints how many tasks each check dropped (a task counts
    under its first failing check)."""
    from collections import Counter

    done = _run_stages(cfg, ["verify_tasks", "verify_trajectories"], optional=("verify_trajectories",))

    def show(what: str, stage: str, verdicts) -> None:
        reasons = _count_lines(stage, {"by_reason": dict(Counter(c for v in verdicts for c in v.reason_codes))})
        console.print(f"verify {what}: {sum(v.passed for v in verdicts)}/{len(verdicts)} {what} passed"
                      + "".join(f"; {line}" for line in reasons), markup=False, highlight=False)

    tv = done["verify_tasks"].outputs["task_verdicts"]
    show("tasks", "verify_task", tv)
    first = dict(Counter(v.reason_codes[0] for v in tv if v.reason_codes))
    console.print("tasks dropped, by their first failing check (one each): "
                  + (", ".join(f"{k} {n}" for k, n in first.items()) or "none"), markup=False, highlight=False)
    if "verify_trajectories" in done:
        show("trajectories", "verify_trajectory", done["verify_trajectories"].outputs["verdicts"])


def _rollout_body(cfg) -> None:
    """Run the teacher k times per verified task -> WORK/rollout/<signature>/trajectories.jsonl."""
    _check_model(cfg)
    res = _run_stages(cfg, ["rollout"])["rollout"]
    console.print(f"rollout: {res.stats['trajectories']} trajectories over {res.stats['tasks']} tasks, "
                  f"tokens {res.stats['tokens']}")


def _export_body(cfg) -> None:
    """Rejection-sample, dedupe and write the Parquet datasets (sft, rl, dpo, steps, groups, ...), the
    LLaMA-Factory files, the dataset card (README.md + plots) and manifest.json from the work folder."""
    done = _run_stages(cfg, ["select", "export"])
    _print_counts(done["export"].runtime["manifest"])


from pipeline.cli_config import TOP, config_command  # noqa: E402

ALL_SECTIONS = [TOP, "ingest", "anonymize", "blueprints", "synthesize", "verify", "rollout", "select", "export"]
config_command(app, "run", ALL_SECTIONS, _run_body, on_error=die)
config_command(app, "ingest", [TOP, "ingest"], _ingest_body, on_error=die)
config_command(app, "anonymize", [TOP, "anonymize"], _anonymize_body, on_error=die, extra=[
    inspect.Parameter("eval_", inspect.Parameter.KEYWORD_ONLY, annotation=bool, default=typer.Option(
        False, "--eval", help="Instead of anonymizing, measure recall / precision per entity type on the labelled "
                              "tau-bench logs and print the table (exit 1 if a target is missed).")),
    inspect.Parameter("tau", inspect.Parameter.KEYWORD_ONLY, annotation=Optional[Path], default=typer.Option(
        None, "--tau", help="tau-bench folder for --eval (default ../shared/data/tau-bench).")),
    inspect.Parameter("eval_limit", inspect.Parameter.KEYWORD_ONLY, annotation=Optional[int], default=typer.Option(
        None, "--eval-limit", help="--eval: first N records of each log set.")),
    inspect.Parameter("review", inspect.Parameter.KEYWORD_ONLY, annotation=bool, default=typer.Option(
        False, "--review", help="Also print the audit's findings (values under personal keys or high-risk shapes "
                                "that survived) with a masked context for a person to judge; never written.")),
])
config_command(app, "blueprints", [TOP, "blueprints"], _blueprints_body, on_error=die)
config_command(app, "synthesize", [TOP, "synthesize"], _synthesize_body, on_error=die)
config_command(app, "verify", [TOP, "verify"], _verify_body, on_error=die)
config_command(app, "rollout", [TOP, "rollout"], _rollout_body, on_error=die)
config_command(app, "export", [TOP, "select", "export"], _export_body, on_error=die)

OUTPUT_FOLDER_HINT = ("pass the output folder written by `trajpipe run --out` (or `trajpipe export --out`); it holds "
                      "sft.parquet, rl.parquet, manifest.json, ...")


def _is_work_folder(p: Path) -> bool:
    """A work folder (``--work``): stage subfolders (ingest/, anonymize/, ...) each with a ``latest`` file."""
    try:
        return any(c.is_dir() and (c / "latest").is_file() for c in p.iterdir())
    except OSError:
        return False


def _is_output_folder(p: Path) -> bool:
    return p.is_dir() and ((p / "manifest.json").is_file() or any(p.glob("*.parquet")))


def _check_output_folder(out: Path, command: str, work_ok: bool = False) -> None:
    """Exit 2 with what to pass instead when ``out`` is not an output folder of ``trajpipe run --out``
    (``stats``, ``browse``, ``view``): a path that does not exist, a file (its folder suggested when
    that is an output folder), a work folder (unless ``work_ok``: ``view`` reads one), a folder with
    no datasets."""
    if not out.exists():
        die(f"output folder not found: {out}; {OUTPUT_FOLDER_HINT}")
    if not out.is_dir():
        parent = out.parent
        if _is_output_folder(parent):
            die(f"{out} is a file; pass its folder: `trajpipe {command} {parent}`")
        die(f"{out} is a file; {OUTPUT_FOLDER_HINT}")
    if work_ok:
        return
    if _is_work_folder(out):
        die(f"{out} is a work folder (stage subfolders ingest/, anonymize/, ... with `latest`); pass the --out "
            "folder of that run instead (it holds sft.parquet, rl.parquet, manifest.json, ...)")
    if not any(out.glob("*.parquet")):
        die(f"no .parquet files in {out}; {OUTPUT_FOLDER_HINT}")


@app.command()
def browse(out: Path = typer.Argument(..., help="A dataset folder written by `trajpipe run` or `export`."),
           sql: Optional[str] = typer.Option(None, "--sql", help="Run one query and exit.")) -> None:
    """Open the outputs in DuckDB with one view per Parquet file; prints row counts and example queries.

    With --sql runs that query and prints its result alone on stdout (the views table goes to
    stderr); otherwise, on a terminal, reads queries from the prompt (empty line quits)."""
    from pipeline.browse import EXAMPLE_QUERIES, open_views, summary

    _check_output_folder(out, "browse")
    try:
        con = open_views(str(out))
    except FileNotFoundError as exc:
        die(str(exc))
    t = Table(title=f"views in {out}")
    t.add_column("view")
    t.add_column("rows", justify="right")
    for name, rows in summary(str(out)):
        t.add_row(name, str(rows))
    # with --sql stdout carries the query's result only (pipe it); the views go to stderr
    Console(stderr=bool(sql)).print(t)

    def show(q: str) -> bool:
        try:
            rel = con.sql(q)
        except Exception as exc:  # noqa: BLE001 - report SQL errors, keep the session
            print_error(f"{type(exc).__name__}: {exc}")
            return False
        if rel is not None:
            print(rel)
        return True

    if sql:
        if not show(sql):
            raise typer.Exit(1)
        return
    Console().print("example queries:")
    for q in (EXAMPLE_QUERIES.values() if isinstance(EXAMPLE_QUERIES, dict) else EXAMPLE_QUERIES):
        Console().print(f"  {q}")
    if sys.stdin.isatty():
        while True:
            try:
                q = input("duckdb> ").strip()
            except EOFError:
                break
            if not q:
                break
            show(q)


@app.command()
def stats(out: Path = typer.Argument(..., help="A dataset folder written by `trajpipe run` or `export`.")) -> None:
    """Print the summary table of a dataset folder: rows per dataset and split, pass rates, zero-variance groups,
    anchor states, top reason codes."""
    from pipeline.stats import print_summary

    _check_output_folder(out, "stats")
    try:
        print_summary(str(out), _wide_console(140))
    except FileNotFoundError as exc:
        die(str(exc))


@app.command()
def view(out: Path = typer.Argument(..., help="A dataset folder written by `trajpipe run` / `export`, or a work folder."),
         work: Optional[Path] = typer.Option(None, "--work", help="Work folder with the stage JSONL files (default: OUT "
                                             "itself if it holds them, else the one recorded in OUT/manifest.json)."),
         dest: Optional[Path] = typer.Option(None, "--dest", help="Report folder (default: OUT/view)."),
         open_: bool = typer.Option(False, "--open", help="Open the report in the default browser.")) -> None:
    """Write a static HTML report of a run (OUT/view/index.html, works offline): blueprints and tasks with pass
    rates, filters, one page per trajectory (chat, verdict, state diff, reward, faults, task), rejects, anonymization."""
    from pipeline.view import ViewInputError, build_view

    _check_output_folder(out, "view", work_ok=True)
    try:
        res = build_view(out, work, dest)
    except ViewInputError as exc:
        die(str(exc))
    pages = ", ".join(f"{n} {k}" for k, n in sorted(res.pages.items()) if k != "assets")
    console.print(f"view: {pages}; {res.bytes / 1e6:.1f} MB in {res.seconds:.1f}s -> {res.index}")
    if open_:
        import webbrowser

        uri = res.index.resolve().as_uri()
        if not webbrowser.open(uri):  # False: no browser found (a server, a container)
            warn(f"no web browser to open here; open {uri} on a machine with one (or copy {res.index.parent}/)")


from pipeline.commands import register_all  # noqa: E402  (train, eval, domain, ...: one module each)

register_all(app)


def _help_paragraphs_unbroken(typer_app: typer.Typer) -> None:
    """Join the lines of each paragraph of every command's help (its docstring): typer's rich help
    keeps a docstring's line breaks, so ``trajpipe run --help`` showed "... skips every stage whose"
    / "output is complete." at any width; paragraphs (blank-line separated) stay apart."""
    for info in typer_app.registered_commands:
        text = info.help or inspect.getdoc(info.callback)
        if text:
            info.help = "\n\n".join(" ".join(p.split()) for p in inspect.cleandoc(text).split("\n\n"))
    for group in typer_app.registered_groups:
        _help_paragraphs_unbroken(group.typer_instance)


_help_paragraphs_unbroken(app)


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    app()
