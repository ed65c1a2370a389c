"""The airline domain: an in-process airline booking system (state, tools, policy, rules,
entity and task generators) behind one object, :data:`DOMAIN`.

Usage::

    from pipeline.domains.airline import DOMAIN
    task = DOMAIN.generate_task("cancel_reservation", seed=7)
    state = copy.deepcopy(task.initial_state)
    for call in task.reference_solution:
        DOMAIN.tools[call["name"]].fn(state, **call["arguments"])
"""
from __future__ import annotations

import importlib
import json
import re
from typing import Any

from pipeline.domains.common import ModuleDomain
from pipeline.domains.shared import FREE_TEXT_ARGUMENTS

from . import answers, derivations, generator, rules, state, tools, transcripts
from .state import NOW


class AirlineDomain(ModuleDomain):
    """The airline business system as a domain object.

    Attributes: ``name`` ("airline"), ``policy`` (the policy markdown given to agents), ``tools``
    (name -> :class:`Tool`), ``write_tools`` / ``read_tools`` (name sets), ``rules`` (list of
    :class:`PolicyRule`), ``task_kinds`` (tuple of kind names), ``now`` (the policy's current
    time, EST). The members the domains share delegate to this package's modules (see
    :class:`~pipeline.domains.common.ModuleDomain`); the airline-specific ones are below.
    """

    name = "airline"
    generator_module, rules_module, tools_module, state_module = generator, rules, tools, state
    #: Information requests (expected outcome "answer"): :mod:`pipeline.domains.airline.answers`.
    answers_module = answers

    #: Tools whose successful call establishes who the customer is (verifier hook).
    identity_tools: set[str] = {"get_user_details"}
    #: The policy requires an explicit "yes" before every write (verifier hook).
    confirmation_required: bool = True
    #: Free-text arguments the grounded-arguments check exempts (verifier hook): the shared tools'.
    free_text_arguments = FREE_TEXT_ARGUMENTS

    def __init__(self) -> None:
        super().__init__()
        self.now: str = NOW

    def replay_context(self):
        """Replaying the logged system (``trajpipe domain check``): new reservation and
        certificate ids start where its do (:func:`~pipeline.domains.airline.tools.logged_system_ids`)."""
        return tools.logged_system_ids()

    def deciding_rules(self, kind: str) -> list[str]:
        """Rule ids whose outcome ``kind``'s variants turn on, e.g. ``cancel_reservation`` ->
        ``["airline.cancel.eligibility", "airline.cancel.unflown"]`` (the ids after ``rule:`` of
        :meth:`variants_for_kind`)."""
        return [v.split(":", 1)[1] for v in generator.variants_for_kind(kind)]

    def kind_for_intent(self, text: str) -> str | None:
        """Task kind a customer's words ask for, for logs without a write call (keyword rules,
        first match wins): cancel -> cancel_reservation, bag/luggage -> update_reservation_baggages,
        passenger name/birth -> update_reservation_passengers, compensation/certificate/delay ->
        send_certificate, change/modify/upgrade flight -> update_reservation_flights, book ->
        book_reservation. None when nothing matches."""
        t = " " + (text or "").lower() + " "
        for pattern, kind in _INTENT_KINDS:
            if re.search(pattern, t):
                return kind
        return None

    def transcript_call(self, text: str, value: Any, context: Any) -> tuple[str, dict[str, Any] | None] | None:
        """The airline tool a hidden call of a flattened transcript was, from its result
        (:mod:`pipeline.domains.airline.transcripts`)."""
        return transcripts.transcript_call(text, value, context)

    def state_from_log(self, calls: list[dict[str, Any]]) -> dict[str, Any]:
        """The part of the airline state a log shows: users and reservations as the first
        successful ``get_user_details`` / ``get_reservation_details`` result returned them
        (before the log's own writes, when read first). ``calls`` are
        ``{"name", "arguments", "ok", "result"}`` items; unparseable results are skipped.
        Returns ``{"users", "reservations", "flights": {}}``."""
        state: dict[str, Any] = {"users": {}, "reservations": {}, "flights": {}}
        for c in calls:
            if not c.get("ok") or c.get("name") not in ("get_user_details", "get_reservation_details"):
                continue
            try:
                obj = json.loads(c.get("result") or "")
            except (TypeError, json.JSONDecodeError):
                continue
            if not isinstance(obj, dict):
                continue
            if c["name"] == "get_user_details":
                uid = c.get("arguments", {}).get("user_id") or obj.get("user_id")
                if uid:
                    state["users"].setdefault(uid, obj)
            else:
                rid = obj.get("reservation_id") or c.get("arguments", {}).get("reservation_id")
                if rid:
                    state["reservations"].setdefault(rid, obj)
        return state

    def derived_values(self, name: str, arguments: dict[str, Any], evidence: Any) -> list[Any]:
        """Values the airline policy derives for a call (airport codes of named cities, baggage
        totals and nonfree counts, certificate amounts, booking prices and payment splits): the
        rules of :mod:`pipeline.domains.airline.derivations`."""
        return derivations.derived_values(name, arguments, evidence)

    def rule_violations(self, initial_state: dict[str, Any], calls: list[dict[str, Any]],
                        final_state: dict[str, Any] | None) -> list[dict[str, Any]]:
        """Business rules the ``calls`` break (delegates to ``checks.rule_violations``, written
        with the verifier). Raises NotImplementedError while that module does not exist."""
        try:
            checks = importlib.import_module(f"{__name__}.checks")
        except ModuleNotFoundError as exc:
            raise NotImplementedError("airline rule checks (pipeline/domains/airline/checks.py) not available") from exc
        return checks.rule_violations(initial_state, calls, final_state)


#: (regex over the lower-cased first customer message, kind) for :meth:`AirlineDomain.kind_for_intent`.
_INTENT_KINDS: tuple[tuple[str, str], ...] = (
    (r"\bcancel", "cancel_reservation"),
    (r"\b(bag|bags|baggage|luggage|suitcase)", "update_reservation_baggages"),
    (r"\b(passenger|name|date of birth|misspel|typo)", "update_reservation_passengers"),
    (r"\b(compensat|certificate|voucher|delayed|delay)", "send_certificate"),
    (r"\b(change|modify|upgrade|downgrade|reschedul|move|adjust)", "update_reservation_flights"),
    (r"\b(book|reserve|looking to fly)", "book_reservation"),
)

DOMAIN = AirlineDomain()

__all__ = ["AirlineDomain", "DOMAIN"]
