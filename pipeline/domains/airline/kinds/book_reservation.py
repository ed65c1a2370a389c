"""Airline task kind ``book_reservation``: A new one-way booking for the user (search, passengers, bags, insurance, payment).

``generate(fac)`` builds one instance with an :class:`~pipeline.domains.airline.entities.AirlineFactory`
and returns ``(instruction, later customer turns, reference solution, notes)``; ``VARIANTS`` maps each
rule-decided variant id to ``(generator, expected outcome, instance skills)``; ``SKILLS``,
``REQUIREMENTS`` and ``SUCCESS`` describe the kind (:mod:`pipeline.domains.airline.generator` runs them).
"""
from __future__ import annotations

from typing import Any, Callable

from .. import rules as R
from ..entities import FUTURE_DATES, AirlineFactory
from ..state import CABINS
from ..tools import BAG_FEE, INSURANCE_FEE
from .common import (
    _CABIN_WORDS, _pick_payment, _ask, _month_day, _pay_phrase, _place, _person, _opening, _CONSENT, _LATER,
    _other_trips, _distractor_flights, _shuffle_reservations,
)

KIND = "book_reservation"
#: Skills every task of the kind exercises (ids of pipeline.skills.SKILLS).
SKILLS: tuple[str, ...] = ("identity_lookup", "policy_reading", "search", "creation", "refund_payment",
    "multi_step", "confirmation")
#: What the initial state of a task contains (human-readable).
REQUIREMENTS: dict[str, Any] = {
    "users": 1, "user_reservations": "1-2 unrelated", "payment_methods": "a credit card or one gift card "
    "covering the total", "flights": "1-2 bookable direct flights origin->destination on the date with "
    "enough seats in the cabin, plus unrelated flights",
}
#: The final state that counts as success.
SUCCESS = (
    "A new one-way reservation exists for the user on the requested direct flight, date and "
    "cabin with exactly the named passengers, the requested total bags and the nonfree bags "
    "the allowance implies, the requested insurance, paid in full by the named payment method; "
    "nothing else changed."
)


def generate(fac: AirlineFactory) -> tuple[str, list[str], list[dict], dict]:
    rng = fac.rng
    use_gift = rng.random() < 0.3
    uid = fac.user(gift_cards=1 if use_gift else rng.choice([0, 2]))
    user = fac.state["users"][uid]
    _other_trips(fac, uid, k_max=1)
    if not user["reservations"]:
        fac.trip(uid, future=rng.random() < 0.5)
    origin, destination = fac.airports(2)
    date = rng.choice(FUTURE_DATES[1:-2])
    cabin = rng.choice(CABINS)
    n_flights = rng.choice([1, 2])
    hours = rng.sample(range(6, 20), n_flights)
    flights = [fac.flight(origin, destination, departure=f"{h:02d}:00") for h in hours]
    fno = rng.choice(flights)
    n = rng.choice([1, 1, 2, 3])
    me = {**user["name"], "dob": user["dob"]}
    companions = [dict(p) for p in user["saved_passengers"]][: n - 1]
    while len(companions) < n - 1:
        companions.append(fac.passenger())
    passengers = [me, *companions]
    day = fac.state["flights"][fno]["dates"][date]
    day["available_seats"][cabin] = max(day["available_seats"][cabin], n + rng.randint(0, 4))
    allowance = R.free_bags(user["membership"], cabin) * n
    bags = rng.randint(0, allowance + 2)
    nonfree = R.nonfree_bags(user["membership"], cabin, n, bags)
    insurance = rng.choice(["yes", "no"])
    total = day["prices"][cabin] * n + (INSURANCE_FEE * n if insurance == "yes" else 0) + BAG_FEE * nonfree
    pid = _pick_payment(user, rng, use_gift, total)
    _distractor_flights(fac)
    _shuffle_reservations(fac, uid)
    dep = fac.state["flights"][fno]["scheduled_departure_time_est"][:5]
    which = f", the direct flight departing at {dep}" if n_flights > 1 else ", a direct flight"
    who = "just me" if n == 1 else "me and " + " and ".join(
        f"{_person(p)} (born {p['dob']})" for p in companions)
    bag_text = "no checked bags" if bags == 0 else f"{bags} checked bag{'s' if bags > 1 else ''} in total"
    instruction = " ".join([
        _opening(rng, uid),
        _ask(fac, [f"I want to book a one-way trip from {_place(origin, rng)} to {_place(destination, rng)} "
                    f"on {_month_day(date)}{which}, in {_CABIN_WORDS[cabin]}.",
                    f"Please book me a one-way {_CABIN_WORDS[cabin]} ticket from {_place(origin, rng)} to "
                    f"{_place(destination, rng)} on {_month_day(date)}{which}.",
                   f"I'm looking to fly one way from {_place(origin, rng)} to {_place(destination, rng)} on "
                   f"{_month_day(date)}{which}; {_CABIN_WORDS[cabin]} cabin, please."]),
        f"Passengers: {who}; my own details are {_person(me)}, born {me['dob']}.",
        f"We'll have {bag_text}.",
        "I do want travel insurance." if insurance == "yes" else "No travel insurance, thanks.",
        f"Please pay the whole amount with {_pay_phrase(user['payment_methods'][pid])}.",
        rng.choice(_CONSENT),
    ])
    reference = [
        {"name": "get_user_details", "arguments": {"user_id": uid}},
        {"name": "search_direct_flight", "arguments": {"origin": origin, "destination": destination, "date": date}},
        {"name": "book_reservation", "arguments": {
            "user_id": uid, "origin": origin, "destination": destination, "flight_type": "one_way",
            "cabin": cabin, "flights": [{"flight_number": fno, "date": date}], "passengers": passengers,
            "payment_methods": [{"payment_id": pid, "amount": total}], "total_baggages": bags,
            "nonfree_baggages": nonfree, "insurance": insurance}},
    ]
    notes = {"origin": origin, "destination": destination, "date": date, "flight_number": fno,
             "other_flights_same_day": [f for f in flights if f != fno],
             "cabin": cabin, "passengers": n, "membership": user["membership"], "total_baggages": bags,
             "nonfree_baggages": nonfree, "insurance": insurance, "total_price": total, "payment_id": pid,
             "must_discover": [str(total), fno, pid],
             "rule_ids": ["airline.book.passengers", "airline.book.baggage", "airline.book.insurance",
                          "airline.book.payment", "airline.general.confirm"],
             "decided_by": "total = price x passengers + 30 x passengers if insured + 50 x nonfree bags"}
    return " ".join(instruction.split()), list(rng.choice(_LATER)), reference, notes


def _var_book_two_cards(fac: AirlineFactory) -> tuple[str, list[str], list[dict], dict]:
    """Booking the customer wants split across two credit cards (rule airline.book.payment: at
    most one credit card per booking): refuse; the tools would accept the split."""
    rng = fac.rng
    uid = fac.user(credit_cards=2, gift_cards=0, certificates=0)
    user = fac.state["users"][uid]
    _other_trips(fac, uid, k_max=1)
    origin, destination = fac.airports(2)
    date = rng.choice(FUTURE_DATES[1:-2])
    cabin = rng.choice(CABINS)
    fno = fac.flight(origin, destination, departure=f"{rng.randint(6, 19):02d}:00")
    n = rng.choice([1, 2])
    me = {**user["name"], "dob": user["dob"]}
    companions = [dict(p) for p in user["saved_passengers"]][: n - 1]
    while len(companions) < n - 1:
        companions.append(fac.passenger())
    passengers = [me, *companions]
    day = fac.state["flights"][fno]["dates"][date]
    day["available_seats"][cabin] = max(day["available_seats"][cabin], n + rng.randint(0, 4))
    insurance = rng.choice(["yes", "no"])
    total = day["prices"][cabin] * n + (INSURANCE_FEE * n if insurance == "yes" else 0)
    cards = sorted(p for p, m in user["payment_methods"].items() if m["source"] == "credit_card")
    first = total // 2
    _distractor_flights(fac)
    _shuffle_reservations(fac, uid)
    assert not R.payment_methods_allowed(user, [{"payment_id": c} for c in cards])
    c1, c2 = (_pay_phrase(user["payment_methods"][c]) for c in cards)
    who = "just me" if n == 1 else "me and " + " and ".join(f"{_person(p)} (born {p['dob']})" for p in companions)
    instruction = " ".join([
        _opening(rng, uid),
        f"I want to book a one-way {_CABIN_WORDS[cabin]} trip from {_place(origin, rng)} to "
        f"{_place(destination, rng)} on {_month_day(date)}, the direct flight.",
        f"Passengers: {who}; my own details are {_person(me)}, born {me['dob']}. No checked bags.",
        "I do want travel insurance." if insurance == "yes" else "No travel insurance, thanks.",
        _ask(fac, [f"Please split the payment in half between {c1} and {c2}.",
                   f"I need the cost divided between two cards: {c1} and {c2}, half each.",
                   f"Charge half to {c1} and the other half to {c2}; I don't want it all on one card.",
                   f"Pay with both of my credit cards please, {c1} and {c2}, split evenly."]),
        "If it can't be split like that, don't book it.",
    ])
    reference = [
        {"name": "get_user_details", "arguments": {"user_id": uid}},
        {"name": "search_direct_flight", "arguments": {"origin": origin, "destination": destination, "date": date}},
    ]
    forbidden = [{"name": "book_reservation", "arguments": {
        "user_id": uid, "origin": origin, "destination": destination, "flight_type": "one_way", "cabin": cabin,
        "flights": [{"flight_number": fno, "date": date}], "passengers": passengers,
        "payment_methods": [{"payment_id": cards[0], "amount": first}, {"payment_id": cards[1], "amount": total - first}],
        "total_baggages": 0, "nonfree_baggages": 0, "insurance": insurance}}]
    notes = {"flight_number": fno, "cabin": cabin, "passengers": n, "insurance": insurance, "total_price": total,
             "cards": cards, "must_discover": [str(total), str(first), str(total - first), fno, *cards],
             "rule_ids": ["airline.book.payment", "airline.general.deny"], "forbidden_calls": forbidden,
             "decided_by": "at most one credit card per booking"}
    return " ".join(instruction.split()), ["No, I only want it split across both cards."], reference, notes


#: Rule-decided variant id -> (generator, expected outcome, instance skills); the id names the rule
#: that decides the outcome.
VARIANTS: dict[str, tuple[Callable[[AirlineFactory], tuple], str, tuple[str, ...]]] = {
    "rule:airline.book.payment":
        (_var_book_two_cards, "refusal", ("identity_lookup", "policy_reading", "search", "refund_payment",
        "refusal")),
}
