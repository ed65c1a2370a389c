"""Delexicalization: pseudonyms and other values replaced by entity-type placeholders.

Blueprint clustering compares what customers asked for, not who they are: with a random
``TRAJPIPE_SECRET`` the pseudonyms differ from run to run ("Ava Cole" in one run, "Liam Park" in
the next), and their words used to move the intent similarity (0.43 vs 0.375 for the same cluster
on two runs of the sample). :func:`delexicalize` maps every value the anonymizer can write to a
placeholder that does not depend on the key, so clustering on its output gives the same catalog
whatever the key ("delexicalization" as in task-oriented dialogue, Henderson et al. 2014,
"Word-based dialog state tracking with recurrent neural networks").

What is replaced (the shapes :mod:`pipeline.anonymize.pseudonymizer` produces):

* ``<EMAIL_ADDRESS>``: e-mail addresses; ``<URL>``: http(s) URLs;
* ``<DATE_TIME>``: ISO (``2024-05-01``), US (``5/1/2024``) and month-name dates
  (``April 5, 1990``, ``5th of April 1990``, ``April 1990``); a month name on its own is a word
  (``May``, ``June`` are also names: a name pseudonym "Sean May" must not become a date);
* ``<ID>``: ``word_word_1234`` user ids, ``credit_card_1234567`` payment ids, any other token with
  a digit (reservation ids, phone numbers, zips, last fours, prices) and all-capital tokens of 5-8
  letters (letter-only reservation ids);
* ``<PERSON>``: any word (any case) in Faker ``en_US``'s first- or last-name lists, the pools
  every name pseudonym is drawn from (so a pseudonym is always caught; a real word that is also a
  name, "Grant", "May", is replaced as well, the same way in every run);
* ``<LOCATION>``: Faker city shapes (``Lake <name>``, ``<name>ville``, ``<name>ton``...);
  ``<ADDRESS>``: ``<number> <name> <street suffix>`` (a building number and a Faker street name).

Runs of the same placeholder (``Tamsin Okafor`` -> ``<PERSON> <PERSON>``, a phone number split
by punctuation) collapse into one. Text that is neither stays as it is, so two runs that differ
only in the key give the same delexicalized text as long as every pseudonym has one of these
shapes. Known limit: a handle pseudonym without digits (``ccole``) is not recognized.
"""
from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["delexicalize", "PLACEHOLDERS"]

PLACEHOLDERS = ("<EMAIL_ADDRESS>", "<URL>", "<DATE_TIME>", "<ID>", "<PERSON>", "<LOCATION>", "<ADDRESS>")

_MONTHS = ("january february march april may june july august september october november december "
           "jan feb mar apr jun jul aug sep sept oct nov dec").split()
_MONTH = r"(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"https?://\S+", re.I)
_DATES = [
    re.compile(r"\b\d{4}-\d{1,2}-\d{1,2}\b"),
    re.compile(r"\b\d{1,2}/\d{1,2}/\d{2,4}\b"),
    re.compile(r"\b" + _MONTH + r"\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?\b", re.I),
    re.compile(r"\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH + r"(?:,?\s+\d{4})?\b", re.I),
    re.compile(r"\b" + _MONTH + r",?\s+\d{4}\b", re.I),
]
_WORD_ID = re.compile(r"\b[A-Za-z]+(?:_[A-Za-z]+)*_\d+\b")
_DIGITS = re.compile(r"[^\s<>]*\d[^\s<>]*")
_CAPS_ID = re.compile(r"\b[A-Z]{5,8}\b")
_TOKEN = re.compile(r"<[A-Z_]+>|[A-Za-z]+")
_RUN = re.compile(r"<([A-Z_]+)>(?:[\s().,+/-]*<\1>)+")


@lru_cache(maxsize=1)
def _vocab() -> tuple[frozenset[str], tuple[str, ...], frozenset[str], frozenset[str]]:
    """(name words, city suffixes, city prefixes, street suffixes), lower-cased, from Faker en_US."""
    from faker.providers.address.en_US import Provider as Address
    from faker.providers.person.en_US import Provider as Person

    names: set[str] = set()
    for attr in ("first_names", "first_names_female", "first_names_male", "first_names_nonbinary",
                 "last_names"):
        names.update(n.lower() for n in getattr(Person, attr, ()) if n.isalpha())
    suffixes = tuple(sorted({s.lower() for s in Address.city_suffixes}, key=len, reverse=True))
    return (frozenset(names), suffixes, frozenset(p.lower() for p in Address.city_prefixes),
            frozenset(s.lower() for s in Address.street_suffixes))


def _word(tok: str) -> str:
    if tok.startswith("<"):
        return tok
    names, city_suffixes, _, _ = _vocab()
    low = tok.lower()
    if low in names:
        return "<PERSON>"
    for suf in city_suffixes:
        if low.endswith(suf) and low[: -len(suf)] in names:
            return "<LOCATION>"
    return tok


def delexicalize(text: str | None) -> str:
    """``text`` with values replaced by entity-type placeholders (see the module doc).

    Deterministic, no model and no key; ``None`` gives ``""``. Example: ``"Hi, this is Mary
    Smith, reservation QX7P2L, mary.smith@example.com"`` -> ``"Hi, this is <PERSON>, reservation
    <ID>, <EMAIL_ADDRESS>"``.
    """
    if not text:
        return ""
    s = _EMAIL.sub("<EMAIL_ADDRESS>", text)
    s = _URL.sub("<URL>", s)
    for rx in _DATES:
        s = rx.sub("<DATE_TIME>", s)
    s = _WORD_ID.sub("<ID>", s)
    s = _DIGITS.sub("<ID>", s)
    s = _CAPS_ID.sub("<ID>", s)
    names, _, prefixes, streets = _vocab()

    def street(m: re.Match) -> str:  # "<ID> Mary Court" (a Faker street address)
        return "<ADDRESS>" if m.group(1).lower() in names else m.group()

    def city(m: re.Match) -> str:  # "Lake Mary", "North Maryview" (Faker city shapes)
        return "<LOCATION>" if _word(m.group(2)) != m.group(2) else m.group()

    s = re.sub(r"<ID>\s+([A-Za-z]+)\s+(?:" + "|".join(sorted(streets)) + r")\b\.?", street, s, flags=re.I)
    s = re.sub(r"\b(" + "|".join(sorted(prefixes)) + r")\s+([A-Za-z]+)\b", city, s, flags=re.I)
    s = _TOKEN.sub(lambda m: _word(m.group()), s)
    return _RUN.sub(lambda m: f"<{m.group(1)}>", s)
