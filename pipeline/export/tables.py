"""The rows of every exported file, built from a run's records and audited (nothing written here).

:func:`build_tables` assigns splits (:class:`pipeline.export.splits.SplitPlan`), withholds helped
rollouts that echo their help (:func:`pipeline.export.audit.help_echoes`), builds each dataset's
rows with its own module's row function, and runs the leak audit
(:func:`pipeline.export.audit.check_no_hidden_leak`, :func:`~pipeline.export.audit.check_no_hint_leak`)
before anything reaches a file. The writer (:func:`pipeline.export.writer.export_all`) writes the
result.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

import pyarrow as pa

from ..records import Blueprint, QuarantineRecord, TaskPackage, TaskVerdict, Trajectory, Verdict
from .audit import check_no_hidden_leak, check_no_hint_leak, help_echoes
from .blueprints import blueprint_row
from .failed import failed_row
from .groups import group_row
from .preferences import dpo_rows
from .quarantine import quarantine_row
from .rejects import help_echo_row, stage_of, task_reject_row, trajectory_reject_row
from .rl import default_system_prompt, rl_row, rl_schema
from .schemas import SCHEMAS
from .sft import sft_row
from .splits import SplitPlan
from .steps import step_rows
from .tasks import task_row


@dataclass
class ExportTables:
    """What :func:`build_tables` gives the writer: ``rows`` and ``schemas`` per file stem (in
    :data:`pipeline.export.schemas.SCHEMAS` order; rl's schema names the run's tools), the
    ``splits`` plan, and the dpo pairs skipped."""

    rows: dict[str, list[dict[str, Any]]]
    schemas: dict[str, pa.Schema]
    splits: SplitPlan
    dpo_skipped: int


def _coerce(model, items: Iterable[Any]) -> list:
    return [x if isinstance(x, model) else model.model_validate(x) for x in items]


def _reject_trajectory(r: Any) -> Any:
    """The trajectory of a reject tuple (a Trajectory, a dict of one, or None)."""
    return r[0] if isinstance(r, (tuple, list)) and r else None


def build_tables(
    *,
    kept: Iterable[Trajectory],
    rejects: Iterable[tuple],
    tasks: Iterable[TaskPackage],
    task_verdicts: Iterable[TaskVerdict],
    blueprints: Iterable[Blueprint],
    groups: Iterable[dict[str, Any]],
    quarantine: Iterable[QuarantineRecord],
    verdicts: Iterable[Verdict] = (),
    split_seed: int = 0,
    fractions: tuple[float, float, float] = (0.8, 0.1, 0.1),
    system_prompt: Callable[[TaskPackage], str] | None = None,
    source_keys: dict[str, dict[str, list[str]]] | None = None,
    holdout_blueprints: Iterable[str] = (),
    gamma: float = 1.0,
    dpo_max_pairs: int = 4,
) -> ExportTables:
    """The audited rows of every file of :func:`pipeline.export.writer.export_all` (same
    arguments; see there for what each file holds).

    Raises:
        ValueError: a leak (:func:`pipeline.export.audit.check_no_hidden_leak`,
            :func:`~pipeline.export.audit.check_no_hint_leak`), a malformed reject tuple, bad
            ``fractions`` or ``gamma``, or an unknown holdout blueprint id.
    """
    kept_l = _coerce(Trajectory, kept)
    tasks_l = _coerce(TaskPackage, tasks)
    tverd_l = _coerce(TaskVerdict, task_verdicts)
    bps_l = _coerce(Blueprint, blueprints)
    quar_l = _coerce(QuarantineRecord, quarantine)
    verd_l = _coerce(Verdict, verdicts)
    rejects_l = list(rejects)
    groups_l = list(groups)
    verdict_by_id = {v.trajectory_id: v for v in verd_l}
    reward = {v.trajectory_id: v.reward for v in verd_l}
    tasks_by_id = {t.task_id: t for t in tasks_l}
    tverd_by_id = {v.task_id: v for v in tverd_l}
    prompt_fn = system_prompt or default_system_prompt

    # ---- splits: connected components of blueprint / source customer / source period
    split = SplitPlan([b.blueprint_id for b in bps_l] + [t.blueprint_id for t in tasks_l]
                      + [t.blueprint_id for t in kept_l] + [g.get("blueprint_id") for g in groups_l],
                      source_keys, split_seed, fractions, holdout_blueprints)

    # ---- helped rollouts that echo their help: withheld from every file (EXPORT_HELP_ECHO)
    def _tid(r: Any) -> str | None:
        t = _reject_trajectory(r)
        return t.trajectory_id if isinstance(t, Trajectory) else (t or {}).get("trajectory_id") if isinstance(t, dict) else None

    echo_pool = {t.trajectory_id: t for t in kept_l}
    for r in rejects_l:
        t = _reject_trajectory(r)
        if t is not None:
            t = t if isinstance(t, Trajectory) else Trajectory.model_validate(t)
            echo_pool.setdefault(t.trajectory_id, t)
    echoed = help_echoes(tasks_by_id, echo_pool.values())
    echo_rows = [help_echo_row(echo_pool[tid], mode) for tid, mode in sorted(echoed.items())]
    if echoed:
        kept_l = [t for t in kept_l if t.trajectory_id not in echoed]
        rejects_l = [r for r in rejects_l if _tid(r) not in echoed]
        verd_l = [v for v in verd_l if v.trajectory_id not in echoed]
        verdict_by_id = {v.trajectory_id: v for v in verd_l}

    # ---- trajectories: kept, failed, all rollouts (once each)
    rejected_trajs: list[Trajectory] = []
    for r in rejects_l:
        t = _reject_trajectory(r)
        if t is not None:
            rejected_trajs.append(t if isinstance(t, Trajectory) else Trajectory.model_validate(t))
    all_trajs: dict[str, Trajectory] = {}
    for t in kept_l + rejected_trajs:
        all_trajs.setdefault(t.trajectory_id, t)
    failed = [(t, verdict_by_id.get(t.trajectory_id)) for t in all_trajs.values()
              if t.trajectory_id in verdict_by_id and not verdict_by_id[t.trajectory_id].passed]
    tool_results = {tid: "\n".join(str(m.get("content") or "") for m in t.messages if m.get("role") == "tool")
                    for tid, t in all_trajs.items()}

    sft_rows = [sft_row(t, split(t.blueprint_id), reward.get(t.trajectory_id),
                        verdict_by_id.get(t.trajectory_id), tasks_by_id.get(t.task_id)) for t in kept_l]
    rl_tasks = [t for t in tasks_l if tverd_by_id.get(t.task_id) is not None and tverd_by_id[t.task_id].passed]
    tool_names = sorted({tl.get("function", tl).get("name") for t in rl_tasks for tl in t.visible.tools})
    rl_rows = [rl_row(t, split(t.blueprint_id), prompt_fn, i, tool_names) for i, t in enumerate(rl_tasks)]
    dpo, dpo_skipped = dpo_rows(kept_l, failed, split, reward, dpo_max_pairs)
    steps = [row for t in all_trajs.values()
             for row in step_rows(t, verdict_by_id.get(t.trajectory_id), split(t.blueprint_id), gamma)]
    failed_rows = [failed_row(t, v, split(t.blueprint_id)) for t, v in failed]
    check_no_hidden_leak(tasks_by_id, {"sft": sft_rows, "rl": rl_rows, "dpo": dpo, "steps": steps,
                                       "trajectories_failed": failed_rows}, tool_results)

    reject_rows = [trajectory_reject_row(r) for r in rejects_l] + echo_rows
    reject_rows += [task_reject_row(v, tasks_by_id.get(v.task_id)) for v in tverd_l if not v.passed]
    # groups: the select stage counts every rollout of a task; helped ones (hint_mode != none) are
    # counted apart so pass rates / pass@k stay those of the unhelped policy (groups.group_row)
    exported: dict[str, int] = {}
    for t in kept_l:
        if t.hint_mode == "none":
            exported[t.task_id] = exported.get(t.task_id, 0) + 1
    verdicts_by_task: dict[str, list[Verdict]] = {}
    helped: dict[str, dict[str, Any]] = {}
    selected = {t.trajectory_id for t in kept_l} | {  # kept by select: in sft, or dropped by dedupe after
        r[0].trajectory_id if isinstance(r[0], Trajectory) else r[0].get("trajectory_id")
        for r in rejects_l if isinstance(r, (tuple, list)) and len(r) in (3, 4) and r[0] is not None
        and (r[3] if len(r) == 4 else stage_of(r[1])) == "dedupe"}
    kept_ids = {t.trajectory_id for t in kept_l}
    for tid, t in all_trajs.items():
        if t.hint_mode == "none":
            if tid in verdict_by_id:
                verdicts_by_task.setdefault(t.task_id, []).append(verdict_by_id[tid])
            continue
        h = helped.setdefault(t.task_id, {"modes": set(), "k": 0, "passes": 0, "kept": 0, "exported": 0})
        h["modes"].add(t.hint_mode)
        if tid in verdict_by_id:
            h["k"] += 1
            h["passes"] += int(verdict_by_id[tid].passed)
        h["kept"] += int(tid in selected)
        h["exported"] += int(tid in kept_ids)
    for h in helped.values():
        h["mode"] = ",".join(sorted(h.pop("modes")))
    table_rows = {
        "sft": sft_rows,
        "rl": rl_rows,
        "rejects": reject_rows,
        "tasks": [task_row(t, tverd_by_id.get(t.task_id), split(t.blueprint_id)) for t in tasks_l],
        "blueprints": [blueprint_row(b, split(b.blueprint_id)) for b in bps_l],
        "groups": [group_row(g, exported.get(g["task_id"], 0), split(g.get("blueprint_id")),
                             verdicts_by_task.get(g["task_id"]),
                             tasks_by_id[g["task_id"]].skills if g["task_id"] in tasks_by_id else None,
                             helped.get(g["task_id"]))
                   for g in groups_l],
        "quarantine": [quarantine_row(q) for q in quar_l],
        "dpo": dpo,
        "steps": steps,
        "trajectories_failed": failed_rows,
    }
    check_no_hint_leak(tasks_by_id, all_trajs.values(), table_rows)
    schemas = dict(SCHEMAS)
    schemas["rl"] = rl_schema(tool_names)
    return ExportTables(rows={name: table_rows[name] for name in schemas}, schemas=schemas, splits=split,
                        dpo_skipped=dpo_skipped)
