"""Grammar-constrained agent turns: every tool call valid by construction.

An agent turn is either a free-text reply to the customer or one tool call in the harness's
Hermes format (:mod:`pipeline.rollout.prompting`)::

    <tool_call>
    {"name": "<one of the task's tools>", "arguments": {<exactly that tool's JSON schema>}}
    </tool_call>

The constraint is an XGrammar *structural tag* (Dong et al., "XGrammar: Flexible and Efficient
Structured Generation Engine for Large Language Models", 2024; format:
https://xgrammar.mlc.ai/docs/tutorials/structural_tag.html), the structured-generation engine that
vLLM uses by default. The same JSON text goes to both backends: vLLM compiles it through
``SamplingParams(structured_outputs=StructuredOutputsParams(structural_tag=...))`` and the
transformers backend through ``xgrammar.GrammarCompiler.compile_structural_tag`` plus a logits
processor (:mod:`pipeline.rollout.backends.transformers_backend`), so a turn means the same on CPU
and on GPU. A vLLM server behind the OpenAI-compatible backend gets it as
``structured_outputs.structural_tag``.

Arguments follow the tool's JSON schema *exactly*: required keys, types, enums, and no key the
schema does not declare (``additionalProperties: false`` is imposed on every object that does not
say otherwise). Optionally (``grounded=True``), identifier-typed arguments (a property named
``id``, ``*_id`` or ``*_ids``) may only take strings the agent has already seen in the
conversation (customer turns, tool results): *grounded decoding*, the decoding-time twin of the
verifier's ``TRAJ_UNGROUNDED_ARGUMENT`` check.

Turn kinds (:data:`TURN_KINDS`): ``any`` (either plain text or exactly one call), ``call`` (exactly
one call), ``text`` (plain text only; ``<tool_call>`` cannot appear). Text is bounded by
``text_tokens`` tokens (``any_text.max_tokens``), so a turn's token budget can fit the longest
call without letting replies run on.
"""
from __future__ import annotations

import copy
import json
import re
from typing import Any, Iterable

from pipeline.rollout.users import HARNESS_NOTE_MARK

TURN_KINDS = ("any", "call", "text")
CALL_OPEN = "<tool_call>"
CALL_CLOSE = "</tool_call>"
#: what a text reply to a customer may not contain: a call opening (a call is its own turn),
#: anything shaped like a tool tag (only the sandbox writes tool responses; small models like to
#: echo the last one or invent variants: ``<tool_response_json>``, ``<tool-call>``, ``<tool>``), or
#: a code fence (the bundled model answered customers with Python snippets)
TEXT_EXCLUDES = ("<tool", "</tool", "```")
CALL_END = "}\n" + CALL_CLOSE
#: identifier-typed argument names (grounded decoding): ``id``, ``user_id``, ``item_ids``, ...
ID_KEY_RE = re.compile(r"(^|_)ids?$")
#: identifier-like tokens in conversation text: 3+ characters of letters, digits, ``_``/``-``
#: (optionally after ``#``), with at least one digit (``rebecca_harris_7777``, ``9QVD4Q``,
#: ``credit_card_4708194``, ``#W2378156``, ``HAT170``)
ID_TOKEN_RE = re.compile(r"#?[A-Za-z0-9][A-Za-z0-9_\-]{2,}")
#: a code in capitals without a digit (an airline record locator ``XFADMP``): 5+ capital letters
#: (words a customer shouts are rarer than codes and only widen the candidate set)
CAPS_CODE_RE = re.compile(r"^[A-Z]{5,}$")


def call_begin(name: str) -> str:
    """The fixed text that opens a call of tool ``name`` (up to the arguments object)."""
    return CALL_OPEN + "\n" + '{"name": ' + json.dumps(name) + ', "arguments": '


#: longest free string argument under the grammar (characters): an unbounded free-text argument
#: (a transfer summary) otherwise rambles past the turn's token budget and the call is cut
MAX_FREE_STRING = 160
#: most items of an array argument that sets no ``maxItems``: the bundled model otherwise appends
#: flight or passenger objects until the turn's token budget (thousands of tokens) runs out
MAX_ARRAY_ITEMS = 8


def strict_schema(schema: dict[str, Any] | None) -> dict[str, Any]:
    """A deep copy of a JSON schema with ``additionalProperties: false`` on every object schema
    that does not set it (so the arguments match the schema exactly), ``maxLength``
    :data:`MAX_FREE_STRING` on free strings and ``maxItems`` :data:`MAX_ARRAY_ITEMS` on arrays
    that set no bound; ``{}``/None becomes the schema of an empty object."""
    if not schema:
        return {"type": "object", "properties": {}, "additionalProperties": False}
    out = copy.deepcopy(schema)

    def walk(s: Any) -> None:
        if isinstance(s, dict):
            if (s.get("type") == "object" or "properties" in s) and "additionalProperties" not in s:
                s["additionalProperties"] = False
            if (s.get("type") == "string" and not {"enum", "const", "pattern", "format", "maxLength"} & set(s)):
                s["maxLength"] = MAX_FREE_STRING
            if s.get("type") == "array" and "maxItems" not in s:
                s["maxItems"] = MAX_ARRAY_ITEMS
            for k, v in s.items():
                if k in ("properties", "$defs", "definitions") and isinstance(v, dict):
                    for sub in v.values():
                        walk(sub)
                elif k in ("items", "additionalProperties", "not"):
                    walk(v)
                elif k in ("anyOf", "oneOf", "allOf", "prefixItems") and isinstance(v, list):
                    for sub in v:
                        walk(sub)
    walk(out)
    return out


#: harness notes to the agent (``[format error] ...``): role ``user`` but not the customer; they
#: may echo the agent's own broken call
HARNESS_NOTE_PREFIX = HARNESS_NOTE_MARK
#: tool results (lower-cased prefixes) of calls that did not run and are to be retried as they were:
#: an injected timeout / 503, or arguments re-typed on the way (:mod:`pipeline.faults`; under the
#: grammar a call's arguments always match its schema); they say nothing about its identifiers
RETRY_ERRORS = ("error: timeouterror", "error: 503 service unavailable", "error: invalid arguments")


def _id_tokens(text: str) -> list[str]:
    out = []
    for tok in ID_TOKEN_RE.findall(text):
        tok = tok.strip("-_")
        if len(tok) >= 3 and (any(ch.isdigit() for ch in tok) or CAPS_CODE_RE.match(tok)):
            out.append(tok)
    return out


def seen_identifiers(messages: Iterable[dict[str, Any]]) -> list[str]:
    """Identifier-like strings (:data:`ID_TOKEN_RE` with at least one digit, or a capitals code
    :data:`CAPS_CODE_RE`) the agent has seen in
    customer turns and tool results, in first-seen order. Not sources: the system prompt (the
    policy), the agent's own messages and call arguments (a guess written in a free-text argument
    is no more grounded than the call), harness notes (:data:`HARNESS_NOTE_PREFIX`); as the
    verifier's ``TRAJ_UNGROUNDED_ARGUMENT`` evidence."""
    seen: dict[str, None] = {}
    for m in messages:
        role, text = m.get("role"), m.get("content") or ""
        if not isinstance(text, str) or role not in ("user", "tool"):
            continue
        if role == "user" and text.startswith(HARNESS_NOTE_PREFIX):
            continue
        for tok in _id_tokens(text):
            seen.setdefault(tok, None)
    return list(seen)


def failed_identifiers(messages: list[dict[str, Any]]) -> dict[str, set[str]]:
    """Per tool name, the identifier-like argument values of its calls whose result was an error
    (a tool message starting with ``Error``), from OpenAI-format ``messages``: the ids the error
    message names, else the call's only id; a failed call with several ids, none named, drops
    none (the error may be about any of them, e.g. a declined payment). Errors of calls to be
    retried as they were (:data:`RETRY_ERRORS`) do not count."""
    by_id: dict[str, tuple[str, str]] = {}
    out: dict[str, set[str]] = {}
    for m in messages:
        if m.get("role") == "assistant":
            for tc in m.get("tool_calls") or []:
                fn = tc.get("function") or {}
                by_id[tc.get("id", "")] = (fn.get("name", ""), str(fn.get("arguments") or ""))
        elif m.get("role") == "tool":
            content = (m.get("content") or "").lstrip().lower()
            if not content.startswith("error") or content.startswith(RETRY_ERRORS):
                continue
            name, args = by_id.get(m.get("tool_call_id", ""), ("", ""))
            ids = set(_id_tokens(args))
            named = {i for i in ids if i.lower() in content}
            # the error names the culprit, or there is only one; a failed call with several ids
            # that names none (a payment declined) says nothing about which to drop
            bad = named or (ids if len(ids) == 1 else set())
            if name and bad:
                out.setdefault(name, set()).update(bad)
    return out


def _key_stem(key: str) -> str:
    k = key.lower()
    for suffix in ("_ids", "_id"):
        if k.endswith(suffix):
            k = k[: -len(suffix)]
            break
    return k[:-1] if len(k) > 1 and k.endswith("s") else k


def keys_related(a: str, b: str) -> bool:
    """Whether two JSON keys name the same kind of identifier: equal stems after dropping
    ``_id``/``_ids`` and a plural ``s`` (``reservation_id`` ~ ``reservations``), or one stem is a
    ``_``-separated extension of the other (``payment_id`` ~ ``payment_methods``,
    ``new_item_ids`` ~ ``item_id``). A bare ``id`` is related to nothing (it names no kind)."""
    x, y = _key_stem(a), _key_stem(b)
    if not x or not y or "id" in (x, y):
        return False
    return x == y or x.startswith(y + "_") or y.startswith(x + "_") or x.endswith("_" + y) or y.endswith("_" + x)


def _typed_add(typed: dict[str, dict[str, None]], key: str | None, value: Any) -> None:
    if key and isinstance(value, str) and 0 < len(value) <= 64 and not any(ch.isspace() for ch in value):
        typed.setdefault(key, {})[value] = None


def _typed_walk(typed: dict[str, dict[str, None]], obj: Any, parent: str | None) -> None:
    if isinstance(obj, dict):
        # {"credit_card_1": {...}, "gift_card_2": {...}}: the keys are ids of the parent's kind
        keyed = bool(obj) and parent is not None and all(isinstance(v, dict) for v in obj.values())
        for k, v in obj.items():
            if keyed:
                _typed_add(typed, parent, k)
            key = parent if keyed else k
            if isinstance(v, str):
                _typed_add(typed, k, v)
                if k == "id":
                    _typed_add(typed, parent, v)
            else:
                _typed_walk(typed, v, key)
    elif isinstance(obj, list):
        for x in obj:
            if isinstance(x, str):
                _typed_add(typed, parent, x)
            else:
                _typed_walk(typed, x, parent)


def typed_identifiers(messages: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Strings the agent has seen *under a key*, by key: the string leaves of JSON tool results
    (a list of strings or a dict keyed by ids counts under its parent key: ``"reservations":
    ["XFADMP"]``, ``"payment_methods": {"gift_card_7": {...}}``) and the arguments of calls that
    succeeded. Strings with white space or over 64 characters are left out. Failed calls and text
    results add nothing."""
    by_id: dict[str, dict[str, Any]] = {}
    typed: dict[str, dict[str, None]] = {}
    for m in messages:
        if m.get("role") == "assistant":
            for tc in m.get("tool_calls") or []:
                try:
                    args = json.loads((tc.get("function") or {}).get("arguments") or "{}")
                except (TypeError, ValueError):
                    args = None
                by_id[tc.get("id", "")] = args if isinstance(args, dict) else {}
        elif m.get("role") == "tool":
            content = m.get("content") or ""
            if not isinstance(content, str) or content.lstrip().lower().startswith("error"):
                continue
            _typed_walk(typed, by_id.get(m.get("tool_call_id", ""), {}), None)
            try:
                _typed_walk(typed, json.loads(content), None)
            except ValueError:
                pass
    return {k: list(v) for k, v in typed.items()}


class GroundingPool:
    """Grounded-decoding candidates for identifier-typed arguments, from one episode's messages.

    For argument ``key`` of tool ``name`` (:meth:`for_arg`), in order: the strings seen under a
    related key (:func:`keys_related`, :func:`typed_identifiers`), then identifiers the customer
    wrote (:func:`seen_identifiers`) that were not seen under an unrelated key (a user id is no
    reservation id, a birth date or zip code no id at all). When both are empty, every seen
    identifier not typed otherwise, else every seen identifier (the behaviour without keys).
    Identifiers of the tool's own failed calls (:func:`failed_identifiers`) are left out.
    Every candidate is grounded evidence for the verifier's ``TRAJ_UNGROUNDED_ARGUMENT`` check."""

    def __init__(self, messages: list[dict[str, Any]]):
        self.seen = seen_identifiers(messages)
        self.customer = seen_identifiers([m for m in messages if m.get("role") == "user"])
        self.typed = typed_identifiers(messages)
        self.failed = failed_identifiers(messages)

    def for_arg(self, name: str, key: str) -> list[str]:
        """Candidate strings for argument ``key`` (a property name) of tool ``name``."""
        affine: dict[str, None] = {}
        other: set[str] = set()
        for k, vals in self.typed.items():
            if keys_related(k, key):
                affine.update(dict.fromkeys(vals))
            else:
                other.update(vals)
        other -= set(affine)
        out = dict(affine)
        out.update(dict.fromkeys(c for c in self.customer if c not in other))
        if not out:
            out = dict.fromkeys(c for c in self.seen if c not in other) or dict.fromkeys(self.seen)
        bad = self.failed.get(name, set())
        return [c for c in out if c not in bad]





def _ground(schema: dict[str, Any], candidates: Any, tool: str = "") -> tuple[dict[str, Any], bool]:
    """Restrict identifier-typed string properties (recursively) to ``candidates`` (a list for
    every key, or a :class:`GroundingPool` asked per ``tool`` and key); returns the new schema and
    False when a *required* identifier has no candidate (the tool cannot be called with grounded
    arguments yet). An optional identifier without a candidate is left out (with
    ``additionalProperties: false`` it cannot be written)."""
    ok = True

    def restrict(prop: dict[str, Any], key: str) -> dict[str, Any] | None:
        if prop.get("type") != "string" or "enum" in prop or "const" in prop:
            return prop
        pool = candidates.for_arg(tool, key) if isinstance(candidates, GroundingPool) else candidates
        pat = prop.get("pattern")
        vals = [c for c in pool if not pat or re.search(pat, c)]
        if not vals:
            return None
        out = {k: v for k, v in prop.items() if k not in ("pattern", "minLength", "maxLength", "format")}
        out["enum"] = vals
        return out

    def walk(s: dict[str, Any]) -> dict[str, Any]:
        nonlocal ok
        if not isinstance(s, dict):
            return s
        s = dict(s)
        props = s.get("properties")
        if isinstance(props, dict):
            req = set(s.get("required") or [])
            new = {}
            for k, p in props.items():
                if ID_KEY_RE.search(k) and isinstance(p, dict):
                    if p.get("type") == "array" and isinstance(p.get("items"), dict):
                        items = restrict(p["items"], k)
                        if items is None:
                            if k in req:
                                ok = False
                            continue
                        new[k] = {**p, "items": items}
                        continue
                    r = restrict(p, k)
                    if r is None:
                        if k in req:
                            ok = False
                        continue
                    new[k] = r
                else:
                    new[k] = walk(p) if isinstance(p, dict) else p
            s["properties"] = new
        if isinstance(s.get("items"), dict):
            s["items"] = walk(s["items"])
        return s

    return walk(schema), ok


def tool_tag(tool: dict[str, Any], candidates: Any = None) -> dict[str, Any] | None:
    """The structural-tag ``tag`` for one OpenAI tool schema: begin text with the name, the
    arguments as a strict JSON schema, the closing text. With ``candidates`` (grounded decoding),
    identifier-typed arguments are restricted to them: a list (every key), a dict mapping a tool
    name, or ``"*"`` for the rest, to its own list, or a :class:`GroundingPool` (per tool and
    key); returns None when a required identifier has no candidate."""
    fn = tool.get("function", tool)
    schema = strict_schema(fn.get("parameters"))
    if isinstance(candidates, dict):
        candidates = candidates.get(fn["name"], candidates.get("*", []))
    if candidates is not None:
        schema, ok = _ground(schema, candidates, fn["name"])
        if not ok:
            return None
    # no ``excludes`` on argument strings: it made compiling 35x slower (7 s for the airline tools);
    # a grammar-constrained turn ends where its grammar ends, not at a stop string, so a literal
    # ``</tool_call>`` inside an argument string does not cut the call
    # at most one whitespace character in a row: a small model under a JSON grammar otherwise
    # pads with spaces and newlines until the token budget runs out
    return {"type": "tag", "begin": call_begin(fn["name"]),
            "content": {"type": "json_schema", "json_schema": schema, "max_whitespace_cnt": 1}, "end": CALL_END}


def turn_format(tools: list[dict[str, Any]], kind: str = "any", only: Iterable[str] | None = None,
                candidates: Any = None, text_tokens: int | None = None) -> dict[str, Any]:
    """The structural-tag format of one agent turn.

    ``kind``: ``any`` | ``call`` | ``text`` (:data:`TURN_KINDS`); ``only``: tool names admitted
    (None: all of ``tools``); ``candidates``: grounded decoding (see :func:`tool_tag`);
    ``text_tokens``: most tokens of a text reply (None: unbounded). When no tool is admissible,
    ``call`` and ``any`` turns degrade to ``text``. Raises ValueError for an unknown kind."""
    if kind not in TURN_KINDS:
        raise ValueError(f"unknown turn kind {kind!r}; choose one of {TURN_KINDS}")
    allowed = set(only) if only is not None else None
    tags = []
    if kind != "text":
        for t in tools:
            name = t.get("function", t)["name"]
            if allowed is not None and name not in allowed:
                continue
            tag = tool_tag(t, candidates)
            if tag is not None:
                tags.append(tag)
    text: dict[str, Any] = {"type": "any_text", "excludes": list(TEXT_EXCLUDES)}
    if text_tokens:
        text["max_tokens"] = int(text_tokens)
    if not tags:
        return text
    if kind == "call":
        return tags[0] if len(tags) == 1 else {"type": "or", "elements": tags}
    return {"type": "or", "elements": tags + [text]}


def structural_tag(fmt: dict[str, Any]) -> str:
    """The structural-tag JSON text both backends compile (``{"type": "structural_tag",
    "format": ...}``). Keys keep their order: XGrammar writes an object's properties in the order
    of its schema's ``properties``, so sorting them would force alphabetical argument order
    instead of the order the tool signature (and the prompt) shows."""
    return json.dumps({"type": "structural_tag", "format": fmt}, ensure_ascii=False)


def turn_grammar(tools: list[dict[str, Any]], kind: str = "any", only: Iterable[str] | None = None,
                 messages: list[dict[str, Any]] | None = None, grounded: bool = False,
                 text_tokens: int | None = None) -> str:
    """:func:`structural_tag` of :func:`turn_format`; with ``grounded``, identifier candidates come
    from ``messages`` per tool and argument (:class:`GroundingPool`: seen under a related key, or
    said by the customer), less the identifiers of that tool's calls that returned an error
    (:func:`failed_identifiers`): a call that failed is not offered again."""
    cands = GroundingPool(messages or []) if grounded else None
    return structural_tag(turn_format(tools, kind, only, cands, text_tokens))


def grammar_kind(structural_tag_json: str) -> str:
    """The turn kind (``any`` | ``call`` | ``text``) of a grammar made by :func:`turn_grammar`."""
    fmt = json.loads(structural_tag_json)["format"]
    if fmt["type"] == "any_text":
        return "text"
    if fmt["type"] == "or" and any(e.get("type") == "any_text" for e in fmt["elements"]):
        return "any"
    return "call"


def _example_value(schema: dict[str, Any], depth: int = 0) -> Any:
    """A large-ish valid value of ``schema`` (for sizing a turn's token budget)."""
    if "enum" in schema:
        return max(schema["enum"], key=lambda v: len(json.dumps(v)))
    t = schema.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "string")
    if t == "object" or "properties" in schema:
        return {k: _example_value(v, depth + 1) for k, v in (schema.get("properties") or {}).items()}
    if t == "array":
        return [_example_value(schema.get("items") or {}, depth + 1) for _ in range(2)]
    if t in ("integer", "number"):
        return 12345.67 if t == "number" else 1234
    if t == "boolean":
        return False
    # a bounded string: one token per character at worst (x2 for the chars_per_token division)
    return "x" * (2 * int(schema["maxLength"])) if "maxLength" in schema else "x" * 24


def longest_call_chars(tools: list[dict[str, Any]]) -> int:
    """Characters of the longest call of ``tools`` with every argument present (strings of 24
    characters, arrays of two items): what one turn's budget must fit."""
    best = 0
    for t in tools:
        fn = t.get("function", t)
        args = _example_value(strict_schema(fn.get("parameters")))
        best = max(best, len(call_begin(fn["name"]) + json.dumps(args) + CALL_END))
    return best


def turn_token_budget(tools: list[dict[str, Any]], floor: int, chars_per_token: float = 2.0) -> int:
    """Max new tokens of an agent turn: at least ``floor``, and enough for the longest valid call
    of ``tools`` (:func:`longest_call_chars` at ``chars_per_token``, conservative for ids and
    numbers, plus 8 tokens of slack)."""
    return max(int(floor), int(longest_call_chars(tools) / chars_per_token) + 8)
