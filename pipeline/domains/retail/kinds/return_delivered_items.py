"""Retail task kind ``return_delivered_items``: return items of a delivered order.

``generate(c)`` builds one instance in a task context (:class:`~pipeline.domains.retail.kinds.common._Ctx`)
and returns ``(instruction, later customer turns, reference solution, notes)``; ``OUTCOME`` is its
expected outcome, ``DECIDING_RULES`` the rules its variants turn on, ``VARIANTS`` its rule-decided
variant ids (-> the kind that builds each), ``SKILLS``, ``REQUIREMENTS`` and ``SUCCESS`` describe it
(:mod:`pipeline.domains.retail.generator` runs them).
"""
from __future__ import annotations

from typing import Any

from .common import _CONFIRM, _pay_phrase, _and_list, _Ctx, Gen, _BASE_SKILLS

KIND = "return_delivered_items"
#: The expected outcome of the kind's tasks.
OUTCOME = "action"
#: The rule ids whose outcome the kind's variants turn on.
DECIDING_RULES: list[str] = ["retail.return.delivered_only", "retail.return.refund_destination"]
#: Rule-decided variant id -> the kind whose generator builds it.
VARIANTS: dict[str, str] = {"rule:retail.return.delivered_only": "refuse_return_not_delivered"}
#: Skill ids (pipeline.skills.SKILLS).
SKILLS: list[str] = _BASE_SKILLS + ["refund_payment", "confirmation"]
#: What the initial state of a task contains.
REQUIREMENTS: dict[str, Any] = {"target_order": "status delivered, 1-5 items of distinct products",
    "payment_methods": "the original; sometimes a gift card"}
#: The final state that counts as success.
SUCCESS = (
    "The order is 'return requested' with exactly the named items and the refund going to "
    "the original payment method or the named gift card; nothing else changed."
)


def generate(c: _Ctx) -> Gen:
    rng = c.rng
    target, _, reads, phrase, by_desc = c.target_order("delivered")
    order = c.fac.state["orders"][target]
    k = rng.randint(1, len(order["items"]))
    chosen = rng.sample(order["items"], k)
    original = order["payment_history"][0]["payment_method_id"]
    gift = [p for p, m in c.user["payment_methods"].items() if m["source"] == "gift_card"]
    to_gift = bool(gift) and original not in gift and rng.random() < 0.5
    dest = rng.choice(sorted(gift)) if to_gift else original
    names = _and_list([it["name"].lower() for it in chosen])
    everything = k == len(order["items"])
    what = "everything in" if everything and rng.random() < 0.5 else f"the {names} from"
    refund = ("Please put the refund on my gift card." if to_gift else
              rng.choice(["The refund can go back to how I paid.", "Refund it to the original payment, please.",
                          f"Please refund {_pay_phrase(c.user['payment_methods'][dest])}."]))
    instruction = " ".join([c.opening(), rng.choice([f"I want to return {what} {phrase}.",
                                                     f"I'd like to send back {what} {phrase}.",
                                                     f"Could you help me return {what} {phrase}?"]), refund])
    ids = [it["item_id"] for it in chosen]
    ref = [*c.identity_calls(), *reads, {"name": "return_delivered_order_items",
                                         "arguments": {"order_id": target, "item_ids": ids, "payment_method_id": dest}}]
    return instruction, list(rng.choice(_CONFIRM)), ref, {
        "order_id": target, "n_items": len(order["items"]), "n_returned": k, "refund_to": dest,
        "refund_source": c.user["payment_methods"][dest]["source"], "found_by_description": by_desc,
        "must_discover": ids,
        "rule_ids": ["retail.return.delivered_only", "retail.return.refund_destination", "retail.general.confirm"],
        "decided_by": "the order is delivered; the refund goes to the original method or a gift card"}
