"""Blueprints from the real logs (clustering, failure modes, skills), synthesis into task packages
(rule-decided variants, --target-skills), and task verification."""
import json

import pytest

from pipeline.blueprints import action_signature, catalog, extract_blueprints, tool_calls_of
from pipeline.blueprints.cluster import intent_similarity, minhash, signature_similarity
from pipeline.domains import get_domain
from pipeline.domains.base import Domain
from pipeline.ingest import ingest
from pipeline.records import Blueprint, LogRecord, TaskHidden, ToolCall, Trajectory
from pipeline.sandbox import Sandbox
from pipeline.skills import SKILLS
from pipeline.stages import blueprints_stage
from pipeline.synthesize import build_package, plan_blueprint, synthesize
from pipeline.verify import verify_task, verify_trajectory
from tests.conftest import AIRLINE_LOGS

AIRLINE = get_domain("airline")


@pytest.fixture(scope="module")
def real_blueprints(shared_data):
    recs = ingest(AIRLINE_LOGS).records
    return recs, extract_blueprints(recs, AIRLINE)


def test_clustering_merges_real_logs_into_a_deterministic_catalog(real_blueprints):
    recs, bps = real_blueprints
    print("\ncatalog sizes:", [(b.blueprint_id, b.n_logs, b.n_success) for b in bps])
    ids = [i for b in bps for i in b.source_log_ids]
    assert sorted(ids) == sorted(r.id for r in recs)  # every log in exactly one blueprint
    assert sum(b.n_logs for b in bps) == len(recs)
    assert sum(b.n_success for b in bps) == sum(r.metadata["reward"] == 1.0 for r in recs)
    # similar cases merged: far fewer blueprints than logs, and more than the handful of kinds
    assert len({b.task_kind for b in bps}) < len(bps) < len(recs) / 3
    assert sum(b.n_logs for b in bps[:5]) > len(recs) / 3
    kinds = {b.task_kind for b in bps}
    assert {"cancel_reservation", "update_reservation_flights", "book_reservation"} <= kinds
    outcomes = {b.cluster["outcome"] for b in bps}
    assert {"action", "refusal", "transfer"} <= outcomes
    cancel = next(b for b in bps if b.task_kind == "cancel_reservation" and b.cluster["outcome"] == "action")
    assert cancel.action_signature == ["cancel_reservation(reservation_id:str)"]
    assert "cancel_reservation" in cancel.required_tools
    assert any(r.rule_id == "airline.cancel.eligibility" for r in cancel.business_constraints)
    assert all(r.text and r.text in AIRLINE.policy for r in cancel.business_constraints)  # linked to policy text
    assert cancel.success_condition == AIRLINE.success_condition("cancel_reservation")
    assert cancel.initial_state_requirements == AIRLINE.initial_state_requirements("cancel_reservation")
    assert cancel.cluster["size"] == cancel.n_logs and sum(cancel.cluster["signatures"].values()) == cancel.n_logs
    assert cancel.cluster["representative_intent"] in cancel.example_intents
    refusal = [b for b in bps if b.cluster["outcome"] != "action"]
    assert all(not b.action_signature and b.success_condition.startswith("no state change") for b in refusal)
    # deterministic, twice
    again = extract_blueprints(ingest(AIRLINE_LOGS).records, AIRLINE)
    assert [b.model_dump() for b in again] == [b.model_dump() for b in bps]
    # a stricter threshold splits clusters
    assert len(extract_blueprints(recs, AIRLINE, threshold=0.95)) > len(bps)
    rows = catalog(bps)
    assert [r["size"] for r in rows] == [b.n_logs for b in bps] and rows[0]["size"] >= rows[-1]["size"]


def test_similarity_measures():
    a, b = minhash("I need to cancel my flight to Boston"), minhash("please cancel my flight to Boston")
    assert intent_similarity(a, b) > 0.5 > intent_similarity(a, minhash("book a new trip with two bags"))
    assert intent_similarity(None, None) == 1.0 and intent_similarity(a, None) == 0.0
    assert signature_similarity(["x(a:str)"], ["x(a:str)", "y(b:int)"]) == 0.5
    assert signature_similarity([], []) == 1.0


def test_failure_modes_name_the_broken_rule_and_the_wrong_call(real_blueprints):
    _, bps = real_blueprints
    modes = [(b, m) for b in bps for m in b.failure_modes]
    assert modes and all(m["count"] > 0 and m["mapped_by"] in ("rule_violations", "tool") for _, m in modes)
    known_rules = {r.rule_id for r in AIRLINE.rules}
    assert all(set(m["rule_ids"]) <= known_rules for _, m in modes)
    # with the domain's rule_violations hook, wrong calls are mapped to the rules they broke
    by_hook = [m for _, m in modes if m["mapped_by"] == "rule_violations" and m["rule_ids"]]
    assert by_hook, "no failure mode mapped through the airline rule checks"
    call = by_hook[0]["calls"][0]
    assert call["log_id"].startswith("taubench-") and isinstance(call["step"], int) and "(" in call["call"]
    wrong_args = [m for _, m in modes if m["mode"] == "wrong_arguments"]
    assert wrong_args and any(c["differs"] for m in wrong_args for c in m["calls"])
    # rules agents broke become rule variants of the blueprint
    cancel = next(b for b in bps if b.task_kind == "cancel_reservation" and b.cluster["outcome"] == "action")
    assert {"airline.cancel.eligibility", "airline.cancel.unflown"} & set(cancel.rule_variants)
    assert all(r in cancel.cluster["rule_breaks"] for r in cancel.rule_variants)


def test_failure_modes_fall_back_to_tool_rules_without_hooks(real_blueprints):
    recs, _ = real_blueprints

    class NoHooks(type(AIRLINE)):  # the airline domain with the contract's defaults for its rule hooks
        rule_violations = Domain.rule_violations
        state_from_log = Domain.state_from_log

    assert NoHooks().rule_violations({}, [], None) is None and NoHooks().state_from_log([]) is None
    bps = extract_blueprints(recs, NoHooks())
    modes = [m for b in bps for m in b.failure_modes]
    assert modes and {m["mapped_by"] for m in modes} == {"tool"}
    cancel_modes = [m for m in modes if m["tool"] == "cancel_reservation"]
    assert cancel_modes and all("airline.cancel.eligibility" in m["rule_ids"] for m in cancel_modes)


def test_action_signature_ignores_failed_writes(real_blueprints):
    recs, _ = real_blueprints
    rec = next(r for r in recs if any(not c["ok"] and c["name"] == "book_reservation" for c in tool_calls_of(r)))
    sig = action_signature(tool_calls_of(rec), AIRLINE.write_tools)
    n_ok = sum(1 for c in tool_calls_of(rec) if c["name"] == "book_reservation" and c["ok"])
    assert len([s for s in sig if s.startswith("book_reservation")]) <= n_ok


def test_every_blueprint_and_task_has_known_skills(real_blueprints):
    _, bps = real_blueprints
    res = synthesize(bps, get_domain, n_per_blueprint=1, seed=3)
    for unit in [*bps, *res.tasks]:
        assert unit.skills and set(unit.skills) <= set(SKILLS), unit
    for t in res.tasks:
        assert set(AIRLINE.skills_for_kind(t.task_kind)) - {"confirmation", "creation", "refund_payment",
                                                               "multi_step"} <= set(t.skills)
        assert (t.expected_outcome in ("refusal", "transfer")) == (t.expected_outcome in t.skills)
        if t.expected_outcome in ("refusal", "transfer"):
            assert "confirmation" not in t.skills and t.variant and t.variant.startswith("rule:")
        if t.expected_outcome == "answer":  # information requests (issue 15): no write, no rule variant
            assert "confirmation" not in t.skills and t.variant is None and t.task_kind in AIRLINE.answer_kinds


def test_synthesis_is_deterministic_and_tasks_verify(real_blueprints):
    _, bps = real_blueprints
    a = synthesize(bps, get_domain, n_per_blueprint=2, seed=7)
    b = synthesize(bps, get_domain, n_per_blueprint=2, seed=7)
    c = synthesize(bps, get_domain, n_per_blueprint=2, seed=8)
    assert [t.model_dump() for t in a.tasks] == [t.model_dump() for t in b.tasks]
    assert [t.visible.instruction for t in a.tasks] != [t.visible.instruction for t in c.tasks]
    planned = sum(len(plan_blueprint(x, AIRLINE, 2)) for x in bps)
    assert len(a.tasks) == planned
    assert len(a.rejects) == sum(1 for x in bps if not plan_blueprint(x, AIRLINE, 2))
    assert {r.reason_code for r in a.rejects} <= {"SYNTH_NO_GENERATOR"}
    # the answer-only blueprint of the logs (task 36) is now an answer task (issue 15)
    assert {t.expected_outcome for t in a.tasks} == {"action", "refusal", "transfer", "answer"}
    for t in a.tasks:
        assert t.task_kind and t.hidden.verifier["expected_outcome"] == t.expected_outcome
        v = verify_task(t, AIRLINE)
        if t.expected_outcome == "action":
            assert v.passed, (t.task_id, v.reason_codes, v.details)
        else:  # the state must not change; fail-to-pass does not apply to a refusal
            assert set(v.reason_codes) <= {"TASK_NOT_FAIL_TO_PASS"}, (t.task_id, v.reason_codes)
            assert Sandbox(AIRLINE, t.hidden.initial_state).state_hash() == t.hidden.expected_state_hash
        assert t.hidden.expected_state_hash not in t.visible.model_dump_json()  # hidden never visible


def _variant_blueprint(kind: str) -> Blueprint:
    return Blueprint(blueprint_id=f"airline-{kind}-test", domain="airline", intent="x", action_signature=[],
                     required_tools=[kind], read_tools=[], initial_state_requirements={},
                     business_constraints=AIRLINE.rules_for_tools([kind]), success_condition="x",
                     failure_modes=[], source_log_ids=[], n_logs=0, n_success=0, task_kind=kind)


@pytest.mark.parametrize("kind,variant", [(k, v) for k in AIRLINE.task_kinds for v in AIRLINE.variants_for_kind(k)])
def test_a_reference_that_ignores_the_deciding_rule_fails_the_verifier(kind, variant):
    """Across seeds: the forbidden write succeeds in the tools but ends in another state than
    the expected one, so the state-hash verifier rejects it; the rule checks flag it too."""
    bp = _variant_blueprint(kind)
    rule_id = variant.split(":", 1)[1]
    for index in range(5):
        t = build_package(bp, AIRLINE, index, seed=11, variant=variant)
        assert t.variant == variant and t.expected_outcome in ("refusal", "transfer")
        forbidden = t.hidden.generation_notes["forbidden_calls"]
        sb = Sandbox(AIRLINE, t.hidden.initial_state)
        ref = sb.run([c.model_dump() for c in t.hidden.reference_solution])
        assert all(r.ok for r in ref) and sb.state_hash() == t.hidden.expected_state_hash
        broken = sb.run(forbidden)
        assert all(r.ok for r in broken), [r.content for r in broken]  # the tools do not enforce the rule
        assert sb.state_hash() != t.hidden.expected_state_hash
        calls = [{"step": i, "name": c["name"], "arguments": json.dumps(c["arguments"]), "valid_json": True,
                  "error": None} for i, c in enumerate([c.model_dump() for c in t.hidden.reference_solution]
                                                        + forbidden)]
        traj = Trajectory(trajectory_id="x", task_id=t.task_id, blueprint_id=t.blueprint_id, sample_index=0,
                          model="m", backend="b", messages=[], tools=t.visible.tools, tool_calls=calls,
                          final_state_hash=sb.state_hash(), finish_reason="agent_stop", n_turns=len(calls),
                          prompt_tokens=0, completion_tokens=0, seed=0)
        v = verify_trajectory(traj, t, AIRLINE)
        assert not v.passed and "TRAJ_WRONG_FINAL_STATE" in v.reason_codes
        try:
            viol = AIRLINE.rule_violations(t.hidden.initial_state, [
                {"name": c["name"], "arguments": c["arguments"], "error": None} for c in
                [c.model_dump() for c in t.hidden.reference_solution] + forbidden], None)
        except NotImplementedError:
            continue
        if t.hidden.generation_notes.get("insurance") == "yes" and rule_id == "airline.cancel.eligibility":
            continue  # insured: only the reason said in the conversation (not in the call) forbids it
        assert rule_id in {x["rule_id"] for x in viol}, (variant, viol)


def test_target_skills_yields_tasks_with_the_requested_skills(real_blueprints):
    _, bps = real_blueprints
    base = synthesize(bps, get_domain, n_per_blueprint=1, seed=5)
    res = synthesize(bps, get_domain, n_per_blueprint=1, seed=5, target_skills=["transfer", "cancellation"])
    extra = res.tasks[len(base.tasks):]
    assert [t.model_dump() for t in res.tasks[:len(base.tasks)]] == [t.model_dump() for t in base.tasks]
    assert res.targeted == len(extra) >= 1 and not res.unmet_targets
    assert all({"transfer", "cancellation"} <= set(t.skills) for t in extra)
    assert len({t.task_id for t in res.tasks}) == len(res.tasks)
    # an instance-level skill combination (a cancellation the airline caused needs a search)
    res2 = synthesize(bps, get_domain, n_per_blueprint=2, seed=5, target_skills=["search", "cancellation"])
    assert res2.targeted >= 1
    impossible = synthesize(bps, get_domain, n_per_blueprint=1, seed=5, target_skills=["transfer", "creation"])
    assert impossible.targeted == 0 and impossible.unmet_targets == ["transfer", "creation"]
    with pytest.raises(ValueError, match="unknown skill ids"):
        synthesize(bps, get_domain, target_skills=["teleportation"])


def test_blueprints_stage_picks_the_domain_per_record(real_blueprints):
    recs, bps = real_blueprints
    assert [b.model_dump() for b in blueprints_stage(recs, "auto")] == [b.model_dump() for b in bps]
    odd = LogRecord(id="x-1", messages=[{"role": "user", "content": "hi"}], metadata={"domain": "nope"})
    with pytest.raises(ValueError, match="known domains"):
        blueprints_stage([*recs[:3], odd], "auto")
    with pytest.raises(ValueError, match="known domains"):
        blueprints_stage(recs[:3], "nope")


def test_task_verification_rejects_bad_exercises(real_blueprints):
    _, bps = real_blueprints
    task = next(t for t in synthesize(bps[:3], get_domain, n_per_blueprint=1, seed=1).tasks
                if t.expected_outcome == "action")
    # reference that does nothing: not fail-to-pass, and it does not reach the expected state
    lazy = task.model_copy(update={"hidden": TaskHidden(**{**task.hidden.model_dump(), "reference_solution": []})})
    v = verify_task(lazy, AIRLINE)
    assert not v.passed and "TASK_REFERENCE_MISMATCH" in v.reason_codes
    # a task whose expected state is the initial state is not fail-to-pass
    init_hash = Sandbox(AIRLINE, task.hidden.initial_state).state_hash()
    trivial = task.model_copy(update={"hidden": TaskHidden(**{**task.hidden.model_dump(),
                                                              "reference_solution": [], "expected_state_hash": init_hash})})
    assert "TASK_NOT_FAIL_TO_PASS" in verify_task(trivial, AIRLINE).reason_codes
    # a reference call with an error
    broken = task.model_copy(update={"hidden": TaskHidden(**{**task.hidden.model_dump(), "reference_solution": [
        ToolCall(name="cancel_reservation", arguments={"reservation_id": "NOPE00"})] + task.hidden.reference_solution})})
    assert "TASK_REFERENCE_FAILED" in verify_task(broken, AIRLINE).reason_codes


def test_replayed_reference_is_a_good_demonstration(real_blueprints):
    """A trajectory that replays the reference passes; one missing the write fails."""
    _, bps = real_blueprints
    task = next(t for t in synthesize(bps, get_domain, n_per_blueprint=1, seed=3).tasks
                if t.expected_outcome == "action")
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
    assert not v.passed and "TRAJ_WRONG_FINAL_STATE" in v.reason_codes
    bad_args = calls[:-1] + [{**calls[-1], "arguments": json.dumps({"bogus": 1})}]
    assert "TRAJ_INVALID_ARGS" in verify_trajectory(traj(init, bad_args), task, AIRLINE).reason_codes


def test_model_summarizer_refines_intents_with_the_real_teacher(real_blueprints, teacher):
    """The optional LLM summarizer (SmolLM2, greedy, 16 tokens, one blueprint to keep CPU time
    low): the blueprint keeps its deterministic intent in ``cluster`` and either takes the
    model's sentence (forced to start with the summary prefix) or says why not."""
    from pipeline.blueprints.summarize import PREFIX, check_summary, summarize_intents

    _, bps = real_blueprints
    (before,) = bps[:1]
    (after,) = summarize_intents([before], teacher, max_new_tokens=16)
    print("\nsummary:", after.intent, after.cluster.get("summary_rejected"))
    assert after.blueprint_id == before.blueprint_id
    assert after.cluster["deterministic_intent"] == before.intent and after.cluster["summary_model"]
    if "summary_rejected" in after.cluster:
        assert after.intent == before.intent
    else:
        assert after.intent.startswith(PREFIX) and len(after.intent) > len(PREFIX) + 2
        assert check_summary(after.intent) is None


def test_model_paraphrase_keeps_anchors_or_keeps_the_template(real_blueprints, teacher):
    """The optional instruction paraphrase with the real teacher (greedy, one task, 48 tokens):
    the task either takes a paraphrase that keeps every id/number/name and leaks nothing, or
    keeps its template text; the decision is recorded. The checker itself rejects a lost id."""
    from pipeline.synthesize.paraphrase import anchors, check_paraphrase, paraphrase_tasks

    _, bps = real_blueprints
    task = next(t for t in synthesize(bps[:2], get_domain, n_per_blueprint=1, seed=2).tasks)
    (out,) = paraphrase_tasks([task], teacher, max_new_tokens=48)
    decision = out.hidden.generation_notes["paraphrase"]["decision"]
    print("\nparaphrase:", decision, "|", out.visible.instruction)
    assert out.task_id == task.task_id and out.hidden.reference_solution == task.hidden.reference_solution
    if decision == "accepted":
        assert out.hidden.generation_notes["template_instruction"] == task.visible.instruction
        assert all(a in out.visible.instruction for a in anchors(task.visible.instruction))
    else:
        assert out.visible.instruction == task.visible.instruction
    uid = next(a for a in anchors(task.visible.instruction) if "_" in a)
    assert check_paraphrase(task.visible.instruction, task.visible.instruction.replace(uid, "someone"), []) \
        == f"lost:{uid}"
