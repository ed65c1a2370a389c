"""Rejection sampling: keep verified trajectories, at most ``cap`` per task instance.

A teacher is rolled out ``k`` times on each task package; the trajectory verifier gives each
rollout a :class:`~pipeline.records.Verdict`. This stage keeps only the rollouts that passed
(rejection sampling, as in STaR / RFT-style data collection) and caps how many passing rollouts
one task instance may contribute, so that easy tasks do not dominate the SFT set. It also
reports per-task group statistics (``k``, passes, pass rate), the numbers behind pass@k.

Every input trajectory leaves this stage either kept or rejected with a reason code, so
``len(kept) + len(rejected) == len(trajectories)``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from .records import Trajectory, Verdict, canonical_json

#: A passing trajectory beyond the per-instance cap.
SELECT_OVER_CAP = "SELECT_OVER_CAP"
#: A failed verdict that carried no reason code (should not happen; kept explicit, never silent).
VERIFY_FAILED_UNSPECIFIED = "VERIFY_FAILED_UNSPECIFIED"

Rejected = tuple[Trajectory, str, str]


@dataclass
class SelectionResult:
    """What :func:`select` returns.

    ``kept``: the selected trajectories, in input order. ``rejected``: ``(trajectory,
    reason_code, detail)`` for every other input, in input order. ``groups``: one dict per task
    instance, in order of first appearance, with keys ``task_id``, ``blueprint_id``, ``k``
    (rollouts seen), ``passes`` (verdicts passed), ``pass_rate`` (``passes / k``) and ``kept``
    (how many were selected, ``<= cap``).
    """

    kept: list[Trajectory] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    groups: list[dict[str, Any]] = field(default_factory=list)


def tool_error_count(trajectory: Trajectory) -> int:
    """Number of tool calls in ``trajectory.tool_calls`` that errored or had invalid JSON.

    A call counts once if its ``error`` is truthy or its ``valid_json`` is ``False``.
    """
    n = 0
    for call in trajectory.tool_calls:
        if call.get("error") or call.get("valid_json") is False:
            n += 1
    return n


def preference_key(trajectory: Trajectory) -> tuple:
    """Sort key of the deterministic choice among passing rollouts of one task (smaller wins).

    Order: fewer tool-call errors, then fewer messages, then fewer completion tokens, then the
    lowest ``sample_index``, then ``trajectory_id`` (a total order, so ties never depend on
    input order).
    """
    return (
        tool_error_count(trajectory),
        len(trajectory.messages),
        trajectory.completion_tokens,
        trajectory.sample_index,
        trajectory.trajectory_id,
    )


def _failure(verdict: Verdict) -> tuple[str, str]:
    codes = list(verdict.reason_codes)
    code = codes[0] if codes else VERIFY_FAILED_UNSPECIFIED
    detail = canonical_json({"other_reason_codes": codes[1:], "details": verdict.details})
    return code, detail


def select(
    trajectories: Iterable[Trajectory],
    verdicts: Iterable[Verdict],
    cap: int | None = 2,
) -> SelectionResult:
    """Rejection-sample verified trajectories with a per-instance cap.

    Args:
        trajectories: rollouts (any number per ``task_id``); ``trajectory_id`` must be unique.
        verdicts: one :class:`Verdict` per trajectory (matched on ``trajectory_id``); verdicts
            for trajectories not given are ignored.
        cap: the most passing trajectories kept per task instance (``None``: no cap).

    Returns:
        A :class:`SelectionResult`. A trajectory whose verdict failed is rejected with the
        verdict's first reason code (``VERIFY_FAILED_UNSPECIFIED`` if it has none) and a JSON
        detail ``{"other_reason_codes": [...], "details": {...}}``. Passing trajectories beyond
        ``cap`` for their task are rejected with ``SELECT_OVER_CAP``; which ones are kept is
        decided by :func:`preference_key` (fewer tool-call errors, shorter, lowest
        ``sample_index``), so the result does not depend on input order.

    Raises:
        ValueError: a trajectory has no verdict, two verdicts or trajectories share an id, a
            verdict's ``task_id`` differs from its trajectory's, or ``cap < 0``.
    """
    if cap is not None and cap < 0:
        raise ValueError(f"cap must be >= 0 or None, got {cap}")
    trajs = list(trajectories)
    by_id: dict[str, Verdict] = {}
    for v in verdicts:
        if v.trajectory_id in by_id:
            raise ValueError(f"two verdicts for trajectory {v.trajectory_id!r}")
        by_id[v.trajectory_id] = v

    seen: set[str] = set()
    groups: dict[str, dict[str, Any]] = {}
    passing: dict[str, list[Trajectory]] = {}
    for t in trajs:
        if t.trajectory_id in seen:
            raise ValueError(f"duplicate trajectory_id {t.trajectory_id!r}")
        seen.add(t.trajectory_id)
        v = by_id.get(t.trajectory_id)
        if v is None:
            raise ValueError(f"trajectory {t.trajectory_id!r} has no verdict")
        if v.task_id != t.task_id:
            raise ValueError(
                f"verdict for {t.trajectory_id!r} names task {v.task_id!r}, trajectory has {t.task_id!r}"
            )
        g = groups.setdefault(
            t.task_id,
            {"task_id": t.task_id, "blueprint_id": t.blueprint_id, "k": 0, "passes": 0,
             "pass_rate": 0.0, "kept": 0},
        )
        g["k"] += 1
        if v.passed:
            g["passes"] += 1
            passing.setdefault(t.task_id, []).append(t)

    chosen: set[str] = set()
    for task_id, ts in passing.items():
        ranked = sorted(ts, key=preference_key)
        take = ranked if cap is None else ranked[:cap]
        chosen.update(t.trajectory_id for t in take)
        groups[task_id]["kept"] = len(take)

    result = SelectionResult()
    for t in trajs:
        v = by_id[t.trajectory_id]
        if t.trajectory_id in chosen:
            result.kept.append(t)
        elif v.passed:
            result.rejected.append(
                (t, SELECT_OVER_CAP, f"task {t.task_id} already has {cap} kept trajectories")
            )
        else:
            code, detail = _failure(v)
            result.rejected.append((t, code, detail))
    for g in groups.values():
        g["pass_rate"] = g["passes"] / g["k"] if g["k"] else 0.0
    result.groups = list(groups.values())
    return result
