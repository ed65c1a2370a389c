"""Reader for OpenTelemetry GenAI traces in the OTLP JSON export (format name ``"otel_genai"``).

Input: one OTLP JSON document (``{"resourceSpans": [...], "resourceLogs": [...]}``, an
``ExportTraceServiceRequest`` / ``ExportLogsServiceRequest`` as the OTLP/HTTP JSON encoding and
the collector's file exporter write it), or JSONL of such documents. Each document is checked
against ``schemas/otel_genai_export.schema.json``; attribute values are OTLP ``AnyValue`` s.

Spans follow the OpenTelemetry GenAI semantic conventions (v1.37+ / semantic-conventions-genai):

* ``gen_ai.operation.name`` = ``chat`` (also ``text_completion``, ``generate_content``) carries
  ``gen_ai.input.messages`` and ``gen_ai.output.messages`` (JSON: ``[{"role", "parts": [{"type":
  "text", "content"} | {"type": "tool_call", "id", "name", "arguments"} | {"type":
  "tool_call_response", "id", "response"}], "finish_reason"?}]``), ``gen_ai.system_instructions``
  (parts) and ``gen_ai.tool.definitions``; ``invoke_agent`` spans carry the same attributes and
  are used only when a conversation has no chat span;
* ``execute_tool`` carries ``gen_ai.tool.name``, ``gen_ai.tool.call.id``,
  ``gen_ai.tool.call.arguments`` and ``gen_ai.tool.call.result``; a result logged only here fills
  a call whose result no later chat input shows;
* the older **event form** (conventions up to v1.36): events ``gen_ai.system.message``,
  ``gen_ai.user.message``, ``gen_ai.assistant.message`` (``content``, ``tool_calls`` in the
  OpenAI shape), ``gen_ai.tool.message`` (``content``, ``id``) and ``gen_ai.choice``
  (``message``, ``finish_reason``), either as OTLP log records (``resourceLogs``, event name in
  ``eventName`` or the ``event.name`` attribute, fields in ``body``, tied to their span by
  ``traceId`` / ``spanId``) or as span events (fields in a ``body`` attribute or as the event's
  own attributes, ``tool_calls`` possibly JSON text).

Stitching: spans are grouped per ``gen_ai.conversation.id`` (a span without one takes its trace's
only conversation id), else per trace id; a group's message spans are taken in start-time order,
and each one's input either repeats the conversation so far (then it replaces it) or continues
it (then the new messages are appended); its output follows. Quarantined, never guessed: a span
whose ``parentSpanId`` is not in the export (:data:`~pipeline.ingest.readers.INGEST_ORPHAN_SPAN`:
part of the trace is missing), a call without its result or a result without its call, and an
event whose span is missing.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterator

from .readers import (INGEST_ORPHAN_SPAN, INGEST_STITCH_CONFLICT, Reader, Row, check_tool_pairs, json_text,
                      name_tool_messages, openai_tools, schema_error)

SCHEMA = "otel_genai_export.schema.json"
MESSAGE_OPS = ("chat", "text_completion", "generate_content")
_EVENT_ROLES = {"gen_ai.system.message": "system", "gen_ai.user.message": "user",
                "gen_ai.assistant.message": "assistant", "gen_ai.tool.message": "tool"}
_ZERO_ID = re.compile(r"^0*$")


def any_value(v: Any) -> Any:
    """An OTLP JSON ``AnyValue`` (``{"stringValue": ...}``, ``intValue`` (a decimal string in
    OTLP JSON), ``doubleValue``, ``boolValue``, ``arrayValue.values``, ``kvlistValue.values``,
    ``bytesValue``) as a Python value; None for an empty or unknown one."""
    if not isinstance(v, dict):
        return None
    if "stringValue" in v:
        return v["stringValue"]
    if "intValue" in v:
        try:
            return int(v["intValue"])
        except (TypeError, ValueError):
            return v["intValue"]  # not a number: kept as given, never raised on
    if "doubleValue" in v:
        try:
            return float(v["doubleValue"])
        except (TypeError, ValueError):
            return v["doubleValue"]
    if "boolValue" in v:
        return bool(v["boolValue"])
    if "arrayValue" in v:
        return [any_value(x) for x in (v["arrayValue"] or {}).get("values", [])]
    if "kvlistValue" in v:
        return attributes((v["kvlistValue"] or {}).get("values", []))
    if "bytesValue" in v:
        return v["bytesValue"]
    return None


def attributes(kvs: Any) -> dict[str, Any]:
    """OTLP ``[{"key", "value": AnyValue}]`` as a dict (later keys win)."""
    return {kv["key"]: any_value(kv.get("value")) for kv in kvs or [] if isinstance(kv, dict) and "key" in kv}


def _loads(value: Any) -> Any:
    """A JSON-text attribute parsed (the conventions record structured values as JSON strings)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (json.JSONDecodeError, RecursionError):
            return value
    return value


def parts_to_messages(msgs: Any) -> list[dict[str, Any]]:
    """GenAI-convention messages (``[{"role", "parts": [...]}]``) as OpenAI chat messages: text
    parts joined into ``content``, ``tool_call`` parts into ``tool_calls`` (arguments as JSON
    text), each ``tool_call_response`` part into its own ``tool`` message; other part types
    (reasoning, media) are dropped. ValueError for messages that are not a JSON array, a message
    that is not an object with a role, or a tool_call part without a name."""
    out: list[dict[str, Any]] = []
    msgs = _loads(msgs)
    if msgs is not None and not isinstance(msgs, list):
        raise ValueError(f"messages must be a JSON array of GenAI messages, got {str(msgs)[:120]!r}")
    for m in msgs or []:
        if not isinstance(m, dict) or not isinstance(m.get("role"), str):
            raise ValueError(f"not a GenAI message (object with role and parts): {str(m)[:200]}")
        texts, calls, results = [], [], []
        for p in m.get("parts") or []:
            t = p.get("type") if isinstance(p, dict) else None
            if t == "text":
                texts.append(str(p.get("content", "")))
            elif t == "tool_call":
                if not isinstance(p.get("name"), str) or not p["name"]:
                    raise ValueError(f"tool_call part without a name: {str(p)[:120]}")
                calls.append({"id": str(p.get("id") or ""), "type": "function",
                              "function": {"name": str(p.get("name") or ""),
                                           "arguments": json_text(p.get("arguments") if p.get("arguments") is not None else {})}})
            elif t == "tool_call_response":
                results.append({"role": "tool", "tool_call_id": str(p.get("id") or ""),
                                "content": json_text(p.get("response") if p.get("response") is not None else "")})
        if results:
            out.extend(results)
            continue
        msg: dict[str, Any] = {"role": m["role"], "content": "\n".join(texts) if texts else None}
        if m["role"] in ("system", "user") and msg["content"] is None:
            msg["content"] = ""
        if calls:
            msg["tool_calls"] = calls
        out.append(msg)
    return out


def _system(instructions: Any) -> list[dict[str, Any]]:
    parts = _loads(instructions)
    if isinstance(parts, str):
        return [{"role": "system", "content": parts}]
    texts = [str(p.get("content", "")) for p in parts or [] if isinstance(p, dict) and p.get("type") == "text"]
    return [{"role": "system", "content": "\n".join(texts)}] if texts else []


def _event_message(name: str, body: dict[str, Any]) -> dict[str, Any] | None:
    """One older-convention event as an OpenAI message (None for an event that is not one)."""
    if name == "gen_ai.choice":
        body = _loads(body.get("message")) or {}
        role = "assistant"
    else:
        role = _EVENT_ROLES.get(name)
    if role is None or not isinstance(body, dict):
        return None
    content = body.get("content")
    if isinstance(content, list):  # content as parts
        content = "\n".join(str(p.get("text", p.get("content", ""))) for p in content if isinstance(p, dict))
    if role == "tool":
        return {"role": "tool", "tool_call_id": str(body.get("id") or ""), "content": json_text(content or "")}
    msg: dict[str, Any] = {"role": role, "content": content if content is not None else ("" if role != "assistant" else None)}
    calls = _loads(body.get("tool_calls"))
    if calls:
        msg["tool_calls"] = [{"id": str(c.get("id") or ""), "type": "function",
                              "function": {"name": str((c.get("function") or {}).get("name") or ""),
                                           "arguments": json_text((c.get("function") or {}).get("arguments") or {})}}
                             for c in calls if isinstance(c, dict)]
    return msg


def _load_documents(path: Path) -> Iterator[tuple[int, Any, str | None, str | None]]:
    """``(position, document or raw text, code, error)`` per OTLP document: the whole file when it
    parses as one JSON value, else one per JSONL line."""
    from . import INGEST_DECODE, INGEST_JSON, _iter_canonical

    data = path.read_bytes()
    try:
        yield 0, json.loads(data.decode("utf-8")), None, None
        return
    except UnicodeDecodeError as exc:
        yield 0, data[:4096].decode("utf-8", "replace"), INGEST_DECODE, str(exc)
        return
    except (json.JSONDecodeError, RecursionError) as exc:
        if b"\n" not in data.strip():
            yield 0, data[:4096].decode("utf-8", "replace"), INGEST_JSON, str(exc)
            return
    for pos, raw, code, err in _iter_canonical(path):
        if code == "INGEST_EMPTY":
            continue  # blank lines between documents carry nothing
        yield pos, raw, code, err


def _spans(doc: dict[str, Any], pos: int) -> list[dict[str, Any]]:
    out = []
    for rs in doc.get("resourceSpans") or []:
        for ss in rs.get("scopeSpans") or []:
            for s in ss.get("spans") or []:
                out.append({"trace": s["traceId"], "span": s["spanId"], "parent": s.get("parentSpanId") or "",
                            "name": s.get("name", ""), "start": int(s.get("startTimeUnixNano") or 0),
                            "attrs": attributes(s.get("attributes")), "pos": pos, "raw": s,
                            "events": [(int(e.get("timeUnixNano") or 0), e.get("name", ""), attributes(e.get("attributes")))
                                       for e in s.get("events") or []]})
    return out


def _log_events(doc: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for rl in doc.get("resourceLogs") or []:
        for sl in rl.get("scopeLogs") or []:
            for lr in sl.get("logRecords") or []:
                attrs = attributes(lr.get("attributes"))
                name = lr.get("eventName") or attrs.get("event.name") or ""
                if not str(name).startswith("gen_ai."):
                    continue
                body = any_value(lr.get("body"))
                out.append({"trace": lr.get("traceId") or "", "span": lr.get("spanId") or "", "name": name,
                            "time": int(lr.get("timeUnixNano") or lr.get("observedTimeUnixNano") or 0),
                            "body": _loads(body) if body is not None else {}, "raw": lr})
    return out


def _span_event_body(attrs: dict[str, Any]) -> dict[str, Any]:
    if "body" in attrs:
        b = _loads(attrs["body"])
        return b if isinstance(b, dict) else {"content": b}
    return {k: v for k, v in attrs.items() if not k.startswith(("gen_ai.system", "event.", "gen_ai.provider"))}


def _io(span: dict[str, Any], events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(input messages, output messages) of one message-carrying span, from its attributes or,
    failing those, from its events (span events and log events, in time order)."""
    a = span["attrs"]
    if "gen_ai.input.messages" in a or "gen_ai.output.messages" in a:
        inp = _system(a.get("gen_ai.system_instructions")) + parts_to_messages(a.get("gen_ai.input.messages"))
        return inp, parts_to_messages(a.get("gen_ai.output.messages"))
    evs = [(t, n, _span_event_body(at)) for t, n, at in span["events"]]
    evs += [(e["time"], e["name"], e["body"] if isinstance(e["body"], dict) else {"content": e["body"]}) for e in events]
    inp, out = [], []
    for _, name, body in sorted(evs, key=lambda x: x[0]):
        msg = _event_message(name, body)
        if msg is not None:
            (out if name == "gen_ai.choice" else inp).append(msg)
    return inp, out


def _merge(conv: list[dict[str, Any]], inp: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The conversation after a span whose input is ``inp``: ``inp`` when it repeats ``conv``
    (full-history form), else ``conv`` plus the part of ``inp`` not already at its end
    (delta form; a repeated system message is not added twice)."""
    if inp[:len(conv)] == conv:
        return list(inp)
    if conv and conv[0].get("role") == "system":
        inp = [m for m in inp if m != conv[0]]
    for k in range(min(len(conv), len(inp)), 0, -1):  # longest overlap of conv's end and inp's start
        if conv[-k:] == inp[:k]:
            return conv + inp[k:]
    return conv + inp


def _conversation(key: str, spans: list[dict[str, Any]], events: dict[str, list[dict[str, Any]]],
                  known: set[str]) -> tuple[dict[str, Any] | None, str | None, str | None]:
    """(candidate, code, error) for one stitched group of spans."""
    for s in spans:
        if s["parent"] and not _ZERO_ID.match(s["parent"]) and s["parent"] not in known:
            return None, INGEST_ORPHAN_SPAN, (f"span {s['span']} ({s['name']}) has parent {s['parent']} which is not "
                                              f"in the export: part of trace {s['trace']} is missing")
    ops = {s["span"]: s["attrs"].get("gen_ai.operation.name") for s in spans}
    carriers = [s for s in spans if ops[s["span"]] in MESSAGE_OPS]
    if not carriers:
        carriers = [s for s in spans if ops[s["span"]] == "invoke_agent"]
    if not carriers:
        return None, "INGEST_SCHEMA", (f"conversation {key}: no chat / invoke_agent span carrying messages "
                                       f"(gen_ai.operation.name of its spans: {sorted(set(map(str, ops.values())))})")
    conv: list[dict[str, Any]] = []
    tools = None
    model = None
    for s in sorted(carriers, key=lambda s: (s["start"], s["pos"])):
        try:
            inp, out = _io(s, events.get(s["span"], []))
        except ValueError as exc:
            return None, "INGEST_SCHEMA", f"span {s['span']}: {exc}"
        conv = _merge(conv, inp) + out
        tools = openai_tools(s["attrs"].get("gen_ai.tool.definitions")) or tools
        model = s["attrs"].get("gen_ai.request.model") or model
    # results logged only on execute_tool spans
    results = {str(s["attrs"].get("gen_ai.tool.call.id")): s["attrs"] for s in spans
               if ops[s["span"]] == "execute_tool" and s["attrs"].get("gen_ai.tool.call.id") is not None
               and "gen_ai.tool.call.result" in s["attrs"]}
    answered = {m.get("tool_call_id") for m in conv if m.get("role") == "tool"}
    filled: list[dict[str, Any]] = []
    for m in conv:
        filled.append(m)
        for tc in m.get("tool_calls") or []:
            if tc["id"] not in answered and tc["id"] in results:
                filled.append({"role": "tool", "tool_call_id": tc["id"],
                               "content": json_text(results[tc["id"]]["gen_ai.tool.call.result"])})
    conv = filled
    if not conv:
        return None, "INGEST_EMPTY", f"conversation {key}: its spans carry no messages"
    name_tool_messages(conv)
    broken = check_tool_pairs(conv)
    if broken:
        return None, broken[0], f"conversation {key}: {broken[1]}"
    traces = sorted({s["trace"] for s in spans})
    meta: dict[str, Any] = {"source_format": "otel_genai", "trace_ids": traces}
    if not key.startswith("trace:"):
        meta["conversation_id"] = key
    if model:
        meta["model"] = model
    cand: dict[str, Any] = {"id": f"otel-{key.split(':', 1)[1] if key.startswith('trace:') else key}",
                            "messages": conv, "metadata": meta}
    if tools:
        cand["tools"] = tools
    return cand, None, None


def iter_otel(path: str | Path) -> Iterator[Row]:
    """Rows (see :data:`~pipeline.ingest.readers.Row`) of an OTLP JSON export: one per document
    that fails to parse or fails ``schemas/otel_genai_export.schema.json`` (then ``raw`` is the
    document), one per stitched conversation (``raw`` = its spans; position = its first span's
    document). Ids are ``otel-<conversation id>`` or ``otel-<trace id>``."""
    path = Path(path)
    spans: list[dict[str, Any]] = []
    log_events: list[dict[str, Any]] = []
    for pos, doc, code, err in _load_documents(path):
        if code:
            yield pos, doc, None, code, err
            continue
        bad = schema_error(SCHEMA, doc)
        if bad:
            yield pos, doc, None, "INGEST_SCHEMA", f"not an OTLP JSON export: {bad}"
            continue
        spans.extend(_spans(doc, pos))
        log_events.extend({**e, "pos": pos} for e in _log_events(doc))
    known = {s["span"] for s in spans}
    conv_of_trace: dict[str, set[str]] = {}
    for s in spans:
        cid = s["attrs"].get("gen_ai.conversation.id")
        if cid is not None:
            conv_of_trace.setdefault(s["trace"], set()).add(str(cid))
    groups: dict[str, list[dict[str, Any]]] = {}
    for s in spans:
        cid = s["attrs"].get("gen_ai.conversation.id")
        if cid is None and len(conv_of_trace.get(s["trace"], ())) == 1:
            cid = next(iter(conv_of_trace[s["trace"]]))
        if cid is None and len(conv_of_trace.get(s["trace"], ())) > 1:
            yield s["pos"], s["raw"], None, INGEST_STITCH_CONFLICT, (
                f"span {s['span']} has no gen_ai.conversation.id and its trace {s['trace']} holds several "
                f"conversations ({', '.join(sorted(conv_of_trace[s['trace']]))})")
            continue
        groups.setdefault(str(cid) if cid is not None else f"trace:{s['trace']}", []).append(s)
    events: dict[str, list[dict[str, Any]]] = {}
    for e in log_events:
        if e["span"] not in known:
            yield e["pos"], e["raw"], None, INGEST_ORPHAN_SPAN, (
                f"event {e['name']} belongs to span {e['span'] or '(none)'} which is not in the export")
            continue
        events.setdefault(e["span"], []).append(e)
    for key, members in sorted(groups.items(), key=lambda kv: min((s["pos"], s["start"]) for s in kv[1])):
        cand, code, err = _conversation(key, members, events, known)
        raw = {"conversation": key, "spans": [s["raw"] for s in members],
               "events": [e["raw"] for s in members for e in events.get(s["span"], [])]}
        yield min(s["pos"] for s in members), raw, cand, code, err


def sniff(first: Any) -> bool:
    """An OTLP JSON export document (``resourceSpans`` or ``resourceLogs`` at the top)."""
    return isinstance(first, dict) and ("resourceSpans" in first or "resourceLogs" in first)


READER = Reader("otel_genai", SCHEMA, sniff, iter_otel)
