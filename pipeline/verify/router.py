"""Reward registry and router: the right chain of reward tools for each task type (RLAR's idea).

A **reward tool** (:class:`RewardTool`) is one check that reads a verification
:class:`Context` (the episode replayed in the task's sandbox) and returns a :class:`ToolResult`
(passed, reason codes, evidence). Built-in tools (:data:`BUILTIN_TOOLS`):

| tool | role | checks |
| --- | --- | --- |
| ``state_hash`` | gate | final sandbox state hash = expected (tau-bench's database-hash reward) |
| ``refusal_text`` | gate | the last agent message refuses, and no transfer happened |
| ``transfer_call`` | gate | a transfer to a human agent succeeded |
| ``answer_match`` | gate | required facts stated, no spraying / contradiction / question-only (:mod:`.answers`) |
| ``path_checks`` | shaping | identity, confirmation, forbidden actions, repeats, grounded arguments, false success claims |

The **routing table** (YAML, shipped as package data; one per domain at
``pipeline/domains/<name>/rewards.yaml``, else ``pipeline/verify/rewards_default.yaml``) maps a
task type (``kind``, ``outcome``; ``"*"`` matches any) to a chain of tool names. The most
specific route wins (kind + outcome, then kind, then outcome, then ``*``/``*``).

The **registry** (:class:`RewardRegistry`) admits a tool for a domain only after its
reverse-validation passes on that domain (:func:`validate_tool`): on the known-good variants and
known-bad mutants of one task of every kind / variant / answer kind the tool applies to
(:mod:`.mutations`), every known-good variant passes the tool and every mutant the tool is
responsible for (``must_catch``) fails it. A chain naming a tool that is unknown or not admitted
raises :class:`RewardToolRejected`. Admission is computed once per domain name and process.

:func:`pipeline.verify.verify_trajectory` runs the routed chain, so the verify stage,
``pipeline.rewards.compute_score`` (veRL) and ``pipeline.trl_env.grpo_reward`` (TRL), which all
call it, go through the same router.
"""
from __future__ import annotations

import functools
import importlib.resources
from dataclasses import dataclass, field
from typing import Any, Callable

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator

from pipeline.records import TaskPackage, Trajectory
from pipeline.sandbox import Sandbox, state_diff

from . import answers, grounding, paths

OUTCOMES = ("action", "refusal", "transfer", "answer")


class RewardToolRejected(RuntimeError):
    """A routing table names a tool that is unknown or failed its reverse-validation."""


@dataclass
class Context:
    """What every reward tool reads: the trajectory, its task and domain, the executed calls
    (:class:`pipeline.verify.paths.Call`), the replayed final state, whether the recorded final
    hash equals the expected one, whether a transfer succeeded, the last agent text (and its
    message index), the expected state (computed on demand) and, set by the gates run so far,
    ``outcome`` (every gate passed)."""

    traj: Trajectory
    task: TaskPackage
    domain: Any
    calls: list[Any]
    final_state: dict[str, Any]
    state_ok: bool
    transferred: bool
    last_text: str
    last_index: int | None
    schemas: dict[str, Any]
    expected: dict[str, Any] | None = None
    outcome: bool = True

    def expected_state(self) -> dict[str, Any]:
        """The state the reference reaches (cached)."""
        if self.expected is None:
            sb = Sandbox(self.domain, self.task.hidden.initial_state)
            sb.run([c.model_dump() for c in self.task.hidden.reference_solution])
            self.expected = sb.state
        return self.expected


@dataclass
class ToolResult:
    """A reward tool's decision: ``passed``, reason ``codes``, ``details`` (evidence) and, for
    the path checks, ``violations`` (``Verdict.violations`` entries)."""

    passed: bool
    codes: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    violations: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class RewardTool:
    """One reward tool: ``name``, ``role`` (``gate``: decides the outcome; ``shaping``: counted in
    the violations component; ``judge``: stored as evidence only), ``run(ctx) -> ToolResult``,
    ``outcomes`` it applies to, ``component`` (the ``Verdict.reward_components`` key it reports,
    or None), and ``must_catch(label, task, domain) -> bool``: the mutant labels
    (:mod:`pipeline.verify.mutations`) its reverse-validation requires it to fail."""

    name: str
    role: str
    description: str
    run: Callable[[Context], ToolResult]
    outcomes: tuple[str, ...] = OUTCOMES
    component: str | None = None
    must_catch: Callable[[str, TaskPackage, Any], bool] = lambda label, task, domain: False


# ---- built-in tools ----------------------------------------------------------------------------

def _state_hash(ctx: Context) -> ToolResult:
    if ctx.state_ok:
        return ToolResult(True)
    return ToolResult(False, ["TRAJ_WRONG_FINAL_STATE"],
                      {"state_diff": state_diff(ctx.expected_state(), ctx.final_state, limit=20)})


def _refusal_text(ctx: Context) -> ToolResult:
    ok = not ctx.transferred and paths.states_refusal(ctx.last_text)
    return ToolResult(ok, [] if ok else ["TRAJ_NO_REFUSAL"])


def _transfer_call(ctx: Context) -> ToolResult:
    return ToolResult(ctx.transferred, [] if ctx.transferred else ["TRAJ_NO_TRANSFER"])


def answer_facts(task: TaskPackage) -> list[dict[str, Any]]:
    """The required facts of an answer task (``hidden.verifier["answer"]["facts"]``; [] if none)."""
    return list(((task.hidden.verifier or {}).get("answer") or {}).get("facts") or [])


def _answer_match(ctx: Context) -> ToolResult:
    facts = answer_facts(ctx.task)
    if not facts:
        return ToolResult(False, ["ANSWER_MISSING_FACT"], {"error": "the task declares no facts"})
    res = answers.check_answer(facts, answers.agent_texts(ctx.traj.messages))
    return ToolResult(res.passed, list(res.codes), {"facts": res.facts})


def _path_checks(ctx: Context) -> ToolResult:
    task, traj = ctx.task, ctx.traj
    violations = paths.path_violations(ctx.calls, traj.messages, ctx.domain, task.hidden.initial_state,
                                       ctx.final_state, task.visible.instruction)
    violations += grounding.ungrounded_arguments(ctx.calls, traj.messages, ctx.domain, ctx.schemas,
                                                 task.visible.instruction)
    violations.sort(key=lambda v: (v["step"] if v["step"] is not None else 1 << 30))
    # a refusal task has nothing to claim; elsewhere a claim is false when the outcome is wrong
    if paths.claims_success(ctx.last_text) and (not ctx.outcome or task.expected_outcome == "refusal"):
        violations.append({"code": "TRAJ_FALSE_SUCCESS_CLAIM", "step": None, "message": ctx.last_index,
                           "detail": f"last agent message claims success: {ctx.last_text[:120]!r}"})
    codes = list(dict.fromkeys(v["code"] for v in violations))
    return ToolResult(not violations, codes, violations=violations)


def _writes(domain: Any) -> set[str]:
    return set(domain.write_tools)


def _catch_state(label: str, task: TaskPackage, domain: Any) -> bool:
    head, _, tool = label.partition(":")
    if head in ("wrong_argument", "extra_write", "forbidden_action"):
        return True
    if head == "skipped":
        return tool in _writes(domain)
    return head == "do_nothing" and task.expected_outcome == "action"


def _catch_path(label: str, task: TaskPackage, domain: Any) -> bool:
    head, _, tool = label.partition(":")
    ident = set(domain.identity_tools)
    return head == "no_confirmation" or (head == "skipped" and tool in ident)


BUILTIN_TOOLS: dict[str, RewardTool] = {t.name: t for t in [
    RewardTool("state_hash", "gate", "final sandbox state hash equals the expected one", _state_hash,
               component=None, must_catch=_catch_state),
    RewardTool("refusal_text", "gate", "the last agent message refuses; no transfer", _refusal_text,
               outcomes=("refusal",), must_catch=lambda lab, t, d: lab == "do_nothing"),
    RewardTool("transfer_call", "gate", "a transfer to a human agent succeeded", _transfer_call,
               outcomes=("transfer",),
               must_catch=lambda lab, t, d: lab == "do_nothing" or lab.startswith("skipped:transfer")),
    RewardTool("answer_match", "gate", "the required facts are stated; no spraying, contradiction or "
               "question-only reply (pipeline/verify/answers.py)", _answer_match, outcomes=("answer",),
               component="answer",
               must_catch=lambda lab, t, d: lab.split(":")[0] in ANSWER_MUTANTS or lab == "do_nothing"),
    RewardTool("path_checks", "shaping", "identity, confirmation, forbidden actions, repeats, grounded "
               "arguments, false success claims", _path_checks, must_catch=_catch_path),
]}
#: Mutant labels of answer tasks (built by :func:`pipeline.verify.mutations.build_variants`).
ANSWER_MUTANTS = ("wrong_value", "missing_fact", "answer_spraying", "contradicting_fact", "question_only")


# ---- routing tables ----------------------------------------------------------------------------

class Route(BaseModel):
    """One row of a routing table: task ``kind`` and expected ``outcome`` (``"*"`` = any) ->
    ``chain`` of tool names (gates first, in order; ``path_checks`` last). ``judge``: an
    optional model-judge tool name, reported as evidence only (none is admitted today)."""

    model_config = ConfigDict(extra="forbid")
    kind: str = "*"
    outcome: str = "*"
    chain: list[str] = Field(min_length=1)
    judge: str | None = None

    @field_validator("outcome")
    @classmethod
    def _known_outcome(cls, v: str) -> str:
        if v != "*" and v not in OUTCOMES:
            raise ValueError(f"unknown outcome {v!r}; known: {', '.join(OUTCOMES)} or *")
        return v

    @property
    def route_id(self) -> str:
        """``"<kind>/<outcome>"``, the name the card and verdicts use."""
        return f"{self.kind}/{self.outcome}"


class RouteTable(BaseModel):
    """A routing table (one YAML file): ``domain`` (a name or ``"*"``) and its ``routes``."""

    model_config = ConfigDict(extra="forbid")
    domain: str
    routes: list[Route] = Field(min_length=1)


def parse_table(text: str, source: str = "<text>") -> RouteTable:
    """Parse and validate a routing table from YAML text. ValueError naming ``source`` on bad YAML,
    a wrong shape (pydantic), or a chain naming a tool that is not in :data:`BUILTIN_TOOLS`."""
    try:
        data = yaml.safe_load(text)
        table = RouteTable.model_validate(data)
    except (yaml.YAMLError, ValueError) as exc:
        raise ValueError(f"bad routing table {source}: {exc}") from exc
    for r in table.routes:
        unknown = [n for n in r.chain if n not in BUILTIN_TOOLS]
        if unknown:
            raise ValueError(f"bad routing table {source}: route {r.route_id} names unknown tools {unknown}; "
                             f"known: {', '.join(BUILTIN_TOOLS)}")
    return table


@functools.lru_cache(maxsize=None)
def load_table(domain_name: str) -> RouteTable:
    """The routing table of a domain: ``pipeline/domains/<name>/rewards.yaml`` (package data) when
    it exists, else ``pipeline/verify/rewards_default.yaml``."""
    try:
        res = importlib.resources.files(f"pipeline.domains.{domain_name}").joinpath("rewards.yaml")
        if res.is_file():
            return parse_table(res.read_text(encoding="utf-8"), f"pipeline/domains/{domain_name}/rewards.yaml")
    except (ModuleNotFoundError, TypeError):
        pass
    res = importlib.resources.files("pipeline.verify").joinpath("rewards_default.yaml")
    return parse_table(res.read_text(encoding="utf-8"), "pipeline/verify/rewards_default.yaml")


def route_for(table: RouteTable, kind: str | None, outcome: str) -> Route:
    """The most specific route of ``table`` for (kind, outcome). ValueError when none matches."""
    best, score = None, -1
    for r in table.routes:
        if r.kind not in ("*", kind) or r.outcome not in ("*", outcome):
            continue
        s = 2 * (r.kind != "*") + (r.outcome != "*")
        if s > score:
            best, score = r, s
    if best is None:
        raise ValueError(f"routing table of {table.domain} has no route for kind {kind!r}, outcome {outcome!r}")
    return best


# ---- registry ----------------------------------------------------------------------------------

def validation_tasks(domain: Any, seed: int = 0) -> list[TaskPackage]:
    """One task of every kind, rule-decided variant and answer kind of ``domain`` (the reverse-
    validation sample)."""
    from .mutations import kinds_and_variants, task_for

    pairs = kinds_and_variants(domain) + [(k, None) for k in domain.answer_kinds]
    return [task_for(domain, k, seed, v) for k, v in pairs]


def validate_tool(tool: RewardTool, domain: Any, cases: list[tuple[str, bool, Context]]) -> dict[str, Any]:
    """Reverse-validate ``tool`` on ``cases`` (``(label, expect_pass, context)`` built from the
    mutation variants of :func:`validation_tasks`): known-good variants of tasks whose outcome the
    tool applies to must pass it; mutants it ``must_catch`` must fail it. Returns ``{"tool",
    "passed", "good", "bad", "misclassified"}`` (counts; up to 10 misclassified labels)."""
    good = bad = 0
    wrong: list[str] = []
    for label, expect_pass, ctx in cases:
        if ctx.task.expected_outcome not in tool.outcomes:
            continue
        if expect_pass:
            good += 1
            if not tool.run(ctx).passed:
                wrong.append(f"{ctx.task.task_id}:{label}")
        elif tool.must_catch(label, ctx.task, domain):
            bad += 1
            if tool.run(ctx).passed:
                wrong.append(f"{ctx.task.task_id}:{label}")
    return {"tool": tool.name, "passed": not wrong and good > 0, "good": good, "bad": bad,
            "misclassified": wrong[:10]}


class RewardRegistry:
    """Reward tools admitted per domain. :meth:`admit` reverse-validates a tool on the domain and
    adds it only when the validation passes; :attr:`validation` keeps every report."""

    def __init__(self) -> None:
        self._admitted: dict[str, RewardTool] = {}
        self.validation: dict[str, dict[str, Any]] = {}
        self.validated_on = ""  # the domain the admitted tools were validated on (validation_domain)

    def admit(self, tool: RewardTool, domain: Any, cases: list[tuple[str, bool, Context]]) -> dict[str, Any]:
        """Validate ``tool`` on ``cases`` and admit it. Raises :class:`RewardToolRejected` with the
        report when a known-good variant fails it or a mutant it must catch passes it."""
        report = validate_tool(tool, domain, cases)
        self.validation[tool.name] = report
        if not report["passed"]:
            raise RewardToolRejected(f"reward tool {tool.name} failed reverse-validation on domain "
                                     f"{domain.name}: {report}")
        self._admitted[tool.name] = tool
        return report

    def get(self, name: str) -> RewardTool:
        """An admitted tool. :class:`RewardToolRejected` for a name not admitted."""
        if name not in self._admitted:
            raise RewardToolRejected(f"reward tool {name!r} is not admitted; admitted: {sorted(self._admitted)}")
        return self._admitted[name]

    def names(self) -> list[str]:
        """Admitted tool names, sorted."""
        return sorted(self._admitted)


@dataclass
class Router:
    """A domain's routing table plus its registry of admitted tools."""

    table: RouteTable
    registry: RewardRegistry

    def route(self, task: TaskPackage) -> Route:
        """The route of ``task`` (its kind and expected outcome)."""
        return route_for(self.table, task.task_kind, task.expected_outcome)

    def chain(self, task: TaskPackage) -> list[RewardTool]:
        """The admitted tools of ``task``'s route, in order."""
        return [self.registry.get(n) for n in self.route(task).chain]


_ROUTERS: dict[str, Router] = {}


def validation_cases(domain: Any) -> list[tuple[str, bool, Context]]:
    """``(label, expect_pass, context)`` for every mutation variant of :func:`validation_tasks`."""
    from .mutations import build_variants, to_trajectory

    out = []
    for task in validation_tasks(domain):
        for i, v in enumerate(build_variants(task, domain)):
            out.append((v.label, v.expect_pass, build_context(to_trajectory(task, domain, v, i), task, domain)))
    return out


def validation_domain(domain: Any) -> Any:
    """The domain the built-in reward tools are reverse-validated on for ``domain``: itself when
    it can generate tasks (``task_kinds``), else the first registered domain (by name) that can (a
    domain with tools but no task generator, e.g. a minimal plug-in, has no cases of its own; the
    built-in tools are domain-agnostic code, so they are admitted on a reference domain's
    validation, and ``RewardRegistry.validated_on`` says so). LookupError when no registered domain
    generates tasks."""
    if domain.task_kinds:
        return domain
    from pipeline.domains import get_domain, known_domains

    for name in known_domains():
        ref = get_domain(name)
        if ref.task_kinds:
            return ref
    raise LookupError(f"no registered domain generates tasks to validate the reward tools of {domain.name!r} on")


def router_for(domain: Any) -> Router:
    """The domain's :class:`Router`: its routing table (:func:`load_table`) and every tool the
    table names, admitted after reverse-validation on the domain (once per domain name and
    process: a reconfigured copy of a domain, e.g. in a test, reuses the admitted tools, which
    then read the copy through ``Context.domain``). A tool no validation case exercises (e.g. ``transfer_call`` in a domain without
    transfer tasks) is left out of the registry. Raises :class:`RewardToolRejected` when a tool
    fails its validation.""" 
    key = domain.name or f"<unnamed {id(domain)}>"
    if key in _ROUTERS:
        return _ROUTERS[key]
    table = load_table(domain.name)
    registry = RewardRegistry()
    router = Router(table, registry)
    _ROUTERS[key] = router  # no recursion while validating (build_context uses no router)
    try:
        vdom = validation_domain(domain)
        registry.validated_on = vdom.name
        cases = validation_cases(vdom)
        for name in dict.fromkeys(n for r in table.routes for n in r.chain):
            report = validate_tool(BUILTIN_TOOLS[name], vdom, cases)
            if report["good"] == 0 and not report["misclassified"]:
                # nothing of this domain exercises the tool (e.g. no transfer task): it stays out
                # of the registry, and a task routed to it fails with RewardToolRejected
                registry.validation[name] = report
                continue
            registry.admit(BUILTIN_TOOLS[name], vdom, cases)
    except Exception:
        _ROUTERS.pop(key, None)
        raise
    return router


def build_context(traj: Trajectory, task: TaskPackage, domain: Any,
                  expected: dict[str, Any] | None = None) -> Context:
    """Replay the trajectory's successful calls in the task's sandbox and collect what the reward
    tools read (see :class:`Context`)."""
    calls = paths.executed_calls(traj.tool_calls, traj.messages)
    sb = Sandbox(domain, task.hidden.initial_state)
    for c in calls:
        if c.error is None:
            sb.call(c.name, c.arguments)
    msg_i, last_text = paths.last_assistant_text(traj.messages)
    transferred = any(c.error is None and c.name in domain.terminate_tools for c in calls)
    ctx = Context(traj=traj, task=task, domain=domain, calls=calls, final_state=sb.state,
                  state_ok=traj.final_state_hash == task.hidden.expected_state_hash, transferred=transferred,
                  last_text=last_text, last_index=msg_i,
                  schemas={t["function"]["name"]: t for t in task.visible.tools}, expected=expected)
    ctx.replay_hash = sb.state_hash()  # type: ignore[attr-defined]
    return ctx


def run_chain(ctx: Context, tools: list[RewardTool]) -> tuple[dict[str, ToolResult], list[str]]:
    """Run ``tools`` in order on ``ctx``: gates first set ``ctx.outcome`` (every gate passed), then
    the other tools see it. Returns (results by tool name, reason codes in chain order)."""
    results: dict[str, ToolResult] = {}
    codes: list[str] = []
    ctx.outcome = True
    for t in [t for t in tools if t.role == "gate"] + [t for t in tools if t.role != "gate"]:
        r = t.run(ctx)
        results[t.name] = r
        if t.role == "gate" and not r.passed:
            ctx.outcome = False
        codes += [c for c in r.codes if c not in codes]
    return results, codes
