"""Helpers shared by the anonymizer's round tests (round 9 to 12): run one record through an
:class:`~pipeline.anonymize.Anonymizer` and check which values survived."""
from __future__ import annotations

import json
import re

from pipeline.records import LogRecord


def present(text: str, value: str, ignore_case: bool = False) -> bool:
    """Whether ``value`` stands in ``text`` as a whole token (no letter or digit of an ASCII
    word glued to it)."""
    return re.search(r"(?<![A-Za-z0-9])" + re.escape(value) + r"(?![A-Za-z0-9])", text,
                     re.I if ignore_case else 0) is not None


def one(anon, messages: list[dict], rid: str = "r") -> LogRecord:
    """The anonymized record of ``messages`` (one record, id ``rid``)."""
    (out,) = anon.anonymize([LogRecord(id=rid, messages=messages)])
    return out


def called_tool_text(anon, result: str, ask: str = "Can you check the stock?") -> str:
    """``result`` anonymized as the content of a tool result, after the user's ``ask`` and the
    assistant's call of a ``lookup`` tool."""
    out = one(anon, [{"role": "user", "content": ask},
                     {"role": "assistant", "content": None, "tool_calls": [
                         {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]},
                     {"role": "tool", "tool_call_id": "c1", "content": result}])
    return out.messages[2]["content"]


def user(anon, text: str) -> str:
    """``text`` anonymized as a user message."""
    return one(anon, [{"role": "user", "content": text}]).messages[0]["content"]


def tool(anon, obj, user: str = "hi", with_user: bool = True) -> str:  # noqa: F811 - the user message
    """``obj`` as a JSON tool result after the user message ``user``; the anonymized tool result
    (after the anonymized user message and a line break when ``with_user``)."""
    out = one(anon, [{"role": "user", "content": user},
                     {"role": "tool", "tool_call_id": "c1", "content": json.dumps(obj, ensure_ascii=False)}])
    if not with_user:
        return out.messages[1]["content"]
    return out.messages[0]["content"] + "\n" + out.messages[1]["content"]


def assert_gone(text: str, values: list[str], ignore_case: bool = False) -> None:
    """Fail naming the values of ``values`` still present in ``text``."""
    left = [v for v in values if present(text, v, ignore_case)]
    assert not left, f"survived {left} in {text!r}"


def assert_kept(text: str, values: list[str]) -> None:
    """Fail naming the values of ``values`` no longer in ``text`` as written (as a substring)."""
    gone = [v for v in values if v not in text]
    assert not gone, f"changed {gone} in {text!r}"


def replaced_and_kept(out: str, values: list[str], kept: list[str]) -> None:
    """Fail naming a value of ``values`` still in ``out`` (as a substring: scripts without word
    boundaries too) or a word of ``kept`` gone from it."""
    for v in values:
        assert v not in out, (v, out)
    for w in kept:
        assert w in out, (w, out)
