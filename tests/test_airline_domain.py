"""Tests of the airline domain: tools, rules, generators, and a replay against the real logs."""
from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from pipeline.domains import get_domain, known_domains
from pipeline.domains.airline import DOMAIN, AirlineDomain
from pipeline.domains.airline import rules as R
from pipeline.domains.airline.generator import AirlineFactory, generate_state
from pipeline.domains.airline.state import NOW, validate_state
from pipeline.domains.base import ToolError
from pipeline.records import canonical_json
from shared_paths import TAU_DIR

ROOT = Path(__file__).resolve().parents[1]
TAU = TAU_DIR
SEEDS = range(6)
EXPECTED_TOOLS = {
    "get_user_details", "get_reservation_details", "search_direct_flight", "search_onestop_flight",
    "list_all_airports", "calculate", "think", "book_reservation", "update_reservation_flights",
    "update_reservation_baggages", "update_reservation_passengers", "cancel_reservation", "send_certificate",
    "transfer_to_human_agents",
}
EXPECTED_KINDS = {"cancel_reservation", "update_reservation_baggages", "update_reservation_flights",
                  "update_reservation_passengers", "book_reservation", "send_certificate"}


def run_calls(state, calls):
    """Execute ``calls`` ({"name", "arguments"}) on ``state`` in place; return the results."""
    return [DOMAIN.tools[c["name"]].fn(state, **copy.deepcopy(c["arguments"])) for c in calls]


def solved(task):
    state = copy.deepcopy(task.initial_state)
    run_calls(state, task.reference_solution)
    return state


# ---- domain surface ---------------------------------------------------------------------------

def test_registry_returns_airline_and_rejects_unknown():
    assert get_domain("airline") is DOMAIN
    assert "airline" in known_domains()
    with pytest.raises(ValueError, match="airline"):
        get_domain("railway")


def test_tools_match_log_names_and_schemas_are_valid():
    assert isinstance(DOMAIN, AirlineDomain) and DOMAIN.name == "airline"
    assert set(DOMAIN.tools) == EXPECTED_TOOLS
    assert DOMAIN.write_tools == {"book_reservation", "update_reservation_flights", "update_reservation_baggages",
                                  "update_reservation_passengers", "cancel_reservation", "send_certificate"}
    assert DOMAIN.read_tools == EXPECTED_TOOLS - DOMAIN.write_tools
    schemas = DOMAIN.tool_schemas()
    assert [s["function"]["name"] for s in schemas] == list(DOMAIN.tools)
    for name, tool in DOMAIN.tools.items():
        assert tool.name == name and tool.schema["type"] == "function"
        params = tool.schema["function"]["parameters"]
        jsonschema.Draft202012Validator.check_schema(params)
        assert params["additionalProperties"] is False
        assert set(params["required"]) <= set(params["properties"])
        assert tool.schema["function"]["description"]
    assert set(DOMAIN.task_kinds) >= EXPECTED_KINDS


def test_policy_rules_quote_the_policy_and_map_to_tools():
    ids = [r.rule_id for r in DOMAIN.rules]
    assert len(ids) == len(set(ids)) >= 20
    for rule in DOMAIN.rules:
        assert rule.text in DOMAIN.policy
    for write in DOMAIN.write_tools:
        specific = {r.rule_id for r in DOMAIN.rules_for_tools([write])} - set(R.GENERAL_WRITE_RULES)
        assert specific, write
        assert "airline.general.confirm" in {r.rule_id for r in DOMAIN.rules_for_tools([write])}
    cancel_ids = {r.rule_id for r in DOMAIN.rules_for_tools(["get_reservation_details", "cancel_reservation"])}
    assert "airline.cancel.eligibility" in cancel_ids and "airline.book.baggage" not in cancel_ids
    assert DOMAIN.rules_for_tools(["get_user_details", "calculate"]) == []
    # the allowance table says what the policy says
    assert "gold members get 2 in basic economy, 3 in economy and 3 in business" in DOMAIN.policy
    assert [R.free_bags("gold", c) for c in ("basic_economy", "economy", "business")] == [2, 3, 3]
    assert [R.free_bags("silver", c) for c in ("basic_economy", "economy", "business")] == [1, 2, 3]
    assert [R.free_bags("regular", c) for c in ("basic_economy", "economy", "business")] == [0, 1, 2]


def test_kind_mapping_requirements_and_success_conditions():
    assert DOMAIN.kind_for_write_calls([]) is None
    assert DOMAIN.kind_for_write_calls(["transfer_to_human_agents"]) is None
    assert DOMAIN.kind_for_write_calls(["update_reservation_flights", "send_certificate"]) == "update_reservation_flights"
    assert DOMAIN.kind_for_write_calls(["think", "cancel_reservation"]) == "cancel_reservation"
    for kind in DOMAIN.task_kinds:
        assert DOMAIN.initial_state_requirements(kind)["users"] == 1
        assert len(DOMAIN.success_condition(kind)) > 30
    with pytest.raises(ValueError):
        DOMAIN.generate_task("upgrade_everyone", 0)
    with pytest.raises(ValueError):
        DOMAIN.success_condition("upgrade_everyone")


# ---- task generators ----------------------------------------------------------------------------

@pytest.mark.parametrize("kind", sorted(EXPECTED_KINDS))
def test_reference_solutions_solve_their_tasks(kind):
    for seed in SEEDS:
        task = DOMAIN.generate_task(kind, seed)
        validate_state(task.initial_state)
        assert len(task.initial_state["users"]) == 1
        assert 1 <= len(task.initial_state["reservations"]) <= 3
        assert 3 <= len(task.initial_state["flights"]) <= 14
        before = copy.deepcopy(task.initial_state)
        final = solved(task)  # raises ToolError if any reference call fails
        assert task.initial_state == before, "generate_task must not hand out a mutated state"
        assert final != task.initial_state
        validate_state(final)
        writes = [c["name"] for c in task.reference_solution if c["name"] in DOMAIN.write_tools]
        assert writes == [kind] and task.reference_solution[-1]["name"] == kind
        assert DOMAIN.kind_for_write_calls(writes) == kind
        assert task.notes["kind"] == kind and task.notes["rule_ids"]
        assert all(r in R.RULES_BY_ID for r in task.notes["rule_ids"])
        # the customer gives consent and never quotes prices or computed values
        assert "go ahead" in task.instruction.lower() and task.user_messages
        assert "$" not in task.instruction and "dollar" not in task.instruction.lower()
        assert task.notes["must_discover"]
        for value in task.notes["must_discover"]:  # same test as the task verifier's answer-leak check
            assert not re.search(rf"(?<![\w.]){re.escape(value)}(?![\w])", task.instruction), (kind, seed, value)
        uid = next(iter(task.initial_state["users"]))
        assert uid in task.instruction
        json.dumps(task.initial_state)  # JSON-serialisable


@pytest.mark.parametrize("kind", sorted(EXPECTED_KINDS))
def test_reference_arguments_validate_against_tool_schemas(kind):
    for seed in SEEDS:
        for call in DOMAIN.generate_task(kind, seed).reference_solution:
            jsonschema.validate(call["arguments"], DOMAIN.tools[call["name"]].schema["function"]["parameters"])


def test_same_seed_same_task_and_same_final_state():
    for kind in DOMAIN.task_kinds:
        a, b = DOMAIN.generate_task(kind, 11), DOMAIN.generate_task(kind, 11)
        assert a == b
        assert canonical_json(solved(a)) == canonical_json(solved(b))


def test_generation_does_not_depend_on_hash_seed_or_process():
    code = ("import sys, json; sys.path.insert(0, %r); from pipeline.domains.airline import DOMAIN; "
            "from pipeline.records import canonical_json; "
            "print(json.dumps([canonical_json(DOMAIN.generate_task(k, 5).__dict__) for k in DOMAIN.task_kinds]))"
            % str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONHASHSEED": "12345"}).stdout
    here = [canonical_json(DOMAIN.generate_task(k, 5).__dict__) for k in DOMAIN.task_kinds]
    assert json.loads(out) == here


def test_different_seeds_give_different_entities():
    for kind in DOMAIN.task_kinds:
        users = {next(iter(DOMAIN.generate_task(kind, s).initial_state["users"])) for s in range(10)}
        assert len(users) == 10, kind
    per_kind = {next(iter(DOMAIN.generate_task(k, 3).initial_state["users"])) for k in DOMAIN.task_kinds}
    assert len(per_kind) == len(DOMAIN.task_kinds)


def _personal_values(state):
    out = set()
    for uid, u in state["users"].items():
        out |= {uid, f"{u['name']['first_name']} {u['name']['last_name']}", u["email"], u["dob"],
                u["address"]["address1"], u["address"]["zip"], *u["payment_methods"]}
        out |= {f"{p['first_name']} {p['last_name']}" for p in u["saved_passengers"]}
    for rid, r in state["reservations"].items():
        out.add(rid)
        out |= {f"{p['first_name']} {p['last_name']}" for p in r["passengers"]}
    return out


def test_denylist_forces_redraws_of_personal_values():
    for kind in DOMAIN.task_kinds:
        plain = DOMAIN.generate_task(kind, 2)
        banned = _personal_values(plain.initial_state)
        seen = []

        def deny(value, banned=banned, seen=seen):
            seen.append(value)
            return value in banned

        fresh = DOMAIN.generate_task(kind, 2, denylist=deny)
        assert seen, "the denylist was never consulted"
        assert not (_personal_values(fresh.initial_state) & banned), kind
        solved(fresh)  # still a valid task


def test_entity_generator_formats_and_determinism():
    st = generate_state(4, n_users=3)
    assert st == generate_state(4, n_users=3) and st != generate_state(5, n_users=3)
    validate_state(st)
    assert len(st["users"]) == 3
    for uid, user in st["users"].items():
        assert re.fullmatch(r"[a-z]+_[a-z]+_\d{4}", uid)
        assert re.fullmatch(r"[a-z]+\.[a-z]+\d{4}@example\.com", user["email"])
        for pid, pm in user["payment_methods"].items():
            assert re.fullmatch(r"(credit_card|gift_card|certificate)_\d{7}", pid) and pm["source"] in pid
            if pm["source"] == "credit_card":
                assert re.fullmatch(r"\d{4}", pm["last_four"])
    assert all(re.fullmatch(r"[A-Z0-9]{6}", rid) for rid in st["reservations"])
    assert all(re.fullmatch(r"HAT\d{3}", f) for f in st["flights"])
    fac = AirlineFactory(1, denylist=lambda v: True)
    with pytest.raises(RuntimeError):
        fac.user()


# ---- rule keeping -------------------------------------------------------------------------------

def test_ignoring_baggage_allowance_changes_the_final_state():
    checked = 0
    for seed in range(20):
        task = DOMAIN.generate_task("update_reservation_baggages", seed)
        notes = task.notes
        if notes["free_per_passenger"] == 0 or notes["new_nonfree"] == notes["new_total"]:
            continue
        wrong = copy.deepcopy(task.reference_solution)
        wrong[-1]["arguments"]["nonfree_baggages"] = notes["new_total"]  # every bag charged
        user = next(iter(task.initial_state["users"].values()))
        gift = user["payment_methods"][notes["payment_id"]]["source"] == "gift_card"
        state = copy.deepcopy(task.initial_state)
        try:
            run_calls(state, wrong)
        except ToolError as exc:  # a gift card may not cover the extra fees: also not the reference outcome
            assert gift and "gift card balance" in str(exc)
            checked += 1
            continue
        assert state != solved(task)
        checked += 1
    assert checked >= 3


def test_book_reservation_payments_must_add_up():
    for seed in range(4):
        task = DOMAIN.generate_task("book_reservation", seed)
        call = copy.deepcopy(task.reference_solution[-1])
        total = task.notes["total_price"]
        call["arguments"]["payment_methods"][0]["amount"] = total - 50
        state = copy.deepcopy(task.initial_state)
        with pytest.raises(ToolError, match=rf"payment amount does not add up, total price is {total}, but paid {total - 50}"):
            run_calls(state, [call])
        assert state == task.initial_state  # a rejected booking changes nothing
        # a booking that ignores the allowance (one more paid bag) no longer adds up
        call = copy.deepcopy(task.reference_solution[-1])
        call["arguments"]["nonfree_baggages"] += 1
        call["arguments"]["total_baggages"] += 1
        with pytest.raises(ToolError, match="does not add up"):
            run_calls(copy.deepcopy(task.initial_state), [call])


def test_cancellation_rules():
    for seed in SEEDS:
        task = DOMAIN.generate_task("cancel_reservation", seed)
        rid = task.notes["reservation_id"]
        assert R.cancellation_allowed(task.initial_state, rid, task.notes["reason"])
        after = solved(task)
        assert after["reservations"][rid]["status"] == "cancelled"
        assert sum(p["amount"] for p in after["reservations"][rid]["payment_history"]) == 0
        assert not R.cancellation_allowed(after, rid, task.notes["reason"])  # already cancelled
    # a basic-economy booking made days ago, no insurance, change of plan: not cancellable
    fac = AirlineFactory(3)
    uid = fac.user()
    rid = fac.trip(uid, cabin="basic_economy", insurance="no", within_24h=False)
    st = fac.state
    assert not R.cancellation_allowed(st, rid, "change of plan")
    assert not R.cancellation_allowed(st, rid, "I got sick")  # no insurance
    st["reservations"][rid]["insurance"] = "yes"
    assert R.cancellation_allowed(st, rid, "I got sick") and not R.cancellation_allowed(st, rid, "change of plan")
    st["reservations"][rid]["insurance"] = "no"
    st["reservations"][rid]["created_at"] = "2024-05-15T09:00:00"  # within 24 hours
    assert R.cancellation_allowed(st, rid, "change of plan")
    st["reservations"][rid]["created_at"] = "2024-05-10T09:00:00"
    seg = st["reservations"][rid]["flights"][0]
    st["flights"][seg["flight_number"]]["dates"][seg["date"]] = {"status": "cancelled"}
    assert R.cancellation_allowed(st, rid, "the airline cancelled my flight")
    # a flown trip cannot be cancelled even in business
    past = fac.trip(uid, future=False, cabin="business")
    assert not R.cancellation_allowed(st, past, "change of plan")
    assert R.within_24h("2024-05-14T15:00:00") and not R.within_24h("2024-05-14T14:59:59")


def test_other_rule_checkers():
    task = DOMAIN.generate_task("update_reservation_flights", 1)
    st, rid = task.initial_state, task.notes["reservation_id"]
    res = st["reservations"][rid]
    same = [{"flight_number": f["flight_number"], "date": f["date"]} for f in res["flights"]]
    assert R.flight_change_allowed(st, rid, same)  # cabin-only change: always fine
    res2 = copy.deepcopy(res)
    st2 = copy.deepcopy(st)
    st2["reservations"][rid] = {**res2, "cabin": "basic_economy"}
    other = next(f for f in st["flights"] if f not in {x["flight_number"] for x in res["flights"]})
    assert not R.flight_change_allowed(st2, rid, [{"flight_number": other, "date": "2024-05-20"}])
    user = st["users"][res["user_id"]]
    cards = [p for p, m in user["payment_methods"].items() if m["source"] == "credit_card"]
    assert R.payment_methods_allowed(user, [{"payment_id": cards[0], "amount": 1}])
    assert not R.payment_methods_allowed(user, [{"payment_id": "credit_card_0000000", "amount": 1}])
    assert R.baggage_change_allowed(res, res["total_baggages"] + 1)
    assert not R.baggage_change_allowed({**res, "total_baggages": 2}, 1)
    assert not R.passenger_change_allowed(res, res["passengers"] + [res["passengers"][0]])
    assert R.compensation_amount(3) == 300 and R.compensation_amount(2, "delayed") == 100
    cert = DOMAIN.generate_task("send_certificate", 4)
    assert R.compensation_eligible(cert.initial_state, cert.reference_solution[0]["arguments"]["user_id"],
                                   cert.notes["reservation_id"])
    assert cert.reference_solution[-1]["arguments"]["amount"] == 100 * cert.notes["passengers"]


# ---- tool behaviour -----------------------------------------------------------------------------

def test_tool_behaviour_details():
    task = DOMAIN.generate_task("update_reservation_flights", 2)
    st = copy.deepcopy(task.initial_state)
    uid = next(iter(st["users"]))
    rid = task.notes["reservation_id"]
    t = DOMAIN.tools
    assert t["transfer_to_human_agents"].fn(st, summary="x") == "Transfer successful" and st == task.initial_state
    assert t["think"].fn(st, thought="hmm") == ""
    assert t["calculate"].fn(st, expression="152 + 103") == "255.0"
    assert t["calculate"].fn(st, expression="(2 * 3) / 4") == "1.5"
    for bad in ("__import__('os')", "1 / 0", "2 +"):
        with pytest.raises(ToolError):
            t["calculate"].fn(st, expression=bad)
    with pytest.raises(ToolError, match="^user not found$"):
        t["get_user_details"].fn(st, user_id="nobody_0000")
    with pytest.raises(ToolError, match="^reservation not found$"):
        t["get_reservation_details"].fn(st, reservation_id="ZZZZZZ")
    assert json.loads(t["get_user_details"].fn(st, user_id=uid)) == st["users"][uid]
    airports = json.loads(t["list_all_airports"].fn(st))
    assert set(airports) == {f[k] for f in st["flights"].values() for k in ("origin", "destination")}
    cert = t["send_certificate"].fn(st, user_id=uid, amount=150)
    cid = re.fullmatch(r"Certificate (certificate_\d{7}) added to user \S+ with amount 150\.", cert).group(1)
    assert st["users"][uid]["payment_methods"][cid] == {"source": "certificate", "amount": 150, "id": cid}
    res = st["reservations"][rid]
    same = [{"flight_number": f["flight_number"], "date": f["date"]} for f in res["flights"]]
    with pytest.raises(ToolError, match="certificate cannot be used"):
        t["update_reservation_flights"].fn(st, reservation_id=rid, cabin="business", flights=same, payment_id=cid)
    with pytest.raises(ToolError, match="number of passengers does not match"):
        t["update_reservation_passengers"].fn(st, reservation_id=rid, passengers=res["passengers"] * 2)
    seats_before = [st["flights"][f["flight_number"]]["dates"][f["date"]]["available_seats"][res["cabin"]]
                    for f in res["flights"]]
    t["cancel_reservation"].fn(st, reservation_id=rid)
    seats_after = [st["flights"][f["flight_number"]]["dates"][f["date"]]["available_seats"][res["cabin"]]
                   for f in res["flights"]]
    assert [a - b for a, b in zip(seats_after, seats_before)] == [len(res["passengers"])] * len(seats_before)
    with pytest.raises(ToolError, match="already cancelled"):
        t["cancel_reservation"].fn(st, reservation_id=rid)
    from pipeline.domains.airline.tools import invoke
    with pytest.raises(ToolError, match="invalid arguments"):
        invoke(st, "get_user_details", {"user_id": uid, "extra": 1})
    with pytest.raises(ToolError, match="unknown tool"):
        invoke(st, "get_flight_status", {})
    assert json.loads(invoke(st, "get_reservation_details", {"reservation_id": rid}))["status"] == "cancelled"


def test_cabin_change_charges_the_difference():
    for seed in range(4):
        task = DOMAIN.generate_task("update_reservation_flights", seed)
        rid, pid = task.notes["reservation_id"], task.notes["payment_id"]
        after = solved(task)
        res = after["reservations"][rid]
        # as the logged system does, the recorded cabin stays as booked; the new cabin sets the prices
        assert res["cabin"] == task.notes["old_cabin"]
        prices = [task.initial_state["flights"][f["flight_number"]]["dates"][f["date"]]["prices"][task.notes["new_cabin"]]
                  for f in res["flights"]]
        if task.notes["new_cabin"] != task.notes["old_cabin"]:
            assert [f["price"] for f in res["flights"]] == prices
        diff = task.notes["price_difference"]
        if diff:
            assert res["payment_history"][-1] == {"payment_id": pid, "amount": diff}
        uid = res["user_id"]
        before_pm = task.initial_state["users"][uid]["payment_methods"][pid]
        after_pm = after["users"][uid]["payment_methods"][pid]
        if before_pm["source"] == "gift_card":
            assert after_pm["amount"] == before_pm["amount"] - diff


def test_booking_is_deterministic_and_debits_gift_cards():
    for seed in range(6):
        task = DOMAIN.generate_task("book_reservation", seed)
        a, b = solved(task), solved(task)
        assert a == b
        new = set(a["reservations"]) - set(task.initial_state["reservations"])
        assert len(new) == 1
        res = a["reservations"][new.pop()]
        assert res["created_at"] == NOW and res["nonfree_baggages"] == task.notes["nonfree_baggages"]
        uid, pid = res["user_id"], task.notes["payment_id"]
        pm0 = task.initial_state["users"][uid]["payment_methods"][pid]
        if pm0["source"] == "gift_card":
            assert a["users"][uid]["payment_methods"][pid]["amount"] == pm0["amount"] - task.notes["total_price"]


# ---- replay against the real logs ---------------------------------------------------------------

def _load_tau():
    if not (TAU / "airline" / "users.json").exists():
        pytest.skip(f"real tau-bench data not found at {TAU} (the shared folder is absent)")
    base = {k: json.loads((TAU / "airline" / f"{k}.json").read_text()) for k in ("users", "flights", "reservations")}
    runs = json.loads((TAU / "logs" / "airline-gpt4o-trajectories.json").read_text())
    return base, runs


def _isolate(state, base, name, args):
    """Copy-on-write: deep-copy every record the write call ``name(args)`` may change."""
    def own(table, key):
        if key in state[table] and state[table][key] is base[table].get(key):
            state[table][key] = copy.deepcopy(base[table][key])

    res = state["reservations"].get(args.get("reservation_id"))
    own("reservations", args.get("reservation_id"))
    for uid in (args.get("user_id"), res and res["user_id"]):
        own("users", uid)
    for f in list(args.get("flights", [])) + (res["flights"] if res else []):
        own("flights", f["flight_number"])


def _address_rename(obj):
    """The logs were recorded with an older database that named address.state ``province``."""
    if isinstance(obj, dict) and isinstance(obj.get("address"), dict) and "province" in obj["address"]:
        obj = {**obj, "address": {("state" if k == "province" else k): v for k, v in obj["address"].items()}}
    return obj


def test_real_database_has_the_same_record_shapes():
    base, _ = _load_tau()
    validate_state(base)


def test_replay_successful_logs_reads_match_the_real_system():
    base, runs = _load_tau()
    fingerprint = canonical_json(base)
    stats = {"read": [0, 0, 0], "search": [0, 0], "errors": [0, 0]}  # compared, equal(raw), equal(renamed)
    n_runs = 0
    for run in runs:
        if run.get("reward") != 1.0:
            continue
        n_runs += 1
        state = {k: dict(v) for k, v in base.items()}  # fresh copy of the database per run
        calls = {}
        for msg in run["traj"]:
            for tc in msg.get("tool_calls") or []:
                calls[tc["id"]] = tc
            if msg.get("role") != "tool":
                continue
            fn = calls[msg["tool_call_id"]]["function"]
            name, args = fn["name"], json.loads(fn["arguments"])
            if name in DOMAIN.write_tools:
                _isolate(state, base, name, args)
            try:
                got = DOMAIN.tools[name].fn(state, **args)
            except ToolError as exc:
                got = f"Error: {exc}"
            logged = msg["content"]
            if logged.startswith("Error:"):
                stats["errors"][0] += 1
                stats["errors"][1] += got == logged
                continue
            if name in ("get_user_details", "get_reservation_details"):
                stats["read"][0] += 1
                if got.startswith("Error:"):
                    continue
                stats["read"][1] += json.loads(got) == json.loads(logged)
                stats["read"][2] += _address_rename(json.loads(got)) == _address_rename(json.loads(logged))
            elif name.startswith("search_"):
                stats["search"][0] += 1
                stats["search"][1] += json.loads(got) == json.loads(logged)
    assert canonical_json(base) == fingerprint, "replay mutated the shared database copy"
    n, raw, renamed = stats["read"]
    print(f"\nairline replay over {n_runs} successful runs: reads {renamed}/{n} = {renamed / n:.1%} equal "
          f"({raw}/{n} = {raw / n:.1%} before renaming address.province->state); searches "
          f"{stats['search'][1]}/{stats['search'][0]} equal; logged errors reproduced "
          f"{stats['errors'][1]}/{stats['errors'][0]}")
    assert n_runs >= 40 and n >= 100
    assert renamed / n >= 0.9
    assert stats["search"][1] / stats["search"][0] >= 0.9


# ---- variants, skills, paraphrase variety, leaks ------------------------------------------------

ALL_VARIANTS = [(k, None) for k in sorted(EXPECTED_KINDS)] + [
    (k, v) for k in sorted(EXPECTED_KINDS) for v in DOMAIN.variants_for_kind(k)]


def test_skills_deciding_rules_and_variants_are_declared():
    from pipeline.skills import SKILLS

    rule_ids = {r.rule_id for r in DOMAIN.rules}
    for kind in EXPECTED_KINDS:
        assert DOMAIN.skills_for_kind(kind) and set(DOMAIN.skills_for_kind(kind)) <= set(SKILLS)
        assert set(DOMAIN.deciding_rules(kind)) <= rule_ids
        assert [f"rule:{r}" for r in DOMAIN.deciding_rules(kind)] == DOMAIN.variants_for_kind(kind)
    assert "airline.cancel.eligibility" in DOMAIN.deciding_rules("cancel_reservation")
    assert DOMAIN.variant_outcome("cancel_reservation", "rule:airline.cancel.unflown") == "transfer"
    assert DOMAIN.identity_tools <= set(DOMAIN.read_tools)
    with pytest.raises(ValueError):
        DOMAIN.skills_for_kind("teleport")
    with pytest.raises(ValueError):
        DOMAIN.generate_task("cancel_reservation", 1, variant="rule:airline.nope")


@pytest.mark.parametrize("kind,variant", ALL_VARIANTS)
def test_variants_keep_the_rule_and_vary_the_values(kind, variant):
    """Same seed, same task; across seeds the varied values change while the outcome and the
    deciding rule stay; a refusal/transfer reference leaves the state unchanged."""
    a = DOMAIN.generate_task(kind, 3, variant=variant)
    assert a == DOMAIN.generate_task(kind, 3, variant=variant)
    tasks = [DOMAIN.generate_task(kind, s, variant=variant) for s in range(8)]
    assert len({t.instruction for t in tasks}) == 8
    assert {t.expected_outcome for t in tasks} == {DOMAIN.variant_outcome(kind, variant)}
    if variant:  # the deciding rule is fixed (base flight tasks have two scenarios with their own rules)
        assert {tuple(t.notes["rule_ids"]) for t in tasks} == {tuple(a.notes["rule_ids"])}
    for t in tasks:
        final = solved(t)
        assert (final == t.initial_state) == (t.expected_outcome != "action")
        if variant:
            assert variant.split(":", 1)[1] in t.notes["rule_ids"] and t.variant == variant
            assert t.expected_outcome in t.skills
            names = [c["name"] for c in t.reference_solution]
            assert ("transfer_to_human_agents" in names) == (t.expected_outcome == "transfer")


def test_variants_vary_passengers_cabins_memberships_and_payments():
    seen = {"cabin": set(), "membership": set(), "insurance": set(), "passengers": set()}
    for s in range(20):
        t = DOMAIN.generate_task("cancel_reservation", s, variant="rule:airline.cancel.eligibility")
        res = t.initial_state["reservations"][t.notes["reservation_id"]]
        user = t.initial_state["users"][res["user_id"]]
        seen["cabin"].add(res["cabin"])
        seen["membership"].add(user["membership"])
        seen["insurance"].add(res["insurance"])
        seen["passengers"].add(len(res["passengers"]))
        assert not R.cancellation_allowed(t.initial_state, res["reservation_id"], t.notes["reason"])
    assert seen["cabin"] == {"basic_economy", "economy"} and len(seen["membership"]) == 3
    assert seen["insurance"] == {"yes", "no"} and len(seen["passengers"]) >= 2


@pytest.mark.parametrize("kind,variant", ALL_VARIANTS)
def test_paraphrase_variety_and_no_answer_leak(kind, variant):
    """At least three request templates per kind/variant over seeds; no value only the tools
    reveal (must_discover) in the instruction; a refusal/transfer instruction does not give away
    the facts that decide it (cabin, insurance)."""
    from pipeline.domains.airline.generator import leaked_values

    templates, requests = set(), set()
    for s in range(30):
        t = DOMAIN.generate_task(kind, s, variant=variant)
        templates.add(t.notes["template"])
        assert not leaked_values(t.instruction, [str(v) for v in t.notes.get("must_discover", [])]), t.instruction
        if variant and kind != "book_reservation":  # a booking request names its cabin and insurance
            text = t.instruction.lower()
            assert "economy" not in text and "insurance" not in text and "insured" not in text, t.instruction
            for call in t.notes["forbidden_calls"]:  # computed values of the forbidden write stay hidden
                for key in ("amount", "payment_id"):
                    if key in call["arguments"]:
                        assert not leaked_values(t.instruction, [str(call["arguments"][key])])
    assert len(templates) >= 3, (kind, variant, templates)


def test_kind_for_intent_and_state_from_log():
    assert DOMAIN.kind_for_intent("Hi, I'd like to cancel my trip please") == "cancel_reservation"
    assert DOMAIN.kind_for_intent("Can I add a checked bag?") == "update_reservation_baggages"
    assert DOMAIN.kind_for_intent("I want to change my flight to Friday") == "update_reservation_flights"
    assert DOMAIN.kind_for_intent("what's the weather like") is None
    t = DOMAIN.generate_task("cancel_reservation", 2)
    state = copy.deepcopy(t.initial_state)
    calls = []
    for c in t.reference_solution:
        out = DOMAIN.tools[c["name"]].fn(state, **copy.deepcopy(c["arguments"]))
        calls.append({"name": c["name"], "arguments": c["arguments"], "ok": True, "result": out})
    seen = DOMAIN.state_from_log(calls)
    rid = t.notes["reservation_id"]
    assert seen["reservations"][rid] == t.initial_state["reservations"][rid]  # as read before the write
    assert set(seen["users"]) == {t.initial_state["reservations"][rid]["user_id"]}
    assert DOMAIN.state_from_log([{"name": "get_user_details", "arguments": {}, "ok": True, "result": "nope"}]) == {
        "users": {}, "reservations": {}, "flights": {}}
