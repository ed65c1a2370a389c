"""Trajectory verification: is this rollout a good demonstration of its task?

Deterministic code only. Checks, each a reason code on the :class:`~pipeline.records.Verdict`:

1. the episode ended normally (``TRAJ_ERROR``, ``TRAJ_TURN_LIMIT``, ``TRAJ_ABNORMAL_END``);
2. every tool call is valid: parsed (``TRAJ_UNPARSEABLE_CALL``), a known tool
   (``TRAJ_UNKNOWN_TOOL``), arguments valid against the tool's JSON schema
   (``TRAJ_INVALID_ARGS``), re-checked against the task's schemas rather than taken from the
   harness log; at least one call (``TRAJ_NO_TOOL_CALL``);
3. the outcome: the final state hash equals the expected one (tau-bench's database-hash reward;
   ``TRAJ_WRONG_FINAL_STATE`` with a state diff as evidence); a ``"refusal"`` task also needs a
   refusal in the last agent message (``TRAJ_NO_REFUSAL``), a ``"transfer"`` task a successful
   transfer call (``TRAJ_NO_TRANSFER``);
4. path checks, even when the final state is right (``pipeline.verify.paths``): write before
   identity, write without confirmation, a forbidden action (domain ``rule_violations``),
   repeated identical calls; each a ``Verdict.violations`` entry with its step index; and
   grounded arguments (``pipeline.verify.grounding``, ``TRAJ_UNGROUNDED_ARGUMENT``): every
   literal in a call's arguments (ids, amounts, names, dates) was shown to the agent before that
   call - in the system prompt, a customer turn or an earlier tool result, never only in the
   agent's own text - or is derived from shown values by a rule the domain declares
   (``derived_values``; e.g. airline baggage totals and booking prices); booleans, schema enum
   values and the domain's ``free_text_arguments`` (``think.thought``, transfer summaries) are
   exempt. One violation per ungrounded value, with its step and argument ``path``
   (``passengers[0].first_name``). This rejects lucky guesses and values taken from a hint
   rather than from the conversation;
5. a claimed success in the last agent message that the outcome contradicts, or any claimed
   success in a refusal task (``TRAJ_FALSE_SUCCESS_CLAIM``).

``passed`` requires every check; ``reward_components`` and the combined ``reward`` follow
``pipeline.verify.rewards`` (docs/rewards.md).
"""
from __future__ import annotations

import json
from typing import Any

from pipeline.records import TaskPackage, Trajectory, Verdict
from pipeline.sandbox import Sandbox, validate_arguments

from . import paths, rewards, router

NORMAL_ENDS = ("agent_stop", "user_stop", "transfer")


def expected_state(task: TaskPackage, domain: Any) -> dict[str, Any]:
    """The state the reference solution reaches from the task's initial state."""
    sb = Sandbox(domain, task.hidden.initial_state)
    sb.run([c.model_dump() for c in task.hidden.reference_solution])
    return sb.state


def verify_trajectory(traj: Trajectory, task: TaskPackage, domain: Any,
                      expected: dict[str, Any] | None = None) -> Verdict:
    """Check that ``traj`` is a good demonstration of ``task`` in ``domain``.

    ``expected`` (optional) is the expected final state, to save a replay when verifying many
    trajectories of one task. Returns a :class:`Verdict` whose ``reason_codes`` list every failed
    check in the order of the module docstring, ``violations`` the path-check findings,
    ``details`` the evidence (``state_diff`` of expected vs. got when the state is wrong, counts),
    ``reward_components`` the raw components and ``reward`` the combined reward.
    Never raises for agent mistakes; KeyError-free for any parsed trajectory.
    """
    codes: list[str] = []
    details: dict[str, Any] = {}
    end_ok = traj.finish_reason in NORMAL_ENDS
    if traj.finish_reason == "error":
        codes.append("TRAJ_ERROR")
    elif traj.finish_reason == "turn_limit":
        codes.append("TRAJ_TURN_LIMIT")
    elif not end_ok:
        codes.append("TRAJ_ABNORMAL_END")

    schemas = {t["function"]["name"]: t for t in task.visible.tools}
    n_bad_json = n_unknown = n_invalid = 0
    for tc in traj.tool_calls:
        if not tc.get("valid_json") or not tc.get("name"):
            n_bad_json += 1
            continue
        if tc["name"] not in schemas:
            n_unknown += 1
            continue
        try:
            args = json.loads(tc["arguments"]) if isinstance(tc["arguments"], str) else tc["arguments"]
        except (json.JSONDecodeError, TypeError):
            n_bad_json += 1
            continue
        if validate_arguments(schemas[tc["name"]], args) is not None:
            n_invalid += 1
    if n_bad_json:
        codes.append("TRAJ_UNPARSEABLE_CALL")
    if n_unknown:
        codes.append("TRAJ_UNKNOWN_TOOL")
    if n_invalid:
        codes.append("TRAJ_INVALID_ARGS")
    calls = paths.executed_calls(traj.tool_calls, traj.messages)
    n_known = sum(1 for c in calls if c.name in schemas)
    if n_known == 0 and task.expected_outcome == "action":
        codes.append("TRAJ_NO_TOOL_CALL")

    # the routed chain of reward tools (pipeline/verify/router.py, the domain's routing table)
    ctx = router.build_context(traj, task, domain, expected)
    if ctx.replay_hash != traj.final_state_hash:  # type: ignore[attr-defined]
        details["replay_hash_differs"] = True  # e.g. an injected fault; the recorded hash decides
    rt = router.router_for(domain)
    route = rt.route(task)
    results, chain_codes = router.run_chain(ctx, rt.chain(task))
    outcome = ctx.outcome
    for name, r in results.items():
        if name == "state_hash" and not r.passed:
            details["state_diff"] = r.details["state_diff"]
    violations = [v for r in results.values() for v in r.violations]
    codes += [c for c in chain_codes if c not in codes]
    details["route"] = {"id": route.route_id, "chain": list(route.chain),
                        "results": {n: {"passed": r.passed, "codes": r.codes} for n, r in results.items()}}
    if "answer_match" in results:
        details["answer"] = results["answer_match"].details

    format_valid = float(end_ok and not (n_bad_json or n_unknown or n_invalid))
    components = {"outcome": float(outcome), "format_valid": format_valid, "violations": float(len(violations)),
                  "tool_calls": float(len(traj.tool_calls)), "length": float(traj.completion_tokens)}
    for name, r in results.items():  # gates with a component of their own (answer_match -> "answer")
        comp = router.BUILTIN_TOOLS[name].component
        if comp:
            components[comp] = float(r.passed)
    n_ref = len(task.hidden.reference_solution)
    details.update(outcome=outcome, n_tool_calls=len(traj.tool_calls), n_unparseable=n_bad_json,
                   n_unknown_tool=n_unknown, n_invalid_args=n_invalid, finish_reason=traj.finish_reason,
                   reference_calls=n_ref)
    return Verdict(trajectory_id=traj.trajectory_id, task_id=traj.task_id, passed=not codes, reason_codes=codes,
                   details=details, reward=rewards.combine(components, n_ref), reward_components=components,
                   violations=violations)
