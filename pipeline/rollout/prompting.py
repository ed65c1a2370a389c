"""Prompt construction and tool-call parsing for the agent harness.

Tool calls use the Hermes function-calling format (NousResearch Hermes-2-Pro; also used by
Qwen2.5): tool schemas inside ``<tools></tools>`` in the system prompt, each call as a JSON object
``{"name": ..., "arguments": {...}}`` inside ``<tool_call></tool_call>``, each tool result inside
``<tool_response></tool_response>``. Only the agent-visible part of a task package reaches a prompt.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

TOOL_CALL_RE = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S)
TOOL_PREFIX = '<tool_call>\n{"name": "'
TOOL_NAME_SUFFIX = '", "arguments": {'

SYSTEM_TEMPLATE = """You are a customer service agent. Follow the policy below exactly.

{policy}

# Tools
You may call one tool at a time. The tool signatures are inside <tools></tools>:
<tools>
{tools}
</tools>
To call a tool, reply with only a JSON object inside <tool_call></tool_call> tags, for example:
<tool_call>
{{"name": "tool_name", "arguments": {{"arg": "value"}}}}
</tool_call>
The tool result comes back inside <tool_response></tool_response>. When you are done, answer the customer in plain text."""


def _type_of(schema: dict[str, Any]) -> str:
    t = schema.get("type", "any")
    if "enum" in schema:
        return "|".join(json.dumps(v) for v in schema["enum"])
    if t == "array":
        return f"list[{_type_of(schema.get('items', {}))}]"
    if t == "object" and schema.get("properties"):
        return "{" + ", ".join(f"{k}: {_type_of(v)}" for k, v in schema["properties"].items()) + "}"
    return t if isinstance(t, str) else "|".join(t)


def tool_signature(tool: dict[str, Any]) -> str:
    """One-line signature of an OpenAI function schema, e.g.
    ``cancel_reservation(reservation_id: string) - Cancel the whole reservation.``"""
    fn = tool.get("function", tool)
    params = fn.get("parameters") or {}
    req = set(params.get("required", []))
    args = ", ".join(f"{k}{'' if k in req else '?'}: {_type_of(v)}" for k, v in (params.get("properties") or {}).items())
    desc = (fn.get("description") or "").strip().split(". ")[0].rstrip(".")
    return f"{fn['name']}({args})" + (f" - {desc}." if desc else "")


PROMPT_STYLES = ("compact", "full")


def tool_call_openings(tools: list[dict[str, Any]]) -> list[str]:
    """Allowed continuations of :data:`TOOL_PREFIX` for constrained decoding: per tool, its name,
    the arguments key and the first required argument's key (with the opening quote of a string
    value), e.g. ``cancel_reservation", "arguments": {"reservation_id": "``; a tool without
    parameters closes its call: ``list_all_airports", "arguments": {}}``."""
    out = []
    for t in tools:
        fn = t.get("function", t)
        params = fn.get("parameters") or {}
        props = params.get("properties") or {}
        req = [k for k in params.get("required", []) if k in props] or list(props)
        if not req:
            out.append(fn["name"] + '", "arguments": {}}')
            continue
        first = req[0]
        opener = '"' if props[first].get("type") == "string" else ""
        out.append(fn["name"] + TOOL_NAME_SUFFIX + f'"{first}": ' + opener)
    return out


def system_prompt(policy: str, tools: list[dict[str, Any]], style: str = "compact") -> str:
    """The agent's system prompt: the policy text plus the tools.

    ``style="full"``: each tool's JSON schema on one line (Hermes); ``"compact"``: one signature
    line per tool (about 5x fewer tokens, which matters for CPU prefill). Raises ValueError for
    an unknown style."""
    if style == "full":
        tool_lines = "\n".join(json.dumps(t.get("function", t), ensure_ascii=False) for t in tools)
    elif style == "compact":
        tool_lines = "\n".join(tool_signature(t) for t in tools)
    else:
        raise ValueError(f"unknown prompt style {style!r}; choose one of {PROMPT_STYLES}")
    return SYSTEM_TEMPLATE.format(policy=policy.strip(), tools=tool_lines)


@dataclass
class ParsedOutput:
    """Parsed assistant output: free ``text`` outside tool-call tags, ``calls`` (name, arguments)
    and ``errors`` (one message per ``<tool_call>`` block that is not valid JSON / lacks a name)."""

    text: str
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    had_tag: bool = False


def _first_json_object(s: str) -> Any:
    """Decode the first JSON value in ``s`` (tolerates trailing text after it)."""
    s = s.strip()
    dec = json.JSONDecoder()
    return dec.raw_decode(s)[0]


def parse_tool_calls(text: str) -> ParsedOutput:
    """Parse Hermes-style tool calls from generated ``text``.

    A block may hold one object or a list of objects; ``arguments`` may be an object or a JSON
    string (OpenAI style). Never raises: problems are reported in ``errors``.
    """
    out = ParsedOutput(text=TOOL_CALL_RE.sub("", text).strip(), had_tag="<tool_call>" in text)
    for block in TOOL_CALL_RE.findall(text):
        try:
            obj = _first_json_object(block)
        except (json.JSONDecodeError, ValueError) as exc:
            out.errors.append(f"tool call is not valid JSON: {exc.msg if hasattr(exc, 'msg') else exc}")
            continue
        items = obj if isinstance(obj, list) else [obj]
        for it in items:
            if not isinstance(it, dict) or not isinstance(it.get("name"), str):
                out.errors.append("tool call must be an object with a string 'name'")
                continue
            args = it.get("arguments", it.get("parameters", {}))
            if isinstance(args, str):
                try:
                    args = json.loads(args) if args.strip() else {}
                except json.JSONDecodeError as exc:
                    out.errors.append(f"arguments of {it['name']!r} are not valid JSON: {exc.msg}")
                    continue
            if not isinstance(args, dict):
                out.errors.append(f"arguments of {it['name']!r} must be a JSON object")
                continue
            out.calls.append((it["name"], args))
    return out


def render_for_model(messages: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Turn OpenAI-format messages (assistant ``tool_calls``, ``tool`` results) into plain
    role/content messages in Hermes text form, for chat templates without native tool support."""
    out: list[dict[str, str]] = []
    for m in messages:
        role = m["role"]
        if role == "assistant" and m.get("tool_calls"):
            parts = [m["content"]] if m.get("content") else []
            for tc in m["tool_calls"]:
                fn = tc["function"]
                try:
                    args = json.loads(fn["arguments"])
                except (json.JSONDecodeError, TypeError):
                    args = fn["arguments"]
                parts.append("<tool_call>\n" + json.dumps({"name": fn["name"], "arguments": args},
                                                          ensure_ascii=False) + "\n</tool_call>")
            out.append({"role": "assistant", "content": "\n".join(parts)})
        elif role == "tool":
            out.append({"role": "tool", "content": f"<tool_response>\n{m.get('content', '')}\n</tool_response>"})
        else:
            out.append({"role": role, "content": m.get("content") or ""})
    return out


NATIVE_SYSTEM_TEMPLATE = """You are a customer service agent. Follow the policy below exactly.

{policy}

You may call one tool at a time. When you are done, answer the customer in plain text."""


def system_prompt_native(policy: str) -> str:
    """The agent's system prompt when the tools go through the model's own chat template
    (``apply_chat_template(..., tools=...)``): the policy only, the template renders the tools."""
    return NATIVE_SYSTEM_TEMPLATE.format(policy=policy.strip())
