"""Key / value pairs inside free text that is not JSON: XML elements and attributes, log lines
of ``key=value`` fields, pipe-delimited ``KEY=VALUE`` exports and HL7 v2 segments (twelfth round
of issue 11: a courier's XML waybill, a food-delivery log line and a hospital's HL7 message
pasted into a chat kept their addresses, postcodes and birth dates: only JSON keys were read).

The anonymizer judges each pair's key with its PII config, as it does a JSON key; HL7 fields are
named by their position in the segment (HL7 v2.5, chapter 3 "Patient Administration": PID, NK1,
GT1 and IN1 segments), so they yield an entity directly.
"""
from __future__ import annotations

import re
from typing import Iterator, Optional

#: an element's name, with its namespace prefix ("invoice:zip": sixteenth round, a Swiss medical
#: invoice's XML) - the prefix is dropped from the key
_XML_NAME = r"(?:[^\W\d][\w.-]{0,30}:)?[^\W\d][\w.-]{0,60}"  # (tags of any script: "<Паспорт>")
#: ``<adresa>Str. Observatorului nr. 34</adresa>``: an element holding text only
XML_ELEMENT_RE = re.compile(
    r"<(?P<k>" + _XML_NAME + r")(?P<a>\s[^<>]{0,300})?>(?P<v>[^<>\n]{1,300})</(?P=k)\s*>")
#: an element named by its Name / key attribute (``<Data Name="TargetUserName">e.vandermeer</Data>``
#: of a Windows event, ``<field key="email">``, ``<Detail name="ACNUM" value=..>``): the attribute
#: names the field (eighteenth round, red-team 21 read)
_XML_NAMING_ATTR_RE = re.compile(r"""^\s+(?:Name|name|key|Key|field|id)\s*=\s*["'](?P<n>[^"'<>\s]{2,60})["']\s*$""")
#: ``<party name="Ioana Munteanu" tel="0745 112 903">``: an attribute inside a tag
XML_ATTR_RE = re.compile(r"""(?<=\s)(?P<k>[^\W\d][\w.-]{0,60})\s*=\s*(?P<q>["'])(?P<v>[^"'<>\n]{1,300})(?P=q)""")
#: ``addr="Korunní 1208/74, 101 00 Praha 10" tel=+420777215809``: a log line's fields
LOG_FIELD_RE = re.compile(
    r"""(?:^|(?<=[\s,;{(\[]))(?P<k>[A-Za-z_][\w.-]{0,40})=(?:"(?P<dq>[^"\n]{1,300})"|'(?P<sq>[^'\n]{1,300})'|(?P<v>[^\s"',;|&)\]}]{1,300}(?: \d{2,5}(?![\w=]))*))""",
    re.M)
#: ``nominee=Aisha Usman``: a line holding one ``key=value`` and nothing else (a properties or env
#: file, a form's dump), the value to the line's end
LINE_FIELD_RE = re.compile(r"(?m)^[ \t]*(?P<k>[^\W\d][\w.-]{0,40})[ \t]*=[ \t]*(?P<v>[^=\n]{1,300})$")
#: ``CONTRATO=488993531|TITULAR=RUI MIGUEL G PEREIRA|MORADA=...``: a pipe-delimited export
PIPE_FIELD_RE = re.compile(r"(?:^|\|)[ \t]*(?P<k>[^\W\d][\w.-]{0,40})[ \t]*=[ \t]*(?P<v>[^|\n=]{1,300}?)[ \t]*(?=\||$)",
                           re.M)  # (keys of any script: "판매자=정우성(carking_88)" - fourteenth round)
#: ``PID=..;OWNER=SUNITA AGARWAL;ZONE=4``: a line of ``KEY=VALUE`` fields and nothing else, split by
#: semicolons or tabs, each value to the next separator, spaces allowed (twenty-third round, red-team
#: 38 read: a blank ended "OWNER=SUNITA" before)
_KV_LINE_RE = {sep: re.compile(r"(?m)^[ \t]*[^\W\d][\w.-]{0,40}[ \t]*=[^" + sep + r"=\n]*(?:" + sep
                               + r"[ \t]*[^\W\d][\w.-]{0,40}[ \t]*=[^" + sep + r"=\n]*)+" + sep + r"?[ \t]*$")
               for sep in (";", "\t")}


#: child elements whose meaning is their parent's ("<guest><name>", "<licence><no>")
_XML_GENERIC_CHILDREN = frozenset({"name", "fullname", "full_name", "first", "last", "given", "family", "no",
                                   "number", "id"})
_XML_TAG_RE = re.compile(r"<(/?)(" + _XML_NAME + r")(?:\s[^<>]*)?(/?)>")


def _xml_parents(text: str) -> dict[int, str]:
    """For each opening tag's offset in ``text``, the element it is inside of (a stack over the
    tags; a fragment's unbalanced tags are tolerated)."""
    stack: list[str] = []
    out: dict[int, str] = {}
    for m in _XML_TAG_RE.finditer(text):
        closing, name, self_closing = m.group(1), m.group(2), m.group(3)
        if closing:
            if name in stack:
                while stack and stack.pop() != name:
                    pass
            continue
        if stack:
            out[m.start()] = stack[-1]
        if not self_closing:
            stack.append(name)
    return out


def xml_fields(text: str) -> Iterator[tuple[str, str]]:
    """``(key, value)`` of every text-only XML element and every quoted attribute in ``text``
    (the text need not be a well-formed document: a fragment pasted into a message is read).
    Values are stripped; empty ones are skipped."""
    if "<" not in text:
        return
    parents = _xml_parents(text) if "</" in text else {}
    for m in XML_ELEMENT_RE.finditer(text):
        v = m.group("v").strip()
        if v:
            key = m.group("k").rsplit(":", 1)[-1]
            yield key, v
            named = _XML_NAMING_ATTR_RE.match(m.group("a") or "")
            if named:
                yield named.group("n"), v
            parent = parents.get(m.start())
            if parent and key.lower() in _XML_GENERIC_CHILDREN:
                # "<guest><name>ELENI PAPADOPOULOU</name>": also as "guest_name" (a person key's
                # name - fourteenth round)
                yield f"{parent.rsplit(':', 1)[-1]}_{key}", v
    for tag in re.finditer(r"<[^\W\d][^<>]{0,600}>", text):
        for m in XML_ATTR_RE.finditer(tag.group()):
            v = m.group("v").strip()
            if v:
                yield m.group("k"), v


def xml_records(text: str) -> Iterator[tuple[str, dict[str, str]]]:
    """``(parent tag, {child tag: text})`` for each element holding two or more text-only
    children (``<nm><last>Nakamura</last><first>Kenji</first></nm>``, ``<addr><l1>..</l1>
    <pc>95054</pc></addr>``): the children read together as a JSON object's keys are - a name's
    parts, a postcode beside its street (twentieth round, red-team 27 read: a CRM's XML export).
    A fragment's unbalanced tags are tolerated; a repeated child tag keeps its first value."""
    if "</" not in text:
        return
    stack: list[tuple[str, int]] = []
    parent_of: dict[int, tuple[str, int]] = {}
    for m in _XML_TAG_RE.finditer(text):
        closing, name, self_closing = m.group(1), m.group(2), m.group(3)
        if closing:
            if any(n == name for n, _ in stack):
                while stack and stack.pop()[0] != name:
                    pass
            continue
        if stack:
            parent_of[m.start()] = stack[-1]
        if not self_closing:
            stack.append((name, m.start()))
    groups: dict[int, tuple[str, dict[str, str]]] = {}
    for m in XML_ELEMENT_RE.finditer(text):
        v = m.group("v").strip()
        parent = parent_of.get(m.start())
        if v and parent:
            children = groups.setdefault(parent[1], (parent[0].rsplit(":", 1)[-1], {}))[1]
            children.setdefault(m.group("k").rsplit(":", 1)[-1], v)
    for tag, children in groups.values():
        if len(children) >= 2:
            yield tag, children


#: ``name_en: HAMZA SALEH``: a line of one field written ``key: value`` (a form's or a record's
#: dump, one field a line), the key one token of any script (``_`` / ``-`` / ``.`` inside), the
#: value to the line's end or to a `` | `` (twenty-fourth round, red-team 40 read)
COLON_FIELD_RE = re.compile(r"(?m)^[ \t]*(?P<k>[^\W\d][\w.-]{0,40})[ \t]*[:\uFF1A][ \t]*(?P<v>[^\n|]{1,200}?)[ \t]*(?=\n|$| \| )")


def colon_fields(text: str) -> Iterator[tuple[str, str]]:
    """``(key, value)`` of the lines of ``text`` that hold one ``key: value`` field
    (:data:`COLON_FIELD_RE`). A transcript's ``Agent: ...`` lines are read too: the caller keeps
    a name only under a key the PII config names exactly (``full_name``, ``name_en``,
    ``surname``; never a speaker's label) and an id only with an id's shape."""
    if ":" not in text and "\uFF1A" not in text:
        return
    for m in COLON_FIELD_RE.finditer(text):
        v = m.group("v").strip()
        if v:
            yield m.group("k"), v


#: a row of a two-column table: ``| Επώνυμο | ΧΑΤΖΗΓΕΩΡΓΙΟΥ |`` (a field's name, its value)
_TWO_CELL_ROW_RE = re.compile(r"(?m)^[ \t]*\|[ \t]*(?P<k>[^|\n]{1,40}?)[ \t]*\|[ \t]*(?P<v>[^|\n]{1,200}?)[ \t]*\|?[ \t]*$")


def two_column_fields(text: str) -> Iterator[tuple[str, str]]:
    """``(field, value)`` of a vertical Markdown / pipe table (two cells a row, two rows or more:
    "| Field | Value |", "|---|---|", "| Επώνυμο | ΧΑΤΖΗΓΕΩΡΓΙΟΥ |"); the separator row and a
    value of dashes are left out. Twenty-fourth round of issue 11 (red-team 41 read: a Greek
    applicant's surname, name and father's name kept in such a table)."""
    if text.count("|") < 6:
        return
    rows = [(m.group("k").strip("*_ "), m.group("v").strip("*_ ")) for m in _TWO_CELL_ROW_RE.finditer(text)]
    rows = [(k, v) for k, v in rows if k and v and not re.fullmatch(r"[:\- ]+", k) and not re.fullmatch(r"[:\-— ]+", v)]
    if len(rows) >= 2:
        yield from rows


def log_fields(text: str) -> Iterator[tuple[str, str]]:
    """``(key, value)`` of ``key=value`` fields in log lines (a value quoted or up to the next
    blank, comma or bracket) and of ``KEY=VALUE|KEY=VALUE`` exports delimited by pipes, or, on a
    line of such fields only, by semicolons or tabs (a value up to the next separator, spaces
    allowed)."""
    if "=" not in text:
        return
    seen: set[tuple[str, str]] = set()
    if "|" in text:
        for m in PIPE_FIELD_RE.finditer(text):
            kv = (m.group("k"), m.group("v").strip())
            if kv[1] and kv not in seen:
                seen.add(kv)
                yield kv
    for sep, rx in _KV_LINE_RE.items():
        if sep not in text:
            continue
        for line in rx.finditer(text):
            for field in line.group(0).split(sep):
                k, eq, v = field.partition("=")
                kv = (k.strip(), v.strip())
                if eq and kv[0] and kv[1] and kv not in seen:
                    seen.add(kv)
                    yield kv
    for m in LINE_FIELD_RE.finditer(text):
        # a properties / env file's line: the value runs to the line's end, a note in brackets
        # after it left out ("nominee=عائشہ عثمان (wife)": fifteenth round)
        v = re.sub(r"[ \t]*\([^()\n]{1,30}\)$", "", m.group("v").strip().strip("\"'"))
        kv = (m.group("k"), v)
        if v and " " in v and kv not in seen:
            seen.add(kv)
            yield kv
    for m in LOG_FIELD_RE.finditer(text):
        v = (m.group("dq") or m.group("sq") or m.group("v") or "").strip()
        kv = (m.group("k"), v)
        if v and kv not in seen and not any(v in s and k == kv[0] for k, s in seen):
            seen.add(kv)
            yield kv


#: HL7 v2 segment fields that hold a person's data: segment -> {field number: kind}. Kinds:
#: "name" (XPN: family^given^middle), "address" (XAD: street^other^city^state^zip), "phone",
#: "dob" (YYYYMMDD[HHMM]), "id" (CX: id^check^scheme^authority^type). Source: HL7 v2.5 ch. 3
#: (PID-3 patient identifier list, PID-5 name, PID-6 mother's maiden name, PID-7 birth date,
#: PID-11 address, PID-13 / 14 phones, PID-19 SSN, PID-20 driver's licence; NK1-2 / 4 / 5 / 6
#: next of kin; GT1-3 / 5 / 6 / 7 / 8 / 12 guarantor) and ch. 6 (IN1-16 / 18 / 19 / 49 insured, IN1-36 policy number: a Medicare MBI).
HL7_FIELDS: dict[str, dict[int, str]] = {
    "PID": {2: "id", 3: "id", 4: "id", 5: "name", 6: "name", 7: "dob", 9: "name", 11: "address",
            13: "phone", 14: "phone", 18: "id", 19: "id", 20: "id"},
    "NK1": {2: "name", 4: "address", 5: "phone", 6: "phone", 30: "name", 31: "phone", 32: "address"},
    "GT1": {2: "id", 3: "name", 4: "name", 5: "address", 6: "phone", 7: "phone", 8: "dob", 12: "id"},
    "IN1": {16: "name", 18: "dob", 19: "address", 36: "id", 49: "id"},
    # sixteenth round (red-team 15 read): a visit's attending, referring, consulting and admitting
    # doctors (PV1-7 / 8 / 9 / 17, XCN: id^family^given - written family first by some senders)
    "PV1": {7: "xcn", 8: "xcn", 9: "xcn", 17: "xcn",
            # twenty-first round: the visit number (PV1-19, CX)
            19: "id"},
    # twenty-first round (red-team 29 read): an order's placer and filler numbers (ORC-2 / 3,
    # OBR-2 / 3, EI) and its ordering provider (ORC-12, OBR-16, XCN) - HL7 v2.5.1 ch. 4
    "ORC": {2: "id", 3: "id", 12: "xcn"},
    "OBR": {2: "id", 3: "id", 16: "xcn"},
}
# (a segment ends at a carriage return, HL7's own separator, or a line break: sixteenth round - a
# message of "\r"-ended segments was read as one line)
_HL7_SEGMENT_RE = re.compile(r"(?:^|(?<=[\r\n]))[ \t]*(?P<seg>PID|NK1|GT1|IN1|PV1|ORC|OBR)\|(?P<rest>[^\r\n]*)")


def hl7_values(text: str) -> Iterator[tuple[str, str, str]]:
    """``(value, entity, source)`` for the personal fields of HL7 v2 PID / NK1 / GT1 / IN1 / PV1 /
    ORC / OBR segments in ``text`` (segments on their own lines; ``|`` fields, ``~`` repetitions, ``^``
    components). Entities: LAST_NAME / FIRST_NAME (each given and middle name), DATE_OF_BIRTH
    (the date part, 8 digits), STREET_ADDRESS and ADDRESS_LINE2, ZIP, PHONE_NUMBER, ACCOUNT_ID
    (identifiers with a digit)."""
    if "|" not in text:
        return
    for m in _HL7_SEGMENT_RE.finditer(text):
        seg = m.group("seg")
        fields = m.group("rest").split("|")
        for num, kind in HL7_FIELDS[seg].items():
            if num - 1 >= len(fields):
                continue
            src = f"hl7:{seg}-{num}"
            for rep in fields[num - 1].split("~"):
                comps = [c.strip() for c in rep.split("^")]
                if not any(comps):
                    continue
                if kind == "xcn":  # id^family^given (the id left out when the first part has no digit)
                    kind = "name"
                    if any(ch.isdigit() for ch in comps[0]):
                        if len(comps[0]) >= 4:  # a provider's own number ("G8311492"): twenty-first round
                            yield comps[0], "ACCOUNT_ID", src
                        comps = comps[1:]
                if kind == "name":
                    if comps[0]:
                        yield comps[0], "LAST_NAME", src
                    for c in comps[1:3]:
                        if c and len(c.strip(".")) > 1:
                            yield c, "FIRST_NAME", src
                elif kind == "address":
                    if comps[0]:
                        yield comps[0], "STREET_ADDRESS", src
                    if len(comps) > 1 and comps[1]:
                        yield comps[1], "ADDRESS_LINE2", src
                    if len(comps) > 4 and comps[4]:
                        yield comps[4], "ZIP", src
                elif kind == "dob":
                    d = re.match(r"\d{8}", comps[0])
                    if d:
                        yield d.group(), "DATE_OF_BIRTH", src
                elif kind == "phone":
                    if sum(ch.isdigit() for ch in comps[0]) >= 7:
                        yield comps[0], "PHONE_NUMBER", src
                elif kind == "id":
                    if any(ch.isdigit() for ch in comps[0]) and len(comps[0]) >= 4:
                        yield comps[0], "ACCOUNT_ID", src


#: ASC X12 (HIPAA 837 claims, 834 enrolments, 270 / 271 eligibility) segments that hold a person's
#: data, with the element numbers of each kind (ASC X12 005010X222A1 / X220A1 implementation guides:
#: NM1 individual or organizational name - NM102 "1" a person, NM103 last, NM104 first, NM105
#: middle, NM109 identification code; N3 address lines; N4 city / state / postal code; DMG02 date
#: of birth (DMG01 "D8": CCYYMMDD); REF02 by its qualifier; PER contact numbers; CLM01 the patient's
#: account number). Sixteenth round of issue 11 (a health insurer's pended claim).
X12_REF_PERSONAL = frozenset({"SY",  # social security number
                              "0F", "1W", "23", "3H", "49", "6O", "ABB", "F6", "HJ", "IL", "Q4",  # member ids
                              "EA", "EJ", "D9", "9F", "G1", "Y4", "IG", "1L", "6P", "N6"})  # records, claims, policies
_X12_SEGMENT_RE = re.compile(r"(?:^|~)\s*(?P<seg>NM1|N3|N4|DMG|REF|PER|CLM)\*(?P<rest>[^~\r\n]*)")


def x12_values(text: str) -> Iterator[tuple[str, str, str]]:
    """``(value, entity, source)`` for the personal elements of ASC X12 segments in ``text``
    (``~`` ends a segment, ``*`` separates elements; see :data:`X12_REF_PERSONAL`): a person's NM1
    name (LAST_NAME, FIRST_NAME for first and middle) and id (ACCOUNT_ID), the N3 street
    (STREET_ADDRESS) and N4 postal code (ZIP) that follow a person's NM1 (an organization's are
    left), DATE_OF_BIRTH of DMG, REF ids of the personal qualifiers, PER phone numbers and CLM01.
    Nothing is yielded for a text without ``~`` and ``*``."""
    if "~" not in text or "*" not in text:
        return
    person = False  # is the last NM1 a person's (NM102 "1")?
    for m in _X12_SEGMENT_RE.finditer(text):
        seg, el = m.group("seg"), [e.strip() for e in m.group("rest").split("*")]
        el += [""] * (10 - len(el))
        src = f"x12:{seg}"
        if seg == "NM1":
            person = el[1] == "1"
            if person:
                if el[2]:
                    yield el[2], "LAST_NAME", src
                for given in (el[3], el[4]):
                    if len(given.strip(".")) > 1:
                        yield given, "FIRST_NAME", src
                if el[8] and any(ch.isdigit() for ch in el[8]) and len(el[8]) >= 4:
                    yield el[8], "ACCOUNT_ID", src
        elif seg == "N3" and person:
            for line in el[:2]:
                if line and any(ch.isdigit() for ch in line):
                    yield line, "STREET_ADDRESS", src
        elif seg == "N4" and person and re.fullmatch(r"\d{5}(?:-?\d{4})?|[A-Z0-9][A-Z0-9 ]{2,9}", el[2]):
            yield el[2], "ZIP", src
        elif seg == "DMG" and el[0] == "D8" and re.fullmatch(r"\d{8}", el[1]):
            yield el[1], "DATE_OF_BIRTH", src
        elif seg == "REF" and el[0] in X12_REF_PERSONAL and any(ch.isdigit() for ch in el[1]) and len(el[1]) >= 4:
            yield el[1], "SSN" if el[0] == "SY" else "ACCOUNT_ID", src
        elif seg == "PER":
            for qual, num in ((el[2], el[3]), (el[4], el[5]), (el[6], el[7])):
                if qual in ("TE", "CP", "HP", "WP", "FX") and sum(ch.isdigit() for ch in num) >= 7:
                    yield num, "PHONE_NUMBER", src
                elif qual == "EM" and "@" in num:
                    yield num, "EMAIL_ADDRESS", src
        elif seg == "CLM" and el[0] and any(ch.isdigit() for ch in el[0]) and len(el[0]) >= 4:
            yield el[0], "ACCOUNT_ID", src


#: A UN/EDIFACT segment (ISO 9735: "'" ends a segment, "+" separates data elements, ":" components,
#: "?" releases the next character): the tags read by :func:`edifact_values`
_EDIFACT_SEGMENT_RE = re.compile(r"(?:^|(?<=[^?]'))\s*(?P<seg>NAD|CTA|COM)\+(?P<rest>(?:\?.|[^'\r\n])*)")
#: NAD party qualifiers of a company's own role (carrier, freight forwarder, agent, ...): their
#: names and addresses are businesses'; any other party (consignee CN, consignor CZ, notify party
#: N1, ...) may be a person
_EDIFACT_BUSINESS_PARTIES = frozenset({"CA", "FW", "AG", "CB", "MS", "SF", "ST", "BY", "SU", "MR", "FR"})


def _edifact_split(s: str, sep: str) -> list[str]:
    """Split at ``sep`` except where the release character ``?`` escapes it."""
    return [p.replace("?" + sep, sep) for p in re.split(r"(?<!\?)" + re.escape(sep), s)]


def edifact_values(text: str) -> Iterator[tuple[str, str, str]]:
    """``(value, entity, source)`` for the personal elements of UN/EDIFACT segments in ``text``
    (IFTMIN, IFCSUM, PAXLST...; ISO 9735 syntax): a party's NAD name (C080, PERSON) when its name
    and address are given as text (C058 lines too), its street (C059, STREET_ADDRESS) and postcode
    (3251, ZIP) - not of the carrier's or the forwarder's own parties (``CA``, ``FW``, ...); a
    contact's CTA name, COM phone numbers (``TE``, ``MO``...) and e-mail addresses (``EM``).
    Seventeenth round of issue 11 (red-team 17 read: an IFTMIN's consignee kept its street and
    postcode). Nothing is yielded for a text without ``'`` and ``+``."""
    if "'" not in text or "+" not in text:
        return
    for m in _EDIFACT_SEGMENT_RE.finditer(text):
        seg = m.group("seg")
        el = _edifact_split(m.group("rest"), "+")
        el += [""] * (10 - len(el))
        src = f"edifact:{seg}"
        if seg == "NAD":
            if el[0] in _EDIFACT_BUSINESS_PARTIES:
                continue
            name = " ".join(c for c in _edifact_split(el[3], ":") if c).strip()
            if name and any(ch.isalpha() for ch in name):
                yield name, "PERSON", src
            for line in _edifact_split(el[4], ":"):
                if line and any(ch.isdigit() for ch in line):
                    yield line.strip(), "STREET_ADDRESS", src
            if el[7].strip() and any(ch.isdigit() for ch in el[7]):
                yield el[7].strip(), "ZIP", src
        elif seg == "CTA":
            name = _edifact_split(el[1], ":")[-1].strip() if el[1] else ""
            if name and any(ch.isalpha() for ch in name) and not name.isdigit():
                yield name, "PERSON", src
        elif seg == "COM":
            num, _, qual = el[0].rpartition(":")
            if qual in ("TE", "MO", "FX", "AJ", "AL") and sum(ch.isdigit() for ch in num) >= 7:
                yield num.strip(), "PHONE_NUMBER", src
            elif qual == "EM" and "@" in num:
                yield num.strip(), "EMAIL_ADDRESS", src


#: a table's rule line: markdown ``|---|:--:|`` or psql ``-------+------``
_RULE_LINE_RE = re.compile(r"\s*\|?\s*:?-{3,}:?\s*(?:[|+]\s*:?-{3,}:?\s*)*\|?\s*")
#: a header cell: a column's name (letters, at most two digits, no e-mail / URL)
#: (a slash between words is a column's name too: "Panel S/N", "Date/Time" - twentieth round; not a
#: path's or a URL's two or more)
_HEADER_CELL_RE = re.compile(r"(?=[^\d\n]*(?:\d[^\d\n]*){0,2}$)(?![^/\n]*/[^/\n]*/)[^\W\d_](?:[^@/\n]|(?<=\w)/(?=\w)){0,39}")


def _split_row(line: str, sep: str, framed: bool = False) -> list[str]:
    if sep in ",;":
        import csv

        try:
            return [c.strip() for c in next(csv.reader([line], delimiter=sep, skipinitialspace=True))]
        except (csv.Error, StopIteration):
            return [c.strip() for c in line.split(sep)]
    if framed:  # a markdown row "| a | b |" (a psql row has no frame: "a | b |" ends in an empty cell)
        line = line.strip()
        if line.startswith("|"):
            line = line[1:]
        if line.endswith("|"):
            line = line[:-1]
    return [c.strip() for c in line.split(sep)]


def row_groups(text: str, min_rows: int = 2) -> list[tuple[Optional[list[str]], list[list[str]]]]:
    """Runs of ``min_rows``+ consecutive lines that split into the same number (3+) of cells, as
    ``(header or None, rows of cells)``: by ``|`` or a tab (a PMS or a porting export, a
    markdown table), by ``;`` or ``,`` (CSV, read by :mod:`csv`), or by runs of two blanks or more
    (a fixed-width report). A first line that holds no digit before rows that do is the header. Twenty-first round of issue 11: the cells of a column are one kind of
    value (:meth:`pipeline.anonymize.Anonymizer._table_columns`)."""
    lines = text.splitlines()
    groups: list[tuple[Optional[list[str]], list[list[str]]]] = []

    def split(line: str, sep: str) -> list[str]:
        if sep == "  ":
            return re.split(r"\s{2,}", line.strip())
        return _split_row(line, sep, framed=sep == "|" and line.strip().startswith("|"))

    for sep in ("|", "\t", ";", ",", "  "):
        if sep not in text:
            continue
        run: list[list[str]] = []
        for line in lines + [""]:
            if run and _RULE_LINE_RE.fullmatch(line):
                continue  # a markdown table's rule under its header
            cells = split(line, sep) if sep in line else []
            if len(cells) >= 3 and (not run or len(cells) == len(run[0])):
                run.append(cells)
                continue
            if len(run) >= min_rows:
                header = None
                if not any(c.isdigit() for c in "".join(run[0])) and any(
                        any(c.isdigit() for c in "".join(r)) for r in run[1:]):
                    header, run = run[0], run[1:]
                if len(run) >= min_rows:
                    groups.append((header, run))
            run = [cells] if len(cells) >= 3 else []
    return groups


def table_rows(text: str) -> Iterator[dict[str, str]]:
    """Each data row of a delimited table inside ``text`` as ``{column name: cell}``: a header line
    of 3+ column names split by one of ``tab ; | ,`` (a CSV / TSV export, a markdown table, a psql
    result; ``|---|`` and ``---+---`` rule lines skipped) followed by rows with as many cells. A
    column name repeated gets a suffix (``name``, ``name_2``); empty cells are left out.
    Thirteenth round of issue 11: a payroll export's ``nm;vl;BSN;gebdat`` rows, a markdown table
    of a family's names and birth dates and a SQL result kept their people - each row is read as a
    JSON object is, by its keys."""
    lines = text.splitlines()
    i = 0
    while i < len(lines) - 1:
        line = lines[i]
        sep = max("\t;|,", key=line.count)
        if line.count(sep) < 2 or _RULE_LINE_RE.fullmatch(line):
            i += 1
            continue
        framed = sep == "|" and line.strip().startswith("|")
        if re.match(r"(?i)\s*insert\s+into\b", line):  # a SQL statement: sql_insert_rows reads it
            i += 1
            continue
        header = _split_row(line, sep, framed)
        if len(header) < 3 or not all(_HEADER_CELL_RE.fullmatch(h) for h in header if h) or \
                sum(1 for h in header if h) < 3:
            i += 1
            continue
        names, seen = [], {}
        for h in header:
            seen[h] = seen.get(h, 0) + 1
            names.append(h if seen[h] == 1 else f"{h}_{seen[h]}")
        j, rows = i + 1, 0
        while j < len(lines):
            row_line = lines[j]
            if _RULE_LINE_RE.fullmatch(row_line) and rows == 0:
                j += 1
                continue
            cells = _split_row(row_line, sep, framed) if row_line.count(sep) else []
            if len(cells) != len(names):
                break
            rows += 1
            yield {n: c for n, c in zip(names, cells) if n and c}
            j += 1
        i = j if rows else i + 1


_SQL_INSERT_RE = re.compile(r"(?is)\binsert\s+into\s+[\w.`\"\[\]]+\s*\((?P<cols>[^()]{1,2000})\)\s*values\s*"
                            r"(?P<rows>(?:\((?:'(?:[^']|'')*'|[^()'])*\)\s*,?\s*)+)")
_SQL_ROW_RE = re.compile(r"\((?P<cells>(?:'(?:[^']|'')*'|[^()'])*)\)")
_SQL_CELL_RE = re.compile(r"\s*(?:'(?P<q>(?:[^']|'')*)'|(?P<b>[^,']*?))\s*(?:,|$)")


def sql_insert_rows(text: str) -> Iterator[dict[str, str]]:
    """Each row of a SQL ``INSERT INTO t (col, ...) VALUES (...), (...)`` statement inside
    ``text`` as ``{column: value}``, string literals unquoted (``''`` is a quote), ``NULL`` and
    empty values left out. Fifteenth round (red-team 12 read): a dump's row was split as a CSV
    line, its cells kept their quotes and the people in it were not read."""
    for m in _SQL_INSERT_RE.finditer(text):
        cols = [c.strip().strip('`"[]') for c in m.group("cols").split(",")]
        for row in _SQL_ROW_RE.finditer(m.group("rows")):
            cells = []
            for c in _SQL_CELL_RE.finditer(row.group("cells")):
                if c.end() == c.start():
                    break
                cells.append(c.group("q").replace("''", "'") if c.group("q") is not None else c.group("b").strip())
            if len(cells) != len(cols):
                continue
            yield {k: v for k, v in zip(cols, cells) if k and v and v.upper() != "NULL"}


#: a YAML mapping line: ``key: value`` / ``- key: value`` / ``key:`` (a block follows)
_YAML_KEY_LINE_RE = re.compile(r"[ \t]*(?:-[ \t]+)?[^\s:#\-][^:\n]{0,40}:(?:[ \t]|$)")
#: a nested line: indented under a key, or an item of a block list
_YAML_NESTED_RE = re.compile(r"(?m)^(?:[ \t]+\S|[ \t]*-[ \t]+\S)")


#: A fenced code block of Markdown (CommonMark: three or more backticks or tildes, an optional
#: info string such as "yaml" or "json", the closing fence of the same character)
_FENCE_RE = re.compile(r"(?m)^[ \t]{0,3}(?P<f>`{3,}|~{3,})[ \t]*[\w+.-]*[ \t]*\n(?P<body>.*?)^[ \t]{0,3}(?P=f)[ \t]*$", re.S)


def fenced_blocks(text: str) -> list[str]:
    """The bodies of the fenced code blocks in ``text`` (a chat user pasting YAML, JSON or CSV
    between ```` ``` ```` lines, fourteenth round of issue 11: a YAML candidate profile in a fence
    kept its candidate's name and handle); [] without fences."""
    if "```" not in text and "~~~" not in text:
        return []
    return [m.group("body") for m in _FENCE_RE.finditer(text)]


def yaml_document(text: str) -> object:
    """The mapping or list a YAML document in ``text`` holds (a tool result or a config pasted as
    YAML), or None: the text must be mostly ``key: value`` lines (60% of its non-blank lines, 3
    or more) with some nesting (an indented line or a ``- item``; a chat transcript of ``Agent:
    ...`` lines is no document) or flat with lower-case identifier keys, one with an ``_``, and
    parse with PyYAML's base loader (every scalar a string, as written: "0412", not 412).
    Thirteenth round of issue 11: a letting agent's YAML application
    kept an applicant's first name."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) < 3 or text.lstrip()[:1] in "{[":
        return None
    if not _YAML_NESTED_RE.search(text):
        # flat: a machine's fields, lower-case identifiers with an "_" among them ("account_id:
        # AC-7781\nnational_id: ...": a fresh-clone check, fifteenth round); speaker labels of a
        # transcript ("Agent:", "Customer:") are none
        keys = [m.group(1) for m in (re.match(r"[ \t]*([^\s:#]+):(?:[ \t]|$)", ln) for ln in lines) if m]
        if not (len(keys) >= 3 and any("_" in k for k in keys)
                and all(re.fullmatch(r"[a-z][a-z0-9_]*", k) for k in keys)):
            return None
    keyed = sum(1 for ln in lines if _YAML_KEY_LINE_RE.match(ln))
    if keyed < 3 or keyed < 0.6 * len(lines):
        return None
    import yaml

    try:
        doc = yaml.load(text, Loader=getattr(yaml, "CBaseLoader", yaml.BaseLoader))  # scalars as written
    except yaml.YAMLError:
        return None
    return doc if isinstance(doc, (dict, list)) else None


#: a fixed-width header's column name: one token of letters (digits, "_", ".", "#", "-" inside)
_FIXED_HEADER_TOKEN_RE = re.compile(r"[^\W\d_][\w.#/-]{0,29}")


def fixed_width_rows(text: str) -> Iterator[dict[str, str]]:
    """Each data row of a fixed-width report inside ``text`` as ``{column name: cell}``: a header
    line of 3+ one-token column names ("SUPP_ID   TITLE SURNAME          FORENAME", two blanks or
    more between some of them) followed by rows whose cells start where the column names start (a
    blank before each column's start). Thirteenth round of issue 11: a charity's fixed-width donor
    export kept its donors' ids and given names (red-team 7)."""
    lines = text.splitlines()
    i = 0
    while i < len(lines) - 1:
        line = lines[i].rstrip()
        tokens = list(re.finditer(r"\S+", line))
        if len(tokens) < 3 or "  " not in line.strip() or not all(
                _FIXED_HEADER_TOKEN_RE.fullmatch(t.group()) and sum(c.isdigit() for c in t.group()) <= 2
                for t in tokens):
            i += 1
            continue
        starts = [t.start() for t in tokens]
        names = [t.group() for t in tokens]
        j, rows = i + 1, 0
        while j < len(lines):
            row = lines[j].rstrip()
            if len(row) <= starts[-1] or any(row[s - 1] != " " for s in starts[1:]) or row[:starts[0]].strip():
                break
            cells = [row[s:e].strip() for s, e in zip(starts, starts[1:] + [len(row)])]
            if sum(1 for c in cells if c) < 3:
                break
            rows += 1
            yield {n: c for n, c in zip(names, cells) if c}
            j += 1
        i = j if rows else i + 1


_TAG_RE = re.compile(r"<[^<>]{0,600}>")
_ATTR_RE = re.compile(r"""(?P<k>[A-Za-z_:][\w:.-]{0,60})\s*=\s*(?:"(?P<dq>[^"<>\n]{0,300})"|'(?P<sq>[^'<>\n]{0,300})')""")
_HTML_ROW_RE = re.compile(r"(?is)<tr\b[^>]*>(.*?)</tr\s*>")
_HTML_CELL_RE = re.compile(r"(?is)<(t[hd])\b[^>]*>(.*?)</t[hd]\s*>")
_HTML_DEF_RE = re.compile(r"(?is)<dt\b[^>]*>(?P<k>.*?)</dt\s*>\s*<dd\b[^>]*>(?P<v>.*?)</dd\s*>")


#: HTML's text-level and block markup (HTML Living Standard, "Text-level semantics" and "Grouping
#: content"): a text holding one of these is read a second time as its words alone
_HTML_MARKUP_RE = re.compile(r"(?i)</?(?:p|br|b|i|u|em|strong|span|div|font|a|li|ul|ol|td|th|tr|table|h[1-6]|"
                             r"small|sup|sub|mark|blockquote|hr|img|center)\b[^<>]{0,600}>")
_HTML_BLOCK_RE = re.compile(r"(?i)</?(?:p|br|div|li|ul|ol|tr|table|h[1-6]|blockquote|hr|center)\b[^<>]{0,600}>")


def html_text_view(text: str) -> Optional[str]:
    """The words of a text written in HTML markup, as a reader sees them: block elements ("<p>",
    "<br>", "<div>", "<li>") become line breaks, inline ones ("<b>", "<span>", "<a>") vanish,
    character references are decoded ("Hi <b>Toby</b>,</p>" -> "Hi Toby,"). ``None`` when the
    text has no such markup. Twenty-first round of issue 11: a greeting's or a signature's name
    behind a tag was never seen beside its cue ("Kind regards,<br>Tegan - Bookings Team")."""
    import html

    if "<" not in text or not _HTML_MARKUP_RE.search(text):
        return None
    view = _HTML_BLOCK_RE.sub("\n", text)
    view = html.unescape(_TAG_RE.sub("", view))
    view = re.sub(r"[ \t]+", " ", view)
    return re.sub(r"(?:\n[ \t]*)+", "\n", view).strip()


def _html_text(fragment: str) -> str:
    import html

    return html.unescape(re.sub(r"\s+", " ", _TAG_RE.sub(" ", fragment))).strip()


def html_fields(text: str) -> Iterator[tuple[str, str]]:
    """``(key, value)`` of an HTML form's fields and definition lists: an ``<input>`` /
    ``<textarea>`` / ``<select>`` tag's ``name`` (or ``id``) with its ``value``, a ``<dt>`` term
    with its ``<dd>`` (tags inside stripped, entities decoded). Thirteenth round of issue 11: a
    form pasted as HTML holds its values in ``value="..."`` attributes, which the XML reader pairs
    with the attribute's own name."""
    if "<" not in text:
        return
    for tag in re.finditer(r"(?i)<(?:input|textarea|select|option|data|meta)\b[^<>]{0,600}>", text):
        attrs = {m.group("k").lower(): (m.group("dq") if m.group("dq") is not None else m.group("sq") or "")
                 for m in _ATTR_RE.finditer(tag.group())}
        key = attrs.get("name") or attrs.get("id") or attrs.get("itemprop")
        value = (attrs.get("value") or attrs.get("content") or "").strip()
        if key and value:
            yield key, value
    for m in _HTML_DEF_RE.finditer(text):
        k, v = _html_text(m.group("k")), _html_text(m.group("v"))
        if k and v and len(k) <= 60:
            yield k, v
    # a row of label / value cells: a <th> before its <td>, or a <td> label ending in ":"
    # ("<tr><th>姓名</th><td>林怡君</td><th>病歷號</th><td>..</td></tr>", "<td>Kundennummer:</td>
    # <td>4419027</td>": fifteenth round)
    for row in _HTML_ROW_RE.finditer(text):
        cells = [(tag.lower(), _html_text(body)) for tag, body in _HTML_CELL_RE.findall(row.group(1))]
        for (tag_a, a), (tag_b, b) in zip(cells, cells[1:]):
            if a and b and len(a) <= 60 and tag_b == "td" and (tag_a == "th" or a.endswith((":", "："))):
                yield a.rstrip(":：").strip(), b


def html_table_rows(text: str) -> Iterator[dict[str, str]]:
    """Each data row of an HTML ``<table>`` as ``{column name: cell}``: the column names from the
    first row of ``<th>`` cells (a row of ``<td>`` only is data), cells' tags stripped and
    entities decoded; a row with a ``<th>`` first and ``<td>`` after ("<tr><th>Phone</th><td>...")
    is one ``{name: value}`` pair. Thirteenth round of issue 11 (tables pasted as HTML)."""
    if "<t" not in text.lower():
        return
    header: list[str] = []
    for row in _HTML_ROW_RE.finditer(text):
        cells = [(tag.lower(), _html_text(body)) for tag, body in _HTML_CELL_RE.findall(row.group(1))]
        if not cells:
            continue
        if all(tag == "th" for tag, _ in cells):
            header = [c for _, c in cells]
            continue
        if cells[0][0] == "th" and len(cells) == 2:  # a vertical table: <th>Phone</th><td>...</td>
            if cells[0][1] and cells[1][1]:
                yield {cells[0][1]: cells[1][1]}
            continue
        if header and len(header) == len(cells):
            yield {h: c for h, (_, c) in zip(header, cells) if h and c}


#: An airline booking's travel-document element (IATA SSR DOCS, the APIS data of a PNR):
#: ``P/GBR/561298473/GBR/03NOV81/M/21OCT31/WILLIAMS/REBECCA/JAMES`` - document type, issuing
#: state, document number, nationality, birth date, gender (``MI`` / ``FI`` an infant), expiry,
#: surname, given name, middle name; in ``SSR DOCS BA HK1 ...`` or alone (a tool's argument).
_SSR_DOCS_RE = re.compile(
    r"(?<![A-Za-z0-9])[PIACFM]{1,2}/[A-Z]{3}/(?P<num>[A-Z0-9]{5,20})/[A-Z]{3}/(?P<dob>\d{2}[A-Z]{3}\d{2,4})/"
    r"(?:MI|FI|[MFUX])/(?:\d{2}[A-Z]{3}\d{2,4})?/(?P<sur>[A-Z][A-Z' -]*)/(?P<given>[A-Z][A-Z' -]*)"
    r"(?:/(?P<mid>(?!P\d)[A-Z][A-Z' -]*))?")


def ssr_docs_values(text: str) -> Iterator[tuple[str, str, str]]:
    """``(value, entity, source)`` for each travel-document element of ``text``
    (:data:`_SSR_DOCS_RE`; IATA Reservations Interline Message Procedures, SSR DOCS): the document
    number (ACCOUNT_ID), the birth date (DATE_OF_BIRTH), the surname (LAST_NAME), the given and
    middle names (FIRST_NAME). Eighteenth round of issue 11 (red-team 21 read: a PNR's passport
    numbers and birth dates stayed)."""
    if "/" not in text:
        return
    for m in _SSR_DOCS_RE.finditer(text):
        yield m.group("num"), "ACCOUNT_ID", "ssr_docs"
        yield m.group("dob"), "DATE_OF_BIRTH", "ssr_docs"
        yield m.group("sur").strip(), "LAST_NAME", "ssr_docs"
        for g in ("given", "mid"):
            if m.group(g):
                yield m.group(g).strip(), "FIRST_NAME", "ssr_docs"


_LDIF_LINE_RE = re.compile(r"^(?P<k>[A-Za-z][\w;-]{0,60}):(?P<b>:?)[ \t]*(?P<v>.*)$")


def ldif_entries(text: str) -> list[dict[str, object]]:
    """The entries of an LDIF text (RFC 2849: a directory export - ``dn: uid=...`` then
    ``attribute: value`` lines, entries apart by a blank line, a line starting with a blank
    continuing the one before) as ``{attribute: value or [values]}``, for their keys to be judged
    as JSON keys are (``homePostalAddress``, ``mobile``, ``mail``). Base64 values (``::``) are left
    out. Only blocks with a ``dn:`` line are entries. Eighteenth round of issue 11 (red-team 21
    read: an offboarding export kept a home address)."""
    if "dn:" not in text:
        return []
    out: list[dict[str, object]] = []
    for block in re.split(r"\n[ \t]*\n", text.replace("\r\n", "\n").replace("\n ", "")):
        lines = [ln for ln in block.split("\n") if ln.strip() and not ln.startswith("#")]
        if not lines or not any(ln.lower().startswith("dn:") for ln in lines):
            continue
        entry: dict[str, object] = {}
        for ln in lines:
            m = _LDIF_LINE_RE.match(ln.strip())
            if not m or m.group("b") or m.group("k").lower() in ("dn", "changetype", "objectclass"):
                continue
            k, v = m.group("k"), m.group("v").strip()
            prev = entry.get(k)
            entry[k] = v if prev is None else [*(prev if isinstance(prev, list) else [prev]), v]
        if entry:
            out.append(entry)
    return out


#: an iCalendar / vCard property's common-name parameter (RFC 5545 3.2.2 "CN"): ``ORGANIZER;CN=Isla
#: Drummond MCSP:mailto:..``, ``ATTENDEE;ROLE=..;CN="Bram Okonjo":mailto:..``
_ICAL_CN_RE = re.compile(r"(?m)^(?:ORGANIZER|ATTENDEE|CONTACT|X-[A-Z-]+)(?:;[^:\n]*?)?;CN=(?P<q>\"?)(?P<v>[^\":;\n]{2,80})(?P=q)[;:]")
#: post-nominal letters after a name in a CN ("MCSP", "MD", "PhD", "RN")
_POSTNOMINAL_RE = re.compile(r"(?:,?[ \t]+(?:[A-Z]{2,6}|Ph\.?D\.?|M\.?D\.?|Jr\.?|Sr\.?))+$")
#: ICAO Doc 9303 machine-readable zone name fields: a passport's first line (TD3, "P<" + issuing
#: state + "SURNAME<<GIVEN<NAMES<<<"), an identity card's third line (TD1, "SURNAME<<GIVEN<<<")
_MRZ_TD3_RE = re.compile(r"(?m)^(?P<doc>[PV][A-Z<])(?P<state>[A-Z<]{3})(?P<sur>[A-Z]+(?:<[A-Z]+)*)<<(?P<given>[A-Z]+(?:<[A-Z]+)*)<*[ \t]*$")
_MRZ_TD1_RE = re.compile(r"(?m)^(?P<sur>[A-Z]+(?:<[A-Z]+)*)<<(?P<given>[A-Z]+(?:<[A-Z]+)*)<{2,}[ \t]*$")


def ical_names(text: str) -> Iterator[tuple[str, str, str]]:
    """``(value, "PERSON", "ical_cn")`` for each common name of an iCalendar / vCard text's
    organizer, attendees and contacts (RFC 5545 section 3.2.2), post-nominal letters dropped.
    Nineteenth round of issue 11 (red-team 25 read: invites kept their physiotherapist's and
    viewers' names)."""
    if ";CN=" not in text:
        return
    for m in _ICAL_CN_RE.finditer(text):
        name = _POSTNOMINAL_RE.sub("", m.group("v").strip())
        if len(name) >= 2 and "@" not in name:
            yield name, "PERSON", "ical_cn"


def mrz_names(text: str) -> Iterator[tuple[str, str, str]]:
    """The names of a machine-readable zone (ICAO Doc 9303 parts 4 and 5): ``(surname, "LAST_NAME",
    ..)``, ``(given name, "FIRST_NAME", ..)`` for each word, and the passport line's issuing state
    glued to the surname (``"NZLHARGREAVES"``, an ``ACCOUNT_ID`` replaced letter for letter) so the
    line keeps its layout. Nineteenth round of issue 11 (red-team 25 read)."""
    if "<<" not in text:
        return
    for rx in (_MRZ_TD3_RE, _MRZ_TD1_RE):
        for m in rx.finditer(text):
            surname, given = m.group("sur").split("<"), m.group("given").split("<")
            if rx is _MRZ_TD3_RE:
                yield m.group("state").replace("<", "") + surname[0], "ACCOUNT_ID", "mrz"
            for w in surname:
                if len(w) >= 2:
                    yield w, "LAST_NAME", "mrz"
            for w in given:
                if len(w) >= 2:
                    yield w, "FIRST_NAME", "mrz"


#: a NACHA entry detail record (type "6"): transaction code, the receiving bank's routing number
#: and check digit, then the fixed-width fields of the entry
#: A SWIFT MT message's field (ISO 15022 MT1xx, "Standards MT" of SWIFT): ":tag:" at a line's
#: start, its value up to the next tag or the block's end ("-}")
_SWIFT_FIELD_RE = re.compile(r"(?m)^:(?P<tag>\d{2}[A-Z]?):(?P<val>[^\n]*(?:\n(?!:\d{2}[A-Z]?:|-\})[^\n]*)*)")
#: the fields of a party: the ordering customer (50A / F / H / K), the beneficiary (59, 59A / F),
#: an intermediary or ultimate party (50, 59 options) - "/account" then name and address lines
_SWIFT_PARTY_TAGS = frozenset({"50", "50F", "50H", "50K", "59", "59F"})


def swift_mt_values(text: str) -> Iterator[tuple[str, str, str]]:
    """``(value, entity, source)`` of a SWIFT MT payment message (MT103 / MT202 ...): the
    sender's and the related reference (fields 20 / 21: ACCOUNT_ID), and of each party (fields
    50 and 59 in options K / F / H / none) the account ("/GB11..." -> ACCOUNT_ID), the name
    (PERSON; option F's "1/" line) and the first address line (STREET_ADDRESS; option F's "2/").
    Twenty-first round of issue 11 (red-team 31 read: an MT103's beneficiary and their account
    were kept)."""
    if ":" not in text:
        return
    for m in _SWIFT_FIELD_RE.finditer(text):
        tag, lines = m.group("tag"), [ln.strip() for ln in m.group("val").split("\n") if ln.strip()]
        src = f"swift:{tag}"
        if not lines:
            continue
        if tag in ("20", "21"):
            if any(c.isdigit() for c in lines[0]) and len(lines[0]) >= 6:
                yield lines[0], "ACCOUNT_ID", src
            continue
        if tag not in _SWIFT_PARTY_TAGS:
            continue
        if lines[0].startswith("/"):
            account = lines[0][1:].strip()
            if sum(c.isdigit() for c in account) >= 5:
                yield account, "ACCOUNT_ID", src
            lines = lines[1:]
        if tag.endswith("F"):  # "1/NAME", "2/ADDRESS", "3/CC/TOWN"
            for ln in lines:
                if ln.startswith("1/"):
                    yield ln[2:].strip(), "PERSON", src
                elif ln.startswith("2/") and any(c.isdigit() for c in ln):
                    yield ln[2:].strip(), "STREET_ADDRESS", src
            continue
        if lines and not any(c.isdigit() for c in lines[0]):
            yield lines[0], "PERSON", src
            if len(lines) > 2 and any(c.isdigit() for c in lines[1]):
                yield lines[1], "STREET_ADDRESS", src


_NACHA_ENTRY_RE = re.compile(r"(?m)^6\d{2}\d{9}.{70,82}$")


def nacha_entries(text: str) -> Iterator[tuple[str, str, str]]:
    """``(value, entity, "nacha")`` for each entry detail record of a NACHA (ACH) file: the
    receiver's account number (positions 13-29), the amount and individual identification number
    (positions 30-54; an ``ACCOUNT_ID``, the two glued as the file writes them: "0000184220EMP-00412")
    and the individual's name (positions 55-76, ``PERSON``). Layout: Nacha Operating Rules,
    Appendix Three (94-character records). Nineteenth round of issue 11 (red-team 21, 24 and 25:
    payroll files kept their payees' names)."""
    if "\n6" not in text and not text.startswith("6"):
        return
    for m in _NACHA_ENTRY_RE.finditer(text):
        line = m.group(0)
        account, ident, name = line[12:29].strip(), line[29:54].strip(), line[54:76].strip()
        if sum(c.isdigit() for c in account) >= 4:
            yield account, "ACCOUNT_ID", "nacha"
        if len(ident) >= 4 and not set(ident) <= {"0"}:
            yield ident, "ACCOUNT_ID", "nacha"
        if re.fullmatch(r"[A-Z][A-Z' .-]*[A-Z.]", name) and " " in name:
            yield name, "PERSON", "nacha"


#: a printout's field line: a key padded to a column by blanks or leader dots before its colon
#: ("SamAccountName    : jdoe", "CLIENTE......: ANA LIMA", "Name .......... : Ana Lima")
_PADDED_FIELD_RE = re.compile(r"[ \t]*(?P<k>[^\W\d_][\w/#'-]*(?: [\w/#'-]+){0,3}?)"
                              r"(?:[ \t]{2,}|[ \t]*\.{2,}[ \t]*)[:：][ \t]*(?P<v>\S[^\n]*?)[ \t]*")


def padded_fields(text: str) -> list[dict[str, str]]:
    """The blocks of a printout's aligned ``key   : value`` lines (PowerShell's ``Format-List``
    output, a mainframe or ERP screen with leader dots: ``CLIENTE......: ANA LIMA``) as ``{key:
    value}`` per block of three or more such lines in a row (blank lines and other lines end a
    block), for their keys to be judged as JSON keys are. A chat's speaker labels are never padded,
    so transcripts give none. Twenty-second round of issue 11 (red-team 35 and 36 read: a
    directory lookup kept its logins, a delivery screen its customer and courier)."""
    if ":" not in text and "：" not in text:
        return []
    out: list[dict[str, str]] = []
    block: dict[str, str] = {}
    for ln in text.splitlines():
        m = _PADDED_FIELD_RE.fullmatch(ln)
        if m:
            block.setdefault(m.group("k").strip(), m.group("v"))
            continue
        if len(block) >= 3:
            out.append(block)
        block = {}
    if len(block) >= 3:
        out.append(block)
    return out


def markdown_rows(text: str) -> list[dict[str, str]]:
    """The rows of the markdown (GitHub-flavoured) tables in ``text`` as ``{header: cell}``: a
    ``| a | b |`` line, a rule line under it (``|---|:---:|``), then rows of as many cells. Rows of
    another cell count end the table. Twenty-second round of issue 11: a tool's markdown table is
    judged by its column names as a CSV export's rows are (a store's address column under "Tienda"
    is the store's)."""
    if "|" not in text or "-" not in text:
        return []
    lines = text.splitlines()
    out: list[dict[str, str]] = []
    i = 0
    while i + 1 < len(lines):
        head, rule = lines[i].strip(), lines[i + 1].strip()
        if not (head.startswith("|") and rule.startswith("|") and _RULE_LINE_RE.fullmatch(lines[i + 1])):
            i += 1
            continue
        header = _split_row(head, "|", framed=True)
        i += 2
        while i < len(lines) and lines[i].strip().startswith("|"):
            cells = _split_row(lines[i].strip(), "|", framed=True)
            if len(cells) != len(header):
                break
            out.append({h: c for h, c in zip(header, cells) if h})
            i += 1
    return out
