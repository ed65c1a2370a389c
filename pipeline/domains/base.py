"""The contract every business domain implements (airline, retail, your own system).

A domain is data plus tools: a JSON-serialisable ``state`` (dict of tables keyed by id), tool
functions that read or mutate that state, each with its OpenAI function JSON schema beside it,
a policy text (the business rules document given to agents), an entity generator that builds
fresh fictional state with Faker, and task generators that turn a blueprint *kind* into a task
instance whose reference solution obeys the policy.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Protocol, runtime_checkable


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
    # "action" | "refusal" | "transfer" (see TaskPackage.expected_outcome)
    expected_outcome: str = "action"
    skills: list[str] = field(default_factory=list)  # instance skills, ids from pipeline.skills
    variant: str | None = None  # e.g. "rule:<rule_id>" when a rule decides this instance
    # "answer" tasks only: the facts the agent must state (pipeline.verify.answers), computed
    # from the hidden state by the domain's rules; stored in the hidden verifier, never visible
    answer_facts: list[dict[str, Any]] | None = None


@runtime_checkable
class Domain(Protocol):
    """What the pipeline needs from a domain object (``DOMAIN`` in a domain package).

    See docs/domains.md for a walk-through. ``generate_task`` must be deterministic in
    ``seed``; ``kind_for_write_calls`` maps a log's ordered write-tool names to a task kind
    (or None); ``skills_for_kind`` returns skill ids from :data:`pipeline.skills.SKILLS`;
    ``deciding_rules`` returns the rule ids whose outcome a kind's variants turn on.
    """

    name: str
    policy: str
    tools: dict[str, Tool]
    write_tools: set[str]
    read_tools: set[str]
    rules: list[Any]
    task_kinds: tuple[str, ...]

    def tool_schemas(self) -> list[dict[str, Any]]: ...
    def rules_for_tools(self, names: Iterable[str]) -> list[Any]: ...
    def generate_task(self, kind: str, seed: int, denylist: Any = None) -> GeneratedTask: ...
    def initial_state_requirements(self, kind: str) -> dict[str, Any]: ...
    def success_condition(self, kind: str) -> str: ...
    def kind_for_write_calls(self, names: list[str]) -> str | None: ...
    def validate_state(self, state: dict[str, Any]) -> None: ...
    def skills_for_kind(self, kind: str) -> list[str]: ...

    # Optional hooks (the verifier uses them when present; see docs/domains.md):
    #   identity_tools: set[str]  -- tools whose successful call establishes the customer's identity
    #   deciding_rules(kind) -> list[str]  -- rule ids whose outcome a kind's variants turn on
    #   rule_violations(initial_state, calls, final_state) -> list[dict]
    #       calls: executed calls in order [{"name", "arguments", "error"}]; returns
    #       [{"rule_id", "step", "detail"}] for every business rule the calls / final state break.
    #   kind_for_intent(text | list[str]) -> str | None  -- map logs without tool names to a kind
    #   answer_kinds: tuple[str, ...]; answer_kind_for_intent(text) -> str | None  -- information
    #       requests the domain can answer from its state (expected_outcome "answer"; generate_task
    #       accepts these kinds too and fills GeneratedTask.answer_facts)
    #   variants_for_kind(kind) -> list[str]; variant_outcome(kind, variant) -> "action"|"refusal"|"transfer"
    #   generate_task(kind, seed, denylist=None, variant=None)  -- rule-decided variants
    #   state_from_log(record) -> dict | None  -- the state a log shows (for mining broken rules)
    #   free_text_arguments: dict[str, set[str]]  -- tool -> argument paths of free text (think.thought,
    #       a transfer summary) the grounded-arguments check exempts ("[]" for list items); default none
    #   derived_values(name, arguments, evidence) -> list  -- values the policy derives for a call from
    #       what the agent has seen (pipeline.verify.grounding.Evidence), e.g. a computed price; default none

