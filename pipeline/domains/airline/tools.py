"""The airline's tools: each behaviour function sits right beside its OpenAI function schema.

Names, argument names and result formats follow the recorded airline agent logs: read tools
return JSON text of the stored record(s); write tools return the JSON text of the changed
reservation (``send_certificate`` returns a sentence); business errors raise
:class:`~pipeline.domains.base.ToolError` whose message the sandbox shows as ``"Error: <msg>"``.

What the API checks and what it leaves to the agent (as the policy says): the tools check data
integrity - that users, reservations, flights and payment methods exist, that a flight is
bookable on a date, that seats and gift-card/certificate balances suffice and that payments add
up. They do NOT check business rules such as "basic economy flights cannot be changed", the
cancellation conditions, the baggage allowance or the payment-method limits; the agent must keep
those (see :mod:`pipeline.domains.airline.rules`, which has checkers for them).

Everything is deterministic: ids made by ``book_reservation`` and ``send_certificate`` follow
the logged airline system's scheme (the first free id of a sequence counting up: reservations
six letters, ``HATHAT``, ``HATHAU``, ...; certificates ``certificate_<n>``, n, n+1, ...). Only where
the sequence starts differs: replaying the logged system (inside :func:`logged_system_ids`, which
``trajpipe domain check`` enters through the domain's ``replay_context``) it starts where that
system's does (``HATHAT``, ``certificate_3221322``); in synthesized worlds it starts at a point
derived from the customer's user id, so a dataset never repeats an id the real system minted for
a real booking (the e2e privacy test checks every input id against every output file), and the
creation time is :data:`~pipeline.domains.airline.state.NOW`; the same calls on the same state
always give the same final state. Money is in whole dollars (floats are accepted and kept as given).

Where the logged system (the tau-bench airline environment, whose runs ``trajpipe domain check
airline`` replays, docs/domains.md section 12) behaves in a way that is arguably a bug, the
sandbox copies it, because the sandbox is meant to *be* that system: ``update_reservation_flights``
prices with its ``cabin`` argument but keeps the reservation's recorded ``cabin``;
``search_onestop_flight`` shows an overnight connection's seats and prices of the first leg's
date. What is not copied (never seen in the logs) is said where it applies.
"""
from __future__ import annotations

import datetime as _dt
import hashlib as _hashlib
from contextlib import contextmanager
from contextvars import ContextVar
import json
from typing import Any

from pipeline.domains.base import Tool, ToolError
from pipeline.domains.common import get_record, object_params, tool_registry
from pipeline.domains.shared import register_shared_tools

from .state import AIRPORTS, CABINS, NOW

TOOLS: dict[str, Tool] = {}

#: Price of one checked bag beyond the free allowance, dollars (policy rule ``airline.book.baggage``).
BAG_FEE = 50
#: Travel insurance price per passenger, dollars (policy rule ``airline.book.insurance``).
INSURANCE_FEE = 30


#: Decorator ``_register(schema, writes=False)``: the tool function beside its schema goes into :data:`TOOLS`.
_register = tool_registry(TOOLS)
#: A tool's JSON-schema ``parameters`` (every property required unless ``required`` says otherwise).
_params = object_params


# ---- shared argument schemas -----------------------------------------------------------------

_DATE = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"}
_AIRPORT = {"type": "string", "description": "IATA airport code, such as 'SFO', 'JFK'."}
_CABIN = {"type": "string", "enum": list(CABINS), "description": "Cabin class."}
_RES_ID = {"type": "string", "description": "The reservation id, such as '8JX2WO'."}
_USER_ID = {"type": "string", "description": "The user id, such as 'sara_doe_496'."}
_PAYMENT_ID = {
    "type": "string",
    "description": "Id of a payment method stored in the user's profile, such as "
                   "'credit_card_7815826' or 'gift_card_7815826'.",
}
_FLIGHT_ITEM = {
    "type": "object",
    "properties": {
        "flight_number": {"type": "string", "description": "Flight number, such as 'HAT001'."},
        "date": {**_DATE, "description": "Date of the flight, 'YYYY-MM-DD'."},
        # Accepted and ignored (the stored flight decides them); some agents send them.
        "origin": {"type": "string", "description": "Optional; ignored."},
        "destination": {"type": "string", "description": "Optional; ignored."},
    },
    "required": ["flight_number", "date"],
    "additionalProperties": False,
}
_PASSENGER_ITEM = {
    "type": "object",
    "properties": {
        "first_name": {"type": "string"},
        "last_name": {"type": "string"},
        "dob": {**_DATE, "description": "Date of birth, 'YYYY-MM-DD'."},
    },
    "required": ["first_name", "last_name", "dob"],
    "additionalProperties": False,
}


# ---- helpers ---------------------------------------------------------------------------------

def _dumps(obj: Any) -> str:
    return json.dumps(obj)


def _num(x: float) -> float | int:
    """Render a dollar amount as an int when it is whole (``305.0`` -> ``305``)."""
    return int(x) if float(x).is_integer() else round(float(x), 2)


def _user(state: dict[str, Any], user_id: str) -> dict[str, Any]:
    return get_record(state, "users", user_id, "user")


def _reservation(state: dict[str, Any], reservation_id: str) -> dict[str, Any]:
    return get_record(state, "reservations", reservation_id, "reservation")


def _check_cabin(cabin: str) -> None:
    if cabin not in CABINS:
        raise ToolError(f"invalid cabin class {cabin!r}; use one of {', '.join(CABINS)}")


def _bookable(state: dict[str, Any], flight_number: str, date: str, cabin: str, n: int) -> tuple[dict, dict]:
    """Return (flight, date record) for a flight that can take ``n`` more ``cabin`` passengers."""
    flight = state["flights"].get(flight_number)
    if flight is None:
        raise ToolError(f"flight {flight_number} not found")
    day = flight["dates"].get(date)
    if day is None:
        raise ToolError(f"flight {flight_number} not found on date {date}")
    if day.get("status") != "available":
        raise ToolError(f"flight {flight_number} not available on date {date}")
    if day["available_seats"][cabin] < n:
        raise ToolError(f"not enough seats on flight {flight_number}")
    return flight, day


def _adjust_seats(state: dict[str, Any], flight_number: str, date: str, cabin: str, delta: int) -> None:
    """Add ``delta`` seats to a flight date's cabin when that date still sells seats."""
    day = state["flights"].get(flight_number, {}).get("dates", {}).get(date)
    if day and "available_seats" in day and cabin in day["available_seats"]:
        day["available_seats"][cabin] += delta


#: The logged system's first new reservation id; later ones count up (``HATHAU``, ``HATHAV``, ...).
FIRST_RESERVATION_ID = "HATHAT"
#: The logged system's first certificate number; later ones count up (``3221323``, ``3221324``, ...).
FIRST_CERTIFICATE_NUMBER = 3221322

_LOGGED_IDS: ContextVar[bool] = ContextVar("airline_logged_system_ids", default=False)


@contextmanager
def logged_system_ids():
    """Inside this context new reservation and certificate ids start where the logged airline
    system's do (``HATHAT``, ``certificate_3221322``), for replaying its logs (``trajpipe domain
    check``, :meth:`AirlineDomain.replay_context`). Outside it (synthesized worlds) each user's
    sequence starts at a point derived from the user id. Context-local (contextvars): safe across
    threads and concurrent sandboxes."""
    token = _LOGGED_IDS.set(True)
    try:
        yield
    finally:
        _LOGGED_IDS.reset(token)


def _digest(kind: str, user_id: str) -> bytes:
    return _hashlib.sha256(f"airline-{kind}:{user_id}".encode()).digest()


def reservation_id_start(user_id: str) -> str:
    """Where ``user_id``'s new reservation ids start: :data:`FIRST_RESERVATION_ID` inside
    :func:`logged_system_ids`, else six letters derived from the user id (SHA-256)."""
    if _LOGGED_IDS.get():
        return FIRST_RESERVATION_ID
    return "".join(chr(ord("A") + b % 26) for b in _digest("reservation", user_id)[:6])


def certificate_number_start(user_id: str) -> int:
    """Where ``user_id``'s new certificate numbers start: :data:`FIRST_CERTIFICATE_NUMBER` inside
    :func:`logged_system_ids`, else a 7-digit number derived from the user id (SHA-256)."""
    if _LOGGED_IDS.get():
        return FIRST_CERTIFICATE_NUMBER
    return 1_000_000 + int.from_bytes(_digest("certificate", user_id)[:4], "big") % 9_000_000


def _next_letters(rid: str) -> str:
    """The next id in letter order: ``HATHAT`` -> ``HATHAU``, ``HATHAZ`` -> ``HATHBA``."""
    chars = list(rid)
    for i in range(len(chars) - 1, -1, -1):
        if chars[i] != "Z":
            chars[i] = chr(ord(chars[i]) + 1)
            return "".join(chars)
        chars[i] = "A"
    raise ToolError("could not allocate a reservation id")  # pragma: no cover


def _new_reservation_id(reservations: dict[str, Any], user_id: str = "") -> str:
    """The first free id of the sequence from :func:`reservation_id_start` (``HATHAT``,
    ``HATHAU``, ``HATHAV``, ... when replaying the logged system).

    The logged system tries exactly those three (its comment: at most 3 bookings per task) and
    would overwrite ``HATHAV`` on a fourth; the sandbox goes on counting (``HATHAW``, ...) instead
    of overwriting a reservation. Every logged booking is one of the first three."""
    rid = reservation_id_start(user_id)
    while rid in reservations:
        rid = _next_letters(rid)
    return rid


def _new_certificate_id(payment_methods: dict[str, Any], user_id: str = "") -> str:
    """The first ``certificate_<n>`` for n = :func:`certificate_number_start`, n+1, ... not among
    the user's payment methods (3221322, 3221323, ... when replaying the logged system, which
    tries those three and adds nothing on a fourth; the sandbox goes on)."""
    n = certificate_number_start(user_id)
    while f"certificate_{n}" in payment_methods:
        n += 1
    return f"certificate_{n}"


def _add_days(date: str, days: int) -> str:
    return (_dt.date.fromisoformat(date) + _dt.timedelta(days=days)).isoformat()


def _flight_view(flight: dict[str, Any], day: dict[str, Any]) -> dict[str, Any]:
    return {
        "flight_number": flight["flight_number"],
        "origin": flight["origin"],
        "destination": flight["destination"],
        "scheduled_departure_time_est": flight["scheduled_departure_time_est"],
        "scheduled_arrival_time_est": flight["scheduled_arrival_time_est"],
        "status": day["status"],
        "available_seats": day["available_seats"],
        "prices": day["prices"],
    }


def _shown(flight: dict[str, Any], day: dict[str, Any]) -> dict[str, Any]:
    """A flight as the logged system lists it: the flight record without ``dates``, updated with
    one date record (for an ``available`` date the same fields as :func:`_flight_view`)."""
    out = {k: v for k, v in flight.items() if k != "dates"}
    out.update(day)
    return out


def _payment_source(user: dict[str, Any], payment_id: str) -> dict[str, Any]:
    pm = user["payment_methods"].get(payment_id)
    if pm is None:
        raise ToolError("payment method not found")
    return pm


# ---- read tools ------------------------------------------------------------------------------

@_register({
    "name": "get_user_details",
    "description": "Get the profile of a user: name, address, email, date of birth, stored payment "
                   "methods (with gift card and certificate balances), saved passengers, membership "
                   "tier and reservation ids.",
    "parameters": _params({"user_id": _USER_ID}),
})
def get_user_details(state: dict[str, Any], user_id: str) -> str:
    """Return the user record as JSON text. Raises ToolError("user not found")."""
    return _dumps(_user(state, user_id))


@_register({
    "name": "get_reservation_details",
    "description": "Get a reservation: its user, route, trip type, cabin, flights with the price "
                   "paid per passenger, passengers, payment history, creation time, baggage and "
                   "insurance.",
    "parameters": _params({"reservation_id": _RES_ID}),
})
def get_reservation_details(state: dict[str, Any], reservation_id: str) -> str:
    """Return the reservation record as JSON text. Raises ToolError("reservation not found")."""
    return _dumps(_reservation(state, reservation_id))


@_register({
    "name": "search_direct_flight",
    "description": "Search direct flights between two airports on a date. Only flights that can "
                   "still be booked on that date are listed, with seats left and price per "
                   "passenger for each cabin.",
    "parameters": _params({
        "origin": _AIRPORT,
        "destination": _AIRPORT,
        "date": {**_DATE, "description": "Departure date, 'YYYY-MM-DD'."},
    }),
})
def search_direct_flight(state: dict[str, Any], origin: str, destination: str, date: str) -> str:
    """JSON list of bookable direct flights ``origin -> destination`` on ``date`` (status
    ``available``), each with scheduled times, ``available_seats`` and ``prices`` per cabin."""
    out = []
    for flight in state["flights"].values():
        if flight["origin"] != origin or flight["destination"] != destination:
            continue
        day = flight["dates"].get(date)
        if day and day.get("status") == "available":
            out.append(_flight_view(flight, day))
    return _dumps(out)


@_register({
    "name": "search_onestop_flight",
    "description": "Search one-stop itineraries between two airports departing on a date: pairs "
                   "of bookable flights where the second leg leaves the connecting airport after "
                   "the first one lands (on the next day when the first leg arrives after "
                   "midnight; such a second leg is listed with its seats and prices of the first "
                   "leg's date).",
    "parameters": _params({
        "origin": _AIRPORT,
        "destination": _AIRPORT,
        "date": {**_DATE, "description": "Departure date of the first leg, 'YYYY-MM-DD'."},
    }),
})
def search_onestop_flight(state: dict[str, Any], origin: str, destination: str, date: str) -> str:
    """JSON list of ``[leg1, leg2]`` pairs; each leg is the flight record (without ``dates``),
    its date record and its ``date``.

    As the logged system does: a first-leg arrival time with suffix ``+1`` moves the second leg to
    the next day; a pair is skipped when the first leg's arrival time string sorts after the
    second leg's departure (``"01:10:00+1" > "01:10:00"``); both legs must be ``available`` on
    their dates; and the second leg is shown with its record of the *first* leg's date (seats,
    prices, status), labelled with its own date. When the second flight has no record on the first
    leg's date (the logged system fails there) its own date's record is shown. Not copied: the
    logged system writes the next day as ``2024-05-<day + 1>`` (no zero padding, no month end),
    which finds no connection for first legs on the 1st-8th or the 31st; the sandbox uses the
    calendar's next day (no logged call tells them apart).
    """
    flights = list(state["flights"].values())
    out = []
    for f1 in flights:
        if f1["origin"] != origin:
            continue
        d1 = f1["dates"].get(date)
        if not d1 or d1.get("status") != "available":
            continue
        arrival = f1["scheduled_arrival_time_est"]
        date2 = _add_days(date, 1) if "+1" in arrival else date
        for f2 in flights:
            if f2["destination"] != destination or f2["origin"] != f1["destination"]:
                continue
            if arrival > f2["scheduled_departure_time_est"]:
                continue
            d2 = f2["dates"].get(date2)
            if not d2 or d2.get("status") != "available":
                continue
            shown2 = f2["dates"].get(date, d2)
            out.append([{**_shown(f1, d1), "date": date}, {**_shown(f2, shown2), "date": date2}])
    return _dumps(out)


@_register({
    "name": "list_all_airports",
    "description": "List the airports the airline serves: IATA code -> city.",
    "parameters": _params({}),
})
def list_all_airports(state: dict[str, Any]) -> str:
    """JSON object ``{code: city}`` of every airport that appears in the flight table."""
    served = set()
    for flight in state["flights"].values():
        served.update((flight["origin"], flight["destination"]))
    out = {code: city for code, city in AIRPORTS.items() if code in served}
    out.update({code: code for code in sorted(served - set(AIRPORTS))})
    return _dumps(out)


# ---- the tools every domain shares (pipeline.domains.shared), in this domain's words --------------

register_shared_tools(
    _register,
    calculate_description="Calculate the result of an arithmetic expression with numbers, + - * /, "
                          "parentheses and spaces.",
    expression_description="Such as '2 * (120 + 35) - 50'.",
    think_description="Think about something: write down a reasoning step. It does not read or "
                      "change any data; use it for complex reasoning or to plan.",
    handoff_description="Transfer the customer to a human agent with a summary of the issue. Only use "
                        "it when the request cannot be handled with the other tools within the policy.",
)


# ---- write tools -----------------------------------------------------------------------------

@_register({
    "name": "book_reservation",
    "description": "Book a reservation for a user. All passengers fly the same flights in the "
                   "same cabin. The payments must add up to the total: flight prices times "
                   "passengers, plus insurance per passenger when bought, plus the fee for each "
                   "non-free checked bag.",
    "parameters": _params({
        "user_id": _USER_ID,
        "origin": _AIRPORT,
        "destination": _AIRPORT,
        "flight_type": {"type": "string", "enum": ["one_way", "round_trip"]},
        "cabin": _CABIN,
        "flights": {
            "type": "array", "minItems": 1, "items": _FLIGHT_ITEM,
            "description": "Every flight segment of the trip, in travel order.",
        },
        "passengers": {
            "type": "array", "minItems": 1, "items": _PASSENGER_ITEM,
            "description": "Every passenger: first name, last name, date of birth.",
        },
        "payment_methods": {
            "type": "array", "minItems": 1,
            "items": {
                "type": "object",
                "properties": {
                    "payment_id": _PAYMENT_ID,
                    "amount": {"type": "number", "description": "Dollars charged to it."},
                },
                "required": ["payment_id", "amount"],
                "additionalProperties": False,
            },
            "description": "Payment methods from the user's profile and the amount for each.",
        },
        "total_baggages": {"type": "integer", "minimum": 0, "description": "All checked bags."},
        "nonfree_baggages": {"type": "integer", "minimum": 0,
                             "description": "Checked bags beyond the free allowance (paid)."},
        "insurance": {"type": "string", "enum": ["yes", "no"]},
    }),
}, writes=True)
def book_reservation(
    state: dict[str, Any],
    user_id: str,
    origin: str,
    destination: str,
    flight_type: str,
    cabin: str,
    flights: list[dict[str, Any]],
    passengers: list[dict[str, Any]],
    payment_methods: list[dict[str, Any]],
    total_baggages: int,
    nonfree_baggages: int,
    insurance: str,
) -> str:
    """Create a reservation; return its JSON text.

    Total price = sum(current cabin price of each flight) x passengers + 30 x passengers if
    ``insurance == "yes"`` + 50 x ``nonfree_baggages``. Gift cards are debited by the amount
    used; a certificate used for payment is consumed whole (its remainder is not refundable).
    Seats are taken on every flight. The id is the first free one of the user's sequence
    (``HATHAT``, ``HATHAU``, ``HATHAV``, ... when replaying the logged system, :func:`_new_reservation_id`); ``created_at`` is NOW.

    Raises ToolError: "user not found", "flight X not found", "flight X not found on date D",
    "flight X not available on date D", "not enough seats on flight X", "payment method X not
    found", "not enough balance in payment method X", "payment amount does not add up, total
    price is T, but paid P", and for invalid cabin/flight type/insurance/bag counts.
    """
    user = _user(state, user_id)
    _check_cabin(cabin)
    if flight_type not in ("one_way", "round_trip"):
        raise ToolError(f"invalid flight type {flight_type!r}")
    if insurance not in ("yes", "no"):
        raise ToolError("insurance must be 'yes' or 'no'")
    if not passengers:
        raise ToolError("at least one passenger is required")
    if not flights:
        raise ToolError("at least one flight is required")
    if total_baggages < 0 or nonfree_baggages < 0 or nonfree_baggages > total_baggages:
        raise ToolError("invalid baggage counts")
    n = len(passengers)
    segments = []
    total = 0.0
    for item in flights:
        fno, date = item["flight_number"], item["date"]
        flight, day = _bookable(state, fno, date, cabin, n)
        price = day["prices"][cabin]
        segments.append({"origin": flight["origin"], "destination": flight["destination"],
                         "flight_number": fno, "date": date, "price": price})
        total += price * n
    if insurance == "yes":
        total += INSURANCE_FEE * n
    total += BAG_FEE * nonfree_baggages

    payments = []
    for p in payment_methods:
        pid, amount = p["payment_id"], p["amount"]
        pm = user["payment_methods"].get(pid)
        if pm is None:
            raise ToolError(f"payment method {pid} not found")
        if pm["source"] in ("gift_card", "certificate") and pm["amount"] < amount:
            raise ToolError(f"not enough balance in payment method {pid}")
        payments.append({"payment_id": pid, "amount": amount})
    paid = sum(p["amount"] for p in payments)
    if round(paid, 2) != round(total, 2):
        raise ToolError(f"payment amount does not add up, total price is {_num(total)}, but paid {_num(paid)}")

    rid = _new_reservation_id(state["reservations"], user_id)
    for p in payments:
        pm = user["payment_methods"][p["payment_id"]]
        if pm["source"] == "gift_card":
            pm["amount"] = _num(pm["amount"] - p["amount"])
        elif pm["source"] == "certificate":
            del user["payment_methods"][p["payment_id"]]
    for seg in segments:
        _adjust_seats(state, seg["flight_number"], seg["date"], cabin, -n)
    reservation = {
        "reservation_id": rid,
        "user_id": user_id,
        "origin": origin,
        "destination": destination,
        "flight_type": flight_type,
        "cabin": cabin,
        "flights": segments,
        "passengers": [{"first_name": p["first_name"], "last_name": p["last_name"], "dob": p["dob"]}
                       for p in passengers],
        "payment_history": payments,
        "created_at": NOW,
        "total_baggages": total_baggages,
        "nonfree_baggages": nonfree_baggages,
        "insurance": insurance,
    }
    state["reservations"][rid] = reservation
    user["reservations"].append(rid)
    return _dumps(reservation)


@_register({
    "name": "update_reservation_flights",
    "description": "Change the flights and/or the cabin of a reservation. Pass the complete new "
                   "list of flights (unchanged segments too). Segments kept in the same cabin keep "
                   "the price paid; every other segment is priced at today's price for the cabin "
                   "(the reservation's recorded cabin field stays as booked). "
                   "The difference for all passengers is charged to (or refunded to) one credit "
                   "card or gift card from the profile.",
    "parameters": _params({
        "reservation_id": _RES_ID,
        "cabin": _CABIN,
        "flights": {
            "type": "array", "minItems": 1, "items": _FLIGHT_ITEM,
            "description": "The whole new itinerary, in travel order, including kept segments.",
        },
        "payment_id": _PAYMENT_ID,
    }),
}, writes=True)
def update_reservation_flights(
    state: dict[str, Any], reservation_id: str, cabin: str, flights: list[dict[str, Any]], payment_id: str,
) -> str:
    """Replace the reservation's flights, priced in ``cabin``; return the updated reservation as JSON text.

    As the logged system does, the reservation's recorded ``cabin`` is NOT changed: ``cabin``
    decides the new segments' prices (current prices of that cabin) and whether a segment is kept
    (same flight and date, and ``cabin`` equal to the recorded one). After a cabin change the
    record therefore shows the booked cabin with the new cabin's prices.

    Difference = (sum of new segment prices - sum of old segment prices) x passengers; a
    non-zero difference is appended to ``payment_history`` (negative = refund) and applied to a
    gift card's balance. Seats move from the old segments (recorded cabin) to the new ones
    (``cabin``): the sandbox's own bookkeeping, the logged system moves no seats on any write.

    Raises ToolError: "reservation not found", "reservation is cancelled", "payment method not
    found", "certificate cannot be used to update reservation", "gift card balance is not
    enough", the flight-availability errors of ``book_reservation``. Does NOT check the policy
    (basic economy, same origin/destination/trip type): the agent must.
    """
    res = _reservation(state, reservation_id)
    if res.get("status") == "cancelled":
        raise ToolError("reservation is cancelled")
    _check_cabin(cabin)
    user = _user(state, res["user_id"])
    pm = _payment_source(user, payment_id)
    n = len(res["passengers"])
    old = {(f["flight_number"], f["date"]): f for f in res["flights"]}
    new_segments, kept = [], set()
    for item in flights:
        key = (item["flight_number"], item["date"])
        if key in old and cabin == res["cabin"] and key not in kept:
            kept.add(key)
            new_segments.append(dict(old[key]))
            continue
        flight, day = _bookable(state, key[0], key[1], cabin, n)
        new_segments.append({"origin": flight["origin"], "destination": flight["destination"],
                             "flight_number": key[0], "date": key[1], "price": day["prices"][cabin]})
    diff = (sum(s["price"] for s in new_segments) - sum(f["price"] for f in res["flights"])) * n
    if pm["source"] == "certificate":
        raise ToolError("certificate cannot be used to update reservation")
    if pm["source"] == "gift_card" and pm["amount"] < diff:
        raise ToolError("gift card balance is not enough")

    if pm["source"] == "gift_card":
        pm["amount"] = _num(pm["amount"] - diff)
    for key, seg in old.items():
        if key not in kept:
            _adjust_seats(state, key[0], key[1], res["cabin"], +n)
    for seg in new_segments:
        if (seg["flight_number"], seg["date"]) not in kept:
            _adjust_seats(state, seg["flight_number"], seg["date"], cabin, -n)
    res["flights"] = new_segments
    # The logged system keeps the recorded cabin: ``cabin`` only prices the segments (and says
    # which segments are kept). So does the sandbox, to be that system (docs/domains.md section 12).
    if diff != 0:
        res["payment_history"].append({"payment_id": payment_id, "amount": _num(diff)})
    return _dumps(res)


@_register({
    "name": "update_reservation_baggages",
    "description": "Set the checked-bag counts of a reservation. Each additional non-free bag is "
                   "charged to one credit card or gift card from the profile.",
    "parameters": _params({
        "reservation_id": _RES_ID,
        "total_baggages": {"type": "integer", "minimum": 0, "description": "New total of checked bags."},
        "nonfree_baggages": {"type": "integer", "minimum": 0,
                             "description": "New number of bags beyond the free allowance."},
        "payment_id": _PAYMENT_ID,
    }),
}, writes=True)
def update_reservation_baggages(
    state: dict[str, Any], reservation_id: str, total_baggages: int, nonfree_baggages: int, payment_id: str,
) -> str:
    """Set ``total_baggages``/``nonfree_baggages``; return the reservation as JSON text.

    Fee = 50 x max(0, new nonfree - old nonfree); when positive it is appended to
    ``payment_history`` and debited from a gift card. Raises ToolError: "reservation not found",
    "reservation is cancelled", "invalid baggage counts", "payment method not found",
    "certificate cannot be used to update reservation", "gift card balance is not enough". The
    allowance and the add-only rule are the agent's job (see rules.free_bags).
    """
    res = _reservation(state, reservation_id)
    if res.get("status") == "cancelled":
        raise ToolError("reservation is cancelled")
    if total_baggages < 0 or nonfree_baggages < 0 or nonfree_baggages > total_baggages:
        raise ToolError("invalid baggage counts")
    user = _user(state, res["user_id"])
    pm = _payment_source(user, payment_id)
    fee = BAG_FEE * max(0, nonfree_baggages - res["nonfree_baggages"])
    if pm["source"] == "certificate":
        raise ToolError("certificate cannot be used to update reservation")
    if pm["source"] == "gift_card" and pm["amount"] < fee:
        raise ToolError("gift card balance is not enough")
    res["total_baggages"] = total_baggages
    res["nonfree_baggages"] = nonfree_baggages
    if fee > 0:
        if pm["source"] == "gift_card":
            pm["amount"] = _num(pm["amount"] - fee)
        res["payment_history"].append({"payment_id": payment_id, "amount": fee})
    return _dumps(res)


@_register({
    "name": "update_reservation_passengers",
    "description": "Replace the passenger details of a reservation. The number of passengers "
                   "cannot change.",
    "parameters": _params({
        "reservation_id": _RES_ID,
        "passengers": {
            "type": "array", "minItems": 1, "items": _PASSENGER_ITEM,
            "description": "All passengers (same count as now), each with first name, last name, "
                           "date of birth.",
        },
    }),
}, writes=True)
def update_reservation_passengers(state: dict[str, Any], reservation_id: str, passengers: list[dict[str, Any]]) -> str:
    """Replace the passenger list; return the reservation as JSON text.

    Raises ToolError: "reservation not found", "reservation is cancelled", "number of passengers
    does not match".
    """
    res = _reservation(state, reservation_id)
    if res.get("status") == "cancelled":
        raise ToolError("reservation is cancelled")
    if len(passengers) != len(res["passengers"]):
        raise ToolError("number of passengers does not match")
    res["passengers"] = [{"first_name": p["first_name"], "last_name": p["last_name"], "dob": p["dob"]}
                         for p in passengers]
    return _dumps(res)


@_register({
    "name": "cancel_reservation",
    "description": "Cancel a whole reservation. Every payment is refunded to its original "
                   "payment method (arrives in 5 to 7 business days).",
    "parameters": _params({"reservation_id": _RES_ID}),
}, writes=True)
def cancel_reservation(state: dict[str, Any], reservation_id: str) -> str:
    """Mark the reservation ``"status": "cancelled"``, append one refund (negated amount) per
    payment-history entry and release the seats; return the reservation as JSON text.

    Raises ToolError: "reservation not found", "reservation is already cancelled". Whether the
    cancellation is allowed is the agent's job (rules.cancellation_allowed).
    """
    res = _reservation(state, reservation_id)
    if res.get("status") == "cancelled":
        raise ToolError("reservation is already cancelled")
    refunds = [{"payment_id": p["payment_id"], "amount": _num(-p["amount"])} for p in res["payment_history"]]
    res["payment_history"].extend(refunds)
    for seg in res["flights"]:
        _adjust_seats(state, seg["flight_number"], seg["date"], res["cabin"], len(res["passengers"]))
    res["status"] = "cancelled"
    return _dumps(res)


@_register({
    "name": "send_certificate",
    "description": "Add a travel certificate of the given amount to a user's profile, as a "
                   "goodwill gesture allowed by the policy.",
    "parameters": _params({
        "user_id": _USER_ID,
        "amount": {"type": "number", "exclusiveMinimum": 0, "description": "Certificate value in dollars."},
    }),
}, writes=True)
def send_certificate(state: dict[str, Any], user_id: str, amount: float) -> str:
    """Add ``{"source": "certificate", "amount", "id"}`` to the user's payment methods; the id
    ``certificate_<n>`` is the first of the user's sequence not among the user's payment methods
    (``certificate_3221322``, ``certificate_3221323``, ... when replaying the logged system,
    :func:`_new_certificate_id`).

    Returns ``"Certificate <id> added to user <user_id> with amount <amount>."``. Raises
    ToolError: "user not found", "amount must be positive".
    """
    user = _user(state, user_id)
    if not amount > 0:
        raise ToolError("amount must be positive")
    cid = _new_certificate_id(user["payment_methods"], user_id)
    user["payment_methods"][cid] = {"source": "certificate", "amount": _num(amount), "id": cid}
    return f"Certificate {cid} added to user {user_id} with amount {_num(amount)}."


WRITE_TOOLS: frozenset[str] = frozenset(name for name, t in TOOLS.items() if t.writes)
READ_TOOLS: frozenset[str] = frozenset(name for name, t in TOOLS.items() if not t.writes)


def invoke(state: dict[str, Any], name: str, arguments: dict[str, Any]) -> str:
    """Validate ``arguments`` against the tool's JSON schema, then run it on ``state``.

    Convenience for callers that hold raw model output. Raises ToolError("unknown tool ...") or
    ToolError("invalid arguments: ...") before running, or whatever the tool raises.
    """
    import jsonschema

    tool = TOOLS.get(name)
    if tool is None:
        raise ToolError(f"unknown tool {name}")
    try:
        jsonschema.validate(arguments, tool.schema["function"]["parameters"])
    except jsonschema.ValidationError as exc:
        raise ToolError(f"invalid arguments: {exc.message}") from None
    return tool.fn(state, **arguments)
