"""LLaMA-Factory's sharegpt form of the SFT dataset, plus its ``dataset_info.json`` entry.

Format (LLaMA-Factory ``data/README.md``, "Sharegpt Format" with tools): one object per example
with ``conversations`` (a list of ``{"from", "value"}``; ``from`` is ``human`` / ``gpt`` /
``function_call`` / ``observation``), ``system`` (text) and ``tools`` (a JSON *string* of the
tool schemas). LLaMA-Factory requires human/observation at odd positions and gpt/function_call
at even positions (1-based), and the conversation to end with gpt or function_call.

Mapping: ``user`` -> human; ``assistant`` with tool calls -> function_call whose value is the
JSON ``{"name", "arguments"}`` (a JSON list when the message holds several calls); plain
``assistant`` -> gpt; consecutive ``tool`` messages -> one observation (their contents joined by
newlines). Text an assistant wrote *beside* a tool call is dropped (LLaMA-Factory has no slot for
it); customer turns after the last agent turn are dropped. A trajectory that still breaks the
alternation is skipped and counted.
"""
from __future__ import annotations

import json
import os
from typing import Any

from ..fileio import atomic_path

ROLE_TAGS = {"role_tag": "from", "content_tag": "value", "user_tag": "human", "assistant_tag": "gpt",
             "observation_tag": "observation", "function_tag": "function_call", "system_tag": "system"}


def _call_value(calls: list[dict[str, Any]]) -> str:
    items = []
    for c in calls:
        fn = c.get("function") or {}
        args = fn.get("arguments")
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except json.JSONDecodeError:
                pass
        items.append({"name": fn.get("name"), "arguments": args})
    return json.dumps(items[0] if len(items) == 1 else items, ensure_ascii=False)


def to_sharegpt(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | str | None) -> dict[str, Any] | None:
    """One sharegpt example from OpenAI-format ``messages``, or None when it cannot alternate
    (see the module docstring)."""
    system = "\n\n".join(m.get("content") or "" for m in messages if m.get("role") == "system")
    conv: list[dict[str, str]] = []
    for m in messages:
        role = m.get("role")
        if role == "system":
            continue
        if role == "user":
            conv.append({"from": "human", "value": m.get("content") or ""})
        elif role == "assistant":
            if m.get("tool_calls"):
                conv.append({"from": "function_call", "value": _call_value(m["tool_calls"])})
            else:
                conv.append({"from": "gpt", "value": m.get("content") or ""})
        elif role == "tool":
            if conv and conv[-1]["from"] == "observation":
                conv[-1]["value"] += "\n" + (m.get("content") or "")
            else:
                conv.append({"from": "observation", "value": m.get("content") or ""})
    while conv and conv[-1]["from"] in ("human", "observation"):
        conv.pop()
    ok = bool(conv) and all(
        (c["from"] in ("human", "observation")) == (i % 2 == 0) for i, c in enumerate(conv))
    if not ok:
        return None
    tools_json = tools if isinstance(tools, str) else json.dumps(
        [t.get("function", t) for t in (tools or [])], ensure_ascii=False)
    return {"conversations": conv, "system": system, "tools": tools_json}


def write_llamafactory(out_dir: str, sft_rows: list[dict[str, Any]], name: str = "trajpipe_sft") -> tuple[dict[str, str], int]:
    """Write ``<out_dir>/llamafactory/<name>.json`` (a JSON list of sharegpt examples, train split
    only) and ``dataset_info.json`` (the entry to merge into LLaMA-Factory's
    ``data/dataset_info.json``). Returns ``({"data", "dataset_info"}: paths, n_skipped)``."""
    folder = os.path.join(out_dir, "llamafactory")
    os.makedirs(folder, exist_ok=True)
    examples, skipped = [], 0
    for r in sft_rows:
        if r.get("split") != "train":
            continue
        tools = json.loads(r["tools"]) if isinstance(r.get("tools"), str) else r.get("tools")
        ex = to_sharegpt(r["messages"], tools)
        if ex is None:
            skipped += 1
        else:
            ex["id"] = r["trajectory_id"]
            examples.append(ex)
    data_path = os.path.join(folder, f"{name}.json")
    with atomic_path(data_path) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        json.dump(examples, fh, ensure_ascii=False, indent=1)
    info = {name: {"file_name": f"{name}.json", "formatting": "sharegpt",
                   "columns": {"messages": "conversations", "system": "system", "tools": "tools"},
                   "tags": {k: v for k, v in ROLE_TAGS.items() if k != "system_tag"}}}
    info_path = os.path.join(folder, "dataset_info.json")
    with atomic_path(info_path) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        json.dump(info, fh, indent=2)
        fh.write("\n")
    return {"data": data_path, "dataset_info": info_path}, skipped
