"""Answer matcher: did the agent *state* the facts an answer task requires, and nothing that contradicts them?

tau-bench scores information requests with an ``outputs`` check (every required string must
appear in the agent's messages, commas removed). That check is easy to game: an agent that lists
several candidates ("it is 300, 327 or 1000") or pads its reply passes. This matcher keeps the
idea (required facts must appear in what the agent said) and adds the reward-hacking defenses of
the RLAR line of work (a reward tool must reject the cheap ways to look right):

* **normalization**: money (``$1,786.00`` = ``1786 dollars`` = ``USD 1786``), counts with their unit
  (``four bags`` = ``4 checked bags``), dates (``2024-05-20`` = ``May 20, 2024`` = ``05/20/2024`` =
  ``20 May``), ids (case and a leading ``#`` ignored), free-text values as whole words;
* **stated, not asked**: only declarative sentences count; a fact inside a question ("is it
  $327?") is not stated, and a reply made only of questions fails (``ANSWER_QUESTION_ONLY``);
* **no spraying**: a required value listed together with other candidate values ("300, 327 or
  1000", "4 or 5 bags") fails (``ANSWER_SPRAYING``);
* **no contradiction**: another value of the same kind (another dollar amount, another bag count,
  another date, another order status) stated anywhere in the agent's declarative sentences fails
  (``ANSWER_CONTRADICTION``), unless the task lists it in the fact's ``allowed`` values (e.g. the
  individual balances a sum is made of);
* **length buys nothing**: the result is pass / fail per fact; padding can only add
  contradictions.

A fact (``TaskPackage.hidden.verifier["answer"]["facts"]`` items) is a dict::

    {"name": "gift_total", "type": "money", "value": 327.0, "allowed": [127.0, 200.0]}
    {"name": "free_bags", "type": "count", "value": 4, "unit": "bag", "allowed": [2]}
    {"name": "status", "type": "text", "value": "delivered", "alternatives": ["pending", ...]}
    {"name": "tracking", "type": "id", "value": "123456789012"}
    {"name": "flight_date", "type": "date", "value": "2024-05-20"}
    {"name": "insurance", "type": "boolean", "value": false, "subject": ["travel insurance", "insurance"]}

``type`` is one of :data:`FACT_TYPES`. Facts are validated by :func:`check_facts` (ValueError
naming the fact otherwise). The boolean type is the weakest: the polarity of a sentence that
names the subject and the customer's booking ("your", "reservation", "booking", "order") is read
from negation words; it is documented as a heuristic in docs/rewards.md.
"""
from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from typing import Any, Iterable

#: Accepted ``type`` values of a fact.
FACT_TYPES = ("money", "count", "number", "date", "id", "text", "boolean")

_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())}
_MONTHS = {m: i + 1 for i, m in enumerate(
    "january february march april may june july august september october november december".split())}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_MONTH_RE = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|" \
            r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
_DATE_RES = [
    ("iso", re.compile(r"\b(\d{4})-(\d{2})-(\d{2})(?:T[\d:]+)?\b")),
    ("us", re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b")),
    ("mdy", re.compile(rf"\b({_MONTH_RE})\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?\b", re.I)),
    ("dmy", re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})(?:,?\s+(\d{{4}}))?\b", re.I)),
]
_TIME_RE = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?", re.I)
_NUM_RE = re.compile(
    r"(?P<cur>\$|usd\s*|us\$)?\s?(?<![\w.#/-])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\w/]|\.\d)"
    r"|(?<![\w-])(?P<word>" + "|".join(sorted(_WORDS, key=len, reverse=True)) + r")(?![\w-])", re.I)
_CUR_AFTER = re.compile(r"^\s*(?:dollars?|usd|bucks)\b", re.I)
_ENUM_GAP = re.compile(r"^\s*(?:,|or|and|to|-|–|/|,\s*or|,\s*and|maybe|perhaps|possibly|either)?\s*"
                       r"(?:\$|usd)?\s*$", re.I)
_NEG = re.compile(r"\b(?:not|no|without|none|never|neither|nor|cannot|unable)\b|n't\b", re.I)
_OWN = re.compile(r"\b(?:your|reservation|booking|order|trip|ticket)\b", re.I)
_UNITS = {"bag": r"(?:checked\s+|free\s+|carry-on\s+)*(?:bags?|baggages?|suitcases?|luggage|pieces?)",
          "item": r"(?:items?|pieces?|units?|products?)", "passenger": r"(?:passengers?|travell?ers?|people|persons?)"}
_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")


@dataclass
class Mention:
    """One value found in a sentence: ``kind`` (``money``, ``number`` = bare number, ``count``
    = number followed by the unit asked for), normalized ``value``, character ``start``/``end``
    in the sentence, and ``counted`` (a bare number directly followed by another noun: it counts
    something else, e.g. "2 passengers", and is never a candidate answer)."""

    kind: str
    value: Any
    start: int
    end: int
    counted: bool = False


@dataclass
class AnswerResult:
    """The matcher's decision: ``passed``, reason ``codes`` (ordered, unique; from
    :mod:`pipeline.verify.reasons`) and ``facts`` (per fact: ``name``, ``stated``, ``problem``
    (None or the code), ``others``: the competing values found)."""

    passed: bool
    codes: list[str] = field(default_factory=list)
    facts: list[dict[str, Any]] = field(default_factory=list)


def check_facts(facts: Any) -> list[dict[str, Any]]:
    """Validate a list of fact dicts (see the module docstring); returns it. ValueError naming the
    offending fact for a missing name/type/value, an unknown type, a non-numeric money/count/number
    value, a date that is not ISO ``YYYY-MM-DD``, a boolean that is not a bool, or a duplicate name."""
    if not isinstance(facts, list) or not facts:
        raise ValueError("an answer task needs a non-empty list of facts")
    seen = set()
    for f in facts:
        if not isinstance(f, dict) or not {"name", "type", "value"} <= set(f):
            raise ValueError(f"a fact needs name, type and value: {f!r}")
        name, typ, v = f["name"], f["type"], f["value"]
        if typ not in FACT_TYPES:
            raise ValueError(f"fact {name!r}: unknown type {typ!r}; known: {', '.join(FACT_TYPES)}")
        if typ in ("money", "count", "number") and (isinstance(v, bool) or not isinstance(v, (int, float))):
            raise ValueError(f"fact {name!r}: a {typ} value must be a number, got {v!r}")
        if typ == "date":
            try:
                _dt.date.fromisoformat(str(v))
            except ValueError:
                raise ValueError(f"fact {name!r}: a date value must be YYYY-MM-DD, got {v!r}") from None
        if typ == "boolean" and (not isinstance(v, bool) or not f.get("subject")):
            raise ValueError(f"fact {name!r}: a boolean fact needs a bool value and subject terms")
        if typ in ("id", "text") and not str(v).strip():
            raise ValueError(f"fact {name!r}: empty {typ} value")
        if name in seen:
            raise ValueError(f"duplicate fact name {name!r}")
        seen.add(name)
    return facts


# ---- normalization ---------------------------------------------------------------------------

def parse_dates(text: str, default_year: int | None = None) -> list[tuple[int, int, str]]:
    """Dates in ``text`` as ``(start, end, "YYYY-MM-DD")``: ISO dates (and ISO timestamps),
    ``MM/DD/YYYY``, ``May 20[, 2024]``, ``20 May [2024]``. A date without a year takes
    ``default_year`` (skipped when None); impossible dates are skipped."""
    out: list[tuple[int, int, str]] = []
    taken: list[tuple[int, int]] = []
    for kind, rx in _DATE_RES:
        for m in rx.finditer(text):
            if any(s < m.end() and m.start() < e for s, e in taken):
                continue
            g = m.groups()
            try:
                if kind == "iso":
                    y, mo, d = int(g[0]), int(g[1]), int(g[2])
                elif kind == "us":
                    mo, d, y = int(g[0]), int(g[1]), int(g[2])
                elif kind == "mdy":
                    mo, d = _MONTHS[g[0].lower().rstrip(".")], int(g[1])
                    y = int(g[2]) if g[2] else default_year
                else:
                    d, mo = int(g[0]), _MONTHS[g[1].lower().rstrip(".")]
                    y = int(g[2]) if g[2] else default_year
                if y is None:
                    continue
                iso = _dt.date(y, mo, d).isoformat()
            except (ValueError, KeyError):
                continue
            out.append((m.start(), m.end(), iso))
            taken.append((m.start(), m.end()))
    return sorted(out)


def _blank(text: str, spans: Iterable[tuple[int, int]]) -> str:
    chars = list(text)
    for s, e in spans:
        for i in range(s, e):
            chars[i] = " "
    return "".join(chars)


def numbers(sentence: str, unit: str | None = None) -> list[Mention]:
    """Numeric mentions of one sentence, dates, clock times and ids excluded (digits glued to
    letters, ``#``, ``_`` or ``-`` are part of an id: ``HAT045``, ``#W1234567``,
    ``gift_card_1234567``). ``$12``, ``USD 12``, ``12 dollars`` are ``money``; with ``unit``
    (``"bag"``, ``"item"``, ``"passenger"`` or a regex) a number followed within two words (not and / or / to) by
    it is a ``count``; other numbers are ``number``, with ``counted=True`` when a word that is
    not ``or``/``and``/``to`` directly follows (it counts something else). Commas in
    thousands are dropped; number words zero..twenty are read."""
    text = _blank(sentence, [(s, e) for s, e, _ in parse_dates(sentence, 2000)])
    text = _blank(text, [m.span() for m in _TIME_RE.finditer(text)])
    unit_re = re.compile(r"^\s*(?:(?!(?:and|or|to)\b)[a-z-]+\s+){0,2}?" + _UNITS.get(unit, unit) + r"\b", re.I) if unit else None
    out: list[Mention] = []
    for m in _NUM_RE.finditer(text):
        if m.group("word"):
            value: float = float(_WORDS[m.group("word").lower()])
        else:
            value = float(m.group("num").replace(",", ""))
        after = text[m.end():]
        if m.group("cur") or _CUR_AFTER.match(after):
            kind = "money"
        elif unit_re is not None and unit_re.match(after):
            kind = "count"
        else:
            kind = "number"
        counted = kind == "number" and bool(re.match(r"^\s?(?!(?:or|and|to|dollars?|usd)\b)[a-z]", after, re.I))
        out.append(Mention(kind, value, m.start(), m.end(), counted))
    return out


def _norm_id(s: str) -> str:
    return str(s).strip().lstrip("#").lower()


def _has_phrase(sentence: str, phrase: str) -> list[tuple[int, int]]:
    words = [re.escape(w) for w in str(phrase).lower().split()]
    if not words:
        return []
    rx = re.compile(r"(?<![\w])" + r"[\s-]+".join(words) + r"(?![\w])", re.I)
    return [m.span() for m in rx.finditer(sentence)]


def sentences(texts: Iterable[str]) -> tuple[list[str], list[str]]:
    """``(declarative, questions)``: the sentences of ``texts`` split at ``.!?`` + space and at
    newlines; a sentence ending with ``?`` is a question."""
    decl, ques = [], []
    for t in texts:
        for s in _SPLIT.split(t or ""):
            s = s.strip()
            if not s:
                continue
            (ques if s.endswith("?") else decl).append(s)
    return decl, ques


# ---- the matcher -----------------------------------------------------------------------------

def _same(a: float, b: float) -> bool:
    return abs(float(a) - float(b)) < 0.005


def _numeric(fact: dict[str, Any], decl: list[str], other_values: set[float]) -> tuple[bool, list[Any], bool]:
    """(stated, competing values, sprayed) of a money / count / number fact."""
    value = float(fact["value"])
    allowed = [float(a) for a in fact.get("allowed", []) if isinstance(a, (int, float))] + sorted(other_values)
    typ, unit = fact["type"], fact.get("unit")
    stated, sprayed, others = False, False, []
    for s in decl:
        ms = numbers(s, unit if typ == "count" else None)
        hit = [i for i, m in enumerate(ms) if _same(m.value, value) and not m.counted
               and (m.kind == typ or m.kind == "number" or (typ == "number"))]
        if typ == "count":  # a count must carry its unit or sit in a sentence that names it
            hit = [i for i in hit if ms[i].kind == "count" or (unit and re.search(_UNITS.get(unit, unit), s, re.I))]
        stated = stated or bool(hit)
        # runs of values listed together: "300, 327 or 1000"
        run: list[int] = []
        runs: list[list[int]] = []
        for i, m in enumerate(ms):
            if m.counted:
                continue
            gap = re.sub(r"\b(?:dollars?|usd)\b", " ", s[ms[run[-1]].end:m.start] if run else "", flags=re.I)
            if unit:
                gap = re.sub(_UNITS.get(unit, unit), " ", gap, flags=re.I)
            if run and _ENUM_GAP.match(gap):
                run.append(i)
            else:
                if run:
                    runs.append(run)
                run = [i]
        if run:
            runs.append(run)
        for r in runs:
            if len(r) > 1 and set(r) & set(hit) and any(not _same(ms[i].value, value) and
                                                        not any(_same(ms[i].value, a) for a in allowed) for i in r):
                sprayed = True
        for m in ms:
            if m.counted or _same(m.value, value) or any(_same(m.value, a) for a in allowed):
                continue
            if m.kind == typ or (m.kind == "number" and typ in ("money", "number")):
                others.append(m.value)
    return stated, others, sprayed


def _check_one(fact: dict[str, Any], decl: list[str], facts: list[dict[str, Any]]) -> tuple[bool, list[Any], bool]:
    typ, value = fact["type"], fact["value"]
    if typ in ("money", "count", "number"):
        same_type = {float(f["value"]) for f in facts if f is not fact and f["type"] in ("money", "count", "number")}
        return _numeric(fact, decl, same_type)
    if typ == "date":
        year = int(str(value)[:4])
        allowed = {str(a) for a in fact.get("allowed", [])} | {f["value"] for f in facts if f["type"] == "date"}
        found = [iso for s in decl for _, _, iso in parse_dates(s, year)]
        return value in found, [d for d in found if d != value and d not in allowed], False
    if typ == "id":
        want = _norm_id(value)
        toks = [_norm_id(t) for s in decl for t in re.findall(r"#?[\w-]+", s)]
        shape = re.sub(r"[a-z]", "a", re.sub(r"\d", "9", want))
        allowed = {_norm_id(a) for a in fact.get("allowed", [])} | {_norm_id(f["value"]) for f in facts}
        others = [t for t in toks if t != want and t not in allowed and any(c.isdigit() for c in t)
                  and re.sub(r"[a-z]", "a", re.sub(r"\d", "9", t)) == shape]
        return want in toks, others, False
    if typ == "text":
        stated, others = False, []
        alts = sorted({str(a) for a in fact.get("alternatives", []) if str(a).lower() != str(value).lower()},
                      key=len, reverse=True)
        for s in decl:
            spans = _has_phrase(s, value)
            stated = stated or bool(spans)
            rest = _blank(s, spans)
            for a in alts:
                if _has_phrase(rest, a):
                    others.append(a)
                    rest = _blank(rest, _has_phrase(rest, a))
        return stated, others, False
    # boolean
    polar = []
    for s in decl:
        if any(_has_phrase(s, t) for t in fact["subject"]) and _OWN.search(s):
            polar.append(not _NEG.search(s))
    return bool(value) in polar, [p for p in polar if p != bool(value)], False


def check_answer(facts: list[dict[str, Any]], texts: Iterable[str]) -> AnswerResult:
    """Match the required ``facts`` against the agent's ``texts`` (its messages, in order).

    Per fact, in this order of precedence: not stated in a declarative sentence ->
    ``ANSWER_QUESTION_ONLY`` when the agent wrote only questions, else ``ANSWER_MISSING_FACT``;
    stated inside a list of candidate values -> ``ANSWER_SPRAYING``; stated but another value of
    the same kind stated too -> ``ANSWER_CONTRADICTION``. ``passed`` when no fact has a problem.
    ValueError for malformed facts (:func:`check_facts`)."""
    check_facts(facts)
    decl, ques = sentences(texts)
    res = AnswerResult(passed=True)
    for f in facts:
        stated, others, sprayed = _check_one(f, decl, facts)
        problem = None
        if not stated:
            problem = "ANSWER_QUESTION_ONLY" if ques and not decl else "ANSWER_MISSING_FACT"
        elif sprayed:
            problem = "ANSWER_SPRAYING"
        elif others:
            problem = "ANSWER_CONTRADICTION"
        res.facts.append({"name": f["name"], "stated": stated, "problem": problem, "others": others[:5]})
        if problem:
            res.passed = False
            if problem not in res.codes:
                res.codes.append(problem)
    return res


def agent_texts(messages: list[dict[str, Any]]) -> list[str]:
    """The text the agent wrote in an episode: the ``content`` of every assistant message (with or
    without tool calls), in order; format-error notes and empty contents skipped."""
    out = []
    for m in messages:
        c = m.get("content")
        if m.get("role") == "assistant" and isinstance(c, str) and c.strip():
            out.append(c)
    return out


# ---- rendering (reference answers and mutants) --------------------------------------------------

def _money(v: float, style: int) -> str:
    if style == 0:
        return f"${v:,.2f}" if v != int(v) else f"${int(v):,}"
    return f"{v:.2f} dollars"


def value_text(fact: dict[str, Any], style: int = 0, value: Any = None) -> str:
    """A fact's value as an agent would write it; ``style`` 0 or 1 picks one of two formats
    (``$1,786`` / ``1786.00 dollars``, ``4 bags`` / ``four bags``, ``May 20, 2024`` /
    ``2024-05-20``, ids as given / upper-cased with ``#`` kept). ``value`` overrides the fact's."""
    v = fact["value"] if value is None else value
    typ = fact["type"]
    if typ == "money":
        return _money(float(v), style)
    if typ == "count":
        n = int(v)
        word = {v_: k for k, v_ in _WORDS.items()}.get(n, str(n)) if style else str(n)
        unit = fact.get("unit") or ""
        return f"{word} {unit}{'' if n == 1 or not unit else 's'}".strip()
    if typ == "number":
        return f"{float(v):g}"
    if typ == "date":
        d = _dt.date.fromisoformat(str(v))
        return f"{d.strftime('%B')} {d.day}, {d.year}" if style == 0 else d.isoformat()
    if typ == "id":
        return str(v) if style == 0 else str(v).upper()
    return str(v)


def render(facts: list[dict[str, Any]], style: int = 0, override: dict[str, Any] | None = None) -> str:
    """A short declarative answer stating every fact, one sentence each ("free_bags: 4 bags.";
    a boolean: "Your reservation has travel insurance." / "... does not have ..."). ``override``
    maps fact names to other values (mutants); a fact mapped to None is left out."""
    override = override or {}
    parts = []
    for f in facts:
        if f["name"] in override and override[f["name"]] is None:
            continue
        v = override.get(f["name"], f["value"])
        if f["type"] == "boolean":
            subj = f["subject"][0]
            parts.append(f"Your booking {'has' if v else 'does not have'} {subj}.")
        else:
            parts.append(f"{f['name'].replace('_', ' ')}: {value_text(f, style, v)}.")
    return " ".join(parts) if parts else "I have looked that up for you."


def wrong_value(fact: dict[str, Any]) -> Any:
    """A plausible wrong value for ``fact`` (mutants): money +50 (or x2 for small amounts), count
    +1, a date +1 day, an id with its last character changed, a text fact's first alternative, a
    boolean flipped."""
    typ, v = fact["type"], fact["value"]
    if typ == "money":
        return float(v) + 50 if float(v) >= 50 else float(v) * 2 + 10
    if typ in ("count", "number"):
        return v + 1
    if typ == "date":
        return (_dt.date.fromisoformat(v) + _dt.timedelta(days=1)).isoformat()
    if typ == "id":
        s = str(v)
        return s[:-1] + ("1" if s[-1] != "1" else "2")
    if typ == "text":
        alts = [a for a in fact.get("alternatives", []) if str(a).lower() != str(v).lower()]
        return alts[0] if alts else str(v) + "x"
    return not v
