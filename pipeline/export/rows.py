"""Record -> Parquet row converters (plain dicts matching :mod:`pipeline.export.schemas`)."""
from __future__ import annotations

import json
from typing import Any, Callable

from ..records import (
    Blueprint,
    QuarantineRecord,
    TaskPackage,
    TaskVerdict,
    Trajectory,
    canonical_json,
)
from .splits import assign_split


def _json(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, default=str)


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return canonical_json(value)


def tool_call_row(call: dict[str, Any]) -> dict[str, Any]:
    """One OpenAI tool call as a ``TOOL_CALL`` struct; dict arguments become a JSON string."""
    fn = call.get("function") or {}
    args = fn.get("arguments")
    if args is not None and not isinstance(args, str):
        args = json.dumps(args, ensure_ascii=False)
    return {
        "id": call.get("id"),
        "type": call.get("type") or "function",
        "function": {"name": fn.get("name"), "arguments": args},
    }


def message_row(message: dict[str, Any]) -> dict[str, Any]:
    """One OpenAI chat message as a ``MESSAGE`` struct.

    Keys other than role, content, reasoning_content, tool_calls, tool_call_id and name are
    dropped (the full message survives in ``rejects.parquet`` only for rejected trajectories);
    non-string content (e.g. a list of parts) is stored as canonical JSON.
    """
    calls = message.get("tool_calls")
    return {
        "role": message.get("role"),
        "content": _text(message.get("content")),
        "reasoning_content": _text(message.get("reasoning_content")),
        "tool_calls": [tool_call_row(c) for c in calls] if calls else None,
        "tool_call_id": message.get("tool_call_id"),
        "name": message.get("name"),
    }


def loss_mask(messages: list[dict[str, Any]]) -> list[bool]:
    """``True`` for assistant messages (what the model is trained to produce), else ``False``."""
    return [m.get("role") == "assistant" for m in messages]


def sft_row(t: Trajectory, split: str, reward: float | None) -> dict[str, Any]:
    """A ``sft.parquet`` row for a kept trajectory."""
    return {
        "trajectory_id": t.trajectory_id,
        "task_id": t.task_id,
        "blueprint_id": t.blueprint_id,
        "split": split,
        "messages": [message_row(m) for m in t.messages],
        "tools": _json(t.tools),
        "loss_mask": loss_mask(t.messages),
        "model": t.model,
        "backend": t.backend,
        "sample_index": t.sample_index,
        "finish_reason": t.finish_reason,
        "n_turns": t.n_turns,
        "reward": reward,
    }


def default_system_prompt(task: TaskPackage) -> str:
    """The RL prompt's system content when the caller gives none: the domain policy."""
    return task.visible.policy


def rl_row(
    task: TaskPackage, split: str, system_prompt: Callable[[TaskPackage], str]
) -> dict[str, Any]:
    """A ``rl.parquet`` row: visible prompt + reward-only ``ground_truth`` + hidden ``env_state``."""
    return {
        "task_id": task.task_id,
        "blueprint_id": task.blueprint_id,
        "data_source": f"trajpipe/{task.domain}",
        "split": split,
        "prompt": [
            {"role": "system", "content": system_prompt(task)},
            {"role": "user", "content": task.visible.instruction},
        ],
        "tools": _json(task.visible.tools),
        "user_messages": list(task.visible.user_messages),
        "ground_truth": _json(
            {"expected_state_hash": task.hidden.expected_state_hash, "verifier": task.hidden.verifier}
        ),
        "env_state": _json(task.hidden.initial_state),
    }


def stage_of(reason_code: str) -> str:
    """The stage a trajectory reject came from, by reason-code prefix (``SELECT_``/``DEDUPE_``);
    anything else is a trajectory-verifier code (``verify_trajectory``)."""
    if reason_code.startswith("SELECT_"):
        return "select"
    if reason_code.startswith("DEDUPE_"):
        return "dedupe"
    return "verify_trajectory"


def trajectory_reject_row(reject: tuple) -> dict[str, Any]:
    """A ``rejects.parquet`` row from ``(trajectory, reason_code, detail[, stage])``."""
    if len(reject) == 4:
        t, code, detail, stage = reject
    elif len(reject) == 3:
        t, code, detail = reject
        stage = stage_of(code)
    else:
        raise ValueError(f"a reject is (trajectory, reason_code, detail[, stage]), got {len(reject)} items")
    if isinstance(t, dict):
        t = Trajectory.model_validate(t)
    return {
        "kind": "trajectory",
        "id": t.trajectory_id,
        "task_id": t.task_id,
        "blueprint_id": t.blueprint_id,
        "stage": stage,
        "reason_code": code,
        "detail": detail,
        "messages": _json(t.messages),
    }


def task_reject_row(v: TaskVerdict, task: TaskPackage | None) -> dict[str, Any]:
    """A ``rejects.parquet`` row for a task package that failed task verification."""
    codes = list(v.reason_codes)
    return {
        "kind": "task",
        "id": v.task_id,
        "task_id": v.task_id,
        "blueprint_id": task.blueprint_id if task else None,
        "stage": "verify_task",
        "reason_code": codes[0] if codes else "VERIFY_FAILED_UNSPECIFIED",
        "detail": _json({"other_reason_codes": codes[1:], "details": v.details}),
        "messages": None,
    }


def task_row(task: TaskPackage, verdict: TaskVerdict | None) -> dict[str, Any]:
    """A ``tasks.parquet`` row (includes the hidden part as JSON: not a training file)."""
    return {
        "task_id": task.task_id,
        "blueprint_id": task.blueprint_id,
        "domain": task.domain,
        "seed": task.seed,
        "instruction": task.visible.instruction,
        "policy": task.visible.policy,
        "user_messages": list(task.visible.user_messages),
        "tools": _json(task.visible.tools),
        "hidden": _json(task.hidden.model_dump(mode="json")),
        "task_verified": verdict.passed if verdict else None,
        "task_reason_codes": list(verdict.reason_codes) if verdict else [],
    }


def blueprint_row(bp: Blueprint) -> dict[str, Any]:
    """A ``blueprints.parquet`` row."""
    return {
        "blueprint_id": bp.blueprint_id,
        "domain": bp.domain,
        "intent": bp.intent,
        "action_signature": list(bp.action_signature),
        "required_tools": list(bp.required_tools),
        "read_tools": list(bp.read_tools),
        "initial_state_requirements": _json(bp.initial_state_requirements),
        "business_constraints": [r.model_dump() for r in bp.business_constraints],
        "success_condition": bp.success_condition,
        "failure_modes": _json(bp.failure_modes),
        "source_log_ids": list(bp.source_log_ids),
        "n_logs": bp.n_logs,
        "n_success": bp.n_success,
        "example_intents": list(bp.example_intents),
        "task_kind": bp.task_kind,
    }


def group_row(g: dict[str, Any], exported: int, seed: int, fractions) -> dict[str, Any]:
    """A ``groups.parquet`` row from one :func:`pipeline.select.select` group dict."""
    bp = g.get("blueprint_id")
    return {
        "task_id": g["task_id"],
        "blueprint_id": bp,
        "split": assign_split(bp, seed, fractions) if bp is not None else None,
        "k": g.get("k"),
        "passes": g.get("passes"),
        "pass_rate": g.get("pass_rate"),
        "kept": g.get("kept"),
        "exported": exported,
    }


def quarantine_row(q: QuarantineRecord) -> dict[str, Any]:
    """A ``quarantine.parquet`` row."""
    return q.model_dump()
