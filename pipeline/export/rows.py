"""Record -> Parquet row converters (plain dicts matching :mod:`pipeline.export.schemas`)."""
from __future__ import annotations

import json
from typing import Any, Callable

from ..records import (
    Verdict,
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
    """One OpenAI tool call as a ``TOOL_CALL`` struct.

    ``arguments`` is stored as JSON text in a JSON-typed column (:data:`schemas.ARGUMENTS_TYPE`):
    dict arguments are serialized, a string is kept when it is valid JSON (the OpenAI form the
    harness records), and a string that is not JSON is stored as a JSON string literal of the same
    text (so the column always holds valid JSON and ``datasets`` can decode every row; such a call
    decodes to the raw text, not an object).
    """
    fn = call.get("function") or {}
    args = fn.get("arguments")
    if args is not None and not isinstance(args, str):
        args = json.dumps(args, ensure_ascii=False)
    elif isinstance(args, str):
        try:
            json.loads(args)
        except ValueError:
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


def reward_components_row(components: dict[str, float] | None) -> dict[str, float | None] | None:
    """``Verdict.reward_components`` as a ``REWARD_COMPONENTS`` struct (unknown keys dropped,
    missing ones null); None when no components were given."""
    from .schemas import REWARD_COMPONENT_NAMES

    if not components:
        return None
    return {n: (float(components[n]) if components.get(n) is not None else None) for n in REWARD_COMPONENT_NAMES}


def _trajectory_columns(t: Trajectory, split: str) -> dict[str, Any]:
    """The columns sft and trajectories_failed rows share: ids, split, ``messages`` (nested
    OpenAI format) and ``tools`` (JSON)."""
    return {
        "trajectory_id": t.trajectory_id,
        "task_id": t.task_id,
        "blueprint_id": t.blueprint_id,
        "split": split,
        "messages": [message_row(m) for m in t.messages],
        "tools": _json(t.tools),
    }


def sft_row(t: Trajectory, split: str, reward: float | None, verdict: Verdict | None = None,
            task: TaskPackage | None = None) -> dict[str, Any]:
    """A ``sft.parquet`` row for a kept trajectory; ``verdict`` / ``task`` add reward components,
    skills, task kind and variant (null when not given)."""
    return {
        **_trajectory_columns(t, split),
        "loss_mask": loss_mask(t.messages),
        "model": t.model,
        "backend": t.backend,
        "sample_index": t.sample_index,
        "finish_reason": t.finish_reason,
        "n_turns": t.n_turns,
        "reward": reward,
        "reward_components": reward_components_row(verdict.reward_components if verdict else None),
        "recovery": t.recovery,
        "skills": list(task.skills) if task else [],
        "task_kind": task.task_kind if task else None,
        "variant": task.variant if task else None,
        "hint_mode": t.hint_mode,
    }


def default_system_prompt(task: TaskPackage) -> str:
    """The RL prompt's system content when the caller gives none: the domain policy."""
    return task.visible.policy


def ground_truth(task: TaskPackage) -> dict[str, Any]:
    """What the reward function needs to replay and verify a response: task id, domain, the
    sandbox's initial state, the expected final-state hash, the verifier spec, task kind, variant,
    expected outcome, the names of the task's tools, the (agent-visible) instruction and scripted
    customer turns, and the *length* of the reference solution (the verifier normalizes tool-call
    counts and token budgets by it).

    Deliberately *not* included: the reference solution itself and the generation notes (not
    needed to score, and a reward log that printed them would show the answer). Never
    model-visible: veRL passes ``reward_model.ground_truth`` only to the reward function.
    """
    return {
        "task_id": task.task_id,
        "blueprint_id": task.blueprint_id,
        "domain": task.domain,
        "initial_state": task.hidden.initial_state,
        "expected_state_hash": task.hidden.expected_state_hash,
        "verifier": task.hidden.verifier,
        "task_kind": task.task_kind,
        "variant": task.variant,
        "expected_outcome": task.expected_outcome,
        "tool_names": [tl.get("function", tl).get("name") for tl in task.visible.tools],
        "instruction": task.visible.instruction,
        "user_messages": list(task.visible.user_messages),
        "reference_calls": len(task.hidden.reference_solution),
    }


def rl_row(
    task: TaskPackage, split: str, system_prompt: Callable[[TaskPackage], str], index: int = 0,
    tool_names: list[str] | None = None,
) -> dict[str, Any]:
    """A ``rl.parquet`` row in veRL's layout (see :func:`pipeline.export.schemas.rl_schema`).

    ``prompt`` = system (``system_prompt(task)``) + the customer's first message; the scripted
    later customer turns go to ``extra_info.interaction_kwargs.user_messages``;
    ``reward_model.ground_truth`` is the JSON of :func:`ground_truth`; ``tool_names`` (default:
    the task's tools) are the keys of ``extra_info.tools_kwargs``.
    """
    names = tool_names if tool_names is not None else [tl.get("function", tl).get("name") for tl in task.visible.tools]
    return {
        "data_source": f"trajpipe/{task.domain}",
        "prompt": [
            {"role": "system", "content": system_prompt(task)},
            {"role": "user", "content": task.visible.instruction},
        ],
        "ability": f"tool_use/{task.domain}",
        "reward_model": {"style": "rule", "ground_truth": _json(ground_truth(task))},
        "extra_info": {
            "split": split,
            "index": index,
            "task_id": task.task_id,
            "blueprint_id": task.blueprint_id,
            "need_tools_kwargs": True,
            "tools_kwargs": {n: {"create_kwargs": {"task_id": task.task_id}} for n in sorted(set(names))}
            if names else {"_none": None},
            "interaction_kwargs": {"name": "trajpipe_customer", "task_id": task.task_id,
                                   "user_messages": list(task.visible.user_messages)},
        },
        "agent_name": "tool_agent",
        "task_id": task.task_id,
        "blueprint_id": task.blueprint_id,
        "split": split,
        "tools": _json(task.visible.tools),
        "skills": list(task.skills),
        "expected_outcome": task.expected_outcome,
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


def task_row(task: TaskPackage, verdict: TaskVerdict | None, split: str | None = None) -> dict[str, Any]:
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
        "split": split,
        "task_kind": task.task_kind,
        "variant": task.variant,
        "expected_outcome": task.expected_outcome,
        "skills": list(task.skills),
    }


def blueprint_row(bp: Blueprint, split: str | None = None) -> dict[str, Any]:
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
        "skills": list(bp.skills),
        "rule_variants": list(bp.rule_variants),
        "cluster": _json(bp.cluster),
        "split": split,
    }


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k estimate from ``n`` samples with ``c`` passes (Chen et al. 2021,
    "Evaluating Large Language Models Trained on Code", arXiv:2107.03374, eq. 1 and its
    numerically stable product form): ``1 - C(n-c, k) / C(n, k)``.

    Raises:
        ValueError: ``n < 1``, ``c`` not in ``[0, n]`` or ``k`` not in ``[1, n]``.
    """
    if n < 1 or not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs n >= 1, 0 <= c <= n, 1 <= k <= n; got n={n}, c={c}, k={k}")
    if n - c < k:
        return 1.0
    prod = 1.0
    for i in range(n - c + 1, n + 1):
        prod *= 1.0 - k / i
    return 1.0 - prod


def group_row(g: dict[str, Any], exported: int, split: str | None,
              verdicts: list[Verdict] | None = None, skills: list[str] | None = None,
              helped: dict[str, Any] | None = None) -> dict[str, Any]:
    """A ``groups.parquet`` row from one :func:`pipeline.select.select` group dict plus the
    group's verdicts (reward mean / population std, mean reward components); pass@1 and pass@k
    (k = rollouts) by :func:`pass_at_k`; ``zero_variance`` when all rollouts pass or all fail.

    Helped rollouts (``Trajectory.hint_mode`` other than ``none``) never mix into these numbers:
    ``helped`` = ``{"mode", "k", "passes", "kept", "exported"}`` of the task's helped rollouts,
    which are subtracted from the select group's ``k`` / ``passes`` / ``kept`` (select counts every
    rollout of the task), so ``k`` .. ``zero_variance`` and ``kept`` describe the unhelped rollouts
    only (what the policy does with the ordinary prompt: the RL-relevant numbers) and the
    ``*_helped`` columns the helped ones. ``verdicts`` and ``exported`` must then be the unhelped
    ones. Without helped rollouts the row is what it always was (``hint_mode`` ``none``).

    Raises:
        ValueError: ``helped`` counts more rollouts, passes or kept trajectories than the group.
    """
    import statistics

    from .schemas import REWARD_COMPONENT_NAMES

    h = helped or {}
    hk, hp, hkept = int(h.get("k") or 0), int(h.get("passes") or 0), int(h.get("kept") or 0)
    n, c = int(g.get("k") or 0) - hk, int(g.get("passes") or 0) - hp
    kept = g.get("kept") if not hkept else int(g.get("kept") or 0) - hkept
    if n < 0 or c < 0 or c > n or (kept is not None and kept < 0):
        raise ValueError(f"group {g.get('task_id')}: {hk} helped rollouts ({hp} passes, {hkept} kept) do not fit "
                         f"the group's k={g.get('k')}, passes={g.get('passes')}, kept={g.get('kept')}")
    rewards = [float(v.reward) for v in verdicts or []]
    comps = None
    if verdicts and any(v.reward_components for v in verdicts):
        comps = {}
        for name in REWARD_COMPONENT_NAMES:
            vals = [float(v.reward_components[name]) for v in verdicts if v.reward_components.get(name) is not None]
            comps[name] = sum(vals) / len(vals) if vals else None
    return {
        "task_id": g["task_id"],
        "blueprint_id": g.get("blueprint_id"),
        "split": split,
        "k": g.get("k") if not hk else n,
        "passes": g.get("passes") if not hk else c,
        "pass_rate": g.get("pass_rate") if not hk else (c / n if n else None),
        "kept": kept,
        "exported": exported,
        "pass_at_1": pass_at_k(n, c, 1) if n else None,
        "pass_at_k": pass_at_k(n, c, n) if n else None,
        "reward_mean": statistics.fmean(rewards) if rewards else None,
        "reward_std": statistics.pstdev(rewards) if rewards else None,
        "zero_variance": (c == 0 or c == n) if n else None,
        "reward_components_mean": comps,
        "skills": list(skills or []),
        "hint_mode": (h.get("mode") or "none") if hk else "none",
        "k_helped": hk,
        "passes_helped": hp,
        "pass_rate_helped": hp / hk if hk else None,
        "kept_helped": hkept,
        "exported_helped": int(h.get("exported") or 0),
    }


def failed_row(t: Trajectory, v: Verdict | None, split: str) -> dict[str, Any]:
    """A ``trajectories_failed.parquet`` row: a trajectory whose verdict failed (kept for
    analysis; never in sft)."""
    return {
        **_trajectory_columns(t, split),
        "reason_codes": list(v.reason_codes) if v else [],
        "violations": _json(v.violations if v else []),
        "reward": v.reward if v else None,
        "reward_components": reward_components_row(v.reward_components if v else None),
        "finish_reason": t.finish_reason,
        "recovery": t.recovery,
        "faults": _json(t.faults),
        "model": t.model,
        "sample_index": t.sample_index,
        "hint_mode": t.hint_mode,
    }


def quarantine_row(q: QuarantineRecord) -> dict[str, Any]:
    """A ``quarantine.parquet`` row."""
    return q.model_dump()
