"""Labelled evaluation of the anonymizer on the tau-bench logs: recall and precision per entity type.

The tau-bench databases say which values are personal, so the logs come with ground truth:

* **airline** - ``logs/airline-gpt4o-trajectories.json`` (canonical records through the ingest
  reader), ground truth from ``airline/users.json`` and ``airline/reservations.json``;
* **airline-transcripts** - ``logs/airline-transcripts.jsonl`` (flattened transcripts);
* **retail** - ``logs/retail-transcripts.jsonl``, ground truth from ``retail/users.json`` and
  ``retail/orders.json``;
* **planted** - the personas of :mod:`pipeline.anonymize.planted` (phone numbers, card numbers,
  secrets, order ids, names split across turns, UPPER case, URLs), ground truth as planted.

A flattened transcript (``{"messages_display": "user: ...\\nassistant: ...\\ntool: ..."}``) becomes
one :class:`~pipeline.records.LogRecord` with one message per ``role: text`` turn (continuation
lines stay with their turn; ``assistant: None`` - a hidden tool call - is a message with no
content).

**Ground truth per record.** The people a record is about: the user of the task (airline
metadata), every DB user id, e-mail, reservation / order id and "First Last" full name that
occurs in the record, the owners and passengers of the reservations / orders that occur, and
the users' saved passengers. Their values, per type: ``NAME`` (first and last name words),
``EMAIL``, ``ADDRESS`` (address line 1 and line 2), ``ZIP``, ``DOB``, ``PAYMENT_ID``,
``LAST_FOUR``, ``USER_ID``, ``RESERVATION_ID`` / ``ORDER_ID``; plus every value under a key
the DB schema marks personal (:data:`SCHEMA_KEYS`) anywhere in the record's JSON (a new
passenger, a new address, an id the sandbox issued).

**Recall** (per type) = 1 - (occurrences of the record's ground-truth values left in the
output) / (occurrences in the input), counted over every string of the record except the
policy (``role=system``) - message text, tool-call arguments, tool results, metadata. An
occurrence is a whole-token match: names case-sensitively in their Capitalized and UPPER
forms (a lower-case "mark" or "may" is a word, not a name; a 3-letter name in upper case,
"MIA", is an airport code); ids and e-mails case-insensitively;
dates of birth in ISO, US and "April 5, 1990" styles; order ids as ``#W1234567``,
``W1234567`` or the bare digits; digit values (zip, last four) only as whole numbers that are
not part of a date, time, amount or longer number; payment ids also by their bare number
("Gift Card 7091239").

**Precision** (per type) = share of the anonymizer's replacements (its in-memory trace of
every replaced occurrence, :meth:`~pipeline.anonymize.Anonymizer.enable_trace`) whose original
value is personal: a ground-truth value of the record (any form above), a non-numeric
personal value anywhere in the DB, or - for name words the DB does not know (a friend named
in the instruction) - a first or last name in Faker's en_US person-name lists; e-mails, phone
numbers, card numbers, payment ids and secrets count as personal by type. Everything else is a false
positive. ``precision_db`` counts only DB-confirmed values (a lower bound).

**Utility**: business facts that must survive - flight numbers, airport codes, prices and
amounts, flight dates and times, cabins (airline), item / product ids, prices, product names
(retail): share of their input occurrences still present in the output, and the share of
records whose policy text is unchanged.

Run ``python -m pipeline.anonymize.eval`` (or ``trajpipe anonymize --eval`` once wired).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Optional

from ..records import LogRecord

PROJECT_ROOT = Path(__file__).resolve().parents[2]
TAU_ENV = "TRAJPIPE_TAU_DIR"
SETS = ("airline", "airline-transcripts", "retail", "planted")

#: Recall/precision rows, in print order.
CATEGORIES = ("NAME", "EMAIL", "PHONE", "ADDRESS", "ZIP", "DOB", "PAYMENT_ID", "LAST_FOUR",
              "CARD_NUMBER", "USER_ID", "RESERVATION_ID", "ORDER_ID", "ACCOUNT_ID", "VEHICLE_ID", "IBAN",
              "SSN", "SECRET", "CITY", "OTHER")
#: Minimum recall per type (issue 3): structured identifiers 100%, names and addresses 98%.
RECALL_TARGETS = {"EMAIL": 1.0, "PHONE": 1.0, "ZIP": 1.0, "DOB": 1.0, "PAYMENT_ID": 1.0,
                  "CARD_NUMBER": 1.0, "USER_ID": 1.0, "RESERVATION_ID": 1.0, "ORDER_ID": 1.0,
                  "SECRET": 1.0, "LAST_FOUR": 1.0, "NAME": 0.98, "ADDRESS": 0.98,
                  "ACCOUNT_ID": 1.0, "VEHICLE_ID": 1.0, "IBAN": 1.0, "SSN": 1.0}
PRECISION_TARGET = 0.90
UTILITY_TARGET = 1.0

#: Anonymizer entity type -> evaluation row.
ENTITY_CATEGORY = {
    "PERSON": "NAME", "FIRST_NAME": "NAME", "LAST_NAME": "NAME", "EMAIL_ADDRESS": "EMAIL",
    "PHONE_NUMBER": "PHONE", "STREET_ADDRESS": "ADDRESS", "ADDRESS_LINE2": "ADDRESS",
    "ZIP": "ZIP", "DATE_OF_BIRTH": "DOB", "PAYMENT_ID": "PAYMENT_ID", "LAST_FOUR": "LAST_FOUR",
    "CREDIT_CARD": "CARD_NUMBER", "USER_ID": "USER_ID", "RESERVATION_ID": "RESERVATION_ID",
    "ORDER_ID": "ORDER_ID", "CITY": "CITY", "PASSWORD": "SECRET", "API_KEY": "SECRET",
    "ACCESS_TOKEN": "SECRET", "SESSION_ID": "SECRET", "SECRET": "SECRET",
    "ACCOUNT_ID": "ACCOUNT_ID", "VEHICLE_ID": "VEHICLE_ID", "IBAN_CODE": "IBAN", "SSN": "SSN", "US_SSN": "SSN",
    "FILE_NAME": "NAME",  # an attachment's file name replaced for the person named in it
}
_BY_TYPE_PERSONAL = {"EMAIL", "PHONE", "CARD_NUMBER", "SECRET", "PAYMENT_ID", "IBAN", "SSN"}

_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December"]


def default_tau_dir() -> Path:
    """``$TRAJPIPE_TAU_DIR``, else ``data/tau-bench`` under ``$TRAJPIPE_SHARED_DIR``, else
    ``../shared/data/tau-bench`` beside the project."""
    env = os.environ.get(TAU_ENV)
    if env:
        return Path(env)
    shared = os.environ.get("TRAJPIPE_SHARED_DIR")
    return (Path(shared) if shared else PROJECT_ROOT.parent / "shared") / "data" / "tau-bench"


# ------------------------------------------------------------------------------ records
def transcript_to_record(display: str, rid: str, domain: str) -> LogRecord:
    """A flattened ``messages_display`` transcript as a :class:`LogRecord`, one message per
    ``user:`` / ``assistant:`` / ``tool:`` turn (``assistant: None`` = a hidden tool call), split
    by :func:`pipeline.ingest.transcripts.split_turns`."""
    from pipeline.ingest.transcripts import split_turns  # the one transcript parser

    messages = split_turns(display)
    return LogRecord(id=rid, messages=messages,
                     metadata={"source_format": "transcript", "domain": domain})


def record_strings(rec: LogRecord, include_system: bool = False) -> list[str]:
    """Every string of a record (message text, tool-call arguments, metadata values and keys),
    the policy (``role=system``) left out unless ``include_system``."""
    out: list[str] = []

    def walk(obj: Any) -> None:
        if isinstance(obj, str):
            out.append(obj)
        elif isinstance(obj, dict):
            for k, v in obj.items():
                if isinstance(k, str):
                    out.append(k)
                walk(v)
        elif isinstance(obj, list):
            for v in obj:
                walk(v)
        elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
            out.append(str(obj))

    for m in rec.messages:
        if m.get("role") == "system" and not include_system:
            continue
        walk(m.get("content"))
        for tc in m.get("tool_calls") or []:
            walk((tc.get("function") or {}).get("arguments"))
    walk(rec.metadata)
    return out


# ------------------------------------------------------------------------------ ground truth
def _dob_forms(iso: str) -> set[str]:
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", iso):  # planted as written ("10.01.1952")
        return {iso}
    y, mo, d = (int(x) for x in iso.split("-"))
    mon = _MONTHS[mo - 1]
    return {iso, f"{mo:02d}/{d:02d}/{y}", f"{mo}/{d}/{y}", f"{mon} {d}, {y}", f"{mon[:3]} {d}, {y}",
            f"{mon} {d} {y}", f"{d} {mon} {y}"}


def _name_words(*names: str) -> set[str]:
    return {w for n in names for w in re.findall(r"[^\W\d_]+(?:['-][^\W\d_]+)*", n or "")
            if len(w) >= 2}


@dataclass
class Truth:
    """Ground truth of one record: type -> real values (and every form they may take)."""

    values: dict[str, set[str]] = field(default_factory=dict)

    def add(self, cat: str, *vals: Optional[str]) -> None:
        bucket = self.values.setdefault(cat, set())
        for v in vals:
            if v:
                bucket.add(str(v))

    def personal_forms(self) -> set[str]:
        """Every value and form, case-folded (for classifying replacements)."""
        out = set()
        for cat, vals in self.values.items():
            for v in vals:
                out.add(v.casefold())
                if cat == "EMAIL":
                    out.add(v.casefold().replace("@", "%40"))
                if cat == "DOB":
                    out.update(f.casefold() for f in _dob_forms(v))
                if cat == "ORDER_ID":
                    digits = v.lstrip("#W")
                    out.update({digits, "w" + digits, "#" + digits})
                if cat == "PAYMENT_ID":  # its number, and the last four digits of it
                    digits = v.rsplit("_", 1)[-1]
                    out.update({digits, digits[-4:]})
        return out


@dataclass
class EvalSet:
    """Records of one log source with per-record ground truth and the DB's personal values."""

    name: str
    records: list[LogRecord]
    truth: list[Truth]
    db_personal: set[str]  # case-folded non-numeric personal values of the whole DB (+ name words)
    utility_patterns: dict[str, re.Pattern]


def _airline_db(tau: Path):
    users = json.loads((tau / "airline" / "users.json").read_text(encoding="utf-8"))
    res = json.loads((tau / "airline" / "reservations.json").read_text(encoding="utf-8"))
    flights = json.loads((tau / "airline" / "flights.json").read_text(encoding="utf-8"))
    return users, res, flights


def _user_db_values(uid: str, u: dict) -> list[str]:
    """The raw personal values of one ``users.json`` record (airline or retail) that go into an
    :class:`EvalSet`'s ``db_personal``: id, email, street lines, name words, payment ids, and the
    reservation or order ids and saved passengers' name words where the domain has them."""
    vals = [uid, u.get("email", ""), u["address"]["address1"], u["address"].get("address2", "")]
    vals += _name_words(u["name"]["first_name"], u["name"]["last_name"])
    vals += list(u.get("payment_methods", {}).keys())
    vals += list(u.get("reservations", [])) + list(u.get("orders", []))
    for p in u.get("saved_passengers") or []:
        vals += _name_words(p["first_name"], p["last_name"])
    return vals


def _add_user(t: Truth, uid: str, u: dict) -> None:
    """Every personal value of one ``users.json`` record (airline or retail) into ``t``. Keys one
    domain lacks are skipped: ``dob``, ``reservations`` and ``saved_passengers`` (airline),
    ``orders`` (retail)."""
    n = u["name"]
    t.add("USER_ID", uid)
    t.add("NAME", *_name_words(n["first_name"], n["last_name"]))
    t.add("EMAIL", u.get("email"))
    if "dob" in u:
        t.add("DOB", u["dob"])
    a = u.get("address") or {}
    t.add("ADDRESS", a.get("address1"), a.get("address2"))
    t.add("CITY", a.get("city"))
    t.add("ZIP", a.get("zip"))
    for pid, p in (u.get("payment_methods") or {}).items():
        t.add("PAYMENT_ID", pid)
        t.add("LAST_FOUR", p.get("last_four"))
    if "reservations" in u:
        t.add("RESERVATION_ID", *(u["reservations"] or []))
    if "orders" in u:
        t.add("ORDER_ID", *(u["orders"] or []))
    for p in u.get("saved_passengers") or []:
        t.add("NAME", *_name_words(p.get("first_name"), p.get("last_name")))
        t.add("DOB", p.get("dob"))


_UID_RE = re.compile(r"(?<![A-Za-z0-9_])[a-z]+(?:_[a-z]+)+_\d{3,6}(?![A-Za-z0-9_])", re.I)
_TOKEN6_RE = re.compile(r"(?<![A-Za-z0-9_])[A-Z0-9]{6}(?![A-Za-z0-9_])")
_ORDER_RE = re.compile(r"(?<![A-Za-z0-9_])#?W?(\d{7})(?![A-Za-z0-9_])")
_EMAIL_RE = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")


def _full_name_index(people: Iterable[tuple[str, str, str]]) -> tuple[re.Pattern, dict]:
    """Regex over every "First Last" of the DB -> keys of the people with that name."""
    idx: dict[str, list[str]] = {}
    for key, first, last in people:
        idx.setdefault(f"{first} {last}", []).append(key)
    rx = re.compile(r"(?<![A-Za-z])(?:" + "|".join(
        re.escape(n) for n in sorted(idx, key=len, reverse=True)) + r")(?![A-Za-z])")
    return rx, idx


#: JSON keys the tau-bench DB schemas mark personal -> evaluation type.
SCHEMA_KEYS = {
    "first_name": "NAME", "last_name": "NAME", "email": "EMAIL", "dob": "DOB",
    "address1": "ADDRESS", "address2": "ADDRESS", "city": "CITY", "zip": "ZIP",
    "payment_id": "PAYMENT_ID", "payment_method_id": "PAYMENT_ID", "last_four": "LAST_FOUR",
    "user_id": "USER_ID", "reservation_id": "RESERVATION_ID", "reservations": "RESERVATION_ID",
    "order_id": "ORDER_ID", "orders": "ORDER_ID",
}
_PAYMENT_ID_RE = re.compile(r"^(?:credit_card|debit_card|gift_card|certificate|paypal|bank_account|"
                            r"apple_pay)_\d{4,}$")


def _add_schema_values(t: Truth, rec: LogRecord) -> None:
    """Values under the DB schema's personal keys anywhere in the record's JSON (tool-call
    arguments, tool results, metadata): new passengers, new addresses, ids the sandbox issued."""
    def walk(obj: Any, key: Optional[str]) -> None:
        if isinstance(obj, dict):
            for k, v in obj.items():
                if isinstance(k, str) and _PAYMENT_ID_RE.match(k):
                    t.add("PAYMENT_ID", k)
                walk(v, k.lower() if isinstance(k, str) else None)
        elif isinstance(obj, list):
            for v in obj:
                walk(v, key)
        elif isinstance(obj, str):
            cat = SCHEMA_KEYS.get(key or "")
            if key == "id" and _PAYMENT_ID_RE.match(obj):
                cat = "PAYMENT_ID"
            if cat == "NAME":
                t.add("NAME", *_name_words(obj))
            elif cat == "DOB":
                if re.fullmatch(r"\d{4}-\d\d-\d\d", obj):
                    t.add("DOB", obj)
            elif cat:
                t.add(cat, obj)
            elif obj.lstrip()[:1] in ("{", "["):
                try:
                    walk(json.loads(obj), None)
                except (ValueError, RecursionError):
                    pass

    for m in rec.messages:
        if m.get("role") == "system":
            continue
        walk(m.get("content"), None)
        for tc in m.get("tool_calls") or []:
            walk((tc.get("function") or {}).get("arguments"), None)
    walk(rec.metadata, None)


def _db_personal(values: Iterable[str]) -> set[str]:
    return {v.casefold() for v in values if v and not str(v).isdigit()}


def airline_set(tau: Path, limit: Optional[int] = None, transcripts: bool = False) -> EvalSet:
    """The airline logs (``transcripts=False``: the recorded runs through the tau-bench ingest
    reader; ``True``: the flattened transcripts) with ground truth from the airline DB."""
    from ..ingest import taubench_to_canonical

    users, reservations, flights = _airline_db(tau)
    if transcripts:
        lines = (tau / "logs" / "airline-transcripts.jsonl").read_text(encoding="utf-8").splitlines()
        records = [transcript_to_record(json.loads(s)["messages_display"], f"airline-transcript-{i}",
                                        "airline") for i, s in enumerate(lines) if s.strip()]
        name = "airline-transcripts"
    else:
        runs = json.loads((tau / "logs" / "airline-gpt4o-trajectories.json").read_text(encoding="utf-8"))
        records = [LogRecord.model_validate(taubench_to_canonical(r, i)) for i, r in enumerate(runs)]
        name = "airline"
    records = records[:limit] if limit else records
    name_rx, name_idx = _full_name_index(
        (uid, u["name"]["first_name"], u["name"]["last_name"]) for uid, u in users.items())
    truths = []
    for rec in records:
        text = "\n".join(record_strings(rec))
        t = Truth()
        uids = {m.group(0).lower() for m in _UID_RE.finditer(text)} & users.keys()
        if rec.metadata.get("user_id") in users:
            uids.add(rec.metadata["user_id"])
        for m in name_rx.finditer(text):
            uids.update(name_idx[m.group(0)])
        res_ids = {m.group(0) for m in _TOKEN6_RE.finditer(text)} & reservations.keys()
        for uid in uids:
            _add_user(t, uid, users[uid])
        for rid in res_ids:
            r = reservations[rid]
            t.add("RESERVATION_ID", rid)
            if r.get("user_id") in users:
                _add_user(t, r["user_id"], users[r["user_id"]])
            for p in r.get("passengers") or []:
                t.add("NAME", *_name_words(p.get("first_name"), p.get("last_name")))
                t.add("DOB", p.get("dob"))
            for ph in r.get("payment_history") or []:
                t.add("PAYMENT_ID", ph.get("payment_id"))
        _add_schema_values(t, rec)
        truths.append(t)
    db: set[str] = set()
    for uid, u in users.items():
        db.update(_user_db_values(uid, u))
    for rid, r in reservations.items():
        db.add(rid)
        for p in r.get("passengers") or []:
            db.update(_name_words(p["first_name"], p["last_name"]))
    airports = sorted({f["origin"] for f in flights.values()} | {f["destination"] for f in flights.values()})
    utility = {
        "flight_number": re.compile(r"\bHAT\d{3}\b"),
        "airport_code": re.compile(r"\b(?:" + "|".join(airports) + r")\b"),
        "price": re.compile(r"\$\s?\d[\d,]*(?:\.\d+)?|\"(?:price|amount|balance)\": -?\d+(?:\.\d+)?"),
        "flight_date": re.compile(r"\b2024-\d\d-\d\d\b|\bMay \d{1,2}(?:st|nd|rd|th)?\b"),
        "time": re.compile(r"\b\d\d:\d\d(?::\d\d)?\b"),
        "cabin": re.compile(r"\b(?:basic_economy|basic economy|economy|business)\b", re.I),
    }
    return EvalSet(name, records, truths, _db_personal(db), utility)


def retail_set(tau: Path, limit: Optional[int] = None) -> EvalSet:
    """The retail transcripts with ground truth from ``retail/users.json`` and ``orders.json``."""
    users = json.loads((tau / "retail" / "users.json").read_text(encoding="utf-8"))
    orders = json.loads((tau / "retail" / "orders.json").read_text(encoding="utf-8"))
    products = json.loads((tau / "retail" / "products.json").read_text(encoding="utf-8"))
    lines = (tau / "logs" / "retail-transcripts.jsonl").read_text(encoding="utf-8").splitlines()
    records = [transcript_to_record(json.loads(s)["messages_display"], f"retail-transcript-{i}", "retail")
               for i, s in enumerate(lines) if s.strip()]
    records = records[:limit] if limit else records
    by_email = {u["email"].lower(): uid for uid, u in users.items()}
    name_rx, name_idx = _full_name_index(
        (uid, u["name"]["first_name"], u["name"]["last_name"]) for uid, u in users.items())

    truths = []
    for rec in records:
        text = "\n".join(record_strings(rec))
        t = Truth()
        uids = {m.group(0).lower() for m in _UID_RE.finditer(text)} & users.keys()
        uids |= {by_email[e.lower()] for e in _EMAIL_RE.findall(text) if e.lower() in by_email}
        for m in name_rx.finditer(text):
            uids.update(name_idx[m.group(0)])
        oids = {"#W" + m.group(1) for m in _ORDER_RE.finditer(text)} & orders.keys()
        for oid in oids:
            o = orders[oid]
            t.add("ORDER_ID", oid)
            if o.get("user_id") in users:
                uids.add(o["user_id"])
            a = o.get("address") or {}
            t.add("ADDRESS", a.get("address1"), a.get("address2"))
            t.add("ZIP", a.get("zip"))
            for ph in o.get("payment_history") or []:
                t.add("PAYMENT_ID", ph.get("payment_method_id"))
        for uid in uids:
            _add_user(t, uid, users[uid])
        _add_schema_values(t, rec)
        truths.append(t)
    db: set[str] = set()
    for uid, u in users.items():
        db.update(_user_db_values(uid, u))
    names = sorted({p["name"] for p in products.values()}, key=len, reverse=True)
    utility = {
        "item_or_product_id": re.compile(r"(?<![\w#])\d{10}(?!\w)"),
        "tracking_id": re.compile(r"(?<![\w#])\d{12}(?!\w)"),
        "price": re.compile(r"\$\s?\d[\d,]*(?:\.\d+)?|\"(?:price|amount|balance)\": -?\d+(?:\.\d+)?"),
        "product_name": re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")\b"),
        "status": re.compile(r"\b(?:pending|processed|delivered|cancelled|exchange requested|"
                             r"return requested)\b"),
    }
    return EvalSet("retail", records, truths, _db_personal(db), utility)


def planted_set(limit: Optional[int] = None) -> EvalSet:
    """The planted personas of :mod:`pipeline.anonymize.planted` (phone numbers, card numbers,
    secrets, order ids, names split across turns, UPPER case, URLs), ground truth as planted."""
    from . import planted

    n = min(limit or planted.MAX_PERSONAS, planted.MAX_PERSONAS)
    records, truths = [], []
    for i in range(n):
        records.append(LogRecord.model_validate(planted.record(i)))
        t = Truth()
        for cat, vals in planted.typed_values(planted.persona(i)).items():
            t.add(cat, *vals)
        truths.append(t)
    utility = {
        "flight_number": re.compile(r"\bHAT\d{3}\b"),
        "airport_code": re.compile(r"\b(?:SFO|DEN)\b"),
        "price": re.compile(r"\"(?:price|amount)\": -?\d+"),
        "flight_date": re.compile(r"\b2024-\d\d-\d\d\b"),
    }
    return EvalSet("planted", records, truths, set(), utility)


# ------------------------------------------------------------------------------ counting
_NUM_L, _NUM_R = r"(?<![A-Za-z0-9_$/:.,-])", r"(?![A-Za-z0-9_]|[-/:.,]\d)"
_DATE_BEFORE_RE = re.compile(r"(?:(?:" + "|".join(m[:3] for m in _MONTHS) + r")[a-z]*\.? \d{1,2}"
                             r"(?:st|nd|rd|th)?,? |\d{1,2}/\d{1,2}/)$")


def occurrence_regex(cat: str, value: str) -> re.Pattern:
    """The whole-token pattern of one ground-truth value (see the module doc)."""
    if cat == "NAME":
        forms = {value, value[:1].upper() + value[1:]}
        if len(value) != 3:  # "MIA", "LEE": an upper-case 3-letter word reads as an airport code
            forms.add(value.upper())
        return re.compile(r"(?<![A-Za-z0-9_])(?:" + "|".join(map(re.escape, forms)) + r")(?![A-Za-z0-9_])")
    if cat == "DOB":
        return re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, sorted(_dob_forms(value), key=len,
                                                                         reverse=True)))
                          + r")(?![\w-])", re.I)
    if cat == "ORDER_ID":
        digits = value.lstrip("#W")
        return re.compile(r"(?<![A-Za-z0-9_])(?:#?W)?" + digits + r"(?![A-Za-z0-9_])", re.I)
    m = re.fullmatch(r"([a-z_]+)_(\d{5,})", value) if cat == "PAYMENT_ID" else None
    if m:  # "gift_card_7091239", and its number alone: "Gift Card 7091239", "certificate #7091239"
        return re.compile(r"(?<![A-Za-z0-9_])" + re.escape(value) + r"(?![A-Za-z0-9_])|"
                          + _NUM_L + m.group(2) + _NUM_R, re.I)
    if value.isdigit():
        return re.compile(_NUM_L + re.escape(value) + _NUM_R)
    if cat == "EMAIL":
        return re.compile(r"(?<![A-Za-z0-9._%+-])" + re.escape(value) + r"(?![A-Za-z0-9-])", re.I)
    return re.compile(r"(?<![A-Za-z0-9_])" + re.escape(value) + r"(?![A-Za-z0-9_])", re.I)


def count_occurrences(text: str, cat: str, value: str) -> int:
    """Occurrences of a ground-truth value in ``text`` (a year-like last four is not counted
    where it ends a date: "May 20, 2024")."""
    n = 0
    for m in occurrence_regex(cat, value).finditer(text):
        if cat == "LAST_FOUR" and _DATE_BEFORE_RE.search(text[max(0, m.start() - 20):m.start()]):
            continue
        n += 1
    return n


# ------------------------------------------------------------------------------ evaluation
def _name_lexicon() -> set[str]:
    from faker.providers.person.en_US import Provider

    return {n.casefold() for n in list(Provider.first_names) + list(Provider.last_names)}


def is_personal(entity: str, original: str, truth_forms: set[str], db_personal: set[str],
                lexicon: set[str]) -> tuple[bool, bool]:
    """``(personal, db_confirmed)`` for one replaced value (see the module doc)."""
    v = " ".join(original.split()).casefold()
    if v in truth_forms or (not v.isdigit() and v in db_personal):
        return True, True
    cat = ENTITY_CATEGORY.get(entity, "OTHER")
    if entity == "FILE_NAME":  # an attachment's name is personal when it holds a personal name word
        return any(w in truth_forms or w in db_personal for w in re.findall(r"[^\W\d_]+", v)), False
    if cat == "NAME":
        words = re.findall(r"[^\W\d_]+", v)
        return bool(words) and all(w in lexicon or w in db_personal for w in words), False
    if cat == "ORDER_ID" and v.lstrip("#w") in truth_forms:
        return True, True
    return cat in _BY_TYPE_PERSONAL, False


def evaluate(anonymizer, evalset: EvalSet, keep_misses: int = 0) -> dict[str, Any]:
    """Run ``anonymizer`` over the set (trace on) and measure recall, precision and utility
    (see :func:`score`)."""
    if anonymizer.trace is None:
        anonymizer.enable_trace()
    t0 = time.perf_counter()
    out = list(anonymizer.anonymize(evalset.records))
    seconds = time.perf_counter() - t0
    return score(evalset, out, anonymizer.trace, seconds, keep_misses)


def score(evalset: EvalSet, out: list[LogRecord], trace: Optional[dict[str, list]] = None,
          seconds: float = 0.0, keep_misses: int = 0) -> dict[str, Any]:
    """Recall, precision (when ``trace`` - record id -> ``[(entity, original), ...]`` - is
    given) and utility of ``out``, the anonymized ``evalset.records`` in order.

    Returns ``{"set", "records", "seconds", "rows": {type: {...}}, "total", "utility",
    "policy_unchanged"}`` (+ ``misses`` / ``false_positives`` with ``keep_misses``: up to that
    many left-over values - fictional tau-bench data; never call this on real logs with
    ``keep_misses``).
    """
    lexicon = _name_lexicon()
    rows = {c: Counter() for c in CATEGORIES}
    utility_in, utility_out = Counter(), Counter()
    misses, fps = [], Counter()
    policy_same = policy_total = 0
    for rec, anon, truth in zip(evalset.records, out, evalset.truth):
        tin = "\n".join(record_strings(rec))
        tout = "\n".join(record_strings(anon))
        for cat, vals in truth.values.items():
            if cat == "CITY":
                continue
            for v in vals:
                n_in = count_occurrences(tin, cat, v)
                if not n_in:
                    continue
                n_out = count_occurrences(tout, cat, v)
                rows[cat]["occurrences"] += n_in
                rows[cat]["left"] += min(n_out, n_in)
                if n_out and len(misses) < keep_misses:
                    m = occurrence_regex(cat, v).search(tout)
                    ctx = tout[max(0, m.start() - 60):m.end() + 30].replace("\n", " ") if m else ""
                    misses.append((rec.id, cat, v, repr(ctx)))
        forms = truth.personal_forms()
        for ent, orig in (trace or {}).get(rec.id, []):
            cat = ENTITY_CATEGORY.get(ent, "OTHER")
            ok, db_ok = is_personal(ent, orig, forms, evalset.db_personal, lexicon)
            rows[cat]["replacements"] += 1
            rows[cat]["personal"] += ok
            rows[cat]["personal_db"] += db_ok
            if not ok:
                fps[(cat, orig)] += 1
        for name, rx in evalset.utility_patterns.items():
            cin, cout = Counter(rx.findall(tin)), Counter(rx.findall(tout))
            utility_in[name] += sum(cin.values())
            utility_out[name] += sum(min(c, cout[k]) for k, c in cin.items())
        sys_in = [m.get("content") for m in rec.messages if m.get("role") == "system"]
        if sys_in:
            policy_total += 1
            policy_same += sys_in == [m.get("content") for m in anon.messages if m.get("role") == "system"]
    table = {}
    for cat, c in rows.items():
        if not (c["occurrences"] or c["replacements"]):
            continue
        table[cat] = {
            "occurrences": c["occurrences"], "left": c["left"],
            "recall": (1 - c["left"] / c["occurrences"]) if c["occurrences"] else None,
            "replacements": c["replacements"], "personal": c["personal"],
            "precision": (c["personal"] / c["replacements"]) if c["replacements"] else None,
            "precision_db": (c["personal_db"] / c["replacements"]) if c["replacements"] else None,
        }
    tot_rep = sum(c["replacements"] for c in rows.values())
    tot_ok = sum(c["personal"] for c in rows.values())
    tot_occ = sum(c["occurrences"] for c in rows.values())
    tot_left = sum(c["left"] for c in rows.values())
    result = {
        "set": evalset.name, "records": len(out), "seconds": round(seconds, 2),
        "rows": table,
        "total": {"occurrences": tot_occ, "left": tot_left,
                  "recall": (1 - tot_left / tot_occ) if tot_occ else None,
                  "replacements": tot_rep, "personal": tot_ok,
                  "precision": tot_ok / tot_rep if tot_rep else None},
        "utility": {k: {"in": utility_in[k], "kept": utility_out[k],
                        "survival": utility_out[k] / utility_in[k] if utility_in[k] else None}
                    for k in evalset.utility_patterns},
        "policy_unchanged": f"{policy_same}/{policy_total}",
    }
    if keep_misses:
        result["misses"] = misses
        result["false_positives"] = [(c, v, n) for (c, v), n in fps.most_common(keep_misses)]
    return result


def check_targets(result: dict[str, Any]) -> list[str]:
    """Targets of issue 3 that ``result`` misses (empty list: all met)."""
    bad = []
    for cat, row in result["rows"].items():
        target = RECALL_TARGETS.get(cat)
        if target is not None and row["recall"] is not None and row["recall"] < target:
            bad.append(f"{result['set']}: recall {cat} {row['recall']:.4f} < {target}")
    prec = result["total"]["precision"]
    if prec is not None and prec < PRECISION_TARGET:
        bad.append(f"{result['set']}: precision {prec:.4f} < {PRECISION_TARGET}")
    for name, u in result["utility"].items():
        if u["survival"] is not None and u["survival"] < UTILITY_TARGET:
            bad.append(f"{result['set']}: utility {name} {u['survival']:.4f} < {UTILITY_TARGET}")
    same, total = (int(x) for x in result["policy_unchanged"].split("/"))
    if same != total:
        bad.append(f"{result['set']}: policy changed in {total - same} records")
    return bad


def _pct(x: Optional[float]) -> str:
    return "-" if x is None else f"{100 * x:.2f}%"


def format_result(result: dict[str, Any]) -> str:
    """The recall / precision table of one set, as text."""
    lines = [f"## {result['set']}: {result['records']} records, {result['seconds']} s",
             f"{'type':<15}{'occurrences':>12}{'left':>6}{'recall':>9}{'target':>8}"
             f"{'replaced':>10}{'personal':>10}{'precision':>11}{'prec(DB)':>10}"]
    for cat in CATEGORIES:
        row = result["rows"].get(cat)
        if not row:
            continue
        tgt = RECALL_TARGETS.get(cat)
        lines.append(f"{cat:<15}{row['occurrences']:>12}{row['left']:>6}{_pct(row['recall']):>9}"
                     f"{'' if tgt is None or not row['occurrences'] else f'{tgt:.0%}':>8}"
                     f"{row['replacements']:>10}{row['personal']:>10}"
                     f"{_pct(row['precision']):>11}{_pct(row['precision_db']):>10}")
    t = result["total"]
    lines.append(f"{'all':<15}{t['occurrences']:>12}{t['left']:>6}{_pct(t['recall']):>9}{'':>8}"
                 f"{t['replacements']:>10}{t['personal']:>10}{_pct(t['precision']):>11}")
    util = ", ".join(f"{k} {u['kept']}/{u['in']}" for k, u in result["utility"].items())
    lines.append(f"must survive: {util}; policy unchanged {result['policy_unchanged']}")
    return "\n".join(lines)


def load_set(name: str, tau: Path, limit: Optional[int] = None) -> EvalSet:
    """One of :data:`SETS`."""
    if name == "airline":
        return airline_set(tau, limit)
    if name == "airline-transcripts":
        return airline_set(tau, limit, transcripts=True)
    if name == "retail":
        return retail_set(tau, limit)
    if name == "planted":
        return planted_set(limit)
    raise ValueError(f"unknown eval set {name!r}; choose from {', '.join(SETS)}")


def run_eval(tau: Optional[Path] = None, sets: Iterable[str] = SETS, limit: Optional[int] = None,
             secret: Optional[str] = None, workers: int = 1, keep_misses: int = 0,
             out=sys.stdout) -> tuple[list[dict[str, Any]], list[str]]:
    """Evaluate a fresh :class:`~pipeline.anonymize.Anonymizer` per set; print the tables;
    return ``(results, missed targets)``."""
    from . import Anonymizer

    tau = Path(tau) if tau else default_tau_dir()
    if not (tau / "logs").is_dir():
        raise FileNotFoundError(f"tau-bench data not found at {tau} (set ${TAU_ENV} or --tau)")
    results, bad = [], []
    for name in sets:
        es = load_set(name, tau, limit)
        anon = Anonymizer(secret=secret, workers=workers)
        try:
            res = evaluate(anon, es, keep_misses=keep_misses)
        finally:
            anon.close()
        resid = anon.report().get("residual", {})
        res["residual"] = {k: resid.get(k) for k in ("records_scanned", "count", "real_values")}
        results.append(res)
        bad += check_targets(res)
        print(format_result(res), file=out)
        print(f"residual scan: {resid.get('count')} detections in the output that are not "
              f"pseudonyms ({resid.get('real_values')} real values), "
              f"{resid.get('records_scanned')} records scanned", file=out)
        if keep_misses:
            for item in res["misses"]:
                print("  left:", *item, file=out)
            for item in res["false_positives"]:
                print("  false positive:", *item, file=out)
        print(file=out)
    print("targets: " + ("all met" if not bad else "MISSED\n  " + "\n  ".join(bad)), file=out)
    return results, bad


def main(argv: Optional[list[str]] = None) -> int:
    """``python -m pipeline.anonymize.eval``: print the recall/precision table per log set."""
    ap = argparse.ArgumentParser(prog="python -m pipeline.anonymize.eval", description=__doc__.split("\n")[0])
    ap.add_argument("--tau", type=Path, default=None, help=f"tau-bench folder (default ${TAU_ENV} or ../shared/data/tau-bench)")
    ap.add_argument("--sets", default=",".join(SETS), help="comma-separated: " + ", ".join(SETS))
    ap.add_argument("--limit", type=int, default=None, help="first N records of each set")
    ap.add_argument("--workers", type=int, default=1, help="NER worker processes")
    ap.add_argument("--json", type=Path, default=None, help="also write the results as JSON")
    ap.add_argument("--show", type=int, default=0, metavar="N",
                    help="list up to N left-over values and false positives (fictional data only)")
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = ap.parse_args(argv)
    results, bad = run_eval(args.tau, [s.strip() for s in args.sets.split(",") if s.strip()],
                            args.limit, workers=args.workers, keep_misses=args.show)
    if args.json:
        args.json.write_text(json.dumps({"results": results, "missed": bad}, indent=2, default=str))
    return 1 if (bad and args.check) else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
