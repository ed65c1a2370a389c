"""Building blocks shared by the domain packages (airline, retail, library, your own).

A domain package keeps what is specific to its business (record shapes, tools, policy, checks,
task generators) and takes the generic plumbing from here:

* policy rules: :func:`parse_policy_rules` (``- [<prefix>.x.y] text`` bullets -> PolicyRule list)
  and :func:`select_rules` (the rules that constrain some tool calls);
* state: :class:`StrictModel` (pydantic, extra fields forbidden), the common record shapes
  :class:`Name` and :class:`Address`, :func:`copy_state` and the checks
  :func:`check_record`, :func:`check_payment_method_keys`, :func:`check_owner`;
* tools: :func:`tool_registry` (the ``_register`` decorator), :func:`object_params` (a
  function's JSON-schema parameters), :func:`get_record`, :func:`calculate_expression`;
* generators: :class:`SeededFactory` (seeded ``random.Random`` + Faker + denylist redraws),
  :func:`hashed_seed`, :func:`leaked_values` (the answer-leak token test, also the task
  verifier's) and :func:`replay_reference` (the generators' self-check);
* the domain object: :class:`ModuleDomain`, a :class:`~pipeline.domains.base.Domain` that
  delegates the contract's members to the package's ``generator``, ``rules``, ``tools`` and
  ``state`` modules; a domain subclasses it and overrides only what differs.

The tools every domain shares (``think``, ``calculate``, the hand-off) are in
:mod:`pipeline.domains.shared`.

Nothing here reads the clock, the network or global random state.
"""
from __future__ import annotations

import ast
import copy
import hashlib
import operator
import random
import re
from types import ModuleType
from typing import Any, Callable, Iterable

from faker import Faker
from pydantic import BaseModel, ConfigDict

from pipeline.domains.base import Domain, GeneratedTask, Tool, ToolError
from pipeline.records import PolicyRule
from pipeline.skills import check_skills

# ---- policy rules ----------------------------------------------------------------------------


def parse_policy_rules(policy_text: str, prefix: str) -> list[PolicyRule]:
    """Every ``- [<prefix>.x.y] text`` bullet of ``policy_text``, in document order, as
    ``PolicyRule(rule_id="<prefix>.x.y", text="text")``.

    ``prefix`` is the domain name (``"airline"``); bullets with another prefix are ignored.
    Raises ValueError on a duplicate rule id.
    """
    line_re = re.compile(rf"^- \[({re.escape(prefix)}\.[a-z_]+\.[a-z_]+)\] (.+)$")
    rules, seen = [], set()
    for line in policy_text.splitlines():
        m = line_re.match(line.strip())
        if m:
            if m.group(1) in seen:
                raise ValueError(f"duplicate rule id {m.group(1)}")
            seen.add(m.group(1))
            rules.append(PolicyRule(rule_id=m.group(1), text=m.group(2)))
    return rules


def select_rules(rules: list[PolicyRule], tool_names: Iterable[str], write_tools: Iterable[str],
                 general_write_rules: Iterable[str], tool_rules: dict[str, tuple[str, ...]]) -> list[PolicyRule]:
    """The ``rules`` constraining calls to ``tool_names``, in policy order, without repeats:
    a name in ``write_tools`` adds ``general_write_rules``; every name adds its own
    ``tool_rules`` entry (unknown names add nothing)."""
    writes = set(write_tools)
    ids: set[str] = set()
    for name in tool_names:
        if name in writes:
            ids.update(general_write_rules)
        ids.update(tool_rules.get(name, ()))
    return [r for r in rules if r.rule_id in ids]


# ---- state -----------------------------------------------------------------------------------


class StrictModel(BaseModel):
    """Base of every record model: unknown fields are an error (``extra="forbid"``)."""

    model_config = ConfigDict(extra="forbid")


class Name(StrictModel):
    """A person's name: ``first_name``, ``last_name``."""

    first_name: str
    last_name: str


class Address(StrictModel):
    """A US postal address (``state`` is the two-letter state code)."""

    address1: str
    address2: str
    city: str
    country: str
    state: str
    zip: str


def copy_state(state: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of ``state`` (tools mutate in place; copy before running a task)."""
    return copy.deepcopy(state)


def check_record(model: type[BaseModel], record: dict[str, Any], key: str, id_field: str, label: str) -> None:
    """Validate ``record`` (stored under ``key``) against ``model`` and check that ``key`` equals
    its ``id_field``: ValueError ``"<label> key <key> != <id_field> <id>"`` otherwise
    (pydantic's ValidationError, a ValueError, for a wrong shape)."""
    model.model_validate(record)
    if record[id_field] != key:
        raise ValueError(f"{label} key {key} != {id_field} {record[id_field]}")


def check_payment_method_keys(user_id: str, user: dict[str, Any]) -> None:
    """ValueError when a key of the user's ``payment_methods`` differs from the method's ``id``."""
    for pid, pm in user["payment_methods"].items():
        if pm["id"] != pid:
            raise ValueError(f"user {user_id}: payment method key {pid} != id {pm['id']}")


def check_owner(users: dict[str, dict[str, Any]], label: str, record_id: str, user_id: str, list_field: str) -> None:
    """ValueError unless user ``user_id`` exists and its ``list_field`` lists ``record_id``
    (e.g. an order and ``users[uid]["orders"]``); ``label`` names the record in the message."""
    user = users.get(user_id)
    if user is None:
        raise ValueError(f"{label} {record_id}: user {user_id} not found")
    if record_id not in user[list_field]:
        raise ValueError(f"{label} {record_id} not listed by user {user_id}")


# ---- tools -----------------------------------------------------------------------------------


def tool_registry(tools: dict[str, Tool]) -> Callable[..., Callable[[Callable[..., str]], Callable[..., str]]]:
    """The ``_register(schema, writes=False)`` decorator of a tools module: it wraps ``fn`` and
    its function ``schema`` into a :class:`Tool` stored in ``tools`` under the schema's name."""

    def register(schema: dict[str, Any], writes: bool = False) -> Callable[[Callable[..., str]], Callable[..., str]]:
        """Decorator: register ``fn`` with ``schema`` (``writes``: the tool changes state)."""

        def deco(fn: Callable[..., str]) -> Callable[..., str]:
            """Store ``Tool(fn, schema, writes)`` under the schema's name; return ``fn`` unchanged."""
            tools[schema["name"]] = Tool(fn=fn, schema={"type": "function", "function": schema}, writes=writes)
            return fn

        return deco

    return register


def object_params(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    """JSON-schema ``parameters`` of a tool: an object with ``properties``, no other fields, and
    ``required`` (default: every property)."""
    return {"type": "object", "properties": properties,
            "required": list(properties) if required is None else required, "additionalProperties": False}


def get_record(state: dict[str, Any], table: str, key: str, what: str) -> dict[str, Any]:
    """``state[table][key]``; ToolError(``"<what> not found"``) when it is missing."""
    rec = state[table].get(key)
    if rec is None:
        raise ToolError(f"{what} not found")
    return rec


_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def _eval(node: ast.AST) -> float:
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_eval(node.left), _eval(node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        v = _eval(node.operand)
        return v if isinstance(node.op, ast.UAdd) else -v
    raise ToolError("invalid expression")


def calculate_expression(expression: str) -> str:
    """The ``calculate`` tool's behaviour: the value of an arithmetic ``expression`` (numbers,
    ``+ - * /``, parentheses, spaces) rounded to 2 decimals as text (``"255.0"``). ToolError on
    other characters, a malformed expression or division by zero."""
    if not expression or any(c not in "0123456789+-*/(). " for c in expression):
        raise ToolError("invalid characters in expression")
    try:
        value = _eval(ast.parse(expression, mode="eval"))
    except ZeroDivisionError:
        raise ToolError("division by zero") from None
    except SyntaxError:
        raise ToolError("invalid expression") from None
    return str(round(float(value), 2))


# ---- generators ------------------------------------------------------------------------------

#: ``denylist(value) -> True`` rejects a personal value seen in real logs.
Denylist = Callable[[str], bool]

#: Failed draws after which :meth:`SeededFactory._draw` gives up.
MAX_TRIES = 500


class SeededFactory:
    """Base of a domain's entity factory: every random choice goes through ``self.rng``
    (``random.Random(seed)``), every fake value through ``self.fake`` (Faker ``en_US``,
    ``seed_instance(seed)``), and every personal value through :meth:`_draw`, which redraws
    values the ``denylist`` rejects or this state already uses. ``state`` starts as
    ``empty_state()`` (pass the domain's own). Same seed and denylist -> same state.
    """

    def __init__(self, seed: int, denylist: Denylist | None, empty_state: Callable[[], dict[str, Any]]):
        self.rng = random.Random(seed)
        self.fake = Faker("en_US")
        self.fake.seed_instance(seed)
        self.denylist: Denylist = denylist or (lambda _value: False)
        self.used: set[str] = set()
        self.state: dict[str, Any] = empty_state()

    def _accept(self, *values: str) -> bool:
        """True (and remember them) when no value is denylisted or already used."""
        if any(v in self.used or self.denylist(v) for v in values):
            return False
        self.used.update(values)
        return True

    def _draw(self, make: Callable[[], Any], key: Callable[[Any], tuple[str, ...]]) -> Any:
        """``make()`` until none of ``key(value)`` is denylisted or already used (RuntimeError
        after :data:`MAX_TRIES` failed draws)."""
        for _ in range(MAX_TRIES):
            value = make()
            if self._accept(*key(value)):
                return value
        raise RuntimeError("could not draw a value the denylist accepts")

    def address(self) -> dict[str, str]:
        """A fictional US address (the :class:`Address` shape); address1 and zip are
        denylist-checked. Draws: address1, zip, address2, city, state, in that order."""
        fake, rng = self.fake, self.rng
        a1 = self._draw(lambda: f"{fake.building_number()} {fake.street_name()}", lambda v: (v,))
        zip_code = self._draw(lambda: fake.zipcode(), lambda v: (v,))
        return {"address1": a1, "address2": rng.choice(["", f"Suite {rng.randint(100, 999)}", f"Apt {rng.randint(1, 99)}"]),
                "city": fake.city(), "country": "USA", "state": fake.state_abbr(include_territories=False),
                "zip": zip_code}


def hashed_seed(key: str) -> int:
    """A 64-bit seed from a text key (the first 16 hex digits of its SHA-256): how a domain
    derives a task's entity seed from ``"<domain>:<kind>:<seed>..."``."""
    return int(hashlib.sha256(key.encode("utf-8")).hexdigest()[:16], 16)


def leaked_values(instruction: str, values: list[str]) -> list[str]:
    """The ``values`` that occur in ``instruction`` as a whole token (not inside a longer word or
    number) - the task verifier's answer-leak test."""
    return [v for v in values if v and re.search(rf"(?<![\w.]){re.escape(v)}(?![\w])", instruction)]


# ---- the domain object -----------------------------------------------------------------------


class ModuleDomain(Domain):
    """A :class:`~pipeline.domains.base.Domain` built from a domain package's modules.

    Subclasses set ``name`` and the four modules (class attributes):

    * ``generator_module``: ``TASK_KINDS``, ``SKILLS_FOR_KIND``, ``DECIDING_RULES``,
      ``_check_kind(kind)``, ``generate_task(kind, seed, denylist, variant=)``,
      ``variants_for_kind``, ``variant_outcome``, ``initial_state_requirements``,
      ``success_condition``, ``kind_for_write_calls``, ``kind_for_intent``;
    * ``rules_module``: ``POLICY_TEXT``, ``RULES``, ``rules_for_tools``, ``rule_violations``;
    * ``tools_module``: ``TOOLS``, ``WRITE_TOOLS``, ``READ_TOOLS``;
    * ``state_module``: ``validate_state``;

    and optionally ``answers_module`` (information requests: ``ANSWER_KINDS``, ``SKILLS_FOR_KIND``,
    ``generate_task(kind, seed, denylist)``, ``kind_for_intent``, ``initial_state_requirements``,
    ``success_condition``; its kinds are in :attr:`answer_kinds`, not in ``task_kinds``, and every
    kind-taking method below dispatches to it). The other members of the contract
    (``terminate_tools``, ``identity_tools``, ``confirmation_required``, ``free_text_arguments``,
    ``pii_hints``, ``owns``, ``transcript_call``, ``state_from_log``, ``derived_values``, ...) keep
    the defaults of :class:`~pipeline.domains.base.Domain` unless the subclass sets them. Override
    any method whose behaviour differs (e.g. a kind_for_intent of the domain object's own).
    Instances get ``policy``, ``tools``, ``write_tools``, ``read_tools``, ``rules`` and
    ``task_kinds`` from those modules.
    """

    name: str = ""
    generator_module: ModuleType
    rules_module: ModuleType
    tools_module: ModuleType
    state_module: ModuleType
    #: Module of the domain's answer-task generators (information requests), or None.
    answers_module: ModuleType | None = None

    def __init__(self) -> None:
        self.policy: str = self.rules_module.POLICY_TEXT
        self.tools: dict[str, Tool] = dict(self.tools_module.TOOLS)
        self.write_tools: set[str] = set(self.tools_module.WRITE_TOOLS)
        self.read_tools: set[str] = set(self.tools_module.READ_TOOLS)
        self.rules: list[PolicyRule] = list(self.rules_module.RULES)
        self.task_kinds: tuple[str, ...] = self.generator_module.TASK_KINDS
        #: Information-request kinds (expected outcome "answer"); kept apart from ``task_kinds``
        #: so code that expects a write kind never meets them.
        self.answer_kinds: tuple[str, ...] = tuple(self.answers_module.ANSWER_KINDS) if self.answers_module else ()
        self.identity_tools: set[str] = set(self.identity_tools)  # a per-instance copy of the class's set

    def rules_for_tools(self, names: Iterable[str]) -> list[PolicyRule]:
        """Rules constraining calls to ``names`` (the rules module's ``rules_for_tools``)."""
        return self.rules_module.rules_for_tools(names)

    def generate_task(self, kind: str, seed: int, denylist=None, variant: str | None = None) -> GeneratedTask:
        """A fresh task instance of ``kind``, or of one of its rule-decided ``variant`` ids (the
        generator module's ``generate_task``)."""
        if kind in self.answer_kinds:
            if variant is not None:
                raise ValueError(f"answer kind {kind!r} has no variants, got {variant!r}")
            return self.answers_module.generate_task(kind, seed, denylist)
        return self.generator_module.generate_task(kind, seed, denylist, variant=variant)

    def answer_kind_for_intent(self, text: str | list[str]) -> str | None:
        """The answer kind (information request) a customer's words ask for, or None (the answers
        module's ``kind_for_intent``; None without an answers module)."""
        return self.answers_module.kind_for_intent(text) if self.answers_module else None

    def variants_for_kind(self, kind: str) -> list[str]:
        """Rule-decided variant ids of ``kind`` (``"rule:<rule_id>"``); [] when it has none."""
        if kind in self.answer_kinds:
            return []
        return self.generator_module.variants_for_kind(kind)

    def variant_outcome(self, kind: str, variant: str | None) -> str:
        """``"action"``, ``"refusal"``, ``"transfer"`` or (answer kinds) ``"answer"`` for (kind,
        variant). ValueError if unknown."""
        if kind in self.answer_kinds and variant is None:
            return "answer"
        return self.generator_module.variant_outcome(kind, variant)

    def initial_state_requirements(self, kind: str) -> dict[str, Any]:
        """What a ``kind`` task's initial state contains (human-readable)."""
        if kind in self.answer_kinds:
            return self.answers_module.initial_state_requirements(kind)
        return self.generator_module.initial_state_requirements(kind)

    def success_condition(self, kind: str) -> str:
        """Human-readable success condition of a ``kind`` task."""
        if kind in self.answer_kinds:
            return self.answers_module.success_condition(kind)
        return self.generator_module.success_condition(kind)

    def kind_for_write_calls(self, names: list[str]) -> str | None:
        """Task kind for a log's ordered write-call names, or None."""
        return self.generator_module.kind_for_write_calls(names)

    def kind_for_intent(self, text: str | list[str]) -> str | None:
        """Task kind for the customer's first turn(s) of a log without tool names, or None."""
        return self.generator_module.kind_for_intent(text)

    def validate_state(self, state: dict[str, Any]) -> None:
        """Raise ValueError when ``state`` does not have the domain's record shapes."""
        self.state_module.validate_state(state)

    def skills_for_kind(self, kind: str) -> list[str]:
        """Skill ids (pipeline.skills.SKILLS) a ``kind`` task exercises. ValueError if unknown."""
        if kind in self.answer_kinds:
            return check_skills(list(self.answers_module.SKILLS_FOR_KIND[kind]))
        self.generator_module._check_kind(kind)
        return check_skills(self.generator_module.SKILLS_FOR_KIND[kind])

    def deciding_rules(self, kind: str) -> list[str]:
        """Rule ids whose outcome the ``kind``'s variants turn on. ValueError if unknown."""
        if kind in self.answer_kinds:
            return []
        self.generator_module._check_kind(kind)
        return list(self.generator_module.DECIDING_RULES[kind])

    def rule_violations(self, initial_state: dict[str, Any], calls: list[dict[str, Any]],
                        final_state: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """``[{"rule_id", "step", "detail"}]`` for each business rule the executed ``calls``
        break (the rules module's ``rule_violations``)."""
        return self.rules_module.rule_violations(initial_state, calls, final_state)


def replay_reference(tools: dict[str, Tool], state: dict[str, Any], reference: list[dict[str, Any]],
                     label: str) -> dict[str, Any]:
    """The state a generator's ``reference`` (``[{"name", "arguments"}]``) reaches from ``state``,
    run with the domain's ``tools`` on a deep copy (``state`` is not touched): the generators'
    self-check. RuntimeError ``"<label>: reference call <name> failed: <error>"`` (a generator bug)
    when a call raises."""
    probe = copy.deepcopy(state)
    for call in reference:
        try:
            tools[call["name"]].fn(probe, **copy.deepcopy(call["arguments"]))
        except Exception as exc:  # pragma: no cover - generator bug
            raise RuntimeError(f"{label}: reference call {call['name']} failed: {exc}") from exc
    return probe


def assert_reads_only(tools: dict[str, Any], state: dict[str, Any], reference: list[dict[str, Any]], label: str) -> None:
    """Replay ``reference`` (``[{"name", "arguments"}]``) on a deep copy of ``state`` with the
    domain's ``tools`` (:func:`replay_reference`); RuntimeError (a generator bug) naming ``label``
    when it fails or changes the state (an answer task's reference must only read)."""
    if replay_reference(tools, state, reference, label) != state:  # pragma: no cover
        raise RuntimeError(f"{label}: an answer reference changed the state")


def match_intent(intents: tuple[tuple[str, str], ...], text: str | list[str]) -> str | None:
    """The kind of the first ``(regex, kind)`` in ``intents`` that matches the lower-cased
    ``text`` (a message or a list of them, joined), or None."""
    import re as _re

    t = " ".join([text] if isinstance(text, str) else list(text)).lower()
    return next((kind for pattern, kind in intents if _re.search(pattern, t)), None)
