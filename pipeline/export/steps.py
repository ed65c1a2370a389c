"""Step-level rows: one per agent (assistant) turn, keyed by a canonical anchor state.

GiGPO (Feng et al. 2025, "Group-in-Group Policy Optimization for LLM Agent Training",
arXiv:2505.10978) groups the steps of different rollouts of the same task that start from the
same environment state (an *anchor state*) and compares their returns. Here the anchor state of a
step is the canonical text of what the agent observed since its previous turn (the customer's
message or the tool results), prefixed with the task instance id, with volatile values (ISO
timestamps, UUIDs, tool-call ids) replaced by placeholders so that equal states hash equal.
"""
from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import pyarrow as pa

from ..records import Trajectory, Verdict
from ..rollout.prompting import render_for_model
from .columns import REWARD_COMPONENTS, req, reward_components_row

#: ``steps.parquet``: one row per agent turn of every rollout (kept and rejected).
SCHEMA = pa.schema(
    [
        req("trajectory_id", pa.string()),
        req("task_id", pa.string()),
        req("blueprint_id", pa.string()),
        req("split", pa.string()),
        req("step_index", pa.int64()),  # 0-based index of the agent (assistant) turn
        pa.field("observation", pa.string()),  # canonical text: task id + what the agent saw since its last turn
        pa.field("anchor_state", pa.string()),  # sha256 prefix of observation: GiGPO anchor-state key
        pa.field("action", pa.string()),  # the assistant turn in Hermes text form (<tool_call> blocks)
        pa.field("tool_name", pa.string()),  # first tool called in this step; null for a text answer
        pa.field("step_reward", pa.float64()),
        pa.field("discounted_return", pa.float64()),  # sum_j>=t gamma^(j-t) r_j
        pa.field("gamma", pa.float64()),
        pa.field("is_last", pa.bool_()),
        pa.field("passed", pa.bool_()),  # the trajectory's verdict
        pa.field("reward_components", REWARD_COMPONENTS),  # the trajectory's, on its last step only
        pa.field("hint_mode", pa.string()),  # the trajectory's (help during generation only)
    ]
)
#: Columns a model sees (the hidden-information audit scans them: :mod:`pipeline.export.audit`).
MODEL_VISIBLE = ("observation", "action")

#: Volatile values removed from observations, in order: (regex, placeholder).
VOLATILE_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    # ISO 8601 date-times (2024-05-01T10:00:00, with optional fraction and zone)
    (re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?\b"), "<TIMESTAMP>"),
    # RFC 4122 UUIDs
    (re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"), "<UUID>"),
    # tool-call / session ids generated per episode (call_..., session_..., sess-...)
    (re.compile(r"\b(?:call|session|sess|req|request)[_-][0-9A-Za-z_-]{4,}\b"), "<ID>"),
]


def canonical_observation(task_id: str, messages: list[dict[str, Any]]) -> str:
    """Canonical text of the non-assistant ``messages`` an agent saw before a step.

    Format: ``"task:<task_id>\\n<role>: <content>\\n..."``; tool messages carry the tool name;
    :data:`VOLATILE_PATTERNS` are replaced. Equal states of the same task instance give equal
    text across rollouts.
    """
    lines = [f"task:{task_id}"]
    for m in messages:
        role = m.get("role")
        content = m.get("content")
        if not isinstance(content, str):
            content = json.dumps(content, sort_keys=True, ensure_ascii=False) if content is not None else ""
        label = f"tool[{m.get('name')}]" if role == "tool" and m.get("name") else role
        lines.append(f"{label}: {content.strip()}")
    text = "\n".join(lines)
    for pat, repl in VOLATILE_PATTERNS:
        text = pat.sub(repl, text)
    return text


def anchor_key(observation: str) -> str:
    """First 16 hex digits of the SHA-256 of ``observation`` (the anchor-state key)."""
    return hashlib.sha256(observation.encode("utf-8")).hexdigest()[:16]


def step_rewards(n_steps: int, final_reward: float) -> list[float]:
    """Sparse step rewards: 0 for every step but the last, which gets the trajectory's reward
    (the verifier scores the final state, not intermediate steps)."""
    return [0.0] * (n_steps - 1) + [float(final_reward)] if n_steps else []


def discounted_returns(rewards: list[float], gamma: float = 1.0) -> list[float]:
    """``G_t = sum_{j >= t} gamma^(j - t) r_j`` for every step ``t``.

    Raises:
        ValueError: ``gamma`` outside ``[0, 1]``.
    """
    if not 0.0 <= gamma <= 1.0:
        raise ValueError(f"gamma must be in [0, 1], got {gamma}")
    out = [0.0] * len(rewards)
    g = 0.0
    for i in range(len(rewards) - 1, -1, -1):
        g = rewards[i] + gamma * g
        out[i] = g
    return out


def step_rows(t: Trajectory, v: Verdict | None, split: str, gamma: float = 1.0) -> list[dict[str, Any]]:
    """``steps.parquet`` rows of one trajectory, one per assistant message, in order.

    ``observation`` = :func:`canonical_observation` of the non-assistant messages since the
    previous assistant message (the first step sees the system prompt and the customer's first
    message); ``action`` = the assistant message in Hermes text form
    (:func:`pipeline.rollout.prompting.render_for_model`); rewards by :func:`step_rewards` from
    the verdict's reward (0 when no verdict), returns by :func:`discounted_returns`;
    ``hint_mode``: the trajectory's (help the teacher had during generation only).
    """
    steps: list[tuple[list[dict[str, Any]], dict[str, Any]]] = []
    pending: list[dict[str, Any]] = []
    for m in t.messages:
        if m.get("role") == "assistant":
            steps.append((pending, m))
            pending = []
        else:
            pending.append(m)
    rewards = step_rewards(len(steps), v.reward if v else 0.0)
    returns = discounted_returns(rewards, gamma)
    rows = []
    for i, (obs_msgs, act) in enumerate(steps):
        obs = canonical_observation(t.task_id, obs_msgs)
        calls = act.get("tool_calls") or []
        last = i == len(steps) - 1
        rows.append({
            "trajectory_id": t.trajectory_id,
            "task_id": t.task_id,
            "blueprint_id": t.blueprint_id,
            "split": split,
            "step_index": i,
            "observation": obs,
            "anchor_state": anchor_key(obs),
            "action": render_for_model([act])[0]["content"],
            "tool_name": (calls[0].get("function") or {}).get("name") if calls else None,
            "step_reward": rewards[i],
            "discounted_return": returns[i],
            "gamma": gamma,
            "is_last": last,
            "passed": v.passed if v else None,
            "reward_components": reward_components_row(v.reward_components) if (v and last) else None,
            "hint_mode": t.hint_mode,
        })
    return rows
