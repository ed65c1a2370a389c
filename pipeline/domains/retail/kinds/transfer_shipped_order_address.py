"""Retail task kind ``transfer_shipped_order_address``: a shipped order's address change: transfer to a human agent.

``generate(c)`` builds one instance in a task context (:class:`~pipeline.domains.retail.kinds.common._Ctx`)
and returns ``(instruction, later customer turns, reference solution, notes)``; ``OUTCOME`` is its
expected outcome, ``DECIDING_RULES`` the rules its variants turn on, ``VARIANTS`` its rule-decided
variant ids (-> the kind that builds each), ``SKILLS``, ``REQUIREMENTS`` and ``SUCCESS`` describe it
(:mod:`pipeline.domains.retail.generator` runs them).
"""
from __future__ import annotations

from typing import Any

from .common import _INSIST, _Ctx, Gen, _address_words, _BASE_SKILLS

KIND = "transfer_shipped_order_address"
#: The expected outcome of the kind's tasks.
OUTCOME = "transfer"
#: The rule ids whose outcome the kind's variants turn on.
DECIDING_RULES: list[str] = ["retail.modify.pending_only", "retail.general.transfer"]
#: Rule-decided variant id -> the kind whose generator builds it.
VARIANTS: dict[str, str] = {"rule:retail.modify.pending_only": "transfer_shipped_order_address"}
#: Skill ids (pipeline.skills.SKILLS).
SKILLS: list[str] = _BASE_SKILLS + ["transfer"]
#: What the initial state of a task contains.
REQUIREMENTS: dict[str, Any] = {"target_order": "status processed (shipped)"}
#: The final state that counts as success.
SUCCESS = "Nothing changed and the customer is transferred to a human agent."


def generate(c: _Ctx) -> Gen:
    rng = c.rng
    target, _, reads, phrase, by_desc = c.target_order("processed", others=("delivered", "cancelled"))
    new = c.fac.address()
    instruction = " ".join([c.opening(), rng.choice([
        f"{phrase.capitalize()} has shipped to my old address by mistake. It has to go to {_address_words(new)}.",
        f"I just saw that {phrase} is on its way to the wrong address; it should go to {_address_words(new)}."]),
        rng.choice(["If you can't change it yourself, please get me to someone who can.",
                    "If that's not something you can do, please transfer me to a person."])])
    ref = [*c.identity_calls(), *reads,
           {"name": "transfer_to_human_agents", "arguments": {
               "summary": f"Customer {c.uid} wants the shipped (processed) order {target} redirected to a new "
                          f"address; pending-order address changes only, so a human must handle it."}}]
    return instruction, list(rng.choice(_INSIST)), ref, {
        "order_id": target, "status": "processed", "found_by_description": by_desc, "new_city": new["city"],
        "forbidden_calls": [{"name": "modify_pending_order_address", "arguments": {"order_id": target, **new}}],
        "rule_ids": ["retail.modify.pending_only", "retail.general.transfer"],
        "decided_by": "a processed order cannot be modified; redirecting a shipment is outside the tools"}
