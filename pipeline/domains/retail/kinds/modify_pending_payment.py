"""Retail task kind ``modify_pending_payment``: pay a pending order with another payment method.

``generate(c)`` builds one instance in a task context (:class:`~pipeline.domains.retail.kinds.common._Ctx`)
and returns ``(instruction, later customer turns, reference solution, notes)``; ``OUTCOME`` is its
expected outcome, ``DECIDING_RULES`` the rules its variants turn on, ``VARIANTS`` its rule-decided
variant ids (-> the kind that builds each), ``SKILLS``, ``REQUIREMENTS`` and ``SUCCESS`` describe it
(:mod:`pipeline.domains.retail.generator` runs them).
"""
from __future__ import annotations

from typing import Any

from .common import _CONFIRM, _pay_phrase, _Ctx, Gen, _BASE_SKILLS

KIND = "modify_pending_payment"
#: The expected outcome of the kind's tasks.
OUTCOME = "action"
#: The rule ids whose outcome the kind's variants turn on.
DECIDING_RULES: list[str] = ["retail.modify.pending_only", "retail.modify_payment.single_different"]
#: Rule-decided variant id -> the kind whose generator builds it.
VARIANTS: dict[str, str] = {}
#: Skill ids (pipeline.skills.SKILLS).
SKILLS: list[str] = _BASE_SKILLS + ["modification", "refund_payment", "confirmation"]
#: What the initial state of a task contains.
REQUIREMENTS: dict[str, Any] = {"target_order": "status pending, one payment", "payment_methods": "at least 2, "
    "a gift card covering the total when chosen"}
#: The final state that counts as success.
SUCCESS = (
    "The order is paid by the new method and the original payment refunded (gift card "
    "balances adjusted); nothing else changed."
)


def generate(c: _Ctx) -> Gen:
    rng = c.rng
    c.other_orders()
    original = c.pick_payment()
    target = c.fac.order(c.uid, "pending", payment_id=original)
    c.finish_orders()
    order = c.fac.state["orders"][target]
    reads, phrase, by_desc = c.order_reads(target)
    new = c.pick_payment(exclude=original, need=order["payment_history"][0]["amount"])
    instruction = " ".join([c.opening(), rng.choice([
        f"I'd like to pay for {phrase} with {_pay_phrase(c.user['payment_methods'][new])} instead.",
        f"Can you switch the payment of {phrase} to {_pay_phrase(c.user['payment_methods'][new])}?",
        f"Please change the payment method on {phrase}; I want to use {_pay_phrase(c.user['payment_methods'][new])}."])])
    ref = [*c.identity_calls(), *reads, {"name": "modify_pending_order_payment",
                                         "arguments": {"order_id": target, "payment_method_id": new}}]
    return instruction, list(rng.choice(_CONFIRM)), ref, {
        "order_id": target, "found_by_description": by_desc, "from": original, "to": new,
        "from_source": c.user["payment_methods"][original]["source"],
        "to_source": c.user["payment_methods"][new]["source"],
        "rule_ids": ["retail.modify.pending_only", "retail.modify_payment.single_different",
                     "retail.modify_payment.gift_card_balance", "retail.general.confirm"],
        "decided_by": "pending order; a single different method that covers the total"}
