"""``groups.parquet``: one row per task instance, the group statistics of its rollouts (k,
passes, pass@1 / pass@k, reward mean / std, zero variance; unhelped rollouts, the helped ones in
``hint_mode`` / ``*_helped``)."""
from __future__ import annotations

from typing import Any

import pyarrow as pa

from ..records import Verdict
from .columns import REWARD_COMPONENT_NAMES, REWARD_COMPONENTS, req

SCHEMA = pa.schema(
    [
        req("task_id", pa.string()),
        pa.field("blueprint_id", pa.string()),
        pa.field("split", pa.string()),
        pa.field("k", pa.int64()),  # rollouts
        pa.field("passes", pa.int64()),
        pa.field("pass_rate", pa.float64()),
        pa.field("kept", pa.int64()),  # selected by rejection sampling (<= cap)
        pa.field("exported", pa.int64()),  # rows of this task in sft.parquet (after dedupe)
        pa.field("pass_at_1", pa.float64()),  # unbiased estimate (Chen et al. 2021) = passes / k
        pa.field("pass_at_k", pa.float64()),  # unbiased pass@k with k = rollouts (1.0 iff any pass)
        pa.field("reward_mean", pa.float64()),  # over the group's verdicts (Verdict.reward)
        pa.field("reward_std", pa.float64()),  # population std (ddof=0)
        pa.field("zero_variance", pa.bool_()),  # all pass or all fail: no GRPO advantage signal
        pa.field("reward_components_mean", REWARD_COMPONENTS),
        pa.field("skills", pa.list_(pa.string())),
        # k .. reward_components_mean, kept and exported count the task's *unhelped* rollouts only
        # (hint_mode none: the RL-relevant numbers); its helped rollouts are counted here:
        pa.field("hint_mode", pa.string()),  # mode of the helped rollouts ("none": the task had none)
        pa.field("k_helped", pa.int64()),
        pa.field("passes_helped", pa.int64()),
        pa.field("pass_rate_helped", pa.float64()),  # null without helped rollouts
        pa.field("kept_helped", pa.int64()),
        pa.field("exported_helped", pa.int64()),  # rows of this task in sft.parquet from helped rollouts
    ]
)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k estimate from ``n`` samples with ``c`` passes (Chen et al. 2021,
    "Evaluating Large Language Models Trained on Code", arXiv:2107.03374, eq. 1 and its
    numerically stable product form): ``1 - C(n-c, k) / C(n, k)``.

    Raises:
        ValueError: ``n < 1``, ``c`` not in ``[0, n]`` or ``k`` not in ``[1, n]``.
    """
    if n < 1 or not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs n >= 1, 0 <= c <= n, 1 <= k <= n; got n={n}, c={c}, k={k}")
    if n - c < k:
        return 1.0
    prod = 1.0
    for i in range(n - c + 1, n + 1):
        prod *= 1.0 - k / i
    return 1.0 - prod


def group_row(g: dict[str, Any], exported: int, split: str | None,
              verdicts: list[Verdict] | None = None, skills: list[str] | None = None,
              helped: dict[str, Any] | None = None) -> dict[str, Any]:
    """A ``groups.parquet`` row from one :func:`pipeline.select.select` group dict plus the
    group's verdicts (reward mean / population std, mean reward components); pass@1 and pass@k
    (k = rollouts) by :func:`pass_at_k`; ``zero_variance`` when all rollouts pass or all fail.

    Helped rollouts (``Trajectory.hint_mode`` other than ``none``) never mix into these numbers:
    ``helped`` = ``{"mode", "k", "passes", "kept", "exported"}`` of the task's helped rollouts,
    which are subtracted from the select group's ``k`` / ``passes`` / ``kept`` (select counts every
    rollout of the task), so ``k`` .. ``zero_variance`` and ``kept`` describe the unhelped rollouts
    only (what the policy does with the ordinary prompt: the RL-relevant numbers) and the
    ``*_helped`` columns the helped ones. ``verdicts`` and ``exported`` must then be the unhelped
    ones. Without helped rollouts the row is what it always was (``hint_mode`` ``none``).

    Raises:
        ValueError: ``helped`` counts more rollouts, passes or kept trajectories than the group.
    """
    import statistics

    h = helped or {}
    hk, hp, hkept = int(h.get("k") or 0), int(h.get("passes") or 0), int(h.get("kept") or 0)
    n, c = int(g.get("k") or 0) - hk, int(g.get("passes") or 0) - hp
    kept = g.get("kept") if not hkept else int(g.get("kept") or 0) - hkept
    if n < 0 or c < 0 or c > n or (kept is not None and kept < 0):
        raise ValueError(f"group {g.get('task_id')}: {hk} helped rollouts ({hp} passes, {hkept} kept) do not fit "
                         f"the group's k={g.get('k')}, passes={g.get('passes')}, kept={g.get('kept')}")
    rewards = [float(v.reward) for v in verdicts or []]
    comps = None
    if verdicts and any(v.reward_components for v in verdicts):
        comps = {}
        for name in REWARD_COMPONENT_NAMES:
            vals = [float(v.reward_components[name]) for v in verdicts if v.reward_components.get(name) is not None]
            comps[name] = sum(vals) / len(vals) if vals else None
    return {
        "task_id": g["task_id"],
        "blueprint_id": g.get("blueprint_id"),
        "split": split,
        "k": g.get("k") if not hk else n,
        "passes": g.get("passes") if not hk else c,
        "pass_rate": g.get("pass_rate") if not hk else (c / n if n else None),
        "kept": kept,
        "exported": exported,
        "pass_at_1": pass_at_k(n, c, 1) if n else None,
        "pass_at_k": pass_at_k(n, c, n) if n else None,
        "reward_mean": statistics.fmean(rewards) if rewards else None,
        "reward_std": statistics.pstdev(rewards) if rewards else None,
        "zero_variance": (c == 0 or c == n) if n else None,
        "reward_components_mean": comps,
        "skills": list(skills or []),
        "hint_mode": (h.get("mode") or "none") if hk else "none",
        "k_helped": hk,
        "passes_helped": hp,
        "pass_rate_helped": hp / hk if hk else None,
        "kept_helped": hkept,
        "exported_helped": int(h.get("exported") or 0),
    }
