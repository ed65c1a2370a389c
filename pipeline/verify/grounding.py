"""Grounded arguments: every literal in a tool call must come from what the agent had seen.

``TRAJ_UNGROUNDED_ARGUMENT`` (a path check, called by ``trajectory.verify_trajectory``): each
leaf value of a call's arguments must be *grounded* - visible to the agent before the assistant
message that makes the call, or derived from visible values by a rule the domain declares.
This rejects lucky guesses and values taken from a hint (help text derived from the hidden
reference, shown to a teacher during generation only) rather than from the conversation: a
payment id the agent never looked up is ungrounded even when it is the right one.

**Evidence** (:class:`Evidence`) before a call is the text of every earlier *non-agent* message:
the system prompt, the customer's turns (not the harness's ``[format error]`` notes) and the tool
results, plus the arguments of earlier calls once they were found grounded. The agent's own free
text is not evidence: an id the agent writes in a message before using it is no more grounded
than the call itself (otherwise "I'll use credit_card_123" would launder a hinted value).

**Leaves** (the arguments walked as dicts and lists; a path reads ``passengers[0].first_name``):

* booleans and null; a value listed in the schema's ``enum`` at that path; the empty string;
* free-text arguments the domain declares (``free_text_arguments``: tool -> paths, list indices
  written ``[]``, a path also covering everything below it, e.g. ``{"think": {"thought"}}``) are
  exempt (default: none);
* a string is grounded when it occurs, compared case-insensitively with runs of white space
  collapsed, in the evidence as a whole token sequence (no letter, digit or ``_`` right before or
  after it: ``"1"`` does not match inside ``"HAT1"`` or ``"10"``, ``"a"`` not inside ``"cat"``), or
  equals a string leaf of an earlier JSON tool result. Case is ignored everywhere because it
  carries no information a guess could exploit (a wrongly cased id also fails the state check).
  An ISO date ``YYYY-MM-DD`` is also grounded by a mention of the same day in words
  (``May 18``, ``18 May``, ``May 18th, 2024``; a stated year must match) or as ``5/18[/2024]``.
  A string that is an arithmetic expression (digits, ``+ - * / ( ) .``; e.g. ``calculate``'s
  ``expression``) is grounded when every number in it is;
* a number is grounded when the same value (rounded to cents) occurs in the evidence: a number in
  text (``$1,786.00``, ``1786``, ``1786.0``; digits inside ids, ISO dates and clock times do not
  count), a numeric leaf of a JSON tool result, or a count the customer says in words (``zero``
  .. ``twenty``; ``no`` / ``none`` as 0);
* any value the domain derives for this call (:meth:`derived_values` hook:
  ``derived_values(tool_name, arguments, evidence) -> iterable of values``, e.g. the airline's
  new baggage total = the reservation's current total + the bags the customer asks to add).

One violation per ungrounded leaf: ``{"code": "TRAJ_UNGROUNDED_ARGUMENT", "step": <index into
Trajectory.tool_calls>, "path": <argument path>, "detail"}``. A call the messages do not show
(records that keep only the calls) is checked against all non-agent messages, with the task's
opening ``instruction`` as the customer's turn when no customer message is there.
"""
from __future__ import annotations

import datetime as _dt
import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator

from . import paths

CODE = "TRAJ_UNGROUNDED_ARGUMENT"

#: Count words a customer may use instead of digits.
NUMBER_WORDS: dict[str, int] = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty".split())}
NUMBER_WORDS.update({"no": 0, "none": 0})
_WORD_RE = re.compile(r"\b(" + "|".join(NUMBER_WORDS) + r")\b", re.I)
#: ISO dates and clock times: their digits are not amounts.
_DATE_TIME_RE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?)?|\b\d{1,2}:\d{2}(?::\d{2})?")
_NUMBER_RE = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?!\w)")
_ISO_DATE_RE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_EXPRESSION_RE = re.compile(r"[\d\s.+\-*/()]*\d[\d\s.+\-*/()]*")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
           "october", "november", "december")
_MONTH_ALT = "|".join(f"{m[:3]}(?:{m[3:]})?" if len(m) > 3 else m for m in _MONTHS) + "|sept"
_MONTH_DAY_RE = re.compile(rf"\b({_MONTH_ALT})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(\d{{4}})\b)?", re.I)
_DAY_MONTH_RE = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_ALT})\b\.?(?:,?\s+(\d{{4}})\b)?", re.I)
_SLASH_DATE_RE = re.compile(r"(?<![\w/])(\d{1,2})/(\d{1,2})(?:/(\d{4}|\d{2}))?(?![\w/])")


def _norm(s: str) -> str:
    return " ".join(s.casefold().split())


def _num_key(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    try:
        return round(float(x), 2)
    except (OverflowError, ValueError):
        return None


def _month(name: str) -> int:
    n = name.casefold().rstrip(".")
    return 9 if n == "sept" else next(i + 1 for i, m in enumerate(_MONTHS) if m.startswith(n[:3]))


def numbers_in_text(text: str) -> set[float]:
    """Numbers written in ``text`` (``$1,786.00`` -> 1786.0), rounded to cents; digits inside
    words or ids (``HAT170``, ``gift_card_123``), ISO dates and clock times are skipped."""
    out: set[float] = set()
    for m in _NUMBER_RE.finditer(_DATE_TIME_RE.sub(" ", text)):
        out.add(round(float(m.group(1).replace(",", "") + (m.group(2) or "")), 2))
    return out


def dates_in_text(text: str) -> set[tuple[int, int, int | None]]:
    """(month, day, year or None) of every day named in ``text`` in words or as ``m/d[/y]``."""
    out: set[tuple[int, int, int | None]] = set()
    for m in _MONTH_DAY_RE.finditer(text):
        out.add((_month(m.group(1)), int(m.group(2)), int(m.group(3)) if m.group(3) else None))
    for m in _DAY_MONTH_RE.finditer(text):
        out.add((_month(m.group(2)), int(m.group(1)), int(m.group(3)) if m.group(3) else None))
    for m in _SLASH_DATE_RE.finditer(text):
        y = m.group(3)
        out.add((int(m.group(1)), int(m.group(2)), (int(y) + 2000 if len(y) == 2 else int(y)) if y else None))
    return out


def _leaves(obj: Any) -> Iterator[Any]:
    if isinstance(obj, dict):
        for v in obj.values():
            yield from _leaves(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _leaves(v)
    else:
        yield obj


@dataclass
class ToolResult:
    """One earlier tool result the agent saw: the call's ``name`` and ``arguments``, the result
    text ``content`` and ``data``, its JSON value (None when the text is not JSON, e.g. an
    ``"Error: ..."`` result)."""

    name: str
    arguments: dict[str, Any]
    content: str
    data: Any = None


@dataclass
class Evidence:
    """What the agent had seen before one call (see the module docstring): ``texts`` (every
    visible non-agent message text, in order), ``customer_texts`` (the customer's turns) and
    ``customer_numbers`` (the numbers and count words in them), ``results`` (earlier tool
    results), and the lookup sets built from them (``numbers``, ``strings``, ``dates``)."""

    texts: list[str] = field(default_factory=list)
    customer_texts: list[str] = field(default_factory=list)
    customer_numbers: set[float] = field(default_factory=set)
    results: list[ToolResult] = field(default_factory=list)
    numbers: set[float] = field(default_factory=set)
    strings: set[str] = field(default_factory=set)
    dates: set[tuple[int, int, int | None]] = field(default_factory=set)
    _hay: list[str] = field(default_factory=list)

    def add_text(self, text: str, customer: bool = False) -> None:
        """A visible message text: its tokens, numbers and named days become evidence (and, for a
        customer turn, its count words)."""
        if not text:
            return
        self.texts.append(text)
        self._hay.append(_norm(text))
        self.numbers |= numbers_in_text(text)
        self.dates |= dates_in_text(text)
        if customer:
            self.customer_texts.append(text)
            said = numbers_in_text(text) | {float(NUMBER_WORDS[w.casefold()]) for w in _WORD_RE.findall(text)}
            self.customer_numbers |= said
            self.numbers |= said

    def add_values(self, obj: Any) -> None:
        """Every string and number leaf of ``obj`` (a JSON value) as exact evidence."""
        for v in _leaves(obj):
            k = _num_key(v)
            if k is not None:
                self.numbers.add(k)
            elif isinstance(v, str) and v:
                self.strings.add(_norm(v))

    def add_result(self, name: str, arguments: dict[str, Any], content: str) -> None:
        """A tool result: its text, and its JSON leaves when it parses."""
        try:
            data = json.loads(content)
        except (TypeError, ValueError):
            data = None
        self.results.append(ToolResult(name, arguments, content or "", data))
        self.add_text(content or "")
        if data is not None:
            self.add_values(data)

    def seen_string(self, s: str) -> bool:
        """Does ``s`` occur as a whole token sequence (case-insensitive) in the evidence?"""
        n = _norm(s)
        if not n or n in self.strings:
            return True
        pat = re.compile(r"(?<!\w)" + re.escape(n) + r"(?!\w)")
        return any(pat.search(h) for h in self._hay)

    def seen_number(self, x: Any) -> bool:
        """Has the number ``x`` (rounded to cents) been seen?"""
        k = _num_key(x)
        return k is not None and k in self.numbers

    def seen_date(self, iso: str) -> bool:
        """Is the ISO date ``iso`` named in the evidence, as ISO text or as a day in words?"""
        m = _ISO_DATE_RE.fullmatch(iso)
        if not m:
            return False
        y, mo, d = (int(g) for g in m.groups())
        try:
            _dt.date(y, mo, d)
        except ValueError:
            return False
        return self.seen_string(iso) or (mo, d, y) in self.dates or (mo, d, None) in self.dates

    def results_of(self, name: str) -> list[ToolResult]:
        """Earlier JSON results of tool ``name``, in order."""
        return [r for r in self.results if r.name == name and r.data is not None]


# ---- domain declarations -----------------------------------------------------------------------

def free_text_paths(domain: Any) -> dict[str, set[str]]:
    """The domain's ``free_text_arguments`` (tool -> argument paths exempt from the check)."""
    return {k: set(v) for k, v in (domain.free_text_arguments or {}).items()}


def _is_free(path: str, declared: set[str]) -> bool:
    generic = re.sub(r"\[\d+\]", "[]", path)
    return any(generic == p or generic.startswith(p + ".") or generic.startswith(p + "[") for p in declared)


def derived(domain: Any, name: str, arguments: dict[str, Any], ev: Evidence) -> tuple[set[float], set[str]]:
    """(numbers, strings) the domain's ``derived_values`` derives for this call."""
    nums: set[float] = set()
    strs: set[str] = set()
    try:
        values = list(domain.derived_values(name, arguments, ev) or ())
    except Exception:  # noqa: BLE001 - a rule that cannot read odd arguments derives nothing
        values = []
    for v in values:
        k = _num_key(v)
        if k is not None:
            nums.add(k)
        elif isinstance(v, str):
            strs.add(_norm(v))
    return nums, strs


# ---- the check ---------------------------------------------------------------------------------

def _walk(value: Any, schema: Any, path: str) -> Iterator[tuple[str, Any, dict[str, Any]]]:
    schema = schema if isinstance(schema, dict) else {}
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        for k, v in value.items():
            yield from _walk(v, props.get(k, {}), f"{path}.{k}" if path else str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _walk(v, schema.get("items", {}), f"{path}[{i}]")
    else:
        yield path, value, schema


def _leaf_grounded(value: Any, schema: dict[str, Any], ev: Evidence, nums: set[float], strs: set[str]) -> bool:
    if value is None or isinstance(value, bool):
        return True
    enum = schema.get("enum")
    if isinstance(enum, list) and value in enum:
        return True
    k = _num_key(value)
    if k is not None:
        return k in ev.numbers or k in nums
    if not isinstance(value, str):
        return False
    if not value.strip() or ev.seen_string(value) or _norm(value) in strs:
        return True
    if _ISO_DATE_RE.fullmatch(value.strip()):
        return ev.seen_date(value.strip())
    if _EXPRESSION_RE.fullmatch(value) and re.search(r"\d\s*[-+*/]", value):
        found = [round(float(m.group(1).replace(",", "") + (m.group(2) or "")), 2)
                 for m in _NUMBER_RE.finditer(value)]
        return bool(found) and all(x in ev.numbers or x in nums for x in found)
    return False


def _fmt(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def ungrounded_arguments(calls: list[paths.Call], messages: list[dict[str, Any]], domain: Any,
                         schemas: dict[str, dict[str, Any]], instruction: str = "") -> list[dict[str, Any]]:
    """``TRAJ_UNGROUNDED_ARGUMENT`` violations of the executed ``calls`` (see the module
    docstring), in call order. ``schemas`` maps tool name -> function schema (the task's); calls
    to unknown tools are skipped (``TRAJ_UNKNOWN_TOOL`` covers them)."""
    msgs = list(messages)
    if not any(m.get("role") == "user" for m in msgs):
        # records without the customer's turns: the task's opening message stands in for them
        at = next((i for i, m in enumerate(msgs) if m.get("role") != "system"), len(msgs))
        msgs.insert(at, {"role": "user", "content": instruction})
        calls = [paths.Call(c.index, c.name, c.arguments, c.error,
                            c.message + 1 if c.message is not None and c.message >= at else c.message)
                 for c in calls]
    free = free_text_paths(domain)
    # the arguments of each assistant tool call by id, to pair tool results with their calls
    call_args: dict[str, tuple[str, dict[str, Any]]] = {}
    ev = Evidence()
    pos = 0
    out: list[dict[str, Any]] = []

    def advance(end: int) -> None:
        nonlocal pos
        for m in msgs[pos:end]:
            role = m.get("role")
            text = m.get("content") if isinstance(m.get("content"), str) else ""
            if role == "system":
                ev.add_text(text)
            elif role == "user":
                if not text.startswith(paths.FORMAT_NOTE_PREFIX):
                    ev.add_text(text, customer=True)
            elif role == "tool":
                name, args = call_args.get(m.get("tool_call_id") or "", (m.get("name") or "", {}))
                ev.add_result(m.get("name") or name, args, text)
            elif role == "assistant":
                for tc in m.get("tool_calls") or []:
                    fn = tc.get("function") or {}
                    try:
                        a = json.loads(fn.get("arguments") or "{}") if isinstance(fn.get("arguments"), str) \
                            else (fn.get("arguments") or {})
                    except ValueError:
                        a = {}
                    call_args[tc.get("id") or ""] = (fn.get("name") or "", a if isinstance(a, dict) else {})
        pos = max(pos, end)

    for c in sorted(calls, key=lambda c: (len(msgs) if c.message is None else c.message, c.index)):
        advance(len(msgs) if c.message is None else c.message)
        if c.name not in schemas:
            continue
        params = (schemas[c.name].get("function") or {}).get("parameters") or {}
        nums, strs = derived(domain, c.name, c.arguments, ev)
        grounded: list[Any] = []
        for path, value, sub in _walk(c.arguments, params, ""):
            if _is_free(path, free.get(c.name, set())):
                continue
            if _leaf_grounded(value, sub, ev, nums, strs):
                grounded.append(value)
            else:
                out.append({"code": CODE, "step": c.index, "path": path,
                            "detail": f"{c.name} {path}={_fmt(value)} was never shown to the agent before this "
                                      f"call nor derived by a rule of the {domain.name} domain"})
        ev.add_values(grounded)  # a grounded argument stays grounded for later calls
    out.sort(key=lambda v: v["step"])
    return out
