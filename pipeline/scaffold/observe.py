"""What the logs show about a system's tools: every logged call with its arguments and result.

Shared by ``trajpipe domain init`` (inference, :mod:`pipeline.scaffold.infer`) and ``trajpipe
domain check`` (replay, :mod:`pipeline.scaffold.check`). Input is canonical conversations
(:class:`~pipeline.records.LogRecord` or dicts, as :func:`pipeline.ingest.ingest` gives them for
every reader); nothing here guesses a result that is not in the log.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

#: Names that are no business tool: the transcript reader's placeholder for an unnamed call.
UNNAMED = "unknown"
_WS = re.compile(r"\s+")


@dataclass
class Call:
    """One logged tool call. ``arguments`` is the parsed argument object (None when the log's
    arguments are not a JSON object); ``result`` the logged result text (None when the log has
    none); ``args_logged`` is False when the reader could not recover the arguments (the
    transcript reader's ``metadata.args_missing``); ``step`` counts calls within the record."""

    record_id: str
    step: int
    name: str
    arguments: dict[str, Any] | None
    result: str | None
    args_logged: bool = True

    @property
    def value(self) -> Any:
        """The result parsed as JSON, or None when it is not JSON (free text, an error)."""
        if self.result is None:
            return None
        try:
            return json.loads(self.result)
        except (json.JSONDecodeError, RecursionError):
            return None

    @property
    def is_error(self) -> bool:
        """The result is an ``Error: ...`` text (the tool-result convention of the logs)."""
        return self.result is not None and self.result.lstrip().startswith("Error")


def _field(record: Any, name: str) -> Any:
    return record.get(name) if isinstance(record, Mapping) else getattr(record, name, None)


def record_calls(record: Any) -> list[Call]:
    """The tool calls of one canonical conversation, in order, each paired with the ``tool``
    message answering it: the first still-open call with that ``tool_call_id`` (logs reuse ids
    within a conversation: tau-bench's runs do), else the first still-open call."""
    rid = str(_field(record, "id"))
    messages = _field(record, "messages") or []
    missing = list((_field(record, "metadata") or {}).get("args_missing") or [])
    out: list[Call] = []
    open_calls: list[tuple[str | None, Call]] = []
    for m in messages:
        if not isinstance(m, Mapping):
            continue
        if m.get("role") == "tool":
            idx = next((i for i, (cid, _) in enumerate(open_calls) if cid == m.get("tool_call_id")), 0)
            if open_calls:
                open_calls.pop(idx)[1].result = m.get("content")
            continue
        for tc in m.get("tool_calls") or []:
            fn = tc.get("function") or {}
            raw = fn.get("arguments")
            try:
                args = json.loads(raw) if isinstance(raw, str) else raw
            except (json.JSONDecodeError, RecursionError):
                args = None
            if not isinstance(args, dict):
                args = None
            name = str(fn.get("name") or "")
            logged = True
            if args == {} and name in missing:  # the transcript reader could not recover them
                missing.remove(name)
                logged = False
            call = Call(rid, len(out), name, args, None, logged)
            out.append(call)
            open_calls.append((tc.get("id"), call))
    return out


def all_calls(records: Iterable[Any]) -> Iterator[Call]:
    """Every call of every record, record by record."""
    for r in records:
        yield from record_calls(r)


def system_prompts(records: Iterable[Any]) -> list[str]:
    """The distinct system messages of the records, most frequent first."""
    counts: dict[str, int] = {}
    for r in records:
        for m in _field(r, "messages") or []:
            if isinstance(m, Mapping) and m.get("role") == "system" and isinstance(m.get("content"), str):
                counts[m["content"]] = counts.get(m["content"], 0) + 1
    return [t for t, _ in sorted(counts.items(), key=lambda kv: -kv[1])]


def tool_definitions(records: Iterable[Any]) -> dict[str, dict[str, Any]]:
    """``{tool name: OpenAI function dict}`` from the records' declared ``tools`` (first seen wins)."""
    out: dict[str, dict[str, Any]] = {}
    for r in records:
        for t in _field(r, "tools") or []:
            fn = t.get("function", t) if isinstance(t, Mapping) else None
            if isinstance(fn, Mapping) and isinstance(fn.get("name"), str):
                out.setdefault(fn["name"], dict(fn))
    return out


def canonical(value: Any) -> Any:
    """A result in comparable form: JSON text parsed (else the text with whitespace runs collapsed
    and stripped), key order ignored (dicts compare unordered), floats that are whole numbers as
    ints and other floats rounded to 9 significant digits (``1.0`` == ``1``, ``0.30000000000000004``
    == ``0.3``). Applied recursively; used to decide whether a replayed result matches the log."""
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except (json.JSONDecodeError, RecursionError):
            return _WS.sub(" ", value).strip()
        if isinstance(parsed, str):
            return _WS.sub(" ", parsed).strip()
        return canonical_value(parsed)
    return canonical_value(value)


def canonical_value(v: Any) -> Any:
    """:func:`canonical` of an already parsed JSON value."""
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, float):
        if math.isfinite(v) and v == int(v):
            return int(v)
        return float(f"{v:.9g}") if math.isfinite(v) else v
    if isinstance(v, dict):
        return {str(k): canonical_value(x) for k, x in v.items()}
    if isinstance(v, list):
        return [canonical_value(x) for x in v]
    if isinstance(v, str):
        return _WS.sub(" ", v).strip()
    return v


def load_records(path: str | Path, fmt: str | None = None) -> tuple[list[Any], list[Any]]:
    """``(records, quarantine)`` of a log file in any format :func:`pipeline.ingest.ingest` reads,
    without domain routing (the system may have no domain yet). Raises FileNotFoundError /
    ValueError as ``ingest`` does."""
    from pipeline.ingest import ingest

    res = ingest(path, fmt=fmt, route=False)
    return res.records, res.quarantine
