"""Explicit pyarrow schemas of every exported Parquet file.

Schemas are fixed up front (never inferred from rows) so an empty input still writes a valid
file with the right columns and types, and so every run writes the same types.

Nested types are real Arrow types (``list<struct<...>>``), which DuckDB, pyarrow and Hugging
Face ``datasets`` read natively. Free-form JSON objects whose shape differs row to row (tool
schemas, hidden task parts, verifier specs, sandbox state) are stored as JSON strings.
"""
from __future__ import annotations

import pyarrow as pa

#: ``{"id", "type", "function": {"name", "arguments"}}``, ``arguments`` a JSON *string* (OpenAI).
TOOL_CALL = pa.struct(
    [
        pa.field("id", pa.string()),
        pa.field("type", pa.string()),
        pa.field(
            "function",
            pa.struct([pa.field("name", pa.string()), pa.field("arguments", pa.string())]),
        ),
    ]
)

#: One OpenAI chat message. Absent keys are null (``tool_calls`` is null, not ``[]``, when a
#: message has none).
MESSAGE = pa.struct(
    [
        pa.field("role", pa.string()),
        pa.field("content", pa.string()),
        pa.field("reasoning_content", pa.string()),
        pa.field("tool_calls", pa.list_(TOOL_CALL)),
        pa.field("tool_call_id", pa.string()),
        pa.field("name", pa.string()),
    ]
)

#: A prompt message (system or user): only role and content.
PROMPT_MESSAGE = pa.struct([pa.field("role", pa.string()), pa.field("content", pa.string())])

POLICY_RULE = pa.struct([pa.field("rule_id", pa.string()), pa.field("text", pa.string())])


def _req(name: str, typ: pa.DataType) -> pa.Field:
    return pa.field(name, typ, nullable=False)


SFT = pa.schema(
    [
        _req("trajectory_id", pa.string()),
        _req("task_id", pa.string()),
        _req("blueprint_id", pa.string()),
        _req("split", pa.string()),
        pa.field("messages", pa.list_(MESSAGE)),
        pa.field("tools", pa.string()),  # JSON list of OpenAI function-tool schemas
        pa.field("loss_mask", pa.list_(pa.bool_())),  # aligned with messages: assistant -> True
        pa.field("model", pa.string()),
        pa.field("backend", pa.string()),
        pa.field("sample_index", pa.int64()),
        pa.field("finish_reason", pa.string()),
        pa.field("n_turns", pa.int64()),
        pa.field("reward", pa.float64()),
    ]
)

RL = pa.schema(
    [
        _req("task_id", pa.string()),
        _req("blueprint_id", pa.string()),
        _req("data_source", pa.string()),  # "trajpipe/<domain>"
        _req("split", pa.string()),
        pa.field("prompt", pa.list_(PROMPT_MESSAGE)),  # system + first customer message
        pa.field("tools", pa.string()),  # JSON
        pa.field("user_messages", pa.list_(pa.string())),  # scripted later customer turns
        pa.field("ground_truth", pa.string()),  # JSON, reward-only: expected hash + verifier
        pa.field("env_state", pa.string()),  # JSON, hidden initial sandbox state
    ]
)

REJECTS = pa.schema(
    [
        _req("kind", pa.string()),  # "trajectory" | "task"
        _req("id", pa.string()),
        pa.field("task_id", pa.string()),
        pa.field("blueprint_id", pa.string()),
        _req("stage", pa.string()),
        _req("reason_code", pa.string()),
        pa.field("detail", pa.string()),
        pa.field("messages", pa.string()),  # JSON of the trajectory's messages; null for tasks
    ]
)

TASKS = pa.schema(
    [
        _req("task_id", pa.string()),
        _req("blueprint_id", pa.string()),
        pa.field("domain", pa.string()),
        pa.field("seed", pa.int64()),
        pa.field("instruction", pa.string()),
        pa.field("policy", pa.string()),
        pa.field("user_messages", pa.list_(pa.string())),
        pa.field("tools", pa.string()),  # JSON
        pa.field("hidden", pa.string()),  # JSON of the whole hidden part
        pa.field("task_verified", pa.bool_()),  # null: no task verdict given
        pa.field("task_reason_codes", pa.list_(pa.string())),
    ]
)

BLUEPRINTS = pa.schema(
    [
        _req("blueprint_id", pa.string()),
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
    ]
)

GROUPS = pa.schema(
    [
        _req("task_id", pa.string()),
        pa.field("blueprint_id", pa.string()),
        pa.field("split", pa.string()),
        pa.field("k", pa.int64()),  # rollouts
        pa.field("passes", pa.int64()),
        pa.field("pass_rate", pa.float64()),
        pa.field("kept", pa.int64()),  # selected by rejection sampling (<= cap)
        pa.field("exported", pa.int64()),  # rows of this task in sft.parquet (after dedupe)
    ]
)

QUARANTINE = pa.schema(
    [
        _req("stage", pa.string()),
        pa.field("source", pa.string()),
        pa.field("position", pa.int64()),
        pa.field("record_id", pa.string()),
        _req("reason_code", pa.string()),
        pa.field("error", pa.string()),
        pa.field("raw", pa.string()),  # pseudonymized input text (nothing real reaches outputs)
        pa.field("raw_sha256", pa.string()),  # sha256 of the original raw text, to find it in the source
    ]
)

#: File stem -> schema, in the order files are written.
SCHEMAS: dict[str, pa.Schema] = {
    "sft": SFT,
    "rl": RL,
    "rejects": REJECTS,
    "tasks": TASKS,
    "blueprints": BLUEPRINTS,
    "groups": GROUPS,
    "quarantine": QUARANTINE,
}
