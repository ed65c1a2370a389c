"""The PII config: key rules, person keys, keep-words and id labels as data (YAML).

The defaults ship as ``pipeline/anonymize/pii_config.yaml`` (in the manner of NeMo Curator's
``config/pii_config.yaml``); a company extends them for its own systems with a file of the same
sections (``trajpipe anonymize --pii-config FILE``, :meth:`PiiConfig.load`): lists are appended,
mappings add or override entries. Domain vocabulary (flight numbers, cabins, product names) is
not in the file: :func:`domain_keep_words` takes it from the registered domains' policies and
tool schemas.

Key normalization (:func:`normalize_key`): camelCase split, lower case, ``-`` / space / ``.``
read as ``_``: ``homePhone`` -> ``home_phone``, ``last4Digits`` -> ``last4_digits``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Optional, Union

import yaml

DEFAULT_CONFIG_PATH = Path(__file__).with_name("pii_config.yaml")

#: Entity types a config may name (anything else is a config error).
KNOWN_ENTITIES = frozenset({
    "PERSON", "FIRST_NAME", "LAST_NAME", "EMAIL_ADDRESS", "PHONE_NUMBER", "DATE_OF_BIRTH",
    "STREET_ADDRESS", "ADDRESS_LINE2", "CITY", "ZIP", "USER_ID", "ACCOUNT_ID", "RESERVATION_ID",
    "ORDER_ID", "PAYMENT_ID", "LAST_FOUR", "CREDIT_CARD", "IBAN_CODE", "SSN", "PASSWORD",
    "API_KEY", "ACCESS_TOKEN", "SESSION_ID"})
_SECTIONS = ("key_rules", "key_words", "key_words_exclude", "person_keys", "skip_keys",
             "keep_words", "id_labels", "phone_regions")


class PiiConfigError(ValueError):
    """A PII config file that cannot be used (the message names the file, section and entry)."""


_CAMEL_1 = re.compile(r"([a-z0-9])([A-Z])")
_CAMEL_2 = re.compile(r"([A-Z]+)([A-Z][a-z])")


@lru_cache(maxsize=65536)
def normalize_key(key: Optional[str]) -> Optional[str]:
    """``homePhone`` -> ``home_phone``, ``last4Digits`` -> ``last4_digits``, ``E-Mail`` ->
    ``e_mail``, ``postalCode`` -> ``postal_code``, ``SSN`` -> ``ssn`` (``None`` for non-strings)."""
    if not isinstance(key, str):
        return None
    k = _CAMEL_2.sub(r"\1_\2", _CAMEL_1.sub(r"\1_\2", key.strip()))
    k = re.sub(r"[\s.\-]+", "_", k).lower()
    return re.sub(r"_+", "_", k).strip("_")


@dataclass
class PiiConfig:
    """The rules the anonymizer takes from configuration (see the module doc).

    ``key_rules``: normalized key -> entity (exact); ``key_words``: entity -> word sequences
    (``"last_four"``) that name the entity anywhere inside a normalized key; ``key_words_exclude``:
    key words that make a key about the value rather than the value; ``person_keys``: keys whose
    values are people; ``skip_keys``: business keys never analyzed; ``keep_words``: lower-case
    words never taken as names; ``id_labels``: entity -> label regexes for "<label> <value>" in
    text; ``phone_regions``: presidio phone regions tried besides the US.
    """

    key_rules: dict[str, str] = field(default_factory=dict)
    key_words: dict[str, list[tuple[str, ...]]] = field(default_factory=dict)
    key_words_exclude: set[str] = field(default_factory=set)
    person_keys: set[str] = field(default_factory=set)
    skip_keys: set[str] = field(default_factory=set)
    keep_words: set[str] = field(default_factory=set)
    id_labels: dict[str, list[str]] = field(default_factory=dict)
    phone_regions: list[str] = field(default_factory=list)
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
        for ent, labels in _mapping(data, "id_labels", source).items():
            for lab in _strings(labels, f"id_labels.{ent}", source):
                try:
                    re.compile(lab)
                except re.error as exc:
                    raise PiiConfigError(f"{source}: id_labels.{ent}: bad regex {lab!r}: {exc}") from None
                self.id_labels.setdefault(_entity(ent, source), []).append(lab)
        for r in _strings(data.get("phone_regions"), "phone_regions", source):
            if not re.fullmatch(r"[A-Z]{2}", r):
                raise PiiConfigError(f"{source}: phone_regions: {r!r} is not a 2-letter region code")
            if r not in self.phone_regions:
                self.phone_regions.append(r)
        self.sources.append(source)
        self._sorted_words = None

    # -- lookups -------------------------------------------------------------------------
    def key_entity(self, key: Optional[str]) -> tuple[Optional[str], bool]:
        """``(entity, exact)`` for a normalized key: an exact ``key_rules`` entry (``exact``
        True), else the longest ``key_words`` sequence inside the key's words unless the key
        has an excluded word (``exact`` False: the value's shape must confirm it), else
        ``(None, False)``."""
        if key is None:
            return None, False
        ent = self.key_rules.get(key)
        if ent:
            return ent, True
        words = key.split("_")
        if any(w in self.key_words_exclude for w in words):
            return None, False
        for seq, ent in self._word_rules():
            n = len(seq)
            for i in range(len(words) - n + 1):
                if tuple(words[i:i + n]) == seq:
                    return ent, False
        joined = key.replace("_", "")  # "lastfour", "zipcode", "phonenumber" glued
        for seq, ent in self._word_rules():
            if len(seq) > 1 and "".join(seq) == joined:
                return ent, False
        return None, False

    def _word_rules(self) -> list[tuple[tuple[str, ...], str]]:
        if getattr(self, "_sorted_words", None) is None:
            self._sorted_words = sorted(((s, e) for e, seqs in self.key_words.items() for s in seqs),
                                        key=lambda x: -len(x[0]))
        return self._sorted_words


def _read(path: Union[str, Path]) -> dict[str, Any]:
    p = Path(path)
    if not p.is_file():
        raise PiiConfigError(f"PII config {p} not found")
    try:
        data = yaml.safe_load(p.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise PiiConfigError(f"{p}: not valid YAML: {exc}") from None
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
    return [str(x) for x in v]


def _entity(ent: str, source: str) -> str:
    if ent not in KNOWN_ENTITIES:
        raise PiiConfigError(f"{source}: unknown entity type {ent!r}; known: {', '.join(sorted(KNOWN_ENTITIES))}")
    return ent


@lru_cache(maxsize=1)
def default_config() -> PiiConfig:
    """The shipped defaults (cached; do not mutate - use :meth:`PiiConfig.load` for a copy)."""
    return PiiConfig.load()


@lru_cache(maxsize=1)
def domain_keep_words() -> frozenset[str]:
    """Lower-case words of every registered domain's policy and tool schemas (names,
    descriptions, enum values): the domains' vocabulary, never taken as person names."""
    import json

    from ..domains import get_domain, known_domains

    out: set[str] = set()
    for name in known_domains():
        try:
            d = get_domain(name)
            text = str(getattr(d, "policy", "") or "") + " " + json.dumps(d.tool_schemas())
        except Exception:  # noqa: BLE001 - a broken plugin domain must not stop anonymization
            continue
        out.update(w.lower() for w in re.findall(r"[A-Za-z]{3,}", text))
    return frozenset(out)
