"""``blueprints.parquet``: every task blueprint mined from the logs."""
from __future__ import annotations

from typing import Any

import pyarrow as pa

from ..records import Blueprint
from .columns import POLICY_RULE, json_text, req

SCHEMA = pa.schema(
    [
        req("blueprint_id", pa.string()),
        pa.field("domain", pa.string()),
        pa.field("intent", pa.string()),
        pa.field("action_signature", pa.list_(pa.string())),
        pa.field("required_tools", pa.list_(pa.string())),
        pa.field("read_tools", pa.list_(pa.string())),
        pa.field("initial_state_requirements", pa.string()),  # JSON
        pa.field("business_constraints", pa.list_(POLICY_RULE)),
        pa.field("success_condition", pa.string()),
        pa.field("failure_modes", pa.string()),  # JSON
        pa.field("source_log_ids", pa.list_(pa.string())),
        pa.field("n_logs", pa.int64()),
        pa.field("n_success", pa.int64()),
        pa.field("example_intents", pa.list_(pa.string())),
        pa.field("task_kind", pa.string()),  # the domain generator it maps to; null: none
        pa.field("skills", pa.list_(pa.string())),
        pa.field("rule_variants", pa.list_(pa.string())),  # rule ids agents broke -> synthesized variants
        pa.field("cluster", pa.string()),  # JSON: merged intents / action signatures and their sizes
        pa.field("split", pa.string()),
    ]
)


def blueprint_row(bp: Blueprint, split: str | None = None) -> dict[str, Any]:
    """A ``blueprints.parquet`` row."""
    return {
        "blueprint_id": bp.blueprint_id,
        "domain": bp.domain,
        "intent": bp.intent,
        "action_signature": list(bp.action_signature),
        "required_tools": list(bp.required_tools),
        "read_tools": list(bp.read_tools),
        "initial_state_requirements": json_text(bp.initial_state_requirements),
        "business_constraints": [r.model_dump() for r in bp.business_constraints],
        "success_condition": bp.success_condition,
        "failure_modes": json_text(bp.failure_modes),
        "source_log_ids": list(bp.source_log_ids),
        "n_logs": bp.n_logs,
        "n_success": bp.n_success,
        "example_intents": list(bp.example_intents),
        "task_kind": bp.task_kind,
        "skills": list(bp.skills),
        "rule_variants": list(bp.rule_variants),
        "cluster": json_text(bp.cluster),
        "split": split,
    }
