"""Airline task kind ``update_reservation_baggages``: Add checked bags to a reservation (and the variant that asks to remove some).

``generate(fac)`` builds one instance with an :class:`~pipeline.domains.airline.entities.AirlineFactory`
and returns ``(instruction, later customer turns, reference solution, notes)``; ``VARIANTS`` maps each
rule-decided variant id to ``(generator, expected outcome, instance skills)``; ``SKILLS``,
``REQUIREMENTS`` and ``SUCCESS`` describe the kind (:mod:`pipeline.domains.airline.generator` runs them).
"""
from __future__ import annotations

from typing import Any, Callable

from .. import rules as R
from ..entities import AirlineFactory
from ..state import CABINS
from ..tools import BAG_FEE
from .common import (
    _pick_payment, _ask, _pay_phrase, _opening, _CONSENT, _LATER, _INSIST, _lookup, _other_trips,
    _distractor_flights, _shuffle_reservations,
)

KIND = "update_reservation_baggages"
#: Skills every task of the kind exercises (ids of pipeline.skills.SKILLS).
SKILLS: tuple[str, ...] = ("identity_lookup", "policy_reading", "modification", "refund_payment",
    "confirmation")
#: What the initial state of a task contains (human-readable).
REQUIREMENTS: dict[str, Any] = {
    "users": 1, "user_reservations": "1-3; the target is unflown", "payment_methods": "a credit card, or "
    "one gift card whose balance covers the bag fee", "flights": "the reservations' flights",
}
#: The final state that counts as success.
SUCCESS = (
    "The named reservation has the requested new total bags, nonfree bags per the "
    "membership/cabin allowance, and the bag fee charged to the named payment "
    "method; nothing else changed."
)


def generate(fac: AirlineFactory) -> tuple[str, list[str], list[dict], dict]:
    rng = fac.rng
    use_gift = rng.random() < 0.35
    uid = fac.user(gift_cards=1 if use_gift else rng.choice([0, 0, 2]))
    user = fac.state["users"][uid]
    _other_trips(fac, uid)
    cabin = rng.choice(CABINS)
    n = rng.choice([1, 1, 2, 3])
    allowance = R.free_bags(user["membership"], cabin) * n
    t0 = rng.randint(max(0, allowance - 2), allowance + 1)
    rid = fac.trip(uid, cabin=cabin, n_passengers=n, total_baggages=t0)
    res = fac.state["reservations"][rid]
    add = rng.randint(1, 3)
    new_total = t0 + add
    new_nonfree = R.nonfree_bags(user["membership"], cabin, n, new_total)
    fee = BAG_FEE * max(0, new_nonfree - res["nonfree_baggages"])
    pid = _pick_payment(user, rng, use_gift, fee)
    _distractor_flights(fac)
    _shuffle_reservations(fac, uid)
    bags = "bag" if add == 1 else "bags"
    instruction = " ".join([
        _opening(rng, uid),
        _ask(fac, [f"I'd like to add {add} checked {bags} to reservation {rid}.",
                    f"Could you add {add} more checked {bags} to my booking {rid}?",
                    f"We're bringing more luggage: please add {add} checked {bags} to reservation {rid}."]),
        rng.choice([f"If there's any fee, charge it to {_pay_phrase(user['payment_methods'][pid])}.",
                    f"Please use {_pay_phrase(user['payment_methods'][pid])} for any charges."]),
        rng.choice(_CONSENT),
    ])
    reference = [
        *_lookup(uid, rid),
        {"name": "update_reservation_baggages",
         "arguments": {"reservation_id": rid, "total_baggages": new_total, "nonfree_baggages": new_nonfree,
                       "payment_id": pid}},
    ]
    notes = {"reservation_id": rid, "membership": user["membership"], "cabin": cabin, "passengers": n,
             "free_per_passenger": R.free_bags(user["membership"], cabin), "old_total": t0,
             "old_nonfree": res["nonfree_baggages"], "added": add, "new_total": new_total,
             "new_nonfree": new_nonfree, "fee": fee, "payment_id": pid,
             "must_discover": [str(fee), pid] if fee else [pid],
             "rule_ids": ["airline.book.baggage", "airline.modify.baggage", "airline.general.confirm"],
             "decided_by": "nonfree bags = max(0, total - free allowance x passengers); 50 dollars each new one"}
    return " ".join(instruction.split()), list(rng.choice(_LATER)), reference, notes


def _var_baggage_remove(fac: AirlineFactory) -> tuple[str, list[str], list[dict], dict]:
    """Request to remove checked bags (rule airline.modify.baggage: add only): refuse."""
    rng = fac.rng
    uid = fac.user()
    _other_trips(fac, uid)
    t0 = rng.randint(2, 5)
    rid = fac.trip(uid, total_baggages=t0)
    res = fac.state["reservations"][rid]
    user = fac.state["users"][uid]
    remove = rng.randint(1, t0 - 1)
    new_total = t0 - remove
    new_nonfree = R.nonfree_bags(user["membership"], res["cabin"], len(res["passengers"]), new_total)
    pid = res["payment_history"][0]["payment_id"]
    if user["payment_methods"][pid]["source"] == "certificate":  # pragma: no cover - trips pay by card
        pid = fac.add_credit_card(uid)
    _distractor_flights(fac)
    _shuffle_reservations(fac, uid)
    assert not R.baggage_change_allowed(res, new_total)
    bags = "bag" if remove == 1 else "bags"
    instruction = " ".join([
        _opening(rng, uid),
        _ask(fac, [f"We're packing lighter than planned: please remove {remove} checked {bags} from reservation "
                   f"{rid}.",
                   f"I'd like to take {remove} checked {bags} off my booking {rid} and get refunded for them.",
                   f"Can you reduce the checked bags on reservation {rid} to {new_total}?",
                   f"Please drop {remove} of the checked {bags} on {rid}; we don't need them anymore."]),
        rng.choice(_INSIST),
    ])
    reference = _lookup(uid, rid)
    forbidden = [{"name": "update_reservation_baggages",
                  "arguments": {"reservation_id": rid, "total_baggages": new_total,
                                "nonfree_baggages": min(new_nonfree, res["nonfree_baggages"]), "payment_id": pid}}]
    notes = {"reservation_id": rid, "old_total": t0, "requested_total": new_total,
             "must_discover": [pid], "rule_ids": ["airline.modify.baggage", "airline.general.deny"],
             "forbidden_calls": forbidden, "decided_by": "checked bags can be added, never removed"}
    return " ".join(instruction.split()), ["So you can't remove them at all?"], reference, notes


#: Rule-decided variant id -> (generator, expected outcome, instance skills); the id names the rule
#: that decides the outcome.
VARIANTS: dict[str, tuple[Callable[[AirlineFactory], tuple], str, tuple[str, ...]]] = {
    "rule:airline.modify.baggage":
        (_var_baggage_remove, "refusal", ("identity_lookup", "policy_reading", "refusal")),
}
