"""Column types and row helpers the datasets share (messages, tool calls, reward components).

Each dataset module (:mod:`~pipeline.export.sft`, :mod:`~pipeline.export.rl`, ...) keeps its
schema beside its row function and builds on these. Schemas are fixed up front (never inferred
from rows) so an empty input still writes a valid file with the right columns and types, and so
every run writes the same types.

Nested types are real Arrow types (``list<struct<...>>``), which DuckDB, pyarrow and Hugging
Face ``datasets`` read natively. Free-form JSON objects whose shape differs row to row (tool
schemas, hidden task parts, verifier specs, sandbox state) are stored as JSON strings; tool-call
``arguments`` inside messages use the JSON type (:data:`ARGUMENTS_TYPE`), so ``datasets`` and chat
templates get objects.
"""
from __future__ import annotations

import json
from typing import Any

import pyarrow as pa

from ..records import Trajectory, canonical_json

#: The type of a tool call's ``arguments``: Arrow's canonical JSON extension type
#: (``arrow.json``, pyarrow >= 19), stored in Parquet as a string column with the JSON logical
#: type (Parquet format spec, LogicalTypes.md "JSON"). Every tool's arguments fit one column (a
#: struct of all argument names would fill absent names with null, a map would lose value types),
#: and readers differ only in how they hand it out: Hugging Face ``datasets`` (its ``Json``
#: feature, huggingface/datasets#8027) and DuckDB give the object, which is what model chat
#: templates expect (TRL's Qwen2.5 template applies ``| tojson``, Qwen3.5's iterates ``| items``);
#: pyarrow ``to_pylist`` and pandas give the same JSON text as before (the OpenAI wire form).
#: With an older pyarrow the column is a plain string.
ARGUMENTS_TYPE = pa.json_() if hasattr(pa, "json_") else pa.string()

#: ``{"id", "type", "function": {"name", "arguments"}}``; ``arguments`` holds a JSON object
#: (:data:`ARGUMENTS_TYPE`).
TOOL_CALL = pa.struct(
    [
        pa.field("id", pa.string()),
        pa.field("type", pa.string()),
        pa.field(
            "function",
            pa.struct([pa.field("name", pa.string()), pa.field("arguments", ARGUMENTS_TYPE)]),
        ),
    ]
)


def storage_type(typ: pa.DataType) -> pa.DataType:
    """``typ`` with every extension type (the JSON ``arguments``) replaced by its storage type,
    recursively through lists and structs: the type ``pa.Table.from_pylist`` can build from
    Python values (it cannot build extension arrays; cast the result back to ``typ``)."""
    if isinstance(typ, pa.BaseExtensionType):
        return storage_type(typ.storage_type)
    if pa.types.is_list(typ) or pa.types.is_large_list(typ):
        f = typ.value_field
        inner = pa.field(f.name, storage_type(f.type), f.nullable)
        return pa.large_list(inner) if pa.types.is_large_list(typ) else pa.list_(inner)
    if pa.types.is_struct(typ):
        return pa.struct([pa.field(f.name, storage_type(f.type), f.nullable, f.metadata) for f in typ])
    return typ


def storage_schema(schema: pa.Schema) -> pa.Schema:
    """``schema`` with :func:`storage_type` applied to every field (metadata kept)."""
    return pa.schema([pa.field(f.name, storage_type(f.type), f.nullable, f.metadata) for f in schema],
                     metadata=schema.metadata)


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

#: The verifier's raw reward components (``Verdict.reward_components``, see docs/rewards.md); a
#: component the verifier did not report is null (``answer``: only answer tasks, routed to the
#: answer matcher, report it).
REWARD_COMPONENT_NAMES = ("outcome", "format_valid", "violations", "tool_calls", "length", "answer")
REWARD_COMPONENTS = pa.struct([pa.field(n, pa.float64()) for n in REWARD_COMPONENT_NAMES])


def req(name: str, typ: pa.DataType) -> pa.Field:
    """A non-nullable field (a null in it fails the write)."""
    return pa.field(name, typ, nullable=False)


# ---- row helpers -------------------------------------------------------------------------------


def json_text(obj: Any) -> str:
    """A JSON column's text: sorted keys, non-ASCII kept, unknown types as ``str``."""
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, default=str)


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return canonical_json(value)


def tool_call_row(call: dict[str, Any]) -> dict[str, Any]:
    """One OpenAI tool call as a ``TOOL_CALL`` struct.

    ``arguments`` is stored as JSON text in a JSON-typed column (:data:`ARGUMENTS_TYPE`):
    dict arguments are serialized, a string is kept when it is valid JSON (the OpenAI form the
    harness records), and a string that is not JSON is stored as a JSON string literal of the same
    text (so the column always holds valid JSON and ``datasets`` can decode every row; such a call
    decodes to the raw text, not an object).
    """
    fn = call.get("function") or {}
    args = fn.get("arguments")
    if args is not None and not isinstance(args, str):
        args = json.dumps(args, ensure_ascii=False)
    elif isinstance(args, str):
        try:
            json.loads(args)
        except ValueError:
            args = json.dumps(args, ensure_ascii=False)
    return {
        "id": call.get("id"),
        "type": call.get("type") or "function",
        "function": {"name": fn.get("name"), "arguments": args},
    }


def message_row(message: dict[str, Any]) -> dict[str, Any]:
    """One OpenAI chat message as a ``MESSAGE`` struct.

    Keys other than role, content, reasoning_content, tool_calls, tool_call_id and name are
    dropped (the full message survives in ``rejects.parquet`` only for rejected trajectories);
    non-string content (e.g. a list of parts) is stored as canonical JSON.
    """
    calls = message.get("tool_calls")
    return {
        "role": message.get("role"),
        "content": _text(message.get("content")),
        "reasoning_content": _text(message.get("reasoning_content")),
        "tool_calls": [tool_call_row(c) for c in calls] if calls else None,
        "tool_call_id": message.get("tool_call_id"),
        "name": message.get("name"),
    }


def reward_components_row(components: dict[str, float] | None) -> dict[str, float | None] | None:
    """``Verdict.reward_components`` as a ``REWARD_COMPONENTS`` struct (unknown keys dropped,
    missing ones null); None when no components were given."""
    if not components:
        return None
    return {n: (float(components[n]) if components.get(n) is not None else None) for n in REWARD_COMPONENT_NAMES}


def trajectory_columns(t: Trajectory, split: str) -> dict[str, Any]:
    """The columns sft and trajectories_failed rows share: ids, split, ``messages`` (nested
    OpenAI format) and ``tools`` (JSON)."""
    return {
        "trajectory_id": t.trajectory_id,
        "task_id": t.task_id,
        "blueprint_id": t.blueprint_id,
        "split": split,
        "messages": [message_row(m) for m in t.messages],
        "tools": json_text(t.tools),
    }
