"""Issue 11, twenty-third round: the kinds red-team 38 and 39 (read this round) showed; red-team
37 is never read. Each kind is tested in sentences and records written here, never the red-team
values. Also: the staff labels are one section of the PII config (``staff_labels``), read both in
user / tool text and in a system prompt.

Real presidio + the spaCy package model; one analyzer for the module.
"""
from __future__ import annotations

from functools import partial

import pytest

from pipeline.anonymize import Anonymizer, build_analyzer
from pipeline.anonymize.config import PiiConfig, PiiConfigError
from tests.anon_helpers import called_tool_text, one, user, assert_gone, assert_kept


@pytest.fixture(scope="module")
def analyzer():
    return build_analyzer()


@pytest.fixture(scope="module")
def anon(analyzer):
    return Anonymizer(secret="round23", analyzer=analyzer)


_tool_text = partial(called_tool_text, ask="Can you pull the record?")
_gone = partial(assert_gone, ignore_case=True)
_kept = assert_kept


def _system(anon, prompt: str) -> str:
    """``prompt`` anonymized as a system prompt (before a user's greeting)."""
    out = one(anon, [{"role": "system", "content": prompt}, {"role": "user", "content": "Hello, I need help."}])
    return out.messages[0]["content"]


# ---------------------------------------- staff labels: one config section, two readers
@pytest.mark.parametrize("prompt,name", [
    ("You are the Parcelo assistant. Supervisor: Radomir Kowalczyk. Never share tracking logs.", "Radomir Kowalczyk"),
    ("Support console of Brightline. Specialist: Anneliese Brandt. Refunds need approval.", "Anneliese Brandt"),
    ("Asistente de Viajes Sol. Escalar a: Maite Goikoetxea. Responde en español.", "Maite Goikoetxea"),
    ("Kundenservice. Eskalation an: Frieda Hollmann (Team Retouren).", "Frieda Hollmann"),
])
def test_staff_named_in_a_system_prompt(anon, prompt, name):
    out = _system(anon, prompt)
    _gone(out, [name])
    _kept(out, ["Never share" if "Never" in prompt else prompt.split(".")[0]])


@pytest.mark.parametrize("text,name", [
    ("Thanks for waiting, I checked it. Supervisor: Radomir Kowalczyk approved the refund.", "Radomir Kowalczyk"),
    ("The parcel was returned. Specialist: Anneliese Brandt will call you.", "Anneliese Brandt"),
])
def test_staff_labels_are_person_labels_in_user_text(anon, text, name):
    _gone(user(anon, text), [name])


def test_a_policy_line_after_a_staff_label_without_a_name_stays(anon):
    prompt = "You help customers of Brightline. Supervisor: Approval Needed For Refunds over 200 EUR."
    _kept(_system(anon, prompt), ["Approval Needed For Refunds"])


def test_a_company_adds_its_own_staff_label(analyzer):
    cfg = PiiConfig.load()
    cfg.extend({"staff_labels": ["kundenbetreuer(?:in)?"]}, "company.yaml")
    anon = Anonymizer(secret="round23", analyzer=analyzer, pii_config=cfg)
    prompt = "Assistent der Stadtwerke. Kundenbetreuerin: Hannelore Vogelsang. Tarife nur laut Liste."
    out = _system(anon, prompt)
    _gone(out, ["Hannelore Vogelsang"])
    # without the company's label the shipped config does not read it
    _kept(_system(Anonymizer(secret="round23", analyzer=analyzer), prompt), ["Hannelore Vogelsang"])


def test_a_bad_staff_label_is_a_config_error():
    with pytest.raises(PiiConfigError, match="staff_labels"):
        PiiConfig().extend({"staff_labels": ["agent(("]}, "bad.yaml")


def test_staff_labels_are_among_the_person_labels_once():
    cfg = PiiConfig.load()
    labels = cfg.text_labels()
    assert labels["PERSON"][-1] == cfg.staff_label_regex()
    assert cfg.staff_label_regex() not in cfg.id_labels["PERSON"]  # the config itself keeps one copy
