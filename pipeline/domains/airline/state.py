"""Airline booking state: plain JSON-serialisable dicts, with optional pydantic validation.

The state has the same record shapes as the tau-bench airline database files::

    {"users":        {user_id: User},
     "flights":      {flight_number: Flight},
     "reservations": {reservation_id: Reservation}}

* **User** ``{"name": {"first_name", "last_name"}, "address": {"address1", "address2", "city",
  "country", "state", "zip"}, "email", "dob": "YYYY-MM-DD", "payment_methods": {payment_id:
  PaymentMethod}, "saved_passengers": [Passenger], "membership": "regular"|"silver"|"gold",
  "reservations": [reservation_id, ...]}``.
* **PaymentMethod** ``{"source": "credit_card", "brand", "last_four", "id"}`` or
  ``{"source": "gift_card"|"certificate", "amount": <dollars>, "id"}``.
* **Flight** ``{"flight_number", "origin", "destination", "scheduled_departure_time_est":
  "HH:MM:SS", "scheduled_arrival_time_est": "HH:MM:SS" (suffix ``+1`` = next day), "dates":
  {"YYYY-MM-DD": FlightDate}}``; a FlightDate always has ``status`` (``available``, ``on time``,
  ``delayed``, ``flying``, ``landed``, ``cancelled``); ``available`` dates carry
  ``available_seats`` and ``prices`` per cabin (whole dollars per passenger), other statuses may
  carry actual/estimated times.
* **Reservation** ``{"reservation_id", "user_id", "origin", "destination", "flight_type":
  "one_way"|"round_trip", "cabin": "basic_economy"|"economy"|"business", "flights": [{"origin",
  "destination", "flight_number", "date", "price"}], "passengers": [Passenger], "payment_history":
  [{"payment_id", "amount"}] (negative amounts are refunds), "created_at":
  "YYYY-MM-DDTHH:MM:SS", "total_baggages", "nonfree_baggages", "insurance": "yes"|"no"}`` plus
  ``"status": "cancelled"`` once cancelled.

All times are US Eastern (EST) wall-clock strings; :data:`NOW` is the fixed "current time" of
the policy, so nothing in this domain ever reads the real clock.
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from pipeline.domains.common import Address, Name, StrictModel as _Strict, copy_state  # noqa: F401 (re-exported)
from pipeline.domains.common import check_owner, check_payment_method_keys, check_record

#: The policy's "current time" (EST). Every time-dependent rule and every created record uses it.
NOW = "2024-05-15T15:00:00"

#: Cabin classes, cheapest first.
CABINS: tuple[str, ...] = ("basic_economy", "economy", "business")

#: Membership tiers.
MEMBERSHIPS: tuple[str, ...] = ("regular", "silver", "gold")

#: Real IATA airport codes served by the airline -> city (public facts, not personal data). The
#: order is the order ``list_all_airports`` reports them in.
AIRPORTS: dict[str, str] = {
    "SFO": "San Francisco", "JFK": "New York", "LAX": "Los Angeles", "ORD": "Chicago",
    "DFW": "Dallas", "DEN": "Denver", "SEA": "Seattle", "ATL": "Atlanta", "MIA": "Miami",
    "BOS": "Boston", "PHX": "Phoenix", "IAH": "Houston", "LAS": "Las Vegas", "MCO": "Orlando",
    "EWR": "Newark", "CLT": "Charlotte", "MSP": "Minneapolis", "DTW": "Detroit",
    "PHL": "Philadelphia", "LGA": "LaGuardia",
}


def empty_state() -> dict[str, Any]:
    """A state with no users, flights or reservations."""
    return {"users": {}, "flights": {}, "reservations": {}}


# ---------------------------------------------------------------------------------------------
# Optional pydantic models: used by ``validate_state``; the tools themselves work on plain dicts.

Cabin = Literal["basic_economy", "economy", "business"]


class Passenger(_Strict):
    """A passenger or saved passenger: name and date of birth ``YYYY-MM-DD``."""

    first_name: str
    last_name: str
    dob: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$")


class PaymentMethod(_Strict):
    """A stored payment method: credit cards have ``brand``/``last_four``; gift cards and
    certificates have a dollar ``amount`` (balance)."""

    source: Literal["credit_card", "gift_card", "certificate"]
    id: str
    brand: str | None = None
    last_four: str | None = None
    amount: float | None = None


class User(_Strict):
    """A user profile (see the module docstring for the field list)."""

    name: Name
    address: Address
    email: str
    dob: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$")
    payment_methods: dict[str, PaymentMethod]
    saved_passengers: list[Passenger]
    membership: Literal["regular", "silver", "gold"]
    reservations: list[str]


class SeatsOrPrices(_Strict):
    """One integer per cabin: seats left, or dollars per passenger."""

    basic_economy: int
    economy: int
    business: int


class FlightDate(BaseModel):
    """A flight's record for one date; ``available_seats``/``prices`` only when bookable."""

    model_config = ConfigDict(extra="allow")  # actual_/estimated_ times vary by status
    status: Literal["available", "on time", "delayed", "flying", "landed", "cancelled"]
    available_seats: SeatsOrPrices | None = None
    prices: SeatsOrPrices | None = None


class Flight(_Strict):
    """A scheduled flight with its per-date records."""

    flight_number: str
    origin: str
    destination: str
    scheduled_departure_time_est: str
    scheduled_arrival_time_est: str
    dates: dict[str, FlightDate]


class ReservationFlight(_Strict):
    """One segment of a reservation with the price paid per passenger (dollars)."""

    origin: str
    destination: str
    flight_number: str
    date: str
    price: float


class Payment(_Strict):
    """One payment-history entry; a negative amount is a refund."""

    payment_id: str
    amount: float


class Reservation(_Strict):
    """A reservation (see the module docstring); ``status`` is ``"cancelled"`` or absent."""

    reservation_id: str
    user_id: str
    origin: str
    destination: str
    flight_type: Literal["one_way", "round_trip"]
    cabin: Cabin
    flights: list[ReservationFlight]
    passengers: list[Passenger]
    payment_history: list[Payment]
    created_at: str
    total_baggages: int
    nonfree_baggages: int
    insurance: Literal["yes", "no"]
    status: Literal["cancelled"] | None = None


def validate_state(state: dict[str, Any]) -> None:
    """Check every record of ``state`` against the record shapes above.

    Also checks cross-references (a reservation's user exists and lists it; table keys equal the
    record ids). Raises ``ValueError`` (pydantic's ``ValidationError`` is a subclass) on the first
    problem found.
    """
    if set(state) != {"users", "flights", "reservations"}:
        raise ValueError(f"state must have exactly users/flights/reservations, got {sorted(state)}")
    for uid, user in state["users"].items():
        User.model_validate(user)
        check_payment_method_keys(uid, user)
    for fno, flight in state["flights"].items():
        check_record(Flight, flight, fno, "flight_number", "flight")
    for rid, res in state["reservations"].items():
        check_record(Reservation, res, rid, "reservation_id", "reservation")
        check_owner(state["users"], "reservation", rid, res["user_id"], "reservations")
