"""The tools every domain shares: ``think``, ``calculate`` and the hand-off to a human agent.

One place for their names, their behaviour, their schemas (each domain words the descriptions its
own way: :func:`register_shared_tools`), what the verifier and the router need to know about them
(:data:`SHARED_TOOLS`: no evidence of which business system a log comes from; :data:`TERMINATE_TOOLS`:
a successful call ends the episode, the default of :attr:`pipeline.domains.base.Domain.terminate_tools`;
:data:`FREE_TEXT_ARGUMENTS`: argument paths of free text) and how a transcript shows them
(:func:`transcript_call`). Generic code never names these tools: it asks the domain
(``domain.terminate_tools``) or reads the constants here.

Nothing here imports another pipeline module at import time (``pipeline.domains.base`` imports
it).
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Any, Callable, Mapping

#: Write down a reasoning step (no effect).
THINK = "think"
#: Arithmetic on numbers the agent has seen.
CALCULATE = "calculate"
#: Hand the customer over to a human agent (ends the conversation when it succeeds).
HANDOFF = "transfer_to_human_agents"
#: What a successful hand-off returns.
HANDOFF_RESULT = "Transfer successful"

#: Tools every domain shares: a call to one of them says nothing about which business system a
#: log comes from, so domain ownership (:func:`pipeline.domains.base.evidence_tools`) ignores them.
SHARED_TOOLS: frozenset[str] = frozenset({THINK, CALCULATE, HANDOFF})
#: Tools whose successful call ends the episode (the hand-off): the default ``terminate_tools``.
TERMINATE_TOOLS: frozenset[str] = frozenset({HANDOFF})
#: Free-text argument paths of the shared tools, exempt from the grounded-arguments check
#: (:mod:`pipeline.verify.grounding`): a thought, a hand-off summary.
FREE_TEXT_ARGUMENTS: Mapping[str, frozenset[str]] = MappingProxyType(
    {THINK: frozenset({"thought"}), HANDOFF: frozenset({"summary"})})


def think(state: dict[str, Any], thought: str) -> str:
    """Return ``""``; no effect."""
    return ""


def calculate(state: dict[str, Any], expression: str) -> str:
    """The value of an arithmetic ``expression`` rounded to 2 decimals as text (``"255.0"``;
    :func:`pipeline.domains.common.calculate_expression`). ToolError on other characters, a
    malformed expression or division by zero. Does not touch ``state``."""
    from pipeline.domains.common import calculate_expression

    return calculate_expression(expression)


def transfer_to_human_agents(state: dict[str, Any], summary: str) -> str:
    """Return :data:`HANDOFF_RESULT`; the database is not changed."""
    return HANDOFF_RESULT


def register_shared_tools(register: Callable[..., Callable[[Callable[..., str]], Callable[..., str]]], *,
                          calculate_description: str, expression_description: str, think_description: str,
                          handoff_description: str,
                          summary_description: str = "Summary of the customer's issue.") -> None:
    """Register ``calculate``, ``think`` and the hand-off, in that order, with a domain's tools
    decorator (:func:`pipeline.domains.common.tool_registry`) and the domain's wording of their
    descriptions (the schemas are what agents see; the behaviour is this module's)."""
    from pipeline.domains.common import object_params

    register({"name": CALCULATE, "description": calculate_description,
              "parameters": object_params({"expression": {"type": "string", "description": expression_description}})}
             )(calculate)
    register({"name": THINK, "description": think_description,
              "parameters": object_params({"thought": {"type": "string", "description": "The thought."}})})(think)
    register({"name": HANDOFF, "description": handoff_description,
              "parameters": object_params({"summary": {"type": "string", "description": summary_description}})}
             )(transfer_to_human_agents)


def transcript_call(text: str, value: Any) -> tuple[str, dict[str, Any] | None] | None:
    """The shared tool a hidden call of a flattened transcript was, from its result (``text``:
    the stripped result; ``value``: its JSON, or :data:`pipeline.domains.base.NOT_JSON`):
    :data:`HANDOFF_RESULT` -> the hand-off (summary not recoverable), an empty result -> ``think``,
    a number -> ``calculate`` (expression not recoverable). None for anything else."""
    if text == HANDOFF_RESULT:
        return HANDOFF, None
    if text == "":
        return THINK, {"thought": ""}
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return CALCULATE, None
    return None
