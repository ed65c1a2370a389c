"""Issue 11, twenty-fourth round: the kinds red-team 40 and 41 (read this round) showed; red-team
42 is never read. Each kind is tested in sentences and records written here, never the red-team
values. Also: the name gazetteer without the names-dataset package.

Real presidio + the spaCy package model; one analyzer for the module.
"""
from __future__ import annotations

from functools import partial

import pytest

from pipeline.anonymize import Anonymizer, build_analyzer
from tests.anon_helpers import called_tool_text, one, user, assert_gone, assert_kept


@pytest.fixture(scope="module")
def analyzer():
    return build_analyzer()


@pytest.fixture(scope="module")
def anon(analyzer):
    return Anonymizer(secret="round24", analyzer=analyzer)


_tool_text = partial(called_tool_text, ask="Can you pull the record?")
_gone = partial(assert_gone, ignore_case=True)
_kept = assert_kept


# ---------------------------------------- the gazetteer without names-dataset


def test_names_gazetteer_without_the_package_is_empty_not_an_error(monkeypatch):
    """Without names-dataset the extra gazetteer is empty (a warning), never a crash: the loader
    returned a tuple where its callers read a dict."""
    from pipeline.anonymize import names_data

    monkeypatch.setattr(names_data, "cache_path", lambda top=names_data.TOP_RANK: None)
    names_data._names.cache_clear(); names_data._script_names.cache_clear()
    try:
        assert names_data.extra_names(top=1234) == (frozenset(), frozenset())
        firsts, lasts = names_data.script_names(top=1234)
        assert firsts == {names_data.fold_script_name(w) for w in names_data.faker_script_names()[0]}
    finally:
        names_data._names.cache_clear(); names_data._script_names.cache_clear()


# ---------------------------------------- Arabic-script spellings fold to one form


@pytest.mark.parametrize("urdu,arabic", [("شہزاد", "شهزاد"), ("زاہد", "زاهد"), ("کاشف", "كاشف"), ("مصطفیٰ", "مصطفي")])
def test_script_gazetteer_folds_urdu_and_persian_letters(urdu, arabic):
    """A lookup in Urdu / Persian letters and one in Arabic letters ask the same question."""
    from pipeline.anonymize.names_data import fold_script_name, script_names

    firsts, lasts = script_names()
    if not firsts:
        pytest.skip("names-dataset is not installed: no names in other scripts")
    assert fold_script_name(urdu) == fold_script_name(arabic)
    assert (urdu in firsts or urdu in lasts) == (arabic in firsts or arabic in lasts)


@pytest.mark.parametrize("text,names", [
    ("والد کا نام: ساجد محمود، شناختی کارڈ بعد میں بھیجوں گا", ["ساجد محمود"]),
    ("مسئلہ یہ ہے کہ شہزاد اقبال کا اکاؤنٹ بند ہے", ["شہزاد اقبال"]),
    ("درخواست توسط زاہد اکرم ثبت شد و در انتظار تایید است", ["زاہد اکرم"]),
])
def test_urdu_and_persian_names_without_a_cue(anon, text, names):
    """Two names of the script gazetteer side by side, written with Urdu / Persian letters."""
    from pipeline.anonymize.names_data import script_names

    if not script_names()[0]:
        pytest.skip("names-dataset is not installed: no names in other scripts")
    out = user(anon, text)
    _gone(out, names)


def test_urdu_sentence_without_names_is_kept(anon):
    text = "بجلی کا بل اس مہینے زیادہ آیا ہے، میٹر ریڈنگ دوبارہ چیک کریں"
    assert user(anon, text) == text
