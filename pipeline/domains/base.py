"""The contract every business domain implements (airline, retail, your own system).

A domain is data plus tools: a JSON-serialisable ``state`` (dict of tables keyed by id), tool
functions that read or mutate that state, each with its OpenAI function JSON schema beside it,
a policy text (the business rules document given to agents), an entity generator that builds
fresh fictional state with Faker, and task generators that turn a blueprint *kind* into a task
instance whose reference solution obeys the policy.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable


class ToolError(Exception):
    """Raised by a tool for a business-level error; the sandbox returns ``"Error: <message>"``
    to the agent as the tool result (the convention of the logs)."""


@dataclass
class Tool:
    """One tool: its behaviour ``fn(state, **arguments) -> str`` and its JSON schema side by side.

    ``schema`` is an OpenAI function-tool schema ``{"type": "function", "function": {"name",
    "description", "parameters"}}``; ``writes`` is True when the tool changes state.
    """

    fn: Callable[..., str]
    schema: dict[str, Any]
    writes: bool = False

    @property
    def name(self) -> str:
        return self.schema["function"]["name"]


@dataclass
class GeneratedTask:
    """What a domain's task generator returns for one task instance.

    ``instruction`` is the customer's opening message (what a real customer would say: their
    user id and the reservation they mean, never values only the tools reveal such as computed
    prices); ``user_messages`` are the scripted customer's later turns (e.g. an explicit
    confirmation); ``reference_solution`` is a list of ``{"name", "arguments"}`` tool calls that
    solves the task in a sandbox started from ``initial_state``; ``notes`` are hidden
    generation notes (the varied values, the rule that decides the outcome).
    """

    initial_state: dict[str, Any]
    instruction: str
    user_messages: list[str]
    reference_solution: list[dict[str, Any]]
    notes: dict[str, Any] = field(default_factory=dict)

