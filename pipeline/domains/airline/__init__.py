"""The airline domain: an in-process airline booking system (state, tools, policy, rules,
entity and task generators) behind one object, :data:`DOMAIN`.

Usage::

    from pipeline.domains.airline import DOMAIN
    task = DOMAIN.generate_task("cancel_reservation", seed=7)
    state = copy.deepcopy(task.initial_state)
    for call in task.reference_solution:
        DOMAIN.tools[call["name"]].fn(state, **call["arguments"])
"""
from __future__ import annotations

import copy
from typing import Any, Iterable

from pipeline.domains.base import GeneratedTask, Tool
from pipeline.records import PolicyRule

from . import generator, rules
from .state import NOW, validate_state
from .tools import READ_TOOLS, TOOLS, WRITE_TOOLS


class AirlineDomain:
    """The airline business system as a domain object.

    Attributes: ``name`` ("airline"), ``policy`` (the policy markdown given to agents), ``tools``
    (name -> :class:`Tool`), ``write_tools`` / ``read_tools`` (name sets), ``rules`` (list of
    :class:`PolicyRule`), ``task_kinds`` (tuple of kind names), ``now`` (the policy's current
    time, EST).
    """

    name = "airline"

    def __init__(self) -> None:
        self.policy: str = rules.POLICY_TEXT
        self.tools: dict[str, Tool] = dict(TOOLS)
        self.write_tools: set[str] = set(WRITE_TOOLS)
        self.read_tools: set[str] = set(READ_TOOLS)
        self.rules: list[PolicyRule] = list(rules.RULES)
        self.task_kinds: tuple[str, ...] = generator.TASK_KINDS
        self.now: str = NOW

    def tool_schemas(self) -> list[dict[str, Any]]:
        """The OpenAI function-tool schemas of every tool (deep copies, stable order)."""
        return [copy.deepcopy(t.schema) for t in self.tools.values()]

    def rules_for_tools(self, names: Iterable[str]) -> list[PolicyRule]:
        """Rules constraining calls to ``names`` (see :func:`rules.rules_for_tools`)."""
        return rules.rules_for_tools(names)

    def generate_task(self, kind: str, seed: int, denylist=None) -> GeneratedTask:
        """A fresh task instance of ``kind`` (see :func:`generator.generate_task`)."""
        return generator.generate_task(kind, seed, denylist)

    def initial_state_requirements(self, kind: str) -> dict[str, Any]:
        """What a ``kind`` task's initial state contains (see :mod:`generator`)."""
        return generator.initial_state_requirements(kind)

    def success_condition(self, kind: str) -> str:
        """Human-readable success condition of a ``kind`` task."""
        return generator.success_condition(kind)

    def kind_for_write_calls(self, names: list[str]) -> str | None:
        """Task kind for a log's ordered write-call names, or None."""
        return generator.kind_for_write_calls(names)

    def validate_state(self, state: dict[str, Any]) -> None:
        """Raise ValueError when ``state`` does not have the airline record shapes."""
        validate_state(state)


DOMAIN = AirlineDomain()

__all__ = ["AirlineDomain", "DOMAIN"]
