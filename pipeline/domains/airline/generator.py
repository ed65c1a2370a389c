"""Seeded generators of fictional airline entities and of task instances.

Entities come from ``Faker`` (seeded with ``seed_instance``) and ``random.Random(seed)``; no
wall-clock, no global random state, so the same seed always gives the same output. An optional
``denylist(value) -> bool`` rejects personal values (full name "First Last", email, date of
birth, address1, zip, user id, payment id, reservation id): a rejected value is redrawn, which
keeps fictional people from coinciding with real people seen in the logs.

Task generators (:func:`generate_task`) build, for one *kind* (the write tool the task is
about), a small fresh state (one user, 1-3 of their reservations, a handful of flights), the
customer's opening message, scripted later turns, a reference solution that obeys the policy,
and hidden notes. Every generated task is self-checked: its reference solution is executed on a
copy of the initial state and must succeed.
"""
from __future__ import annotations

import copy
import datetime as _dt
import random
from typing import Any, Callable

from pipeline.domains.base import GeneratedTask
from pipeline.domains.common import MAX_TRIES as _MAX_TRIES
from pipeline.domains.common import Denylist, SeededFactory, hashed_seed, leaked_values

from . import rules as R
from .state import AIRPORTS, CABINS, NOW, empty_state
from .tools import BAG_FEE, INSURANCE_FEE, TOOLS


TODAY = NOW[:10]
#: Dates every generated flight has a status for (two days of history, two weeks ahead).
DATE_WINDOW: tuple[str, ...] = tuple(
    (_dt.date(2024, 5, 13) + _dt.timedelta(days=i)).isoformat() for i in range(18)
)  # 2024-05-13 .. 2024-05-30
FUTURE_DATES = tuple(d for d in DATE_WINDOW if d > TODAY)
_BASE_PRICE = {"basic_economy": (50, 100), "economy": (100, 200), "business": (200, 500)}
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


def _time_plus(hhmm: str, minutes: int) -> tuple[str, bool]:
    h, m = map(int, hhmm.split(":")[:2])
    total = h * 60 + m + minutes
    return f"{(total // 60) % 24:02d}:{total % 60:02d}:00", total >= 24 * 60


class AirlineFactory(SeededFactory):
    """Builds one fictional airline state, entity by entity, from a seed.

    ``state`` is the state being built (users/flights/reservations dicts). Every personal value
    is checked against ``denylist`` and against values already used in this state, and redrawn
    on a hit (RuntimeError after 500 failed draws).
    """

    def __init__(self, seed: int, denylist: Denylist | None = None):
        super().__init__(seed, denylist, empty_state)
        self.seed = seed
        self.template: int | None = None  # index of the request template picked (see _ask)

    # ---- personal values (redrawn by SeededFactory._draw) --------------------------------------

    def name(self) -> dict[str, str]:
        """``{"first_name", "last_name"}``; the full name "First Last" is denylist-checked."""
        def make():
            return {"first_name": self.fake.first_name(), "last_name": self.fake.last_name()}
        return self._draw(make, lambda n: (f"{n['first_name']} {n['last_name']}",))

    def dob(self, oldest: int = 1945, youngest: int = 2005) -> str:
        """A date of birth ``YYYY-MM-DD`` (drawn from the seeded rng, never from today's date)."""
        def make():
            start = _dt.date(oldest, 1, 1).toordinal()
            end = _dt.date(youngest, 12, 31).toordinal()
            return _dt.date.fromordinal(self.rng.randint(start, end)).isoformat()
        return self._draw(make, lambda d: (d,))

    def passenger(self) -> dict[str, str]:
        """A fictional passenger ``{"first_name", "last_name", "dob"}``."""
        return {**self.name(), "dob": self.dob()}

    def payment_id(self, source: str) -> str:
        """``credit_card_ddddddd`` / ``gift_card_ddddddd`` / ``certificate_ddddddd``."""
        return self._draw(lambda: f"{source}_{self.rng.randint(1_000_000, 9_999_999)}", lambda v: (v,))

    def reservation_id(self) -> str:
        """Six uppercase letters/digits, unused in this state."""
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
        return self._draw(lambda: "".join(self.rng.choice(alphabet) for _ in range(6)), lambda v: (v,))

    # ---- users -------------------------------------------------------------------------------

    def user(
        self,
        membership: str | None = None,
        credit_cards: int | None = None,
        gift_cards: int | None = None,
        certificates: int | None = None,
    ) -> str:
        """Add a user; return the user id ``firstname_lastname_dddd``.

        Counts left as None are drawn (1-2 credit cards, 0-2 gift cards, 0-1 certificates; at
        least one payment method). Credit cards have distinct (brand, last four).
        """
        rng = self.rng
        for _ in range(_MAX_TRIES):
            n = self.name()
            first = "".join(c for c in n["first_name"].lower() if c.isalpha())
            last = "".join(c for c in n["last_name"].lower() if c.isalpha())
            if not first or not last:
                continue
            uid = f"{first}_{last}_{rng.randint(1000, 9999)}"
            email = f"{first}.{last}{rng.randint(1000, 9999)}@example.com"
            if uid not in self.state["users"] and self._accept(uid, email):
                break
        else:  # pragma: no cover
            raise RuntimeError("could not draw a user id the denylist accepts")
        address = self.address()
        user = {
            "name": n,
            "address": address,
            "email": email,
            "dob": self.dob(1945, 2003),
            "payment_methods": {},
            "saved_passengers": [self.passenger() for _ in range(rng.randint(0, 2))],
            "membership": membership or rng.choice(["regular", "silver", "gold"]),
            "reservations": [],
        }
        self.state["users"][uid] = user
        credit_cards = rng.randint(1, 2) if credit_cards is None else credit_cards
        gift_cards = rng.randint(0, 2) if gift_cards is None else gift_cards
        certificates = rng.randint(0, 1) if certificates is None else certificates
        if credit_cards + gift_cards + certificates == 0:
            credit_cards = 1
        for _ in range(credit_cards):
            self.add_credit_card(uid)
        for _ in range(gift_cards):
            self.add_gift_card(uid)
        for _ in range(certificates):
            self.add_certificate(uid)
        return uid

    def add_credit_card(self, user_id: str) -> str:
        """Add a credit card (visa/mastercard, distinct last four in the profile); return its id."""
        pms = self.state["users"][user_id]["payment_methods"]
        taken = {(p.get("brand"), p.get("last_four")) for p in pms.values()}
        while True:
            brand, last4 = self.rng.choice(["visa", "mastercard"]), f"{self.rng.randint(0, 9999):04d}"
            if (brand, last4) not in taken and not any(p.get("last_four") == last4 for p in pms.values()):
                break
        pid = self.payment_id("credit_card")
        pms[pid] = {"source": "credit_card", "brand": brand, "last_four": last4, "id": pid}
        return pid

    def add_gift_card(self, user_id: str, amount: int | None = None) -> str:
        """Add a gift card with ``amount`` dollars (drawn 0-300 when None); return its id."""
        pid = self.payment_id("gift_card")
        amount = self.rng.randint(0, 300) if amount is None else amount
        self.state["users"][user_id]["payment_methods"][pid] = {"source": "gift_card", "amount": amount, "id": pid}
        return pid

    def add_certificate(self, user_id: str, amount: int | None = None) -> str:
        """Add a travel certificate (100-500 dollars in steps of 50 when None); return its id."""
        pid = self.payment_id("certificate")
        amount = self.rng.choice(range(100, 501, 50)) if amount is None else amount
        self.state["users"][user_id]["payment_methods"][pid] = {"source": "certificate", "amount": amount, "id": pid}
        return pid

    # ---- flights -----------------------------------------------------------------------------

    def airports(self, k: int, exclude: tuple[str, ...] = ()) -> list[str]:
        """``k`` distinct real IATA codes."""
        return self.rng.sample([a for a in AIRPORTS if a not in exclude], k)

    def flight(self, origin: str, destination: str, departure: str | None = None, minutes: int | None = None) -> str:
        """Add a flight ``origin -> destination`` with a status for every date of DATE_WINDOW.

        Departure between 05:00 and 19:30 (same-day arrival). Past dates are ``landed``; today
        depends on NOW (landed / flying / on time / delayed); future dates are ``available`` with
        5-20 seats and a price per cabin. Returns the flight number ``HATddd``.
        """
        rng = self.rng
        while True:
            fno = f"HAT{rng.randint(1, 999):03d}"
            if fno not in self.state["flights"]:
                break
        departure = departure or f"{rng.randint(5, 19):02d}:{rng.choice(['00', '30'])}"
        minutes = minutes or rng.choice(range(60, 301, 30))
        dep_h, dep_m = map(int, departure.split(":")[:2])
        minutes = min(minutes, 23 * 60 + 30 - (dep_h * 60 + dep_m))  # arrive the same day
        arrival, next_day = _time_plus(departure, minutes)
        assert not next_day
        dep = departure if departure.count(":") == 2 else departure + ":00"
        dates: dict[str, Any] = {}
        for date in DATE_WINDOW:
            if date < TODAY or (date == TODAY and f"{date}T{arrival}" <= NOW):
                dates[date] = {"status": "landed",
                               "actual_departure_time_est": f"{date}T{_time_plus(dep, rng.randint(-10, 30))[0]}",
                               "actual_arrival_time_est": f"{date}T{_time_plus(arrival, rng.randint(-15, 30))[0]}"}
            elif date == TODAY and f"{date}T{dep}" <= NOW:
                dates[date] = {"status": "flying",
                               "actual_departure_time_est": f"{date}T{_time_plus(dep, rng.randint(0, 20))[0]}",
                               "estimated_arrival_time_est": f"{date}T{_time_plus(arrival, rng.randint(0, 20))[0]}"}
            elif date == TODAY:
                delay = rng.choice([0, 0, rng.randint(30, 120)])
                dates[date] = {"status": "delayed" if delay else "on time",
                               "estimated_departure_time_est": f"{date}T{_time_plus(dep, delay)[0]}",
                               "estimated_arrival_time_est": f"{date}T{_time_plus(arrival, delay)[0]}"}
            else:
                dates[date] = {
                    "status": "available",
                    "available_seats": {c: rng.randint(5, 20) for c in CABINS},
                    "prices": {c: rng.randint(*_BASE_PRICE[c]) for c in CABINS},
                }
        self.state["flights"][fno] = {
            "flight_number": fno, "origin": origin, "destination": destination,
            "scheduled_departure_time_est": dep, "scheduled_arrival_time_est": arrival, "dates": dates,
        }
        return fno

    def cancel_flight_date(self, flight_number: str, date: str) -> None:
        """Mark a flight as cancelled by the airline on ``date``."""
        self.state["flights"][flight_number]["dates"][date] = {"status": "cancelled"}

    # ---- reservations ------------------------------------------------------------------------

    def created_at(self, within_24h: bool, before: str | None = None) -> str:
        """A booking time: within the 24 hours before NOW, or between 2024-05-01 and 25 hours
        before NOW (and before the date ``before`` when given)."""
        now = _dt.datetime.fromisoformat(NOW)
        if within_24h:
            t = now - _dt.timedelta(seconds=self.rng.randint(600, 23 * 3600))
        else:
            lo = _dt.datetime(2024, 4, 20)
            hi = now - _dt.timedelta(hours=25)
            if before:
                hi = min(hi, _dt.datetime.fromisoformat(before) - _dt.timedelta(hours=30))
            t = lo + _dt.timedelta(seconds=self.rng.randint(0, int((hi - lo).total_seconds())))
        return t.replace(microsecond=0).isoformat()

    def reservation(
        self,
        user_id: str,
        segments: list[tuple[str, str]],
        cabin: str,
        passengers: list[dict[str, str]],
        flight_type: str,
        created_at: str,
        insurance: str,
        total_baggages: int,
        payment_id: str | None = None,
    ) -> str:
        """Add a reservation over ``segments`` [(flight_number, date)]; return its id.

        The price paid per segment is the current cabin price (or a drawn one for dates that no
        longer sell seats) times 0.8-1.2; nonfree bags follow the allowance; one payment covers
        flights, insurance and bag fees.
        """
        user = self.state["users"][user_id]
        flights = []
        for fno, date in segments:
            f = self.state["flights"][fno]
            day = f["dates"].get(date, {})
            base = day["prices"][cabin] if "prices" in day else self.rng.randint(*_BASE_PRICE[cabin])
            price = max(1, round(base * self.rng.uniform(0.8, 1.2)))
            flights.append({"origin": f["origin"], "destination": f["destination"], "flight_number": fno,
                            "date": date, "price": price})
        n = len(passengers)
        nonfree = R.nonfree_bags(user["membership"], cabin, n, total_baggages)
        total = sum(f["price"] for f in flights) * n + (INSURANCE_FEE * n if insurance == "yes" else 0) + BAG_FEE * nonfree
        if payment_id is None:
            cards = [p for p, m in user["payment_methods"].items() if m["source"] != "certificate"]
            payment_id = self.rng.choice(sorted(cards)) if cards else self.add_credit_card(user_id)
        rid = self.reservation_id()
        self.state["reservations"][rid] = {
            "reservation_id": rid, "user_id": user_id,
            "origin": flights[0]["origin"],
            "destination": flights[-1]["destination"] if flight_type == "one_way" else flights[0]["destination"],
            "flight_type": flight_type, "cabin": cabin, "flights": flights,
            "passengers": [dict(p) for p in passengers],
            "payment_history": [{"payment_id": payment_id, "amount": total}],
            "created_at": created_at, "total_baggages": total_baggages, "nonfree_baggages": nonfree,
            "insurance": insurance,
        }
        user["reservations"].append(rid)
        return rid

    def trip(
        self,
        user_id: str,
        *,
        future: bool = True,
        flight_type: str | None = None,
        cabin: str | None = None,
        n_passengers: int | None = None,
        insurance: str | None = None,
        within_24h: bool = False,
        stops: int | None = None,
        total_baggages: int | None = None,
    ) -> str:
        """Add flights and a reservation for a plausible trip of ``user_id``; return its id.

        One-way trips are direct or one-stop, round trips are direct both ways. Future trips
        depart after today; past ones departed before today. The booking user is the first
        passenger in most reservations.
        """
        rng = self.rng
        user = self.state["users"][user_id]
        flight_type = flight_type or rng.choice(["one_way", "round_trip"])
        cabin = cabin or rng.choice(CABINS)
        n = n_passengers or rng.choice([1, 1, 2, 2, 3])
        stops = (rng.choice([0, 0, 1]) if flight_type == "one_way" else 0) if stops is None else stops
        if future:
            out_date = rng.choice(FUTURE_DATES[:-4])
            back_date = rng.choice([d for d in FUTURE_DATES if d > out_date])
        else:
            out_date, back_date = DATE_WINDOW[0], DATE_WINDOW[1]
        if stops:
            a, hub, b = self.airports(3)
            f1 = self.flight(a, hub, departure=f"{rng.randint(5, 9):02d}:00", minutes=rng.choice([90, 120, 150]))
            f2 = self.flight(hub, b, departure=f"{rng.randint(13, 17):02d}:00")
            segments = [(f1, out_date), (f2, out_date)]
        else:
            a, b = self.airports(2)
            segments = [(self.flight(a, b), out_date)]
            if flight_type == "round_trip":
                segments.append((self.flight(b, a), back_date))
        me = {**user["name"], "dob": user["dob"]}
        others = [dict(p) for p in user["saved_passengers"]]
        passengers = ([me] if rng.random() < 0.8 else []) + others
        while len(passengers) < n:
            passengers.append(self.passenger())
        passengers = passengers[:n]
        if total_baggages is None:
            allowance = R.free_bags(user["membership"], cabin) * n
            total_baggages = rng.randint(0, allowance + 1)
        created = self.created_at(within_24h, before=segments[0][1])
        return self.reservation(user_id, segments, cabin, passengers, flight_type, created,
                                insurance or rng.choice(["yes", "no"]), total_baggages)


def generate_state(seed: int, n_users: int = 3, denylist: Denylist | None = None) -> dict[str, Any]:
    """A small fictional airline state: ``n_users`` users with 1-3 reservations each and the
    flights they use. Same seed (and denylist) -> identical state."""
    fac = AirlineFactory(seed, denylist)
    for _ in range(n_users):
        uid = fac.user()
        for _ in range(fac.rng.randint(1, 3)):
            fac.trip(uid, future=fac.rng.random() < 0.8)
    return fac.state


# =============================================================================================
# Task generators


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


def _gen_cancel(fac: AirlineFactory) -> tuple[str, list[str], list[dict], dict]:
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


def _gen_baggages(fac: AirlineFactory) -> tuple[str, list[str], list[dict], dict]:
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


def _flight_payment(fac: AirlineFactory, uid: str, use_gift: bool, diff: float) -> str:
    """The payment id the customer names for a flight change: the only gift card (topped up to
    cover ``diff``) or one of the credit cards."""
    rng, user = fac.rng, fac.state["users"][uid]
    if use_gift:
        pid = next(p for p, m in user["payment_methods"].items() if m["source"] == "gift_card")
        user["payment_methods"][pid]["amount"] = max(0, diff) + rng.randint(0, 150)
        return pid
    return rng.choice(sorted(p for p, m in user["payment_methods"].items() if m["source"] == "credit_card"))


def _gen_flights(fac: AirlineFactory) -> tuple[str, list[str], list[dict], dict]:
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


def _misspell(name: str, rng: random.Random) -> str:
    if len(name) < 3:
        return name + name[-1]
    i = rng.randint(1, len(name) - 2)
    return rng.choice([name[:i] + name[i + 1:], name[:i] + name[i] + name[i:],
                       name[:i] + name[i + 1] + name[i] + name[i + 2:]])


def _gen_passengers(fac: AirlineFactory) -> tuple[str, list[str], list[dict], dict]:
    rng = fac.rng
    uid = fac.user()
    _other_trips(fac, uid)
    rid = fac.trip(uid, n_passengers=rng.choice([1, 2, 2, 3]))
    res = fac.state["reservations"][rid]
    idx = rng.randrange(len(res["passengers"]))
    correct = dict(res["passengers"][idx])
    wrong = dict(correct)
    field = rng.choice(["first_name", "last_name", "dob"])
    for _ in range(_MAX_TRIES):
        if field == "dob":
            d = _dt.date.fromisoformat(correct["dob"])
            if rng.random() < 0.5:
                d2 = d + _dt.timedelta(days=rng.choice([-1, 1]) * rng.randint(1, 40))
            else:
                d2 = d.replace(year=d.year + rng.choice([-1, 1]), day=min(d.day, 28))
            wrong["dob"] = d2.isoformat()
            candidate = (wrong["dob"],)
        else:
            wrong[field] = _misspell(correct[field], rng)
            candidate = (_person(wrong),)
        if wrong != correct and fac._accept(*candidate):
            break
    else:  # pragma: no cover
        raise RuntimeError("could not draw a wrong passenger value")
    res["passengers"][idx] = wrong  # the booking holds the mistake; the customer corrects it
    _distractor_flights(fac)
    _shuffle_reservations(fac, uid)
    if field == "dob":
        fix = _ask(fac, [f"The date of birth for {_person(correct)} on reservation {rid} is wrong: it should be "
                         f"{correct['dob']}, not {wrong['dob']}.",
                         f"On booking {rid}, please correct {_person(correct)}'s date of birth to {correct['dob']}.",
                         f"I made a mistake when booking {rid}: {_person(correct)} was born on {correct['dob']}. "
                         f"Could you fix the date of birth?"])
    else:
        fix = _ask(fac, [f"On reservation {rid} the passenger name {_person(wrong)} is misspelled; "
                          f"it should be {_person(correct)}.",
                          f"Please fix a typo in booking {rid}: {_person(wrong)} should read {_person(correct)} "
                          f"(date of birth {correct['dob']}).",
                         f"There's a typo in a passenger name on my reservation {rid}. It says {_person(wrong)} but "
                         f"the correct name is {_person(correct)}."])
    instruction = " ".join([_opening(rng, uid), fix, "Everything else stays the same.", rng.choice(_CONSENT)])
    fixed = [dict(p) for p in res["passengers"]]
    fixed[idx] = correct
    reference = [
        *_lookup(uid, rid),
        {"name": "update_reservation_passengers", "arguments": {"reservation_id": rid, "passengers": fixed}},
    ]
    notes = {"reservation_id": rid, "passenger_index": idx, "field": field, "wrong": wrong, "correct": correct,
             "must_discover": [p["dob"] for i, p in enumerate(fixed) if i != idx]
             + [f["flight_number"] for f in res["flights"]],
             "rule_ids": ["airline.modify.passengers", "airline.general.confirm"],
             "decided_by": "passenger details may change, the passenger count may not"}
    return " ".join(instruction.split()), list(rng.choice(_LATER)), reference, notes


def _gen_book(fac: AirlineFactory) -> tuple[str, list[str], list[dict], dict]:
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


def _gen_certificate(fac: AirlineFactory) -> tuple[str, list[str], list[dict], dict]:
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


# ---- rule-decided variants: the policy forbids the request, the right outcome is a refusal or a
# transfer and the state must not change. Each one is built so that ignoring the rule (making the
# forbidden write) succeeds in the tools and therefore changes the final state: the state-hash
# verifier tells the two apart.

_INSIST = ("Please go ahead and do it.", "Can you do that for me?", "I'd like that done today, please.")


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


#: (kind, variant id) -> (generator, expected outcome, instance skills). The variant id names the
#: rule that decides the outcome: ``"rule:<rule_id>"``.
_VARIANTS: dict[tuple[str, str], tuple[Callable[[AirlineFactory], tuple], str, tuple[str, ...]]] = {
    ("cancel_reservation", "rule:airline.cancel.eligibility"):
        (_var_cancel_ineligible, "refusal", ("identity_lookup", "policy_reading", "refusal")),
    ("cancel_reservation", "rule:airline.cancel.unflown"):
        (_var_cancel_flown, "transfer", ("identity_lookup", "policy_reading", "transfer")),
    ("update_reservation_flights", "rule:airline.modify.basic_economy"):
        (_var_flights_basic_economy, "refusal", ("identity_lookup", "policy_reading", "refusal")),
    ("update_reservation_baggages", "rule:airline.modify.baggage"):
        (_var_baggage_remove, "refusal", ("identity_lookup", "policy_reading", "refusal")),
    ("book_reservation", "rule:airline.book.payment"):
        (_var_book_two_cards, "refusal", ("identity_lookup", "policy_reading", "search", "refund_payment",
                                          "refusal")),
    ("send_certificate", "rule:airline.compensation.limits"):
        (_var_certificate_not_eligible, "refusal", ("identity_lookup", "policy_reading", "refusal")),
}


def variants_for_kind(kind: str) -> list[str]:
    """The rule-decided variant ids a ``kind`` supports (e.g. ``"rule:airline.cancel.eligibility"``)."""
    return [v for k, v in _VARIANTS if k == kind]


def variant_outcome(kind: str, variant: str | None) -> str:
    """Expected outcome of (kind, variant): ``"action"`` for the base task, else the variant's
    ``"refusal"`` / ``"transfer"``. ValueError for an unknown pair."""
    if variant is None:
        _check_kind(kind)
        return "action"
    if (kind, variant) not in _VARIANTS:
        raise ValueError(f"unknown airline variant {variant!r} of kind {kind!r}; known: {variants_for_kind(kind)}")
    return _VARIANTS[(kind, variant)][1]


#: Skills every task of a kind exercises (ids of pipeline.skills.SKILLS).
KIND_SKILLS: dict[str, tuple[str, ...]] = {
    "book_reservation": ("identity_lookup", "policy_reading", "search", "creation", "refund_payment",
                         "multi_step", "confirmation"),
    "cancel_reservation": ("identity_lookup", "policy_reading", "cancellation", "confirmation"),
    "update_reservation_baggages": ("identity_lookup", "policy_reading", "modification", "refund_payment",
                                    "confirmation"),
    "update_reservation_flights": ("identity_lookup", "policy_reading", "search", "modification",
                                   "refund_payment", "multi_step", "confirmation"),
    "update_reservation_passengers": ("identity_lookup", "modification", "confirmation"),
    "send_certificate": ("identity_lookup", "policy_reading", "creation", "confirmation"),
}


#: The name the shared domain class (pipeline.domains.common.ModuleDomain) reads.
SKILLS_FOR_KIND = KIND_SKILLS


def _instance_skills(kind: str, notes: dict[str, Any]) -> list[str]:
    """Skills a particular base instance adds to its kind's: a cancellation the airline caused
    needs a flight search (reads that feed the decision); a gift card paying for a change is a
    payment choice."""
    out: list[str] = []
    if kind == "cancel_reservation" and notes.get("scenario") == "airline_cancelled":
        out += ["search", "multi_step"]
    return out


_GENERATORS: dict[str, Callable[[AirlineFactory], tuple[str, list[str], list[dict], dict]]] = {
    "book_reservation": _gen_book,
    "cancel_reservation": _gen_cancel,
    "update_reservation_baggages": _gen_baggages,
    "update_reservation_flights": _gen_flights,
    "update_reservation_passengers": _gen_passengers,
    "send_certificate": _gen_certificate,
}

#: Task kinds with a generator; each is named after the write tool the task is about.
TASK_KINDS: tuple[str, ...] = tuple(_GENERATORS)

_REQUIREMENTS: dict[str, dict[str, Any]] = {
    "book_reservation": {
        "users": 1, "user_reservations": "1-2 unrelated", "payment_methods": "a credit card or one gift card "
        "covering the total", "flights": "1-2 bookable direct flights origin->destination on the date with "
        "enough seats in the cabin, plus unrelated flights",
    },
    "cancel_reservation": {
        "users": 1, "user_reservations": "1-3; the target is unflown and cancellable under "
        "airline.cancel.eligibility (booked within 24h, business, insured with a health/weather reason, or "
        "a flight cancelled by the airline)", "flights": "the target's flights plus unrelated ones",
    },
    "update_reservation_baggages": {
        "users": 1, "user_reservations": "1-3; the target is unflown", "payment_methods": "a credit card, or "
        "one gift card whose balance covers the bag fee", "flights": "the reservations' flights",
    },
    "update_reservation_flights": {
        "users": 1, "user_reservations": "1-3; the target is unflown with every segment bookable in the new "
        "cabin", "payment_methods": "a credit card, or one gift card covering the difference",
        "flights": "the target's flights (available on their dates) plus unrelated ones",
    },
    "update_reservation_passengers": {
        "users": 1, "user_reservations": "1-3; the target has 1-3 passengers, one with a wrong name or date "
        "of birth", "flights": "the reservations' flights",
    },
    "send_certificate": {
        "users": 1, "user_reservations": "1-3; the target has a flight the airline cancelled and the customer "
        "is silver/gold, insured, or in business", "flights": "the target's flight with status cancelled",
    },
}

_SUCCESS: dict[str, str] = {
    "book_reservation": "A new one-way reservation exists for the user on the requested direct flight, date and "
                        "cabin with exactly the named passengers, the requested total bags and the nonfree bags "
                        "the allowance implies, the requested insurance, paid in full by the named payment method; "
                        "nothing else changed.",
    "cancel_reservation": "The named reservation has status cancelled with every payment refunded to its original "
                          "method; nothing else changed.",
    "update_reservation_baggages": "The named reservation has the requested new total bags, nonfree bags per the "
                                   "membership/cabin allowance, and the bag fee charged to the named payment "
                                   "method; nothing else changed.",
    "update_reservation_flights": "The named reservation keeps the same flights in the requested new cabin at "
                                  "current prices, with the difference charged to (or refunded to) the named "
                                  "payment method; nothing else changed.",
    "update_reservation_passengers": "The named reservation has the corrected passenger details, the same number of "
                                     "passengers and nothing else changed.",
    "send_certificate": "The user's profile holds one new certificate worth 100 dollars per passenger of the "
                        "affected reservation; no reservation changed.",
}


def _check_kind(kind: str) -> None:
    if kind not in _GENERATORS:
        raise ValueError(f"unknown airline task kind {kind!r}; known: {', '.join(TASK_KINDS)}")


def task_seed(kind: str, seed: int, attempt: int = 0, variant: str | None = None) -> int:
    """The entity seed of task (kind, seed): a hash of both, so that tasks of different kinds
    with the same seed do not share people, ids or flights. ``attempt`` > 0 gives the seeds of
    redraws (see :func:`generate_task`); a ``variant`` gets its own seeds."""
    return hashed_seed(f"airline:{kind}:{seed}" + (f":{attempt}" if attempt else "") + (f":{variant}" if variant else ""))


def generate_task(kind: str, seed: int, denylist: Denylist | None = None, variant: str | None = None) -> GeneratedTask:
    """Generate one task instance of ``kind`` from ``seed`` (same arguments -> equal result).

    ``instruction`` is the customer's opening message (user id, reservation id, what they want,
    which payment method, passenger details; never prices, refunds or nonfree bag counts);
    ``user_messages`` are later scripted turns; ``reference_solution`` lists ``{"name",
    "arguments"}`` calls that solve the task from ``initial_state`` within the policy; ``notes``
    hold the kind, seed, the varied values, ``must_discover`` (values only tools reveal, never in
    the instruction), ``template`` (index of the request paraphrase template) and the rule ids
    that decide the outcome.

    ``variant=None`` gives the base task (``expected_outcome="action"``: reads, then exactly one
    write). ``variant="rule:<rule_id>"`` (see :func:`variants_for_kind`) gives a task where that
    rule forbids the request: the reference only reads (``"refusal"``) or reads and calls
    ``transfer_to_human_agents`` (``"transfer"``), the state must not change, and
    ``notes["forbidden_calls"]`` holds the write an agent ignoring the rule would make.

    When a hidden value happens to appear in the instruction (e.g. a price difference of 22 and
    "May 22"), the task is redrawn from the next attempt seed, deterministically.

    Raises ValueError for an unknown kind or variant; RuntimeError if the denylist rejects every
    draw or (a bug) the reference solution fails or changes the state when it should not.
    """
    outcome = variant_outcome(kind, variant)
    gen = _GENERATORS[kind] if variant is None else _VARIANTS[(kind, variant)][0]
    for attempt in range(20):
        fac = AirlineFactory(task_seed(kind, seed, attempt, variant), denylist)
        instruction, later, reference, notes = gen(fac)
        if not leaked_values(instruction, notes.get("must_discover", [])):
            break
    else:  # pragma: no cover
        raise RuntimeError(f"{kind} seed {seed}: every attempt leaked a hidden value into the instruction")
    initial = fac.state
    # self-check: the reference must run cleanly on a copy of the initial state
    probe = copy.deepcopy(initial)
    for call in reference:
        try:
            TOOLS[call["name"]].fn(probe, **copy.deepcopy(call["arguments"]))
        except Exception as exc:  # pragma: no cover - generator bug
            raise RuntimeError(f"{kind} seed {seed}: reference call {call['name']} failed: {exc}") from exc
    if outcome == "action" and probe == initial:  # pragma: no cover
        raise RuntimeError(f"{kind} seed {seed}: reference solution does not change the state")
    if outcome != "action" and probe != initial:  # pragma: no cover
        raise RuntimeError(f"{kind} seed {seed} {variant}: a {outcome} reference changed the state")
    skills = list(_instance_skills(kind, notes)) if variant is None else list(_VARIANTS[(kind, variant)][2])
    return GeneratedTask(
        initial_state=initial,
        instruction=instruction,
        user_messages=later,
        reference_solution=reference,
        notes={"kind": kind, "seed": seed, "attempt": attempt, "write_tool": kind, "variant": variant,
               "template": fac.template, **notes},
        expected_outcome=outcome,
        skills=skills,
        variant=variant,
    )


def initial_state_requirements(kind: str) -> dict[str, Any]:
    """What the initial state of a ``kind`` task must contain (human-readable values).
    ValueError for an unknown kind."""
    _check_kind(kind)
    return copy.deepcopy(_REQUIREMENTS[kind])


def success_condition(kind: str) -> str:
    """Human-readable description of the final state that counts as success for ``kind``.
    ValueError for an unknown kind."""
    _check_kind(kind)
    return _SUCCESS[kind]


def kind_for_write_calls(write_tool_names: list[str]) -> str | None:
    """Map a log's ordered write-call names to a task kind: the first name that has a generator,
    or None when there is none (e.g. the log made no write)."""
    for name in write_tool_names:
        if name in _GENERATORS:
            return name
    return None
