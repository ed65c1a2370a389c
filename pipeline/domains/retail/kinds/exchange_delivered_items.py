"""Retail task kind ``exchange_delivered_items``: exchange items of a delivered order for other variants of the same products.

``generate(c)`` builds one instance in a task context (:class:`~pipeline.domains.retail.kinds.common._Ctx`)
and returns ``(instruction, later customer turns, reference solution, notes)``; ``OUTCOME`` is its
expected outcome, ``DECIDING_RULES`` the rules its variants turn on, ``VARIANTS`` its rule-decided
variant ids (-> the kind that builds each), ``SKILLS``, ``REQUIREMENTS`` and ``SUCCESS`` describe it
(:mod:`pipeline.domains.retail.generator` runs them).
"""
from __future__ import annotations

from typing import Any

from .common import _Ctx, Gen, _gen_swap, _BASE_SKILLS

KIND = "exchange_delivered_items"
#: The expected outcome of the kind's tasks.
OUTCOME = "action"
#: The rule ids whose outcome the kind's variants turn on.
DECIDING_RULES: list[str] = ["retail.exchange.delivered_only", "retail.exchange.same_product"]
#: Rule-decided variant id -> the kind whose generator builds it.
VARIANTS: dict[str, str] = {"rule:retail.exchange.same_product": "refuse_exchange_other_product"}
#: Skill ids (pipeline.skills.SKILLS).
SKILLS: list[str] = _BASE_SKILLS + ["search", "modification", "refund_payment", "multi_step", "confirmation"]
#: What the initial state of a task contains.
REQUIREMENTS: dict[str, Any] = {"target_order": "status delivered, 1-5 items", "catalogue": "each changed item's "
    "product has another available variant", "payment_methods": "1-3 sources"}
#: The final state that counts as success.
SUCCESS = (
    "The order is 'exchange requested' with the named items and their new variants of "
    "the same products, the difference on the named payment method; nothing else changed."
)


def generate(c: _Ctx) -> Gen:
    return _gen_swap(c, "delivered")
