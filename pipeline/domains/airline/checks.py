"""Airline verifier hooks: which executed calls break a rule (and what establishes identity).

The trajectory verifier (``pipeline.verify``) calls :func:`rule_violations` through the domain's
``rule_violations`` member (see ``pipeline/domains/base.py``); the identity tools and the
confirmation requirement are declared on the domain object (``AirlineDomain.identity_tools``,
``confirmation_required``). The rules are the ids of
``policy.md``; the decisions come from the checker functions of :mod:`.rules`, so task
generators and verifiers agree on what the policy allows.

**What establishes identity** (rule ``airline.general.identify``: "Start by getting the
customer's user id, and for an existing booking the reservation id, and look them up with the
tools before acting on them"): a *successful* ``get_user_details(user_id)`` of the customer the
write concerns. For a write on an existing reservation, that reservation must also have been
looked up with a successful ``get_reservation_details(reservation_id)`` before the write, and
the reservation's ``user_id`` must be a user looked up before. A reservation lookup alone does
not identify the customer: anyone can quote a reservation id.
"""
from __future__ import annotations

import copy
import json
from typing import Any

from . import rules as R
from .tools import TOOLS

_RES_WRITES = {"update_reservation_flights", "update_reservation_baggages", "update_reservation_passengers",
               "cancel_reservation"}
_USER_WRITES = {"book_reservation", "send_certificate"}


def _args(call: dict[str, Any]) -> dict[str, Any]:
    a = call.get("arguments") or {}
    if isinstance(a, str):
        try:
            a = json.loads(a)
        except json.JSONDecodeError:
            return {}
    return a if isinstance(a, dict) else {}


def _v(rule_id: str, step: int, detail: str) -> dict[str, Any]:
    return {"rule_id": rule_id, "step": step, "detail": detail}


def _write_violations(state: dict[str, Any], name: str, a: dict[str, Any], step: int) -> list[dict[str, Any]]:
    """Rules broken by the write ``name(**a)`` executed on ``state`` (the state *before* it)."""
    out: list[dict[str, Any]] = []
    res = state["reservations"].get(a.get("reservation_id", "")) if "reservation_id" in a else None
    if name == "cancel_reservation" and res is not None:
        if any(R.segment_flown(state, f["flight_number"], f["date"]) for f in res["flights"]):
            out.append(_v("airline.cancel.unflown", step, f"{a['reservation_id']} has a flown segment"))
        elif not any(R.cancellation_allowed(state, a["reservation_id"], why) for why in R.CANCEL_REASONS):
            out.append(_v("airline.cancel.eligibility", step,
                          f"{a['reservation_id']}: no reason makes a {res['cabin']} reservation with insurance "
                          f"{res['insurance']!r} booked at {res['created_at']} cancellable"))
    elif name == "update_reservation_flights" and res is not None:
        flights = a.get("flights") or []
        if not R.flight_change_allowed(state, a["reservation_id"], flights):
            rid = "airline.modify.basic_economy" if res["cabin"] == "basic_economy" else "airline.modify.same_route"
            out.append(_v(rid, step, f"{a['reservation_id']}: itinerary change not allowed"))
        user = state["users"].get(res["user_id"], {})
        pm = user.get("payment_methods", {}).get(a.get("payment_id", ""))
        if pm is not None and pm.get("source") not in ("gift_card", "credit_card"):
            out.append(_v("airline.modify.payment", step, f"pays with a {pm.get('source')}"))
    elif name == "update_reservation_baggages" and res is not None:
        total, nonfree = a.get("total_baggages"), a.get("nonfree_baggages")
        if isinstance(total, int) and not R.baggage_change_allowed(res, total):
            out.append(_v("airline.modify.baggage", step, f"bags {res['total_baggages']} -> {total}: removed"))
        user = state["users"].get(res["user_id"])
        if user is not None and isinstance(total, int) and isinstance(nonfree, int):
            want = R.nonfree_bags(user["membership"], res["cabin"], len(res["passengers"]), total)
            if nonfree != want:
                out.append(_v("airline.book.baggage", step, f"nonfree bags {nonfree}, allowance implies {want}"))
    elif name == "update_reservation_passengers" and res is not None:
        if not R.passenger_change_allowed(res, a.get("passengers") or []):
            out.append(_v("airline.modify.passengers", step,
                          f"{len(res['passengers'])} -> {len(a.get('passengers') or [])} passengers"))
    elif name == "book_reservation":
        user = state["users"].get(a.get("user_id", ""))
        pax = a.get("passengers") or []
        if len(pax) > 5:
            out.append(_v("airline.book.passengers", step, f"{len(pax)} passengers (max 5)"))
        if user is not None:
            if not R.payment_methods_allowed(user, a.get("payment_methods") or []):
                out.append(_v("airline.book.payment", step, "payment methods break the one certificate / one "
                                                             "credit card / three gift cards rule"))
            total, nonfree, cabin = a.get("total_baggages"), a.get("nonfree_baggages"), a.get("cabin")
            if isinstance(total, int) and isinstance(nonfree, int) and cabin in R.FREE_BAGS["regular"] and pax:
                want = R.nonfree_bags(user["membership"], cabin, len(pax), total)
                if nonfree != want:
                    out.append(_v("airline.book.baggage", step, f"nonfree bags {nonfree}, allowance implies {want}"))
        for f in a.get("flights") or []:
            status = R.segment_status(state, f.get("flight_number", ""), f.get("date", ""))
            if status is not None and status != "available":
                out.append(_v("airline.data.flight_status", step, f"{f.get('flight_number')} is {status!r}"))
    elif name == "send_certificate":
        uid = a.get("user_id", "")
        user = state["users"].get(uid)
        if user is not None:
            amounts = set()
            for rid in user.get("reservations", []):
                r = state["reservations"].get(rid)
                if r is None or not R.compensation_eligible(state, uid, rid):
                    continue
                statuses = {R.segment_status(state, f["flight_number"], f["date"]) for f in r["flights"]}
                if "cancelled" in statuses:
                    amounts.add(R.compensation_amount(len(r["passengers"]), "cancelled"))
                if "delayed" in statuses:
                    amounts.add(R.compensation_amount(len(r["passengers"]), "delayed"))
            if not amounts:
                out.append(_v("airline.compensation.limits", step,
                              f"{uid}: no eligible reservation with a cancelled or delayed flight"))
            elif a.get("amount") not in amounts:
                out.append(_v("airline.compensation.cancelled_flight", step,
                              f"amount {a.get('amount')} not in the policy amounts {sorted(amounts)}"))
    return out


def rule_violations(initial_state: dict[str, Any], calls: list[dict[str, Any]],
                    final_state: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Every airline policy rule the executed ``calls`` break, each with the call's index.

    ``calls``: executed calls in order, ``[{"name", "arguments" (dict or JSON text), "error"}]``
    where ``error`` is None for a successful call (a sandbox error code otherwise). The calls
    are replayed on a deep copy of ``initial_state`` with the airline tools so each write is
    judged on the state just before it; failed calls change nothing and break no rule here.
    ``final_state`` is accepted for the hook's signature and not needed (the replay gives it).

    Returns ``[{"rule_id", "step", "detail"}]`` (``step`` = 0-based index into ``calls``), in
    call order. Rules checked: ``airline.general.identify`` / ``airline.modify.identify`` (see
    the module docstring), ``airline.cancel.unflown``, ``airline.cancel.eligibility`` (flagged
    when *no* reason would allow the cancellation: the reason is said in the conversation, not in
    the call), ``airline.modify.basic_economy`` / ``same_route`` / ``payment`` / ``baggage`` /
    ``passengers``, ``airline.book.baggage`` (nonfree bags must match the allowance),
    ``airline.book.payment``, ``airline.book.passengers``, ``airline.data.flight_status``,
    ``airline.compensation.limits`` and ``cancelled_flight`` (amount 100 or 50 dollars per
    passenger of an eligible reservation with a cancelled / delayed flight).
    """
    state = copy.deepcopy(initial_state)
    users_seen: set[str] = set()
    res_seen: set[str] = set()
    out: list[dict[str, Any]] = []
    for step, call in enumerate(calls):
        name = call.get("name")
        a = _args(call)
        ok = call.get("error") is None and name in TOOLS
        if not ok:
            continue
        tool = TOOLS[name]
        if tool.writes:
            if name in _RES_WRITES:
                rid = a.get("reservation_id", "")
                res = state["reservations"].get(rid)
                if rid not in res_seen:
                    out.append(_v("airline.modify.identify" if name != "cancel_reservation"
                                  else "airline.general.identify", step,
                                  f"{name} on {rid} before get_reservation_details({rid})"))
                elif res is not None and res["user_id"] not in users_seen:
                    out.append(_v("airline.general.identify", step,
                                  f"{name} on {rid} before its user was looked up"))
            elif name in _USER_WRITES and a.get("user_id") not in users_seen:
                out.append(_v("airline.general.identify", step,
                              f"{name} for {a.get('user_id')} before get_user_details"))
            out.extend(_write_violations(state, name, a, step))
        elif name == "get_user_details":
            users_seen.add(a.get("user_id", ""))
        elif name == "get_reservation_details":
            res_seen.add(a.get("reservation_id", ""))
        try:
            tool.fn(state, **copy.deepcopy(a))
        except Exception:  # noqa: BLE001 - the sandbox said ok; a replay mismatch must not crash the verifier
            pass
    return out


__all__ = ["rule_violations"]
