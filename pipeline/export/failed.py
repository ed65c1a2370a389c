"""``trajectories_failed.parquet``: every rolled-out trajectory whose verdict failed (for
analysis; never in sft)."""
from __future__ import annotations

from typing import Any

import pyarrow as pa

from ..records import Trajectory, Verdict
from .columns import MESSAGE, REWARD_COMPONENTS, json_text, req, reward_components_row, trajectory_columns

SCHEMA = pa.schema(
    [
        req("trajectory_id", pa.string()),
        req("task_id", pa.string()),
        req("blueprint_id", pa.string()),
        req("split", pa.string()),
        pa.field("messages", pa.list_(MESSAGE)),
        pa.field("tools", pa.string()),
        pa.field("reason_codes", pa.list_(pa.string())),
        pa.field("violations", pa.string()),  # JSON list of Verdict.violations
        pa.field("reward", pa.float64()),
        pa.field("reward_components", REWARD_COMPONENTS),
        pa.field("finish_reason", pa.string()),
        pa.field("recovery", pa.bool_()),
        pa.field("faults", pa.string()),  # JSON list of injected faults
        pa.field("model", pa.string()),
        pa.field("sample_index", pa.int64()),
        pa.field("hint_mode", pa.string()),  # help the teacher had during generation only
    ]
)
#: Columns a model sees (the hidden-information audit scans them: :mod:`pipeline.export.audit`).
MODEL_VISIBLE = ("messages", "tools")


def failed_row(t: Trajectory, v: Verdict | None, split: str) -> dict[str, Any]:
    """A ``trajectories_failed.parquet`` row: a trajectory whose verdict failed (kept for
    analysis; never in sft)."""
    return {
        **trajectory_columns(t, split),
        "reason_codes": list(v.reason_codes) if v else [],
        "violations": json_text(v.violations if v else []),
        "reward": v.reward if v else None,
        "reward_components": reward_components_row(v.reward_components if v else None),
        "finish_reason": t.finish_reason,
        "recovery": t.recovery,
        "faults": json_text(t.faults),
        "model": t.model,
        "sample_index": t.sample_index,
        "hint_mode": t.hint_mode,
    }
