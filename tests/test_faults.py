"""Fault injection: seeded and deterministic, each kind behaves as documented, log failure modes
come first, and a scripted policy that retries shows a recovery demonstration (fault -> retry ->
pass -> recovery=True) on the real airline domain, sandbox and verifier."""
import json
import re

import pytest

from pipeline.domains import get_domain
from pipeline.faults import (FAILURE_MODE_KINDS, FAULT_KINDS, FaultConfig, FaultInjector, ordered_kinds, parse_kinds,
                             tag_recovery)
from pipeline.records import TaskHidden, TaskPackage, TaskVisible, ToolCall
from pipeline.rollout.backends.base import Generation
from pipeline.rollout.harness import RolloutConfig, run_rollouts
from pipeline.sandbox import FAULT_TIMEOUT, FAULT_TRANSIENT, FAULT_WRONG_TYPE, Sandbox
from pipeline.verify import verify_all

AIRLINE = get_domain("airline")


def airline_task(kind: str = "cancel_reservation", seed: int = 3) -> TaskPackage:
    """A real airline task package built from the domain's generator (reference solution run in
    a sandbox for the expected state hash)."""
    gen = AIRLINE.generate_task(kind, seed)
    sb = Sandbox(AIRLINE, gen.initial_state)
    assert all(r.ok for r in sb.run(gen.reference_solution))
    return TaskPackage(
        task_id=f"{kind}-{seed}", blueprint_id=f"bp-{kind}", domain="airline", seed=seed,
        visible=TaskVisible(instruction=gen.instruction, policy=AIRLINE.policy, tools=AIRLINE.tool_schemas(),
                            user_messages=list(gen.user_messages)),
        hidden=TaskHidden(initial_state=gen.initial_state,
                          reference_solution=[ToolCall(**c) for c in gen.reference_solution],
                          expected_state_hash=sb.state_hash(), verifier={"type": "state_hash"}),
        task_kind=kind, expected_outcome=gen.expected_outcome)


class ReplayPolicy:
    """Test double of a teacher (a scripted policy): reads each episode's prompt, calls the next
    step of the task's reference solution, repeats a call whose result was an ``Error`` when
    ``retry`` is on (skips it otherwise), and answers in text when all steps are done."""

    name = "replay"
    model_id = "replay-policy"

    def __init__(self, tasks: dict[str, TaskPackage], retry: bool = True):
        self.tasks = tasks
        self.retry = retry

    def _task(self, prompt) -> TaskPackage:
        first_user = next(m["content"] for m in prompt if m["role"] == "user")
        return next(t for t in self.tasks.values() if t.visible.instruction == first_user)

    def generate(self, prompts, prefixes, sampling, grammars=None, **kw):
        out = []
        for p in prompts:
            ref = self._task(p).hidden.reference_solution
            results = [m["content"] for m in p if m["role"] == "tool"]
            done = sum(1 for r in results if self.retry is False or "Error" not in r[:40])
            if done >= len(ref):
                text = "Your request is complete."
            else:
                c = ref[done]
                text = "<tool_call>\n" + json.dumps({"name": c.name, "arguments": c.arguments}) + "\n</tool_call>"
            out.append(Generation(text=text, prompt_tokens=1, completion_tokens=1))
        return out


def _roll(tasks, faults, retry=True, k=2):
    cfg = RolloutConfig(k=k, max_turns=12, constrain="none", faults=faults)
    return run_rollouts(tasks, ReplayPolicy({t.task_id: t for t in tasks}, retry), lambda n: AIRLINE, cfg)


def test_parse_kinds_and_config_errors():
    assert parse_kinds(None) == FAULT_KINDS and parse_kinds("timeout, wrong_type") == ("timeout", "wrong_type")
    with pytest.raises(ValueError, match="unknown fault kind"):
        parse_kinds("timeout,explode")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        FaultConfig(rate=1.5)


def test_log_failure_modes_come_first():
    modes = [{"mode": "missing_write", "tool": "book_reservation", "count": 5},
             {"mode": "write_call_error", "tool": "cancel_reservation", "count": 2}]
    # the mode on this tool first, then the other logged mode, then the rest in the given order
    assert ordered_kinds(FAULT_KINDS, modes, "cancel_reservation")[:3] == ["transient", "wrong_type", "timeout"]
    assert ordered_kinds(FAULT_KINDS, modes, "get_user_details")[0] == "timeout"
    assert ordered_kinds(FAULT_KINDS, None) == list(FAULT_KINDS)
    assert set(FAILURE_MODE_KINDS["write_call_error"]) == {"transient", "wrong_type"}
    # in an episode, the first fault uses the kind the logs show for that tool
    inj = FaultInjector(FaultConfig(rate=1.0, seed=1), 7, modes)
    assert inj.draw("cancel_reservation", True, {"reservation_id": "ABC123"}) == "transient"


def test_timeout_and_transient_leave_state_unchanged_and_retry_succeeds():
    task = airline_task()
    call = task.hidden.reference_solution[-1]  # the cancel (a write)
    for kind, code in (("timeout", FAULT_TIMEOUT), ("transient", FAULT_TRANSIENT)):
        inj = FaultInjector(FaultConfig(rate=1.0, kinds=(kind,)), 0)
        sb = Sandbox(AIRLINE, task.hidden.initial_state, faults=inj)
        before = sb.state_hash()
        r = sb.call(call.name, call.arguments)
        assert r.error_code == code and r.fault == kind and r.content.startswith("Error:")
        assert sb.state_hash() == before
        r2 = sb.call(call.name, call.arguments)  # the retry is never faulted
        assert r2.ok and r2.fault is None and sb.state_hash() == task.hidden.expected_state_hash
        assert inj.log == [{"step": 0, "tool": call.name, "kind": kind}]


def test_wrong_type_rejected_by_the_real_validator():
    task = airline_task()
    inj = FaultInjector(FaultConfig(rate=1.0, kinds=("wrong_type",)), 0)
    sb = Sandbox(AIRLINE, task.hidden.initial_state, faults=inj)
    user_id = next(c for c in task.hidden.reference_solution if c.name == "get_user_details").arguments["user_id"]
    r = sb.call("get_user_details", {"user_id": user_id})
    assert r.error_code == FAULT_WRONG_TYPE and r.fault == "wrong_type"
    # jsonschema's own message about the re-typed value
    assert re.search(r"user_id: .* is not of type 'string'", r.content), r.content
    assert sb.call("get_user_details", {"user_id": user_id}).ok


def test_content_faults_only_on_read_tools():
    task = airline_task()
    inj = FaultInjector(FaultConfig(rate=1.0, kinds=("malformed", "truncated", "corrupt_record")), 0)
    sb = Sandbox(AIRLINE, task.hidden.initial_state, faults=inj)
    user_id = next(c for c in task.hidden.reference_solution if c.name == "get_user_details").arguments["user_id"]
    clean = Sandbox(AIRLINE, task.hidden.initial_state).call("get_user_details", {"user_id": user_id}).content
    r = sb.call("get_user_details", {"user_id": user_id})
    # the tool ran; its result came back damaged (the code tells the verifier, the agent sees the text)
    assert r.error_code == "FAULT_MALFORMED" and r.fault == "malformed" and r.content != clean
    with pytest.raises(json.JSONDecodeError):
        json.loads(r.content)
    cancel = task.hidden.reference_solution[-1]
    w = sb.call(cancel.name, cancel.arguments)  # a write: no content fault applies
    assert w.ok and w.fault is None and sb.state_hash() == task.hidden.expected_state_hash
    r3 = sb.call("get_user_details", {"user_id": user_id})  # retry after the fault: clean
    r4 = sb.call("get_user_details", {"user_id": user_id})
    assert r3.fault is None and r4.fault == "truncated" and clean.startswith(r4.content) and len(r4.content) < len(clean)
    assert [f["kind"] for f in inj.log] == ["malformed", "truncated"]


def test_faults_are_deterministic_by_seed_and_recorded():
    tasks = [airline_task("cancel_reservation", s) for s in (3, 4)] + [airline_task("book_reservation", 5)]
    a = _roll(tasks, FaultConfig(rate=0.5, seed=11), k=3)
    b = _roll(tasks, FaultConfig(rate=0.5, seed=11), k=3)
    c = _roll(tasks, FaultConfig(rate=0.5, seed=12), k=3)
    logs = lambda ts: [t.faults for t in ts]  # noqa: E731
    assert logs(a) == logs(b) and [t.messages for t in a] == [t.messages for t in b]
    assert sum(len(f) for f in logs(a)) >= 3
    assert logs(a) != logs(c)
    for t in a:  # every recorded fault matches the logged tool call at its step
        for f in t.faults:
            assert f["kind"] in FAULT_KINDS
            assert any(tc["step"] == f["step"] and tc["name"] == f["tool"] and tc["fault"] == f["kind"]
                       for tc in t.tool_calls)
    assert all(t.sampling["fault_rate"] == 0.5 for t in a)


def test_recovery_demonstration_fault_retry_pass():
    tasks = [airline_task("cancel_reservation", 3)]
    faults = FaultConfig(rate=1.0, kinds=("transient", "timeout", "wrong_type"), seed=0)
    trajs = _roll(tasks, faults)
    verdicts = verify_all(trajs, {t.task_id: t for t in tasks}, lambda n: AIRLINE)
    assert all(t.faults for t in trajs)
    assert all(v.passed for v in verdicts), [v.reason_codes for v in verdicts]
    assert tag_recovery(trajs, verdicts) == len(trajs) and all(t.recovery for t in trajs)
    # the faulted call and its retry are both in the log; the retry succeeded
    t = trajs[0]
    f = t.faults[0]
    faulted = [tc for tc in t.tool_calls if tc["fault"]]
    retry = next(tc for tc in t.tool_calls if tc["step"] > f["step"] and tc["name"] == f["tool"])
    assert faulted[0]["error"] is not None and retry["error"] is None and retry["fault"] is None

    # no retry: the write never lands, verification fails, no recovery tag
    bad = _roll(tasks, faults, retry=False)
    bv = verify_all(bad, {t.task_id: t for t in tasks}, lambda n: AIRLINE)
    assert not any(v.passed for v in bv)
    assert tag_recovery(bad, bv) == 0 and not any(t.recovery for t in bad)
    # no fault: passes, but is not a recovery demonstration
    clean = _roll(tasks, None)
    cv = verify_all(clean, {t.task_id: t for t in tasks}, lambda n: AIRLINE)
    assert all(v.passed for v in cv) and tag_recovery(clean, cv) == 0


def test_stage_wiring_failure_modes_first_and_recovery_tag():
    """rollout_stage passes the fault options and the blueprint's failure modes through; the
    recovery label (Trajectory.recovery) is set by selection, never written back by verification."""
    from pipeline.stages import rollout_stage, verify_trajectories_stage

    tasks = [airline_task("cancel_reservation", 3)]
    modes = {tasks[0].blueprint_id: [{"mode": "wrong_arguments", "tool": "cancel_reservation", "count": 4}]}
    res = rollout_stage(tasks, backend_obj=ReplayPolicy({t.task_id: t for t in tasks}), k=2, max_turns=12,
                        constrain="none", fault_rate=1.0, fault_kinds="timeout,wrong_type", failure_modes=modes,
                        seed=4)
    trajs = res.trajectories
    # the logs' failure mode (wrong_arguments -> wrong_type) is the first kind used on every episode
    assert all(t.faults and t.faults[0]["kind"] == "wrong_type" for t in trajs)
    assert all(t.sampling["fault_kinds"] == ["timeout", "wrong_type"] for t in trajs)
    verdicts = verify_trajectories_stage(trajs, tasks)
    assert all(v.passed for v in verdicts), [v.reason_codes for v in verdicts]
    assert not any(t.recovery for t in trajs)  # verification writes verdicts only, never edits rollouts
    from pipeline.stages import select_stage

    select_stage(trajs, verdicts, cap=2)  # recovery is a label set where it is used
    assert all(t.recovery for t in trajs)
    with pytest.raises(ValueError, match="unknown fault kind"):
        rollout_stage(tasks, backend_obj=ReplayPolicy({}), fault_rate=0.1, fault_kinds="boom")


class _ClosingReplay(ReplayPolicy):
    """ReplayPolicy that records whether the stage released it."""

    def __init__(self, tasks):
        super().__init__(tasks)
        self.closed = 0

    def close(self) -> None:
        self.closed += 1


def test_rollout_stage_releases_the_backend_it_loaded(monkeypatch, tmp_path):
    """A backend the rollout stage loads itself is released when the stage ends (a vLLM engine
    lived to process exit before: in `trajpipe improve` every round's engine piled up, gigabytes
    of KV cache and a busy worker each); one handed in through the context is left to its owner."""
    import pipeline.stages as stages
    from pipeline.config import RunConfig
    from pipeline.records import TaskVerdict
    from pipeline.runner import Context

    tasks = [airline_task("cancel_reservation", s) for s in (3, 4, 5)]
    inputs = {"tasks": tasks, "task_verdicts": [TaskVerdict(task_id=t.task_id, passed=True, reason_codes=[]) for t in tasks],
              "blueprints": []}
    cfg = RunConfig(rollout={"k": 1, "max_turns": 6, "constrain": "none", "hints": "none", "shard_tasks": 2}).rollout
    loaded = []

    def fake_load(cfg_, seed):
        loaded.append(_ClosingReplay({t.task_id: t for t in tasks}))
        return loaded[-1]

    monkeypatch.setattr(stages, "load_rollout_backend", fake_load)
    res = stages._run_rollout(inputs, cfg, Context(scratch=tmp_path / "a"))
    assert res.stats["trajectories"] == 3 and res.stats["shards"] == 2
    assert len(loaded) == 1 and loaded[0].closed == 1  # loaded once for both shards, released once
    mine = _ClosingReplay({t.task_id: t for t in tasks})
    stages._run_rollout(inputs, cfg, Context(scratch=tmp_path / "b", backend_obj=mine))
    assert mine.closed == 0 and len(loaded) == 1
