"""Retail task kind ``refuse_cancel_not_pending``: a cancellation the policy refuses (the order is not pending).

``generate(c)`` builds one instance in a task context (:class:`~pipeline.domains.retail.kinds.common._Ctx`)
and returns ``(instruction, later customer turns, reference solution, notes)``; ``OUTCOME`` is its
expected outcome, ``DECIDING_RULES`` the rules its variants turn on, ``VARIANTS`` its rule-decided
variant ids (-> the kind that builds each), ``SKILLS``, ``REQUIREMENTS`` and ``SUCCESS`` describe it
(:mod:`pipeline.domains.retail.generator` runs them).
"""
from __future__ import annotations

from typing import Any

from ..state import CANCEL_REASONS
from .common import _INSIST, _Ctx, Gen, _BASE_SKILLS

KIND = "refuse_cancel_not_pending"
#: The expected outcome of the kind's tasks.
OUTCOME = "refusal"
#: The rule ids whose outcome the kind's variants turn on.
DECIDING_RULES: list[str] = ["retail.cancel.pending_only"]
#: Rule-decided variant id -> the kind whose generator builds it.
VARIANTS: dict[str, str] = {"rule:retail.cancel.pending_only": "refuse_cancel_not_pending"}
#: Skill ids (pipeline.skills.SKILLS).
SKILLS: list[str] = _BASE_SKILLS + ["refusal"]
#: What the initial state of a task contains.
REQUIREMENTS: dict[str, Any] = {"target_order": "status processed, delivered or pending (item modified)"}
#: The final state that counts as success.
SUCCESS = "Nothing changed: the order is not pending, so the cancellation is refused."


def generate(c: _Ctx) -> Gen:
    rng = c.rng
    target, status, reads, phrase, by_desc = c.target_order(["processed", "delivered", "pending (item modified)"],
                                                            others=("pending", "cancelled"))
    reason = rng.choice(CANCEL_REASONS)
    instruction = " ".join([c.opening(), rng.choice([
        f"I want to cancel {phrase}; {reason}.", f"Please cancel {phrase} - {reason}.",
        f"Could you cancel {phrase}? The reason: {reason}."])])
    ref = [*c.identity_calls(), *reads]
    return instruction, list(rng.choice(_INSIST)), ref, {
        "order_id": target, "status": status, "reason": reason, "found_by_description": by_desc,
        "forbidden_calls": [{"name": "cancel_pending_order", "arguments": {"order_id": target, "reason": reason}}],
        "rule_ids": ["retail.cancel.pending_only"],
        "decided_by": f"the order is {status!r}, not 'pending': cancellation must be refused"}
