"""Two-stage verification: the task (a good exercise?) and the trajectory (a good demonstration?).

Task checks: the reference solution runs without errors in a clean sandbox and reaches the
expected final state; fail-to-pass (the verifier fails on the untouched initial state and passes
after the reference, SWE-bench's FAIL_TO_PASS idea); no answer leak of hidden computed values.
Trajectory checks: final state equals the expected final state (tau-bench's database-hash
reward); the episode ended normally; every tool call parsed, named a real tool and had
schema-valid arguments.
"""
from __future__ import annotations

import json
import re
from typing import Any, Callable, Iterable

from pipeline.records import TaskPackage, TaskVerdict, Trajectory, Verdict
from pipeline.sandbox import INVALID_ARGUMENTS, UNKNOWN_TOOL, Sandbox, state_diff


def _leaked_values(task: TaskPackage) -> list[str]:
    """Hidden values the agent must find through tools that appear in the instruction."""
    leaks = []
    notes = task.hidden.generation_notes or {}
    for v in notes.get("must_discover", []) or []:
        s = str(v)
        if s and re.search(rf"(?<![\w.]){re.escape(s)}(?![\w])", task.visible.instruction):
            leaks.append(s)
    return leaks


def verify_task(task: TaskPackage, domain: Any) -> TaskVerdict:
    """Check that a task package is a good exercise. Returns a TaskVerdict with reason codes.

    Checks: TASK_REFERENCE_FAILED, TASK_REFERENCE_MISMATCH, TASK_NOT_FAIL_TO_PASS,
    TASK_ANSWER_LEAK (values listed in ``generation_notes["must_discover"]``)."""
    codes: list[str] = []
    details: dict[str, Any] = {}
    sb = Sandbox(domain, task.hidden.initial_state)
    initial_hash = sb.state_hash()
    results = sb.run([c.model_dump() for c in task.hidden.reference_solution])
    errs = [f"{r.name}: {r.content[:200]}" for r in results if not r.ok]
    if errs:
        codes.append("TASK_REFERENCE_FAILED")
        details["reference_errors"] = errs
    if sb.state_hash() != task.hidden.expected_state_hash:
        codes.append("TASK_REFERENCE_MISMATCH")
    if initial_hash == task.hidden.expected_state_hash:
        codes.append("TASK_NOT_FAIL_TO_PASS")
    leaks = _leaked_values(task)
    if leaks:
        codes.append("TASK_ANSWER_LEAK")
        details["leaked_count"] = len(leaks)
    details["initial_state_hash"] = initial_hash
    return TaskVerdict(task_id=task.task_id, passed=not codes, reason_codes=codes, details=details)


def verify_trajectory(traj: Trajectory, task: TaskPackage, domain: Any) -> Verdict:
    """Check that a trajectory is a good demonstration of ``task``.

    Reason codes, in order of importance: TRAJ_ERROR, TRAJ_TURN_LIMIT, TRAJ_UNPARSEABLE_CALL,
    TRAJ_UNKNOWN_TOOL, TRAJ_INVALID_ARGS, TRAJ_NO_TOOL_CALL, TRAJ_WRONG_FINAL_STATE.
    ``reward`` is 1.0 when the final state matches (the outcome), whatever the other checks say;
    ``passed`` requires every check. Tool-call validity is re-checked against the task's schemas,
    not taken from the harness log.
    """
    codes: list[str] = []
    details: dict[str, Any] = {}
    if traj.finish_reason == "error":
        codes.append("TRAJ_ERROR")
    if traj.finish_reason == "turn_limit":
        codes.append("TRAJ_TURN_LIMIT")
    schemas = {t["function"]["name"]: t for t in task.visible.tools}
    from pipeline.sandbox import validate_arguments

    n_bad_json = n_unknown = n_invalid = 0
    for tc in traj.tool_calls:
        if not tc.get("valid_json"):
            n_bad_json += 1
            continue
        name = tc.get("name")
        if name not in schemas:
            n_unknown += 1
            continue
        try:
            args = json.loads(tc["arguments"]) if isinstance(tc["arguments"], str) else tc["arguments"]
        except json.JSONDecodeError:
            n_bad_json += 1
            continue
        if validate_arguments(schemas[name], args) is not None:
            n_invalid += 1
    if n_bad_json:
        codes.append("TRAJ_UNPARSEABLE_CALL")
    if n_unknown:
        codes.append("TRAJ_UNKNOWN_TOOL")
    if n_invalid:
        codes.append("TRAJ_INVALID_ARGS")
    n_valid_calls = sum(1 for tc in traj.tool_calls if tc.get("valid_json") and tc.get("name") in schemas)
    if n_valid_calls == 0:
        codes.append("TRAJ_NO_TOOL_CALL")
    outcome = traj.final_state_hash == task.hidden.expected_state_hash
    if not outcome:
        codes.append("TRAJ_WRONG_FINAL_STATE")
    details.update(outcome=outcome, n_tool_calls=len(traj.tool_calls), n_unparseable=n_bad_json,
                   n_unknown_tool=n_unknown, n_invalid_args=n_invalid, finish_reason=traj.finish_reason)
    return Verdict(trajectory_id=traj.trajectory_id, task_id=traj.task_id, passed=not codes,
                   reason_codes=codes, details=details, reward=1.0 if outcome else 0.0)


def explain_state(traj_calls: list[dict[str, Any]], task: TaskPackage, domain: Any) -> list[str]:
    """Replay ``traj_calls`` and list how the final state differs from the expected one (evidence)."""
    got = Sandbox(domain, task.hidden.initial_state)
    got.run(traj_calls)
    ref = Sandbox(domain, task.hidden.initial_state)
    ref.run([c.model_dump() for c in task.hidden.reference_solution])
    return state_diff(ref.state, got.state)


def verify_all(trajs: Iterable[Trajectory], tasks: dict[str, TaskPackage],
               domain_for: Callable[[str], Any]) -> list[Verdict]:
    """Verify every trajectory against its task (KeyError if a task is missing)."""
    return [verify_trajectory(t, tasks[t.task_id], domain_for(tasks[t.task_id].domain)) for t in trajs]
