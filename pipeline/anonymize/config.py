"""The PII config: key rules, person keys, keep-words and id labels as data (YAML).

The defaults ship as ``pipeline/anonymize/pii_config.yaml`` (in the manner of NeMo Curator's
``config/pii_config.yaml``); a company extends them for its own systems with a file of the same
sections (``trajpipe anonymize --pii-config FILE``, :meth:`PiiConfig.load`): lists are appended,
mappings add or override entries. Domain vocabulary (flight numbers, cabins, product names, id
formats) is not in the file: :func:`domain_vocabulary` takes it from the registered domains (their
policies, tool schemas - parameter kinds and example values -, state models and optional
``pii_hints``).

Key normalization (:func:`normalize_key`): camelCase split, lower case, ``-`` / space / ``.``
read as ``_``: ``homePhone`` -> ``home_phone``, ``last4Digits`` -> ``last4_digits``.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from collections.abc import Mapping
from typing import Any, Iterable, Optional, Union

import yaml

DEFAULT_CONFIG_PATH = Path(__file__).with_name("pii_config.yaml")

#: Entity types a config may name (anything else is a config error).
KNOWN_ENTITIES = frozenset({
    "PERSON", "FIRST_NAME", "LAST_NAME", "EMAIL_ADDRESS", "PHONE_NUMBER", "DATE_OF_BIRTH",
    "STREET_ADDRESS", "ADDRESS_LINE2", "CITY", "ZIP", "USER_ID", "ACCOUNT_ID", "RESERVATION_ID",
    "ORDER_ID", "PAYMENT_ID", "LAST_FOUR", "CREDIT_CARD", "IBAN_CODE", "SSN", "PASSWORD",
    "API_KEY", "ACCESS_TOKEN", "SESSION_ID", "VEHICLE_ID"})
_SECTIONS = ("key_rules", "key_words", "key_words_exclude", "person_keys", "skip_keys",
             "keep_words", "place_words", "id_labels", "id_patterns", "phone_regions", "eponyms", "thing_nouns",
             "dish_words", "staff_labels")



#: A Chinese / Japanese / Korean key that names a person by its last character(s): Chinese and
#: Japanese "人" (a person: 委托人 client, 当事人 a party, 申请人, 联系人, 收件人, 代理人), Japanese
#: "者" (申込者, 契約者, 担当者), Chinese "员" / "員" (业务员, 快递员, 係員), a superior or a
#: manager (上级, 上司, 主管, 经理) - a whole key of 2-8 such characters, never one that counts
#: people ("人数", "人员数"). Their values still need a person's shape (twenty-fourth round,
#: red-team 40 read). Korean "-자" / "-인" also end "일자" (a date), "숫자", "확인": Korean person
#: keys are listed in ``person_keys`` instead.
_CJK_PERSON_KEY_RE = re.compile(r"[\u4E00-\u9FFF]{1,7}(?:人|者|员|員|上级|上級|上司|主管|经理|經理)")

class PiiConfigError(ValueError):
    """A PII config file that cannot be used (the message names the file, section and entry)."""


_CAMEL_1 = re.compile(r"([a-z0-9])([A-Z])")
_CAMEL_2 = re.compile(r"([A-Z]+)([A-Z][a-z])")


@lru_cache(maxsize=65536)
def strip_accents(text: str) -> str:
    """``text`` without combining marks (Unicode NFKD): "São Paulo" -> "Sao Paulo", "prénom" ->
    "prenom"."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


#: letters of the scripts written without spaces between words (CJK, kana, Hangul - its jamo too:
#: keys are normalized by NFD -, Thai)
_NO_SPACE_SCRIPT_RE = re.compile("[\u1100-\u11FF\u3040-\u30FF\u4E00-\u9FFF\uAC00-\uD7AF\u0E00-\u0E7F]")


@lru_cache(maxsize=65536)
def normalize_key(key: Optional[str]) -> Optional[str]:
    """(cached: a run normalizes the same few hundred keys hundreds of thousands of times)
    ``homePhone`` -> ``home_phone``, ``last4Digits`` -> ``last4_digits``, ``E-Mail`` ->
    ``e_mail``, ``postalCode`` -> ``postal_code``, ``SSN`` -> ``ssn``, ``Prénom`` -> ``prenom``,
    ``Straße`` -> ``strasse`` (accents dropped) (``None`` for non-strings)."""
    if not isinstance(key, str):
        return None
    if not key.isascii():  # "prénom" -> "prenom", "Straße" -> "strasse", "teléfono" -> "telefono"
        key = strip_accents(key.replace("ß", "ss"))
    k = _CAMEL_2.sub(r"\1_\2", _CAMEL_1.sub(r"\1_\2", key.strip()))
    k = re.sub(r"[\s.\-]+", "_", k).lower()
    return re.sub(r"_+", "_", k).strip("_")


#: Endings of a key's last word that make it a record's number (tenth round: "donornr",
#: "kundennummer", "lidnummer", "pakkenr"): the value's shape must confirm an id.
GLUED_NUMBER_ENDINGS = ("nr", "nummer", "numer", "numero", "number", "nro",
                       # sixteenth round: "保険者番号", "免許証番号", "身分證號碼", "회원번호", "лицевой_номер"
                       "番号", "號碼", "号码", "번호", "номер",
                       # twentieth round (red-team 28 read): "退货单号", "订单号", "工号", "编号"
                       "单号", "單號", "工号", "工號", "编号", "編號")

#: The head of a Chinese / Japanese / Korean "... number" key that makes it a shipment's tracking
#: number (a business id that stays, as in the third round): "快递单号", "运单号", "追跡番号", "송장번호"
_TRACKING_HEADS = ("快递", "快遞", "运", "運", "物流", "追跡", "送り状", "송장", "운송장")

#: Key words that compounds of German, Dutch and the Nordic languages end with ("Lieferadresse",
#: "Rechnungsanschrift", "Festnetztelefon", "Mädchenname" no: only these): the compound names the
#: same entity, its value's shape must confirm it (eighteenth round)
GLUED_WORD_ENDINGS = ("adresse", "anschrift", "adres", "adress", "telefon", "telefoon", "nachname", "vorname",
                      "achternaam", "voornaam", "geburtsdatum", "efternamn", "förnamn", "fornavn", "etternavn",
                      "efternavn")

#: Person keys too vague to make a longer key a person's by ending it ("http_client", "display",
#: "users" of "max_users", tau-bench retail's "bluetooth_speaker" item, "smtp_host" are no people).
_VAGUE_PEOPLE = frozenset({"client", "display", "users", "contacts", "members", "participants", "followers",
                           "watchers", "collaborators", "guests", "speaker", "host", "handle"})

#: "by" of keys in other languages ("letzte_aenderung_durch", "modifie_par", "creado_por",
#: "gewijzigd_door", "skapad_av", "creato_da", "utworzone_przez": twentieth round, red-team 28 read)
_BY_WORDS = frozenset({"by", "durch", "von", "par", "por", "door", "av", "da", "przez"})

#: Words of a key that say a value was checked or changed, not what it is ("zip_verified":
#: "30305" is the postcode that was verified; "email_verified": true a flag): they exclude no key
#: word, the value's shape decides (twentieth round, red-team 27 read)
_STATE_WORDS = frozenset({"verified", "validated", "valid", "confirmed", "changed"})

#: Words before "_by" in keys that say how, not who ("sort_by", "group_by", "order_by").
_HOW_BY = frozenset("""sort order group filter partition split search index key aggregate rank pivot stand pass
    near step offset increment multiply divide scale round match join""".split())


@dataclass
class PiiConfig:
    """The rules the anonymizer takes from configuration (see the module doc).

    ``key_rules``: normalized key -> entity (exact); ``key_words``: entity -> word sequences
    (``"last_four"``) that name the entity anywhere inside a normalized key; ``key_words_exclude``:
    key words that make a key about the value rather than the value; ``person_keys``: keys whose
    values are people; ``skip_keys``: business keys never analyzed; ``keep_words``: lower-case
    words never taken as names; ``id_labels``: entity -> label regexes for "<label> <value>" in
    text; ``id_patterns``: entity -> regexes of whole identifiers (``first_last_1234``);
    ``place_words``: words that make a Capitalized span a place ("International Airport");
    ``phone_regions``: presidio phone regions tried besides the US; ``eponyms``: lower-case names
    that, followed by "'s", name a medical condition, not a person ("Hashimoto's"); ``thing_nouns``:
    lower-case nouns that, right after a name (or after its "'s", Capitalized), make it a brand,
    a dish, a venue or an event ("Ted Baker blazer", "Caesar salad", "King's Road");
    ``dish_words``: words that, right before a name or as its first word, make it a dish ("Eggs
    Benedict", "Peach Melba") or a product ("a Conta Jovem Mais", "Visa Gold Viagens");
    ``staff_labels``: label regexes of a staff role inside a line ("Agent", "Atendente",
    "Eskalation an"), read after a sentence's end and before a colon: the name after one is a
    person's, in user and tool text (a ``PERSON`` label) and in a system prompt, of which nothing
    else is analyzed (:meth:`staff_label_regex`).
    """

    key_rules: dict[str, str] = field(default_factory=dict)
    key_words: dict[str, list[tuple[str, ...]]] = field(default_factory=dict)
    key_words_exclude: set[str] = field(default_factory=set)
    person_keys: set[str] = field(default_factory=set)
    skip_keys: set[str] = field(default_factory=set)
    keep_words: set[str] = field(default_factory=set)
    id_labels: dict[str, list[str]] = field(default_factory=dict)
    id_patterns: dict[str, list[str]] = field(default_factory=dict)
    place_words: set[str] = field(default_factory=set)
    phone_regions: list[str] = field(default_factory=list)
    eponyms: set[str] = field(default_factory=set)
    thing_nouns: set[str] = field(default_factory=set)
    dish_words: set[str] = field(default_factory=set)
    staff_labels: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)

    # -- loading -------------------------------------------------------------------------
    @classmethod
    def from_yaml(cls, path: Union[str, Path]) -> "PiiConfig":
        """Only the rules in ``path`` (no defaults). Raises :class:`PiiConfigError` for a
        missing / unparsable file, an unknown section or entity type, or a bad regex."""
        cfg = cls()
        cfg.extend(_read(path), str(path))
        return cfg

    @classmethod
    def load(cls, extra: Union[None, str, Path, Iterable[Union[str, Path]]] = None) -> "PiiConfig":
        """The shipped defaults, extended by ``extra`` (one path or several, in order)."""
        cfg = cls()
        cfg.extend(_read(DEFAULT_CONFIG_PATH), str(DEFAULT_CONFIG_PATH))
        if extra is not None:
            for p in ([extra] if isinstance(extra, (str, Path)) else list(extra)):
                cfg.extend(_read(p), str(p))
        return cfg

    def extend(self, data: dict[str, Any], source: str = "<dict>") -> None:
        """Add the sections of ``data`` (a parsed config file) to this config."""
        if not isinstance(data, dict):
            raise PiiConfigError(f"{source}: the top level must be a mapping of sections")
        unknown = set(data) - set(_SECTIONS)
        if unknown:
            raise PiiConfigError(f"{source}: unknown section(s) {sorted(unknown)}; "
                                 f"known: {', '.join(_SECTIONS)}")
        for ent, keys in _mapping(data, "key_rules", source).items():
            for k in _strings(keys, f"key_rules.{ent}", source):
                self.key_rules[normalize_key(k)] = _entity(ent, source)
        for ent, words in _mapping(data, "key_words", source).items():
            seqs = self.key_words.setdefault(_entity(ent, source), [])
            seqs.extend(tuple(normalize_key(w).split("_")) for w in _strings(words, f"key_words.{ent}", source))
        self.key_words_exclude.update(normalize_key(w) for w in _strings(data.get("key_words_exclude"), "key_words_exclude", source))
        self.person_keys.update(normalize_key(k) for k in _strings(data.get("person_keys"), "person_keys", source))
        self.skip_keys.update(normalize_key(k) for k in _strings(data.get("skip_keys"), "skip_keys", source))
        self.keep_words.update(w.lower() for w in _strings(data.get("keep_words"), "keep_words", source))
        self.eponyms.update(w.lower() for w in _strings(data.get("eponyms"), "eponyms", source))
        self.thing_nouns.update(w.lower() for w in _strings(data.get("thing_nouns"), "thing_nouns", source))
        self.dish_words.update(w.lower() for w in _strings(data.get("dish_words"), "dish_words", source))
        for ent, labels in _mapping(data, "id_labels", source).items():
            for lab in _strings(labels, f"id_labels.{ent}", source):
                try:
                    re.compile(lab)
                except re.error as exc:
                    raise PiiConfigError(f"{source}: id_labels.{ent}: bad regex {lab!r}: {exc}") from None
                self.id_labels.setdefault(_entity(ent, source), []).append(lab)
        for lab in _strings(data.get("staff_labels"), "staff_labels", source):
            try:
                re.compile(lab)
            except re.error as exc:
                raise PiiConfigError(f"{source}: staff_labels: bad regex {lab!r}: {exc}") from None
            self.staff_labels.append(lab)
        for ent, pats in _mapping(data, "id_patterns", source).items():
            for pat in _strings(pats, f"id_patterns.{ent}", source):
                try:
                    re.compile(pat)
                except re.error as exc:
                    raise PiiConfigError(f"{source}: id_patterns.{ent}: bad regex {pat!r}: {exc}") from None
                self.id_patterns.setdefault(_entity(ent, source), []).append(pat)
        self.place_words.update(w.lower() for w in _strings(data.get("place_words"), "place_words", source))
        for r in _strings(data.get("phone_regions"), "phone_regions", source):
            if not re.fullmatch(r"[A-Z]{2}", r):
                raise PiiConfigError(f"{source}: phone_regions: {r!r} is not a 2-letter region code")
            if r not in self.phone_regions:
                self.phone_regions.append(r)
        self.sources.append(source)
        self._sorted_words = None
        self._key_cache = {}  # key -> key_entity's answer (a merge changes the answer)
        self.__dict__.pop("_squashed_rules", None)

    # -- lookups -------------------------------------------------------------------------
    def staff_label_regex(self) -> Optional[str]:
        """The ``staff_labels`` as one regex of a label inside a line: after a sentence's end
        (".", ";", ",", "!", ")" and a space; at a line's start "Agent:" is a chat's speaker, no
        label); ``None`` where there are none. Case is the caller's (the label finder and the
        system-prompt scan read it case-insensitively)."""
        if not self.staff_labels:
            return None
        return r"(?<=[.;,!)] )(?:" + "|".join(f"(?:{lab})" for lab in self.staff_labels) + ")"

    def text_labels(self) -> dict[str, list[str]]:
        """``id_labels`` with the staff labels (:meth:`staff_label_regex`) among the ``PERSON`` ones:
        the labels read in user and tool text (entity -> label regexes)."""
        out = {ent: list(labs) for ent, labs in self.id_labels.items()}
        staff = self.staff_label_regex()
        if staff is not None:
            out.setdefault("PERSON", []).append(staff)
        return out

    def is_person_key(self, key: Optional[str]) -> bool:
        """A normalized key whose values are people: one of ``person_keys``, or a key ending in
        ``_by`` after a verb of doing ("last_touched_by", "closed_by": who did it; not "sort_by",
        "group_by", "order_by": how to do it)."""
        if key is None:
            return False
        if key in self.person_keys:
            return True
        if _CJK_PERSON_KEY_RE.fullmatch(key):
            return True  # "委托人", "对方当事人", "申込者", "业务员": a word for a person (twenty-fourth round)
        parts = key.split("_")
        if len(parts) >= 2 and len(parts[-1]) >= 5 and parts[-1] in self.person_keys and parts[-1] not in _VAGUE_PEOPLE \
                and not any(w in self.key_words_exclude for w in parts):
            return True  # "wrong_recipient", "new_owner", "secondary_driver" (eleventh round)
        return len(parts) >= 2 and parts[-1] in _BY_WORDS and parts[-2] not in _HOW_BY

    def key_entity(self, key: Optional[str]) -> tuple[Optional[str], bool]:
        """``(entity, exact)`` for a normalized key: an exact ``key_rules`` entry (``exact``
        True; also when the key and a rule of two words or more are equal without their "_":
        "samAccountName" for "sAMAccountName"), else the longest ``key_words`` sequence inside the key's words unless the key
        has an excluded word (``exact`` False: the value's shape must confirm it), else
        ``(None, False)``."""
        if key is None:
            return None, False
        cache = self.__dict__.setdefault("_key_cache", {})
        hit = cache.get(key)
        if hit is None:
            hit = cache[key] = self._key_entity(key)
        return hit

    def _key_entity(self, key: str) -> tuple[Optional[str], bool]:
        ent = self.key_rules.get(key)
        if ent:
            return ent, True
        squashed = self.__dict__.get("_squashed_rules")
        if squashed is None:
            squashed = self.__dict__["_squashed_rules"] = {
                k.replace("_", ""): e for k, e in self.key_rules.items() if "_" in k and len(k) >= 8}
        ent = squashed.get(key.replace("_", ""))
        if ent:
            # a rule's key split otherwise by its capitals ("samAccountName" -> "sam_account_name" for
            # the rule "sAMAccountName" -> "s_am_account_name": twenty-second round, red-team 36 read)
            return ent, True
        words = key.split("_")
        excluded = [w for w in words if w in self.key_words_exclude]
        if excluded:
            if not all(w in _STATE_WORDS for w in excluded):
                return None, False
            words = [w for w in words if w not in _STATE_WORDS]  # the value's shape must confirm it
            if not words:
                return None, False
            key = "_".join(words)
            ent = self.key_rules.get(key)
            if ent:
                return ent, False
        singular = [w[:-1] if len(w) > 4 and w.endswith("s") and not w.endswith("ss") else w for w in words]
        for seq, ent in self._word_rules():
            n = len(seq)
            for ws in ((words, singular) if singular != words else (words,)):
                # (a plural: "new_etickets", "backup_phones", "linked_accounts" - eleventh round)
                for i in range(len(ws) - n + 1):
                    if tuple(ws[i:i + n]) == seq:
                        return ent, False
        joined = key.replace("_", "")  # "lastfour", "zipcode", "phonenumber" glued
        for seq, ent in self._word_rules():
            if len(seq) > 1 and "".join(seq) == joined:
                return ent, False
        # keys of scripts written without spaces ("배달주소" - delivery address -, "收货地址", "携帯電話"):
        # a key word of those scripts inside the key (fourteenth round)
        if _NO_SPACE_SCRIPT_RE.search(key):
            for seq, ent in self._word_rules():
                if len(seq) == 1 and _NO_SPACE_SCRIPT_RE.search(seq[0]) and seq[0] in key:
                    return ent, False
        # a number's word glued to what it counts ("donornr", "kundennummer", "pakkenr")
        last = words[-1]
        for end in GLUED_NUMBER_ENDINGS:
            # (a word of a script without spaces needs one letter before it: "注文番号")
            if last.endswith(end) and len(last) >= len(end) + (3 if end.isascii() else 1):
                head = last[:-len(end)]  # "phonenumber" is a phone's, "donornr" a record's
                if not end.isascii() and head.endswith(_TRACKING_HEADS):
                    return None, False
                return next((e for seq, e in self._word_rules() if seq == (head,)), "ACCOUNT_ID"), False
        for end in GLUED_WORD_ENDINGS:  # "lieferadresse", "festnetztelefon", "mädchennachname"
            if last.endswith(end) and len(last) >= len(end) + 3:
                ent = self.key_rules.get(end) or next((e for seq, e in self._word_rules() if seq == (end,)), None)
                if ent:
                    return ent, False
        return None, False

    def _word_rules(self) -> list[tuple[tuple[str, ...], str]]:
        if getattr(self, "_sorted_words", None) is None:
            self._sorted_words = sorted(((s, e) for e, seqs in self.key_words.items() for s in seqs),
                                        key=lambda x: -len(x[0]))
        return self._sorted_words


def _read(path: Union[str, Path]) -> dict[str, Any]:
    from ..fileio import yaml_problem

    p = Path(path)
    if not p.is_file():
        raise PiiConfigError(f"PII config {p} not found")
    try:
        data = yaml.safe_load(p.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise PiiConfigError(f"not valid YAML: {yaml_problem(p, exc)}") from None
    return data or {}


def _mapping(data: dict, name: str, source: str) -> dict:
    v = data.get(name) or {}
    if not isinstance(v, dict):
        raise PiiConfigError(f"{source}: section {name} must be a mapping of ENTITY: [...]")
    return v


def _strings(v: Any, where: str, source: str) -> list[str]:
    if v is None:
        return []
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list) or not all(isinstance(x, (str, int)) for x in v):
        raise PiiConfigError(f"{source}: {where} must be a list of strings")
    bools = [x for x in v if isinstance(x, bool)]
    if bools:  # YAML 1.1 reads unquoted yes / no / on / off / true / false as booleans
        raise PiiConfigError(f"{source}: {where} holds {bools[0]!r}, not a string: YAML reads an unquoted "
                             "yes / no / on / off / true / false as a boolean - quote it ('no')")
    return [str(x) for x in v]


def _entity(ent: str, source: str) -> str:
    if ent not in KNOWN_ENTITIES:
        raise PiiConfigError(f"{source}: unknown entity type {ent!r}; known: {', '.join(sorted(KNOWN_ENTITIES))}")
    return ent


@lru_cache(maxsize=1)
def default_config() -> PiiConfig:
    """The shipped defaults (cached; do not mutate - use :meth:`PiiConfig.load` for a copy)."""
    return PiiConfig.load()


@dataclass(frozen=True)
class DomainVocabulary:
    """What the registered domains tell the anonymizer about their data (:func:`domain_vocabulary`).

    ``keep_words``: lower-case words of the policies, tool names, descriptions and enum values
    (never person names); ``business_keys``: JSON keys whose values are business facts
    (added to the config's ``skip_keys``); ``id_patterns``: entity -> regexes of the domains'
    personal identifiers; ``codes``: short codes (:class:`~pipeline.anonymize.ids.CodeSpec`);
    ``business_ids`` / ``business_shapes``: regexes of business identifiers (flight numbers);
    ``business_numbers``: ``(digits, words)`` of business identifiers that are bare numbers
    (retail's item and product ids "such as '6086499569'": ``(10, ("product",))``) - a bare
    number of that length in a text that names one of the words is that id, never a phone;
    ``sources``: the domains read."""

    keep_words: frozenset[str] = frozenset()
    business_keys: frozenset[str] = frozenset()
    id_patterns: tuple[tuple[str, str], ...] = ()
    codes: tuple = ()
    business_ids: tuple[str, ...] = ()
    business_shapes: tuple[str, ...] = ()
    business_numbers: tuple[tuple[int, tuple[str, ...]], ...] = ()
    sources: tuple[str, ...] = ()


#: Entities whose examples in a tool schema describe an identifier format.
_ID_ENTITIES = frozenset({"USER_ID", "ACCOUNT_ID", "RESERVATION_ID", "ORDER_ID", "PAYMENT_ID"})
_EXAMPLE_RE = re.compile(r"(?<![A-Za-z])'([^'\s][^'\n]{0,58}?)'(?![A-Za-z])")
_WORD_RE = re.compile(r"[A-Za-z]{3,}")


def _schema_params(schema: Any, out: list[tuple[str, dict]]) -> None:
    """Every (parameter name, spec) of a JSON schema, nested objects and array items included."""
    if isinstance(schema, dict):
        for name, spec in (schema.get("properties") or {}).items():
            if isinstance(spec, dict):
                out.append((name, spec))
                _schema_params(spec, out)
        if isinstance(schema.get("items"), dict):
            _schema_params(schema["items"], out)


def _is_business_spec(spec: dict, examples: list[str]) -> bool:
    """A parameter whose value is a fact, not free text: an enum, a pattern, a number or boolean,
    or examples without spaces (``'SFO'``, ``'HAT001'``, ``['1008292230']``)."""
    items = spec.get("items") if isinstance(spec.get("items"), dict) else {}
    types = {spec.get("type"), items.get("type")}
    if spec.get("enum") or items.get("enum") or spec.get("pattern") or items.get("pattern"):
        return True
    if types & {"number", "integer", "boolean"}:
        return True
    return bool(examples) and all(" " not in e for e in examples)


def _model_vocabulary(module: Any, config: "PiiConfig", keep: set[str], business: set[str]) -> None:
    """Business keys and words from a domain's state module: pydantic model fields typed as a
    ``Literal`` (their values are domain words), a number or a model of numbers; and the words
    of its named constant collections (``CABINS``, ``AIRPORTS``: the cities it serves)."""
    import typing

    try:
        from pydantic import BaseModel
    except ImportError:  # pragma: no cover
        return
    for name, obj in vars(module).items():
        if name.isupper() and isinstance(obj, (dict, list, tuple, frozenset, set)):
            # the state's named vocabularies (CABINS, MEMBERSHIPS, AIRPORTS -> city names)
            items = list(obj.items()) if isinstance(obj, dict) else [(v, None) for v in obj]
            for k, v in items:
                for x in (k, v):
                    if isinstance(x, str) and len(x) <= 60 and not x.isupper():  # not codes ("MIA")
                        keep.update(w.lower() for w in _WORD_RE.findall(x))
            continue
        if not (isinstance(obj, type) and issubclass(obj, BaseModel) and obj is not BaseModel):
            continue
        for name, fld in obj.model_fields.items():
            ann = fld.annotation
            args = [a for a in typing.get_args(ann) if a is not type(None)] or [ann]
            lits: list[Any] = []
            for a in args:
                if typing.get_origin(a) is typing.Literal:
                    lits.extend(typing.get_args(a))
            numeric = all(a in (int, float, bool) for a in args)
            sub = [a for a in args if isinstance(a, type) and issubclass(a, BaseModel)]
            numbers_model = bool(sub) and all(
                all(f.annotation in (int, float) for f in m.model_fields.values()) for m in sub)
            nk = normalize_key(name)
            personal = config.key_entity(nk)[0] is not None or config.is_person_key(nk)
            if lits:
                for v in lits:
                    keep.update(w.lower() for w in _WORD_RE.findall(str(v)))
                    keep.add(str(v).lower().replace("_", "").replace(" ", ""))
            if not personal and (lits and len(args) == len([a for a in args if typing.get_origin(a) is typing.Literal])
                                 or numeric or numbers_model):
                business.add(nk)


def domain_vocabulary(config: Optional["PiiConfig"] = None) -> DomainVocabulary:
    r"""Read every registered domain (:mod:`pipeline.domains`) for what the anonymizer must know
    about its data - the domains' words are never code here:

    * ``keep_words``: the policy's words, tool names, descriptions (not their example values)
      and enum values, and the ``Literal`` values of the state models;
    * ``business_keys``: tool parameters that hold facts (an enum, a pattern, a number, examples
      without spaces: ``origin``, ``cabin``, ``flight_number``, ``item_ids``) and state-model
      fields typed as a ``Literal``, a number or a model of numbers (``membership``,
      ``available_seats``) - unless the PII config calls the key personal;
    * identifier formats from the examples of personal parameters ("The reservation id, such as
      '8JX2WO'" -> a 6-character code; "'#W0000000'" -> ``#?W\d{7}``), and business identifier
      formats from the examples of business parameters ("such as 'HAT001'");
    * a domain's optional ``pii_hints`` (``docs/domains.md``): ``keep_words``,
      ``business_keys``, ``id_patterns`` ({ENTITY: [regex]}), ``business_ids`` ([regex]).

    A domain that fails to load is skipped (a broken plugin must not stop anonymization)."""
    config = config or default_config()
    cached = getattr(config, "_domain_vocab", None)
    if cached is None:
        cached = _domain_vocabulary(config)
        object.__setattr__(config, "_domain_vocab", cached)
    return cached


def _domain_vocabulary(config: "PiiConfig") -> DomainVocabulary:
    from ..domains import get_domain, known_domains
    from .ids import CodeSpec, business_shape, example_pattern

    keep: set[str] = set()
    business: set[str] = set()
    id_patterns: list[tuple[str, str]] = []
    codes: list[Any] = []
    biz_ids: list[str] = []
    biz_shapes: list[str] = []
    biz_numbers: list[tuple[int, tuple[str, ...]]] = []
    code_params: list[tuple[str, str, int]] = []  # (entity, param words, length)
    biz_params: list[tuple[int, list[str]]] = []  # (example length, param words)
    sources: list[str] = []
    for name in known_domains():
        try:
            d = get_domain(name)
            schemas = d.tool_schemas()
            policy = str(d.policy or "")  # Domain contract members (pipeline/domains/base.py)
        except Exception:  # noqa: BLE001
            continue
        sources.append(name)
        keep.update(w.lower() for w in _WORD_RE.findall(policy))
        for tool in schemas:
            fn = tool.get("function", tool) if isinstance(tool, dict) else {}
            keep.update(w.lower() for w in _WORD_RE.findall(str(fn.get("name", ""))))
            keep.update(w.lower() for w in _WORD_RE.findall(_EXAMPLE_RE.sub(" ", str(fn.get("description", "")))))
            params: list[tuple[str, dict]] = []
            _schema_params(fn.get("parameters") or {}, params)
            for pname, spec in params:
                nk = normalize_key(pname)
                desc = str(spec.get("description", "")) + " " + str((spec.get("items") or {}).get("description", "")
                                                                     if isinstance(spec.get("items"), dict) else "")
                examples = [e for e in _EXAMPLE_RE.findall(desc) if not re.fullmatch(r"[A-Z]{2,4}(?:[-:][A-Z]{2,4})+", e)]
                keep.update(w.lower() for w in _WORD_RE.findall(_EXAMPLE_RE.sub(" ", desc)))
                ent = config.key_entity(nk)[0]
                words = [w for w in nk.split("_") if w and w not in ("id", "ids", "number", "no")]
                if ent is not None or config.is_person_key(nk):
                    if ent not in _ID_ENTITIES:
                        continue
                    for ex in examples:
                        shape = example_pattern(ex)
                        if shape is None:
                            continue
                        kind, val = shape
                        if kind == "pattern":
                            id_patterns.append((ent, str(val)))
                        else:
                            code_params.append((ent, " ".join(words), int(val)))
                    continue
                enum = list(spec.get("enum") or []) + list(((spec.get("items") or {}).get("enum") or [])
                                                           if isinstance(spec.get("items"), dict) else [])
                for v in enum:
                    keep.update(w.lower() for w in _WORD_RE.findall(str(v)))
                    keep.add(str(v).lower().replace("_", "").replace(" ", ""))
                if _is_business_spec(spec, examples):
                    business.add(nk)
                    keep.update(w.lower() for w in _WORD_RE.findall(nk))
                    for ex in examples:
                        keep.update(w.lower() for w in _WORD_RE.findall(ex))
                        if ex.isdigit() and len(ex) >= 6 and words:  # "item_ids": '1008292230'
                            biz_numbers.append((len(ex), tuple(words)))
                        shape = example_pattern(ex)
                        if shape and shape[0] == "pattern":
                            biz_ids.append(str(shape[1]).replace("#?", ""))
                            loose = business_shape(ex)
                            if loose:
                                biz_shapes.append(loose)
                            biz_params.append((len(ex), words))
        module = d.state_module
        if module is not None:
            try:
                _model_vocabulary(module, config, keep, business)
            except Exception:  # noqa: BLE001
                pass
        hints = d.pii_hints
        if isinstance(hints, Mapping) and hints:
            keep.update(str(w).lower() for w in hints.get("keep_words") or [])
            business.update(normalize_key(str(k)) for k in hints.get("business_keys") or [])
            for ent, pats in (hints.get("id_patterns") or {}).items():
                for pat in ([pats] if isinstance(pats, str) else pats):
                    if ent in KNOWN_ENTITIES and _valid_regex(pat):
                        id_patterns.append((ent, pat))
            biz_ids.extend(p for p in hints.get("business_ids") or [] if _valid_regex(p))
    for ent, words, length in dict.fromkeys(code_params):
        # "flight" (of a business id as long as the code) closer than "reservation": not an id
        veto = tuple(dict.fromkeys(w for n, ws in biz_params if n == length for w in ws))
        codes.append(CodeSpec(ent, length, tuple(words.split()), veto))
    return DomainVocabulary(
        keep_words=frozenset(keep - {""}),
        business_keys=frozenset(business),
        id_patterns=tuple(dict.fromkeys(id_patterns)),
        codes=tuple(dict.fromkeys(codes)),
        business_ids=tuple(dict.fromkeys(biz_ids)),
        business_shapes=tuple(dict.fromkeys(biz_shapes)),
        business_numbers=tuple(dict.fromkeys(biz_numbers)),
        sources=tuple(sources))


def _valid_regex(p: Any) -> bool:
    try:
        re.compile(str(p))
    except re.error:
        return False
    return True


def domain_keep_words() -> frozenset[str]:
    """The domains' words (:attr:`DomainVocabulary.keep_words` of :func:`domain_vocabulary`)."""
    return domain_vocabulary().keep_words
