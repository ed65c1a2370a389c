"""Retail task kind ``refuse_exchange_other_product``: an exchange the policy refuses (another product type).

``generate(c)`` builds one instance in a task context (:class:`~pipeline.domains.retail.kinds.common._Ctx`)
and returns ``(instruction, later customer turns, reference solution, notes)``; ``OUTCOME`` is its
expected outcome, ``DECIDING_RULES`` the rules its variants turn on, ``VARIANTS`` its rule-decided
variant ids (-> the kind that builds each), ``SKILLS``, ``REQUIREMENTS`` and ``SUCCESS`` describe it
(:mod:`pipeline.domains.retail.generator` runs them).
"""
from __future__ import annotations

from typing import Any

from .common import _INSIST, _Ctx, Gen, _BASE_SKILLS

KIND = "refuse_exchange_other_product"
#: The expected outcome of the kind's tasks.
OUTCOME = "refusal"
#: The rule ids whose outcome the kind's variants turn on.
DECIDING_RULES: list[str] = ["retail.exchange.same_product"]
#: Rule-decided variant id -> the kind whose generator builds it.
VARIANTS: dict[str, str] = {"rule:retail.exchange.same_product": "refuse_exchange_other_product"}
#: Skill ids (pipeline.skills.SKILLS).
SKILLS: list[str] = _BASE_SKILLS + ["refusal"]
#: What the initial state of a task contains.
REQUIREMENTS: dict[str, Any] = {"target_order": "status delivered", "catalogue": "another product type"}
#: The final state that counts as success.
SUCCESS = "Nothing changed: an item cannot be exchanged for another product type."


def _other_product_exchange(c: _Ctx, order: dict[str, Any], item: dict[str, Any], other: str) -> dict[str, Any]:
    """The exchange the customer asks for and the policy forbids: ``item`` for an available
    variant of product ``other``, the difference on the order's original payment method (or
    another of the customer's methods when a gift card cannot cover it). The tools accept it
    (they do not check the product type), so it changes the state. Draws no random numbers
    (the task's other values stay as they were); cheapest variant first. In the rare case that
    only gift cards too short for every variant are on file, the original one is topped up."""
    prod = c.fac.state["products"][other]
    variants = sorted((v for v in prod["variants"].values() if v["available"]), key=lambda v: (v["price"], v["item_id"]))
    original = order["payment_history"][0]["payment_method_id"]
    methods = [original] + sorted(p for p in c.user["payment_methods"] if p != original)

    def call(v: dict[str, Any], pm_id: str) -> dict[str, Any]:
        return {"name": "exchange_delivered_order_items", "arguments": {
            "order_id": order["order_id"], "item_ids": [item["item_id"]], "new_item_ids": [v["item_id"]],
            "payment_method_id": pm_id}}

    for v in variants:
        diff = round(v["price"] - item["price"], 2)
        for pm_id in methods:
            pm = c.user["payment_methods"][pm_id]
            if pm["source"] != "gift_card" or diff <= 0 or pm["balance"] >= diff:
                return call(v, pm_id)
    pm = c.user["payment_methods"][original]  # pragma: no cover - only short gift cards on file
    pm["balance"] = round(variants[0]["price"] - item["price"], 2)
    return call(variants[0], original)


def generate(c: _Ctx) -> Gen:
    rng = c.rng
    target, _, reads, phrase, by_desc = c.target_order("delivered")
    order = c.fac.state["orders"][target]
    item = rng.choice(order["items"])
    other = rng.choice(sorted(p for p in c.fac.state["products"] if p != item["product_id"]))
    other_name = c.fac.state["products"][other]["name"]
    instruction = " ".join([c.opening(), rng.choice([
        f"I'd like to exchange the {item['name'].lower()} from {phrase} for a {other_name.lower()} instead.",
        f"Can I swap the {item['name'].lower()} in {phrase} for a {other_name.lower()}?",
        f"Please exchange my {item['name'].lower()} ({phrase}) for a {other_name.lower()} of similar price."])])
    ref = [*c.identity_calls(), *reads]
    return instruction, list(rng.choice(_INSIST)), ref, {
        "order_id": target, "item_id": item["item_id"], "wanted_product": other, "found_by_description": by_desc,
        "forbidden_calls": [_other_product_exchange(c, order, item, other)],
        "rule_ids": ["retail.exchange.same_product"],
        "decided_by": f"{item['name']} cannot become {other_name}: exchanges keep the product type"}
