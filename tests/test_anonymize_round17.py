"""Issue 11, seventeenth round: the fresh-clone check's leftovers of the sixteenth round and the
kinds red-team sets 17 and 18 showed once they were read (red-team 19 is never read). Each is
tested in sentences and records written here, never the red-team values.

Real presidio + the spaCy package model; one analyzer for the module.
"""
from __future__ import annotations

import pytest

from pipeline.anonymize import Anonymizer, build_analyzer
from tests.anon_helpers import replaced_and_kept, user


@pytest.fixture(scope="module")
def anon():
    return Anonymizer(secret="round17", analyzer=build_analyzer())


# ------------------------------------------------------------- Hindi "ji" glued to a first name
@pytest.mark.parametrize("text,values,kept", [
    ("ठीक है प्रियाजी, आपका पार्सल कल पहुँचेगा।", ["प्रिया"], ["जी", "पार्सल"]),
    ("धन्यवाद सुनीलजी, आपका ऑर्डर भेज दिया गया है।", ["सुनील"], ["धन्यवाद", "ऑर्डर"]),
    ("नमस्ते अनीताजी! प्रिया को भी बता दीजिए।", ["अनीता"], ["नमस्ते"]),
])
def test_a_hindi_ji_glued_to_a_first_name_ends_the_name(anon, text, values, kept):
    replaced_and_kept(user(anon, text), values, kept)


@pytest.mark.parametrize("text", [
    "पिताजी घर पर हैं, गुरुजी कल आएँगे।",
    "हांजी, ठीक है, मैं देख लेता हूँ।",
    "मैं कल भेज दूँगा, माताजी को बता दीजिए।",
])
def test_kin_answer_and_verb_words_with_ji_or_after_main_stay(anon, text):
    assert user(anon, text) == text
