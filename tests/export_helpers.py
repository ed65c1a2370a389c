"""Test helpers for the export tests: real synthesized airline tasks and constructed trajectories.

Passing trajectories replay the task's reference solution in a real sandbox (read calls first,
an explicit confirmation turn before the first write, a closing answer); failing ones are
mutations (the write calls dropped). Both are checked by the real verifier, not assumed.
"""
from __future__ import annotations

import json
from typing import Any

from pipeline.domains import get_domain
from pipeline.records import Blueprint, PolicyRule, TaskPackage, TaskVerdict, Trajectory
from pipeline.rollout.prompting import system_prompt
from pipeline.sandbox import Sandbox
from pipeline.synthesize import build_package
from pipeline.verify import verify_task, verify_trajectory

DOMAIN = get_domain("airline")


def blueprint(bp_id: str, kind: str, source_logs: list[str] | None = None) -> Blueprint:
    return Blueprint(blueprint_id=bp_id, domain="airline", intent=kind, action_signature=[f"{kind}(...)"],
                     required_tools=[kind], read_tools=["get_user_details", "get_reservation_details"],
                     initial_state_requirements={}, business_constraints=[PolicyRule(rule_id="R1", text="rule")],
                     success_condition="state matches", failure_modes=[], source_log_ids=source_logs or [f"log-{bp_id}"],
                     n_logs=1, n_success=1, task_kind=kind, skills=DOMAIN.skills_for_kind(kind))


def tasks_for(bp: Blueprint, n: int, seed: int = 0) -> list[TaskPackage]:
    return [build_package(bp, DOMAIN, i, seed) for i in range(n)]


def episode(task: TaskPackage, calls: list[dict[str, Any]], tag: str = "") -> tuple[list[dict], list[dict], str]:
    """Messages, tool-call log and final state hash of an agent that makes ``calls`` in order."""
    sb = Sandbox(DOMAIN, task.hidden.initial_state)
    msgs = [{"role": "system", "content": system_prompt(task.visible.policy, task.visible.tools)},
            {"role": "user", "content": task.visible.instruction}]
    log = []
    users = list(task.visible.user_messages)
    confirmed = False
    for i, c in enumerate(calls):
        if DOMAIN.tools[c["name"]].writes and not confirmed:
            msgs.append({"role": "assistant", "content": f"I can do that for you ({c['name']}). Shall I proceed?{tag}"})
            msgs.append({"role": "user", "content": users.pop(0) if users else "Yes, please proceed."})
            confirmed = True
        cid = f"call_{i}"
        res = sb.call(c["name"], c["arguments"])
        msgs.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": cid, "type": "function", "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}}]})
        msgs.append({"role": "tool", "tool_call_id": cid, "name": c["name"], "content": res.content})
        log.append({"step": i, "name": c["name"], "arguments": json.dumps(c["arguments"]), "valid_json": True,
                    "error": res.error_code})
    msgs.append({"role": "assistant", "content": "Thank you, is there anything else I can help with?" + tag})
    return msgs, log, sb.state_hash()


def trajectory(task: TaskPackage, idx: int, calls: list[dict[str, Any]], tag: str = "") -> Trajectory:
    msgs, log, h = episode(task, calls, tag)
    return Trajectory(trajectory_id=f"{task.task_id}-r{idx}", task_id=task.task_id, blueprint_id=task.blueprint_id,
                      sample_index=idx, model="constructed", backend="replay", messages=msgs, tools=task.visible.tools,
                      tool_calls=log, final_state_hash=h, finish_reason="agent_stop",
                      n_turns=sum(m["role"] == "assistant" for m in msgs), prompt_tokens=100,
                      completion_tokens=60 + idx, seed=idx)


def reference_calls(task: TaskPackage) -> list[dict[str, Any]]:
    return [c.model_dump() for c in task.hidden.reference_solution]


def mutated_calls(task: TaskPackage) -> list[dict[str, Any]]:
    """The reference without its write calls (reads only): the final state stays wrong."""
    return [c for c in reference_calls(task) if not DOMAIN.tools[c["name"]].writes]


def build_run(kinds=("cancel_reservation", "update_reservation_baggages", "send_certificate"),
              tasks_per_bp: int = 2, k: int = 3):
    """Tasks (real generator), task verdicts, and per task ``k`` rollouts: the first ``k - 1`` replay
    the reference (with a distinct closing tag each), the last is the read-only mutation."""
    bps, tasks, tverd, trajs, verdicts = [], [], [], [], []
    for j, kind in enumerate(kinds):
        bp = blueprint(f"bp-{kind}", kind)
        bps.append(bp)
        for t in tasks_for(bp, tasks_per_bp, seed=j):
            tasks.append(t)
            tverd.append(verify_task(t, DOMAIN))
            for i in range(k):
                calls = reference_calls(t) if i < k - 1 else mutated_calls(t)
                tr = trajectory(t, i, calls, tag=" " + "ok " * i)
                trajs.append(tr)
                verdicts.append(verify_trajectory(tr, t, DOMAIN))
    return {"blueprints": bps, "tasks": tasks, "task_verdicts": tverd, "trajectories": trajs, "verdicts": verdicts}


def export_run(out_dir: str, run: dict, cap: int = 2, **kw) -> dict[str, str]:
    from pipeline.export import export_all
    from pipeline.select import select

    sel = select(run["trajectories"], run["verdicts"], cap=cap)
    return export_all(out_dir, kept=sel.kept, rejects=sel.rejected, tasks=run["tasks"],
                      task_verdicts=run["task_verdicts"], blueprints=run["blueprints"], groups=sel.groups,
                      quarantine=[], manifest={"config": {"seed": 0}, "model": "constructed", "seed": 0},
                      verdicts=run["verdicts"],
                      system_prompt=lambda t: system_prompt(t.visible.policy, t.visible.tools), **kw)
