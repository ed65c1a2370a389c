"""Anonymize stage: real presidio + spaCy package model, real tau-bench logs, no mocks."""
from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from pipeline.anonymize import Anonymizer, build_analyzer
from pipeline.records import LogRecord
from shared_paths import TAU_DIR

TAU = TAU_DIR
LOGS = TAU / "logs" / "airline-gpt4o-trajectories.json"
USERS = TAU / "airline" / "users.json"
N_RECORDS = 20


def _word_rx(value: str) -> re.Pattern:
    if value.isdigit():  # a number, not a piece of a date, time, amount or longer number
        return re.compile(r"(?<![\w$/:.,-])" + re.escape(value) + r"(?![\w]|[-/:.,]\d)")
    return re.compile(r"(?<![A-Za-z0-9_])" + re.escape(value) + r"(?![A-Za-z0-9_])")


def _record(run: dict) -> LogRecord:
    task = run["info"]["task"]
    return LogRecord(
        id=f"taubench-{run['task_id']}-{run['trial']}",
        messages=run["traj"],
        metadata={"task_id": run["task_id"], "reward": run["reward"],
                  "instruction": task.get("instruction"), "user_id": task.get("user_id"),
                  "gold_actions": task.get("actions")},
    )


def _text(rec: LogRecord) -> str:
    return json.dumps(rec.model_dump(), ensure_ascii=False)


@pytest.fixture(scope="module")
def analyzer():
    """The real offline analyzer (spaCy package model): built once for the module."""
    return build_analyzer()


@pytest.fixture(scope="module")
def tau():
    """The first records of the real airline logs plus users.json; skips without shared data."""
    if not LOGS.exists() or not USERS.exists():
        pytest.skip(f"shared tau-bench data not found at {TAU} (expected ../shared/data/tau-bench)")
    runs = json.loads(LOGS.read_text(encoding="utf-8"))[:N_RECORDS]
    users = json.loads(USERS.read_text(encoding="utf-8"))
    return [_record(r) for r in runs], users


@pytest.fixture(scope="module")
def anonymized(tau, analyzer):
    """(anonymizer, input records, output records) for the real slice, one fixed secret."""
    records, _ = tau
    anon = Anonymizer(secret="test-secret-1", analyzer=analyzer)
    return anon, records, list(anon.anonymize(records))


def _ground_truth_values(records: list[LogRecord], users: dict) -> dict[str, set[str]]:
    raw = "\n".join(_text(r) for r in records)
    present_users = {u for u in set(re.findall(r"[a-z]+_[a-z]+_\d{3,6}", raw)) if u in users}
    assert len(present_users) >= 5, present_users
    vals: dict[str, set[str]] = {k: set() for k in (
        "full_name", "first_name", "last_name", "email", "dob", "address1", "zip", "payment_id",
        "user_id", "reservation_id", "last_four")}
    for uid in present_users:
        u = users[uid]
        first, last = u["name"]["first_name"], u["name"]["last_name"]
        vals["full_name"].add(f"{first} {last}")
        vals["first_name"].add(first)
        vals["last_name"].add(last)
        vals["email"].add(u["email"])
        vals["dob"].add(u["dob"])
        vals["address1"].add(u["address"]["address1"])
        vals["zip"].add(u["address"]["zip"])
        vals["payment_id"].update(u["payment_methods"])
        vals["last_four"].update(p["last_four"] for p in u["payment_methods"].values()
                                 if "last_four" in p)
        vals["user_id"].add(uid)
        vals["reservation_id"].update(u["reservations"])
    return vals


def test_no_ground_truth_value_survives(tau, anonymized):
    """Every users.json value of the users in the slice that is in the input is gone."""
    _, users = tau
    _, records, out = anonymized
    vals = _ground_truth_values(records, users)
    raw = "\n".join(_text(r) for r in records)
    anon_text = "\n".join(_text(r) for r in out)
    present, leaks = Counter(), []
    for kind, values in vals.items():
        for v in values:
            rx = _word_rx(v)
            if rx.search(raw):
                present[kind] += 1
                if rx.search(anon_text):
                    leaks.append((kind, v))
    # the slice really carries these kinds of personal data (else the test proves nothing)
    for kind in ("full_name", "first_name", "last_name", "email", "dob", "address1", "zip",
                 "payment_id", "user_id", "reservation_id", "last_four"):
        assert present[kind] > 0, f"no {kind} in the input slice"
    assert not leaks, f"real values left in anonymized records: {sorted(leaks)[:20]}"


def test_ids_messages_and_tool_arguments_keep_their_shape(anonymized):
    """Record ids and message layout unchanged; tool-call arguments stay valid JSON strings
    with the same keys; JSON tool results stay JSON."""
    _, records, out = anonymized
    assert [r.id for r in out] == [r.id for r in records]
    n_args = 0
    for a, b in zip(records, out):
        assert len(a.messages) == len(b.messages)
        for ma, mb in zip(a.messages, b.messages):
            assert ma["role"] == mb["role"]
            for ta, tb in zip(ma.get("tool_calls") or [], mb.get("tool_calls") or []):
                assert isinstance(tb["function"]["arguments"], str)
                pa, pb = json.loads(ta["function"]["arguments"]), json.loads(tb["function"]["arguments"])
                assert tb["function"]["name"] == ta["function"]["name"]
                assert sorted(pa) == sorted(pb)
                n_args += 1
            if ma["role"] == "tool" and ma["content"].lstrip().startswith(("{", "[")):
                json.loads(mb["content"])
    assert n_args > 20


def test_business_facts_survive(anonymized):
    """Flight numbers, airport codes, prices, amounts, flight dates/times, cabins and the
    policy system message are untouched."""
    _, records, out = anonymized
    patterns = {
        "flight_number": r"HAT\d{3}",
        "airport": r"\b[A-Z]{3}\b",
        "price": r"\$\d[\d,]*(?:\.\d+)?|\"price\": \d+|\"amount\": -?\d+",
        "flight_date": r"2024-\d\d-\d\d",
        "time": r"\d\d:\d\d:\d\d",
        "cabin": r"basic_economy|economy|business",
    }
    for a, b in zip(records, out):
        ta, tb = _text(a), _text(b)
        for name, p in patterns.items():
            assert Counter(re.findall(p, ta)) == Counter(re.findall(p, tb)), (a.id, name)
        sa = [m["content"] for m in a.messages if m["role"] == "system"]
        sb = [m["content"] for m in b.messages if m["role"] == "system"]
        assert sa and sa == sb
    everything = "".join(_text(r) for r in out)
    assert "HAT" in everything and "JFK" in everything


def test_same_value_same_pseudonym_across_records(anonymized):
    """A user appearing in several records gets one pseudonymous user id and name everywhere."""
    _, records, out = anonymized
    by_real: dict[str, set[str]] = {}
    for a, b in zip(records, out):
        by_real.setdefault(a.metadata["user_id"], set()).add(b.metadata["user_id"])
    repeated = [u for u in by_real if sum(r.metadata["user_id"] == u for r in records) > 1]
    assert repeated, "slice has no user in two records"
    for u in by_real:
        assert len(by_real[u]) == 1, (u, by_real[u])
        (fake,) = by_real[u]
        assert fake != u and re.fullmatch(r"[a-z]+_[a-z]+_\d{4}", fake)
    assert len({next(iter(v)) for v in by_real.values()}) == len(by_real)  # injective


def _toy(rid: str) -> LogRecord:
    profile = {"name": {"first_name": "Mia", "last_name": "Li"},
               "address": {"address1": "975 Sunset Drive", "address2": "Suite 217",
                           "city": "Austin", "country": "USA", "state": "TX", "zip": "78750"},
               "email": "mia.li3818@example.com", "dob": "1990-04-05",
               "payment_methods": {"credit_card_4421486": {"source": "credit_card", "brand": "visa",
                                                           "last_four": "2024",
                                                           "id": "credit_card_4421486"}},
               "saved_passengers": [{"first_name": "Grace", "last_name": "Silver",
                                     "dob": "1957-03-21"}],
               "membership": "gold", "reservations": ["NO6JO3", "AIXC49"]}
    return LogRecord(id=rid, messages=[
        {"role": "system", "content": "# Airline Agent Policy\nSilver members get 2 free bags "
                                      "(Mia Li at the desk can help). Basic economy cannot be "
                                      "modified. Example user id: mia_li_3668."},
        {"role": "user", "content": "Hi, I'm Mia Li (mia_li_3668), born April 5, 1990. Please "
                                    "change reservation NO6JO3 to HAT123 from JFK on May 20, 2024; "
                                    "pay with my card ending in 2024, not the $2024.50 gift card. "
                                    "Also add my friend Kevin Baker."},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
            "name": "get_user_details", "arguments": json.dumps({"user_id": "mia_li_3668"})}}]},
        {"role": "tool", "tool_call_id": "c1", "name": "get_user_details", "content": json.dumps(profile)},
        {"role": "assistant", "content": "Thank you, Mia. Reservation AIXC49 departs 2024-05-20 at 10:00."},
    ], metadata={"user_id": "mia_li_3668", "instruction": "You are mia_li_3668 and use your 2024 card."})


def test_consistency_secrets_and_formats(analyzer):
    """One secret: same value -> same fake across records and runs; another secret differs;
    fakes keep their formats; low-entropy numbers never clobber dates or prices."""
    a1 = Anonymizer(secret="secret-A", analyzer=analyzer)
    r1, r2 = list(a1.anonymize([_toy("r1"), _toy("r2")]))
    r3 = Anonymizer(secret="secret-A", analyzer=analyzer).anonymize_record(_toy("r1"))
    r4 = Anonymizer(secret="secret-B", analyzer=analyzer).anonymize_record(_toy("r1"))
    r5, r6 = Anonymizer(secret="secret-A", analyzer=analyzer, chunk_size=1).anonymize(
        [_toy("r1"), _toy("r2")])
    assert r1.messages == r2.messages == r3.messages == r5.messages == r6.messages
    assert r1.metadata == r3.metadata == r6.metadata and (r1.id, r2.id) == ("r1", "r2")
    assert r1.messages != r4.messages and r1.metadata["user_id"] != r4.metadata["user_id"]

    prof = json.loads(r1.messages[3]["content"])
    pay_id, pay = next(iter(prof["payment_methods"].items()))
    fakes = {
        "email": (prof["email"], r"[a-z]+\.[a-z]+\d{4}@example\.com"),
        "dob": (prof["dob"], r"(19[4-9]\d|200[0-5])-\d\d-\d\d"),
        "user_id": (r1.metadata["user_id"], r"[a-z]+_[a-z]+_\d{4}"),
        "payment_id": (pay_id, r"credit_card_\d{7}"),
        "payment_id_field": (pay["id"], r"credit_card_\d{7}"),
        "last_four": (pay["last_four"], r"\d{4}"),
        "zip": (prof["address"]["zip"], r"\d{5}"),
        "first_name": (prof["name"]["first_name"], r"[A-Z][a-z]+"),
        "last_name": (prof["name"]["last_name"], r"[A-Z][a-z]+"),
    }
    for key, (value, rx) in fakes.items():
        assert re.fullmatch(rx, value), (key, value)
    for res, real in zip(prof["reservations"], ["NO6JO3", "AIXC49"]):
        assert re.fullmatch(r"[A-Z0-9]{6}", res) and not re.fullmatch(r"HAT\d{3}", res)
        assert [c.isdigit() for c in res] == [c.isdigit() for c in real]
    assert pay["id"] == pay_id and prof["address"]["city"] != "Austin"
    assert prof["membership"] == "gold" and prof["address"]["state"] == "TX"

    user = r1.messages[1]["content"]
    first, last, uid = prof["name"]["first_name"], prof["name"]["last_name"], r1.metadata["user_id"]
    assert f"I'm {first} {last} ({uid})" in user
    assert "HAT123" in user and "JFK" in user and "May 20, 2024" in user and "$2024.50" in user
    assert f"card ending in {pay['last_four']}" in user
    assert re.search(r"born [A-Z][a-z]+ \d{1,2}, (19[4-9]\d|200[0-5])\.", user)
    assert not re.search(r"Mia|Li\b|mia_li|NO6JO3|1990|April 5|Kevin|Baker", user)  # NER: Kevin
    assert re.search(r"my friend [A-Z][a-z]+ [A-Z][a-z]+\.$", user)
    assert r1.messages[4]["content"].startswith(f"Thank you, {first}. Reservation ")
    assert "2024-05-20 at 10:00" in r1.messages[4]["content"]
    policy = r1.messages[0]["content"]  # only identifiers are replaced in the policy
    assert policy == _toy("x").messages[0]["content"].replace("mia_li_3668", uid)
    assert "Silver members" in policy and "Mia Li at the desk" in policy
    assert f"use your {pay['last_four']} card" in r1.metadata["instruction"]


def test_denylist_digests_and_report(analyzer):
    """is_real/digests know the replaced real values (not the fakes); report counts them."""
    anon = Anonymizer(secret="secret-C", analyzer=analyzer)
    out = anon.anonymize_record(_toy("r1"))
    fake_uid = out.metadata["user_id"]
    for real in ("mia_li_3668", "Mia", "li", "Mia Li", "mia.li3818@example.com", "1990-04-05",
                 "April 5, 1990", "NO6JO3", "credit_card_4421486", "975 Sunset Drive", "78750"):
        assert anon.is_real(real), real
    for fake_or_public in (fake_uid, json.loads(out.messages[3]["content"])["email"], "HAT123",
                           "JFK", "gold", "Amelia"):
        assert not anon.is_real(fake_or_public), fake_or_public
    assert anon.digest("Mia ") == anon.digest("mia") and anon.digest("Mia") in anon.digests
    rep = anon.report()
    assert rep["records"] == 1
    for ent in ("USER_ID", "FIRST_NAME", "LAST_NAME", "EMAIL_ADDRESS", "DATE_OF_BIRTH",
                "RESERVATION_ID", "PAYMENT_ID", "LAST_FOUR", "ZIP", "STREET_ADDRESS", "CITY"):
        assert rep["entities"].get(ent, 0) >= 1, ent
        assert rep["replacements"].get(ent, 0) >= 1, ent
    assert rep["sources"]["key:first_name"] >= 1 and rep["sources"]["id_pattern:user_id"] >= 1
    assert rep["sources"]["DateOfBirthRecognizer"] >= 1
    blob = json.dumps(rep)
    assert "mia" not in blob.lower() and "secret" not in blob.lower()
