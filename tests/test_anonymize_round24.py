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
    names_data._names.cache_clear()
    try:
        assert names_data.extra_names(top=1234) == (frozenset(), frozenset())
        firsts, lasts = names_data.script_names(top=1234)
        assert firsts == names_data.faker_script_names()[0]
    finally:
        names_data._names.cache_clear()
