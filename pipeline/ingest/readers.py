"""Trace and dataset readers beside the canonical / tau-bench / transcript ones, and their detection.

Each reader turns one log file into rows ``(position, raw, candidate, error_code, error)``, the
row shape of :func:`pipeline.ingest.transcripts.iter_transcripts`: ``candidate`` is a canonical
conversation dict (``schemas/conversation.schema.json``, validated later by
:func:`pipeline.ingest.ingest`) or None, and then ``error_code`` is a reason code of
:mod:`pipeline.verify.reasons` and ``raw`` keeps the input, so nothing is lost.

Formats (each with the JSON Schema of its raw unit in ``schemas/``):

* ``otel_genai`` (:mod:`pipeline.ingest.otel`): OpenTelemetry OTLP JSON exports of spans that
  follow the GenAI semantic conventions, stitched per ``gen_ai.conversation.id`` or trace id;
* ``openai_chat`` (:mod:`pipeline.ingest.openai_log`): one OpenAI Chat Completions call a line
  (``request.messages``, ``request.tools``, ``response.choices``), stitched per conversation;
* ``sharegpt`` (:mod:`pipeline.ingest.sharegpt`): LLaMA-Factory's ShareGPT form
  (``conversations`` of ``{"from", "value"}`` with ``function_call`` / ``observation`` turns).

A conversation whose tool calls and results do not pair up is quarantined, never repaired:
:data:`INGEST_TOOL_RESULT_MISSING` (a call without its result), :data:`INGEST_TOOL_CALL_MISSING`
(a result without its call); the OTel reader adds :data:`INGEST_ORPHAN_SPAN` and the stitching
readers :data:`INGEST_STITCH_CONFLICT`.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterator

import jsonschema

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schemas"

# Reason codes (documented in pipeline/verify/reasons.py and docs/reason-codes.md)
INGEST_TOOL_RESULT_MISSING = "INGEST_TOOL_RESULT_MISSING"  # a tool call with no result after it
INGEST_TOOL_CALL_MISSING = "INGEST_TOOL_CALL_MISSING"      # a tool result with no call before it
INGEST_ORPHAN_SPAN = "INGEST_ORPHAN_SPAN"                  # a span whose parent span is not in the export
INGEST_STITCH_CONFLICT = "INGEST_STITCH_CONFLICT"          # calls of one conversation disagree on its history

#: One reader output row: (position, raw, candidate or None, reason code or None, error or None).
Row = tuple[int, Any, "dict[str, Any] | None", "str | None", "str | None"]


@lru_cache(maxsize=None)
def schema_validator(name: str) -> jsonschema.protocols.Validator:
    """The jsonschema validator of ``schemas/<name>`` (checked against its own draft)."""
    schema = json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def schema_error(name: str, obj: Any) -> str | None:
    """None when ``obj`` is valid against ``schemas/<name>``, else ``"<path>: <message>
    (schemas/<name>)"`` for the first error (errors sorted by path)."""
    errors = sorted(schema_validator(name).iter_errors(obj), key=lambda e: [str(x) for x in e.absolute_path])
    if not errors:
        return None
    e = errors[0]
    where = "/".join(str(x) for x in e.absolute_path) or "(root)"
    return f"{where}: {e.message} (schemas/{name})"


def json_text(value: Any) -> str:
    """A tool result or argument value as text: strings unchanged, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def check_tool_pairs(messages: list[dict[str, Any]]) -> tuple[str, str] | None:
    """Check that every tool call of an OpenAI message list has a result and every result a call.

    A call (``assistant.tool_calls[i].id``) is answered by a later ``tool`` message with that
    ``tool_call_id`` before the next assistant message (OpenAI's own rule for a request); a
    ``tool`` message must answer a call of the assistant message before it. Returns None when
    they pair up, else ``(reason code, detail)`` with :data:`INGEST_TOOL_RESULT_MISSING` or
    :data:`INGEST_TOOL_CALL_MISSING`.
    """
    open_calls: dict[str, str] = {}
    for i, m in enumerate(messages):
        role = m.get("role")
        if role == "assistant":
            if open_calls:
                cid, name = next(iter(open_calls.items()))
                return INGEST_TOOL_RESULT_MISSING, f"tool call {cid!r} ({name}) has no result before message {i}"
            for tc in m.get("tool_calls") or []:
                open_calls[tc.get("id") or ""] = (tc.get("function") or {}).get("name", "?")
        elif role == "tool":
            cid = m.get("tool_call_id")
            if cid not in open_calls:
                return INGEST_TOOL_CALL_MISSING, f"tool result {cid!r} at message {i} answers no open tool call"
            del open_calls[cid]
        elif open_calls:
            cid, name = next(iter(open_calls.items()))
            return INGEST_TOOL_RESULT_MISSING, f"tool call {cid!r} ({name}) has no result before message {i}"
    if open_calls:
        cid, name = next(iter(open_calls.items()))
        return INGEST_TOOL_RESULT_MISSING, f"tool call {cid!r} ({name}) has no result (the log ends)"
    return None


def name_tool_messages(messages: list[dict[str, Any]]) -> None:
    """Give each ``tool`` message without a ``name`` the name of the call it answers (in place)."""
    names: dict[str, str] = {}
    for m in messages:
        for tc in m.get("tool_calls") or []:
            names[tc.get("id") or ""] = (tc.get("function") or {}).get("name", "")
        if m.get("role") == "tool" and not m.get("name") and names.get(m.get("tool_call_id") or ""):
            m["name"] = names[m["tool_call_id"]]


def openai_tools(defs: Any) -> list[dict[str, Any]] | None:
    """Tool definitions (OpenAI ``{"type": "function", "function": {...}}`` or the flat
    ``{"name", "description", "parameters"}`` of LLaMA-Factory and the GenAI conventions; a JSON
    string of either list) as OpenAI function tools; None when there are none or they are not a
    list of objects with a string ``name``."""
    if isinstance(defs, str):
        try:
            defs = json.loads(defs)
        except (json.JSONDecodeError, RecursionError):
            return None
    if not isinstance(defs, list) or not defs:
        return None
    out = []
    for d in defs:
        fn = d.get("function", d) if isinstance(d, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            return None
        f = {"name": fn["name"]}
        if isinstance(fn.get("description"), str):
            f["description"] = fn["description"]
        if isinstance(fn.get("parameters"), dict):
            f["parameters"] = fn["parameters"]
        out.append({"type": "function", "function": f})
    return out


@dataclass(frozen=True)
class Reader:
    """One input format: ``name`` (the ``--format`` value), ``schema`` (file in ``schemas/`` of
    its raw unit), ``sniff(first)`` (True when the first JSON value of a file, already parsed, is
    this format; ``first`` is None for an unparseable head) and ``read(path)`` yielding
    :data:`Row` s."""

    name: str
    schema: str
    sniff: Callable[[Any], bool]
    read: Callable[[Path], Iterator[Row]]


def _readers() -> dict[str, Reader]:
    from . import openai_log, otel, sharegpt

    return {r.name: r for r in (otel.READER, openai_log.READER, sharegpt.READER)}


def readers() -> dict[str, Reader]:
    """``{format name: Reader}`` of the formats of this module (in detection order)."""
    return _readers()


def first_value(path: Path, max_bytes: int = 1 << 20) -> Any:
    """The first JSON value of a file for sniffing: the first element of a JSON list, else the
    first line of JSONL, else the whole head parsed as one document; None when nothing parses
    within ``max_bytes``."""
    with open(path, "rb") as fh:
        head = fh.read(max_bytes)
    text = head.decode("utf-8", errors="replace").lstrip()
    dec = json.JSONDecoder()
    try:
        if text.startswith("["):
            return dec.raw_decode(text[1:].lstrip())[0]
        line = text.split("\n", 1)[0]
        try:
            return json.loads(line)
        except json.JSONDecodeError:
            return dec.raw_decode(text)[0]
    except (json.JSONDecodeError, RecursionError, ValueError):
        return None


def sniff_format(path: str | Path) -> str | None:
    """The name of the reader of this module that recognises ``path`` (see :class:`Reader`), or
    None (the caller falls back to the older formats). Reads at most 1 MiB; a file whose first
    value is larger is recognised as an OTLP export by its first key alone."""
    first = first_value(Path(path))
    for r in readers().values():
        if r.sniff(first):
            return r.name
    if first is None:  # a head too large to parse (a pretty-printed OTLP export over 1 MiB)
        with open(path, "rb") as fh:
            head = fh.read(4096).lstrip()
        if head.startswith(b"{") and re.search(rb'^\{\s*"resource(Spans|Logs)"\s*:', head):
            return "otel_genai"
    return None
