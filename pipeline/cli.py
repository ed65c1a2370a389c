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

import json
import os
import sys
import time
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

# no telemetry calls home from the ephemeral Prefect server (this machine has no internet anyway)
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("DO_NOT_TRACK", "1")

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="trajpipe: business agent logs -> verified multi-turn tool-use training data (Parquet).")
console = Console(stderr=True)

WORK_HELP = "Work folder holding the stage files (JSONL)."


def _die(msg: str, code: int = 2) -> None:
    console.print(f"[red]error:[/red] {msg}")
    raise typer.Exit(code)


def _need(work: Path, name: str, hint: str) -> Path:
    p = work / name
    if not p.exists():
        _die(f"{p} not found; run `trajpipe {hint}` first")
    return p


@app.command()
def run(
    input: Optional[Path] = typer.Option(None, "--input", "-i", help="Log file (canonical JSONL or tau-bench JSON). Default: the bundled sample in data/."),
    out: Path = typer.Option(Path("out"), "--out", "-o", help="Output folder for the datasets."),
    limit: Optional[int] = typer.Option(None, help="Read at most N input records."),
    tasks_per_blueprint: int = typer.Option(2, help="Task instances synthesized per blueprint."),
    k: int = typer.Option(4, help="Teacher rollouts per task."),
    cap: int = typer.Option(2, help="Max kept trajectories per task instance (rejection sampling)."),
    backend: str = typer.Option("transformers", help="Teacher backend: transformers (CPU default) or vllm."),
    model: Optional[str] = typer.Option(None, help="Teacher weights: a .gguf file or a transformers folder. Default: bundled SmolLM2-135M-Instruct."),
    seed: int = typer.Option(0, help="Run seed (synthesis, sampling, splits)."),
    max_turns: int = typer.Option(5, help="Agent turns per episode (one generation each)."),
    max_new_tokens: int = typer.Option(64, help="Max tokens generated per agent turn (a turn also stops at </tool_call>)."),
    temperature: float = typer.Option(0.7, help="Sampling temperature (0 = greedy)."),
    constrain: str = typer.Option("prefix", help="prefix: force a tool-call opening after each customer turn; none: free."),
    format: Optional[str] = typer.Option(None, "--format", help="Input format: canonical | taubench (auto-detected)."),
    batch_size: int = typer.Option(8, help="Generation batch size (transformers)."),
    prompt_style: str = typer.Option("compact", help="Tools in the system prompt: compact (one signature line each) or full (JSON schemas)."),
) -> None:
    """Run the whole Prefect flow: ingest, anonymize, blueprints, synthesize, verify, rollout, select, export."""
    if input is not None and not input.exists():
        _die(f"input not found: {input}")
    if input is not None and not input.is_file():
        _die(f"--input must be a log file, not a folder: {input}")
    if backend not in ("transformers", "vllm"):
        _die(f"unknown backend {backend!r}: choose transformers or vllm")
    if constrain not in ("prefix", "none"):
        _die("--constrain must be prefix or none")
    from pipeline.rollout.models import ModelNotFound, resolve_model
    try:
        resolve_model(model)
    except ModelNotFound as exc:
        _die(str(exc))
    from flows.trajpipe_flow import trajpipe_run

    t0 = time.perf_counter()
    manifest = trajpipe_run(input_path=str(input) if input else None, out_dir=str(out), limit=limit,
                            tasks_per_blueprint=tasks_per_blueprint, k=k, cap=cap, backend=backend, model=model,
                            seed=seed, max_turns=max_turns, max_new_tokens=max_new_tokens, temperature=temperature,
                            constrain=constrain, fmt=format, batch_size=batch_size, prompt_style=prompt_style)
    _print_counts(manifest)
    if manifest["counts"]["ingest"]["ok"] == 0:
        console.print("[yellow]warning:[/yellow] no input record was usable; see quarantine.parquet for reasons")
    console.print(f"done in {time.perf_counter() - t0:.1f}s -> {out}/ (browse with `trajpipe browse {out}`)")


def _print_counts(manifest: dict) -> None:
    t = Table(title="counts per stage")
    t.add_column("stage")
    t.add_column("counts")
    t.add_column("wall s", justify="right")
    wall = manifest.get("wall_seconds", {})
    order = ["ingest", "anonymize", "blueprints", "synthesize", "verify_task", "rollout", "verify_trajectory", "select"]
    counts = manifest.get("counts", {})
    for stage in sorted(counts, key=lambda k: order.index(k) if k in order else len(order)):
        c = counts[stage]
        shown = {k: v for k, v in c.items() if k not in ("catalog", "entities")}
        t.add_row(stage, json.dumps(shown), str(wall.get("select_dedupe" if stage == "select" else stage, "")))
    console.print(t)


@app.command()
def ingest(input: Path = typer.Option(..., "--input", "-i", help="Log file."),
           work: Path = typer.Option(Path("work"), help=WORK_HELP),
           format: Optional[str] = typer.Option(None, "--format", help="canonical | taubench (auto-detected)."),
           limit: Optional[int] = typer.Option(None, help="Read at most N records.")) -> None:
    """Read and validate logs; bad records go to quarantine.jsonl with a reason code."""
    from pipeline.ingest import ingest as _ingest, write_jsonl

    try:
        res = _ingest(input, fmt=format, limit=limit)
    except (FileNotFoundError, ValueError) as exc:
        _die(str(exc))
    write_jsonl(res.records, work / "logs.jsonl")
    write_jsonl(res.quarantine, work / "quarantine.jsonl")
    console.print(f"ingest: {res.n_in} in = {len(res.records)} ok + {len(res.quarantine)} quarantined -> {work}/")


@app.command()
def anonymize(work: Path = typer.Option(Path("work"), help=WORK_HELP),
              eval_: bool = typer.Option(False, "--eval", help="Instead of anonymizing --work, measure recall / precision per entity type on the labelled tau-bench logs and print the table (exit 1 if a target is missed)."),
              tau: Optional[Path] = typer.Option(None, "--tau", help="tau-bench folder for --eval (default ../shared/data/tau-bench)."),
              limit: Optional[int] = typer.Option(None, help="--eval: first N records of each log set.")) -> None:
    """Pseudonymize logs.jsonl with presidio (offline) -> anonymized.jsonl + anonymization_report.json.

    Pseudonyms are keyed by $TRAJPIPE_SECRET (random per run when unset; never written).
    With --eval, prints the anonymizer's recall/precision table on the labelled tau-bench logs."""
    if eval_:
        from pipeline.anonymize.cli_eval import run_eval_cli

        raise typer.Exit(run_eval_cli(tau=tau, limit=limit))
    from pipeline.ingest import read_jsonl, write_jsonl
    from pipeline.records import LogRecord
    from pipeline.stages import anonymize_stage

    recs = read_jsonl(_need(work, "logs.jsonl", "ingest"), LogRecord)
    res = anonymize_stage(recs, os.environ.get("TRAJPIPE_SECRET"))
    write_jsonl(res.records, work / "anonymized.jsonl")
    write_jsonl(res.quarantine, work / "anonymize_quarantine.jsonl")
    (work / "anonymization_report.json").write_text(json.dumps(res.report, indent=2, default=str))
    console.print(f"anonymize: {len(recs)} in = {len(res.records)} ok + {len(res.quarantine)} quarantined")


@app.command()
def blueprints(work: Path = typer.Option(Path("work"), help=WORK_HELP),
               domain: str = typer.Option("airline", help="Domain the logs come from.")) -> None:
    """Extract task blueprints from anonymized.jsonl -> blueprints.jsonl; prints the catalog."""
    from pipeline.ingest import read_jsonl, write_jsonl
    from pipeline.records import LogRecord
    from pipeline.stages import blueprints_stage

    recs = read_jsonl(_need(work, "anonymized.jsonl", "anonymize"), LogRecord)
    try:
        bps = blueprints_stage(recs, domain)
    except ValueError as exc:
        _die(str(exc))
    write_jsonl(bps, work / "blueprints.jsonl")
    t = Table(title=f"blueprint catalog ({len(bps)})")
    for c in ("blueprint", "logs", "success", "task kind", "signature"):
        t.add_column(c)
    for b in bps:
        t.add_row(b.blueprint_id, str(b.n_logs), str(b.n_success), str(b.task_kind), " > ".join(b.action_signature)[:80])
    Console().print(t)


@app.command()
def synthesize(work: Path = typer.Option(Path("work"), help=WORK_HELP),
               n: int = typer.Option(2, "--tasks-per-blueprint", "-n", help="Task instances per blueprint."),
               seed: int = typer.Option(0, help="Synthesis seed.")) -> None:
    """Synthesize task packages from blueprints.jsonl -> tasks.jsonl (+ synth_rejects.jsonl)."""
    from pipeline.ingest import read_jsonl, write_jsonl
    from pipeline.records import Blueprint
    from pipeline.stages import synthesize_stage

    bps = read_jsonl(_need(work, "blueprints.jsonl", "blueprints"), Blueprint)
    res = synthesize_stage(bps, n, seed, None)
    write_jsonl(res.tasks, work / "tasks.jsonl")
    write_jsonl(res.rejects, work / "synth_rejects.jsonl")
    console.print(f"synthesize: {len(res.tasks)} tasks, {len(res.rejects)} rejects")


@app.command()
def verify(work: Path = typer.Option(Path("work"), help=WORK_HELP)) -> None:
    """Verify tasks (tasks.jsonl -> task_verdicts.jsonl) and, if present, trajectories (-> verdicts.jsonl)."""
    from collections import Counter

    from pipeline.ingest import read_jsonl, write_jsonl
    from pipeline.records import TaskPackage, Trajectory
    from pipeline.stages import verify_tasks_stage, verify_trajectories_stage

    tasks = read_jsonl(_need(work, "tasks.jsonl", "synthesize"), TaskPackage)
    tv = verify_tasks_stage(tasks)
    write_jsonl(tv, work / "task_verdicts.jsonl")
    console.print(f"verify tasks: {sum(v.passed for v in tv)}/{len(tv)} passed "
                  f"{dict(Counter(c for v in tv for c in v.reason_codes))}")
    if (work / "trajectories.jsonl").exists():
        trajs = read_jsonl(work / "trajectories.jsonl", Trajectory)
        vs = verify_trajectories_stage(trajs, tasks)
        write_jsonl(vs, work / "verdicts.jsonl")
        console.print(f"verify trajectories: {sum(v.passed for v in vs)}/{len(vs)} passed "
                      f"{dict(Counter(c for v in vs for c in v.reason_codes))}")


@app.command()
def rollout(work: Path = typer.Option(Path("work"), help=WORK_HELP),
            k: int = typer.Option(4, help="Rollouts per task."),
            backend: str = typer.Option("transformers", help="transformers | vllm"),
            model: Optional[str] = typer.Option(None, help="Teacher weights path (default: bundled SmolLM2-135M)."),
            max_turns: int = typer.Option(5), max_new_tokens: int = typer.Option(64),
            temperature: float = typer.Option(0.7), constrain: str = typer.Option("prefix"),
            seed: int = typer.Option(0), batch_size: int = typer.Option(8),
            prompt_style: str = typer.Option("compact", help="compact | full")) -> None:
    """Run the teacher k times per verified task (tasks.jsonl) -> trajectories.jsonl."""
    from pipeline.ingest import read_jsonl, write_jsonl
    from pipeline.records import TaskPackage, TaskVerdict
    from pipeline.stages import rollout_stage, verify_tasks_stage

    if backend not in ("transformers", "vllm"):
        _die(f"unknown backend {backend!r}: choose transformers or vllm")
    tasks = read_jsonl(_need(work, "tasks.jsonl", "synthesize"), TaskPackage)
    tvp = work / "task_verdicts.jsonl"
    tv = read_jsonl(tvp, TaskVerdict) if tvp.exists() else verify_tasks_stage(tasks)
    ok = {v.task_id for v in tv if v.passed}
    good = [t for t in tasks if t.task_id in ok]
    if not good:
        console.print("[yellow]warning:[/yellow] no task passed task verification; nothing to roll out")
    from pipeline.rollout.models import ModelNotFound
    try:
        res = rollout_stage(good, backend, model, k, max_turns, max_new_tokens, temperature, constrain, seed,
                            batch_size, prompt_style)
    except (ModelNotFound, ImportError, ValueError) as exc:
        _die(str(exc))
    write_jsonl(res.trajectories, work / "trajectories.jsonl")
    console.print(f"rollout: {len(res.trajectories)} trajectories over {len(good)} tasks, tokens {res.tokens}")


@app.command()
def export(work: Path = typer.Option(Path("work"), help=WORK_HELP),
           out: Path = typer.Option(Path("out"), "--out", "-o", help="Dataset folder."),
           cap: int = typer.Option(2, help="Max kept trajectories per task instance."),
           seed: int = typer.Option(0, help="Split seed.")) -> None:
    """Rejection-sample, dedupe and write the Parquet datasets + manifest.json from the work folder."""
    from types import SimpleNamespace

    from pipeline.ingest import read_jsonl
    from pipeline.records import (Blueprint, LogRecord, QuarantineRecord, TaskPackage, TaskVerdict, Trajectory,
                                  Verdict)
    from pipeline.stages import AnonymizeResult, RolloutResult, export_stage, make_bundle, select_stage

    def rd(name, model):
        p = work / name
        return read_jsonl(p, model) if p.exists() else []

    trajs = read_jsonl(_need(work, "trajectories.jsonl", "rollout"), Trajectory)
    verdicts = read_jsonl(_need(work, "verdicts.jsonl", "verify"), Verdict)
    sel = select_stage(trajs, verdicts, cap)
    tasks = rd("tasks.jsonl", TaskPackage)
    logs = rd("logs.jsonl", LogRecord)
    anon = rd("anonymized.jsonl", LogRecord)
    report_p = work / "anonymization_report.json"
    ing = SimpleNamespace(n_in=len(logs) + len(rd("quarantine.jsonl", QuarantineRecord)), records=logs,
                          quarantine=rd("quarantine.jsonl", QuarantineRecord))
    bundle = make_bundle(
        config={"work": str(work), "out_dir": str(out), "cap": cap, "seed": seed,
                "prompt_style": (trajs[0].sampling.get("prompt_style") if trajs else None) or "compact"},
        ingest=ing,
        anonymize=AnonymizeResult(anon, rd("anonymize_quarantine.jsonl", QuarantineRecord),
                                  json.loads(report_p.read_text()) if report_p.exists() else {}),
        blueprints=rd("blueprints.jsonl", Blueprint),
        synthesis=SimpleNamespace(tasks=tasks, rejects=rd("synth_rejects.jsonl", QuarantineRecord)),
        task_verdicts=rd("task_verdicts.jsonl", TaskVerdict),
        rollout=RolloutResult(trajs, trajs[0].backend if trajs else "", trajs[0].model if trajs else "",
                              {"prompt": sum(t.prompt_tokens for t in trajs),
                               "completion": sum(t.completion_tokens for t in trajs)}),
        verdicts=verdicts, selection=sel, wall={})
    manifest = export_stage(str(out), bundle)
    _print_counts(manifest)


@app.command()
def browse(out: Path = typer.Argument(..., help="A dataset folder written by `trajpipe run` or `export`."),
           sql: Optional[str] = typer.Option(None, "--sql", help="Run one query and exit.")) -> None:
    """Open the outputs in DuckDB with one view per Parquet file; prints row counts and example queries.

    With --sql runs that query; otherwise, on a terminal, reads queries from the prompt (empty line quits)."""
    from pipeline.browse import EXAMPLE_QUERIES, open_views, summary

    if not out.is_dir():
        _die(f"{out} is not a folder")
    try:
        con = open_views(str(out))
    except FileNotFoundError as exc:
        _die(str(exc))
    t = Table(title=f"views in {out}")
    t.add_column("view")
    t.add_column("rows", justify="right")
    for name, rows in summary(str(out)):
        t.add_row(name, str(rows))
    Console().print(t)

    def show(q: str) -> bool:
        try:
            rel = con.sql(q)
        except Exception as exc:  # noqa: BLE001 - report SQL errors, keep the session
            console.print(f"[red]{type(exc).__name__}:[/red] {exc}")
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


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    app()
