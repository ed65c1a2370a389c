"""An audit of the anonymizer's output that does not trust its detection.

The residual scan (:meth:`pipeline.anonymize.Anonymizer.report`) re-runs the same detection on
the output, so it cannot see what detection misses. This audit compares each input record with
its output record and looks for real values that survived, by two independent routes:

* **structured values** - every value the input's JSON holds under a key the PII config calls
  personal (exact key rules, key words with the value's shape, person keys such as ``sender`` /
  ``attendees``), searched for in the whole output record (any case, whole token). A hit is a
  **leak** (type ``key:<ENTITY>``).
* **high-risk shapes** - e-mail addresses (also spelled "x dot y at z dot com"), digit runs of 7+
  digits (also in groups), handle-like tokens (letters with digits, ``_`` or ``.``), IBAN-like
  and SSN-like strings, and Capitalized word pairs that are not English words, found in the
  input outside the policy and the config's business keys: one that reappears unchanged in the
  output is a **leak** for e-mails, IBANs and SSNs and a **suspect** for the others (a product
  number or a place may rightly stay).

Findings name the record id and the type, never the value. :func:`masked_context` renders a
finding for a person to judge (``trajpipe anonymize --review``): the output text around it with
the value itself masked ("T***** O*****").
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from ..records import LogRecord
from .config import PiiConfig, normalize_key
from .context import is_english_word
from .names_data import EMAIL_BEFORE, EMAIL_PATTERN

_EMAIL_RE = re.compile(EMAIL_BEFORE + EMAIL_PATTERN)
_SPELLED_EMAIL_RE = re.compile(r"(?i)\b[a-z0-9]+(?:\s+dot\s+[a-z0-9]+)*\s+at\s+[a-z0-9-]+(?:\s+dot\s+[a-z]{2,})+\b")
_DIGITS_RE = re.compile(r"(?<![\w.,/:-])\+?\(?\d[\d ().-]{5,24}\d(?![\w]|[.,/:-]\d)")
_HANDLE_RE = re.compile(r"(?<![\w@.%+/-])@?(?=[A-Za-z0-9._-]*[A-Za-z])(?=[A-Za-z0-9._-]*(?:\d|_|\.[A-Za-z]))"
                        r"[A-Za-z][A-Za-z0-9._-]{2,38}[A-Za-z0-9](?![\w@]|\.\w)")
_IBAN_RE = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,7}(?: ?[A-Z0-9]{1,3})?\b")
_SSN_RE = re.compile(r"(?<![\d-])\d{3}[- ]\d{2}[- ]\d{4}(?![\d-])")
_PAIR_RE = re.compile(r"(?<![\w-])([A-Z][a-z]{2,}) ([A-Z][a-z]{2,})(?![\w-])")
#: Distinct candidate values searched per record (each is one search of the output record).
MAX_CANDIDATES = 2000


@dataclass
class Finding:
    """One audit finding: record id, type (``key:<ENTITY>`` or ``shape:<kind>``), ``leak`` (a
    real value that must not survive) or suspect, and where in the output it is (never the value
    in reports; :func:`masked_context` shows it masked)."""

    record_id: str
    type: str
    leak: bool
    value: str = field(repr=False)  # in memory only, for --review; never written


def _strings(obj: Any, key: Optional[str], out: list[tuple[Optional[str], str]]) -> None:
    if isinstance(obj, dict):
        for k, v in obj.items():
            _strings(v, normalize_key(k) if isinstance(k, str) else None, out)
    elif isinstance(obj, list):
        for v in obj:
            _strings(v, key, out)
    elif isinstance(obj, str):
        t = obj.lstrip()
        if t[:1] in ("{", "[") and len(t) > 1:
            try:
                _strings(json.loads(obj), key, out)
                return
            except (ValueError, RecursionError):
                pass
        out.append((key, obj))
    elif isinstance(obj, int) and not isinstance(obj, bool):
        out.append((key, str(obj)))


def record_strings(rec: LogRecord) -> tuple[list[tuple[Optional[str], str]], list[str]]:
    """``(keyed strings, policy texts)``: every (normalized key or None, string) of the record's
    messages, tool calls and metadata (JSON texts parsed), and the ``role=system`` texts apart."""
    out: list[tuple[Optional[str], str]] = []
    policy: list[str] = []
    for m in rec.messages:
        if not isinstance(m, dict):
            continue
        if m.get("role") == "system":
            if isinstance(m.get("content"), str):
                policy.append(m["content"])
            continue
        _strings(m.get("content"), None, out)
        for tc in m.get("tool_calls") or []:
            if isinstance(tc, dict):
                _strings((tc.get("function") or {}).get("arguments"), None, out)
    _strings(rec.metadata, None, out)
    return out, policy


_LOWERED: list = [None, ""]


def _lowered(text: str) -> str:
    """``text.lower()``, kept for the last text asked (an audit asks about one output many times)."""
    if _LOWERED[0] is not text:
        _LOWERED[0], _LOWERED[1] = text, text.lower()
    return _LOWERED[1]


def _present(haystack: str, value: str, ignore_case: bool = True,
             business: frozenset[str] | set[str] = frozenset()) -> bool:
    """Is ``value`` in ``haystack`` as a whole token - other than as one of the input's business
    values written exactly so (the passenger "Mia" searched in any case is not the airport code
    "MIA" the input holds under ``origin``)?"""
    # a plain substring test first: most values were replaced and are absent, and a regex built for
    # each of thousands of values thrashes re's cache (twentieth round's speed-up; ASCII values
    # only, whose case-insensitive matches are their lower-case forms)
    if value.isascii() and (value.lower() not in _lowered(haystack) if ignore_case else value not in haystack):
        return False
    for m in re.finditer(r"(?<![A-Za-z0-9])" + re.escape(value) + r"(?![A-Za-z0-9])", haystack,
                         re.I if ignore_case else 0):
        if m.group(0) not in business or m.group(0) == value:
            return True
    return False


def audit_record(inp: LogRecord, out: LogRecord, config: PiiConfig,
                 is_fake=lambda v: False, business_keys: Iterable[str] = ()) -> list[Finding]:
    """Findings for one input record and its anonymized output (see the module doc).
    ``business_keys``: keys whose values are business facts besides the config's ``skip_keys``
    (the domains' ones: :func:`~pipeline.anonymize.config.domain_vocabulary`)."""
    keyed, policy = record_strings(inp)
    skip = set(config.skip_keys) | set(business_keys)
    business = {s.strip() for k, s in keyed if k in skip and s.strip()}
    out_keyed, _ = record_strings(out)
    out_text = "\n".join(s for _k, s in out_keyed) + "\n" + str(out.id)
    policy_text = "\n".join(policy)
    findings: list[Finding] = []
    seen: set[tuple[str, str]] = set()

    checked: set[tuple[str, str]] = set()

    def add(kind: str, value: str, leak: bool, ignore_case: bool = True) -> None:
        v = value.strip()
        key = (kind, v.lower())
        if len(v) < 3 or key in checked or len(checked) >= MAX_CANDIDATES or is_fake(v):
            return
        checked.add(key)
        if policy_text and _present(policy_text, v):
            return
        if _present(out_text, v, ignore_case, business):
            seen.add((kind, v.lower()))
            findings.append(Finding(str(out.id), kind, leak, v))

    free: list[str] = []
    for key, s in keyed:
        if key in skip:
            continue
        ent, exact = config.key_entity(key)
        if ent is not None and not exact:
            from .anonymizer import _shape_ok

            if not _shape_ok(ent, s):  # as the anonymizer judges it: "case": "LIC-APP" is no id
                ent = None
        if ent is None and config.is_person_key(key) and len(s) <= 80:
            ent = "PERSON"
        if ent is not None and ent != "CITY":
            if ent in ("PERSON", "FIRST_NAME", "LAST_NAME"):
                for w in re.findall(r"[^\W\d_]{2,}(?:['-][^\W\d_]+)*", s):
                    if w.lower() not in config.keep_words:  # an English word only as written
                        add("key:" + ent, w, True, ignore_case=not is_english_word(w))
            elif ent != "LAST_FOUR" or re.fullmatch(r"\d{4}", s.strip()):
                add("key:" + ent, s, True)
        free.append(s)
    text = "\n".join(free)
    for m in _EMAIL_RE.finditer(text):
        add("shape:email", m.group(0), True)
    for m in _SPELLED_EMAIL_RE.finditer(text):
        if " dot " in m.group(0).lower():
            add("shape:email", m.group(0), True)
    for m in _IBAN_RE.finditer(text):
        add("shape:iban", m.group(0), True)
    for m in _SSN_RE.finditer(text):
        add("shape:ssn", m.group(0), True)
    for m in _DIGITS_RE.finditer(text):
        if sum(c.isdigit() for c in m.group(0)) >= 7:
            add("shape:digits", m.group(0), False)
    for m in _HANDLE_RE.finditer(text):
        parts = [p for p in re.split(r"[._-]+", m.group(0).lstrip("@")) if p]
        if all(p.isalpha() and (is_english_word(p) or p.lower() in config.keep_words) for p in parts):
            continue  # session_id, get_user_details: identifiers made of words
        add("shape:handle", m.group(0), False)
    for m in _PAIR_RE.finditer(text):
        a, b = m.group(1), m.group(2)
        if not (is_english_word(a) or is_english_word(b) or a.lower() in config.keep_words
                or b.lower() in config.keep_words):
            add("shape:name_pair", m.group(0), False)
    return findings


def masked(value: str) -> str:
    """``"Tamsin Okafor"`` -> ``"T***** O*****"``; digits -> ``#`` after the first character."""
    return re.sub(r"(?<=\w)\w", lambda m: "#" if m.group(0).isdigit() else "*", value)


def masked_context(rec: LogRecord, finding: Finding, width: int = 40, others: Iterable[str] = ()) -> str:
    """The output text around ``finding`` (``width`` characters each side) with the value
    masked, for a person to judge whether it is personal (``--review``); a value of a JSON key
    is shown with its key ("item_id: ...[1#########]...": a value alone says little).
    ``others``: the record's other findings' values, masked too where the context shows them
    (a sixteenth-round fresh-clone check saw a second leftover in the clear beside the first)."""
    keyed, _ = record_strings(rec)
    other_rx = [re.compile(r"(?<![A-Za-z0-9])" + re.escape(v) + r"(?![A-Za-z0-9])", re.I)
                for v in sorted(set(others) - {finding.value}, key=len, reverse=True) if v]
    for k, s in keyed:
        m = re.search(r"(?<![A-Za-z0-9])" + re.escape(finding.value) + r"(?![A-Za-z0-9])", s, re.I)
        if m:
            for rx in other_rx:  # masks keep the length: the finding's offsets hold
                s = rx.sub(lambda o: masked(o.group(0)), s)
            left = s[max(0, m.start() - width):m.start()].replace("\n", " ")
            right = s[m.end():m.end() + width].replace("\n", " ")
            return (f"{k}: " if k else "") + f"...{left}[{masked(m.group(0))}]{right}..."
    return f"[{masked(finding.value)}] (in the record id)"


def summarize(findings: Iterable[Finding], max_items: int = 200) -> dict[str, Any]:
    """``{"leaks": {...}, "suspects": {...}}`` with ``count``, ``by_type`` and ``items``
    (``record_id`` and ``type`` only; at most ``max_items`` each)."""
    out: dict[str, Any] = {}
    fs = list(findings)
    for name, leak in (("leaks", True), ("suspects", False)):
        sel = [f for f in fs if f.leak == leak]
        by: dict[str, int] = {}
        for f in sel:
            by[f.type] = by.get(f.type, 0) + 1
        out[name] = {"count": len(sel), "by_type": dict(sorted(by.items())),
                     "items": [{"record_id": f.record_id, "type": f.type} for f in sel[:max_items]]}
    return out
