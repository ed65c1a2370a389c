"""Building blocks of the airline task generators: how a customer words a request, pays and
confirms, and the reads and distractor records every task kind shares."""
from __future__ import annotations

import datetime as _dt
import random
from typing import Any

from ..entities import AirlineFactory
from ..state import AIRPORTS


_CABIN_WORDS = {"basic_economy": "basic economy", "economy": "economy", "business": "business"}


def _pick_payment(user: dict, rng, use_gift: bool, amount: int) -> str:
    """The profile payment id a task pays with: the user's gift card, funded with ``amount``
    plus up to $200 so it covers the charge, or one of the user's credit cards."""
    if use_gift:
        pid = next(p for p, m in user["payment_methods"].items() if m["source"] == "gift_card")
        user["payment_methods"][pid]["amount"] = amount + rng.randint(0, 200)
        return pid
    return rng.choice(sorted(p for p, m in user["payment_methods"].items() if m["source"] == "credit_card"))


def _ask(fac: "AirlineFactory", options: list[str]) -> str:
    """Pick the request sentence of an instruction from ``options`` (paraphrase templates) with
    the task's seeded rng and remember its index in ``fac.template`` (the same rng use as
    ``rng.choice``, so adding this bookkeeping changed no generated task)."""
    i = fac.rng.randrange(len(options))
    fac.template = i
    return options[i]


def _month_day(date: str) -> str:
    d = _dt.date.fromisoformat(date)
    return f"{d.strftime('%B')} {d.day}"


def _pay_phrase(pm: dict[str, Any]) -> str:
    if pm["source"] == "credit_card":
        brand = {"visa": "Visa card", "mastercard": "Mastercard"}.get(pm["brand"], pm["brand"] + " card")
        return f"my {brand} ending in {pm['last_four']}"
    if pm["source"] == "gift_card":
        return "my gift card"
    return "my travel certificate"


def _place(code: str, rng: random.Random) -> str:
    city = AIRPORTS.get(code, code)
    ambiguous = code in ("JFK", "LGA", "EWR")
    return rng.choice([f"{city} ({code})", code] + ([] if ambiguous else [city]))


def _person(p: dict[str, str]) -> str:
    return f"{p['first_name']} {p['last_name']}"


def _opening(rng: random.Random, user_id: str) -> str:
    return rng.choice([
        f"Hi, my user id is {user_id}.",
        f"Hello! I'm {user_id} (that's my user id).",
        f"Hi there, this is user {user_id}.",
    ])


_CONSENT = ("Yes, please go ahead.", "You have my confirmation: yes, please go ahead.",
            "If that's possible, yes, please go ahead.")


_LATER = (["Yes, I confirm."], ["Yes, please proceed."], ["Yes, that's correct. Please go ahead."])


_INSIST = ("Please go ahead and do it.", "Can you do that for me?", "I'd like that done today, please.")


def _lookup(uid: str, rid: str) -> list[dict[str, Any]]:
    """The reads a reservation task's reference starts with: the customer's profile, then the
    reservation (fresh dicts on every call)."""
    return [{"name": "get_user_details", "arguments": {"user_id": uid}},
            {"name": "get_reservation_details", "arguments": {"reservation_id": rid}}]


def _other_trips(fac: AirlineFactory, uid: str, k_max: int = 2) -> None:
    for _ in range(fac.rng.randint(0, k_max)):
        fac.trip(uid, future=fac.rng.random() < 0.7)


def _distractor_flights(fac: AirlineFactory, k_max: int = 3) -> None:
    for _ in range(fac.rng.randint(2, k_max)):
        a, b = fac.airports(2)
        fac.flight(a, b)


def _shuffle_reservations(fac: AirlineFactory, uid: str) -> None:
    fac.rng.shuffle(fac.state["users"][uid]["reservations"])
