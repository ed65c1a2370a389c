"""Typed records that cross stage boundaries.

Every record here has a JSON Schema twin in ``schemas/`` (generated from these models by
``python -m pipeline.records`` and checked by a test), so a stage runs the same in a test,
in a Prefect task and in any other worker: a stage is a plain function over iterables of
these records.

Vocabulary follows ``DESIGN.md``: a *task blueprint* (task type) is extracted from logs, a
*task package* (task instance) is synthesized from a blueprint, a *trajectory* is one
*rollout* of a *teacher* on a task package, a *verdict* is what the verifiers say about it.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import BaseModel, Field


def canonical_json(obj: Any) -> str:
    """Deterministic JSON text (sorted keys, no whitespace) used for hashing and dedupe."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def stable_hash(obj: Any, n: int = 16) -> str:
    """First ``n`` hex digits of the SHA-256 of :func:`canonical_json` of ``obj``."""
    return hashlib.sha256(canonical_json(obj).encode("utf-8")).hexdigest()[:n]


class LogRecord(BaseModel):
    """One business conversation in the canonical format (schemas/log_record.schema.json).

    ``messages`` are OpenAI chat messages (``system``/``user``/``assistant``/``tool``); assistant
    messages may carry ``tool_calls`` whose ``function.arguments`` is a JSON *string*; tool
    messages carry ``tool_call_id`` and ``content``. ``metadata`` holds source facts such as
    ``reward`` (1.0 success / 0.0 failure), ``task_id``, ``trial``, ``source_format``.
    """

    id: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class QuarantineRecord(BaseModel):
    """A record that could not enter a stage. Nothing is lost: ``raw`` keeps the input text.

    ``reason_code`` is one of the codes in ``pipeline.verify.reasons`` (e.g. ``INGEST_SCHEMA``).
    """

    stage: str
    source: str
    position: int
    record_id: str | None = None
    reason_code: str
    error: str
    raw: str
    raw_sha256: str | None = None  # of the original raw text, when ``raw`` was pseudonymized


class PolicyRule(BaseModel):
    """One business rule of a domain policy: ``rule_id`` (stable) and the policy ``text`` it quotes."""

    rule_id: str
    text: str


class Blueprint(BaseModel):
    """A task type extracted from logs (schemas/blueprint.schema.json).

    ``action_signature`` is the ordered list of state-changing tool calls with the shape of
    their arguments, e.g. ``["cancel_reservation(reservation_id:str)"]``; logs with the same
    signature and intent family are merged into one blueprint.
    """

    blueprint_id: str
    domain: str
    intent: str
    action_signature: list[str]
    required_tools: list[str]
    read_tools: list[str]
    initial_state_requirements: dict[str, Any]
    business_constraints: list[PolicyRule]
    success_condition: str
    failure_modes: list[dict[str, Any]]
    source_log_ids: list[str]
    n_logs: int
    n_success: int
    example_intents: list[str] = Field(default_factory=list)
    task_kind: str | None = None  # the domain's task generator this blueprint maps to
    skills: list[str] = Field(default_factory=list)  # ids from pipeline.skills.SKILLS
    cluster: dict[str, Any] = Field(default_factory=dict)  # merged intents / signatures, sizes
    rule_variants: list[str] = Field(default_factory=list)  # rule ids agents often broke -> variants


class ToolCall(BaseModel):
    """A tool call: ``name`` and parsed ``arguments`` (a JSON object)."""

    name: str
    arguments: dict[str, Any]


class TaskVisible(BaseModel):
    """The agent-visible part of a task package: what a real agent would see."""

    instruction: str  # what the customer says / wants, in the customer's words
    policy: str
    tools: list[dict[str, Any]]  # OpenAI function-tool JSON schemas
    user_messages: list[str] = Field(default_factory=list)  # scripted customer turns after the first


class TaskHidden(BaseModel):
    """The hidden part of a task package. Never reaches a prompt or a model-visible column."""

    initial_state: dict[str, Any]
    reference_solution: list[ToolCall]
    expected_state_hash: str
    verifier: dict[str, Any]  # {"type": "state_hash", "assertions": [...]} etc.
    generation_notes: dict[str, Any] = Field(default_factory=dict)


class TaskPackage(BaseModel):
    """A task instance synthesized from a blueprint (schemas/task_package.schema.json).

    ``task_kind`` is the domain generator used; ``variant`` names what was varied on purpose
    (e.g. ``"rule:airline.cancel.eligibility"`` for a task whose outcome that rule decides, or
    ``None``); ``expected_outcome`` is ``"action"`` (state must change), ``"refusal"`` (policy
    forbids the request: state must not change), ``"transfer"`` (hand over to a human) or
    ``"answer"`` (an information request: state must not change and the agent must state the
    facts in ``hidden.verifier["answer"]["facts"]``, see :mod:`pipeline.verify.answers`);
    ``skills`` are ids from :data:`pipeline.skills.SKILLS`.
    """

    task_id: str
    blueprint_id: str
    domain: str
    seed: int
    visible: TaskVisible
    hidden: TaskHidden
    task_kind: str | None = None
    variant: str | None = None
    expected_outcome: Literal["action", "refusal", "transfer", "answer"] = "action"
    skills: list[str] = Field(default_factory=list)


class Trajectory(BaseModel):
    """One rollout of a teacher on a task package (schemas/trajectory.schema.json).

    ``messages`` is the full OpenAI-format episode including the system prompt; ``finish_reason``
    is ``"agent_stop"`` (agent answered in text and the customer ended), ``"user_stop"``,
    ``"transfer"``, ``"turn_limit"``, ``"context_full"`` (the prompt filled the model's context window) or ``"error"``. ``final_state_hash`` is the sandbox state
    hash after the episode. Token counts are totals over all turns.
    """

    trajectory_id: str
    task_id: str
    blueprint_id: str
    sample_index: int
    model: str
    backend: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    tool_calls: list[dict[str, Any]]  # [{"step", "name", "arguments", "valid_json", "error"}]
    final_state_hash: str
    finish_reason: str
    n_turns: int
    prompt_tokens: int
    completion_tokens: int
    seed: int
    sampling: dict[str, Any] = Field(default_factory=dict)
    # per agent turn: {"turn", "prompt_token_ids", "completion_token_ids", "logprobs", "finish"}
    turns: list[dict[str, Any]] = Field(default_factory=list)
    user_simulator: str = "scripted"  # "scripted" | "model"
    faults: list[dict[str, Any]] = Field(default_factory=list)  # injected: {"step", "tool", "kind"}
    recovery: bool = False  # met a fault, recovered, and (set by the verifier) passed
    # help the teacher had during generation only (pipeline.rollout.hints): none | plan | example | guided
    hint_mode: str = "none"


class Verdict(BaseModel):
    """The trajectory verifier's decision: ``passed`` and a reason code per failed check."""

    trajectory_id: str
    task_id: str
    passed: bool
    reason_codes: list[str]
    details: dict[str, Any] = Field(default_factory=dict)
    reward: float = 0.0  # the documented combined reward of reward_components, in [0, 1]
    # raw components: outcome (0/1), format_valid (0/1), violations (count), tool_calls (count),
    # length (completion tokens); see docs/rewards.md for the normalization and combination
    reward_components: dict[str, float] = Field(default_factory=dict)
    # path-check and rule violations: {"code": REASON, "step": int | None, "detail": str}
    violations: list[dict[str, Any]] = Field(default_factory=list)


class TaskVerdict(BaseModel):
    """The task verifier's decision on a task package (good exercise?)."""

    task_id: str
    passed: bool
    reason_codes: list[str]
    details: dict[str, Any] = Field(default_factory=dict)


RECORD_TYPES: dict[str, type[BaseModel]] = {
    "log_record": LogRecord,
    "quarantine_record": QuarantineRecord,
    "blueprint": Blueprint,
    "task_package": TaskPackage,
    "trajectory": Trajectory,
    "verdict": Verdict,
    "task_verdict": TaskVerdict,
}


def write_schemas(folder: str) -> list[str]:
    """Write one ``NAME.schema.json`` per record type into ``folder``; returns the paths."""
    import os

    os.makedirs(folder, exist_ok=True)
    paths = []
    for name, model in RECORD_TYPES.items():
        path = os.path.join(folder, f"{name}.schema.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(model.model_json_schema(), fh, indent=2, sort_keys=True)
            fh.write("\n")
        paths.append(path)
    return paths


if __name__ == "__main__":  # pragma: no cover
    import os

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for p in write_schemas(os.path.join(here, "schemas", "generated")):
        print(p)
