"""The contract every business domain implements (airline, retail, your own system).

A domain is data plus tools: a JSON-serialisable ``state`` (dict of tables keyed by id), tool
functions that read or mutate that state, each with its OpenAI function JSON schema beside it,
a policy text (the business rules document given to agents), an entity generator that builds
fresh fictional state with Faker, and task generators that turn a blueprint *kind* into a task
instance whose reference solution obeys the policy.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Protocol, runtime_checkable

#: Tools every domain shares (reasoning, arithmetic, hand-off to a human): a call to one of them
#: says nothing about which business system a log comes from, so ownership ignores them.
SHARED_TOOLS: frozenset[str] = frozenset({"think", "calculate", "transfer_to_human_agents"})
#: Placeholder names a reader gives a call it could not name (the transcript reader's
#: ``"unknown"``): no evidence either way.
UNNAMED_TOOLS: frozenset[str] = frozenset({"unknown"})
#: Where the walk-through for adding a business system lives (named in routing rejects).
ADD_DOMAIN_DOC = "docs/domains.md"


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


def _field(record: Any, name: str) -> Any:
    """``record.<name>`` of a LogRecord, or ``record[name]`` of a canonical dict (None if absent)."""
    return record.get(name) if isinstance(record, Mapping) else getattr(record, name, None)


def _argument_names(arguments: Any) -> frozenset[str] | None:
    """Argument names of one call: ``arguments`` is a JSON string (OpenAI form) or a dict;
    None when they cannot be read (no shape evidence)."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except (json.JSONDecodeError, RecursionError):
            return None
    return frozenset(arguments) if isinstance(arguments, dict) else None


def record_tool_uses(record: Any) -> dict[str, list[frozenset[str] | None]]:
    """Every tool a log record uses, with the argument names of each use.

    ``record`` is a :class:`~pipeline.records.LogRecord` or a canonical conversation dict. Read
    from three places: the ``tool_calls`` of its messages (arguments: a JSON string or dict), its
    gold actions (``metadata.gold_actions``: ``{"name", "kwargs"|"arguments"}``, tau-bench's
    reference calls) and its declared tool list (``tools``: OpenAI function schemas; a declared
    tool has no call, so its use is ``None``). Returns ``{tool name: [argument-name set or None
    per use]}`` in first-seen order; malformed entries are skipped, never raised on.
    """
    uses: dict[str, list[frozenset[str] | None]] = {}
    for m in _field(record, "messages") or []:
        if not isinstance(m, Mapping):
            continue
        for tc in m.get("tool_calls") or []:
            fn = tc.get("function") if isinstance(tc, Mapping) else None
            if isinstance(fn, Mapping) and isinstance(fn.get("name"), str) and fn["name"]:
                uses.setdefault(fn["name"], []).append(_argument_names(fn.get("arguments")))
    meta = _field(record, "metadata") or {}
    for a in (meta.get("gold_actions") if isinstance(meta, Mapping) else None) or []:
        if isinstance(a, Mapping) and isinstance(a.get("name"), str) and a["name"]:
            uses.setdefault(a["name"], []).append(_argument_names(a.get("kwargs", a.get("arguments", {}))))
    for t in _field(record, "tools") or []:
        fn = t.get("function", t) if isinstance(t, Mapping) else None
        if isinstance(fn, Mapping) and isinstance(fn.get("name"), str) and fn["name"]:
            uses.setdefault(fn["name"], []).append(None)
    return uses


def evidence_tools(record: Any) -> list[str]:
    """The record's tool names that say which domain it belongs to: every tool it uses
    (:func:`record_tool_uses`) except :data:`SHARED_TOOLS` and :data:`UNNAMED_TOOLS`, in
    first-seen order. ``[]`` for a record that calls no domain tool."""
    return [n for n in record_tool_uses(record) if n not in SHARED_TOOLS and n not in UNNAMED_TOOLS]


def foreign_tools(domain: Any, record: Any) -> list[str]:
    """The record's evidence tools (:func:`evidence_tools`) that ``domain`` does not have, by name
    or by shape: a name missing from ``domain.tools``, or a call whose argument names are not all
    parameters of that tool's schema (``schema["function"]["parameters"]["properties"]``; a tool
    without declared properties accepts any). ``[]`` when the domain has them all. ``domain``
    needs only ``tools`` (name -> :class:`Tool`)."""
    out = []
    uses = record_tool_uses(record)
    for name in evidence_tools(record):
        tool = domain.tools.get(name)
        if tool is None:
            out.append(name)
            continue
        props = ((tool.schema.get("function") or {}).get("parameters") or {}).get("properties")
        if props is not None and any(args is not None and not args <= set(props) for args in uses[name]):
            out.append(name)
    return out


def default_owns(domain: Any, record: Any) -> bool:
    """The default :meth:`Domain.owns`: True when the record uses at least one domain tool
    (:func:`evidence_tools`: shared tools like ``think`` do not count) and ``domain`` has every one
    of them, with argument names its schemas accept (:func:`foreign_tools`). A record that calls
    no domain tool is owned by no domain on tool evidence alone (ingest then needs its domain
    named: see :mod:`pipeline.ingest.routing`)."""
    return bool(evidence_tools(record)) and not foreign_tools(domain, record)


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

    def owns(self, record: Any) -> bool:
        """True when ``record`` (a LogRecord or canonical dict) belongs to this domain, judged from
        its tool names and argument shapes (the router ingest uses, :mod:`pipeline.ingest.routing`).
        Default: :func:`default_owns` (every domain tool the record uses is one of ours, and it uses
        at least one); a domain overrides it to look at more (result shapes, its system prompt)."""
        return default_owns(self, record)

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

