"""Airline task kind ``cancel_reservation``: Cancel a reservation the policy lets the customer cancel (and the variants where it does not).

``generate(fac)`` builds one instance with an :class:`~pipeline.domains.airline.entities.AirlineFactory`
and returns ``(instruction, later customer turns, reference solution, notes)``; ``VARIANTS`` maps each
rule-decided variant id to ``(generator, expected outcome, instance skills)``; ``SKILLS``,
``REQUIREMENTS`` and ``SUCCESS`` describe the kind (:mod:`pipeline.domains.airline.generator` runs them).
"""
from __future__ import annotations

from typing import Any, Callable

from .. import rules as R
from ..entities import DATE_WINDOW, FUTURE_DATES, TODAY, AirlineFactory
from ..state import CABINS
from .common import (
    _ask, _month_day, _opening, _CONSENT, _LATER, _INSIST, _lookup, _other_trips, _distractor_flights,
    _shuffle_reservations,
)

KIND = "cancel_reservation"
#: Skills every task of the kind exercises (ids of pipeline.skills.SKILLS).
SKILLS: tuple[str, ...] = ("identity_lookup", "policy_reading", "cancellation", "confirmation")
#: What the initial state of a task contains (human-readable).
REQUIREMENTS: dict[str, Any] = {
    "users": 1, "user_reservations": "1-3; the target is unflown and cancellable under "
    "airline.cancel.eligibility (booked within 24h, business, insured with a health/weather reason, or "
    "a flight cancelled by the airline)", "flights": "the target's flights plus unrelated ones",
}
#: The final state that counts as success.
SUCCESS = (
    "The named reservation has status cancelled with every payment refunded to its original "
    "method; nothing else changed."
)


def generate(fac: AirlineFactory) -> tuple[str, list[str], list[dict], dict]:
    rng = fac.rng
    scenario = rng.choice(["within_24h", "business", "insured_health", "insured_weather", "airline_cancelled"])
    uid = fac.user()
    kw: dict[str, Any] = {"future": True}
    if scenario == "within_24h":
        kw.update(within_24h=True, cabin=rng.choice(["basic_economy", "economy"]), insurance="no")
        reason, words = "change_of_plan", rng.choice(["my plans have changed", "there's been a change of plan",
                                                       "I changed my mind about the trip"])
    elif scenario == "business":
        kw.update(cabin="business")
        reason, words = "change_of_plan", rng.choice(["my plans have changed", "there's been a change of plan"])
    elif scenario.startswith("insured"):
        kw.update(cabin=rng.choice(["basic_economy", "economy"]), insurance="yes")
        if scenario == "insured_health":
            reason, words = "health", rng.choice(["I got sick and my doctor told me not to travel",
                                                  "I have a medical issue and can't travel",
                                                  "of health reasons: I'm in the hospital"])
        else:
            reason, words = "weather", rng.choice(["a hurricane is forecast at my destination",
                                                   "a severe snow storm is expected on my travel day"])
    else:
        kw.update(cabin=rng.choice(["basic_economy", "economy"]), insurance="no")
        reason, words = "airline_cancelled", "the airline cancelled my flight"
    _other_trips(fac, uid)
    rid = fac.trip(uid, **kw)
    res = fac.state["reservations"][rid]
    extra_reads: list[dict] = []
    if scenario == "airline_cancelled":
        seg = rng.choice(res["flights"])
        fac.cancel_flight_date(seg["flight_number"], seg["date"])
        words = f"the airline cancelled my flight {seg['flight_number']} on {_month_day(seg['date'])}"
        extra_reads.append({"name": "search_direct_flight",
                            "arguments": {"origin": seg["origin"], "destination": seg["destination"],
                                          "date": seg["date"]}})
    _distractor_flights(fac)
    _shuffle_reservations(fac, uid)
    assert R.cancellation_allowed(fac.state, rid, reason), scenario
    instruction = " ".join([
        _opening(rng, uid),
        _ask(fac, [f"I need to cancel my reservation {rid} because {words}.",
                    f"Please cancel reservation {rid}; the reason is that {words}.",
                    f"I'd like to cancel my booking {rid}: {words}."]),
        rng.choice(["I understand the refund goes back to my original payment method.", ""]),
        rng.choice(_CONSENT),
    ])
    reference = [
        *_lookup(uid, rid),
        *extra_reads,
        {"name": "cancel_reservation", "arguments": {"reservation_id": rid}},
    ]
    paid = sum(p["amount"] for p in res["payment_history"])
    notes = {"scenario": scenario, "reason": reason, "reservation_id": rid, "cabin": res["cabin"],
             "must_discover": [str(paid), *sorted({p["payment_id"] for p in res["payment_history"]})],
             "insurance": res["insurance"], "created_at": res["created_at"],
             "rule_ids": ["airline.cancel.eligibility", "airline.cancel.unflown", "airline.general.confirm"],
             "decided_by": f"cancellation allowed because: {scenario}"}
    return " ".join(instruction.split()), list(rng.choice(_LATER)), reference, notes


def _var_cancel_ineligible(fac: AirlineFactory) -> tuple[str, list[str], list[dict], dict]:
    """Cancel request for an (basic) economy booking outside 24 h, no airline cancellation, and
    either no insurance or a reason insurance does not cover (rule airline.cancel.eligibility)."""
    rng = fac.rng
    uid = fac.user(membership=rng.choice(["regular", "silver", "gold"]))  # tier makes no difference
    _other_trips(fac, uid)
    insurance = rng.choice(["no", "no", "yes"])
    rid = fac.trip(uid, future=True, cabin=rng.choice(["basic_economy", "economy"]), insurance=insurance)
    res = fac.state["reservations"][rid]
    reason, words = rng.choice([("change_of_plan", "my plans have changed"),
                                ("change_of_plan", "I no longer need the trip"),
                                ("other", "I found a cheaper option elsewhere"),
                                ("other", "my meeting was moved online")])
    _distractor_flights(fac)
    _shuffle_reservations(fac, uid)
    assert not R.cancellation_allowed(fac.state, rid, reason)
    instruction = " ".join([
        _opening(rng, uid),
        _ask(fac, [f"I want to cancel my reservation {rid} because {words}.",
                   f"Please cancel booking {rid}; {words}.",
                   f"I'd like a full cancellation of reservation {rid}. The reason: {words}.",
                   f"Could you cancel {rid} for me? Honestly, {words}."]),
        rng.choice(_INSIST),
    ])
    reference = _lookup(uid, rid)
    forbidden = [{"name": "cancel_reservation", "arguments": {"reservation_id": rid}}]
    notes = {"reservation_id": rid, "cabin": res["cabin"], "insurance": insurance, "reason": reason,
             "created_at": res["created_at"], "membership": fac.state["users"][uid]["membership"],
             "must_discover": sorted({p["payment_id"] for p in res["payment_history"]}),
             "rule_ids": ["airline.cancel.eligibility", "airline.general.deny"], "forbidden_calls": forbidden,
             "decided_by": "outside 24h, no airline cancellation, not business, not insured for this reason"}
    return " ".join(instruction.split()), ["I really want it cancelled. Are you sure you can't?"], reference, notes


def _var_cancel_flown(fac: AirlineFactory) -> tuple[str, list[str], list[dict], dict]:
    """Cancel request for a round trip whose outbound segment has already been flown: the agent
    cannot help and must transfer (rule airline.cancel.unflown)."""
    rng = fac.rng
    uid = fac.user()
    _other_trips(fac, uid)
    user = fac.state["users"][uid]
    a, b = fac.airports(2)
    out_date = rng.choice([d for d in DATE_WINDOW if d < TODAY])
    back_date = rng.choice(FUTURE_DATES[:-2])
    f1, f2 = fac.flight(a, b), fac.flight(b, a)
    cabin = rng.choice(CABINS)
    n = rng.choice([1, 1, 2])
    me = {**user["name"], "dob": user["dob"]}
    passengers = [me] + [fac.passenger() for _ in range(n - 1)]
    rid = fac.reservation(uid, [(f1, out_date), (f2, back_date)], cabin, passengers, "round_trip",
                          fac.created_at(False, before=out_date), rng.choice(["yes", "no"]),
                          rng.randint(0, 2))
    _distractor_flights(fac)
    _shuffle_reservations(fac, uid)
    assert not R.cancellation_allowed(fac.state, rid, "change_of_plan")
    instruction = " ".join([
        _opening(rng, uid),
        _ask(fac, [f"I already flew the first part of my trip, reservation {rid}, and now I want to cancel "
                   f"the rest of it and get my money back.",
                   f"Please cancel reservation {rid}. I took the outbound flight but I won't need the return.",
                   f"I need to cancel the return flight of booking {rid}; I'm already at my destination and "
                   f"staying longer.",
                   f"My plans changed after I arrived: cancel what's left of reservation {rid}, please."]),
        rng.choice(_INSIST),
    ])
    reference = [
        *_lookup(uid, rid),
        {"name": "transfer_to_human_agents",
         "arguments": {"summary": f"User {uid} wants to cancel reservation {rid}, whose first segment has "
                                  f"already been flown; the policy does not allow the agent to cancel it."}},
    ]
    notes = {"reservation_id": rid, "cabin": cabin, "flown_date": out_date, "return_date": back_date,
             "must_discover": [f1, f2], "rule_ids": ["airline.cancel.unflown", "airline.general.transfer"],
             "forbidden_calls": [{"name": "cancel_reservation", "arguments": {"reservation_id": rid}}],
             "decided_by": "a segment has been flown: cancellation impossible, transfer to a human"}
    return " ".join(instruction.split()), ["OK, please transfer me then."], reference, notes


#: Rule-decided variant id -> (generator, expected outcome, instance skills); the id names the rule
#: that decides the outcome.
VARIANTS: dict[str, tuple[Callable[[AirlineFactory], tuple], str, tuple[str, ...]]] = {
    "rule:airline.cancel.eligibility":
        (_var_cancel_ineligible, "refusal", ("identity_lookup", "policy_reading", "refusal")),
    "rule:airline.cancel.unflown":
        (_var_cancel_flown, "transfer", ("identity_lookup", "policy_reading", "transfer")),
}
