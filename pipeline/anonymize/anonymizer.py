"""Record-level pseudonymization of :class:`~pipeline.records.LogRecord` s.

Two phases per chunk of records:

1. **collect** - every string of a record is visited: message text (user / assistant / tool
   text), tool-call arguments and JSON tool results (parsed; values classified by their *key*
   where the key says what they are, free-text values sent to presidio), and ``metadata``. The
   policy (``role=system``) only goes through the identifier regexes. Free texts of the whole
   chunk go through spaCy in one batch (``BatchAnalyzerEngine``, ``nlp.pipe``) and results are
   cached per distinct text for the run.
2. **rewrite** - all real values found anywhere in a record are replaced in *every* string of
   that record in one regex pass (longest value first, so nothing is replaced twice), JSON is
   re-serialized in its original layout, and the record ``id`` is kept.

What is never touched: values under flight/price/status keys (:data:`SKIP_KEYS`), numbers,
flight numbers, airport codes, the policy text (only identifiers could be replaced there), and
cities in free text (user cities coincide with airport cities; cities are replaced only where a
key says ``city``).
"""
from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Optional

from presidio_analyzer import AnalyzerEngine, BatchAnalyzerEngine

from ..records import LogRecord
from .engine import (ANALYZED_ENTITIES, LAST_FOUR_RES, PAYMENT_ID_RE, USER_ID_RE, build_analyzer,
                     detect_patterns)
from .pseudonymizer import Pseudonymizer, match_case

#: JSON key (lower case) -> entity type of its string value(s).
KEY_RULES: dict[str, str] = {
    "first_name": "FIRST_NAME", "firstname": "FIRST_NAME", "given_name": "FIRST_NAME",
    "middle_name": "FIRST_NAME",
    "last_name": "LAST_NAME", "lastname": "LAST_NAME", "surname": "LAST_NAME",
    "family_name": "LAST_NAME",
    "full_name": "PERSON", "passenger_name": "PERSON", "customer_name": "PERSON",
    "email": "EMAIL_ADDRESS", "email_address": "EMAIL_ADDRESS",
    "dob": "DATE_OF_BIRTH", "date_of_birth": "DATE_OF_BIRTH", "birthdate": "DATE_OF_BIRTH",
    "birthday": "DATE_OF_BIRTH", "birth_date": "DATE_OF_BIRTH",
    "address1": "STREET_ADDRESS", "address_1": "STREET_ADDRESS", "address_line1": "STREET_ADDRESS",
    "street": "STREET_ADDRESS", "street_address": "STREET_ADDRESS",
    "address2": "ADDRESS_LINE2", "address_2": "ADDRESS_LINE2", "address_line2": "ADDRESS_LINE2",
    "city": "CITY",
    "zip": "ZIP", "zipcode": "ZIP", "zip_code": "ZIP", "postal_code": "ZIP", "postcode": "ZIP",
    "user_id": "USER_ID", "username": "USER_ID", "customer_id": "USER_ID",
    "reservation_id": "RESERVATION_ID", "reservations": "RESERVATION_ID",
    "reservation_ids": "RESERVATION_ID", "confirmation_number": "RESERVATION_ID",
    "payment_id": "PAYMENT_ID", "payment_method_id": "PAYMENT_ID",
    "last_four": "LAST_FOUR", "card_last_four": "LAST_FOUR", "last4": "LAST_FOUR",
    "phone": "PHONE_NUMBER", "phone_number": "PHONE_NUMBER", "mobile": "PHONE_NUMBER",
    "telephone": "PHONE_NUMBER",
}
#: JSON keys whose values are business facts, never personal: not analyzed, never rewritten.
SKIP_KEYS = frozenset({
    "flight_number", "origin", "destination", "cabin", "date", "status", "membership",
    "flight_type", "insurance", "source", "brand", "country", "state", "province",
    "created_at", "scheduled_departure_time_est", "scheduled_arrival_time_est",
    "actual_departure_time_est", "actual_arrival_time_est", "estimated_departure_time_est",
    "estimated_arrival_time_est", "expression", "total_baggages", "nonfree_baggages",
    "amount", "price", "prices", "available_seats", "task_id", "trial", "reward",
    "source_format", "gt_data_hash", "name_of_tool", "type", "role", "tool_call_id",
})
#: Entities replaced record-wide, also inside the policy (role=system) text.
PROPAGATE_EVERYWHERE = frozenset({"USER_ID", "RESERVATION_ID", "PAYMENT_ID", "EMAIL_ADDRESS",
                                  "PHONE_NUMBER", "CREDIT_CARD"})
#: Entities replaced only where a key names them (never searched for in other strings).
KEY_POSITION_ONLY = frozenset({"CITY"})
NAME_ENTITIES = frozenset({"PERSON", "FIRST_NAME", "LAST_NAME"})

#: Words that are never name words when NER proposes them (domain vocabulary, greetings).
DEFAULT_KEEP_WORDS = frozenset("""
economy basic business first class gold silver regular platinum premium airline airlines agent
international airport intl visa mastercard master amex discover card credit gift certificate
certificates hat user id
reservation reservations booking thanks thank hello hi hey dear yes no okay ok sure please
great travel insurance flight flights direct one way round trip option options total usd est pst
am pm monday tuesday wednesday thursday friday saturday sunday january february march april may
june july august september october november december usa airport baggage bags bag checked
cabin seat seats refund cancel cancellation policy customer service support human mr mrs ms
""".split())
_HONORIFICS = {"mr", "mrs", "ms", "miss", "dr", "prof", "sir", "madam", "hi", "hello", "hey",
               "dear", "thanks", "thank", "captain", "mx"}

_NAME_WORD_RE = re.compile(r"^[A-Z\u00C0-\u00DE][a-z\u00DF-\u00FF]+"
                           r"(?:[-'][A-Z\u00C0-\u00DE]?[a-z\u00DF-\u00FF]+)*$"
                           r"|^(?:Mc|Mac|O')[A-Z][a-z]+$")
_NOT_JSON = object()
# a lower-case word standing alone in text (not inside an id, e-mail or file name)
_LOWER_WORD_RE = re.compile(r"(?<![\w@.'\u2019-])[a-z]{2,}(?![\w@]|\.\w)")
_EMBEDDED_KV_RE = re.compile(
    r'\\?"(?P<k>[A-Za-z_][A-Za-z0-9_]*)\\?"\s*:\s*\\?"(?P<v>[^"\\\n]{1,200})\\?"')
_PHONE_WORD_BEFORE_RE = re.compile(r"(?i)\b(?:phone|telephone|tel|cell|cellphone|mobile|call|text"
                                   r"|contact|number)\b[^\n\d]{0,25}$")
_PHONE_FORMAT_RE = re.compile(r"\d[\s()-]+\d|^\+|^\(")
_AMOUNT_RE = re.compile(r"^\d{1,7}[.,]\d{1,2}$")
_JSON_KEY_RE = re.compile(r'\\?"([^"\\\n]{2,40})\\?"\s*:')
_YEAR_LIKE_RE = re.compile(r"(?:19|20)\d\d")
_PLACE_WORD_RE = re.compile(r"\b(?:International|Airport|Airlines|Intl)\b")
_PLACE_AFTER_RE = re.compile(r"\s*(?:[A-Z]\.\s*)?(?:[A-Z][a-z]+\s+){0,2}"
                             r"(?:International|Airport|Airlines|Intl)\b")


@dataclass
class _Scan:
    """What phase 1 found in one record."""

    values: dict[str, str] = field(default_factory=dict)  # real value -> entity
    texts: list[str] = field(default_factory=list)  # free texts to send through presidio
    json_docs: dict[str, Any] = field(default_factory=dict)  # JSON text -> parsed (or _NOT_JSON)
    extra_digests: set[str] = field(default_factory=set)  # e.g. "First Last" full names
    cities: set[str] = field(default_factory=set)
    events: Counter = field(default_factory=Counter)  # entity -> detections
    sources: Counter = field(default_factory=Counter)  # recognizer / key rule -> detections


class Anonymizer:
    """Pseudonymize :class:`LogRecord` s consistently within one run.

    ``secret``: HMAC key (bytes/str); default ``$TRAJPIPE_SECRET``, else random per run, never
    written anywhere. ``analyzer``: a presidio ``AnalyzerEngine`` (default
    :func:`~pipeline.anonymize.engine.build_analyzer`, built lazily on first use).
    ``score_threshold``: minimum presidio/regex score for a detection. ``chunk_size``: records
    whose free text is batched through spaCy together (and whose real values are all known
    before any fake is drawn, so a fake never equals a real value of the same chunk).
    ``keep_words``: extra words never taken as name words from NER.

    After a run, :attr:`digests` holds the HMAC digests of every real personal value that was
    replaced, and :meth:`is_real` tests a candidate value against them.
    """

    NER_CACHE_MAX = 200_000  # distinct texts kept with their analysis results

    def __init__(self, secret: bytes | str | None = None,
                 analyzer: Optional[AnalyzerEngine] = None, score_threshold: float = 0.5,
                 chunk_size: int = 512, batch_size: int = 64,
                 keep_words: Iterable[str] = ()):
        self.score_threshold = score_threshold
        self.chunk_size = max(1, int(chunk_size))
        self.batch_size = batch_size
        self._analyzer = analyzer
        self.digests: set[str] = set()
        self.pseudonymizer = Pseudonymizer(secret, is_taken=self.is_real)
        self._keep_words = set(DEFAULT_KEEP_WORDS) | {w.lower() for w in keep_words}
        self._ner_cache: dict[str, list[tuple[str, int, int, float, str]]] = {}
        self._counts: dict[str, Counter] = {
            k: Counter() for k in ("entities", "detections", "sources", "replacements", "stats")}

    # -- public API --------------------------------------------------------------------------
    @property
    def analyzer(self) -> AnalyzerEngine:
        """The presidio analyzer (built on first access when none was given)."""
        if self._analyzer is None:
            self._analyzer = build_analyzer()
        return self._analyzer

    def digest(self, value: str) -> str:
        """HMAC digest of the normalized ``value`` under this run's secret."""
        return self.pseudonymizer.digest(value)

    def is_real(self, value: str) -> bool:
        """True if ``value`` (normalized) is one of the real personal values replaced so far."""
        return self.pseudonymizer.digest(value) in self.digests

    def anonymize_record(self, rec: LogRecord) -> LogRecord:
        """Pseudonymize one record (see :meth:`anonymize`)."""
        return next(iter(self.anonymize([rec])))

    def anonymize(self, records: Iterable[LogRecord]) -> Iterator[LogRecord]:
        """Yield a pseudonymized copy of every record, in order, ``id`` unchanged.

        Records are processed in chunks of ``chunk_size``: detection over the chunk first
        (spaCy batched), then replacement.
        """
        chunk: list[LogRecord] = []
        for rec in records:
            chunk.append(rec if isinstance(rec, LogRecord) else LogRecord.model_validate(rec))
            if len(chunk) >= self.chunk_size:
                yield from self._process_chunk(chunk)
                chunk = []
        if chunk:
            yield from self._process_chunk(chunk)

    def report(self) -> dict:
        """Counts so far (no values, no secret).

        ``records``; ``entities``: distinct real values per entity type, summed over records
        (name words count as FIRST_NAME/LAST_NAME); ``detections``: detection events per entity
        type; ``sources``: detection events per recognizer name or ``key:<json key>`` rule
        (``key_is:*`` for dict keys that are ids, ``derived:user_id_name`` for name words taken
        from ``first_last_dddd`` ids); ``replacements``: occurrences rewritten per entity type;
        ``distinct_real_values``: size of :attr:`digests`; ``texts_analyzed`` /
        ``ner_cache_hits``: spaCy work; ``person_spans_dropped`` / ``phone_spans_dropped``: NER
        PERSON spans and bare-digit phone matches vetoed.
        """
        c = self._counts
        return {
            "records": c["stats"]["records"],
            "entities": dict(sorted(c["entities"].items())),
            "detections": dict(sorted(c["detections"].items())),
            "sources": dict(sorted(c["sources"].items())),
            "replacements": dict(sorted(c["replacements"].items())),
            "distinct_real_values": len(self.digests),
            "texts_analyzed": c["stats"]["texts_analyzed"],
            "ner_cache_hits": c["stats"]["ner_cache_hits"],
            "person_spans_dropped": c["stats"]["person_spans_dropped"],
            "phone_spans_dropped": c["stats"]["phone_spans_dropped"],
        }

    # -- phase 1: collect --------------------------------------------------------------------
    def _register(self, scan: _Scan, value: str, entity: str, source: str) -> None:
        value = value.strip()
        if len(value) < 2:
            return
        if entity in NAME_ENTITIES:
            words = re.findall(r"[^\W\d_]+(?:['-][^\W\d_]+)*", value)
            if not words:
                return
            if len(words) > 1:
                scan.extra_digests.add(self.digest(value))
            for i, w in enumerate(words):
                if len(w) < 2:
                    continue
                if entity == "PERSON":
                    role = "LAST_NAME" if (i == len(words) - 1 and len(words) > 1) else "FIRST_NAME"
                else:
                    role = entity
                scan.values.setdefault(w, role)
            if entity != "PERSON" and len(words) > 1:
                scan.values.setdefault(value, entity)
        else:
            prev = scan.values.get(value)
            if prev is None or prev in NAME_ENTITIES:
                scan.values[value] = entity
            if entity == "USER_ID":
                m = re.match(r"^([A-Za-z]+(?:_[A-Za-z]+)*)_\d+$", value)
                if m:  # the name words inside a first_last_dddd id are names too
                    parts = m.group(1).split("_")
                    for i, p in enumerate(parts):
                        role = "LAST_NAME" if i == len(parts) - 1 and i > 0 else "FIRST_NAME"
                        if len(p) >= 2 and p.lower() not in self._keep_words:
                            scan.values.setdefault(p[0].upper() + p[1:].lower(), role)
                    scan.sources["derived:user_id_name"] += 1
            if entity == "CITY":
                scan.cities.add(value.lower())
        scan.events[entity] += 1
        scan.sources[source] += 1

    def _collect_key(self, scan: _Scan, k: str) -> None:
        for rx, ent, src in ((PAYMENT_ID_RE, "PAYMENT_ID", "key_is:payment_id"),
                             (USER_ID_RE, "USER_ID", "key_is:user_id")):
            m = rx.match(k)
            if m and m.group("v") == k:
                self._register(scan, k, ent, src)

    def _key_entity(self, key: Optional[str], value: str) -> Optional[str]:
        if key is None:
            return None
        if key == "id":
            m = PAYMENT_ID_RE.match(value)
            return "PAYMENT_ID" if m and m.group("v") == value else None
        if key == "address" and isinstance(value, str):
            return "STREET_ADDRESS"
        return KEY_RULES.get(key)

    def _collect_obj(self, scan: _Scan, obj: Any, key: Optional[str]) -> None:
        if isinstance(obj, dict):
            fn, ln = obj.get("first_name"), obj.get("last_name")
            if isinstance(fn, str) and isinstance(ln, str):
                scan.extra_digests.add(self.digest(f"{fn} {ln}"))
            for k, v in obj.items():
                if isinstance(k, str):
                    self._collect_key(scan, k)
                self._collect_obj(scan, v, k.lower() if isinstance(k, str) else None)
        elif isinstance(obj, list):
            for v in obj:
                self._collect_obj(scan, v, key)
        elif isinstance(obj, (str, int)) and not isinstance(obj, bool):
            if key in SKIP_KEYS:
                return
            s = str(obj)
            ent = self._key_entity(key, s)
            if ent:
                self._register(scan, s, ent, f"key:{key}")
            elif isinstance(obj, str):
                if any(c.isspace() for c in s.strip()):
                    scan.texts.append(s)
                else:
                    self._collect_patterns(scan, s, structured_only=False)

    def _collect_patterns(self, scan: _Scan, text: str, structured_only: bool) -> None:
        for h in _resolve_overlaps(
                [(h.entity_type, h.start, h.end, h.score, h.recognizer)
                 for h in detect_patterns(text, structured_only=structured_only)]):
            if h[3] >= self.score_threshold:
                self._register(scan, text[h[1]:h[2]], h[0], h[4])

    def _parse_json(self, scan: _Scan, text: str) -> Any:
        if text in scan.json_docs:
            return scan.json_docs[text]
        doc: Any = _NOT_JSON
        t = text.lstrip()
        if t[:1] in ("{", "["):
            try:
                doc = json.loads(text)
            except (ValueError, RecursionError):
                doc = _NOT_JSON
        scan.json_docs[text] = doc
        return doc

    def _collect_text(self, scan: _Scan, text: Any, role: Optional[str], maybe_json: bool) -> None:
        if not isinstance(text, str) or not text.strip():
            return
        if maybe_json:
            doc = self._parse_json(scan, text)
            if doc is not _NOT_JSON:
                self._collect_obj(scan, doc, None)
                return
        if role == "system":
            self._collect_patterns(scan, text, structured_only=True)
        else:
            scan.texts.append(text)
            if '":' in text:  # JSON fragments inside text (flattened transcripts, quoted results)
                for m in _EMBEDDED_KV_RE.finditer(text):
                    key, value = m.group("k").lower(), m.group("v")
                    ent = self._key_entity(key, value)
                    if ent:
                        self._register(scan, value, ent, f"embedded_key:{key}")

    def _collect_record(self, rec: LogRecord) -> _Scan:
        scan = _Scan()
        for m in rec.messages:
            role = m.get("role")
            content = m.get("content")
            if isinstance(content, list):
                for part in content:
                    if isinstance(part, dict) and isinstance(part.get("text"), str):
                        self._collect_text(scan, part["text"], role, role == "tool")
            else:
                self._collect_text(scan, content, role, role == "tool")
            for tc in m.get("tool_calls") or []:
                args = (tc.get("function") or {}).get("arguments")
                if isinstance(args, (dict, list)):
                    self._collect_obj(scan, args, None)
                else:
                    self._collect_text(scan, args, role, True)
        self._collect_obj(scan, rec.metadata, None)
        return scan

    def _run_ner(self, texts: list[str]) -> None:
        if len(self._ner_cache) > self.NER_CACHE_MAX:
            self._ner_cache.clear()
        todo = list(dict.fromkeys(t for t in texts if t not in self._ner_cache))
        self._counts["stats"]["ner_cache_hits"] += len(texts) - len(todo)
        if not todo:
            return
        batch = BatchAnalyzerEngine(self.analyzer)
        results = batch.analyze_iterator(todo, language="en", batch_size=self.batch_size,
                                         entities=ANALYZED_ENTITIES,
                                         score_threshold=self.score_threshold)
        for text, res in zip(todo, results):
            hits = [(r.entity_type, r.start, r.end, r.score,
                     (r.recognition_metadata or {}).get("recognizer_name", "presidio"))
                    for r in res]
            self._ner_cache[text] = _resolve_overlaps(hits)
        self._counts["stats"]["texts_analyzed"] += len(todo)

    def _person_runs(self, span: str, stop: set[str]) -> list[str]:
        """Name-like word runs of a NER PERSON span: Capitalized words only; greetings,
        honorifics, ALLCAPS words, digits and ``stop`` words (domain vocabulary, words the chunk
        also uses in lower case, words spaCy calls locations) cut the span."""
        runs, cur = [], []
        for w in re.findall(r"[^\s,;:()\[\]\"!?/*]+", span):
            w = re.sub(r"(?:'s|\u2019s|[.'\u2019])$", "", w)
            ok = (bool(_NAME_WORD_RE.match(w)) and w.lower() not in stop
                  and w.lower() not in _HONORIFICS)
            if ok:
                cur.append(w)
            elif cur:
                runs.append(" ".join(cur))
                cur = []
        if cur:
            runs.append(" ".join(cur))
        return [r for r in runs if " " in r or len(r) >= 3]

    def _chunk_stop_words(self, recs: list[LogRecord], scans: list[_Scan]) -> set[str]:
        """Words never taken as names from NER in this chunk (see :meth:`_person_runs`)."""
        stop = set(self._keep_words)
        texts = [t for sc in scans for t in sc.texts]
        for rec in recs:
            for m in rec.messages:
                if m.get("role") == "system" and isinstance(m.get("content"), str):
                    texts.append(m["content"])
                    stop.update(w.lower() for w in re.findall(r"\b[A-Z][a-z]+\b", m["content"]))
        for sc in scans:  # JSON keys are schema / catalogue vocabulary, not names
            for doc in sc.json_docs.values():
                if doc is not _NOT_JSON:
                    _json_key_words(doc, stop)
        for t in texts:
            stop.update(_LOWER_WORD_RE.findall(t))
            if '":' in t:
                for k in _JSON_KEY_RE.findall(t):
                    stop.update(w.lower() for w in re.findall(r"[A-Za-z]+", k))
            for ent, s, e, _score, _name in self._ner_cache.get(t, ()):
                if ent == "LOCATION":
                    stop.update(w.lower() for w in re.findall(r"[A-Za-z]+", t[s:e]))
        return stop

    def _apply_ner(self, scan: _Scan, stop: set[str]) -> None:
        local_stop = stop | scan.cities
        for text in scan.texts:
            for ent, s, e, score, rec_name in self._ner_cache.get(text, []):
                if score < self.score_threshold or ent == "LOCATION":
                    continue
                value = text[s:e]
                if ent == "PERSON":
                    if _PLACE_AFTER_RE.match(text, e) or _PLACE_WORD_RE.search(value):
                        # "John F. Kennedy International Airport" is a place
                        runs = []
                    else:
                        runs = self._person_runs(value, local_stop)
                    if not runs:
                        self._counts["stats"]["person_spans_dropped"] += 1
                    for run in runs:
                        self._register(scan, run, "PERSON", rec_name)
                elif ent == "PHONE_NUMBER" and (
                        sum(c.isdigit() for c in value) < 7 or _AMOUNT_RE.match(value)
                        or (not _PHONE_FORMAT_RE.search(value)
                            and not _PHONE_WORD_BEFORE_RE.search(text[max(0, s - 40):s]))):
                    # amounts, and bare digit strings (item / order ids) unless a phone word
                    # precedes them (presidio's context match is by substring: "Headphones"
                    # counts as "phone")
                    self._counts["stats"]["phone_spans_dropped"] += 1
                else:
                    self._register(scan, value, ent, rec_name)

    # -- phase 2: rewrite --------------------------------------------------------------------
    def _build_replacer(self, scan: _Scan):
        pz = self.pseudonymizer
        fakes: dict[str, str] = {}
        table_all: dict[str, tuple[str, str]] = {}
        table_sys: dict[str, tuple[str, str]] = {}
        for value, ent in scan.values.items():
            fake = pz.pseudonym(value, ent)
            fakes[value] = fake
            if ent in KEY_POSITION_ONLY:
                continue
            if ent in NAME_ENTITIES and value.lower() in self._keep_words:
                continue  # a person called "May" or "Gold": replaced where a key says so only
            variants = {value: fake}
            if ent in NAME_ENTITIES:
                cap = value[0].upper() + value[1:]
                variants = {cap: match_case(cap, fake)}
                if not value.islower():
                    variants[value] = match_case(value, fake)
            elif ent == "EMAIL_ADDRESS":
                variants[value.lower()] = fake.lower()
            for v, f in variants.items():
                table_all.setdefault(v, (f, ent))
                if ent in PROPAGATE_EVERYWHERE:
                    table_sys.setdefault(v, (f, ent))
        return fakes, _Replacer(table_all, self._counts["replacements"]), \
            _Replacer(table_sys, self._counts["replacements"])

    def _rewrite_obj(self, obj: Any, key: Optional[str], fakes: dict[str, str],
                     rep: "_Replacer") -> Any:
        if isinstance(obj, dict):
            return {(rep(k) if isinstance(k, str) else k):
                    self._rewrite_obj(v, k.lower() if isinstance(k, str) else None, fakes, rep)
                    for k, v in obj.items()}
        if isinstance(obj, list):
            return [self._rewrite_obj(v, key, fakes, rep) for v in obj]
        if key in SKIP_KEYS or isinstance(obj, bool):
            return obj
        if isinstance(obj, int):
            s = str(obj)
            if self._key_entity(key, s) and s in fakes and fakes[s].isdigit():
                rep.counter[self._key_entity(key, s)] += 1
                return int(fakes[s])
            return obj
        if isinstance(obj, str):
            ent = self._key_entity(key, obj)
            if ent and obj.strip() in fakes:
                rep.counter[ent] += 1
                return fakes[obj.strip()]
            return rep(obj)
        return obj

    def _rewrite_text(self, scan: _Scan, text: Any, maybe_json: bool, fakes, rep) -> Any:
        if not isinstance(text, str) or not text:
            return text
        if maybe_json:
            doc = self._parse_json(scan, text)
            if doc is not _NOT_JSON:
                new = self._rewrite_obj(doc, None, fakes, rep)
                return text if new == doc else _dumps_like(new, doc, text)
        return rep(text)

    def _rewrite_record(self, rec: LogRecord, scan: _Scan) -> LogRecord:
        fakes, rep_all, rep_sys = self._build_replacer(scan)
        messages = []
        for m in rec.messages:
            role = m.get("role")
            rep = rep_sys if role == "system" else rep_all
            nm = dict(m)
            content = m.get("content")
            if isinstance(content, list):
                parts = []
                for part in content:
                    if isinstance(part, dict) and isinstance(part.get("text"), str):
                        part = {**part, "text": self._rewrite_text(scan, part["text"],
                                                                   role == "tool", fakes, rep)}
                    parts.append(part)
                nm["content"] = parts
            elif content is not None:
                nm["content"] = self._rewrite_text(scan, content, role == "tool", fakes, rep)
            if m.get("tool_calls"):
                calls = []
                for tc in m["tool_calls"]:
                    tc = dict(tc)
                    fn = dict(tc.get("function") or {})
                    args = fn.get("arguments")
                    if isinstance(args, (dict, list)):
                        fn["arguments"] = self._rewrite_obj(args, None, fakes, rep)
                    elif args is not None:
                        fn["arguments"] = self._rewrite_text(scan, args, True, fakes, rep)
                    tc["function"] = fn
                    calls.append(tc)
                nm["tool_calls"] = calls
            messages.append(nm)
        metadata = self._rewrite_obj(rec.metadata, None, fakes, rep_all)
        return LogRecord(id=rec.id, messages=messages,
                         tools=json.loads(json.dumps(rec.tools)) if rec.tools is not None else None,
                         metadata=metadata)

    def _process_chunk(self, recs: list[LogRecord]) -> list[LogRecord]:
        scans = [self._collect_record(r) for r in recs]
        self._run_ner([t for s in scans for t in s.texts])
        stop = self._chunk_stop_words(recs, scans)
        for scan in scans:
            self._apply_ner(scan, stop)
            for v in scan.values:
                self.digests.add(self.digest(v))
            self.digests.update(scan.extra_digests)
        out = []
        for rec, scan in zip(recs, scans):
            out.append(self._rewrite_record(rec, scan))
            self._counts["entities"].update(scan.values.values())
            self._counts["detections"].update(scan.events)
            self._counts["sources"].update(scan.sources)
            self._counts["stats"]["records"] += 1
        return out


class _Replacer:
    """One-pass, longest-first, boundary-aware substitution of known real values.

    Digit-only values (zip, last four) get stricter boundaries so they never match inside a
    date, a time, an amount or a longer number ("2024-05-20", "$7447.50", "12:30"). A digit-only
    value that looks like a year (1900-2099) is replaced only in a card context ("ending in
    1990", "my 1990 card"), never as a bare number ("May 20, 2024").
    """

    _GEN = r"(?<![A-Za-z0-9_])(?:{})(?![A-Za-z0-9_])"
    _NUM = r"(?<![A-Za-z0-9_$/:.,-])(?:{})(?![A-Za-z0-9_]|[-/:.,]\d)"

    def __init__(self, table: dict[str, tuple[str, str]], counter: Counter):
        self.table = table
        self.counter = counter
        self.years = {v for v in table if _YEAR_LIKE_RE.fullmatch(v)}
        words = sorted((v for v in table if not v.isdigit()), key=len, reverse=True)
        nums = sorted((v for v in table if v.isdigit() and v not in self.years), key=len,
                      reverse=True)
        parts = []
        if words:
            parts.append(self._GEN.format("|".join(map(re.escape, words))))
        if nums:
            parts.append(self._NUM.format("|".join(nums)))
        self.rx = re.compile("|".join(parts)) if parts else None

    def _sub(self, m: re.Match) -> str:
        fake, ent = self.table[m.group(0)]
        self.counter[ent] += 1
        return fake

    def _sub_year(self, m: re.Match) -> str:
        v = m.group("v")
        if v not in self.years:
            return m.group(0)
        fake, ent = self.table[v]
        self.counter[ent] += 1
        g, off = m.group(0), m.start()
        return g[:m.start("v") - off] + fake + g[m.end("v") - off:]

    def __call__(self, text: str) -> str:
        """``text`` with every known real value replaced by its fake."""
        if not text:
            return text
        if self.rx is not None:
            text = self.rx.sub(self._sub, text)
        if self.years:
            for rx in LAST_FOUR_RES:
                text = rx.sub(self._sub_year, text)
        return text


def _json_key_words(obj: Any, out: set[str]) -> None:
    """Add the words of every dict key in ``obj`` (recursively) to ``out``, lower-cased."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if isinstance(k, str) and not PAYMENT_ID_RE.match(k) and not USER_ID_RE.match(k):
                out.update(w.lower() for w in re.findall(r"[A-Za-z]+", k))
            _json_key_words(v, out)
    elif isinstance(obj, list):
        for v in obj:
            _json_key_words(v, out)


_Hit = tuple[str, int, int, float, str]  # entity, start, end, score, recognizer


def _resolve_overlaps(hits: list[_Hit]) -> list[_Hit]:
    """Keep the best of overlapping spans: higher score, then longer."""
    kept: list[_Hit] = []
    for h in sorted(hits, key=lambda h: (-h[3], -(h[2] - h[1]), h[1])):
        if all(h[2] <= k[1] or h[1] >= k[2] for k in kept):
            kept.append(h)
    return sorted(kept, key=lambda h: h[1])


def _dumps_like(new: Any, old: Any, original: str) -> str:
    """Serialize ``new`` in the layout (separators, ASCII escaping, indent) of ``original``."""
    for kwargs in ({}, {"separators": (",", ":")}, {"indent": 2}, {"indent": 4}):
        for ea in (True, False):
            if json.dumps(old, ensure_ascii=ea, **kwargs) == original:
                return json.dumps(new, ensure_ascii=ea, **kwargs)
    return json.dumps(new, ensure_ascii=False)
