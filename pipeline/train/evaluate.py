"""``trajpipe eval``: pass@1 and pass@k of a model on one split of an export, without help.

The tasks are the rows of that split in ``rl.parquet`` (the tasks that passed task verification);
each is rebuilt whole from ``tasks.parquet`` (visible and hidden part, as synthesized), or, where
an export has no tasks.parquet, from the rl row's ground truth
(:func:`pipeline.rewards.task_from_ground_truth`). They go through the same rollout harness
(:func:`pipeline.stages.rollout_stage`, help switched off: ``hints="none"``) and the same trajectory
verifier (:func:`pipeline.stages.verify_trajectories_stage`) as ``trajpipe run``; the other
rollout settings (prompt style, turn limit, token budget, grammar, grounding, user simulator, tool
format, temperature) default to the ones the export was made with (its ``manifest.json``), with
fault injection off.

pass@k is the unbiased estimator of Chen et al. 2021 (arXiv:2107.03374) from ``n = k`` samples per
task with ``c`` passes, ``1 - C(n-c, k) / C(n, k)`` (:func:`pass_at_k`); pass@1 is ``c / n``. Per
blueprint and overall they are means over tasks (every task weighs the same). The verifier's partial signals are reported beside them (outcome rate: the final state
was right, whatever the path checks said; format-valid rate; mean reward), so a model that never
passes still shows how far it gets.
"""
from __future__ import annotations

import json
import math
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from pipeline.records import TaskHidden, TaskPackage, TaskVisible

EVAL_SPLITS = ("train", "validation", "test", "holdout")
#: rollout settings read from the export's manifest config when not given
ROLLOUT_KEYS = ("max_turns", "max_new_tokens", "temperature", "constrain", "grounded", "prompt_style",
                "user_sim", "tool_format", "batch_size")
ROLLOUT_DEFAULTS = {"max_turns": 8, "max_new_tokens": 64, "temperature": 0.7, "constrain": "grammar",
                    "grounded": True, "prompt_style": "compact", "user_sim": "scripted", "tool_format": "hermes",
                    "batch_size": 8}


def _manifest_config(data: Path) -> dict[str, Any]:
    p = data / "manifest.json"
    if not p.exists():
        return {}
    try:
        return dict(json.loads(p.read_text(encoding="utf-8")).get("config") or {})
    except (json.JSONDecodeError, OSError):
        return {}


def task_from_row(row: dict[str, Any]) -> TaskPackage:
    """A whole task package from a ``tasks.parquet`` row (:func:`pipeline.export.rows.task_row`)."""
    return TaskPackage(
        task_id=row["task_id"], blueprint_id=row["blueprint_id"], domain=row["domain"], seed=int(row["seed"] or 0),
        visible=TaskVisible(instruction=row["instruction"], policy=row["policy"], tools=json.loads(row["tools"]),
                            user_messages=list(row.get("user_messages") or [])),
        hidden=TaskHidden(**json.loads(row["hidden"])),
        task_kind=row.get("task_kind"), variant=row.get("variant"),
        expected_outcome=row.get("expected_outcome") or "action", skills=list(row.get("skills") or []))


def load_split_tasks(data: str | Path, split: str, limit: int | None = None,
                     blueprints: list[str] | None = None) -> list[TaskPackage]:
    """The tasks of ``split`` in ``DATA/rl.parquet``, in file order, as task packages (see the module
    docstring); only those of ``blueprints`` when given; the first ``limit`` per blueprint when given
    (so a small evaluation still covers every blueprint of the split).

    Raises FileNotFoundError (no rl.parquet) or ValueError (an rl row whose task cannot be rebuilt)."""
    from pipeline.domains import get_domain
    from pipeline.rewards import load_ground_truth, task_from_ground_truth

    data = Path(data)
    rl_path = data / "rl.parquet"
    if not rl_path.exists():
        raise FileNotFoundError(f"no rl.parquet in {data}: is it a folder written by `trajpipe run` / `export`?")
    rl = [r for r in pq.read_table(rl_path).to_pylist() if r.get("split") == split]
    if blueprints:
        keep = set(blueprints)
        rl = [r for r in rl if r.get("blueprint_id") in keep]
    full: dict[str, dict[str, Any]] = {}
    if (data / "tasks.parquet").exists():
        ids = {r["task_id"] for r in rl}
        full = {r["task_id"]: r for r in pq.read_table(data / "tasks.parquet").to_pylist() if r["task_id"] in ids}
    out: list[TaskPackage] = []
    per_bp: Counter[str] = Counter()
    for r in rl:
        if limit is not None and per_bp[r["blueprint_id"]] >= limit:
            continue
        per_bp[r["blueprint_id"]] += 1
        if r["task_id"] in full:
            out.append(task_from_row(full[r["task_id"]]))
        else:
            gt = load_ground_truth(r["reward_model"]["ground_truth"])
            out.append(task_from_ground_truth(gt, get_domain(gt["domain"])))
    return out


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from ``n`` samples with ``c`` passes (Chen et al. 2021, arXiv:2107.03374):
    ``1 - C(n-c, k) / C(n, k)`` (the same estimator as groups.parquet's). ValueError unless
    ``n >= 1``, ``0 <= c <= n`` and ``1 <= k <= n``."""
    if n < 1 or not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs n >= 1, 0 <= c <= n, 1 <= k <= n; got n={n}, c={c}, k={k}")
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def _mean(xs: list[float]) -> float | None:
    return round(sum(xs) / len(xs), 4) if xs else None


def score_rollouts(tasks: list[TaskPackage], trajectories: list[Any], verdicts: list[Any], k: int) -> dict[str, Any]:
    """pass@1 / pass@k per task, per blueprint and overall from verified rollouts (``k`` per task)."""
    by_task: dict[str, list[Any]] = defaultdict(list)
    for v in verdicts:
        by_task[v.task_id].append(v)
    finish = {t.trajectory_id: t.finish_reason for t in trajectories}
    rows = []
    for t in tasks:
        vs = by_task.get(t.task_id, [])
        n, c = len(vs), sum(v.passed for v in vs)
        kk = min(k, n)
        rows.append({
            "task_id": t.task_id, "blueprint_id": t.blueprint_id, "task_kind": t.task_kind,
            "n": n, "passes": c,
            "pass_at_1": round(c / n, 4) if n else None,
            "pass_at_k": round(pass_at_k(n, c, kk), 4) if n else None,
            "outcome_rate": _mean([float(v.reward_components.get("outcome", 0.0) >= 1.0) for v in vs]),
            "format_valid_rate": _mean([float(v.reward_components.get("format_valid", 0.0) >= 1.0) for v in vs]),
            "reward_mean": _mean([float(v.reward) for v in vs]),
            "reason_codes": dict(Counter(c for v in vs for c in v.reason_codes)),
            "finish_reasons": dict(Counter(finish.get(v.trajectory_id, "?") for v in vs)),
        })

    def summary(rs: list[dict[str, Any]]) -> dict[str, Any]:
        ok = [r for r in rs if r["n"]]
        return {"tasks": len(rs), "rollouts": sum(r["n"] for r in rs), "passes": sum(r["passes"] for r in rs),
                "pass_at_1": _mean([r["pass_at_1"] for r in ok]), "pass_at_k": _mean([r["pass_at_k"] for r in ok]),
                "outcome_rate": _mean([r["outcome_rate"] for r in ok if r["outcome_rate"] is not None]),
                "format_valid_rate": _mean([r["format_valid_rate"] for r in ok if r["format_valid_rate"] is not None]),
                "reward_mean": _mean([r["reward_mean"] for r in ok if r["reward_mean"] is not None])}

    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[r["blueprint_id"]].append(r)
    return {"overall": summary(rows), "per_blueprint": {bp: summary(rs) for bp, rs in sorted(groups.items())},
            "per_task": rows,
            "reason_codes": dict(sum((Counter(r["reason_codes"]) for r in rows), Counter()))}


def evaluate(data: str | Path, split: str = "validation", model: str | None = None, k: int = 4,
             backend: str = "auto", seed: int = 0, limit: int | None = None, blueprints: list[str] | None = None,
             out_path: str | Path | None = None, backend_obj: Any = None, **rollout: Any) -> dict[str, Any]:
    """Roll out ``model`` (None: the bundled teacher; a .gguf, a transformers folder such as a
    ``trajpipe train`` output) ``k`` times on every task of ``split`` without help, verify, score.

    ``limit``: at most that many tasks per blueprint; ``blueprints``: only those; ``rollout``:
    overrides of :data:`ROLLOUT_KEYS` (default: the export's own settings); ``backend_obj``: a
    loaded backend to reuse. Writes the result to ``out_path`` (when given) and returns it: the
    split, the model, the settings, ``overall`` / ``per_blueprint`` / ``per_task`` scores, reason
    codes, the blueprints evaluated, wall seconds. A split without tasks gives ``tasks: 0`` and
    null rates.

    Raises ValueError (unknown split or rollout option, ``k < 1``), FileNotFoundError, ModelNotFound."""
    from pipeline.stages import rollout_stage, verify_trajectories_stage

    if split not in EVAL_SPLITS:
        raise ValueError(f"--split must be one of {', '.join(EVAL_SPLITS)}, not {split!r}")
    if k < 1:
        raise ValueError("--k must be >= 1")
    unknown = set(rollout) - set(ROLLOUT_KEYS)
    if unknown:
        raise ValueError(f"unknown rollout settings {sorted(unknown)}; known: {', '.join(ROLLOUT_KEYS)}")
    data = Path(data)
    t0 = time.perf_counter()
    run_cfg = _manifest_config(data)
    settings = {key: (rollout[key] if rollout.get(key) is not None else
                      run_cfg.get(key) if run_cfg.get(key) is not None else ROLLOUT_DEFAULTS[key])
                for key in ROLLOUT_KEYS}
    tasks = load_split_tasks(data, split, limit, blueprints)
    own = None
    if backend_obj is None and tasks:  # loaded here, so a vLLM engine is stopped when done
        own = backend_obj = load_eval_backend(backend, model, seed, settings["batch_size"])
    try:
        res = rollout_stage(tasks, backend=backend, model=model, k=k, seed=seed, backend_obj=backend_obj,
                            hints="none", hint_when="always", fault_rate=0.0, **settings)
    finally:
        if own is not None:
            from pipeline.stages import release_backend
            release_backend(own)
    verdicts = verify_trajectories_stage(res.trajectories, tasks)
    scores = score_rollouts(tasks, res.trajectories, verdicts, k)
    result = {
        "data": str(data), "split": split, "model": model or "default", "model_id": res.model,
        "backend": res.backend, "k": k, "seed": seed, "hints": "none", "settings": settings,
        "limit_per_blueprint": limit, "blueprints": sorted({t.blueprint_id for t in tasks}),
        **scores, "tokens": res.tokens, "wall_seconds": round(time.perf_counter() - t0, 2),
    }
    if out_path is not None:
        p = Path(out_path)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return result


def load_eval_backend(backend: str, model: str | None, seed: int = 0, batch_size: int = 8) -> Any:
    """A backend as :func:`pipeline.stages.rollout_stage` would load it (``auto``: vLLM where it
    imports, else transformers), for one evaluation; ``openai`` is not offered here (an
    evaluation's model is a local folder or file)."""
    from pipeline.rollout.backends import load_backend, resolve_backend

    name = resolve_backend(backend)
    if name not in ("transformers", "vllm"):
        raise ValueError(f"eval runs a local model: --backend auto, transformers or vllm, not {backend!r}")
    kwargs: dict[str, Any] = {"batch_size": batch_size} if name == "transformers" else {"seed": seed}
    return load_backend(name, model, **kwargs)


def format_table(result: dict[str, Any]) -> list[tuple[str, ...]]:
    """Rows ``(blueprint, tasks, rollouts, passes, pass@1, pass@k, outcome rate)`` of an eval result,
    the overall row last (for printing)."""
    def fmt(x: Any) -> str:
        return "-" if x is None else f"{x:.3f}" if isinstance(x, float) else str(x)

    rows = [(bp, fmt(s["tasks"]), fmt(s["rollouts"]), fmt(s["passes"]), fmt(s["pass_at_1"]), fmt(s["pass_at_k"]),
             fmt(s["outcome_rate"])) for bp, s in result["per_blueprint"].items()]
    o = result["overall"]
    rows.append(("overall", fmt(o["tasks"]), fmt(o["rollouts"]), fmt(o["passes"]), fmt(o["pass_at_1"]),
                 fmt(o["pass_at_k"]), fmt(o["outcome_rate"])))
    return rows
