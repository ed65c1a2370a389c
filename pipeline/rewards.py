"""Rule-based reward for RLVR: replay a response's tool calls in the task's sandbox and verify.

``compute_score`` has the signature veRL expects of a custom reward function
(``custom_reward_function.path=pipeline/rewards.py``, ``name=compute_score``; veRL calls
``compute_score(data_source, solution_str, ground_truth, extra_info)`` and accepts a float or a
dict with a ``"score"`` key plus extra numeric entries). The same scorer backs the TRL GRPO reward
function and environment in :mod:`pipeline.trl_env`: the same tasks and verifiers serve SFT and RLVR.
"""
from __future__ import annotations

import json
import re
from typing import Any

from pipeline.records import TaskHidden, TaskPackage, TaskVisible, ToolCall, Trajectory
from pipeline.rollout.prompting import parse_tool_calls
from pipeline.sandbox import Sandbox

#: Hermes blocks in a response: tool calls (actions) and tool responses (observations, ignored:
#: the sandbox recomputes them).
_BLOCK_RE = re.compile(r"(<tool_call>.*?(?:</tool_call>|$))|(<tool_response>.*?(?:</tool_response>|$))", re.S)
_HIDDEN_REF = "_hidden_reference_step"


def load_ground_truth(ground_truth: str | dict[str, Any]) -> dict[str, Any]:
    """``reward_model.ground_truth`` of an rl row (JSON text or dict) as a dict.

    Raises:
        ValueError: not JSON, or missing ``domain`` / ``initial_state`` / ``expected_state_hash``.
    """
    gt = json.loads(ground_truth) if isinstance(ground_truth, str) else dict(ground_truth)
    missing = [k for k in ("domain", "initial_state", "expected_state_hash") if k not in gt]
    if missing:
        raise ValueError(f"ground_truth lacks {missing}: is it a trajpipe rl row's reward_model.ground_truth?")
    return gt


def task_from_ground_truth(gt: dict[str, Any], domain: Any) -> TaskPackage:
    """A task package with what the verifier needs, rebuilt from a ground-truth dict.

    The reference solution is not in the ground truth (only its length, for the length and
    tool-call normalization of :mod:`pipeline.verify.rewards`): placeholder steps stand in."""
    names = gt.get("tool_names") or list(domain.tools)
    tools = [domain.tools[n].schema for n in names if n in domain.tools]
    n_ref = int(gt.get("reference_calls") or 0)
    return TaskPackage(
        task_id=gt.get("task_id") or "task", blueprint_id=gt.get("blueprint_id") or "blueprint",
        domain=gt["domain"], seed=0,
        visible=TaskVisible(instruction=gt.get("instruction") or "", policy=domain.policy, tools=tools,
                            user_messages=list(gt.get("user_messages") or [])),
        hidden=TaskHidden(initial_state=gt["initial_state"],
                          reference_solution=[ToolCall(name=_HIDDEN_REF, arguments={})] * n_ref,
                          expected_state_hash=gt["expected_state_hash"], verifier=gt.get("verifier") or {}),
        task_kind=gt.get("task_kind"), variant=gt.get("variant"),
        expected_outcome=gt.get("expected_outcome") or "action",
    )


def segments(solution_str: str) -> list[tuple[str, Any]]:
    """Split a response into ``("text", str)`` and ``("call", block)`` segments in order;
    ``<tool_response>`` blocks are dropped."""
    out: list[tuple[str, Any]] = []
    pos = 0
    for m in _BLOCK_RE.finditer(solution_str):
        text = solution_str[pos:m.start()].strip()
        if text:
            out.append(("text", text))
        if m.group(1):
            out.append(("call", m.group(1)))
        pos = m.end()
    tail = solution_str[pos:].strip()
    if tail:
        out.append(("text", tail))
    return out


def replay(gt: dict[str, Any], domain: Any, segs: list[tuple[str, Any]], completion_tokens: int = 0,
           trajectory_id: str = "replay") -> Trajectory:
    """Run the segments' tool calls in a fresh sandbox and build the :class:`Trajectory` the
    verifier checks. Like the rollout harness, after each agent text turn but the last the next
    scripted customer message (``gt["user_messages"]``) is appended; a segment may also be a
    ``("call_parsed", (name, arguments))`` pair (structured tool calls)."""
    sb = Sandbox(domain, gt["initial_state"])
    users = list(gt.get("user_messages") or [])
    messages: list[dict[str, Any]] = [{"role": "user", "content": gt.get("instruction") or ""}]
    tool_calls: list[dict[str, Any]] = []
    n = 0
    last_text_idx = max([i for i, (k, _) in enumerate(segs) if k == "text"], default=-1)
    for i, (kind, val) in enumerate(segs):
        if kind == "text":
            messages.append({"role": "assistant", "content": val})
            if i != last_text_idx and users:
                messages.append({"role": "user", "content": users.pop(0)})
            continue
        if kind == "call":
            parsed = parse_tool_calls(val)
            calls = list(parsed.calls)
            for err in parsed.errors:
                tool_calls.append({"step": n, "name": None, "arguments": None, "valid_json": False, "error": err})
        else:
            calls = [val]
        for name, args in calls:
            cid = f"call_{n}"
            res = sb.call(name, args)
            messages.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]})
            messages.append({"role": "tool", "tool_call_id": cid, "name": name, "content": res.content})
            tool_calls.append({"step": n, "name": name, "arguments": json.dumps(args), "valid_json": True,
                               "error": res.error_code})
            n += 1
    return Trajectory(trajectory_id=trajectory_id, task_id=gt.get("task_id") or "task",
                      blueprint_id=gt.get("blueprint_id") or "blueprint", sample_index=0, model="", backend="replay",
                      messages=messages, tools=[], tool_calls=tool_calls, final_state_hash=sb.state_hash(),
                      finish_reason="agent_stop", n_turns=sum(1 for m in messages if m["role"] == "assistant"),
                      prompt_tokens=0, completion_tokens=int(completion_tokens), seed=0)


def score_trajectory(traj: Trajectory, gt: dict[str, Any], domain: Any) -> dict[str, float]:
    """The verifier's verdict on ``traj`` as a score dict: ``score`` (``Verdict.reward``, in
    [0, 1]), ``passed`` (0/1), every ``Verdict.reward_components`` entry, ``n_reason_codes``."""
    from pipeline.verify import verify_trajectory

    task = task_from_ground_truth(gt, domain)
    try:
        v = verify_trajectory(traj, task, domain, expected=gt["initial_state"])
    except TypeError:  # a verifier without the ``expected`` argument
        v = verify_trajectory(traj, task, domain)
    out = {"score": float(v.reward), "passed": float(v.passed), "n_reason_codes": float(len(v.reason_codes))}
    out.update({k: float(x) for k, x in v.reward_components.items()})
    return out


def compute_score(data_source: str, solution_str: str, ground_truth: str | dict[str, Any],
                  extra_info: dict[str, Any] | None = None) -> dict[str, float]:
    """veRL custom reward: replay the Hermes ``<tool_call>`` blocks of ``solution_str`` in the
    task's sandbox (:func:`replay`) and verify (:func:`pipeline.verify.verify_trajectory`).

    ``data_source`` is ``"trajpipe/<domain>"`` (checked against the ground truth's domain);
    ``ground_truth`` is ``reward_model.ground_truth`` of the rl row; ``extra_info`` may carry
    ``completion_tokens`` (the response length in tokens; without it ``len(solution_str) // 4``
    approximates it for the length component).

    Returns ``{"score", "passed", "outcome", "format_valid", "violations", "tool_calls",
    "length", "n_reason_codes"}`` (floats; component names from ``Verdict.reward_components``).
    A correct replay scores 1.0; a wrong final state scores 0.0.

    Raises:
        ValueError: bad ground truth, or ``data_source`` names another domain.
    """
    from pipeline.domains import get_domain

    gt = load_ground_truth(ground_truth)
    if data_source and data_source.startswith("trajpipe/") and data_source.split("/", 1)[1] != gt["domain"]:
        raise ValueError(f"data_source {data_source!r} does not match the ground truth's domain {gt['domain']!r}")
    domain = get_domain(gt["domain"])
    tokens = (extra_info or {}).get("completion_tokens")
    tokens = int(tokens) if tokens is not None else len(solution_str or "") // 4
    traj = replay(gt, domain, segments(solution_str or ""), tokens)
    return score_trajectory(traj, gt, domain)
