"""Airline task kind ``send_certificate``: Compensate a customer whose flight the airline cancelled with a certificate (and the variant that is not eligible).

``generate(fac)`` builds one instance with an :class:`~pipeline.domains.airline.entities.AirlineFactory`
and returns ``(instruction, later customer turns, reference solution, notes)``; ``VARIANTS`` maps each
rule-decided variant id to ``(generator, expected outcome, instance skills)``; ``SKILLS``,
``REQUIREMENTS`` and ``SUCCESS`` describe the kind (:mod:`pipeline.domains.airline.generator` runs them).
"""
from __future__ import annotations

from typing import Any, Callable

from .. import rules as R
from ..entities import DATE_WINDOW, TODAY, AirlineFactory
from .common import (
    _ask, _month_day, _opening, _lookup, _other_trips, _distractor_flights, _shuffle_reservations,
)

KIND = "send_certificate"
#: Skills every task of the kind exercises (ids of pipeline.skills.SKILLS).
SKILLS: tuple[str, ...] = ("identity_lookup", "policy_reading", "creation", "confirmation")
#: What the initial state of a task contains (human-readable).
REQUIREMENTS: dict[str, Any] = {
    "users": 1, "user_reservations": "1-3; the target has a flight the airline cancelled and the customer "
    "is silver/gold, insured, or in business", "flights": "the target's flight with status cancelled",
}
#: The final state that counts as success.
SUCCESS = (
    "The user's profile holds one new certificate worth 100 dollars per passenger of the "
    "affected reservation; no reservation changed."
)


def _cancelled_past_trip(fac: AirlineFactory, uid: str, cabin: str,
                         insurance: str) -> tuple[str, dict, dict, str]:
    """A one-way nonstop trip of ``uid`` whose flight the airline cancelled on a past date (the
    customer already travelled otherwise): the compensation setting. Returns ``(reservation_id,
    reservation, its segment, the cancelled date)``."""
    rid = fac.trip(uid, cabin=cabin, insurance=insurance, flight_type="one_way", stops=0)
    res = fac.state["reservations"][rid]
    seg = res["flights"][0]
    new_date = fac.rng.choice([d for d in DATE_WINDOW if d < TODAY])
    seg["date"] = new_date
    res["created_at"] = fac.created_at(False, before=new_date)
    fac.cancel_flight_date(seg["flight_number"], new_date)
    return rid, res, seg, new_date


def generate(fac: AirlineFactory) -> tuple[str, list[str], list[dict], dict]:
    rng = fac.rng
    basis = rng.choice(["membership", "insurance", "business"])
    membership = rng.choice(["silver", "gold"]) if basis == "membership" else "regular"
    uid = fac.user(membership=membership)
    _other_trips(fac, uid)
    cabin = "business" if basis == "business" else rng.choice(["basic_economy", "economy"])
    insurance = "yes" if basis == "insurance" else "no"
    rid, res, seg, new_date = _cancelled_past_trip(fac, uid, cabin, insurance)
    n = len(res["passengers"])
    amount = R.compensation_amount(n, "cancelled")
    assert R.compensation_eligible(fac.state, uid, rid)
    _distractor_flights(fac)
    _shuffle_reservations(fac, uid)
    instruction = " ".join([
        _opening(rng, uid),
        _ask(fac, [f"My flight {seg['flight_number']} on {_month_day(new_date)} (reservation {rid}) was cancelled "
                    f"by the airline and I had to make other arrangements.",
                    f"The airline cancelled flight {seg['flight_number']} of my reservation {rid} on "
                    f"{_month_day(new_date)}, which ruined my plans.",
                   f"I'm writing about reservation {rid}: the airline cancelled my flight {seg['flight_number']} on "
                   f"{_month_day(new_date)} and I had to find another way to get there."]),
        "I don't want to change or cancel anything, but I'm unhappy and I'd like some compensation for this.",
        "If you can offer a certificate, yes, please go ahead and add it to my account.",
    ])
    reference = [
        *_lookup(uid, rid),
        {"name": "send_certificate", "arguments": {"user_id": uid, "amount": amount}},
    ]
    notes = {"reservation_id": rid, "basis": basis, "membership": membership, "cabin": cabin,
             "insurance": insurance, "passengers": n, "cancelled_flight": seg["flight_number"],
             "cancelled_date": new_date, "amount": amount, "must_discover": [str(amount)],
             "rule_ids": ["airline.compensation.cancelled_flight", "airline.compensation.limits",
                          "airline.general.confirm"],
             "decided_by": f"eligible through {basis}; 100 dollars per passenger x {n}"}
    return " ".join(instruction.split()), ["Yes, I accept the certificate."], reference, notes


def _var_certificate_not_eligible(fac: AirlineFactory) -> tuple[str, list[str], list[dict], dict]:
    """Compensation request of a regular member without insurance in (basic) economy whose flight
    the airline cancelled (rule airline.compensation.limits): no certificate."""
    rng = fac.rng
    uid = fac.user(membership="regular")
    _other_trips(fac, uid)
    rid, res, seg, new_date = _cancelled_past_trip(fac, uid, rng.choice(["basic_economy", "economy"]), "no")
    n = len(res["passengers"])
    _distractor_flights(fac)
    _shuffle_reservations(fac, uid)
    assert not R.compensation_eligible(fac.state, uid, rid)
    instruction = " ".join([
        _opening(rng, uid),
        _ask(fac, [f"My flight {seg['flight_number']} on {_month_day(new_date)} (reservation {rid}) was cancelled "
                   f"by the airline and I had to make other arrangements.",
                   f"The airline cancelled flight {seg['flight_number']} of my reservation {rid} on "
                   f"{_month_day(new_date)}, which ruined my plans.",
                   f"I'm writing about reservation {rid}: you cancelled my flight {seg['flight_number']} on "
                   f"{_month_day(new_date)} and I had to find another way to get there."]),
        "I'm unhappy and I'd like some compensation for this, a certificate for example.",
    ])
    reference = _lookup(uid, rid)
    forbidden = [{"name": "send_certificate", "arguments": {"user_id": uid, "amount": R.compensation_amount(n)}}]
    notes = {"reservation_id": rid, "membership": "regular", "cabin": res["cabin"], "insurance": "no",
             "passengers": n, "must_discover": [], "forbidden_calls": forbidden,
             "rule_ids": ["airline.compensation.limits", "airline.general.deny"],
             "decided_by": "regular member, no insurance, (basic) economy: never compensated"}
    return " ".join(instruction.split()), ["So I get nothing at all?"], reference, notes


#: Rule-decided variant id -> (generator, expected outcome, instance skills); the id names the rule
#: that decides the outcome.
VARIANTS: dict[str, tuple[Callable[[AirlineFactory], tuple], str, tuple[str, ...]]] = {
    "rule:airline.compensation.limits":
        (_var_certificate_not_eligible, "refusal", ("identity_lookup", "policy_reading", "refusal")),
}
