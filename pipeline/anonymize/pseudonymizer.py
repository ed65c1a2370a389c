"""Consistent, format-preserving pseudonyms keyed by a secret HMAC.

The same (normalized) real value always maps to the same fictional value under one secret:
the HMAC-SHA256 of ``entity-group | normalized value | attempt`` seeds a Faker instance (or a
digit stream). The secret comes from the ``secret`` argument, else the ``TRAJPIPE_SECRET``
environment variable, else 32 random bytes for this process; it is never written anywhere.

Formats are kept where that is cheap: e-mails stay e-mails, ISO dates stay ISO dates (and
"April 5, 1990" stays in that style), ``first_last_dddd`` user ids, 6-character reservation ids
(letters stay letters, digits stay digits), ``credit_card_ddddddd`` payment ids, 4-digit last
fours, 5-digit zips, names stay first/last names. Name tokens are shared across entity types, so
"Mia Li", "mia_li_3668" and "mia.li3818@example.com" become e.g. "Ava Cole", "ava_cole_4821",
"ava.cole2290@example.com".

:meth:`Pseudonymizer.digest` exposes the HMAC of a normalized value so later stages can check
that a fictional value does not coincide with a real one without ever holding the real value.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import hmac
import logging
import os
import random
import re
import secrets as _secrets
from collections import Counter
from functools import lru_cache
from typing import Callable, Optional

from faker import Faker

from .number_words import count_number_words, fake_number_word, fake_number_words

log = logging.getLogger(__name__)

SECRET_ENV = "TRAJPIPE_SECRET"

_MONTHS_FULL = ["January", "February", "March", "April", "May", "June", "July", "August",
                "September", "October", "November", "December"]
_MONTH_LOOKUP = {m.lower(): i + 1 for i, m in enumerate(_MONTHS_FULL)}
_MONTH_LOOKUP.update({m[:3].lower(): i + 1 for i, m in enumerate(_MONTHS_FULL)})
_MONTH_LOOKUP["sept"] = 9
_FULL_LOWER = {m.lower() for m in _MONTHS_FULL}

_ISO_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_US_RE = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{4})$")
_MDY_RE = re.compile(r"^([A-Za-z]+)(\.?) (\d{1,2})(st|nd|rd|th)?(,?) (\d{4})$")
_DMY_RE = re.compile(r"^(\d{1,2})(st|nd|rd|th)? (of )?([A-Za-z]+)(\.?)(,?) (\d{4})$")


#: digits spoken one by one, per language (a speech-to-text transcript's "nine eight four five ..."):
#: the recognizer's words (engine.SPOKEN_DIGITS_RE) and the fake's
SPOKEN_DIGIT_WORDS = {
    "en": ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"),
    "es": ("cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve"),
    "pt": ("zero", "um", "dois", "três", "quatro", "cinco", "seis", "sete", "oito", "nove"),
    "fr": ("zéro", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf"),
    "de": ("null", "eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun"),
    "it": ("zero", "uno", "due", "tre", "quattro", "cinque", "sei", "sette", "otto", "nove"),
}
_SPOKEN_LANG = {w: lang for lang, ws in reversed(list(SPOKEN_DIGIT_WORDS.items())) for w in ws}
#: Korean (Sino-Korean) and Japanese digit words read one by one (twenty-first round): the
#: recognizer's (engine.CjkSpokenDigitsRecognizer) and the fake's
KO_DIGIT_SYLLABLES = "공영일이삼사오육륙칠팔구"
JA_DIGIT_WORDS = {"katakana": ("ゼロ", "イチ", "ニ", "サン", "ヨン", "ゴ", "ロク", "ナナ", "ハチ", "キュウ"),
                  "hiragana": ("ぜろ", "いち", "に", "さん", "よん", "ご", "ろく", "なな", "はち", "きゅう")}
#: every Japanese reading of a digit, longest first (with "レイ" / "マル" for 0, "シ" for 4, "シチ"
#: for 7, "ク" for 9 and the long vowels "ニー", "ゴー")
JA_DIGIT_ALT = ("キュウ|ゼロ|レイ|マル|イチ|ニー|ニ|サン|ヨン|シチ|シ|ゴー|ゴ|ロク|ナナ|ハチ|ク|"
                "きゅう|ぜろ|れい|まる|いち|にー|に|さん|よん|しち|し|ごー|ご|ろく|なな|はち|く")


def _ordinal(n: int) -> str:
    if 11 <= n % 100 <= 13:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def parse_date(text: str) -> Optional[tuple[_dt.date, Callable[[_dt.date], str]]]:
    """Parse a full calendar date; return ``(date, formatter)`` where ``formatter`` renders
    another date in the same style, or ``None`` when ``text`` is not one of the known styles."""
    s = text.strip()
    try:
        m = _ISO_RE.match(s)
        if m:
            d = _dt.date(int(m[1]), int(m[2]), int(m[3]))
            return d, lambda x: x.isoformat()
        m = re.fullmatch(r"(\d{2})([A-Z]{3})(\d{2}|\d{4})", s)  # an airline's "09MAR84" (SSR DOCS, APIS)
        if m and m[2].lower() in _MONTH_LOOKUP:
            year = int(m[3])
            if len(m[3]) == 2:
                year += 1900 if year > _dt.date.today().year % 100 else 2000
            d = _dt.date(year, _MONTH_LOOKUP[m[2].lower()], int(m[1]))
            four = len(m[3]) == 4
            return d, lambda x: f"{x.day:02d}{_MONTHS_FULL[x.month - 1][:3].upper()}{x.year if four else x.year % 100:02d}"
        m = re.fullmatch(r"((?:19|20)\d\d)(\d\d)(\d\d)", s)  # HL7 / compact "19610422"
        if m:
            d = _dt.date(int(m[1]), int(m[2]), int(m[3]))
            return d, lambda x: x.strftime("%Y%m%d")
        m = _US_RE.match(s)
        if m and int(m[1]) <= 12:  # "17/04/1979" is day first: read below
            d = _dt.date(int(m[3]), int(m[1]), int(m[2]))
            pad = len(m[1]) == 2
            return d, (lambda x: f"{x.month:02d}/{x.day:02d}/{x.year}") if pad else (
                lambda x: f"{x.month}/{x.day}/{x.year}")
        m = _MDY_RE.match(s)
        if m and m[1].lower() in _MONTH_LOOKUP:
            d = _dt.date(int(m[6]), _MONTH_LOOKUP[m[1].lower()], int(m[3]))
            abbr, dot, ordn, comma = m[1].lower() not in _FULL_LOWER, m[2], m[4], m[5]

            def fmt(x, abbr=abbr, dot=dot, ordn=ordn, comma=comma):
                mon = _MONTHS_FULL[x.month - 1]
                mon = mon[:3] + dot if abbr else mon
                return f"{mon} {x.day}{_ordinal(x.day) if ordn else ''}{comma} {x.year}"
            return d, fmt
        m = _DMY_RE.match(s)
        if m and m[4].lower() in _MONTH_LOOKUP:
            d = _dt.date(int(m[7]), _MONTH_LOOKUP[m[4].lower()], int(m[1]))
            abbr = m[4].lower() not in _FULL_LOWER
            ordn, of, dot, comma = m[2], m[3] or "", m[5], m[6]

            def fmt(x, abbr=abbr, ordn=ordn, of=of, dot=dot, comma=comma):
                mon = _MONTHS_FULL[x.month - 1]
                mon = mon[:3] + dot if abbr else mon
                return f"{x.day}{_ordinal(x.day) if ordn else ''} {of}{mon}{comma} {x.year}"
            return d, fmt
        m = _NUMERIC_DATE_RE.match(s)
        if m:
            return _numeric_date(m)
        return _month_word_date(s)
    except ValueError:
        return None


#: Any all-digit date with one separator: "17/04/1979", "22-09-1975", "1977.05.19", "3/14/82".
_NUMERIC_DATE_RE = re.compile(r"^(\d{1,4})([./-])(\d{1,2})\2(\d{2,4})$")


def _numeric_date(m: re.Match) -> tuple[_dt.date, Callable[[_dt.date], str]]:
    """Date and formatter of a :data:`_NUMERIC_DATE_RE` match, in its order (year first when the
    first group has 4 digits; else day first when the first group is over 12 or the separator
    is "." or "-", else month first) with its padding and year digits. Raises ``ValueError``
    when it is no date."""
    a, sep, b, c = m[1], m[2], m[3], m[4]
    if len(a) == 4:
        order, (y, mo, d) = "ymd", (a, b, c)
    elif int(a) > 12 or (sep in ".-" and int(b) <= 12):
        order, (d, mo, y) = "dmy", (a, b, c)
    else:
        order, (mo, d, y) = "mdy", (a, b, c)
    year = int(y) if len(y) == 4 else (1900 + int(y) if int(y) > 30 else 2000 + int(y))
    date = _dt.date(year, int(mo), int(d))
    pad_d, pad_m, short = len(d) == 2, len(mo) == 2, len(y) == 2

    def fmt(x: _dt.date) -> str:
        dd = f"{x.day:02d}" if pad_d else str(x.day)
        mm = f"{x.month:02d}" if pad_m else str(x.month)
        yy = f"{x.year % 100:02d}" if short else str(x.year)
        parts = {"ymd": (yy, mm, dd), "dmy": (dd, mm, yy), "mdy": (mm, dd, yy)}[order]
        return sep.join(parts)
    return date, fmt


#: Languages whose month names (CLDR, through Babel) a birth date may be written with: a
#: fake birth date is written in the same language and style ("14 Mart 1987" -> "3 Eylül 1962";
#: a fresh-clone check of the fourteenth round: a Turkish birth date became an ISO date).
MONTH_LOCALES = ("tr", "pl", "cs", "sk", "hu", "ro", "hr", "sr", "sr_Latn", "bs", "sl", "bg", "ru", "uk", "be",
                 "el", "de", "fr", "es", "it", "pt", "nl", "sv", "da", "nb", "fi", "is", "et", "lv", "lt", "ga",
                 "cy", "eu", "ca", "gl", "sq", "mk", "id", "ms", "fil", "vi", "sw", "af", "ar", "fa", "ur",
                 "he", "hi", "bn", "ta", "te", "mr", "th", "ka", "hy", "am", "az", "kk", "uz", "mt", "lb")
#: a date's digit runs and words (a word of Thai or Indic script holds vowel signs, no letters)
_DATE_TOKEN_RE = re.compile(r"\d+|[^\s\d.,:;/()\-]+")


@lru_cache(maxsize=1)
def month_words() -> dict[str, tuple[str, str, str, int]]:
    """Lower-cased month name (wide and abbreviated, format and stand-alone forms) of each of
    :data:`MONTH_LOCALES` -> ``(locale, context, width, month)``, the first language listed
    winning a name two share. Empty without Babel."""
    try:
        from babel import Locale
    except ImportError:  # pragma: no cover - babel is a dependency
        return {}
    out: dict[str, tuple[str, str, str, int]] = {}
    for loc in MONTH_LOCALES:
        try:
            months = Locale.parse(loc).months
        except Exception:  # noqa: BLE001 - a locale this Babel lacks
            continue
        for ctx in ("format", "stand-alone"):
            for width in ("wide", "abbreviated"):
                for num, name in months[ctx][width].items():
                    key = name.lower().rstrip(".")
                    if len(key) >= 3 and key not in _MONTH_LOOKUP:
                        out.setdefault(key, (loc, ctx, width, num))
    return out


def _month_word_date(s: str) -> Optional[tuple[_dt.date, Callable[[_dt.date], str]]]:
    """A date written with a month name of another language ("14 Mart 1987", "3. května 1990",
    "15 de março de 1985", "1987. március 14."): exactly one month name of :func:`month_words`,
    a year of four digits (1900-2099) and a day, any order, other words left as they are. The
    formatter writes another date with the same words, padding and the month in the same
    language, form and case. None when ``s`` is no such date; ValueError for an impossible day."""
    toks = list(_DATE_TOKEN_RE.finditer(s))
    words = month_words()
    months = [t for t in toks if not t.group().isdigit() and t.group().lower() in words]
    nums = [t for t in toks if t.group().isdigit()]
    if len(months) != 1 or len(nums) != 2:
        return None
    years = [t for t in nums if len(t.group()) == 4 and 1900 <= int(t.group()) <= 2099]
    days = [t for t in nums if len(t.group()) <= 2 and 1 <= int(t.group()) <= 31]
    if len(years) != 1 or len(days) != 1:
        return None
    mon, year, day = months[0], years[0], days[0]
    loc, ctx, width, num = words[mon.group().lower()]
    date = _dt.date(int(year.group()), num, int(day.group()))
    pad = len(day.group()) == 2

    def fmt(x: _dt.date) -> str:
        from babel import Locale

        name = Locale.parse(loc).months[ctx][width][x.month]
        if s[mon.end():mon.end() + 1] == ".":  # "14 mar. 1987": the dot is the text's own
            name = name.rstrip(".")
        parts = {year.span(): str(x.year), day.span(): f"{x.day:02d}" if pad else str(x.day),
                 mon.span(): match_case(mon.group(), name)}
        out, pos = [], 0
        for (a, b), rep in sorted(parts.items()):
            out.append(s[pos:a] + rep)
            pos = b
        return "".join(out) + s[pos:]
    return date, fmt


#: Lower-case words inside a person's name that join its parts and are no name of their own:
#: family-name particles, the Catalan / Spanish "and" between two family names, "son / daughter
#: of" in Greek, Arabic, Hebrew, Malay. A name's fake keeps them as they are.
#: (Family-name particles of Latin-script names: the engine's ``NAME_PARTICLES`` are built from
#: these too.)
FAMILY_NAME_PARTICLES = tuple("van von de der den da di del della dos das du ter ten zu la".split())
NAME_LINK_WORDS = frozenset(FAMILY_NAME_PARTICLES) | frozenset("""le i y e bin binti bint ibn του της بن بنت ابن إبن
    בן בת""".split())


def normalize(value: str) -> str:
    """Canonical form of a value for hashing: whitespace collapsed, case-folded; a full date in
    any supported style becomes its ISO form (so "April 5, 1990" == "1990-04-05")."""
    s = " ".join(str(value).split())
    parsed = parse_date(s) if s[:1].isdigit() or s[:1].isalpha() else None
    if parsed is not None:
        return parsed[0].isoformat()
    return s.casefold()


def match_case(template: str, fake: str) -> str:
    """Render ``fake`` in the letter case of ``template`` (lower, UPPER or Capitalized)."""
    letters = [c for c in template if c.isalpha()]
    if not letters:
        return fake
    if all(c.islower() for c in letters):
        return fake.lower()
    if len(letters) > 1 and all(c.isupper() for c in letters):
        return fake.upper()
    return fake


_WORD_RE = re.compile(r"[A-Za-z]{2,}")
_DIGIT_GROUP_RE = re.compile(r"(?<!\d)\d{3,}(?!\d)")
#: "dot" and "at" of an e-mail spelled out ("mia(at)example(dot)com", "mia dot li at example dot com"),
#: in Spanish, Portuguese, Italian, German and French too ("arroba ... punto com", "(a)", "chiocciola",
#: "punkt", "arobase": seventeenth round of issue 11); shared with the detector
#: (:data:`pipeline.anonymize.engine.EMAIL_SPELLED_RE`)
SPELLED_DOT = (r"(?:\s*(?:\(dot\)|\[dot\]|\{dot\}|\(punto\)|\[punto\]|\(punkt\)|\[punkt\]|\(point\)|\[point\])\s*"
               r"|\s+(?:dot|punto|ponto|punkt|point)\s+)")
SPELLED_AT = (r"(?:\s*(?:\(at\)|\[at\]|\{at\}|\(a\)|\[a\]|\(arroba\)|\[arroba\])\s*"
              r"|\s+(?:at|arroba|arobase|chiocciola|klammeraffe)\s+)")
_SPELLED_DOT_RE = re.compile(r"(?i)" + SPELLED_DOT)
_SPELLED_AT_RE = re.compile(r"(?i)" + SPELLED_AT)


def _relayout(digits: str, layout: str) -> str:
    """``digits`` written in the layout of ``layout`` (its non-digits kept in place)."""
    it = iter(digits)
    return "".join(next(it, c) if c.isdigit() else c for c in layout)


def gen_plain(pz: "Pseudonymizer", digits: str):
    """The SSN generator of :meth:`Pseudonymizer.ssn` over the bare digits (one fake per SSN,
    whatever its layout)."""
    def gen(attempt: int) -> str:
        rng = pz._rng("SSN", digits, attempt)
        area = rng.choice([a for a in range(1, 900) if a != 666])
        return f"{area:03d}{rng.randint(1, 99):02d}{rng.randint(1, 9999):04d}"
    return gen
#: a name word: letters of any script ("Nguyễn", "高橋", "Καραμανλίδης") and the vowel signs of
#: Indic and Thai scripts inside it ("राजेश", "สมชาย"); of Lao, Burmese, Khmer and Ethiopic too
#: ("ສົມພອນ", "အောင်ကျော်မိုး", "ចាន់ សុភា": sixteenth round)
NAME_TOKEN_RE = re.compile(r"(?:[^\W\d_]|[\u0300-\u036F\u0900-\u0DFF\u0E00-\u0EFF\u1000-\u109F\u1780-\u17FF\u1200-\u137F])+")
_SAFE_EMAIL_DOMAINS = {"example.com", "example.org", "example.net", "gmail.com", "yahoo.com",
                       "outlook.com", "hotmail.com", "icloud.com", "aol.com", "proton.me"}



#: lower-case letters of the alphabets whose letters an id's fake redraws (:func:`_letters_like`)
_ALPHABETS = (("\u00C0", "\u024F", "abcdefghijklmnopqrstuvwxyz"),
              ("\u0370", "\u03FF", "αβγδεζηθικλμνξοπρστυφχψω"),
              ("\u0400", "\u04FF", "абвгдежзиклмнопрстуфхцчшэюя"),
              ("\u0530", "\u058F", "աբգդեզէըթժիլխծկհձղճմյնշոչպջռսվտրցւփքօֆ"),
              ("\u10A0", "\u10FF", "აბგდევზთიკლმნოპჟრსტუფქღყშჩცძწჭხჯჰ"))


def _letters_like(c: str) -> str:
    """The lower-case letters a fake id draws from in place of the letter ``c`` (accented Latin:
    ASCII; Greek, Cyrillic, Armenian, Georgian: their own); "" for other scripts (kept)."""
    for lo, hi, letters in _ALPHABETS:
        if lo <= c <= hi:
            return letters
    return ""

class Pseudonymizer:
    """Maps real values to consistent fictional ones for one run.

    ``secret``: bytes or str; default ``$TRAJPIPE_SECRET``, else random per process.
    ``is_taken``: optional predicate; a candidate fake for which it returns True (e.g. a value
    that is itself real) is rejected and the next candidate is drawn. ``is_business``: optional
    predicate; a fake code it calls a business identifier (a domain's flight number) is redrawn. Fakes are also kept
    injective: two different real values never share a fake.
    """

    MAX_ATTEMPTS = 64

    def __init__(self, secret: bytes | str | None = None,
                 is_taken: Optional[Callable[[str], bool]] = None,
                 is_business: Optional[Callable[[str], bool]] = None):
        self.fallbacks: Counter = Counter()  # generator failures per type (see pseudonym)
        if secret is None:
            secret = os.environ.get(SECRET_ENV) or _secrets.token_bytes(32)
        self._key = secret.encode("utf-8") if isinstance(secret, str) else bytes(secret)
        self.is_taken = is_taken or (lambda _v: False)
        self.is_business = is_business or (lambda _v: False)
        self._faker = Faker("en_US")
        self._cache: dict[tuple[str, str], str] = {}
        self._owner: dict[tuple[str, str], str] = {}  # (group, normalized fake) -> normalized real

    def __repr__(self) -> str:  # never show the key
        return f"Pseudonymizer(<secret>, {len(self._cache)} values)"

    # -- hashing -----------------------------------------------------------------------------
    def digest(self, value: str) -> str:
        """HMAC-SHA256 hex digest of :func:`normalize` of ``value`` under this run's secret."""
        return hmac.new(self._key, normalize(value).encode("utf-8"), hashlib.sha256).hexdigest()

    def _seed(self, *parts: object) -> int:
        msg = "\x1f".join(str(p) for p in parts).encode("utf-8")
        return int.from_bytes(hmac.new(self._key, msg, hashlib.sha256).digest()[:8], "big")

    def _rng(self, *parts: object) -> random.Random:
        return random.Random(self._seed(*parts))

    def _faker_for(self, *parts: object) -> Faker:
        self._faker.seed_instance(self._seed(*parts))
        return self._faker

    # -- generic consistent draw -------------------------------------------------------------
    def _draw(self, group: str, real: str, gen: Callable[[int], str]) -> str:
        """Cached, injective, not-real candidate from ``gen(attempt)`` for ``(group, real)``."""
        key = (group, normalize(real))
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        cand = gen(0)
        for attempt in range(self.MAX_ATTEMPTS):
            cand = gen(attempt)
            nf = normalize(cand)
            owner = self._owner.get((group, nf))
            if (nf != key[1] and (owner is None or owner == key[1]) and not self.is_taken(cand)
                    and not any(self.is_taken(w) for w in _WORD_RE.findall(cand))
                    # nor a group of 3+ digits that is a real value ("03992 710 222" beside a real
                    # postcode "710": an audit reads it as a leak - fifteenth round)
                    and not any(self.is_taken(g) for g in _DIGIT_GROUP_RE.findall(cand) if g != cand)):
                break
        self._cache[key] = cand
        self._owner[(group, normalize(cand))] = key[1]
        return cand

    def _digits(self, label: str, real: str, n: int, attempt: int, lead_nonzero: bool = True) -> str:
        rng = self._rng(label, normalize(real), attempt)
        first = str(rng.randint(1, 9)) if lead_nonzero else str(rng.randint(0, 9))
        return (first + "".join(str(rng.randint(0, 9)) for _ in range(n - 1)))[:n]

    # -- names -------------------------------------------------------------------------------
    def name_token(self, token: str, role: str = "first") -> str:
        """Fake for one name word (``role`` "first" or "last" picks the Faker pool the first time
        the token is seen; afterwards the cached fake is reused whatever the role)."""
        def gen(attempt: int) -> str:
            fk = self._faker_for("NAME", normalize(token), attempt)
            for _ in range(8):
                cand = fk.last_name() if role == "last" else fk.first_name()
                if cand.isalpha():
                    return cand
            return cand
        fake = self._draw("NAME", token, gen)
        # a name of a script without letter case ("高橋", "김민수") gets the fake as Faker writes it
        return match_case(token, fake) if any(c.isupper() or c.islower() for c in token) else fake

    def name(self, value: str, entity: str = "PERSON") -> str:
        """Fake for a name value: each word mapped by :meth:`name_token`; separators kept.

        ``FIRST_NAME`` words use the first-name pool, ``LAST_NAME`` the last-name pool, and a
        ``PERSON`` span uses the first-name pool except for its last word.
        """
        tokens = list(NAME_TOKEN_RE.finditer(value))
        out, pos = [], 0
        for i, m in enumerate(tokens):
            if entity == "LAST_NAME":
                role = "last"
            elif entity == "FIRST_NAME":
                role = "first"
            else:
                role = "last" if (i == len(tokens) - 1 and len(tokens) > 1) else "first"
            out.append(value[pos:m.start()])
            tok = m.group()
            # O'Neil: keep "O"; a one-character name of a script without case is a name ("森 紬");
            # a family-name particle or link in lower case stays ("Puigdomènech i Vilaró",
            # "Αντωνίου του Γεωργίου": fifteenth round)
            # a suffix after an apostrophe stays too ("Karakaya'nın", "Ayşe'ye": a Turkish case
            # ending; fifteenth round, a fresh-clone check)
            suffix = tok.islower() and len(tok) <= 4 and value[m.start() - 1:m.start()] in ("'", "\u2019") and i > 0
            out.append(tok if (len(tok) < 2 and (tok.isupper() or tok.islower())) or tok in NAME_LINK_WORDS or suffix
                       else self.name_token(tok, role))
            pos = m.end()
        out.append(value[pos:])
        return "".join(out)

    # -- identifiers -------------------------------------------------------------------------
    def user_id(self, value: str) -> str:
        """``first_last_dddd`` -> fake name words (shared with names) + same-length digits."""
        m = re.match(r"^([A-Za-z]+(?:_[A-Za-z]+)*)_(\d+)$", value)
        if not m:
            return self.handle(value)
        words = m.group(1).split("_")
        fake_words = [self.name_token(w, "last" if i == len(words) - 1 and i > 0 else "first").lower()
                      for i, w in enumerate(words)]
        return self._draw("USER_ID", value, lambda a: "_".join(fake_words) + "_" +
                          self._digits("UID", value, len(m.group(2)), a))

    def payment_id(self, value: str) -> str:
        """``credit_card_4421486`` -> ``credit_card_`` + same number of fake digits."""
        m = re.match(r"^([A-Za-z_]+?)_(\d+)$", value)
        prefix, n = (m.group(1), len(m.group(2))) if m else ("payment", 7)
        return self._draw("PAYMENT_ID", value,
                          lambda a: f"{prefix}_{self._digits('PAY', value, n, a)}")

    def reservation_id(self, value: str) -> str:
        """A short code: each letter -> random uppercase letter, each digit -> random digit (so
        the fake has the shape of the real id, and is never a business id of a domain: see
        ``is_business``)."""
        def gen(attempt: int) -> str:
            rng = self._rng("RES", normalize(value), attempt)
            for _ in range(16):
                cand = "".join(
                    rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") if c.isalpha() else
                    str(rng.randint(0, 9)) if c.isdigit() else c for c in value)
                if not self.is_business(cand):
                    return cand  # never a business identifier of a domain (a flight number)
            return cand
        return self._draw("RESERVATION_ID", value, gen)

    def digits_like(self, value: str, group: str) -> str:
        """Replace every digit of ``value`` (keeping punctuation and length): last four, zip,
        phone, address line 2 ("Suite 217"), SSN.

        A phone number keeps its country code (``+1``, ``+44``) and is keyed by its national
        digits, so "(415) 555-0199", "415-555-0199" and "+1 415 555 0199" get the same fake
        digits, each in its own layout."""
        keep = 0
        key = normalize(value)
        if group == "PHONE_NUMBER":
            m = re.match(r"^\+\d{1,3}[\s.-]|^1[\s.-]|^\(?0(?=\d)", value)  # +44, 1-, trunk 0
            keep = m.end() if m else _country_code_length(value)  # "+351912345678": "+351"
            key = re.sub(r"\D", "", value[keep:])
            if len(key) == 11 and key.startswith("1") and not keep:
                key = key[1:]

        def gen(attempt: int) -> str:
            rng = self._rng(group, key, attempt)
            out = list(value)
            first = True
            for i, c in enumerate(value):
                if i >= keep and c.isdigit():
                    out[i] = str(rng.randint(1, 9) if first else rng.randint(0, 9))
                    first = False
            return "".join(out)
        if group == "PHONE_NUMBER":  # one fake digit string per number, rendered per layout
            def gen_digits(a: int) -> str:
                d = [c for c in gen(a)[keep:] if c.isdigit()]
                if len(key) == 10 and len(d) >= 10:  # a valid NANP shape: NXX-NXX-XXXX
                    off = len(d) - 10
                    rng = self._rng("NANP", key, a)
                    d[off], d[off + 3] = str(rng.randint(2, 9)), str(rng.randint(2, 9))
                return "".join(d)
            fake_digits = self._draw(group, key, gen_digits)
            real = re.sub(r"\D", "", value[keep:])
            fd = (real[:len(real) - len(fake_digits)] + fake_digits if len(real) > len(fake_digits)
                  else fake_digits[len(fake_digits) - len(real):])
            it = iter(fd)
            return value[:keep] + "".join(next(it, c) if c.isdigit() else c for c in value[keep:])
        return self._draw(group, value, gen)

    def order_id(self, value: str) -> str:
        """``#W1234567`` / ``W1234567`` / ``1234567`` / ``ORD-58120`` -> the same prefix + fake
        digits (keyed by the number, so every spelling of one order gets the same fake number)."""
        m = re.match(r"^(#?[A-Za-z]{0,4}[-_]?)(\d+)$", value)
        if not m:  # another shape: letters stay letters, digits stay digits
            return self.secret(value, "ORDER_ID")
        prefix, digits = m.groups()
        fake = self._draw("ORDER_ID", digits,
                          lambda a: self._digits("ORD", digits, len(digits), a))
        return prefix + fake

    def secret(self, value: str, entity: str = "SECRET") -> str:
        """Same shape, new characters: letters stay letters (same case), digits stay digits,
        punctuation stays. Known prefixes are kept so the value still reads as what it is
        (``sk-``, ``ghp_``, ``AKIA``, ``xoxb-``, ``AIza``, JWT ``eyJ``, ``Bearer ``)."""
        m = re.match(r"^(?:Bearer\s+|bearer\s+|sk-(?:proj-|live-|test-)?|(?:sk|pk|rk)_(?:live|test)_|"
                     r"gh[pousr]_|github_pat_|AKIA|ASIA|xox[abprs]-|AIza|eyJ)", value)
        keep = m.end() if m else 0

        def gen(attempt: int) -> str:
            rng = self._rng("SECRET", entity, value, attempt)
            out = list(value)
            for i, c in enumerate(value):
                if i < keep:
                    continue
                if c.isdigit():
                    out[i] = str(rng.randint(0, 9))
                elif c.isascii() and c.isalpha():
                    ch = rng.choice("abcdefghijklmnopqrstuvwxyz")
                    out[i] = ch.upper() if c.isupper() else ch
            return "".join(out)
        return self._draw(entity, value, gen)

    def credit_card(self, value: str) -> str:
        """Same layout of digits, new digits, last digit fixed so the Luhn check passes (keyed
        by the digits: "4539 1488 0343 6467" and "4539148803436467" get the same fake number)."""
        key = re.sub(r"\D", "", value)
        if key != value:
            fake = self.credit_card(key)
            it = iter(fake)
            return "".join(next(it, c) if c.isdigit() else c for c in value)

        def gen(attempt: int) -> str:
            rng = self._rng("CC", normalize(value), attempt)
            pos = [i for i, c in enumerate(value) if c.isdigit()]
            digits = [rng.randint(0, 9) for _ in pos]
            digits[0] = rng.randint(3, 6)
            total = 0
            for j, d in enumerate(reversed(digits[:-1])):
                d2 = d * 2 if j % 2 == 0 else d
                total += d2 - 9 if d2 > 9 else d2
            digits[-1] = (10 - total % 10) % 10
            out = list(value)
            for i, d in zip(pos, digits):
                out[i] = str(d)
            return "".join(out)
        return self._draw("CREDIT_CARD", value, gen)

    # -- personal data -----------------------------------------------------------------------
    def email(self, value: str) -> str:
        """Local part: letter runs -> fake name words (lower case), digit runs -> fake digits;
        domain kept when it is a public/example domain, else ``example.com``."""
        if "@" not in value and "%40" in value:  # percent-encoded inside a URL
            return self.email(value.replace("%40", "@")).replace("@", "%40")
        if "@" not in value and _SPELLED_AT_RE.search(value):  # "mia dot li at example dot com"
            return self.spelled_email(value)
        local, _, domain = value.partition("@")
        dom = domain if domain.lower() in _SAFE_EMAIL_DOMAINS else "example.com"

        def gen(attempt: int) -> str:
            parts = []
            for i, m in enumerate(re.finditer(r"[A-Za-z]+|\d+|[^A-Za-z\d]+", local)):
                tok = m.group()
                if tok.isalpha():
                    role = "last" if i > 0 else "first"
                    parts.append(self.name_token(tok, role).lower() if attempt == 0 else
                                 self._faker_for("EMAILW", tok.lower(), attempt).last_name().lower())
                elif tok.isdigit():
                    parts.append(self._digits("EMAILD", value, len(tok), attempt))
                else:
                    parts.append(tok)
            return "".join(parts) + "@" + dom
        return self._draw("EMAIL_ADDRESS", value, gen)

    def spelled_email(self, value: str) -> str:
        """"dagny dot erikstad at postbox dot test" -> a fake e-mail spelled the same way (the
        original's "dot" / "at" words, in its letter case)."""
        plain = _SPELLED_DOT_RE.sub(".", value)
        plain = _SPELLED_AT_RE.sub("@", plain)
        plain = re.sub(r"\s+", "", plain)
        fake = self.email(plain)
        dot = _SPELLED_DOT_RE.search(value)
        at = _SPELLED_AT_RE.search(value)
        dot_s = dot.group(0) if dot else "."  # ("mia(at)gmx.de": the dots as written)
        at_s = at.group(0) if at else " at "
        local, _, dom = fake.partition("@")
        # (each part's dots as written there: "mj.ruiz arroba gmail punto com")
        real_local = _SPELLED_AT_RE.split(value, maxsplit=1)[0]
        local_dot = "." if "." in real_local else dot_s
        real_dom = _SPELLED_AT_RE.split(value, maxsplit=1)[-1]
        dom_dot = dot_s if _SPELLED_DOT_RE.search(real_dom) else "."
        return local.replace(".", local_dot) + at_s + dom.replace(".", dom_dot)

    def handle(self, value: str, template: Optional[tuple[str, str, str, str]] = None) -> str:
        """A user handle. ``template`` (from :func:`pipeline.anonymize.context.handle_template`):
        ``(form, first, last, digits)`` - the handle is derived from that person's name, so the
        fake is derived the same way from the fake name ("tokafor482" for Tamsin Okafor ->
        "jwilson" + 3 fake digits for her fake "Jane Wilson"). Without one: letter runs -> fake
        name words, digit runs -> fake digits, separators kept."""
        at = "@" if value.startswith("@") else ""
        v = value.lstrip("@")
        if template is not None:
            form, first, last, digits = template
            ff = self.name_token(first, "first").lower()
            fl = self.name_token(last, "last").lower()
            build = {"fl": ff + fl, "il": ff[0] + fl, "fi": ff + fl[0], "f.l": ff + "." + fl,
                     "f_l": ff + "_" + fl, "f-l": ff + "-" + fl, "lf": fl + ff, "li": fl + ff[0],
                     "i.l": ff[0] + "." + fl, "i_l": ff[0] + "_" + fl, "l.f": fl + "." + ff,
                     "l_f": fl + "_" + ff, "f": ff, "l": fl}[form]
            m = re.fullmatch(r"[A-Za-z][A-Za-z._-]*?([._-]?)(\d*)", v)
            sep = m.group(1) if m else ""

            def gen(attempt: int) -> str:
                d = self._digits("HANDLE", v, len(digits), attempt) if digits else (
                    self._digits("HANDLE", v, 2, attempt) if attempt else "")
                return at + match_case(v, build) + sep + d
            return self._draw("USER_ID", value, gen)

        def gen_generic(attempt: int) -> str:
            parts = []
            for i, m in enumerate(re.finditer(r"[A-Za-z]+|\d+|[^A-Za-z\d]+", v)):
                tok = m.group()
                if tok.isalpha():
                    if len(tok) <= 2:
                        rng = self._rng("HANDLEL", tok.lower(), v, attempt)
                        w = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in tok)
                    else:
                        w = (self.name_token(tok, "last" if i else "first") if attempt == 0 else
                             self._faker_for("HANDLEW", tok.lower(), attempt).last_name())
                    parts.append(match_case(tok, w.lower()) if not tok.isupper() else w.upper())
                elif tok.isdigit():
                    parts.append(self._digits("HANDLED", v, len(tok), attempt))
                else:
                    parts.append(tok)
            return at + "".join(parts)
        return self._draw("USER_ID", value, gen_generic)

    def iban(self, value: str) -> str:
        """An IBAN of the same country and length, same layout (spaces), letters where the real
        one has letters and digits where it has digits, with valid ISO 7064 check digits
        (python-stdnum's ``iban.calc_check_digits``; candidates that stdnum's country-aware
        ``iban.is_valid`` rejects are redrawn, up to 32 times)."""
        from stdnum import iban as std_iban

        # only its letters and digits count: a detection may hold a quote or a dot of the text
        # around it ("GB29NWBK60161331926819'", a fifteenth-round crash that stopped the run)
        compact = re.sub(r"[^0-9A-Za-z]", "", value).upper()
        country = compact[:2] if compact[:2].isalpha() else "XX"

        def gen(attempt: int) -> str:
            rng = self._rng("IBAN", compact, attempt)
            cand = compact
            for _ in range(32):
                bban = "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") if c.isalpha() else
                               str(rng.randint(0, 9)) for c in compact[4:])
                cand = country + std_iban.calc_check_digits(country + "00" + bban) + bban
                if std_iban.is_valid(cand):
                    break
            it = iter(cand)
            return "".join(next(it, c) if c.isascii() and c.isalnum() else c for c in value)
        return self._draw("IBAN_CODE", value, gen)

    def ssn(self, value: str) -> str:
        """A US SSN in the layout of ``value`` that is not an invalid one (area 001-665 or
        667-899, group 01-99, serial 0001-9999), keyed by the digits."""
        digits = re.sub(r"\D", "", value)
        if len(digits) != 9:
            return self.digits_like(value, "SSN")
        return _relayout(self._draw("SSN", digits, gen_plain(self, digits)), value)

    def shape_like(self, value: str, group: str) -> str:
        """Letters -> random letters (same case), digits -> random digits (the first one not 0
        unless it was), punctuation kept: account numbers, ids with no other known format."""
        if _is_ip(value):  # an IP address gets a valid one of its version (Faker, keyed)
            return self._draw(group, value, lambda a: (
                self._faker_for("IP", normalize(value), a).ipv6() if ":" in value
                else self._faker_for("IP", normalize(value), a).ipv4_public()))

        geo = _GEO_RE.fullmatch(value)
        if geo:  # a latitude / longitude pair gets another point on land or sea, same decimals
            def point(attempt: int) -> str:
                rng = self._rng(group, normalize(value), attempt)
                lat = f"{rng.uniform(-55, 70):.{len(geo.group('lat_dec'))}f}"
                lon = f"{rng.uniform(-180, 180):.{len(geo.group('lon_dec'))}f}"
                return f"{lat}{geo.group('sep')}{lon}"
            return self._draw(group, value, point)

        if re.fullmatch("[" + KO_DIGIT_SYLLABLES + r"][" + KO_DIGIT_SYLLABLES + r" \t,.-]*", value):
            # Korean digits read one by one ("공일공 칠칠팔팔"): other digit syllables (twenty-first round)
            def ko(attempt: int) -> str:
                rng = self._rng(group, normalize(value), attempt)
                return "".join(rng.choice("공일이삼사오육칠팔구") if c in KO_DIGIT_SYLLABLES else c for c in value)
            return self._draw(group, value, ko)
        if re.fullmatch(r"(?:" + JA_DIGIT_ALT + r")(?:[、, \t・-]?(?:" + JA_DIGIT_ALT + r"))*", value):
            # Japanese digit readings ("ゼロハチゼロ、イチニサンヨン"): others of the same script
            def ja(attempt: int) -> str:
                rng = self._rng(group, normalize(value), attempt)
                return re.sub(JA_DIGIT_ALT, lambda m: rng.choice(JA_DIGIT_WORDS[
                    "katakana" if "\u30A0" <= m.group()[0] <= "\u30FF" else "hiragana"]), value)
            return self._draw(group, value, ja)

        words = re.findall(r"[^\W\d_]+", value.lower())
        if sum(1 for w in words if w in _SPOKEN_LANG) >= 4:
            # digits spoken one by one ("nine eight four five ..."): other digits in the same
            # language's words, spelled letters other letters (thirteenth round)
            def spoken(attempt: int) -> str:
                rng = self._rng(group, normalize(value), attempt)

                def sub(m: re.Match) -> str:
                    w = m.group()
                    lang = _SPOKEN_LANG.get(w.lower())
                    if lang:
                        return match_case(w, rng.choice(SPOKEN_DIGIT_WORDS[lang]))
                    if len(w) == 1:
                        return match_case(w, rng.choice("abcdefghijklmnopqrstuvwxyz"))
                    # a group said as one number among the digits ("fünfundfünfzig"): another of
                    # its size (eighteenth round: a fresh-clone check found it kept)
                    return fake_number_word(w, rng) or w
                return re.sub(r"[^\W\d_]+", sub, value)
            return self._draw(group, value, spoken)

        if len(words) >= 4 and not any(c.isdigit() for c in value) and count_number_words(value) >= 4:
            # a number read aloud in groups ("drei drei null, zweiundsiebzig, elf"): other number
            # words of its language, as many digits each (eighteenth round)
            return self._draw(group, value, lambda attempt: fake_number_words(
                value, self._rng(group, normalize(value), attempt)))
        # a MAC address or another hex id ("a4:5e:60:d2:1f:09"): hex digits stay hex (eleventh round)
        hexa = re.fullmatch(r"[0-9A-Fa-f]{2}(?:[:-][0-9A-Fa-f]{2}){5}", value) is not None

        def gen(attempt: int) -> str:
            rng = self._rng(group, normalize(value), attempt)
            out = []
            first = True
            for c in value:
                if hexa and c.isalnum():
                    ch = rng.choice("0123456789abcdef")
                    out.append(ch.upper() if c.isupper() else ch)
                elif c.isdigit():
                    out.append(c if (first and c == "0") else str(rng.randint(1 if first else 0, 9)))
                    first = False
                elif c.isascii() and c.isalpha():
                    ch = rng.choice("abcdefghijklmnopqrstuvwxyz")
                    out.append(ch.upper() if c.isupper() else ch)
                elif c.isalpha() and _letters_like(c):
                    # a letter of another alphabet (a spelled "е р л а н", "k o v á č i k": twenty-third
                    # round): one of its own alphabet, or of ASCII for an accented Latin one
                    ch = rng.choice(_letters_like(c))
                    out.append(ch.upper() if c.isupper() else ch)
                else:
                    out.append(c)
            return "".join(out)
        return self._draw(group, value, gen)

    def date_of_birth(self, value: str) -> str:
        """A fake birth date between 1940 and 2005, rendered in the style of ``value``.

        Keyed by the ISO form, so "1990-04-05" and "April 5, 1990" get the same fake date."""
        parsed = parse_date(value)
        lo, hi = _dt.date(1940, 1, 1).toordinal(), _dt.date(2005, 12, 31).toordinal()
        iso = self._draw("DOB", value, lambda a: _dt.date.fromordinal(
            self._rng("DOB", normalize(value), a).randint(lo, hi)).isoformat())
        return parsed[1](_dt.date.fromisoformat(iso)) if parsed else iso

    def street_address(self, value: str) -> str:
        """``975 Sunset Drive`` -> a building number of as many digits + a Faker street name. A
        final dot ("417 larkspur ct." at a sentence's end, "Ave.") is kept and does not count:
        "417 larkspur ct" and "417 larkspur ct." get the same street."""
        base = value[:-1] if value.endswith(".") else value
        dot = value[len(base):]
        m = re.match(r"^\s*(\d+)\s", base)

        def gen(attempt: int) -> str:
            fk = self._faker_for("STREET", normalize(base), attempt)
            if not m:
                return fk.street_name()
            return f"{self._digits('BLDG', base, len(m.group(1)), attempt)} {fk.street_name()}"
        return self._draw("STREET_ADDRESS", base, gen) + dot

    def city(self, value: str) -> str:
        """A Faker city name."""
        return self._draw("CITY", value, lambda a: self._faker_for("CITY", normalize(value), a).city())

    # -- dispatch ----------------------------------------------------------------------------
    def pseudonym(self, value: str, entity: str) -> str:
        """Consistent fictional replacement for ``value`` of presidio/key-rule type ``entity``. A
        valid IBAN found under another label ("account IT60X05428...") is replaced as an IBAN:
        same country, length and layout, valid check digits.

        Never raises for an odd value: where the type's generator fails (a library's own check
        refusing a character the detection took along), the value is replaced shape for shape
        (:meth:`shape_like`) and the failure counted in :attr:`fallbacks` per type (fifteenth
        round: one such value stopped a whole run)."""
        try:
            return self._pseudonym(value, entity)
        except Exception:  # noqa: BLE001 - one odd value must not stop the run or stay in place
            self.fallbacks[entity] += 1
            log.warning("pseudonym generator for %s failed on one value; replaced shape for shape", entity)
            return self.shape_like(value, entity + ":fallback")

    def _pseudonym(self, value: str, entity: str) -> str:
        """:meth:`pseudonym` without its fallback."""
        if entity != "IBAN_CODE" and _is_iban(value):
            entity = "IBAN_CODE"
        if entity in ("PERSON", "FIRST_NAME", "LAST_NAME"):
            return self.name(value, entity)
        if entity == "USER_ID":
            return self.user_id(value)
        if entity == "PAYMENT_ID":
            return self.payment_id(value)
        if entity == "RESERVATION_ID":
            return self.reservation_id(value)
        if entity == "EMAIL_ADDRESS":
            return self.email(value)
        if entity == "DATE_OF_BIRTH":
            return self.date_of_birth(value)
        if entity == "STREET_ADDRESS":
            return self.street_address(value)
        if entity == "CITY":
            return self.city(value)
        if entity == "CREDIT_CARD":
            return self.credit_card(value)
        if entity == "ORDER_ID":
            return self.order_id(value)
        if entity == "IBAN_CODE":
            return self.iban(value)
        if entity in ("SSN", "US_SSN") and sum(c.isdigit() for c in value) == 9:
            return self.ssn(value)
        if entity in ("ACCOUNT_ID", "VEHICLE_ID"):
            return self.shape_like(value, entity)
        if entity == "USER_ID" and not re.match(r"^[A-Za-z]+(?:_[A-Za-z]+)*_\d+$", value):
            return self.handle(value)
        if entity in ("PASSWORD", "API_KEY", "ACCESS_TOKEN", "SESSION_ID"):
            return self.secret(value, entity)
        if entity in ("LAST_FOUR", "ZIP", "PHONE_NUMBER", "ADDRESS_LINE2", "SSN"):
            if any(c.isdigit() for c in value):
                return self.digits_like(value, entity)
        return self._draw(entity, value, lambda a: f"{entity.lower()}_{self._digits(entity, value, 8, a)}")


#: a latitude / longitude pair in decimal degrees (engine.GEO_COORDINATES_RE's value)
_GEO_RE = re.compile(r"-?\d{1,2}\.(?P<lat_dec>\d{4,9})(?P<sep>\s?,\s?)-?\d{1,3}\.(?P<lon_dec>\d{4,9})")


def _is_iban(value: str) -> bool:
    """``value`` (spaces or dashes allowed) is an IBAN with valid check digits for its country
    (python-stdnum's ``iban.is_valid``: ISO 13616 lengths and ISO 7064 mod 97-10)."""
    compact = re.sub(r"[\s-]", "", value)
    if not (15 <= len(compact) <= 34 and compact[:2].isalpha() and compact[2:4].isdigit()):
        return False
    from stdnum import iban as std_iban

    return std_iban.is_valid(compact.upper())


def _is_ip(value: str) -> bool:
    """Is ``value`` an IPv4 / IPv6 address (standard library ``ipaddress``)?"""
    import ipaddress

    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return True


def _country_code_length(value: str) -> int:
    """Characters of the country code of an international number written without a separator
    after it ("+351912345678" -> 4, "+447700900123" -> 3), read by ``phonenumbers``; 0 when
    ``value`` is no such number. Tenth round (a fresh-clone check: "+351 912 345 678" in a
    message and "+351912345678" in a tool call got unrelated fakes, the second a new country)."""
    if not value.startswith("+"):
        return 0
    import phonenumbers

    try:
        cc = phonenumbers.parse(value, None).country_code
    except phonenumbers.NumberParseException:
        return 0
    return 1 + len(str(cc)) if cc and value[1:].startswith(str(cc)) else 0
