"""The airline policy as data (one :class:`PolicyRule` per rule of ``policy.md``) plus checkers.

``policy.md`` is the single source: every bullet ``- [rule.id] text`` becomes
``PolicyRule(rule_id="rule.id", text="text")``, so a rule's text always quotes the policy the
agent is given. :func:`rules_for_tools` says which rules constrain which tools. The checker
functions decide, from a state, what the policy allows; the tools do not enforce these rules
(the policy leaves them to the agent), so task generators and verifiers use these.
"""
from __future__ import annotations

import datetime as _dt
import re
from pathlib import Path
from typing import Any, Iterable

from pipeline.domains.common import parse_policy_rules, select_rules
from pipeline.records import PolicyRule

from .state import NOW

POLICY_PATH = Path(__file__).with_name("policy.md")
#: The policy document given to agents (markdown).
POLICY_TEXT: str = POLICY_PATH.read_text(encoding="utf-8")


def parse_rules(policy_text: str) -> list[PolicyRule]:
    """Every ``- [rule.id] text`` bullet of ``policy_text``, in document order.

    Raises ValueError on a duplicate rule id.
    """
    return parse_policy_rules(policy_text, "airline")


#: All rules of the airline policy, in document order.
RULES: list[PolicyRule] = parse_rules(POLICY_TEXT)
RULES_BY_ID: dict[str, PolicyRule] = {r.rule_id: r for r in RULES}

#: Rules that bind every state-changing tool call.
GENERAL_WRITE_RULES = ("airline.general.confirm", "airline.general.identify", "airline.general.facts_only",
                       "airline.general.one_step", "airline.general.deny")

#: Tool name -> ids of the rules specific to it.
TOOL_RULES: dict[str, tuple[str, ...]] = {
    "book_reservation": ("airline.data.flight_status", "airline.book.collect", "airline.book.passengers",
                         "airline.book.payment", "airline.book.baggage", "airline.book.insurance"),
    "update_reservation_flights": ("airline.data.flight_status", "airline.modify.identify",
                                   "airline.modify.basic_economy", "airline.modify.same_route",
                                   "airline.modify.cabin", "airline.modify.payment"),
    "update_reservation_baggages": ("airline.modify.identify", "airline.modify.baggage", "airline.book.baggage"),
    "update_reservation_passengers": ("airline.modify.identify", "airline.modify.passengers"),
    "cancel_reservation": ("airline.cancel.collect", "airline.cancel.eligibility", "airline.cancel.unflown",
                           "airline.cancel.refund"),
    "send_certificate": ("airline.compensation.cancelled_flight", "airline.compensation.delayed_flight",
                         "airline.compensation.limits"),
    "transfer_to_human_agents": ("airline.general.transfer", "airline.cancel.unflown"),
}
_WRITE_TOOLS = {"book_reservation", "update_reservation_flights", "update_reservation_baggages",
                "update_reservation_passengers", "cancel_reservation", "send_certificate"}


def rules_for_tools(tool_names: Iterable[str]) -> list[PolicyRule]:
    """The rules that constrain calls to ``tool_names``, in policy order, without repeats.

    Write tools get the general rules (confirmation, identification, ...) plus their own;
    ``transfer_to_human_agents`` gets the transfer rules; read tools and unknown names add
    nothing. Example: ``rules_for_tools(["cancel_reservation"])`` includes
    ``airline.cancel.eligibility``.
    """
    return select_rules(RULES, tool_names, _WRITE_TOOLS, GENERAL_WRITE_RULES, TOOL_RULES)


# ---- checkers --------------------------------------------------------------------------------

#: Free checked bags per passenger: membership -> cabin -> count (rule airline.book.baggage).
FREE_BAGS: dict[str, dict[str, int]] = {
    "regular": {"basic_economy": 0, "economy": 1, "business": 2},
    "silver": {"basic_economy": 1, "economy": 2, "business": 3},
    "gold": {"basic_economy": 2, "economy": 3, "business": 3},
}

#: Cancellation reasons the policy names (rule airline.cancel.collect) plus the insured ones
#: (airline.book.insurance).
CANCEL_REASONS = ("change_of_plan", "airline_cancelled", "health", "weather", "other")
INSURED_REASONS = frozenset({"health", "weather"})


def free_bags(membership: str, cabin: str) -> int:
    """Free checked bags for ONE passenger (rule airline.book.baggage). KeyError if unknown."""
    return FREE_BAGS[membership][cabin]


def nonfree_bags(membership: str, cabin: str, n_passengers: int, total_bags: int) -> int:
    """Paid bags for a reservation: ``max(0, total_bags - free_bags * n_passengers)``."""
    return max(0, total_bags - free_bags(membership, cabin) * n_passengers)


def within_24h(created_at: str, now: str = NOW) -> bool:
    """True when ``created_at`` (ISO, EST) is at most 24 hours before ``now`` (rule
    airline.cancel.eligibility)."""
    created = _dt.datetime.fromisoformat(created_at)
    current = _dt.datetime.fromisoformat(now)
    return _dt.timedelta(0) <= current - created <= _dt.timedelta(hours=24)


def normalise_reason(reason: str) -> str:
    """Map a free-text cancellation reason onto :data:`CANCEL_REASONS` (default ``"other"``).

    Examples: "change of plan" -> change_of_plan, "the airline cancelled my flight" ->
    airline_cancelled, "I got sick" -> health, "a hurricane" -> weather.
    """
    r = " " + reason.lower().replace("_", " ") + " "
    if re.search(r"airline (has )?cancel|flight (was |got |has been |is )?cancel", r):
        return "airline_cancelled"
    if re.search(r"change (of|in) plan|plans? (have |has )?changed|\bplan\b", r):
        return "change_of_plan"
    if re.search(r"\b(health|sick|ill|illness|medical|hospital\w*|injur\w*|surgery|doctor)\b", r):
        return "health"
    if re.search(r"\b(weather|storm\w*|snow\w*|hurricane|blizzard|flood\w*)\b", r):
        return "weather"
    return "other"


def segment_status(state: dict[str, Any], flight_number: str, date: str) -> str | None:
    """The stored status of a flight on a date, or None when the flight/date is unknown."""
    day = state["flights"].get(flight_number, {}).get("dates", {}).get(date)
    return None if day is None else day.get("status")


def segment_flown(state: dict[str, Any], flight_number: str, date: str) -> bool:
    """True when the segment has taken off (status flying/landed); for an unknown flight/date,
    when the date is before today (rule airline.cancel.unflown)."""
    status = segment_status(state, flight_number, date)
    if status is None:
        return date < NOW[:10]
    return status in ("flying", "landed")


def airline_cancelled(state: dict[str, Any], reservation: dict[str, Any]) -> bool:
    """True when any flight of ``reservation`` has status ``cancelled`` on its date."""
    return any(segment_status(state, f["flight_number"], f["date"]) == "cancelled" for f in reservation["flights"])


def cancellation_allowed(state: dict[str, Any], reservation_id: str, reason: str) -> bool:
    """May the agent cancel this reservation for ``reason``? (rules airline.cancel.eligibility,
    airline.cancel.unflown.)

    False when the reservation is unknown, already cancelled, or has a flown segment. Otherwise
    True when booked within 24 hours of NOW, when the reason is an airline cancellation and a
    flight really is cancelled, when the cabin is business, or when insurance was bought and the
    reason (see :func:`normalise_reason`) is health or weather.
    """
    res = state["reservations"].get(reservation_id)
    if res is None or res.get("status") == "cancelled":
        return False
    if any(segment_flown(state, f["flight_number"], f["date"]) for f in res["flights"]):
        return False
    why = reason if reason in CANCEL_REASONS else normalise_reason(reason)
    if within_24h(res["created_at"]):
        return True
    if why == "airline_cancelled" and airline_cancelled(state, res):
        return True
    if res["cabin"] == "business":
        return True
    return res["insurance"] == "yes" and why in INSURED_REASONS


def flight_change_allowed(state: dict[str, Any], reservation_id: str, new_flights: list[dict[str, Any]]) -> bool:
    """May the reservation's flights become ``new_flights`` ({flight_number, date} items)?
    (rules airline.modify.basic_economy, airline.modify.same_route.)

    An unchanged itinerary (a pure cabin change) is always allowed. Otherwise: not basic
    economy, not cancelled, and the new itinerary starts at the same origin and, for a one-way
    trip, ends at the same destination (a round trip must reach the same destination and come
    back to the origin).
    """
    res = state["reservations"].get(reservation_id)
    if res is None or res.get("status") == "cancelled" or not new_flights:
        return False
    old = [(f["flight_number"], f["date"]) for f in res["flights"]]
    new = [(f["flight_number"], f["date"]) for f in new_flights]
    if old == new:
        return True
    if res["cabin"] == "basic_economy":
        return False
    legs = []
    for fno, _date in new:
        flight = state["flights"].get(fno)
        if flight is None:
            return False
        legs.append((flight["origin"], flight["destination"]))
    if legs[0][0] != res["origin"]:
        return False
    if res["flight_type"] == "one_way":
        return legs[-1][1] == res["destination"]
    return legs[-1][1] == res["origin"] and any(d == res["destination"] for _o, d in legs)


def payment_methods_allowed(user: dict[str, Any], payment_methods: list[dict[str, Any]]) -> bool:
    """At most one certificate, one credit card and three gift cards, all in the profile
    (rule airline.book.payment)."""
    counts = {"certificate": 0, "credit_card": 0, "gift_card": 0}
    for p in payment_methods:
        pm = user["payment_methods"].get(p["payment_id"])
        if pm is None:
            return False
        counts[pm["source"]] += 1
    return counts["certificate"] <= 1 and counts["credit_card"] <= 1 and counts["gift_card"] <= 3


def baggage_change_allowed(reservation: dict[str, Any], new_total: int) -> bool:
    """Bags can only be added (rule airline.modify.baggage)."""
    return new_total >= reservation["total_baggages"]


def passenger_change_allowed(reservation: dict[str, Any], passengers: list[dict[str, Any]]) -> bool:
    """The number of passengers cannot change (rule airline.modify.passengers)."""
    return len(passengers) == len(reservation["passengers"])


def compensation_eligible(state: dict[str, Any], user_id: str, reservation_id: str) -> bool:
    """Silver/gold member, insured, or business reservation of that user (rules
    airline.compensation.cancelled_flight / delayed_flight / limits)."""
    user = state["users"].get(user_id)
    res = state["reservations"].get(reservation_id)
    if user is None or res is None or res["user_id"] != user_id:
        return False
    return user["membership"] in ("silver", "gold") or res["insurance"] == "yes" or res["cabin"] == "business"


def compensation_amount(n_passengers: int, cause: str = "cancelled") -> int:
    """Certificate value in dollars: 100 per passenger for a cancelled flight, 50 for a delayed
    one (rules airline.compensation.cancelled_flight / delayed_flight). ValueError otherwise."""
    per = {"cancelled": 100, "delayed": 50}.get(cause)
    if per is None:
        raise ValueError(f"cause must be 'cancelled' or 'delayed', got {cause!r}")
    return per * n_passengers
