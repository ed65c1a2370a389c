"""Preference pairs (DPO) from the rollouts of one task: chosen = verified, rejected = failed.

Rows follow TRL's conversational preference format (``prompt`` / ``chosen`` / ``rejected``, each
a list of chat messages; https://huggingface.co/docs/trl/dataset_formats#preference): the prompt
is the shared prefix (system prompt + the customer's first message), chosen and rejected are the
two continuations.
"""
from __future__ import annotations

from typing import Any

import pyarrow as pa

from ..records import Trajectory, Verdict
from .columns import MESSAGE, json_text, message_row, req

#: ``dpo.parquet``: one row per preference pair.
SCHEMA = pa.schema(
    [
        req("pair_id", pa.string()),
        req("task_id", pa.string()),
        req("blueprint_id", pa.string()),
        req("split", pa.string()),
        pa.field("prompt", pa.list_(MESSAGE)),  # shared prefix: system + first customer message
        pa.field("chosen", pa.list_(MESSAGE)),  # the verified trajectory's continuation
        pa.field("rejected", pa.list_(MESSAGE)),  # the failed trajectory's continuation
        pa.field("tools", pa.string()),  # JSON
        pa.field("chosen_trajectory_id", pa.string()),
        pa.field("rejected_trajectory_id", pa.string()),
        pa.field("rejected_reason_code", pa.string()),  # first reason code of the failed verdict
        pa.field("chosen_reward", pa.float64()),
        pa.field("rejected_reward", pa.float64()),
        pa.field("chosen_hint_mode", pa.string()),  # help each rollout's teacher had (generation only)
        pa.field("rejected_hint_mode", pa.string()),
    ]
)
#: Columns a model sees (the hidden-information audit scans them: :mod:`pipeline.export.audit`).
MODEL_VISIBLE = ("prompt", "chosen", "rejected", "tools")


def prompt_prefix_len(messages: list[dict[str, Any]]) -> int:
    """Number of leading messages before the first assistant message (the shared prompt)."""
    for i, m in enumerate(messages):
        if m.get("role") == "assistant":
            return i
    return len(messages)


def dpo_rows(chosen: list[Trajectory], failed: list[tuple[Trajectory, Verdict | None]], split_of,
             reward_of: dict[str, float], max_pairs_per_task: int = 4) -> tuple[list[dict[str, Any]], int]:
    """Pair each task's verified trajectories with its failed ones.

    Per task, pairs go round-robin over the chosen list against the failed list (each failed
    trajectory used once) up to ``max_pairs_per_task``. A pair is skipped when the two prompts
    (leading non-assistant messages) differ, when either continuation is empty, or when the two
    continuations are identical. ``split_of(blueprint_id)`` gives the split.

    Helped and unhelped rollouts pair freely (the help was never in the messages, so the prompts
    are the same); ``chosen_hint_mode`` / ``rejected_hint_mode`` say which help each side's
    teacher had, so a trainer can keep, say, only pairs whose chosen side was unhelped.

    Returns ``(rows, n_skipped)``.
    """
    by_task: dict[str, list[Trajectory]] = {}
    for t in chosen:
        by_task.setdefault(t.task_id, []).append(t)
    fails: dict[str, list[tuple[Trajectory, Verdict | None]]] = {}
    for t, v in failed:
        fails.setdefault(t.task_id, []).append((t, v))
    rows, skipped = [], 0
    for task_id in sorted(by_task):
        cs, fs = by_task[task_id], fails.get(task_id, [])
        n = 0
        for i, (f, fv) in enumerate(fs):
            if n >= max_pairs_per_task:
                break
            c = cs[i % len(cs)]
            pc, pf = prompt_prefix_len(c.messages), prompt_prefix_len(f.messages)
            prompt_c = [message_row(m) for m in c.messages[:pc]]
            cont_c = [message_row(m) for m in c.messages[pc:]]
            cont_f = [message_row(m) for m in f.messages[pf:]]
            if prompt_c != [message_row(m) for m in f.messages[:pf]] or not cont_c or not cont_f or cont_c == cont_f:
                skipped += 1
                continue
            rows.append({
                "pair_id": f"{c.trajectory_id}>{f.trajectory_id}",
                "task_id": task_id,
                "blueprint_id": c.blueprint_id,
                "split": split_of(c.blueprint_id),
                "prompt": prompt_c,
                "chosen": cont_c,
                "rejected": cont_f,
                "tools": json_text(c.tools),
                "chosen_trajectory_id": c.trajectory_id,
                "rejected_trajectory_id": f.trajectory_id,
                "rejected_reason_code": (fv.reason_codes[0] if fv and fv.reason_codes else "VERIFY_FAILED_UNSPECIFIED"),
                "chosen_reward": reward_of.get(c.trajectory_id),
                "rejected_reward": fv.reward if fv else None,
                "chosen_hint_mode": c.hint_mode,
                "rejected_hint_mode": f.hint_mode,
            })
            n += 1
    return rows, skipped
