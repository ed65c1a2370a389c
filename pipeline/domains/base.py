"""The contract every business domain implements (airline, retail, your own system).

A domain is data plus tools: a JSON-serialisable ``state`` (dict of tables keyed by id), tool
functions that read or mutate that state, each with its OpenAI function JSON schema beside it,
a policy text (the business rules document given to agents), an entity generator that builds
fresh fictional state with Faker, and task generators that turn a blueprint *kind* into a task
instance whose reference solution obeys the policy.

:class:`Domain` is the typed contract: five members every domain declares (``name``, ``policy``,
``tools``, ``write_tools``, ``read_tools``) and every other member with a default (routing:
``owns``; transcript tool inference: ``transcript_call``; the hand-off: ``terminate_tools``;
verifier hooks: ``identity_tools``, ``confirmation_required``, ``rule_violations``, ...;
anonymizer hints: ``pii_hints``, ``state_module``), so generic code calls members and never
probes a domain. docs/domains.md, section 2, documents each member.
"""
from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from types import MappingProxyType, ModuleType
from typing import Any, Callable, Iterable, Mapping, Protocol, Sequence, runtime_checkable

# The tools every domain shares (reasoning, arithmetic, the hand-off to a human) live in
# pipeline.domains.shared; SHARED_TOOLS: a call to one of them says nothing about which business
# system a log comes from, so ownership ignores them.
from pipeline.domains.shared import SHARED_TOOLS, TERMINATE_TOOLS

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


#: The ``value`` :meth:`Domain.transcript_call` gets for a tool result that is not JSON.
NOT_JSON: Any = type("NotJson", (), {"__repr__": lambda self: "NOT_JSON"})()


@dataclass
class TranscriptContext:
    """What a transcript reader knows while it names the hidden calls of one flattened transcript
    (:mod:`pipeline.ingest.transcripts`), passed to every domain's :meth:`Domain.transcript_call`.

    ``last_user_text``: the customer's last message before the call; ``last_user_id``: the last
    customer id a lookup returned (set by the domain that recognised the lookup, read by others);
    ``memory``: per domain name, what that domain keeps between calls of this transcript (e.g. the
    last version of each record it saw, to tell a write from a read): :meth:`recall`."""

    last_user_text: str = ""
    last_user_id: str | None = None
    memory: dict[str, dict[str, Any]] = field(default_factory=dict)

    def recall(self, domain: str) -> dict[str, Any]:
        """The mutable memory of ``domain`` for this transcript (created empty)."""
        return self.memory.setdefault(domain, {})


def _no_kind(domain: Any, kind: str) -> ValueError:
    return ValueError(f"domain {domain.name!r} has no task kind {kind!r}; known: {', '.join(domain.task_kinds) or '(none)'}")


@runtime_checkable
class Domain(Protocol):
    """The typed contract of a business domain (``DOMAIN`` in a domain package; see docs/domains.md).

    A domain class subclasses ``Domain`` (directly or through
    :class:`pipeline.domains.common.ModuleDomain`): the members every domain must declare are
    ``name``, ``policy``, ``tools``, ``write_tools`` and ``read_tools``; every other member has a
    default here (a domain without task generators, a routing-only plug-in, is valid), so generic
    code calls members directly and never probes a domain with ``getattr`` / ``hasattr``. The
    registry (:func:`pipeline.domains.get_domain`) refuses an object that does not subclass it.

    Task generation: ``generate_task`` must be deterministic in ``seed``; ``kind_for_write_calls``
    maps a log's ordered write-tool names to a task kind (or None); ``skills_for_kind`` returns
    skill ids from :data:`pipeline.skills.SKILLS`; ``deciding_rules`` returns the rule ids whose
    outcome a kind's variants turn on. The kind-taking members raise ValueError for a kind the
    domain does not have (the defaults: every kind, as a domain without generators has none).
    """

    # ---- what every domain declares -------------------------------------------------------------
    name: str
    policy: str
    tools: dict[str, Tool]
    write_tools: set[str]
    read_tools: set[str]

    # ---- declarations with defaults -------------------------------------------------------------
    #: The policy's rules (:class:`~pipeline.records.PolicyRule`), in policy order.
    rules: Sequence[Any] = ()
    #: Task kinds the domain generates (write / refusal / transfer tasks).
    task_kinds: tuple[str, ...] = ()
    #: Information-request kinds (expected outcome "answer"), apart from ``task_kinds``.
    answer_kinds: tuple[str, ...] = ()
    #: Tools whose successful call ends the episode: the hand-off to a human
    #: (:data:`pipeline.domains.shared.TERMINATE_TOOLS`). The harness, the verifier, the blueprint
    #: miner and the help texts recognise the hand-off only through this set.
    terminate_tools: frozenset[str] = TERMINATE_TOOLS
    #: Tools whose successful call establishes who the customer is (the verifier's identity check;
    #: empty: no identification step).
    identity_tools: frozenset[str] | set[str] = frozenset()
    #: Does the policy require an explicit "yes" before every write? None: decided by the rules
    #: (a rule id ending in ``.general.confirm``; :func:`pipeline.verify.paths.confirmation_required`).
    confirmation_required: bool | None = None
    #: Tool name -> argument paths of free text (``think.thought``) the grounded-arguments check
    #: exempts; list items are written ``[]`` (``passengers[].first_name``). Default: none.
    free_text_arguments: Mapping[str, frozenset[str]] = MappingProxyType({})
    #: Anonymizer hints (:mod:`pipeline.anonymize`): ``keep_words``, ``business_keys``,
    #: ``id_patterns`` ({ENTITY: [regex]}), ``business_ids`` ([regex]). Default: none (the anonymizer
    #: reads the tool schemas and policy anyway).
    pii_hints: Mapping[str, Any] = MappingProxyType({})
    #: The module of the domain's pydantic state models (the anonymizer reads their ``Literal`` and
    #: numeric fields as business facts), or None.
    state_module: ModuleType | None = None

    # ---- tools and routing ------------------------------------------------------------------------
    def tool_schemas(self) -> list[dict[str, Any]]:
        """The OpenAI function-tool schemas of every tool (deep copies, ``tools`` order)."""
        return [copy.deepcopy(t.schema) for t in self.tools.values()]

    def owns(self, record: Any) -> bool:
        """True when ``record`` (a LogRecord or canonical dict) belongs to this domain, judged from
        its tool names and argument shapes (the router ingest uses, :mod:`pipeline.ingest.routing`).
        Default: :func:`default_owns` (every domain tool the record uses is one of ours, and it uses
        at least one); a domain overrides it to look at more (result shapes, its system prompt)."""
        return default_owns(self, record)

    def transcript_call(self, text: str, value: Any,
                        context: TranscriptContext) -> tuple[str, dict[str, Any] | None] | None:
        """Transcript tool inference: the name (and arguments, None when not recoverable) of a
        hidden call of a flattened transcript whose result is one of this domain's shapes, else
        None. ``text`` is the stripped result, ``value`` its JSON (:data:`NOT_JSON` when it is not
        JSON); ``context`` holds the customer's last message and this transcript's memory. Called
        for every hidden call (a domain may update its memory without naming the call). Default:
        None (the transcript reader names the shared tools itself)."""
        return None

    def rules_for_tools(self, names: Iterable[str]) -> list[Any]:
        """The rules constraining calls to ``names``, in policy order. Default: none."""
        return []

    # ---- task generation ----------------------------------------------------------------------------
    def generate_task(self, kind: str, seed: int, denylist: Any = None, variant: str | None = None) -> GeneratedTask:
        """A fresh task instance of ``kind`` (or of its rule-decided ``variant``), deterministic in
        ``seed``. ValueError for an unknown kind (the default: every kind)."""
        raise _no_kind(self, kind)

    def variants_for_kind(self, kind: str) -> list[str]:
        """Rule-decided variant ids of ``kind`` (``"rule:<rule_id>"``). Default: none."""
        return []

    def variant_outcome(self, kind: str, variant: str | None) -> str:
        """``"action"``, ``"refusal"``, ``"transfer"`` or ``"answer"`` for (kind, variant).
        Default: ``"action"``."""
        return "action"

    def initial_state_requirements(self, kind: str) -> dict[str, Any]:
        """What a ``kind`` task's initial state contains (human-readable). ValueError if unknown."""
        raise _no_kind(self, kind)

    def success_condition(self, kind: str) -> str:
        """Human-readable success condition of a ``kind`` task. ValueError if unknown."""
        raise _no_kind(self, kind)

    def skills_for_kind(self, kind: str) -> list[str]:
        """Skill ids (:data:`pipeline.skills.SKILLS`) a ``kind`` task exercises. ValueError if unknown."""
        raise _no_kind(self, kind)

    def deciding_rules(self, kind: str) -> list[str]:
        """Rule ids whose outcome ``kind``'s variants turn on. Default: none."""
        return []

    def validate_state(self, state: dict[str, Any]) -> None:
        """Raise ValueError when ``state`` does not have the domain's record shapes. Default: no check."""

    # ---- reading logs -------------------------------------------------------------------------------
    def kind_for_write_calls(self, names: list[str]) -> str | None:
        """Task kind for a log's ordered write-call names, or None (default)."""
        return None

    def kind_for_intent(self, text: str | list[str]) -> str | None:
        """Task kind the customer's words ask for, for logs without a write call, or None (default)."""
        return None

    def answer_kind_for_intent(self, text: str | list[str]) -> str | None:
        """Answer kind (an information request the domain can answer from its state) the
        customer's words ask for, or None (default)."""
        return None

    def state_from_log(self, calls: list[dict[str, Any]]) -> dict[str, Any] | None:
        """The part of the domain's state a log shows (``calls``: ``{"name", "arguments", "ok",
        "result"}``), to replay :meth:`rule_violations` on it; None (default): not known."""
        return None

    def replay_context(self) -> Any:
        """A context manager entered while ``trajpipe domain check`` replays logged calls
        (pipeline/scaffold/check.py), for what the logged system does differently from a
        synthesized world on purpose, e.g. where its id sequences start (the airline's
        ``logged_system_ids``). Default: ``contextlib.nullcontext()``."""
        import contextlib

        return contextlib.nullcontext()

    def state_from_logs(self, records: list[Any]) -> dict[str, Any] | None:
        """The state a whole log set reveals (every record's tool results), for replaying the logs
        against the sandbox (``trajpipe domain check`` without ``--db``); None (default): not
        known. Scaffolded domains implement it (pipeline/scaffold/runtime.py)."""
        return None

    # ---- verifier hooks ------------------------------------------------------------------------------
    def rule_violations(self, initial_state: dict[str, Any], calls: list[dict[str, Any]],
                        final_state: dict[str, Any] | None = None) -> list[dict[str, Any]] | None:
        """``[{"rule_id", "step", "detail"}]`` for every business rule the executed ``calls``
        (``[{"name", "arguments", "error"}]``, in order) break; None (default): the domain has no
        rule checks (callers then fall back to the rules of the tools called)."""
        return None

    def derived_values(self, name: str, arguments: dict[str, Any], evidence: Any) -> list[Any]:
        """Values the policy derives for a call to ``name`` from what the agent has seen
        (``evidence``: a :class:`pipeline.verify.grounding.Evidence`), e.g. a computed price, so the
        grounded-arguments check accepts them without a verbatim occurrence. Default: none."""
        return []


#: Members of :class:`Domain` every domain must declare itself (no default).
REQUIRED_MEMBERS: tuple[str, ...] = ("name", "policy", "tools", "write_tools", "read_tools")
