"""Blueprints from the real logs, synthesis into task packages, and task verification."""
import pytest

from pipeline.blueprints import action_signature, extract_blueprints, tool_calls_of
from pipeline.domains import get_domain
from pipeline.ingest import ingest
from pipeline.records import TaskHidden, ToolCall
from pipeline.synthesize import synthesize
from pipeline.verify import verify_task, verify_trajectory
from pipeline.records import Trajectory
from pipeline.sandbox import Sandbox
from tests.conftest import AIRLINE_LOGS

AIRLINE = get_domain("airline")


@pytest.fixture(scope="module")
def real_blueprints(shared_data):
    recs = ingest(AIRLINE_LOGS).records
    return recs, extract_blueprints(recs, AIRLINE)


def test_blueprints_cover_every_log_once(real_blueprints):
    recs, bps = real_blueprints
    ids = [i for b in bps for i in b.source_log_ids]
    assert sorted(ids) == sorted(r.id for r in recs)  # every log in exactly one blueprint
    assert sum(b.n_logs for b in bps) == len(recs)
    assert sum(b.n_success for b in bps) == sum(r.metadata["reward"] == 1.0 for r in recs)
    kinds = {b.task_kind for b in bps}
    assert {"cancel_reservation", "update_reservation_flights", "book_reservation"} <= kinds
    cancel = next(b for b in bps if b.task_kind == "cancel_reservation")
    assert cancel.action_signature == ["cancel_reservation(reservation_id:str)"]
    assert "cancel_reservation" in cancel.required_tools
    assert any(r.rule_id.startswith("airline.cancel") for r in cancel.business_constraints)
    assert cancel.failure_modes and all(f["count"] > 0 for f in cancel.failure_modes)
    # deterministic
    assert [b.model_dump() for b in extract_blueprints(recs, AIRLINE)] == [b.model_dump() for b in bps]


def test_action_signature_ignores_failed_writes(real_blueprints):
    recs, _ = real_blueprints
    rec = next(r for r in recs if any(not c["ok"] and c["name"] == "book_reservation" for c in tool_calls_of(r)))
    sig = action_signature(tool_calls_of(rec), AIRLINE.write_tools)
    n_ok = sum(1 for c in tool_calls_of(rec) if c["name"] == "book_reservation" and c["ok"])
    assert len([s for s in sig if s.startswith("book_reservation")]) <= n_ok


def test_synthesis_is_deterministic_and_tasks_verify(real_blueprints):
    _, bps = real_blueprints
    a = synthesize(bps, get_domain, n_per_blueprint=2, seed=7)
    b = synthesize(bps, get_domain, n_per_blueprint=2, seed=7)
    c = synthesize(bps, get_domain, n_per_blueprint=2, seed=8)
    assert [t.model_dump() for t in a.tasks] == [t.model_dump() for t in b.tasks]
    assert [t.visible.instruction for t in a.tasks] != [t.visible.instruction for t in c.tasks]
    with_gen = [x for x in bps if x.task_kind]
    assert len(a.tasks) == 2 * len(with_gen)
    assert len(a.rejects) == len(bps) - len(with_gen)
    assert {r.reason_code for r in a.rejects} <= {"SYNTH_NO_GENERATOR"}
    for t in a.tasks:
        v = verify_task(t, AIRLINE)
        assert v.passed, (t.task_id, v.reason_codes, v.details)
        # hidden part never in the visible part
        assert t.hidden.expected_state_hash not in t.visible.model_dump_json()


def test_task_verification_rejects_bad_exercises(real_blueprints):
    _, bps = real_blueprints
    task = synthesize(bps[:3], get_domain, n_per_blueprint=1, seed=1).tasks[0]
    # reference that does nothing: not fail-to-pass, and it does not reach the expected state
    lazy = task.model_copy(update={"hidden": TaskHidden(**{**task.hidden.model_dump(), "reference_solution": []})})
    v = verify_task(lazy, AIRLINE)
    assert not v.passed and "TASK_REFERENCE_MISMATCH" in v.reason_codes
    # a task whose expected state is the initial state is not fail-to-pass
    init_hash = Sandbox(AIRLINE, task.hidden.initial_state).state_hash()
    trivial = task.model_copy(update={"hidden": TaskHidden(**{**task.hidden.model_dump(),
                                                              "reference_solution": [], "expected_state_hash": init_hash})})
    assert verify_task(trivial, AIRLINE).reason_codes == ["TASK_NOT_FAIL_TO_PASS"]
    # a reference call with an error
    broken = task.model_copy(update={"hidden": TaskHidden(**{**task.hidden.model_dump(), "reference_solution": [
        ToolCall(name="cancel_reservation", arguments={"reservation_id": "NOPE00"})] + task.hidden.reference_solution})})
    assert "TASK_REFERENCE_FAILED" in verify_task(broken, AIRLINE).reason_codes


def test_replayed_reference_is_a_good_demonstration(real_blueprints):
    """A trajectory that replays the reference passes; one missing the write fails."""
    import json
    _, bps = real_blueprints
    task = synthesize(bps, get_domain, n_per_blueprint=1, seed=3).tasks[0]
    sb = Sandbox(AIRLINE, task.hidden.initial_state)
    calls = []
    for i, c in enumerate(task.hidden.reference_solution):
        sb.call(c.name, c.arguments)
        calls.append({"step": i, "name": c.name, "arguments": json.dumps(c.arguments), "valid_json": True, "error": None})

    def traj(state_hash, tool_calls):
        return Trajectory(trajectory_id="x", task_id=task.task_id, blueprint_id=task.blueprint_id, sample_index=0,
                          model="m", backend="b", messages=[], tools=task.visible.tools, tool_calls=tool_calls,
                          final_state_hash=state_hash, finish_reason="agent_stop", n_turns=len(calls),
                          prompt_tokens=0, completion_tokens=0, seed=0)
    assert verify_trajectory(traj(sb.state_hash(), calls), task, AIRLINE).passed
    init = Sandbox(AIRLINE, task.hidden.initial_state).state_hash()
    v = verify_trajectory(traj(init, calls[:-1]), task, AIRLINE)
    assert not v.passed and v.reason_codes == ["TRAJ_WRONG_FINAL_STATE"]
    bad_args = calls[:-1] + [{**calls[-1], "arguments": json.dumps({"bogus": 1})}]
    assert "TRAJ_INVALID_ARGS" in verify_trajectory(traj(init, bad_args), task, AIRLINE).reason_codes
