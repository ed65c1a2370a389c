"""Reader for ShareGPT conversations with function calls (format name ``"sharegpt"``).

Input: the ShareGPT form LLaMA-Factory documents for tool-use data (``data/README.md`` of
LLaMA-Factory, "sharegpt" format): a JSON list (or JSONL) of objects, each checked against
``schemas/sharegpt_conversation.schema.json``::

    {"conversations": [{"from": "human", "value": "..."},
                       {"from": "function_call", "value": "{\\"name\\": ..., \\"arguments\\": {...}}"},
                       {"from": "observation", "value": "..."},
                       {"from": "gpt", "value": "..."}],
     "system": "..."?, "tools": "[{\\"name\\", \\"description\\", \\"parameters\\"}]"?, "id"?: str}

Roles: ``human``/``user``, ``gpt``/``assistant``, ``system``, ``function_call`` (an assistant
tool call: one ``{"name", "arguments"}`` object or a list of them for parallel calls; arguments
an object or JSON text) and ``observation`` (the tool result; for N parallel calls a JSON list
of N results). Each call gets the id ``call_<turn>_<i>``. Quarantined, never guessed: a
``function_call`` not followed by its ``observation`` (or N calls with an observation that is
not a list of N results), an ``observation`` with no call before it, and a call that is not
``{"name", "arguments"}``.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterator

from .readers import (INGEST_TOOL_CALL_MISSING, INGEST_TOOL_RESULT_MISSING, Reader, Row, check_tool_pairs,
                      json_text, openai_tools, schema_error)

SCHEMA = "sharegpt_conversation.schema.json"
_ROLES = {"human": "user", "user": "user", "gpt": "assistant", "assistant": "assistant", "system": "system"}


class _Incomplete(ValueError):
    def __init__(self, code: str, detail: str):
        super().__init__(detail)
        self.code = code


def _calls(value: str, turn: int) -> list[dict[str, Any]]:
    try:
        parsed = json.loads(value)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise _Incomplete("INGEST_SCHEMA", f"turn {turn}: function_call value is not JSON: {exc}") from None
    items = parsed if isinstance(parsed, list) else [parsed]
    out = []
    for i, c in enumerate(items):
        if not isinstance(c, dict) or not isinstance(c.get("name"), str) or not c["name"]:
            raise _Incomplete("INGEST_SCHEMA", f"turn {turn}: a function call must be {{'name', 'arguments'}}, got {str(c)[:200]}")
        args = c.get("arguments", {})
        if isinstance(args, str):
            try:
                args = json.loads(args or "{}")
            except (json.JSONDecodeError, RecursionError):
                raise _Incomplete("INGEST_SCHEMA", f"turn {turn}: arguments of {c['name']} are not JSON") from None
        out.append({"id": f"call_{turn}_{i}", "type": "function",
                    "function": {"name": c["name"], "arguments": json.dumps(args, ensure_ascii=False)}})
    return out


def sharegpt_to_canonical(item: dict[str, Any], rid: str) -> dict[str, Any]:
    """One ShareGPT item as a canonical conversation dict (``id`` = the item's ``id`` or ``rid``,
    metadata ``source_format="sharegpt"``). Raises ValueError with a ``code`` attribute
    (``INGEST_TOOL_RESULT_MISSING``, ``INGEST_TOOL_CALL_MISSING``, ``INGEST_SCHEMA``) for an
    item whose calls and observations do not pair up or whose call is malformed."""
    msgs: list[dict[str, Any]] = []
    if isinstance(item.get("system"), str) and item["system"]:
        msgs.append({"role": "system", "content": item["system"]})
    turns = item["conversations"]
    pending: list[dict[str, Any]] = []
    for t, turn in enumerate(turns):
        who, value = turn["from"], turn["value"]
        if pending and who != "observation":
            raise _Incomplete(INGEST_TOOL_RESULT_MISSING,
                              f"turn {t - 1}: function_call {pending[0]['function']['name']} has no observation after it")
        if who == "function_call":
            pending = _calls(value, t)
            msgs.append({"role": "assistant", "content": None, "tool_calls": pending})
        elif who == "observation":
            if not pending:
                raise _Incomplete(INGEST_TOOL_CALL_MISSING, f"turn {t}: observation with no function_call before it")
            results: list[Any] = [value]
            if len(pending) > 1:
                try:
                    results = json.loads(value)
                except (json.JSONDecodeError, RecursionError):
                    results = None
                if not isinstance(results, list) or len(results) != len(pending):
                    raise _Incomplete(INGEST_TOOL_RESULT_MISSING,
                                      f"turn {t}: {len(pending)} parallel calls but the observation is not a list of "
                                      f"{len(pending)} results")
            for call, res in zip(pending, results):
                msgs.append({"role": "tool", "tool_call_id": call["id"], "name": call["function"]["name"],
                             "content": json_text(res)})
            pending = []
        else:
            msgs.append({"role": _ROLES[who], "content": value})
    if pending:
        raise _Incomplete(INGEST_TOOL_RESULT_MISSING,
                          f"turn {len(turns) - 1}: function_call {pending[0]['function']['name']} has no observation (the log ends)")
    broken = check_tool_pairs(msgs)
    if broken:
        raise _Incomplete(*broken)
    cand: dict[str, Any] = {"id": str(item.get("id") or rid), "messages": msgs,
                            "metadata": {"source_format": "sharegpt"}}
    tools = openai_tools(item.get("tools"))
    if tools:
        cand["tools"] = tools
    return cand


def _items(path: Path) -> Iterator[tuple[int, Any, str | None, str | None]]:
    from . import INGEST_DECODE, INGEST_JSON, _iter_canonical

    with open(path, "rb") as fh:
        first = fh.read(64).lstrip()
    if not first.startswith(b"["):
        yield from _iter_canonical(path)
        return
    data = path.read_bytes()
    try:
        items = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        yield 0, data[:4096].decode("utf-8", "replace"), INGEST_DECODE, str(exc)
        return
    except (json.JSONDecodeError, RecursionError) as exc:
        yield 0, data[:4096].decode("utf-8", "replace"), INGEST_JSON, str(exc)
        return
    for pos, item in enumerate(items):
        yield pos, item, None, None


def iter_sharegpt(path: str | Path) -> Iterator[Row]:
    """Rows (see :data:`~pipeline.ingest.readers.Row`), one per item of a ShareGPT JSON list or
    JSONL file. Ids are the item's ``id`` or ``sharegpt-<file stem>-<position>``."""
    path = Path(path)
    stem = re.sub(r"[^a-z0-9]+", "-", path.stem.lower()).strip("-")
    for pos, raw, code, err in _items(path):
        if code:
            yield pos, raw, None, code, err
            continue
        bad = schema_error(SCHEMA, raw)
        if bad:
            yield pos, raw, None, "INGEST_SCHEMA", f"not a ShareGPT conversation: {bad}"
            continue
        try:
            yield pos, raw, sharegpt_to_canonical(raw, f"sharegpt-{stem}-{pos:04d}"), None, None
        except _Incomplete as exc:
            yield pos, raw, None, exc.code, str(exc)


def sniff(first: Any) -> bool:
    """An object whose ``conversations`` is a list of ``{"from", "value"}`` turns."""
    conv = first.get("conversations") if isinstance(first, dict) else None
    return isinstance(conv, list) and bool(conv) and isinstance(conv[0], dict) and "from" in conv[0]


READER = Reader("sharegpt", SCHEMA, sniff, iter_sharegpt)
