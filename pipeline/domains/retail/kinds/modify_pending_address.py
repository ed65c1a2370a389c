"""Retail task kind ``modify_pending_address``: change the shipping address of a pending order.

``generate(c)`` builds one instance in a task context (:class:`~pipeline.domains.retail.kinds.common._Ctx`)
and returns ``(instruction, later customer turns, reference solution, notes)``; ``OUTCOME`` is its
expected outcome, ``DECIDING_RULES`` the rules its variants turn on, ``VARIANTS`` its rule-decided
variant ids (-> the kind that builds each), ``SKILLS``, ``REQUIREMENTS`` and ``SUCCESS`` describe it
(:mod:`pipeline.domains.retail.generator` runs them).
"""
from __future__ import annotations

from typing import Any

from .common import _CONFIRM, _Ctx, Gen, _address_words, _BASE_SKILLS

KIND = "modify_pending_address"
#: The expected outcome of the kind's tasks.
OUTCOME = "action"
#: The rule ids whose outcome the kind's variants turn on.
DECIDING_RULES: list[str] = ["retail.modify.pending_only"]
#: Rule-decided variant id -> the kind whose generator builds it.
VARIANTS: dict[str, str] = {"rule:retail.modify.pending_only": "transfer_shipped_order_address"}
#: Skill ids (pipeline.skills.SKILLS).
SKILLS: list[str] = _BASE_SKILLS + ["modification", "confirmation"]
#: What the initial state of a task contains.
REQUIREMENTS: dict[str, Any] = {"target_order": "status pending"}
#: The final state that counts as success.
SUCCESS = "The order has the new shipping address and is still pending; nothing else changed."


def generate(c: _Ctx) -> Gen:
    rng = c.rng
    target, _, reads, phrase, by_desc = c.target_order("pending")
    new = c.fac.address()
    instruction = " ".join([c.opening(), rng.choice([
        f"Please ship {phrase} to {_address_words(new)} instead.",
        f"I need to change the delivery address of {phrase} to {_address_words(new)}.",
        f"Could you update the shipping address for {phrase}? The new one is {_address_words(new)}."])])
    ref = [*c.identity_calls(), *reads, {"name": "modify_pending_order_address", "arguments": {"order_id": target, **new}}]
    return instruction, list(rng.choice(_CONFIRM)), ref, {
        "order_id": target, "found_by_description": by_desc, "new_city": new["city"],
        "rule_ids": ["retail.modify.pending_only", "retail.general.confirm"],
        "decided_by": "the order is pending, so its address may change"}
