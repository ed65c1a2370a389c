"""Retail task kind ``modify_user_address``: update the customer's default address.

``generate(c)`` builds one instance in a task context (:class:`~pipeline.domains.retail.kinds.common._Ctx`)
and returns ``(instruction, later customer turns, reference solution, notes)``; ``OUTCOME`` is its
expected outcome, ``DECIDING_RULES`` the rules its variants turn on, ``VARIANTS`` its rule-decided
variant ids (-> the kind that builds each), ``SKILLS``, ``REQUIREMENTS`` and ``SUCCESS`` describe it
(:mod:`pipeline.domains.retail.generator` runs them).
"""
from __future__ import annotations

from typing import Any

from .common import _CONFIRM, _Ctx, Gen, _address_words

KIND = "modify_user_address"
#: The expected outcome of the kind's tasks.
OUTCOME = "action"
#: The rule ids whose outcome the kind's variants turn on.
DECIDING_RULES: list[str] = ["retail.user_address.update"]
#: Rule-decided variant id -> the kind whose generator builds it.
VARIANTS: dict[str, str] = {}
#: Skill ids (pipeline.skills.SKILLS).
SKILLS: list[str] = ["identity_lookup", "modification", "confirmation"]
#: What the initial state of a task contains.
REQUIREMENTS: dict[str, Any] = {"users": "the customer with 0-2 orders"}
#: The final state that counts as success.
SUCCESS = "The customer's default address is the new one; orders keep their addresses."


def generate(c: _Ctx) -> Gen:
    rng = c.rng
    c.other_orders()
    c.finish_orders()
    new = c.fac.address()
    instruction = " ".join([c.opening(), rng.choice([
        f"I moved: please update my default address to {_address_words(new)}.",
        f"Could you change the address on my account to {_address_words(new)}?",
        f"My new home address is {_address_words(new)}; please save it in my profile."])])
    ref = [*c.identity_calls(), {"name": "modify_user_address", "arguments": {"user_id": c.uid, **new}}]
    return instruction, list(rng.choice(_CONFIRM)), ref, {
        "new_city": new["city"], "n_orders": len(c.user["orders"]),
        "rule_ids": ["retail.user_address.update", "retail.general.identify", "retail.general.confirm"],
        "decided_by": "an identified customer may change their default address"}
