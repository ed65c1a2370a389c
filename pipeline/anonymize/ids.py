"""Identifiers by shape: the PII config's generic ``id_patterns`` and the domains' own ids.

No business's vocabulary is written here. Two sources feed :class:`IdFinder`:

* the PII config's ``id_patterns`` (``pii_config.yaml``, extended by ``--pii-config``): shapes
  that mean an identifier whatever the system (``first_last_1234`` user names, payment-method
  ids such as ``credit_card_4421486``);
* the registered domains (:func:`pipeline.anonymize.config.domain_vocabulary`): every tool
  parameter whose name the PII config calls personal (``reservation_id``, ``order_id``...)
  shows its format in its schema's description ("such as '8JX2WO'", "such as '#W0000000'"):
  a prefix + digits example becomes a pattern (``#?W\\d{7}``), a mixed letters-and-digits code
  becomes a *code* of that length (:class:`CodeSpec`), found alone when it mixes letters and
  digits and after one of its context words ("reservation", "booking", "confirmation", ...)
  otherwise; the examples of *business* parameters (a flight number "HAT001") become
  :attr:`IdFinder.business` shapes - never an identifier, never drawn as a fake.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Optional

_B = r"(?<![A-Za-z0-9_#])"
_E = r"(?![A-Za-z0-9_])"
#: Words that, before a code, say it is an identifier (any system).
GENERIC_ID_WORDS = ("id", "ids", "number", "numbers", "code", "codes", "record", "records",
                    "confirmation", "confirmations", "locator", "locators", "reference", "ref",
                    "booking", "bookings")


@dataclass(frozen=True)
class CodeSpec:
    """A short code of ``length`` upper-case letters and digits (``8JX2WO``) for ``entity``:
    found alone when it mixes letters and digits and is no business shape; found after one of
    ``words`` (its own words - "reservation" - and :data:`GENERIC_ID_WORDS`) when it is all
    letters or business-shaped, unless one of ``veto_words`` ("flight") is closer."""

    entity: str
    length: int
    words: tuple[str, ...] = ()
    veto_words: tuple[str, ...] = ()


def example_pattern(example: str) -> Optional[tuple[str, object]]:
    """The shape of one example value: ``("code", length)`` for a mixed code (``8JX2WO``),
    ``("pattern", regex)`` for a prefix + digits (``#W0000000`` -> ``#?W\\d{7}``, ``HAT001`` ->
    ``HAT\\d{3}``, ``credit_card_0000000`` -> ``credit_card_\\d{4,}``), else None (free text,
    a name-based handle such as ``sara_doe_496``, plain words or digits)."""
    ex = example.strip()
    m = re.fullmatch(r"(#?)([A-Za-z]{1,4})(\d{3,})", ex)
    if m:
        return "pattern", ("#?" if m.group(1) else "") + re.escape(m.group(2)) + r"\d{%d}" % len(m.group(3))
    if re.fullmatch(r"[A-Z0-9]{5,10}", ex) and re.search(r"\d", ex) and re.search(r"[A-Z]", ex):
        return "code", len(ex)
    m = re.fullmatch(r"((?:[a-z]+_)+)(\d{4,})", ex)
    if m:
        from .context import in_gazetteer, is_english_word

        words = m.group(1).strip("_").split("_")
        if any(in_gazetteer(w) and not is_english_word(w) for w in words):
            return None  # sara_doe_496: a handle made of a name (the config's USER_ID shape)
        return "pattern", re.escape(m.group(1)) + r"\d{4,}"
    return None


def business_shape(example: str) -> Optional[str]:
    r"""The loose shape of a business example of letters + digits (``HAT001`` ->
    ``[A-Z]{2,4}\d{2,4}``): codes of that shape are identifiers only after an id word."""
    m = re.fullmatch(r"([A-Z]{1,4})(\d{2,5})", example.strip())
    if not m:
        return None
    k, d = len(m.group(1)), len(m.group(2))
    return r"[A-Z]{%d,%d}\d{%d,%d}" % (max(1, k - 1), k + 1, max(1, d - 1), d + 1)


class IdFinder:
    """Finds identifiers in text (see the module doc).

    ``patterns``: entity -> regexes of whole identifiers; ``codes``: :class:`CodeSpec` s;
    ``business``: regexes of business identifiers (never personal, never a fake);
    ``business_shapes``: looser regexes of the same (a code of such a shape needs an id word
    before it); ``keep``: words (lower case) an all-letter code never is (domain words: "SILVER"
    is a tier, "ONEWAY" a trip type)."""

    def __init__(self, patterns: dict[str, list[str]], codes: Iterable[CodeSpec] = (),
                 business: Iterable[str] = (), business_shapes: Iterable[str] = (),
                 keep: Iterable[str] = ()):
        self.patterns = {e: list(dict.fromkeys(p)) for e, p in patterns.items() if p}
        self.codes = list(dict.fromkeys(codes))
        self.business_patterns = list(dict.fromkeys(business))
        self.business_shapes = list(dict.fromkeys(business_shapes))
        self.keep = frozenset(keep)
        self._rx = [(ent, re.compile(_B + "(?P<v>" + "|".join(f"(?:{p})" for p in pats) + ")" + _E))
                    for ent, pats in self.patterns.items()]
        self._full = [(ent, re.compile("(?:" + "|".join(f"(?:{p})" for p in pats) + ")"))
                      for ent, pats in self.patterns.items()]
        self._business = _alt(self.business_patterns)
        self._shapes = _alt(self.business_shapes)
        self._code_rx = {}
        for c in self.codes:
            n = c.length
            token = re.compile(_B + rf"(?P<v>(?=[0-9]*[A-Z])[A-Z0-9]{{{n}}})" + _E)
            words = tuple(dict.fromkeys(tuple(c.words) + GENERIC_ID_WORDS))
            ctx = re.compile(r"(?i)\b(?:(?P<res>" + "|".join(re.escape(w) + "s?" for w in words) + ")"
                             + (r"|(?P<veto>" + "|".join(re.escape(w) + "s?" for w in c.veto_words) + ")"
                                if c.veto_words else "") + r")\b")
            self._code_rx[c] = (token, ctx)

    def __bool__(self) -> bool:
        return bool(self._rx or self.codes)

    def is_business(self, value: str) -> bool:
        """Is ``value`` a business identifier of a domain (a flight number)?"""
        return bool(self._business and self._business.fullmatch(value))

    def _alone(self, v: str) -> bool:
        """A code found without context: mixes letters and digits, not business-shaped."""
        return (any(ch.isdigit() for ch in v) and not self.is_business(v)
                and not (self._shapes and self._shapes.fullmatch(v)))

    def fullmatch(self, value: str) -> Optional[str]:
        """The entity of ``value`` when the whole value is an identifier of a pattern or a code
        found alone (``credit_card_4421486``, ``#W1234567``, ``8JX2WO``), else None."""
        if self.is_business(value):
            return None
        for ent, rx in self._full:
            if rx.fullmatch(value):
                return ent
        for c, (token, _ctx) in self._code_rx.items():
            if token.fullmatch(value) and self._alone(value):
                return c.entity
        return None

    def find(self, text: str) -> list[tuple[str, int, int, str]]:
        """Every identifier in ``text`` as ``(entity, start, end, source)``."""
        out: list[tuple[str, int, int, str]] = []
        for ent, rx in self._rx:
            for m in rx.finditer(text):
                if not self.is_business(m.group("v")):
                    out.append((ent, m.start("v"), m.end("v"), "id_pattern:" + ent.lower()))
        if self._code_rx and any(ch.isupper() for ch in text):
            for c, (token, ctx) in self._code_rx.items():
                for m in token.finditer(text):
                    v = m.group("v")
                    if self._alone(v):
                        out.append((c.entity, m.start("v"), m.end("v"), "id_code:" + c.entity.lower()))
                    elif self._context_ok(text, m, ctx):
                        out.append((c.entity, m.start("v"), m.end("v"), "id_code_context:" + c.entity.lower()))
        return out

    def _context_ok(self, text: str, m: re.Match, ctx: re.Pattern) -> bool:
        """An all-letter or business-shaped code needs one of its words shortly before it on the
        same line, with no veto word closer; never a business id ("HAT123"), an English or domain
        word ("PLEASE", "SILVER"), or a word of shouting text."""
        from .context import is_english_word

        v = m.group("v")
        if self.is_business(v):
            return False
        if v.isalpha() and (v.lower() in self.keep or is_english_word(v.lower())):
            return False
        line_start = text.rfind("\n", 0, m.start()) + 1
        window = text[max(line_start, m.start() - 80):m.start()]
        words = list(ctx.finditer(window))
        if not words or words[-1].group("res") is None:
            return False
        if len(words) > 1 and words[-2].group("veto") is not None and \
                window[words[-2].end():words[-1].start()].strip() == "":
            return False  # "flight number ABC123": the number of a flight
        letters = [ch for ch in window if ch.isalpha()]
        if letters and sum(ch.isupper() for ch in letters) / len(letters) > 0.6:
            return False  # shouting text: uppercase words are words, not ids
        return True


def _alt(patterns: list[str]) -> Optional[re.Pattern]:
    return re.compile("(?:" + "|".join(f"(?:{p})" for p in patterns) + ")") if patterns else None
