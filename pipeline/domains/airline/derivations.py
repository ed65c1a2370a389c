"""The airline's derivation rules for the grounded-arguments check (``derived_values`` hook of
:mod:`pipeline.verify.grounding`): values an agent may put in a tool call without having seen
them verbatim, because the policy tells it how to compute them from what it has seen.

Every rule reads only the agent's evidence (customer turns, earlier tool results, the call's own
arguments), never the hidden state:

* **airport codes**: the IATA code of a city the customer names (the public table
  ``list_all_airports`` returns, :data:`~pipeline.domains.airline.state.AIRPORTS`), except the
  New York area (JFK, LGA, EWR: a city name does not pick one);
* **passenger counts**: the number of passengers of every reservation seen and of the call's own
  ``passengers`` list (e.g. in a ``calculate`` expression);
* **policy constants**: the bag fee (50), the insurance fee (30) per passenger and the certificate
  rates (100 per passenger for a cancelled flight, 50 for a delayed one);
* **certificate amounts** (``send_certificate.amount``): rate x passengers of a reservation seen;
* **baggage** (``update_reservation_baggages``): the new ``total_baggages`` = the reservation's
  current total (its ``get_reservation_details`` result) + a count the customer states (digits or
  words); ``nonfree_baggages`` = max(0, total - free bags per passenger x passengers), the free
  allowance by the reservation owner's membership (``get_user_details``) and the cabin
  (rule ``airline.book.baggage``);
* **booking** (``book_reservation``): ``nonfree_baggages`` as above for the call's cabin and
  passengers; the price = sum over the call's flights of the searched price of its cabin
  (``search_direct_flight`` / ``search_onestop_flight`` results) x passengers + 30 x passengers
  when insured + 50 x nonfree bags; a payment amount may be the whole price, half of it (a split
  the customer asks for), or what the earlier payment entries leave of it (e.g. the rest after a
  gift card's balance, which is itself a seen number).
"""
from __future__ import annotations

import re
from typing import Any, Iterable

from .rules import FREE_BAGS, compensation_amount
from .state import AIRPORTS
from .tools import BAG_FEE, INSURANCE_FEE

#: New York area airports: "New York" names none of them unambiguously.
AMBIGUOUS_CODES = frozenset({"JFK", "LGA", "EWR"})


def _int(x: Any) -> int | None:
    return x if isinstance(x, int) and not isinstance(x, bool) else None


def _reservations(ev: Any) -> list[dict[str, Any]]:
    return [r.data for r in ev.results_of("get_reservation_details") if isinstance(r.data, dict)]


def _membership(ev: Any, user_id: str | None) -> list[str]:
    """Membership tiers of the seen ``get_user_details`` results (of ``user_id`` when it was
    looked up, else of every user seen)."""
    users = [(r.arguments.get("user_id"), r.data) for r in ev.results_of("get_user_details") if isinstance(r.data, dict)]
    mine = [u.get("membership") for uid, u in users if uid == user_id]
    return [m for m in (mine or [u.get("membership") for _, u in users]) if m in FREE_BAGS]


def _customer_counts(ev: Any) -> set[int]:
    """Whole numbers 0-100 the customer said (digits or count words): bags to add."""
    return {int(x) for x in ev.customer_numbers if x == int(x) and 0 <= x <= 100}


def _nonfree(total: int, memberships: Iterable[str], cabin: Any, n: int) -> set[int]:
    return {max(0, total - FREE_BAGS[m].get(cabin, 0) * n) for m in memberships if cabin in FREE_BAGS[m]}


def _searched_prices(ev: Any) -> dict[tuple[str, str | None], dict[str, Any]]:
    """(flight number, date or None) -> prices per cabin, from the flight searches seen (a direct
    search's results carry no date: its call's ``date`` argument is the date)."""
    out: dict[tuple[str, str | None], dict[str, Any]] = {}
    for name in ("search_direct_flight", "search_onestop_flight"):
        for r in ev.results_of(name):
            if not isinstance(r.data, list):
                continue
            for item in r.data:
                for view in (item if isinstance(item, list) else [item]):
                    if isinstance(view, dict) and isinstance(view.get("prices"), dict):
                        date = view.get("date") or r.arguments.get("date")
                        out[(view.get("flight_number"), date)] = view["prices"]
                        out.setdefault((view.get("flight_number"), None), view["prices"])
    return out


def _booking_amounts(arguments: dict[str, Any], ev: Any, nonfree_options: set[int]) -> set[float]:
    flights = arguments.get("flights") or []
    passengers = arguments.get("passengers") or []
    cabin = arguments.get("cabin")
    prices = _searched_prices(ev)
    fare = 0.0
    for f in flights:
        if not isinstance(f, dict):
            return set()
        p = prices.get((f.get("flight_number"), f.get("date"))) or prices.get((f.get("flight_number"), None))
        if not p or not isinstance(p.get(cabin), (int, float)):
            return set()
        fare += p[cabin]
    if not flights or not isinstance(passengers, list):
        return set()
    n = len(passengers)
    nonfree = {_int(arguments.get("nonfree_baggages"))} - {None} or nonfree_options
    out: set[float] = set()
    for nf in nonfree:
        total = fare * n + (INSURANCE_FEE * n if arguments.get("insurance") == "yes" else 0) + BAG_FEE * nf
        out |= {total, total / 2, float(int(total // 2)), total - int(total // 2)}
        paid = 0.0
        for pm in arguments.get("payment_methods") or []:
            out.add(round(total - paid, 2))
            amount = pm.get("amount") if isinstance(pm, dict) else None
            if isinstance(amount, (int, float)) and not isinstance(amount, bool):
                paid += amount
    return out


def _has_word(text: str, phrase: str) -> bool:
    return re.search(r"(?<!\w)" + re.escape(phrase.casefold()) + r"(?!\w)", text.casefold()) is not None


def derived_values(name: str, arguments: dict[str, Any], ev: Any) -> list[Any]:
    """Values the airline policy derives for a call to ``name`` from the evidence ``ev`` (a
    :class:`pipeline.verify.grounding.Evidence`); see the module docstring for the rules."""
    out: list[Any] = []
    for code, city in AIRPORTS.items():
        if code not in AMBIGUOUS_CODES and any(_has_word(t, city) for t in ev.customer_texts):
            out.append(code)
    reservations = _reservations(ev)
    counts = {len(r.get("passengers") or []) for r in reservations}
    if isinstance(arguments.get("passengers"), list):
        counts.add(len(arguments["passengers"]))
    counts.discard(0)
    out += sorted(counts)
    out += [BAG_FEE, INSURANCE_FEE, compensation_amount(1, "cancelled"), compensation_amount(1, "delayed")]
    if name in ("send_certificate", "calculate"):
        out += [compensation_amount(n, cause) for n in counts for cause in ("cancelled", "delayed")]
    if name == "update_reservation_baggages":
        rid = arguments.get("reservation_id")
        for res in reservations:
            if res.get("reservation_id") != rid or _int(res.get("total_baggages")) is None:
                continue
            out += [res["total_baggages"] + k for k in _customer_counts(ev)]
            total = _int(arguments.get("total_baggages"))
            if total is not None:
                out += sorted(_nonfree(total, _membership(ev, res.get("user_id")), res.get("cabin"),
                                       len(res.get("passengers") or [])))
    if name == "book_reservation":
        nonfree: set[int] = set()
        total = _int(arguments.get("total_baggages"))
        if total is not None and isinstance(arguments.get("passengers"), list):
            nonfree = _nonfree(total, _membership(ev, arguments.get("user_id")), arguments.get("cabin"),
                               len(arguments["passengers"]))
        out += sorted(nonfree)
        out += sorted(_booking_amounts(arguments, ev, nonfree))
    return out

