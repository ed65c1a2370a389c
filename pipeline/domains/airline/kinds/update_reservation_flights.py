"""Airline task kind ``update_reservation_flights``: Change a reservation's cabin on the same flights (and the basic-economy variant the policy forbids).

``generate(fac)`` builds one instance with an :class:`~pipeline.domains.airline.entities.AirlineFactory`
and returns ``(instruction, later customer turns, reference solution, notes)``; ``VARIANTS`` maps each
rule-decided variant id to ``(generator, expected outcome, instance skills)``; ``SKILLS``,
``REQUIREMENTS`` and ``SUCCESS`` describe the kind (:mod:`pipeline.domains.airline.generator` runs them).
"""
from __future__ import annotations

from typing import Any, Callable

from .. import rules as R
from ..entities import FUTURE_DATES, TODAY, AirlineFactory
from ..state import CABINS
from .common import (
    _CABIN_WORDS, _ask, _month_day, _pay_phrase, _opening, _CONSENT, _LATER, _INSIST, _lookup, _other_trips,
    _distractor_flights, _shuffle_reservations,
)

KIND = "update_reservation_flights"
#: Skills every task of the kind exercises (ids of pipeline.skills.SKILLS).
SKILLS: tuple[str, ...] = ("identity_lookup", "policy_reading", "search", "modification",
    "refund_payment", "multi_step", "confirmation")
#: What the initial state of a task contains (human-readable).
REQUIREMENTS: dict[str, Any] = {
    "users": 1, "user_reservations": "1-3; the target is unflown with every segment bookable in the new "
    "cabin", "payment_methods": "a credit card, or one gift card covering the difference",
    "flights": "the target's flights (available on their dates) plus unrelated ones",
}
#: The final state that counts as success.
SUCCESS = (
    "The named reservation keeps the same flights, repriced at the requested new cabin's "
    "current prices, with the difference charged to (or refunded to) the named "
    "payment method; nothing else changed (the reservation's recorded cabin field stays as "
    "booked: the tool, like the logged airline system, does not rewrite it)."
)


def _flight_payment(fac: AirlineFactory, uid: str, use_gift: bool, diff: float) -> str:
    """The payment id the customer names for a flight change: the only gift card (topped up to
    cover ``diff``) or one of the credit cards."""
    rng, user = fac.rng, fac.state["users"][uid]
    if use_gift:
        pid = next(p for p, m in user["payment_methods"].items() if m["source"] == "gift_card")
        user["payment_methods"][pid]["amount"] = max(0, diff) + rng.randint(0, 150)
        return pid
    return rng.choice(sorted(p for p, m in user["payment_methods"].items() if m["source"] == "credit_card"))


def generate(fac: AirlineFactory) -> tuple[str, list[str], list[dict], dict]:
    """Two scenarios: a cabin change on the same flights (any cabin, basic economy included), or
    a date change of one segment of an economy/business trip (same route, kept segments keep
    their price)."""
    rng = fac.rng
    scenario = "cabin_change" if rng.random() < 0.6 else "date_change"
    use_gift = rng.random() < 0.3
    uid = fac.user(gift_cards=1 if use_gift else 0)
    user = fac.state["users"][uid]
    _other_trips(fac, uid)
    if scenario == "cabin_change":
        old_cabin = rng.choice(["basic_economy", "basic_economy", "economy", "economy", "business"])
        new_cabin = rng.choice([c for c in CABINS if c != old_cabin])
        if old_cabin == "business" or rng.random() < 0.7:
            new_cabin = {"basic_economy": rng.choice(["economy", "business"]), "economy": "business",
                         "business": "economy"}[old_cabin]
        rid = fac.trip(uid, cabin=old_cabin)
    else:
        old_cabin = new_cabin = rng.choice(["economy", "business"])
        rid = fac.trip(uid, cabin=old_cabin, stops=0)
    res = fac.state["reservations"][rid]
    n = len(res["passengers"])
    new_flights = [{"flight_number": f["flight_number"], "date": f["date"]} for f in res["flights"]]
    searches = res["flights"]
    if scenario == "cabin_change":
        new_prices = []
        for seg in res["flights"]:
            day = fac.state["flights"][seg["flight_number"]]["dates"][seg["date"]]
            day["available_seats"][new_cabin] = max(day["available_seats"][new_cabin], n + rng.randint(0, 5))
            new_prices.append(day["prices"][new_cabin])
        diff = (sum(new_prices) - sum(f["price"] for f in res["flights"])) * n
        changed = None
    else:
        idx = len(res["flights"]) - 1  # the only segment of a one-way trip, the return of a round trip
        seg = res["flights"][idx]
        after = res["flights"][0]["date"] if idx else TODAY
        new_date = rng.choice([d for d in FUTURE_DATES if d > after and d != seg["date"]])
        new_flights[idx]["date"] = new_date
        flight = fac.state["flights"][seg["flight_number"]]
        day = flight["dates"][new_date]
        day["available_seats"][new_cabin] = max(day["available_seats"][new_cabin], n + rng.randint(0, 5))
        diff = (day["prices"][new_cabin] - seg["price"]) * n
        # another flight on the same route, so the departure time the customer names matters
        dep_h = int(flight["scheduled_departure_time_est"][:2])
        fac.flight(seg["origin"], seg["destination"], departure=f"{(dep_h + rng.randint(2, 6)) % 18 + 5:02d}:30")
        searches = [{**seg, "date": new_date}]
        changed = {"segment": idx, "flight_number": seg["flight_number"], "old_date": seg["date"],
                   "new_date": new_date, "departure": flight["scheduled_departure_time_est"][:5]}
        assert R.flight_change_allowed(fac.state, rid, new_flights)
    pid = _flight_payment(fac, uid, use_gift, diff)
    _distractor_flights(fac)
    _shuffle_reservations(fac, uid)
    pay = _pay_phrase(user["payment_methods"][pid])
    if scenario == "cabin_change":
        verb = "upgrade" if CABINS.index(new_cabin) > CABINS.index(old_cabin) else "change"
        ask = _ask(fac, [f"I'd like to {verb} my reservation {rid} to {_CABIN_WORDS[new_cabin]}, same flights.",
                          f"Can you move everyone on booking {rid} to {_CABIN_WORDS[new_cabin]} class? "
                          f"I want to keep the same flights.",
                          f"For reservation {rid}, please {verb} the cabin to {_CABIN_WORDS[new_cabin]} on all "
                          f"flights."])
    else:
        leg = "return flight" if changed["segment"] else "flight"
        ask = _ask(fac, [
            f"I need to move the {leg} of reservation {rid} from {_month_day(changed['old_date'])} to "
            f"{_month_day(changed['new_date'])}, on the same route and the same {changed['departure']} departure.",
            f"Could you change my {leg} on booking {rid} to {_month_day(changed['new_date'])}? I'd like the "
            f"direct flight leaving at {changed['departure']}, same cabin.",
            f"Something came up and I have to fly on {_month_day(changed['new_date'])} instead of "
            f"{_month_day(changed['old_date'])}: please move the {leg} of reservation {rid}, keeping the "
            f"{changed['departure']} departure and the same cabin.",
        ])
    instruction = " ".join([
        _opening(rng, uid), ask,
        rng.choice([f"Please use {pay} for the price difference.", f"Any difference can go on {pay}."]),
        rng.choice(_CONSENT),
    ])
    reference = [
        *_lookup(uid, rid),
        *[{"name": "search_direct_flight",
           "arguments": {"origin": f["origin"], "destination": f["destination"], "date": f["date"]}}
          for f in searches],
        {"name": "update_reservation_flights",
         "arguments": {"reservation_id": rid, "cabin": new_cabin, "flights": new_flights, "payment_id": pid}},
    ]
    if scenario == "cabin_change":
        rule_ids = ["airline.modify.cabin", "airline.modify.payment", "airline.general.confirm"]
        decided = ("cabin change on the same flights is allowed for every cabin, basic economy included; "
                   "difference = (current new-cabin prices - prices paid) x passengers")
    else:
        rule_ids = ["airline.modify.basic_economy", "airline.modify.same_route", "airline.modify.payment",
                    "airline.general.confirm"]
        decided = ("not basic economy, same origin/destination/trip type: flights may change; kept segments keep "
                   "their price; difference = (new price - price paid) x passengers")
    notes = {"scenario": scenario, "reservation_id": rid, "old_cabin": old_cabin, "new_cabin": new_cabin,
             "passengers": n, "changed_segment": changed, "price_difference": diff, "payment_id": pid,
             "must_discover": [str(abs(diff)), pid] if diff else [pid],
             "rule_ids": rule_ids, "decided_by": decided}
    return " ".join(instruction.split()), list(rng.choice(_LATER)), reference, notes


def _var_flights_basic_economy(fac: AirlineFactory) -> tuple[str, list[str], list[dict], dict]:
    """Date change of a basic economy booking (rule airline.modify.basic_economy): refuse."""
    rng = fac.rng
    uid = fac.user(gift_cards=0)
    _other_trips(fac, uid)
    rid = fac.trip(uid, cabin="basic_economy", stops=0, flight_type=rng.choice(["one_way", "round_trip"]))
    res = fac.state["reservations"][rid]
    idx = len(res["flights"]) - 1
    seg = res["flights"][idx]
    after = res["flights"][0]["date"] if idx else TODAY
    new_date = rng.choice([d for d in FUTURE_DATES if d > after and d != seg["date"]])
    new_flights = [{"flight_number": f["flight_number"], "date": f["date"]} for f in res["flights"]]
    new_flights[idx]["date"] = new_date
    pid = sorted(p for p, m in fac.state["users"][uid]["payment_methods"].items() if m["source"] == "credit_card")[0]
    _distractor_flights(fac)
    _shuffle_reservations(fac, uid)
    assert not R.flight_change_allowed(fac.state, rid, new_flights)
    leg = "return flight" if idx else "flight"
    pay = _pay_phrase(fac.state["users"][uid]["payment_methods"][pid])
    instruction = " ".join([
        _opening(rng, uid),
        _ask(fac, [f"I need to move the {leg} of reservation {rid} to {_month_day(new_date)}.",
                   f"Could you change my {leg} on booking {rid} to {_month_day(new_date)}? Same flight number.",
                   f"Something came up: I have to travel on {_month_day(new_date)} instead. Please change the "
                   f"{leg} of reservation {rid}.",
                   f"Please reschedule the {leg} of {rid} to {_month_day(new_date)}, same route."]),
        f"Any price difference can go on {pay}.",
        rng.choice(_INSIST),
    ])
    reference = _lookup(uid, rid)
    forbidden = [{"name": "update_reservation_flights",
                  "arguments": {"reservation_id": rid, "cabin": "basic_economy", "flights": new_flights,
                                "payment_id": pid}}]
    notes = {"reservation_id": rid, "cabin": "basic_economy", "segment": idx, "new_date": new_date,
             "must_discover": [seg["flight_number"]] if idx == 0 else [],
             "rule_ids": ["airline.modify.basic_economy", "airline.general.deny"], "forbidden_calls": forbidden,
             "decided_by": "basic economy flights cannot be changed (a cabin upgrade would be allowed)"}
    return " ".join(instruction.split()), ["Is there really no way to change the date?"], reference, notes


#: Rule-decided variant id -> (generator, expected outcome, instance skills); the id names the rule
#: that decides the outcome.
VARIANTS: dict[str, tuple[Callable[[AirlineFactory], tuple], str, tuple[str, ...]]] = {
    "rule:airline.modify.basic_economy":
        (_var_flights_basic_economy, "refusal", ("identity_lookup", "policy_reading", "refusal")),
}
