"""Retail task kind ``refuse_return_not_delivered``: a return the policy refuses (the order is not delivered).

``generate(c)`` builds one instance in a task context (:class:`~pipeline.domains.retail.kinds.common._Ctx`)
and returns ``(instruction, later customer turns, reference solution, notes)``; ``OUTCOME`` is its
expected outcome, ``DECIDING_RULES`` the rules its variants turn on, ``VARIANTS`` its rule-decided
variant ids (-> the kind that builds each), ``SKILLS``, ``REQUIREMENTS`` and ``SUCCESS`` describe it
(:mod:`pipeline.domains.retail.generator` runs them).
"""
from __future__ import annotations

from typing import Any

from .common import _INSIST, _and_list, _Ctx, Gen, _BASE_SKILLS

KIND = "refuse_return_not_delivered"
#: The expected outcome of the kind's tasks.
OUTCOME = "refusal"
#: The rule ids whose outcome the kind's variants turn on.
DECIDING_RULES: list[str] = ["retail.return.delivered_only"]
#: Rule-decided variant id -> the kind whose generator builds it.
VARIANTS: dict[str, str] = {"rule:retail.return.delivered_only": "refuse_return_not_delivered"}
#: Skill ids (pipeline.skills.SKILLS).
SKILLS: list[str] = _BASE_SKILLS + ["refusal"]
#: What the initial state of a task contains.
REQUIREMENTS: dict[str, Any] = {"target_order": "status pending or processed"}
#: The final state that counts as success.
SUCCESS = "Nothing changed: the order is not delivered, so the return is refused."


def generate(c: _Ctx) -> Gen:
    rng = c.rng
    target, status, reads, phrase, by_desc = c.target_order(["pending", "processed"],
                                                            others=("delivered", "cancelled"))
    order = c.fac.state["orders"][target]
    chosen = rng.sample(order["items"], rng.randint(1, len(order["items"])))
    names = _and_list([it["name"].lower() for it in chosen])
    instruction = " ".join([c.opening(), rng.choice([
        f"I want to return the {names} from {phrase} and get my money back.",
        f"Please process a return for the {names} in {phrase}.",
        f"I'd like a refund: return the {names} from {phrase}, please."])])
    ref = [*c.identity_calls(), *reads]
    return instruction, list(rng.choice(_INSIST)), ref, {
        "order_id": target, "status": status, "n_items": len(order["items"]), "found_by_description": by_desc,
        "requested_items": [it["item_id"] for it in chosen],
        "forbidden_calls": [{"name": "return_delivered_order_items", "arguments": {
            "order_id": target, "item_ids": [it["item_id"] for it in chosen],
            "payment_method_id": order["payment_history"][0]["payment_method_id"]}}],
        "rule_ids": ["retail.return.delivered_only"],
        "decided_by": f"the order is {status}, not delivered: a return must be refused"}
