"""``sft.parquet``: one row per kept trajectory (what a model is fine-tuned on)."""
from __future__ import annotations

from typing import Any

import pyarrow as pa

from ..records import TaskPackage, Trajectory, Verdict
from .columns import MESSAGE, REWARD_COMPONENTS, req, reward_components_row, trajectory_columns

SCHEMA = pa.schema(
    [
        req("trajectory_id", pa.string()),
        req("task_id", pa.string()),
        req("blueprint_id", pa.string()),
        req("split", pa.string()),
        pa.field("messages", pa.list_(MESSAGE)),
        pa.field("tools", pa.string()),  # JSON list of OpenAI function-tool schemas
        pa.field("loss_mask", pa.list_(pa.bool_())),  # aligned with messages: assistant -> True
        pa.field("model", pa.string()),
        pa.field("backend", pa.string()),
        pa.field("sample_index", pa.int64()),
        pa.field("finish_reason", pa.string()),
        pa.field("n_turns", pa.int64()),
        pa.field("reward", pa.float64()),
        pa.field("reward_components", REWARD_COMPONENTS),
        pa.field("recovery", pa.bool_()),  # met an injected fault, recovered and passed
        pa.field("skills", pa.list_(pa.string())),  # the task's skill ids (pipeline.skills)
        pa.field("task_kind", pa.string()),
        pa.field("variant", pa.string()),
        # help the teacher had during generation only (pipeline.rollout.hints): none | plan | example | guided
        pa.field("hint_mode", pa.string()),
    ]
)
#: Columns a model sees (the hidden-information audit scans them: :mod:`pipeline.export.audit`).
MODEL_VISIBLE = ("messages", "tools")


def loss_mask(messages: list[dict[str, Any]]) -> list[bool]:
    """``True`` for assistant messages (what the model is trained to produce), else ``False``."""
    return [m.get("role") == "assistant" for m in messages]


def sft_row(t: Trajectory, split: str, reward: float | None, verdict: Verdict | None = None,
            task: TaskPackage | None = None) -> dict[str, Any]:
    """A ``sft.parquet`` row for a kept trajectory; ``verdict`` / ``task`` add reward components,
    skills, task kind and variant (null when not given)."""
    return {
        **trajectory_columns(t, split),
        "loss_mask": loss_mask(t.messages),
        "model": t.model,
        "backend": t.backend,
        "sample_index": t.sample_index,
        "finish_reason": t.finish_reason,
        "n_turns": t.n_turns,
        "reward": reward,
        "reward_components": reward_components_row(verdict.reward_components if verdict else None),
        "recovery": t.recovery,
        "skills": list(task.skills) if task else [],
        "task_kind": task.task_kind if task else None,
        "variant": task.variant if task else None,
        "hint_mode": t.hint_mode,
    }
