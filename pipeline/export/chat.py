"""Exported conversations in the form model chat templates expect.

trajpipe stores each tool call's ``arguments`` as JSON in a JSON-typed Parquet column
(:data:`pipeline.export.schemas.ARGUMENTS_TYPE`). How a reader hands that column out depends on
the reader: Hugging Face ``datasets`` (``Json`` feature) and DuckDB give an object; pyarrow's
``to_pylist``, pandas and the OpenAI API give the JSON *string* (the OpenAI wire form).

Model chat templates want the object (Hugging Face chat-template convention; TRL's own dataset
docs show ``"arguments": {...}``): given the string, TRL's Qwen2.5 template (``arguments |
tojson``) writes it double-encoded (``"arguments": "{\\"user_id\\": ...}"``) and the Qwen3.5 /
Qwen3.6 templates (``arguments | items``) raise TypeError. :func:`template_messages` turns either
form into the one templates expect; use it whenever rows reach ``apply_chat_template`` by a route
that gives strings.
"""
from __future__ import annotations

import json
from typing import Any, Iterable


def template_arguments(arguments: Any) -> Any:
    """A tool call's ``arguments`` as the object a chat template expects.

    A JSON string is decoded (``'{"a": 1}'`` -> ``{"a": 1}``; ``""`` -> ``{}``); a dict, list or
    None is returned as is; a string that is not JSON is returned unchanged (what the model wrote;
    trajpipe's exporter stores such text as a JSON string literal, which decodes to the same text).
    Never raises.
    """
    if not isinstance(arguments, str):
        return arguments
    if not arguments.strip():
        return {}
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments


def template_messages(messages: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI-format ``messages`` (an sft row's ``messages``, a dpo row's ``prompt`` / ``chosen`` /
    ``rejected``) with every ``tool_calls[i].function.arguments`` as an object
    (:func:`template_arguments`), ready for ``tokenizer.apply_chat_template``.

    Keys whose value is null are dropped (an absent key and a null one render the same in every
    template that accepts the null; a tool-call message's ``content: None`` included): a Parquet struct gives every
    message every field, so rows read with ``datasets`` carry ``tool_calls: None``,
    ``tool_call_id: None``, ``name: None`` on every message, and templates that test a key's
    presence (Llama 3.1 / 3.2: ``'tool_calls' in message`` then ``message.tool_calls | length``;
    gpt-oss, LFM2, Qwen2.5-VL / Qwen3-VL iterate ``content``) raise TypeError on them.

    Returns new dicts (the input is not modified). Works on rows read by any reader (dict
    arguments from ``datasets``, JSON strings from pyarrow / pandas). Raises nothing for
    well-formed messages; a message that is not a mapping raises TypeError.
    """
    out = []
    for m in messages:
        m = {k: v for k, v in dict(m).items() if v is not None}
        calls = m.get("tool_calls")
        if calls is not None:
            new_calls = []
            for tc in calls:
                tc = {k: v for k, v in dict(tc).items() if v is not None}
                fn = tc.get("function")
                if isinstance(fn, dict):
                    fn = {k: v for k, v in fn.items() if v is not None}
                    fn["arguments"] = template_arguments(fn.get("arguments"))
                    tc["function"] = fn
                new_calls.append(tc)
            m["tool_calls"] = new_calls
        out.append(m)
    return out


def template_tools(tools: Any) -> list[dict[str, Any]] | None:
    """A row's ``tools`` (a JSON string in every trajpipe file, as TRL's SFTTrainer accepts it) as
    the list of OpenAI function-tool schemas ``apply_chat_template(tools=...)`` takes; None stays
    None. Raises ValueError (json) for a string that is not JSON."""
    if tools is None or isinstance(tools, list):
        return tools
    return json.loads(tools)


def template_row(row: dict[str, Any]) -> dict[str, Any]:
    """``{"messages": template_messages(row["messages"]), "tools": template_tools(row["tools"])}``
    of an sft (or trajectories_failed) row: the two arguments of ``apply_chat_template``. Raises
    KeyError when the row has no ``messages``."""
    return {"messages": template_messages(row["messages"]), "tools": template_tools(row.get("tools"))}
