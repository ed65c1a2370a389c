"""The library loans-desk domain: a deliberately small domain written only from
docs/domains.md (members, books, loans; find_member, get_loan, renew_loan, return_book).

Usage::

    from pipeline.domains.library import DOMAIN
    task = DOMAIN.generate_task("renew_loan", seed=1)
"""
from __future__ import annotations

import copy
from typing import Any, Iterable

from pipeline.domains.base import GeneratedTask
from pipeline.records import PolicyRule
from pipeline.skills import check_skills

from . import generator, rules
from .state import validate_state
from .tools import READ_TOOLS, TOOLS, WRITE_TOOLS


class LibraryDomain:
    """The loans desk as a domain object (see docs/domains.md for every member)."""

    name = "library"

    def __init__(self) -> None:
        self.policy: str = rules.POLICY_TEXT
        self.tools = dict(TOOLS)
        self.write_tools, self.read_tools = set(WRITE_TOOLS), set(READ_TOOLS)
        self.rules: list[PolicyRule] = list(rules.RULES)
        self.task_kinds: tuple[str, ...] = generator.TASK_KINDS
        self.identity_tools: set[str] = {"find_member"}

    def tool_schemas(self) -> list[dict[str, Any]]:
        """OpenAI function-tool schemas of every tool (deep copies)."""
        return [copy.deepcopy(t.schema) for t in self.tools.values()]

    def rules_for_tools(self, names: Iterable[str]) -> list[PolicyRule]:
        """Rules constraining calls to ``names``."""
        return rules.rules_for_tools(names)

    #: The policy asks for an explicit "yes" before a write (verifier hook).
    confirmation_required: bool = True

    def generate_task(self, kind: str, seed: int, denylist=None, variant: str | None = None) -> GeneratedTask:
        """One task instance (see :func:`generator.generate_task`)."""
        return generator.generate_task(kind, seed, denylist, variant=variant)

    def variants_for_kind(self, kind: str) -> list[str]:
        """Rule-decided variant ids of ``kind``. ValueError for an unknown kind."""
        generator._check_kind(kind)
        return list(generator.VARIANT_KINDS[kind])

    def variant_outcome(self, kind: str, variant: str | None) -> str:
        """"action" / "refusal" of (kind, variant)."""
        return generator.variant_outcome(kind, variant)

    def initial_state_requirements(self, kind: str) -> dict[str, Any]:
        """What a ``kind`` task's initial state holds."""
        return generator.initial_state_requirements(kind)

    def success_condition(self, kind: str) -> str:
        """The success condition of a ``kind`` task."""
        return generator.success_condition(kind)

    def kind_for_write_calls(self, names: list[str]) -> str | None:
        """Task kind for a log's ordered write-call names, or None."""
        return generator.kind_for_write_calls(names)

    def kind_for_intent(self, text: str | list[str]) -> str | None:
        """Task kind for the member's first turn(s), or None."""
        return generator.kind_for_intent(text)

    def validate_state(self, state: dict[str, Any]) -> None:
        """Raise ValueError for a state with the wrong shapes."""
        validate_state(state)

    def skills_for_kind(self, kind: str) -> list[str]:
        """Skill ids of a ``kind`` task. ValueError for an unknown kind."""
        generator._check_kind(kind)
        return check_skills(generator.SKILLS_FOR_KIND[kind])

    def deciding_rules(self, kind: str) -> list[str]:
        """Rule ids deciding a ``kind``'s outcome. ValueError for an unknown kind."""
        generator._check_kind(kind)
        return list(generator.DECIDING_RULES[kind])

    def rule_violations(self, initial_state: dict[str, Any], calls: list[dict[str, Any]],
                        final_state: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """``[{"rule_id", "step", "detail"}]`` for each rule the executed calls break."""
        return rules.rule_violations(initial_state, calls, final_state)


DOMAIN = LibraryDomain()

__all__ = ["LibraryDomain", "DOMAIN"]
