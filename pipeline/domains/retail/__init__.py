"""The retail domain: an in-process online store (users, orders, products) with the tools,
policy, rules and generators of :mod:`pipeline.domains.base`'s Domain protocol, behind one
object, :data:`DOMAIN`. Behaviour and policy follow the tau-bench retail system
(``shared/data/tau-bench/retail``, MIT licence), in our own wording and code.

Usage::

    from pipeline.domains.retail import DOMAIN
    task = DOMAIN.generate_task("return_delivered_items", seed=7)
    sb = Sandbox(DOMAIN, task.initial_state); sb.run(task.reference_solution)
    assert DOMAIN.rule_violations(task.initial_state, [...], sb.state) == []
"""
from __future__ import annotations

import copy
from typing import Any, Iterable

from pipeline.domains.base import GeneratedTask, Tool
from pipeline.records import PolicyRule
from pipeline.skills import check_skills

from . import generator, rules
from .state import validate_state
from .tools import READ_TOOLS, TOOLS, WRITE_TOOLS


class RetailDomain:
    """The retail business system as a domain object.

    Attributes: ``name`` ("retail"), ``policy`` (markdown given to agents), ``tools`` (name ->
    :class:`Tool`), ``write_tools`` / ``read_tools``, ``rules`` (:class:`PolicyRule` list),
    ``task_kinds``, ``identity_tools`` (the lookups that establish who the customer is).
    """

    name = "retail"

    def __init__(self) -> None:
        self.policy: str = rules.POLICY_TEXT
        self.tools: dict[str, Tool] = dict(TOOLS)
        self.write_tools: set[str] = set(WRITE_TOOLS)
        self.read_tools: set[str] = set(READ_TOOLS)
        self.rules: list[PolicyRule] = list(rules.RULES)
        self.task_kinds: tuple[str, ...] = generator.TASK_KINDS
        self.identity_tools: set[str] = {"find_user_id_by_email", "find_user_id_by_name_zip"}

    def tool_schemas(self) -> list[dict[str, Any]]:
        """The OpenAI function-tool schemas of every tool (deep copies, stable order)."""
        return [copy.deepcopy(t.schema) for t in self.tools.values()]

    def rules_for_tools(self, names: Iterable[str]) -> list[PolicyRule]:
        """Rules constraining calls to ``names`` (see :func:`rules.rules_for_tools`)."""
        return rules.rules_for_tools(names)

    #: The policy requires an explicit "yes" before every write (verifier hook).
    confirmation_required: bool = True

    def generate_task(self, kind: str, seed: int, denylist=None, variant: str | None = None) -> GeneratedTask:
        """A fresh task instance of ``kind`` or of its rule-decided ``variant`` (see
        :func:`generator.generate_task`)."""
        return generator.generate_task(kind, seed, denylist, variant=variant)

    def variants_for_kind(self, kind: str) -> list[str]:
        """Rule-decided variant ids of ``kind`` (``"rule:<rule_id>"``): e.g. cancel_pending_order
        -> ``["rule:retail.cancel.pending_only"]`` (the cancel request on a non-pending order)."""
        return generator.variants_for_kind(kind)

    def variant_outcome(self, kind: str, variant: str | None) -> str:
        """"action", "refusal" or "transfer" for (kind, variant). ValueError if unknown."""
        return generator.variant_outcome(kind, variant)

    def initial_state_requirements(self, kind: str) -> dict[str, Any]:
        """What a ``kind`` task's initial state contains."""
        return generator.initial_state_requirements(kind)

    def success_condition(self, kind: str) -> str:
        """Human-readable success condition of a ``kind`` task."""
        return generator.success_condition(kind)

    def kind_for_write_calls(self, names: list[str]) -> str | None:
        """Task kind for a log's ordered write-call names, or None."""
        return generator.kind_for_write_calls(names)

    def kind_for_intent(self, text: str | list[str]) -> str | None:
        """Task kind for the customer's first turn(s) of a log without tool names, or None
        (see :func:`generator.kind_for_intent`)."""
        return generator.kind_for_intent(text)

    def validate_state(self, state: dict[str, Any]) -> None:
        """Raise ValueError when ``state`` does not have the retail record shapes."""
        validate_state(state)

    def skills_for_kind(self, kind: str) -> list[str]:
        """Skill ids (pipeline.skills.SKILLS) a ``kind`` task exercises. ValueError if unknown."""
        generator._check_kind(kind)
        return check_skills(generator.SKILLS_FOR_KIND[kind])

    def deciding_rules(self, kind: str) -> list[str]:
        """Rule ids whose outcome the ``kind``'s variants turn on. ValueError if unknown."""
        generator._check_kind(kind)
        return list(generator.DECIDING_RULES[kind])

    def rule_violations(self, initial_state: dict[str, Any], calls: list[dict[str, Any]],
                        final_state: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """``[{"rule_id", "step", "detail"}]`` for each business rule the executed ``calls``
        break (see :func:`rules.rule_violations`)."""
        return rules.rule_violations(initial_state, calls, final_state)


DOMAIN = RetailDomain()

__all__ = ["RetailDomain", "DOMAIN"]
