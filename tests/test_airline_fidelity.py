"""The airline sandbox behaves like the logged airline system (tau-bench's) where `trajpipe domain
check airline` found it did not (docs/domains.md section 12): one real logged call per fixed
behaviour, replayed in its conversation from the tau-bench airline database, must give the logged
result. Skipped when ../shared/data (the real logs and database) is absent.

The synthetic half (no shared data needed) pins the same behaviours on generated states: the id
sequences, the kept cabin, an overnight connection's second leg."""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from pipeline.domains import get_domain
from pipeline.sandbox import Sandbox
from pipeline.scaffold.check import load_snapshot
from pipeline.scaffold.observe import canonical, load_records, record_calls
from shared_paths import TAU_DIR

ROOT = Path(__file__).resolve().parents[1]
TAU = TAU_DIR
RUNS = TAU / "logs" / "airline-gpt4o-trajectories.json"
DOMAIN = get_domain("airline")


@pytest.fixture(scope="module")
def tau():
    if not (RUNS.exists() and (TAU / "airline" / "flights.json").exists()):
        pytest.skip(f"real tau-bench airline logs/database not found under {TAU} (../shared/data is absent)")
    records, _ = load_records(RUNS)
    return {r["id"] if isinstance(r, dict) else r.id: r for r in records}, load_snapshot(TAU / "airline")


def _replay_to(tau, record_id: str, step: int):
    """Replay the conversation's calls in order up to ``step``; return (call, logged, replayed) of that call."""
    records, db = tau
    calls = record_calls(records[record_id])
    box = Sandbox(DOMAIN, db)
    for c in calls:
        with DOMAIN.replay_context():  # as `trajpipe domain check` replays
            got = box.call(c.name, copy.deepcopy(c.arguments))
        if c.step == step:
            return c, canonical(c.result), canonical(got.content)
    raise AssertionError(f"{record_id} has no call {step}")


def test_book_reservation_names_the_first_booking_hathat(tau):
    c, logged, replayed = _replay_to(tau, "taubench-0-0", 7)
    assert c.name == "book_reservation" and logged["reservation_id"] == "HATHAT"
    assert replayed == logged


def test_update_reservation_flights_keeps_the_recorded_cabin(tau):
    # JG7FMM is business; the agent moves it to economy flights: the logged record stays "business"
    c, logged, replayed = _replay_to(tau, "taubench-2-0", 4)
    assert c.name == "update_reservation_flights" and c.arguments["cabin"] == "economy"
    assert logged["cabin"] == "business"
    assert replayed == logged


def test_search_onestop_shows_the_overnight_leg_at_the_first_legs_date(tau):
    c, logged, replayed = _replay_to(tau, "taubench-17-0", 2)
    assert c.name == "search_onestop_flight"
    overnight = [pair for pair in logged if pair[1]["date"] != pair[0]["date"]]
    assert overnight, "the logged call should list an overnight connection"
    assert replayed == logged


def test_send_certificate_id_is_certificate_3221322(tau):
    c, logged, replayed = _replay_to(tau, "taubench-37-0", 5)
    assert c.name == "send_certificate" and "certificate_3221322" in logged
    assert replayed == logged


# ---- the same behaviours on generated states (no shared data needed) ------------------------------

def _task_state(kind: str, seed: int = 0) -> dict:
    return copy.deepcopy(DOMAIN.generate_task(kind, seed).initial_state)


def test_reservation_and_certificate_ids_count_up_without_overwriting():
    from pipeline.domains.airline.tools import _new_certificate_id, _new_reservation_id, logged_system_ids

    with logged_system_ids():
        assert _new_reservation_id({}) == "HATHAT"
        assert _new_reservation_id({"HATHAT": {}}) == "HATHAU"
        assert _new_reservation_id({"HATHAT": {}, "HATHAU": {}, "HATHAV": {}}) == "HATHAW"  # never overwrites
        assert _new_reservation_id({f"HATHA{ch}": {} for ch in "TUVWXYZ"}) == "HATHBA"
        assert _new_certificate_id({}) == "certificate_3221322"
        assert _new_certificate_id({"certificate_3221322": {}}) == "certificate_3221323"

        st = _task_state("send_certificate")
        uid = next(iter(st["users"]))
        t = DOMAIN.tools["send_certificate"]
        first = t.fn(st, user_id=uid, amount=100)
        second = t.fn(st, user_id=uid, amount=50)
    assert first == f"Certificate certificate_3221322 added to user {uid} with amount 100."
    assert second == f"Certificate certificate_3221323 added to user {uid} with amount 50."
    assert st["users"][uid]["payment_methods"]["certificate_3221323"] == {
        "source": "certificate", "amount": 50, "id": "certificate_3221323"}


def test_synthesized_worlds_never_mint_the_logged_systems_ids():
    """Outside a replay the sequences start at a point derived from the user id, so a dataset
    never repeats an id the real system minted for a real booking (HATHAT leaked into every
    output file of the e2e run once the sandbox copied the logged sequence)."""
    from pipeline.domains.airline.tools import (_new_certificate_id, _new_reservation_id,
                                                certificate_number_start, reservation_id_start)

    starts = {reservation_id_start(f"user_{i}") for i in range(50)}
    assert "HATHAT" not in starts and len(starts) == 50 and all(re.fullmatch(r"[A-Z]{6}", s) for s in starts)
    rid = _new_reservation_id({}, "mia_kim_4397")
    assert rid == reservation_id_start("mia_kim_4397") and rid != "HATHAT"
    assert _new_reservation_id({rid: {}}, "mia_kim_4397") != rid  # still counts up, never overwrites
    n = certificate_number_start("mia_kim_4397")
    assert n != 3221322 and _new_certificate_id({f"certificate_{n}": {}}, "mia_kim_4397") == f"certificate_{n + 1}"

    st = _task_state("send_certificate")
    uid = next(iter(st["users"]))
    out = DOMAIN.tools["send_certificate"].fn(st, user_id=uid, amount=100)
    assert out == f"Certificate certificate_{certificate_number_start(uid)} added to user {uid} with amount 100."


def test_booking_ids_follow_the_sequence():
    task = DOMAIN.generate_task("book_reservation", 0)
    st = copy.deepcopy(task.initial_state)
    book = next(s for s in task.reference_solution if s["name"] == "book_reservation")
    first = json.loads(DOMAIN.tools["book_reservation"].fn(st, **copy.deepcopy(book["arguments"])))
    uid = book["arguments"]["user_id"]
    from pipeline.domains.airline.tools import reservation_id_start

    assert first["reservation_id"] == reservation_id_start(uid) != "HATHAT"
    assert first["reservation_id"] in st["users"][uid]["reservations"]


def test_cabin_argument_prices_but_does_not_change_the_recorded_cabin():
    for seed in range(6):
        task = DOMAIN.generate_task("update_reservation_flights", seed)
        if task.notes.get("scenario") != "cabin_change":
            continue
        st = copy.deepcopy(task.initial_state)
        rid, new = task.notes["reservation_id"], task.notes["new_cabin"]
        res = st["reservations"][rid]
        old = res["cabin"]
        same = [{"flight_number": f["flight_number"], "date": f["date"]} for f in res["flights"]]
        out = json.loads(DOMAIN.tools["update_reservation_flights"].fn(
            st, reservation_id=rid, cabin=new, flights=same, payment_id=task.notes["payment_id"]))
        assert out["cabin"] == old != new
        want = [st["flights"][f["flight_number"]]["dates"][f["date"]]["prices"][new] for f in res["flights"]]
        assert [f["price"] for f in out["flights"]] == want
        return
    pytest.fail("no cabin-change scenario in seeds 0-5")


def test_overnight_connection_second_leg_shows_the_first_legs_date_record():
    st = {"users": {}, "reservations": {}, "flights": {
        "HAT001": {"flight_number": "HAT001", "origin": "AAA", "destination": "BBB",
                   "scheduled_departure_time_est": "22:00:00", "scheduled_arrival_time_est": "01:00:00+1",
                   "dates": {"2024-05-20": {"status": "available", "available_seats": {"basic_economy": 1, "economy": 2, "business": 3},
                                            "prices": {"basic_economy": 10, "economy": 20, "business": 30}}}},
        "HAT002": {"flight_number": "HAT002", "origin": "BBB", "destination": "CCC",
                   "scheduled_departure_time_est": "06:00:00", "scheduled_arrival_time_est": "08:00:00",
                   "dates": {"2024-05-20": {"status": "available", "available_seats": {"basic_economy": 4, "economy": 5, "business": 6},
                                            "prices": {"basic_economy": 40, "economy": 50, "business": 60}},
                             "2024-05-21": {"status": "available", "available_seats": {"basic_economy": 7, "economy": 8, "business": 9},
                                            "prices": {"basic_economy": 70, "economy": 80, "business": 90}}}}}}
    out = json.loads(DOMAIN.tools["search_onestop_flight"].fn(st, origin="AAA", destination="CCC", date="2024-05-20"))
    assert len(out) == 1
    leg1, leg2 = out[0]
    assert leg1["date"] == "2024-05-20" and leg2["date"] == "2024-05-21"
    assert leg2["prices"]["economy"] == 50 and leg2["available_seats"]["economy"] == 5  # the 20th's record
    # not bookable on its own date: no pair, whatever the first leg's date says
    st["flights"]["HAT002"]["dates"]["2024-05-21"]["status"] = "cancelled"
    assert json.loads(DOMAIN.tools["search_onestop_flight"].fn(st, origin="AAA", destination="CCC", date="2024-05-20")) == []
