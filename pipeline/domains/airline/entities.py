"""The airline entity factory: seeded generators of fictional users, flights and reservations.

Entities come from ``Faker`` (seeded with ``seed_instance``) and ``random.Random(seed)``; no
wall-clock, no global random state, so the same seed always gives the same output. An optional
``denylist(value) -> bool`` rejects personal values (full name "First Last", email, date of
birth, address1, zip, user id, payment id, reservation id): a rejected value is redrawn, which
keeps fictional people from coinciding with real people seen in the logs.

The task generators (one module per task kind in :mod:`pipeline.domains.airline.kinds`, run by
:mod:`pipeline.domains.airline.generator`) build each task's state with an :class:`AirlineFactory`.
"""
from __future__ import annotations

import datetime as _dt
from typing import Any

from pipeline.domains.common import MAX_TRIES as _MAX_TRIES
from pipeline.domains.common import Denylist, SeededFactory

from . import rules as R
from .state import AIRPORTS, CABINS, NOW, empty_state
from .tools import BAG_FEE, INSURANCE_FEE


TODAY = NOW[:10]


#: Dates every generated flight has a status for (two days of history, two weeks ahead).
DATE_WINDOW: tuple[str, ...] = tuple(
    (_dt.date(2024, 5, 13) + _dt.timedelta(days=i)).isoformat() for i in range(18)
)  # 2024-05-13 .. 2024-05-30


FUTURE_DATES = tuple(d for d in DATE_WINDOW if d > TODAY)


_BASE_PRICE = {"basic_economy": (50, 100), "economy": (100, 200), "business": (200, 500)}


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
