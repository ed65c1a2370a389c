"""Retail task kind ``cancel_pending_order``: cancel a pending order.

``generate(c)`` builds one instance in a task context (:class:`~pipeline.domains.retail.kinds.common._Ctx`)
and returns ``(instruction, later customer turns, reference solution, notes)``; ``OUTCOME`` is its
expected outcome, ``DECIDING_RULES`` the rules its variants turn on, ``VARIANTS`` its rule-decided
variant ids (-> the kind that builds each), ``SKILLS``, ``REQUIREMENTS`` and ``SUCCESS`` describe it
(:mod:`pipeline.domains.retail.generator` runs them).
"""
from __future__ import annotations

from typing import Any

from ..state import CANCEL_REASONS
from .common import _CONFIRM, _Ctx, Gen, _BASE_SKILLS

KIND = "cancel_pending_order"
#: The expected outcome of the kind's tasks.
OUTCOME = "action"
#: The rule ids whose outcome the kind's variants turn on.
DECIDING_RULES: list[str] = ["retail.cancel.pending_only"]
#: Rule-decided variant id -> the kind whose generator builds it.
VARIANTS: dict[str, str] = {"rule:retail.cancel.pending_only": "refuse_cancel_not_pending"}
#: Skill ids (pipeline.skills.SKILLS).
SKILLS: list[str] = _BASE_SKILLS + ["cancellation", "confirmation"]
#: What the initial state of a task contains.
REQUIREMENTS: dict[str, Any] = {"users": "the customer + 2 others", "target_order": "status pending, 1-5 items",
    "other_orders": "0-2 of the customer in mixed statuses"}
#: The final state that counts as success.
SUCCESS = (
    "The order is 'cancelled' with the given reason and every payment refunded to its "
    "original method (gift card balances restored); nothing else changed."
)


def generate(c: _Ctx) -> Gen:
    rng = c.rng
    target, _, reads, phrase, by_desc = c.target_order("pending")
    reason = rng.choice(CANCEL_REASONS)
    words = {"no longer needed": rng.choice(["I no longer need it", "I don't need it anymore"]),
             "ordered by mistake": rng.choice(["I ordered it by mistake", "I placed it by accident"])}[reason]
    instruction = " ".join([c.opening(), rng.choice([
        f"I'd like to cancel {phrase} because {words}.", f"Please cancel {phrase}; {words}.",
        f"Can you cancel {phrase} for me? {words.capitalize()}."])])
    order = c.fac.state["orders"][target]
    ref = [*c.identity_calls(), *reads, {"name": "cancel_pending_order", "arguments": {"order_id": target, "reason": reason}}]
    return instruction, list(rng.choice(_CONFIRM)), ref, {
        "order_id": target, "reason": reason, "n_items": len(order["items"]), "found_by_description": by_desc,
        "payment_source": c.user["payment_methods"][order["payment_history"][0]["payment_method_id"]]["source"],
        "rule_ids": ["retail.cancel.pending_only", "retail.cancel.reason", "retail.general.confirm"],
        "decided_by": "the order is pending, so it may be cancelled"}
