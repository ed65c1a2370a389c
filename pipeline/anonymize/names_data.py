"""A larger name gazetteer from the ``names-dataset`` package (first and last names of 105
countries with per-country popularity ranks, from a public-profile dump; MIT licence).
Fourteenth round of issue 11: the names written in other scripts with spaces between words
(Arabic, Hebrew, Cyrillic, Greek, Indic, Ethiopic, Georgian, Armenian) are kept too, apart
(:func:`script_names`), for names in their own script.

Faker's person providers (:func:`~pipeline.anonymize.context.name_gazetteer`) know ~26k first
and ~25k last names, mostly of European locales; customers are of every nationality. This
module adds the names ranked within the top :data:`TOP_RANK` of at least one country, keeping
only single words in Latin script (``[a-z\\u00df-\\u024f]``) of 3+ letters that are no English
word (:func:`~pipeline.anonymize.context.is_english_word`: "will", "young", "park" stay out),
no stop word of another language spaCy knows and no known place
(:func:`~pipeline.anonymize.context.place_gazetteer`, also the first words of 3+ multi-word
places: "san", "los", "porto"). Like the Faker names they are evidence
only where a shape or a context already points at a name.

Cost: the package's own loader (``NameDataset()``) unpickles ~1.7M names into GBs of dicts. We
read its two pickles **once** per installation, in a child process (about 20 s and 1.1 GB peak
on a 2-core machine; the parent's memory never sees it), and write the kept names to a small
cache file (``names-dataset-<version>-top<N>-v<FORMAT>.txt.gz``, ~1 MB) under
trajpipe's cache folder (:func:`pipeline.fileio.cache_dir`: ``$TRAJPIPE_CACHE``, else
``$XDG_CACHE_HOME/trajpipe`` or ``~/.cache/trajpipe``); every
later process reads that file (~0.1 s, a few MB of frozensets). ``scripts/install.sh`` builds
it (``python -m pipeline.anonymize.names_data``). Without the package the extra gazetteer is
empty (a warning is logged once) and the anonymizer works as before.
"""
from __future__ import annotations

import gzip
import logging
import os
import re
import subprocess
import sys
import tempfile
from functools import lru_cache
from typing import Any
from pathlib import Path

from ..fileio import cache_dir

log = logging.getLogger(__name__)

#: An e-mail address's characters (RFC 5322 local parts; RFC 6531 lets them, and the domain, hold
#: letters beyond ASCII: "jürgen.hoffmann@nordwerk.de", "иван@пример.рф" - sixteenth round of issue 11).
#: CJK letters stay out: Chinese / Japanese text glues words to an address ("邮箱abc@qq.com").
EMAIL_CHARS = "A-Za-z0-9\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u024F\u0370-\u03FF\u0400-\u04FF"
#: an e-mail address: local part, "@", domain labels, a top-level domain of letters
EMAIL_PATTERN = (r"[" + EMAIL_CHARS + r"._%+-]+@[" + EMAIL_CHARS + r"-]+(?:\.[" + EMAIL_CHARS + r"-]+)*"
                 r"\.[A-Za-z\u0400-\u04FF]{2,}")
#: the characters an address is never preceded / followed by
EMAIL_BEFORE = r"(?<![" + EMAIL_CHARS + r"._%+-])"
EMAIL_AFTER = r"(?![" + EMAIL_CHARS + r"-])"


#: A name is kept when some country ranks it within this many of its names
#: (``$TRAJPIPE_NAMES_DATASET_TOP`` overrides it; 0 turns the extra gazetteer off).
TOP_RANK = int(os.environ.get("TRAJPIPE_NAMES_DATASET_TOP", "2000"))
#: Bump when the filter below changes (the cache file name carries it).
FORMAT = 3
_WORD_RE = re.compile("[a-z\u00df-\u024f]{3,}")
#: Scripts whose words are written with spaces between them, and their letters (fourteenth round:
#: names in their own script were kept - "منى عبد الحميد السيد", "יעל כהן-אברהמי", "রাশিদা খাতুন",
#: "Десислава Петкова"). CJK, Hangul, Thai and Khmer are left out: without spaces between words a
#: name list finds names inside ordinary words.
SCRIPT_LETTERS = {
    "arabic": "\u0620-\u064A\u066E-\u06D3\u06D5\u06FA-\u06FF\u200C",  # Arabic, Persian, Urdu
    "hebrew": "\u05D0-\u05EA",
    "cyrillic": "\u0400-\u04FF",
    "greek": "\u0386-\u03CE",
    "bengali": "\u0980-\u09FF",
    "devanagari": "\u0900-\u0963\u0966-\u097F",
    "tamil": "\u0B80-\u0BFF",
    "ethiopic": "\u1200-\u135A",
    "georgian": "\u10A0-\u10FF",
    "armenian": "\u0531-\u0587",
}
_SCRIPT_WORD_RES = tuple(re.compile(f"[{letters}]{{2,}}(?:-[{letters}]{{2,}})?") for letters in SCRIPT_LETTERS.values())
#: spaCy's stop-word lists of the languages written in those scripts (a name list made of public
#: profiles holds "بدون" or "אני" as names too)
_SCRIPT_STOP_LANGS = ("ar", "fa", "ur", "he", "ru", "uk", "bg", "sr", "mk", "el", "bn", "hi", "mr", "ne", "ta",
                      "am", "hy")


def _version() -> str | None:
    try:
        from importlib.metadata import version

        return version("names-dataset")
    except Exception:  # noqa: BLE001 - not installed
        return None


def cache_path(top: int = TOP_RANK) -> Path | None:
    """The cache file for ``top`` (None when names-dataset is not installed)."""
    v = _version()
    return None if v is None else cache_dir() / f"names-dataset-{v}-top{top}-v{FORMAT}.txt.gz"


def build(top: int, out: Path) -> tuple[int, int]:
    """Read names-dataset's pickles (one at a time) and write the kept first (``F``) and last
    (``L``) names to ``out`` (atomically). Returns the counts. Memory-heavy: run it in a child
    process (:func:`extra_names` does)."""
    import gc
    import pickle

    import names_dataset

    from collections import Counter

    from .context import is_english_word, is_foreign_stop_word, place_gazetteer, spacy_stop_words

    places = place_gazetteer()
    script_stop = spacy_stop_words(_SCRIPT_STOP_LANGS)
    # first words of many multi-word places ("san", "los", "porto"): "San Diego" stays a place
    heads = Counter(p.split()[0] for p in places if " " in p)
    places = places | {w for w, n in heads.items() if n >= 3}
    root = Path(names_dataset.__file__).parent / "v3"
    kept: dict[str, list[str]] = {}
    for tag, fname in (("F", "first_names.pkl.gz"), ("L", "last_names.pkl.gz")):
        with gzip.open(root / fname, "rb") as fh:
            data = pickle.load(fh)
        words, script_words = set(), set()
        for name, info in data.items():
            ranks = info.get("rank") or {}
            if not ranks or min(ranks.values()) > top:
                continue
            w = name.lower()
            if _WORD_RE.fullmatch(w):
                words.add(w)
            elif any(r.fullmatch(w) for r in _SCRIPT_WORD_RES) and w not in script_stop:
                script_words.add(w)
        del data
        gc.collect()
        kept[tag] = sorted(w for w in words if w not in places and not is_foreign_stop_word(w)
                           and not is_english_word(w))
        kept["S" + tag] = sorted(script_words)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=out.name, suffix=".tmp")
    try:
        os.chmod(tmp, 0o644)
        with os.fdopen(fd, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
            for tag, words in kept.items():
                gz.write("".join(f"{tag}\t{w}\n" for w in words).encode("utf-8"))
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return len(kept["F"]), len(kept["L"])


def _read(path: Path) -> dict[str, frozenset[str]]:
    """The cache file's names by tag: ``F`` / ``L`` (Latin first / last names), ``SF`` / ``SL``
    (first / last names in the scripts of :data:`SCRIPT_LETTERS`, lower-cased)."""
    tags: dict[str, set[str]] = {"F": set(), "L": set(), "SF": set(), "SL": set()}
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            tag, _, w = line.rstrip("\n").partition("\t")
            tags.setdefault(tag, set()).add(w)
    return {t: frozenset(ws) for t, ws in tags.items()}


def extra_names(top: int = TOP_RANK) -> tuple[frozenset[str], frozenset[str]]:
    """``(first names, last names)`` of names-dataset in Latin script (see the module doc); empty
    sets when the package is missing or the cache cannot be built."""
    tags = _names(top)
    return tags.get("F", frozenset()), tags.get("L", frozenset())


#: Letters that Arabic, Persian and Urdu write differently for one sound, folded to one form
#: (Unicode's Arabic block: Farsi yeh U+06CC / Urdu yeh barree U+06D2 / alef maksura -> yeh
#: U+064A; keheh U+06A9 -> kaf U+0643; heh goal U+06C1 / heh doachashmee U+06BE / heh with yeh
#: U+06C0 -> heh U+0647; teh marbuta goal U+06C3 -> U+0629), and the marks a name list seldom
#: writes dropped (harakat U+064B-U+0652, superscript alef U+0670, tatweel U+0640). Names-dataset
#: and Faker write a name in one country's letters: Urdu "شہزاد" is Arabic-letter "شهزاد" there
#: (twenty-fourth round).
ARABIC_FOLD = str.maketrans({"\u06CC": "\u064A", "\u06D2": "\u064A", "\u0649": "\u064A", "\u06D3": "\u064A",
                             "\u06A9": "\u0643", "\u06C1": "\u0647", "\u06BE": "\u0647", "\u06C0": "\u0647",
                             "\u06C3": "\u0629", "\u0670": None, "\u0640": None,
                             **{chr(c): None for c in range(0x064B, 0x0653)}})


def fold_script_name(word: str) -> str:
    """``word`` as the script gazetteer stores it: lower case, the Arabic-script letter variants of
    :data:`ARABIC_FOLD` folded to one form (other scripts are only lower-cased)."""
    return word.lower().translate(ARABIC_FOLD)


class FoldedNames(frozenset):
    """A frozenset of names stored by :func:`fold_script_name`; ``word in names`` folds ``word``
    first, so a lookup in Urdu or Persian letters finds the name written in Arabic letters (and
    the other way round). Callers pass lower-cased words, as before."""

    def __contains__(self, word: object) -> bool:  # noqa: D105
        return isinstance(word, str) and frozenset.__contains__(self, word.translate(ARABIC_FOLD))


@lru_cache(maxsize=4)
def script_names(top: int = TOP_RANK) -> tuple[FoldedNames, FoldedNames]:
    """``(first names, last names)`` of names-dataset written in another script than Latin
    (:data:`SCRIPT_LETTERS`: Arabic, Hebrew, Cyrillic, Greek, Bengali, Devanagari, Tamil, Ethiopic,
    Georgian, Armenian), lower-cased, without the stop words spaCy lists for their languages;
    empty sets when the package is missing. A public-profile dump: some are ordinary words
    ("অচিন পাখি"), so a rule needs two of them side by side or a context. Seventeenth round: with
    Faker's names of the same scripts (:func:`faker_script_names`: names-dataset, a dump of public
    profiles, has few names written in Devanagari - "प्रिया", "सुनील" were missing). Twenty-fourth
    round: :class:`FoldedNames`, so Arabic, Persian and Urdu spellings of one name find each other
    (built once per process and ``top``)."""
    tags = _names(top)
    ff, fl = faker_script_names()
    return (FoldedNames(fold_script_name(w) for w in tags.get("SF", frozenset()) | ff),
            FoldedNames(fold_script_name(w) for w in tags.get("SL", frozenset()) | fl))


def _provider_words(provider: Any, attrs: tuple[str, ...]) -> set[str]:
    """The words of a Faker person provider's name lists ``attrs`` (tuples, or dicts of weights)."""
    out: set[str] = set()
    for a in attrs:
        v = getattr(provider, a, None)
        if isinstance(v, (tuple, list, dict, set, frozenset)):
            out.update(w for w in v if isinstance(w, str))
    return out


@lru_cache(maxsize=1)
def faker_script_names() -> tuple[frozenset[str], frozenset[str]]:
    """``(first names, last names)`` of every Faker locale's person provider written in the scripts
    of :data:`SCRIPT_LETTERS` (single words, lower-cased, no stop word spaCy lists for those
    languages): ~10k names of Arabic, Persian, Hebrew, Cyrillic, Greek, Bengali, Devanagari,
    Tamil, Georgian and Armenian locales (hi_IN, ne_NP, bn_BD, ta_IN, ar_*, fa_IR, he_IL, ru_RU,
    uk_UA, bg_BG, el_GR, ka_GE, hy_AM, ...). Read from the installed package (~0.3 s), never
    downloaded."""
    import importlib
    import pkgutil

    from faker.providers import person

    from .context import spacy_stop_words

    stop = spacy_stop_words(_SCRIPT_STOP_LANGS)
    firsts: set[str] = set()
    lasts: set[str] = set()
    for mod in pkgutil.iter_modules(person.__path__):
        try:
            provider = importlib.import_module(f"{person.__name__}.{mod.name}").Provider
        except Exception:  # a locale module that fails to import: its names are left out
            continue
        for words, out in ((_provider_words(provider, ("first_names", "first_names_male", "first_names_female")), firsts),
                           (_provider_words(provider, ("last_names", "last_names_male", "last_names_female")), lasts)):
            for w in words:
                lw = w.strip().lower()
                if lw not in stop and any(r.fullmatch(lw) for r in _SCRIPT_WORD_RES):
                    out.add(lw)
    return frozenset(firsts), frozenset(lasts)


@lru_cache(maxsize=4)
def _names(top: int) -> dict[str, frozenset[str]]:
    """The cache file's names by tag (:func:`_read`), built when missing; ``{}`` without it."""
    if top <= 0:
        return {}
    path = cache_path(top)
    if path is None:
        log.warning("names-dataset is not installed: the anonymizer's name gazetteer has only "
                    "Faker's names (pip install names-dataset)")
        return {}
    if not path.exists():
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # one builder at a time (detector workers start together): the others wait for its file
            with open(str(path) + ".lock", "w") as lock:
                try:
                    import fcntl

                    fcntl.flock(lock, fcntl.LOCK_EX)
                except ImportError:  # pragma: no cover - no fcntl (Windows): build unlocked
                    pass
                if not path.exists():
                    subprocess.run([sys.executable, "-m", __name__, "--top", str(top), "--out", str(path)],
                                   check=True, timeout=900, stdout=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError) as exc:
            log.warning("names-dataset gazetteer not built (%s): Faker's names only", exc)
            return {}
    try:
        return _read(path)
    except (OSError, EOFError, ValueError) as exc:
        log.warning("names-dataset gazetteer unreadable (%s): Faker's names only", exc)
        return {}


def gazetteer_fingerprint(top: int = TOP_RANK) -> dict[str, Any]:
    """What the anonymizer's extra name gazetteer holds in this process: ``{"names_dataset":
    version or None, "top": N, "format": FORMAT, "first": count, "last": count, "faker": version}`` (counts 0 when
    the package is missing or its cache could not be built). Part of the anonymize stage's
    signature, so an anonymization made without the gazetteer is never reused once it is there
    (and recorded in ``anonymization_report.json``). Builds the cache when missing, as the
    anonymizer would (:func:`extra_names`)."""
    from importlib.metadata import version

    firsts, lasts = extra_names(top)
    # (Faker's version: its names in other scripts join names-dataset's, see script_names)
    return {"names_dataset": _version(), "top": top, "format": FORMAT, "first": len(firsts), "last": len(lasts),
            "faker": version("faker")}


def main(argv: list[str] | None = None) -> int:
    """``python -m pipeline.anonymize.names_data [--top N] [--out FILE]``: build the cache file."""
    import argparse
    import time

    ap = argparse.ArgumentParser(prog="python -m pipeline.anonymize.names_data",
                                 description="build the names-dataset gazetteer cache")
    ap.add_argument("--top", type=int, default=TOP_RANK)
    ap.add_argument("--out", default=None)
    ap.add_argument("--force", action="store_true", help="rebuild the cache file even when it exists")
    args = ap.parse_args(argv)
    out = Path(args.out) if args.out else cache_path(args.top)
    if out is None:
        print("names-dataset is not installed (pip install names-dataset)", file=sys.stderr)
        return 1
    if out.exists() and not args.force:
        tags = _read(out)
        print(f"{out}: {len(tags['F'])} first and {len(tags['L'])} last names, {len(tags['SF'])} / "
              f"{len(tags['SL'])} in other scripts (kept; --force rebuilds)")
        return 0
    t0 = time.perf_counter()
    n_first, n_last = build(args.top, out)
    print(f"{out}: {n_first} first and {n_last} last names ({time.perf_counter() - t0:.1f} s)")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
