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
    """Parsed assistant output: free ``text`` outside tool-call blocks (stripped), ``calls``
    (name, arguments) in the order written, ``errors`` (one message per problem: a block that is
    not valid JSON, text left over inside a block after its JSON, an item without a string
    ``name``, bad ``arguments``), ``had_tag`` (the text opens a ``<tool_call>``) and ``repairs``
    (what was changed to make the output safe to store, e.g. lone surrogates replaced by U+FFFD;
    such calls still run)."""

    text: str
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    had_tag: bool = False
    repairs: list[str] = field(default_factory=list)


TOOL_CALL_OPEN = "<tool_call>"
TOOL_CALL_CLOSE = "</tool_call>"
#: Lone UTF-16 surrogates cannot be encoded as UTF-8; json decodes ``"\ud83d"`` escapes to them.
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
_WHITESPACE = " \t\r\n"
_SNIPPET = 60
SURROGATE_REPAIR = "lone UTF-16 surrogate replaced by U+FFFD"


def clean_unicode(s: str) -> str:
    """``s`` with every lone UTF-16 surrogate (a code point in U+D800..U+DFFF that is not half
    of a high+low pair) replaced by U+FFFD; a pair of surrogate code points becomes the
    character it encodes. A string without surrogates comes back unchanged.

    Such strings come from JSON escapes like ``\\ud83d`` (valid JSON syntax, invalid Unicode) or
    from text decoded with ``surrogateescape``/``surrogatepass``; ``str.encode("utf-8")`` raises
    UnicodeEncodeError on them, so one bad sample would stop every later stage that writes UTF-8
    (trajectories.jsonl, Parquet, dedupe hashes)."""
    if not _SURROGATE_RE.search(s):
        return s
    return s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _has_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return _SURROGATE_RE.search(value) is not None
    if isinstance(value, list):
        return any(_has_surrogate(v) for v in value)
    if isinstance(value, dict):
        return any(_has_surrogate(k) or _has_surrogate(v) for k, v in value.items())
    return False


def _clean_value(value: Any) -> Any:
    """A decoded JSON value with :func:`clean_unicode` applied to every string and key.

    Raises ``ValueError`` when two keys of one object become the same key (``"a\\ud800"`` and
    ``"a\\udc00"`` both read ``"a\ufffd"``): one value would silently replace the other."""
    if isinstance(value, str):
        return clean_unicode(value)
    if isinstance(value, list):
        return [_clean_value(v) for v in value]
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            ck = clean_unicode(k)
            if ck in out:
                raise ValueError(f"two keys read {ck!r} once lone surrogates are replaced")
            out[ck] = _clean_value(v)
        return out
    return value


#: Deepest nesting accepted in a call (levels of objects/lists, the call object included): deeper
#: values decode, but every recursive step after parsing (json.dumps, validation, Parquet) could
#: then hit Python's recursion limit.
MAX_JSON_DEPTH = 64


def _too_deep(value: Any, limit: int = MAX_JSON_DEPTH) -> bool:
    """Is ``value`` nested more than ``limit`` levels deep? (iterative: safe on any depth)"""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, dict):
            children = list(v.values())
        elif isinstance(v, list):
            children = v
        else:
            continue
        if depth > limit:
            return True
        stack.extend((c, depth + 1) for c in children)
    return False


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


#: Strict JSON: Python's decoder otherwise accepts NaN / Infinity, which are not JSON.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def _decode_error(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return getattr(exc, "msg", None) or str(exc)


def _snippet(s: str) -> str:
    s = " ".join(s.split())
    return s if len(s) <= _SNIPPET else s[:_SNIPPET] + "..."


@dataclass
class ToolCallBlock:
    """One ``<tool_call>`` block found by :func:`scan_tool_calls`.

    ``start``/``end``: its span in the scanned (Unicode-cleaned) text, close tag included when
    there is one; ``raw``: that text; ``calls``/``errors``/``repairs``: as in
    :class:`ParsedOutput`, for this block; ``closed``: it ended with ``</tool_call>`` (False when
    the end of the text, the next opening tag or a ``boundary`` ended it first)."""

    start: int
    end: int
    raw: str = ""
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    repairs: list[str] = field(default_factory=list)
    closed: bool = False


@dataclass
class TextPart:
    """A piece of a scanned text, in order: ``kind`` is ``"text"`` (free text; ``value`` the str,
    not stripped), ``"block"`` (``value`` a :class:`ToolCallBlock`) or ``"skipped"`` (a block of
    one of the ``skip_tags``; ``value`` its raw text); ``start``/``end``: its span."""

    kind: str
    start: int
    end: int
    value: Any


def _openers(skip_tags: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(f"<{t}>") for t in (TOOL_CALL_OPEN[1:-1], *skip_tags)))


def _broken_end(text: str, pos: int, opener: re.Pattern[str],
                boundary: re.Pattern[str] | None) -> tuple[int, int, bool]:
    """Where a block that went wrong at ``pos`` ends: ``(content_end, block_end, closed)`` at the
    first of the next close tag, the next opening tag or ``boundary`` after ``pos``, else at the
    end of the text. A close tag is part of the block; an opening tag or boundary is not."""
    n = len(text)
    close = text.find(TOOL_CALL_CLOSE, pos)
    at = close if close >= 0 else n
    m = opener.search(text, pos)
    if m and m.start() < at:
        at = m.start()
    b = boundary.search(text, pos) if boundary is not None else None
    if b and b.start() < at:
        at = b.start()
    if close >= 0 and at == close:
        return close, close + len(TOOL_CALL_CLOSE), True
    return at, at, False


def _read_block(text: str, start: int, opener: re.Pattern[str], boundary: re.Pattern[str] | None) -> ToolCallBlock:
    """Read the block whose ``<tool_call>`` tag starts at ``start``: JSON values one after the
    other (whitespace between them; each read to its end with ``raw_decode``, so a ``</tool_call>``
    inside a JSON string is just text), then the close tag, or the end of the text, the next
    opening tag or a ``boundary`` (a missing close tag). Anything else is an error, and the block
    ends as :func:`_broken_end` says."""
    n = len(text)
    i = start + len(TOOL_CALL_OPEN)
    values: list[Any] = []
    errors: list[str] = []
    closed = False
    while True:
        while i < n and text[i] in _WHITESPACE:
            i += 1
        if text.startswith(TOOL_CALL_CLOSE, i):
            i += len(TOOL_CALL_CLOSE)
            closed = True
            break
        if i >= n or opener.match(text, i) or (boundary is not None and boundary.match(text, i)):
            break
        at = i
        try:
            value, i = _DECODER.raw_decode(text, at)
        except (ValueError, RecursionError) as exc:
            pos = getattr(exc, "pos", None)
            content_end, i, closed = _broken_end(text, max(pos if isinstance(pos, int) else at, at), opener, boundary)
            if values:
                errors.append(f"text after the tool call JSON inside <tool_call>: {_snippet(text[at:content_end])!r}")
            else:
                errors.append(f"tool call is not valid JSON: {_decode_error(exc)}")
            break
        values.append(value)
    block = ToolCallBlock(start=start, end=i, raw=text[start:i], closed=closed)
    if not values and not errors:
        errors.append("tool call is not valid JSON: empty <tool_call> block")
    for value in values:
        if _too_deep(value):
            block.errors.append(f"tool call JSON is nested deeper than {MAX_JSON_DEPTH} levels")
            continue
        items = value if isinstance(value, list) else [value]
        if not items:
            block.errors.append("tool call is an empty list")
        for it in items:
            _add_call(block, it)
    block.errors.extend(errors)
    return block


def _add_call(block: ToolCallBlock, item: Any) -> None:
    """Validate one decoded call item and add it (or an error) to ``block``."""
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        block.errors.append("tool call must be an object with a string 'name'")
        return
    name = item["name"]
    args = item.get("arguments", item.get("parameters", {}))
    if isinstance(args, str):  # OpenAI style: arguments as a JSON string
        try:
            args = _DECODER.decode(args) if args.strip() else {}
        except (ValueError, RecursionError) as exc:
            block.errors.append(f"arguments of {clean_unicode(name)!r} are not valid JSON: {_decode_error(exc)}")
            return
        if _too_deep(args, MAX_JSON_DEPTH - 1):  # the arguments object sits one level below the call
            block.errors.append(f"tool call JSON is nested deeper than {MAX_JSON_DEPTH} levels")
            return
    if not isinstance(args, dict):
        block.errors.append(f"arguments of {clean_unicode(name)!r} must be a JSON object")
        return
    if _has_surrogate(name) or _has_surrogate(args):
        try:
            name, args = clean_unicode(name), _clean_value(args)
        except ValueError as exc:  # keys that collide once cleaned: no argument is dropped silently
            block.errors.append(f"arguments of {clean_unicode(name)!r}: {exc}")
            return
        block.repairs.append(f"{SURROGATE_REPAIR} in the call of {name!r}")
    block.calls.append((name, args))


def scan_tool_calls(text: str, skip_tags: tuple[str, ...] = (),
                    boundary: re.Pattern[str] | None = None) -> list[TextPart]:
    """Split ``text`` into free text and Hermes ``<tool_call>`` blocks, in order (the scanner
    behind :func:`parse_tool_calls` and :func:`pipeline.rewards.compute_score`).

    Each block's JSON is read to its end (:func:`_read_block`); ``skip_tags`` (e.g.
    ``("tool_response",)``) name other blocks to pass over whole, to their own close tag (their
    content is never searched for tool calls; an opening tag with no close tag after it is free
    text, a mention like "I will read the <tool_response> after"); ``boundary`` (a compiled regex, e.g. the role
    lines of a decoded multi-turn response) also ends a block that lacks its close tag. The text
    is first passed through :func:`clean_unicode`, so spans refer to the cleaned text. Never
    raises on any ``str``."""
    text = clean_unicode(text)
    opener = _openers(tuple(skip_tags))
    last_close = {t: text.rfind(f"</{t}>") for t in skip_tags}  # one pass per tag, not per mention
    parts: list[TextPart] = []
    pos = search = 0
    while True:
        m = opener.search(text, search)
        if m is None:
            break
        if m.group() != TOOL_CALL_OPEN and last_close[m.group()[1:-1]] < m.end():
            search = m.end()  # "I will read the <tool_response> after.": a mention, not a block
            continue
        if m.start() > pos:
            parts.append(TextPart("text", pos, m.start(), text[pos:m.start()]))
        if m.group() == TOOL_CALL_OPEN:
            block = _read_block(text, m.start(), opener, boundary)
            parts.append(TextPart("block", block.start, block.end, block))
            pos = block.end
        else:
            close = f"</{m.group()[1:]}"
            end = text.find(close, m.end()) + len(close)
            parts.append(TextPart("skipped", m.start(), end, text[m.start():end]))
            pos = end
        search = pos
    if pos < len(text):
        parts.append(TextPart("text", pos, len(text), text[pos:]))
    return parts


TOOL_RESPONSE_TAG = "tool_response"
_BARE_SEP = " \t\r\n;"
_LINE_BRACE_RE = re.compile(r"(?m)^[ \t]*\{")


def wrap_bare_calls(text: str) -> str:
    """``text`` with every bare JSON tool call that starts a line of its free text wrapped in
    ``<tool_call>`` tags (:func:`split_bare_calls`); lines inside ``<tool_call>`` /
    ``<tool_response>`` blocks are left alone.

    Chat templates such as Llama 3.1-3.3's ask for a call as a bare JSON object
    (``{"name": ..., "parameters": {...}}``, several separated by ``;`` or line breaks; vLLM's
    ``llama3_json`` tool parser reads the same). The rollout harness (``tool_format=
    "chat_template"``) and the reward (:func:`pipeline.rewards.parse_response`, agent turns) both
    read calls through it, so they agree. A text without such a line comes back unchanged. Never
    raises on a ``str``."""
    if "{" not in text:
        return text
    out: list[str] = []
    rest = text
    while rest:
        line = _LINE_BRACE_RE.search(rest)
        first = next((p for p in scan_tool_calls(rest, skip_tags=(TOOL_RESPONSE_TAG,)) if p.kind != "text"), None)
        if line is None and first is None:
            out.append(rest)
            break
        if line is not None and (first is None or line.start() < first.start):
            head, after = split_bare_calls(rest[line.start():])
            if head:  # a bare call at a line start (its strings may hold "<tool_call>": read as JSON)
                out.append(rest[:line.start()] + head)
                rest = after
            else:
                out.append(rest[:line.end()])
                rest = rest[line.end():]
            continue
        out.append(rest[:first.end])  # a tagged block (or a made-up tool response): as written
        rest = rest[first.end:]
    return "".join(out)


def split_bare_calls(text: str) -> tuple[str, str]:
    """The bare JSON calls ``text`` starts with, wrapped: ``(the leading calls in tags, the
    rest)``, or ``("", text)`` when it does not start (after whitespace) with one. Each object
    that decodes to its end (``json.JSONDecoder.raw_decode``, so tags or braces inside its
    strings are just text) as an object with a string ``name`` and ``arguments`` or
    ``parameters`` is a call; ``;`` or whitespace may stand between them."""
    n = len(text)
    i = n - len(text.lstrip())
    spans: list[tuple[int, int]] = []
    j = i
    while True:
        k = j
        while k < n and text[k] in _BARE_SEP:
            k += 1
        if k >= n or text[k] != "{":
            break
        try:
            value, end = _DECODER.raw_decode(text, k)
        except (ValueError, RecursionError):
            break
        if not (isinstance(value, dict) and isinstance(value.get("name"), str)
                and ("arguments" in value or "parameters" in value)):
            break
        spans.append((k, end))
        j = end
    if not spans:
        return "", text
    blocks = "\n".join(TOOL_CALL_OPEN + text[a:b] + TOOL_CALL_CLOSE for a, b in spans)
    rest = text[j:].lstrip(_BARE_SEP)
    return text[:i] + blocks, ("\n" + rest if rest else "")


def parse_tool_calls(text: str) -> ParsedOutput:
    """Parse Hermes-style tool calls from generated ``text`` (one agent turn).

    Format (NousResearch Hermes-2-Pro function calling, also Qwen2.5/Qwen3): each call is a JSON
    object ``{"name": str, "arguments": object}`` inside ``<tool_call>...</tool_call>``;
    ``arguments`` may also be a JSON string (OpenAI style) or be named ``parameters``.

    How a block is read:

    * the JSON value after ``<tool_call>`` (and whitespace) is decoded to its end with
      ``json.JSONDecoder.raw_decode``, so a literal ``</tool_call>`` inside a JSON string does
      not end the block; then the close tag is expected. A missing close tag is accepted at the
      end of the text (backends stop generating at ``</tool_call>`` and may drop it) and before
      the next ``<tool_call>``;
    * several JSON values in one block (objects back to back, or a list) are all returned, in
      order; anything else left inside the block (text after the JSON) is an entry of
      ``errors`` (the calls decoded before it are still returned). Nothing is dropped silently;
    * a block that is not valid JSON (including ``NaN``/``Infinity``), or nested deeper than
      :data:`MAX_JSON_DEPTH` levels, is an ``errors`` entry, never an exception; the free text
      outside blocks is kept in ``text``;
    * a ``<tool_response>...</tool_response>`` block the model wrote itself is free text: the tool
      calls inside it are not run (the reward, :func:`pipeline.rewards.parse_response`, skips such
      blocks too, as it must for the real tool results inline in a completion); an opening tag
      without its close tag is just text;
    * lone UTF-16 surrogates (from ``\\ud83d`` escapes in the JSON, or in the text itself) are
      replaced by U+FFFD (:func:`clean_unicode`) in names, arguments and ``text``, and noted in
      ``repairs``, so nothing downstream (UTF-8 JSONL, Parquet, dedupe) can hit a
      UnicodeEncodeError.

    Why not vLLM's Hermes parser (``vllm/tool_parsers/hermes_tool_parser.py``,
    ``Hermes2ProToolParser.extract_tool_calls``): it cuts each block with the regex
    ``<tool_call>(.*?)</tool_call>|<tool_call>(.*)``, i.e. at the first literal close tag (the
    same bug this parser fixes), ``json.loads`` the block (two objects in one block raise and
    *all* calls of the turn are dropped, the whole output returned as content), keeps only the
    text before the first block as content, passes lone surrogates through, and needs vLLM and a
    tokenizer to run. On well-formed blocks both give the same calls (tests compare them when
    vLLM imports).

    Returns a :class:`ParsedOutput`; never raises.
    """
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    out = ParsedOutput(text="", had_tag=TOOL_CALL_OPEN in text)
    if _SURROGATE_RE.search(text):
        out.repairs.append(f"{SURROGATE_REPAIR} in the text")
    pieces = []
    for part in scan_tool_calls(text, skip_tags=(TOOL_RESPONSE_TAG,)):
        if part.kind in ("text", "skipped"):  # a made-up <tool_response> is text, its calls never run
            pieces.append(part.value)
        elif part.kind == "block":
            out.calls.extend(part.value.calls)
            out.errors.extend(part.value.errors)
            out.repairs.extend(part.value.repairs)
    out.text = "".join(pieces).strip()
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
