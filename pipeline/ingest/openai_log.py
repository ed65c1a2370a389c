"""Reader for OpenAI Chat Completions request/response logs (format name ``"openai_chat"``).

Input: JSONL, one logged API call a line, each checked against
``schemas/openai_chat_log.schema.json``::

    {"request": {"model", "messages": [...], "tools": [...]?, "metadata": {...}?},
     "response": {"id"?, "choices": [{"message": {"role": "assistant", "content", "tool_calls"?},
                                      "finish_reason"}]},
     "conversation_id"?: str, "metadata"?: {"conversation_id"?: str}}

``request`` is the body sent to ``POST /v1/chat/completions`` and ``response`` the body
returned (OpenAI's API reference); message ``content`` may be text or a list of content parts
(their ``text`` is joined).

Stitching: each call's request repeats the conversation so far, so calls are joined into one
conversation per ``conversation_id`` (the line's, its ``metadata``'s, or the request's
``metadata``'s, in that order) or, for lines without one, when a call's request starts with
everything an earlier call sent and got back (its messages plus its first choice). The
conversation is the last call's request messages plus its first choice. Quarantined, never
guessed: calls sharing a conversation id whose histories do not extend one another
(:data:`~pipeline.ingest.readers.INGEST_STITCH_CONFLICT`), and a conversation whose last call
asked for tools that were never answered or whose messages do not pair calls with results.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from .readers import (INGEST_STITCH_CONFLICT, Reader, Row, check_tool_pairs, json_text, name_tool_messages,
                      openai_tools, schema_error)

SCHEMA = "openai_chat_log.schema.json"


def normalize_message(m: dict[str, Any]) -> dict[str, Any]:
    """One Chat Completions message in the canonical form: content parts joined into text,
    ``tool_calls`` kept with arguments as JSON text, only ``role``, ``content``, ``tool_calls``,
    ``tool_call_id`` and ``name`` kept (``refusal``, ``annotations``, audio are dropped)."""
    content = m.get("content")
    if isinstance(content, list):
        content = "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") in ("text", "input_text", "output_text"))
    out: dict[str, Any] = {"role": m["role"] if m["role"] != "developer" else "system"}
    out["content"] = content if content is not None or m["role"] == "assistant" else ""
    if m.get("tool_calls"):
        out["tool_calls"] = [{"id": str(tc.get("id") or ""), "type": "function",
                              "function": {"name": str((tc.get("function") or {}).get("name") or ""),
                                           "arguments": json_text((tc.get("function") or {}).get("arguments") or "{}")}}
                             for tc in m["tool_calls"]]
    if m.get("tool_call_id") is not None:
        out["tool_call_id"] = str(m["tool_call_id"])
    if isinstance(m.get("name"), str) and m["role"] == "tool":
        out["name"] = m["name"]
    return out


def conversation_key(line: dict[str, Any]) -> str | None:
    """The logged conversation id of a call: ``conversation_id`` of the line, of its
    ``metadata``, or of the request's ``metadata``; None when it has none."""
    for holder in (line, line.get("metadata") or {}, (line.get("request") or {}).get("metadata") or {}):
        cid = holder.get("conversation_id") if isinstance(holder, dict) else None
        if cid not in (None, ""):
            return str(cid)
    return None


class _Chain:
    def __init__(self, key: str | None, pos: int):
        self.key, self.pos = key, pos
        self.full: list[dict[str, Any]] = []
        self.tools: list[dict[str, Any]] | None = None
        self.raws: list[Any] = []
        self.model: str | None = None
        self.conflict: str | None = None


def iter_openai_log(path: str | Path) -> Iterator[Row]:
    """Rows (see :data:`~pipeline.ingest.readers.Row`) of a Chat Completions log: one per line
    that fails to parse or fails the schema, one per stitched conversation (``raw`` = its lines;
    position = its first line). Ids are ``openai-<conversation id>`` or
    ``openai-<file stem>-<first line>``."""
    from . import _iter_canonical

    path = Path(path)
    chains: list[_Chain] = []
    by_key: dict[str, _Chain] = {}
    for pos, raw, code, err in _iter_canonical(path):
        if code:
            yield pos, raw, None, code, err
            continue
        bad = schema_error(SCHEMA, raw)
        if bad:
            yield pos, raw, None, "INGEST_SCHEMA", f"not a Chat Completions call log line: {bad}"
            continue
        hist = [normalize_message(m) for m in raw["request"]["messages"]]
        full = hist + [normalize_message({"role": "assistant", **raw["response"]["choices"][0]["message"]})]
        key = conversation_key(raw)
        chain = by_key.get(key) if key is not None else None
        if key is None:  # the open chain whose whole exchange this request continues (the longest)
            cands = [c for c in chains if c.key is None and c.full and hist[:len(c.full)] == c.full]
            chain = max(cands, key=lambda c: len(c.full)) if cands else None
        if chain is None:
            chain = _Chain(key, pos)
            chains.append(chain)
            if key is not None:
                by_key[key] = chain
        elif hist[:len(chain.full)] != chain.full and chain.conflict is None:
            chain.conflict = (f"line {pos} of conversation {key!r} does not continue the history of the "
                              f"calls before it (its request differs from their messages and answer)")
        chain.full = full
        chain.raws.append(raw)
        chain.tools = openai_tools(raw["request"].get("tools")) or chain.tools
        chain.model = raw["request"].get("model") or chain.model
    stem = path.stem
    for c in chains:
        raw = c.raws if len(c.raws) > 1 else c.raws[0]
        if c.conflict:
            yield c.pos, raw, None, INGEST_STITCH_CONFLICT, c.conflict
            continue
        msgs = c.full
        name_tool_messages(msgs)
        broken = check_tool_pairs(msgs)
        rid = f"openai-{c.key}" if c.key is not None else f"openai-{stem}-{c.pos:04d}"
        if broken:
            yield c.pos, raw, None, broken[0], f"conversation {rid}: {broken[1]}"
            continue
        meta: dict[str, Any] = {"source_format": "openai_chat", "n_calls": len(c.raws)}
        if c.key is not None:
            meta["conversation_id"] = c.key
        if c.model:
            meta["model"] = c.model
        cand: dict[str, Any] = {"id": rid, "messages": msgs, "metadata": meta}
        if c.tools:
            cand["tools"] = c.tools
        yield c.pos, raw, cand, None, None


def sniff(first: Any) -> bool:
    """A logged call: an object with ``request.messages`` and ``response.choices``."""
    return (isinstance(first, dict) and isinstance(first.get("request"), dict) and isinstance(first.get("response"), dict)
            and "messages" in first["request"] and "choices" in first["response"])


READER = Reader("openai_chat", SCHEMA, sniff, iter_openai_log)
