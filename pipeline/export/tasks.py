"""``tasks.parquet``: every task package, the hidden part included as JSON (not a training file)."""
from __future__ import annotations

from typing import Any

import pyarrow as pa

from ..records import TaskPackage, TaskVerdict
from .columns import json_text, req

SCHEMA = pa.schema(
    [
        req("task_id", pa.string()),
        req("blueprint_id", pa.string()),
        pa.field("domain", pa.string()),
        pa.field("seed", pa.int64()),
        pa.field("instruction", pa.string()),
        pa.field("policy", pa.string()),
        pa.field("user_messages", pa.list_(pa.string())),
        pa.field("tools", pa.string()),  # JSON
        pa.field("hidden", pa.string()),  # JSON of the whole hidden part
        pa.field("task_verified", pa.bool_()),  # null: no task verdict given
        pa.field("task_reason_codes", pa.list_(pa.string())),
        pa.field("split", pa.string()),
        pa.field("task_kind", pa.string()),
        pa.field("variant", pa.string()),
        pa.field("expected_outcome", pa.string()),
        pa.field("skills", pa.list_(pa.string())),
    ]
)


def task_row(task: TaskPackage, verdict: TaskVerdict | None, split: str | None = None) -> dict[str, Any]:
    """A ``tasks.parquet`` row (includes the hidden part as JSON: not a training file)."""
    return {
        "task_id": task.task_id,
        "blueprint_id": task.blueprint_id,
        "domain": task.domain,
        "seed": task.seed,
        "instruction": task.visible.instruction,
        "policy": task.visible.policy,
        "user_messages": list(task.visible.user_messages),
        "tools": json_text(task.visible.tools),
        "hidden": json_text(task.hidden.model_dump(mode="json")),
        "task_verified": verdict.passed if verdict else None,
        "task_reason_codes": list(verdict.reason_codes) if verdict else [],
        "split": split,
        "task_kind": task.task_kind,
        "variant": task.variant,
        "expected_outcome": task.expected_outcome,
        "skills": list(task.skills),
    }
