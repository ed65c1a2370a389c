"""Numbers said in words, in many languages: a phone number, a national id, a postcode or an
account number read aloud in groups ("seis seis cero, doce, treinta y cuatro, noventa", "drei drei
null, zweiundsiebzig, elf, achtundachtzig", "Osm pět šest dva jedna dva, lomeno, tři čtyři pět
šest") as a call-centre transcript or a voice-to-text message writes it (eighteenth round,
red-team 22 read).

The words come from ``num2words`` (PyPI: the numbers 0-99, the hundreds and a thousand of each
language below, every number below 1000 where a language writes it as one word), written as the
library writes them and without their accents ("piec" for "pięć", as voice-to-text and keyboards
without diacritics write it). A run of four number words
or more, with only separators, "and" words, fillers ("eh", "ähm", "euh") and dash words ("traço",
"lomeno", "streck") between them, and five digits or more in all, is one spoken number.
"""
from __future__ import annotations

import random
import re
from functools import lru_cache
from typing import Optional

from .config import strip_accents

#: num2words' languages read (those of red-team 22 and the languages beside them)
NUMBER_WORD_LANGS = ("en", "de", "fr", "es", "pt", "it", "nl", "sv", "da", "no", "fi", "is", "pl", "cs", "sk",
                     "sl", "sr", "ro", "hu", "lt", "lv", "tr", "az", "ru", "uk", "be", "id", "ca", "cy", "he", "ar",
                     "fa", "ko")
#: languages that write a number below 1000 as one word ("dreihundertzwölf", "tweehonderdtwaalf")
_GLUING = frozenset({"de", "nl", "sv", "da", "no"})
#: words between the number words of one spoken number that are no numbers: "and" words, fillers,
#: dash / slash words ("traço", "tiret", "streck", "lomeno", "barra", "kreska")
_BETWEEN = frozenset("""and y e i und en og och ja și si и і a eh ehm eeh ähm äh hm um uh erm euh ben beh allora
dann then poi luego después depois então puis et dash тобто тоесть то есть hyphen slash traço traco tiret trait streck bindestreck
lomeno pomlčka pomlcka barra guion guión kreska myślnik myslnik cratimă cratima tire çizgi cizgi тире дефис
косая ún án""".split())
def _norm(word: str) -> str:
    """``word`` in lower case, its typographic apostrophes as "'" (the lexicon's key)."""
    return word.lower().replace("\u2019", "'").replace("\u02bc", "'")


#: a word, an apostrophe inside it ("п'ять", "дев'ять", "libo't")
#: (with the vowel signs and combining marks of Indic, Khmer and Yoruba writing inside: "पाँच",
#: "ប្រាំបួន", "mẹ́ta")
_LETTER = "(?:[^\\W\\d_]|[\u0300-\u036F\u0900-\u0DFF\u1780-\u17FF])"
_WORD_RE = re.compile(_LETTER + r"+(?:['\u2019\u02bc]" + _LETTER + r"+)*", re.UNICODE)
#: what may stand between two words of one spoken number besides the words of _BETWEEN
_SEP_RE = re.compile(r"[ \t,;.:\u2026\u2013\u2014/\u060c\u0964-]*")  # (the Arabic comma and the danda too)


@lru_cache(maxsize=1)
def number_lexicon() -> dict[str, tuple[str, int]]:
    """Lower-case number word (and its accent-free form) -> ``(language, value)``: the words
    num2words writes for 0-99, the hundreds and 1000 in :data:`NUMBER_WORD_LANGS` (every number up
    to 999 in the languages that write it as one word: :data:`_GLUING`, "hundertzwölf" without its
    "ein" too), and "oh" for English zero. A word that is an English stop word stays out of the
    other languages ("to" is Norwegian two). About 6,300 words; built once (~1 s)."""
    from num2words import num2words
    from spacy.lang.en.stop_words import STOP_WORDS

    out: dict[str, tuple[str, int]] = {}
    for lang in NUMBER_WORD_LANGS:
        # (the hundreds with their tens and units in the languages that glue them: "hundertzwölf")
        numbers = [*range(100), *(range(100, 1000) if lang in _GLUING else range(100, 1000, 100)), 1000]
        for n in numbers:
            try:
                text = num2words(n, lang=lang)
            except (NotImplementedError, KeyError, ValueError, TypeError, AttributeError):
                continue
            words = [_norm(w) for w in re.split(r"[\s-]+", text) if w]
            if len(words) != 1:
                continue  # "o sută", "setenta e dois": their words are in the lexicon on their own
            w = words[0]
            if lang != "en" and (w in STOP_WORDS or len(w) < 2):
                continue
            out.setdefault(w, (lang, n))
    for w, hit in list(out.items()):  # "hundertzwölf" said for "einhundertzwölf", "hundra" for "etthundra"
        for one in ("ein", "een", "ett"):
            if w.startswith(one + "h") and hit[1] < 200:
                out.setdefault(w[len(one):], hit)
    for w, hit in list(out.items()):  # "piec" for "pięć", "funfundachtzig" for "fünfundachtzig"
        out.setdefault(strip_accents(w), hit)
    out.setdefault("oh", ("en", 0))  # "eight eight oh two"
    for lang, words in DIGIT_WORDS_MORE.items():  # languages num2words does not write
        for n, w in enumerate(words.split()):
            for form in w.split("/"):
                out.setdefault(_norm(form), (lang, n))
                out.setdefault(strip_accents(_norm(form)), (lang, n))
    return out


#: The digit words 0-9 of languages num2words does not write, as speech-to-text writes them
#: (twenty-third round, red-team 38 / 39 read: a phone, an id, a plate read aloud in Afrikaans,
#: Hindi, Urdu, Kazakh, Armenian, Basque, Khmer, ...); "/" between the spellings of one digit.
DIGIT_WORDS_MORE = {
    "af": "nul een twee drie vier vyf ses sewe agt nege",
    "et": "null üks kaks kolm neli viis kuus seitse kaheksa üheksa",
    "el": "μηδέν ένα δύο τρία τέσσερα πέντε έξι επτά/εφτά οκτώ/οχτώ εννέα/εννιά",
    "eu": "zero bat bi hiru lau bost sei zazpi zortzi bederatzi",
    "sw": "sifuri moja mbili tatu nne tano sita saba nane tisa",
    "tl": "sero isa dalawa tatlo apat lima anim pito walo siyam",
    "ms": "kosong satu dua tiga empat lima enam tujuh lapan sembilan",
    "hr": "nula jedan/jedna dva/dvije tri četiri pet šest sedam osam devet",
    "hi": "शून्य एक दो तीन चार पाँच/पांच छह/छः सात आठ नौ",
    "ne": "शून्य एक दुई तीन चार पाँच छ सात आठ नौ",
    "ur": "صفر ایک دو تین چار پانچ چھ/چھے سات آٹھ نو",
    "bn": "শূন্য এক দুই তিন চার পাঁচ ছয় সাত আট নয়",
    "kk": "нөл бір екі үш төрт бес алты жеті сегіз тоғыз",
    "mn": "тэг нэг хоёр гурав дөрөв тав зургаа долоо найм ес",
    "hy": "զրո մեկ երկու երեք չորս հինգ վեց յոթ ութ ինը",
    "ka": "ნული ერთი ორი სამი ოთხი ხუთი ექვსი შვიდი რვა ცხრა",
    "km": "សូន្យ មួយ ពីរ បី បួន ប្រាំ ប្រាំមួយ ប្រាំពីរ ប្រាំបី ប្រាំបួន",
    "yo": "òdo ọ̀kan/ookan méjì mẹ́ta mẹ́rin márùn ẹ̀fà méje mẹ́jọ mẹ́sàn",  # ("márùn-ún": "ún" a joiner)
    "ta": "பூஜ்ஜியம் ஒன்று இரண்டு மூன்று நான்கு ஐந்து ஆறு ஏழு எட்டு ஒன்பது",
}


@lru_cache(maxsize=1)
def weak_number_words() -> dict[str, tuple[str, int]]:
    """Number words (0-99) of other languages than English that are English stop words ("to",
    "on" - Norwegian two, Turkish ten): left out of :func:`number_lexicon`, counted only
    inside a run another number word started ("ni to to åtte": twenty-third round)."""
    from num2words import num2words
    from spacy.lang.en.stop_words import STOP_WORDS

    out: dict[str, tuple[str, int]] = {}
    for lang in NUMBER_WORD_LANGS:
        if lang == "en":
            continue
        for n in range(100):  # ("on": Turkish ten)
            try:
                w = _norm(num2words(n, lang=lang))
            except (NotImplementedError, KeyError, ValueError, TypeError, AttributeError):
                continue
            if w in STOP_WORDS and len(w) >= 2:
                out.setdefault(w, (lang, n))
    return out


def _digits(n: int) -> int:
    return len(str(n)) if n else 1


def spoken_number_spans(text: str, min_words: int = 4, min_digits: int = 5) -> list[tuple[int, int]]:
    """``(start, end)`` character spans of the spoken numbers in ``text`` (see the module's
    docstring): runs of ``min_words`` number words or more, ``min_digits`` digits or more in all
    (the digits of each word's value: "treinta" 2, "cento" 3)."""
    weak = weak_number_words()
    spans = []
    run_start = run_end = None
    count = digits = 0
    last_end = 0

    def close():
        if run_start is not None and count >= min_words and digits >= min_digits:
            spans.append((run_start, run_end))

    for m in _WORD_RE.finditer(text):
        w = _norm(m.group())
        gap = text[last_end:m.start()]
        joined = run_start is not None and _SEP_RE.fullmatch(gap) is not None
        hit = _number_hit(w)
        if hit is None and joined and count:
            hit = weak.get(w)  # "ni to to åtte": "to" inside a run
        if hit is not None:
            if not joined:
                close()
                run_start, count, digits = m.start(), 0, 0
            run_end = m.end()
            count += 1
            digits += _digits(hit[1])
            last_end = m.end()
        elif joined and w in _BETWEEN:
            last_end = m.end()  # inside a run: its end stays the last number word
        else:
            close()
            run_start, count, digits = None, 0, 0
            last_end = m.end()
    close()
    return spans


#: single letters that are words of their own (articles, conjunctions, prepositions): a run of
#: them and number words is no spelled id ("a one a two", "v roce dva")
_WORD_LETTERS = frozenset("a i o e y u w z v s k и в с к у о а я".split())


_SINGLE_LETTER_RE = re.compile(r"(?<![\w'\u2019.@/-])[^\W\d_](?![\w'\u2019.@/-])")


def spelled_id_spans(text: str, min_tokens: int = 5) -> list[tuple[int, int]]:
    """``(start, end)`` spans of an id or a plate read aloud as single letters and number words of any
    language of :func:`number_lexicon` ("l r k penki nulis aštuoni", "g k s tre fyra t"): runs of
    ``min_tokens`` tokens or more, separated by blanks, commas or hyphens, two letters and two number
    words or more among them, and one letter at least that is no word of its own (:data:`_WORD_LETTERS`).
    Twenty-third round of issue 11 (red-team 39 read)."""
    # (a cheap gate: two letters standing alone, one of them no word of its own)
    singles = _SINGLE_LETTER_RE.findall(text)
    if len(singles) < 2 or all(c.lower() in _WORD_LETTERS for c in singles):
        return []
    weak = weak_number_words()
    spans = []
    toks: list[tuple[int, int, str]] = []  # (start, end, "L" letter / "N" number word)
    last_end = 0

    def close():
        letters = [text[s:e].lower() for s, e, k in toks if k == "L"]
        numbers = sum(1 for _s, _e, k in toks if k == "N")
        if len(toks) >= min_tokens and len(letters) >= 2 and numbers >= 2 and any(
                c not in _WORD_LETTERS for c in letters):
            spans.append((toks[0][0], toks[-1][1]))

    for m in _WORD_RE.finditer(text):
        w = _norm(m.group())
        gap = text[last_end:m.start()]
        joined = bool(toks) and re.fullmatch(r"[ \t,-]+", gap) is not None
        if not joined and toks:
            close()
            toks = []
        if len(w) == 1:
            kind = "L"
        elif _number_hit(w) is not None or (toks and w in weak):
            kind = "N"
        else:
            kind = None
        if kind is None:
            if toks:
                close()
                toks = []
        else:
            toks.append((m.start(), m.end(), kind))
        last_end = m.end()
    if toks:
        close()
    return spans


@lru_cache(maxsize=1)
def _number_prefixes() -> frozenset[str]:
    """The first five letters of the number words and of the ordinals 1-31 (num2words) of five letters
    or more: an ordinal or a case of a number word starts so ("zwölfter" - "zwölf", "dritter" -
    "dritte", "sedemnásteho" - "sedemnásť")."""
    from num2words import num2words

    out = {w[:5] for w in number_lexicon() if len(w) >= 5}
    for lang in NUMBER_WORD_LANGS:  # the ordinals of a month's days ("dritte", "tjuefemte")
        for n in range(1, 32):
            try:
                w = _norm(num2words(n, lang=lang, to="ordinal"))
            except Exception:  # noqa: BLE001 - a language without ordinals in num2words
                break
            if len(w) >= 5 and " " not in w:
                out.add(w[:5])
    return frozenset(out)


def _number_like(word: str) -> bool:
    w = _norm(word)
    return _number_hit(w) is not None or (len(w) >= 5 and w[:5] in _number_prefixes())


@lru_cache(maxsize=1)
def _wide_month_names() -> frozenset[str]:
    """Lower-case wide month names of the pseudonymizer's Babel locales and of English."""
    import calendar

    from .pseudonymizer import month_words

    return frozenset({w for w, hit in month_words().items() if hit[2] == "wide"}
                     | {calendar.month_name[i].lower() for i in range(1, 13)})


def spoken_date_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` spans of a full date said in words in any language Babel names the months of
    and :func:`number_lexicon` counts in ("on iki mayıs doksan altı", "tjueandre oktober åttisju",
    "sedemnásteho septembra osemdesiatsedem", "zwölfter april neunzehn achtundfünfzig"): one or two
    day words (number words, or words that start like one: ordinals and their cases), a month's
    wide name, one to four number words of the year. A transcript's date of birth (twenty-third
    round, red-team 35 / 36 / 39 read); service dates are said in digits."""
    months = _wide_month_names()
    if months.isdisjoint(_WORD_RE.findall(text.lower())):
        return []  # (no month named: the common case, one C-level scan)
    weak = weak_number_words()
    toks = [(m.start(), m.end(), m.group()) for m in _WORD_RE.finditer(text)]
    spans = []

    def joined(a: int, b: int) -> bool:  # tokens a and b (a < b) stand side by side
        return re.fullmatch(r"[ \t,-]*", text[toks[a][1]:toks[b][0]]) is not None

    for i, (s, e, w) in enumerate(toks):
        if i == 0 or w.lower() not in months:
            continue
        day = 0
        while day < 2 and i - day - 1 >= 0 and _number_like(toks[i - day - 1][2]) and joined(i - day - 1, i - day):
            day += 1
        # a number word that is an English stop word only before another number word ("on iki
        # mayıs": Turkish ten, twelve; not "on may twenty")
        if day and day < 3 and i - day - 1 >= 0 and _norm(toks[i - day - 1][2]) in weak and joined(i - day - 1, i - day):
            day += 1
        year = 0
        while year < 4 and i + year + 1 < len(toks) and _number_like(toks[i + year + 1][2]) and \
                re.fullmatch(r"[ \t,-]*", text[toks[i + year][1]:toks[i + year + 1][0]]):
            year += 1
        if day and year:
            spans.append((toks[i - day][0], toks[i + year][1]))
    return spans


def _number_hit(w: str) -> Optional[tuple[str, int]]:
    """``(language, value)`` of the normalized word ``w`` in :func:`number_lexicon`, as written or
    without its accents ("én" of Norwegian speech for "en"); None for no number word."""
    lex = number_lexicon()
    return lex.get(w) or lex.get(strip_accents(w))


def count_number_words(value: str) -> int:
    """How many words of ``value`` are number words of :func:`number_lexicon`."""
    lex = number_lexicon()
    return sum(1 for w in _WORD_RE.findall(value) if _norm(w) in lex)


def fake_number_word(word: str, rng: random.Random) -> Optional[str]:
    """Another number word of ``word``'s language and number of digits, its case kept; None when
    ``word`` is no number word."""
    hit = number_lexicon().get(_norm(word))
    if hit is None:
        return None
    lang, n = hit
    choice = rng.choice(_by_class()[(lang, _digits(n))])
    return choice.capitalize() if word[:1].isupper() else choice


def fake_number_words(value: str, rng: random.Random) -> str:
    """``value`` with each number word replaced by another of its language and of the same number
    of digits ("doce" -> "treinta", "seis" -> "dos"), its case kept; other words as they are."""
    return _WORD_RE.sub(lambda m: fake_number_word(m.group(), rng) or m.group(), value)


@lru_cache(maxsize=1)
def _accented() -> dict[str, tuple[str, ...]]:
    """Accent-free form -> the lexicon's accented words written so."""
    out: dict[str, list[str]] = {}
    for w in number_lexicon():
        plain = strip_accents(w)
        if plain != w:
            out.setdefault(plain, []).append(w)
    return {k: tuple(v) for k, v in out.items()}


@lru_cache(maxsize=1)
def _by_class() -> dict[tuple[str, int], list[str]]:
    out: dict[tuple[str, int], list[str]] = {}
    accent_free = _accented()
    for w, (lang, n) in number_lexicon().items():
        if w in accent_free:
            continue  # a fake as the language writes it: "fünf", not "funf"
        out.setdefault((lang, _digits(n)), []).append(w)
    for ws in out.values():
        ws.sort()
    return out


#: a street's noun before its name, in the languages of :data:`NUMBER_WORD_LANGS`
_STREET_BEFORE = (r"(?:rua|avenida|travessa|calle|paseo|via|viale|piazza|corso|rue|avenue|boulevard|impasse|all[ée]e|chemin|quai|"
                  r"ulica|ulicy|ul\.|aleja|ulice|třída|náměstí|strada|calea|straat|jalan|jl\.|улица|ул\.|вулиця|вул\.|"
                  # twenty-third round (red-team 35 / 36 read): Cyrillic avenues, boulevards, lanes
                  r"проспект|просп\.|переулок|пер\.|бульвар|булевар|шоссе|набережная|площадь|улици)")
#: a street's noun after its name, or glued to it ("Quarry Bank Rise", "Dürener Straße", "Lindenweg")
_STREET_AFTER = (r"(?:street|road|rise|lane|way|avenue|drive|close|gardens|crescent|place|terrace|mews|grove|court|"
                 r"straße|strasse|gasse|weg|allee|platz|ring|damm|laan|gracht|vej|gatan|vägen|veien|gata|tie|katu|"
                 # (twenty-third round: Norwegian "gate", Russian avenues after the name, Kazakh "көшесі")
                 r"gate|проспект|переулок|бульвар|шоссе|көшесі|даңғылы)")
_NAME = r"[^\W\d_][\w'-]*"
#: English street nouns after a house number said in words (not "way", "place", "close", "rise":
#: "two more ways", "three other places")
_STREET_EN = r"(?:street|road|lane|avenue|drive|terrace|crescent|boulevard|court|parkway|highway|circle|mews|grove|gardens)"
#: words that are no street's name after a number ("two hundred people drive", "four of the road")
_NOT_STREET_NAME = (r"the|a|an|more|of|other|different|people|times|days|hours|minutes|years|weeks|months|and|or|to|"
                    r"in|on|for|with|by|cars|trucks|miles|blocks|lanes|kids|dollars|pounds|euros|percent|i|we|you|they")
_FILLER = r"(?:(?:um|uh|erm|eh|ehm|äh|ähm|euh|hmm)[,.…]*[ \t]+)?"
_NUMBER_LABEL = r"(?:(?:number|numero|número|nummer|nr\.?|no\.?|n[º°]\.?|číslo|numer|номер)[ \t]+)?"


#: a street's noun glued to its name's end ("Lindenweg", "Vinohradská")
_GLUED_STREET = r"(?:straße|strasse|gasse|weg|allee|ská|ského|ova|ovo|straat|ová)"
#: a cheap gate for :func:`spoken_address_spans`: a street's noun before or after its name, one
#: glued to it, or "number"
_STREET_GATE_RE = re.compile(r"(?i:\b" + _STREET_BEFORE + r"(?!\w)|\b" + _STREET_AFTER + r"\b|\b" + _STREET_EN + r"\b|\b(?:number|numero|número|nummer)\b"
                             r"|[^\W\d_]" + _GLUED_STREET + r"(?![\w]))")


@lru_cache(maxsize=2048)
def _spoken_address_re(present: tuple[str, ...]) -> re.Pattern:
    # the number words of one text only: an alternation of all ~6,300 took ~3 s to compile
    words = "|".join(sorted((re.escape(w) for w in present), key=len, reverse=True))
    num = r"(?i:(?:" + words + r")(?:[ \t,-]+(?:(?:e|y|i|und|și|и|a)[ \t]+)?(?:" + words + r")){0,3})"
    # a Capitalized word: the street's own name; in a lower-case transcript a lower-case word that is
    # no article, pronoun or preposition ("avenida insurgentes sur ...": twenty-third round)
    cap = (r"(?:[^\W\d_a-zß-ÿ\u0430-\u045f][\w'-]*|(?!(?:the|a|an|my|your|our|on|in|of|to|at|and|i|it|is|for|from|адрес|adres|"
           r"address|adresse|dirección|direccion|adresa|adresi|endereço|indirizzo)\b)"
           r"[a-zà-ÿ\u0430-\u044f\u04d9\u0493\u049b\u04a3\u04e9\u04b1\u04af\u04bb\u0456][\w'-]*)")
    street = (r"(?i:" + _STREET_BEFORE + r")[ \t]+(?:(?:da|de|do|dos|das|del|della|delle|dei|degli|di|des|du|la|le|del)[ \t]+)?"
              + _NAME + r"(?:[ \t]+" + cap + r"){0,2}"
              + r"|" + cap + r"(?:[ \t]+" + cap + r"){0,2}[ \t]+(?i:" + _STREET_AFTER + r")"
              + r"|[^\W\d_][^\W\d_]*" + _GLUED_STREET)
    flat = (r"(?:[ \t]+[a-z](?![\w]))?"  # a house letter said after the number ("vierzehn a")
            r"(?:[ \t,]+(?i:mieszkanie|m\.|apartamento|apto\.?|apt\.?|flat|piso|andar|byt|kv\.?|квартира|"
            r"departamento|depto\.?|stan|leilighet|lägenhet|пәтер|стан)[ \t]+(?:" + num + r"))?")
    return re.compile(
        r"(?<![\w])(?:(?P<a>(?:" + street + r"))[ \t]*[,.…]*[ \t]*" + _FILLER + _NUMBER_LABEL + r"(?P<an>" + num + r")" + flat
        # (then the line's or the clause's end, or the town said after it: "... квартира сорок питер",
        # "lindenstraße vierzehn a in ulm?" - twenty-third round)
        + r"(?=[ \t]*(?:[,.;:!?)…\n|]|$)|(?:[ \t]+(?:in|i|en|v|w|à|a|em|na|во|в)(?![\w]))?[ \t]+[^\W\d_][\w'-]*[ \t]*(?:[,.;:!?…\n]|$))"
        r"|(?i:number|numero|número|nummer)[ \t]+(?P<bn>" + num + r")[ \t]*[,.…]*[ \t]*" + _FILLER
        + r"(?P<b>" + _NAME + r"(?:[ \t]+" + _NAME + r"){0,2}[ \t]+(?i:" + _STREET_AFTER + r")))(?![\w])")


@lru_cache(maxsize=2048)
def _house_first_re(present: tuple[str, ...]) -> re.Pattern:
    """A house number of two number words or more ("oh" for a zero among them), then the street's
    name in one to three words and an English street's noun ("customer: twelve forty one bay view
    terrace san diego", "nine one oh four south mesa verde drive", "at two seventeen pelican bay
    road"): twentieth round, red-team 27 / 28 read; anywhere in a sentence since the twenty-first."""
    words = "|".join(sorted((re.escape(w) for w in present), key=len, reverse=True))
    house = r"(?i:(?:" + words + r"|oh)(?:[ \t-]+(?:" + words + r"|oh)){1,4})"
    plain = r"(?i:(?!(?:" + _NOT_STREET_NAME + r")\b)[a-z][a-z'-]*)"
    # (anywhere a word starts: "no i moved its forty one oak ridge court", "address still twenty
    # two fourteen west maple avenue" - twenty-first round, red-team 29 read; the number words and
    # the street's noun say it, and no noun of a count stands between them)
    # a French address said house number first ("douze bis allée des acacias", "quarante-deux rue de
    # la paix"): the street's noun then its particle (twenty-first round, red-team 27 read)
    house_fr = r"(?i:(?:" + words + r")(?:[ \t-]+(?:" + words + r")){0,3}(?:[ \t]+(?:bis|ter))?)"
    return re.compile(
        r"(?<![\w'-])" + _FILLER
        + r"(?:(?P<cn>" + house + r")[ \t]+(?P<c>" + plain + r"(?:[ \t]+" + plain + r"){0,2}[ \t]+(?i:" + _STREET_EN + r"))"
        + r"|(?P<dn>" + house_fr + r")[ \t]+(?P<d>(?i:rue|all[ée]e|avenue|boulevard|chemin|impasse|place|quai|route)"
        r"[ \t]+(?i:de[ \t]+la[ \t]+|de[ \t]+l'|des[ \t]+|du[ \t]+|de[ \t]+|d')" + plain + r"(?:[ \t]+" + plain + r"){0,1}))(?![\w])",
        re.M)


_STREET_EN_RE = re.compile(r"(?i)\b(?:" + _STREET_EN + r"|rue|all[ée]e|chemin|impasse|quai)\b")


def spoken_address_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` spans of a street and its house number said in words ("Dürener Straße
    hundertzwölf", "Rua da Boavista... duzentos e doze", "number nine, um, Quarry Bank Rise",
    "Vinohradská dvacet osm"): a street's noun before or after its name (or glued to it) and
    number words of :func:`number_lexicon` (eighteenth round, red-team 22 read: addresses
    dictated in a call)."""
    if not _STREET_GATE_RE.search(text):
        return []  # no street's noun, no "number" word: no address said in words
    lex = number_lexicon()
    present = tuple(sorted({w.lower() for w in _WORD_RE.findall(text) if _norm(w) in lex}))
    if not present:
        return []
    spans = [(m.start(), m.end()) for m in _spoken_address_re(present).finditer(text)]
    if _STREET_EN_RE.search(text):
        spans += [(m.start(), m.end()) for m in _house_first_re(present).finditer(text)]
    return spans
