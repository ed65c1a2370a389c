"""Two-stage verification: task checks, trajectory path checks, reward components, the
difficulty band, the airline rule checks and the ``trajpipe verify`` command."""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from pipeline.domains import get_domain
from pipeline.domains.airline import checks as airline_checks
from pipeline.records import TaskHidden, TaskVerdict, ToolCall, Verdict
from pipeline.verify import apply_difficulty_band, parse_band, verify_task, verify_trajectory
from pipeline.verify import rewards
from pipeline.verify.mutations import Variant, build_variants, task_for, to_trajectory
from pipeline.verify.reasons import REASONS

AIRLINE = get_domain("airline")
ROOT = Path(__file__).resolve().parents[1]


def _with_hidden(task, **changes):
    return task.model_copy(update={"hidden": TaskHidden(**{**task.hidden.model_dump(), **changes})})


def _ref(task):
    return [c.model_dump() for c in task.hidden.reference_solution]


# ---- task verification ------------------------------------------------------------------------

def test_generated_tasks_pass_every_check_with_evidence():
    for kind, variant in [("cancel_reservation", None), ("book_reservation", None),
                          ("cancel_reservation", "rule:airline.cancel.eligibility"),
                          ("cancel_reservation", "rule:airline.cancel.unflown")]:
        task = task_for(AIRLINE, kind, 4, variant)
        v = verify_task(task, AIRLINE)
        assert v.passed, (kind, variant, v.reason_codes)
        checks = v.details["checks"]
        assert set(checks) == {"reference", "fail_to_pass", "answer_leak", "required_tools", "reverse_validation"}
        assert all(c["passed"] for c in checks.values())
        rv = checks["reverse_validation"]
        assert rv["confusion"]["fp"] == rv["confusion"]["fn"] == 0 and rv["confusion"]["tn"] >= 3


def test_answer_leak_in_instruction_or_scripted_turn():
    task = task_for(AIRLINE, "update_reservation_baggages", 2)
    secret = str(task.hidden.generation_notes["must_discover"][-1])
    leaky = task.model_copy(update={"visible": task.visible.model_copy(
        update={"user_messages": [f"Yes, use {secret}."]})})
    v = verify_task(leaky, AIRLINE)
    assert "TASK_ANSWER_LEAK" in v.reason_codes and v.details["checks"]["answer_leak"]["leaked_count"] == 1


def test_tool_declared_required_but_not_needed():
    task = task_for(AIRLINE, "cancel_reservation", 1)
    ref = _ref(task)
    ref.insert(1, {"name": "list_all_airports", "arguments": {}})
    padded = _with_hidden(task, reference_solution=[ToolCall(**c) for c in ref],
                          verifier={"required_tools": ["get_user_details", "list_all_airports", "cancel_reservation"]})
    v = verify_task(padded, AIRLINE)
    assert v.reason_codes == ["TASK_TOOL_NOT_REQUIRED", "TASK_VERIFIER_WEAK"]
    assert v.details["checks"]["required_tools"]["not_required"] == ["list_all_airports"]
    # the same fact seen by reverse-validation: skipping the "required" read is no bad mutant
    assert v.details["checks"]["reverse_validation"]["misclassified"] == ["skipped:list_all_airports"]
    # with the default declaration (writes + identity tools) the same task is fine
    assert verify_task(_with_hidden(padded, verifier={}), AIRLINE).passed


def test_a_reference_the_verifier_rejects_makes_the_verifier_weak():
    """A reference that repeats a lookup is itself a bad demonstration: the known-good variants fail."""
    task = task_for(AIRLINE, "send_certificate", 0)
    ref = _ref(task)
    doubled = _with_hidden(task, reference_solution=[ToolCall(**c) for c in [ref[0], *ref]])
    v = verify_task(doubled, AIRLINE)
    assert v.reason_codes == ["TASK_VERIFIER_WEAK"]
    assert "reference" in v.details["checks"]["reverse_validation"]["misclassified"]


def test_refusal_task_fail_to_pass_is_about_the_forbidden_action():
    task = task_for(AIRLINE, "cancel_reservation", 0, "rule:airline.cancel.eligibility")
    assert task.expected_outcome == "refusal"
    assert verify_task(task, AIRLINE).passed
    notes = dict(task.hidden.generation_notes)
    # no forbidden action known and none derivable: the verifier cannot be shown to fail anything
    bare = _with_hidden(task, generation_notes={k: v for k, v in notes.items()
                                                if k not in ("forbidden_calls", "reservation_id")})
    v = verify_task(bare, AIRLINE)
    assert v.reason_codes == ["TASK_NOT_FAIL_TO_PASS"]
    # a "forbidden" call the tools reject changes nothing: not fail-to-pass either
    bogus = _with_hidden(task, generation_notes={**notes, "forbidden_calls": [
        {"name": "cancel_reservation", "arguments": {"reservation_id": "ZZZZZZ"}}]})
    assert verify_task(bogus, AIRLINE).reason_codes == ["TASK_NOT_FAIL_TO_PASS"]
    # a refusal whose reference changes the state is inconsistent
    writes = _ref(task) + notes["forbidden_calls"]
    from pipeline.sandbox import Sandbox
    sb = Sandbox(AIRLINE, task.hidden.initial_state)
    sb.run(writes)
    wrong = _with_hidden(task, reference_solution=[ToolCall(**c) for c in writes], expected_state_hash=sb.state_hash())
    assert "TASK_OUTCOME_INCONSISTENT" in verify_task(wrong, AIRLINE).reason_codes


# ---- trajectory verification: path checks ----------------------------------------------------

def _traj(task, calls, confirm=True, final="All done: your request has been completed."):
    return to_trajectory(task, AIRLINE, Variant("t", True, calls, confirm=confirm, final_text=final))


def test_reference_trajectory_is_clean_and_scores_one():
    task = task_for(AIRLINE, "update_reservation_flights", 2)
    v = verify_trajectory(_traj(task, _ref(task)), task, AIRLINE)
    assert v.passed and v.violations == [] and v.reward == 1.0
    assert v.reward_components["outcome"] == 1.0 and v.reward_components["format_valid"] == 1.0
    assert v.reward_components["tool_calls"] == len(task.hidden.reference_solution)


def test_write_before_identity_has_the_step_index():
    task = task_for(AIRLINE, "cancel_reservation", 2)
    ref = _ref(task)
    calls = [c for c in ref if c["name"] != "get_user_details"] + [ref[0]]  # identity looked up too late
    v = verify_trajectory(_traj(task, calls), task, AIRLINE)
    write_step = next(i for i, c in enumerate(calls) if c["name"] == "cancel_reservation")
    hits = [x for x in v.violations if x["code"] == "TRAJ_WRITE_BEFORE_IDENTITY"]
    assert [h["step"] for h in hits] == [write_step]
    assert v.reward_components["outcome"] == 1.0 and not v.passed
    assert 0 < v.reward < 1.0  # right state, penalized path


def test_confirmation_needs_a_yes_after_the_last_proposal():
    task = task_for(AIRLINE, "update_reservation_passengers", 1)
    ok = _traj(task, _ref(task))
    assert not [x for x in verify_trajectory(ok, task, AIRLINE).violations]
    unconfirmed = _traj(task, _ref(task), confirm=False)
    v = verify_trajectory(unconfirmed, task, AIRLINE)
    assert [x["code"] for x in v.violations] == ["TRAJ_WRITE_WITHOUT_CONFIRMATION"]
    assert v.violations[0]["step"] == len(task.hidden.reference_solution) - 1
    # the customer answers, but says no: still unconfirmed
    msgs = copy.deepcopy(ok.messages)
    i = next(i for i, m in enumerate(msgs) if m["role"] == "user" and m["content"] == "Yes, please go ahead.")
    msgs[i]["content"] = "No, wait, don't do that yet."
    said_no = ok.model_copy(update={"messages": msgs})
    assert "TRAJ_WRITE_WITHOUT_CONFIRMATION" in verify_trajectory(said_no, task, AIRLINE).reason_codes


def test_repeated_calls_and_retry_after_fault():
    task = task_for(AIRLINE, "update_reservation_baggages", 0)
    ref = _ref(task)
    v = verify_trajectory(_traj(task, [ref[0], ref[0], *ref[1:]]), task, AIRLINE)
    assert [(x["code"], x["step"]) for x in v.violations] == [("TRAJ_REPEATED_CALL", 1)]
    # the same read after a write may return something new: no violation
    after = verify_trajectory(_traj(task, [*ref, ref[1]]), task, AIRLINE)
    assert "TRAJ_REPEATED_CALL" not in after.reason_codes
    # a retry after an injected timeout is not a repeat
    t = _traj(task, [ref[0], ref[0], *ref[1:]])
    tcs = copy.deepcopy(t.tool_calls)
    tcs[0]["error"] = "FAULT_TIMEOUT"
    assert "TRAJ_REPEATED_CALL" not in verify_trajectory(t.model_copy(update={"tool_calls": tcs}), task,
                                                         AIRLINE).reason_codes


def test_forbidden_action_names_the_rule():
    task = task_for(AIRLINE, "cancel_reservation", 3, "rule:airline.cancel.eligibility")
    forbidden = task.hidden.generation_notes["forbidden_calls"][0]
    calls = [c for c in _ref(task)] + [forbidden]
    v = verify_trajectory(_traj(task, calls), task, AIRLINE)
    fa = [x for x in v.violations if x["code"] == "TRAJ_FORBIDDEN_ACTION"]
    assert fa and fa[0]["rule_id"] == "airline.cancel.eligibility" and fa[0]["step"] == len(calls) - 1
    assert "TRAJ_WRONG_FINAL_STATE" in v.reason_codes and v.details["state_diff"]
    assert v.reward == 0.0


def test_false_success_claim_and_refusal():
    task = task_for(AIRLINE, "send_certificate", 2)
    lazy = verify_trajectory(_traj(task, _ref(task)[:-1], final="Done! The certificate has been sent."), task, AIRLINE)
    assert "TRAJ_FALSE_SUCCESS_CLAIM" in lazy.reason_codes
    honest = verify_trajectory(_traj(task, _ref(task)[:-1], final="Sorry, I could not send it."), task, AIRLINE)
    assert "TRAJ_FALSE_SUCCESS_CLAIM" not in honest.reason_codes
    refusal = task_for(AIRLINE, "send_certificate", 2, "rule:airline.compensation.limits")
    good = verify_trajectory(_traj(refusal, _ref(refusal), final="I'm sorry, but you are not eligible."), refusal, AIRLINE)
    assert good.passed, good.reason_codes
    silent = verify_trajectory(_traj(refusal, _ref(refusal), final="Let me know if there is anything else."),
                               refusal, AIRLINE)
    assert silent.reason_codes == ["TRAJ_NO_REFUSAL"]


def test_transfer_task_needs_the_transfer_and_may_say_so():
    task = task_for(AIRLINE, "cancel_reservation", 2, "rule:airline.cancel.unflown")
    assert task.expected_outcome == "transfer"
    t = _traj(task, _ref(task))
    assert t.finish_reason == "transfer"
    msgs = copy.deepcopy(t.messages)
    msgs.insert(-2, {"role": "assistant", "content": "Your case has been passed on to a human agent."})
    v = verify_trajectory(t.model_copy(update={"messages": msgs}), task, AIRLINE)
    assert v.passed, v.reason_codes
    no_transfer = _traj(task, [c for c in _ref(task) if not c["name"].startswith("transfer")],
                        final="Your case has been passed on to a human agent.")
    v = verify_trajectory(no_transfer, task, AIRLINE)
    assert "TRAJ_NO_TRANSFER" in v.reason_codes and "TRAJ_FALSE_SUCCESS_CLAIM" in v.reason_codes


def test_abnormal_end_and_invalid_calls():
    task = task_for(AIRLINE, "cancel_reservation", 5)
    t = _traj(task, _ref(task))
    tcs = copy.deepcopy(t.tool_calls) + [{"step": 9, "name": None, "arguments": None, "valid_json": False,
                                          "error": "bad json"}]
    v = verify_trajectory(t.model_copy(update={"tool_calls": tcs, "finish_reason": "turn_limit"}), task, AIRLINE)
    assert {"TRAJ_TURN_LIMIT", "TRAJ_UNPARSEABLE_CALL"} <= set(v.reason_codes)
    assert v.reward_components["format_valid"] == 0.0 and v.reward_components["tool_calls"] == len(tcs)


# ---- rewards -------------------------------------------------------------------------------------

def test_reward_normalization_and_gate():
    perfect = {"outcome": 1, "format_valid": 1, "violations": 0, "tool_calls": 3, "length": 100}
    assert rewards.combine(perfect, 3) == 1.0
    n = rewards.normalize({**perfect, "violations": 3, "tool_calls": 6, "length": 10 * rewards.length_budget(3)}, 3)
    assert n["violations"] == 0.25 and n["tool_calls"] == 0.5 and n["length"] == pytest.approx(0.1)
    assert rewards.combine({**perfect, "outcome": 0}, 3) == 0.0
    worse = rewards.combine({**perfect, "violations": 1}, 3)
    assert 0 < worse < 1.0 and worse == pytest.approx(1 - rewards.WEIGHTS["violations"] / 2)
    assert abs(sum(rewards.WEIGHTS.values()) - 1.0) < 1e-9


# ---- difficulty band ---------------------------------------------------------------------------

def test_parse_band():
    b = parse_band("0.0,1.0")
    assert b.contains(0.0) and b.contains(1.0)
    rl = parse_band("(0,1)")
    assert not rl.contains(0.0) and not rl.contains(1.0) and rl.contains(0.5)
    assert parse_band("[0.25,1)").contains(0.25)
    for bad in ("1,0", "0.5", "a,b", "0,2"):
        with pytest.raises(ValueError):
            parse_band(bad)


def test_difficulty_band_after_rollouts():
    tv = [TaskVerdict(task_id=t, passed=True, reason_codes=[]) for t in ("easy", "hard", "mid", "none")]
    tv.append(TaskVerdict(task_id="broken", passed=False, reason_codes=["TASK_REFERENCE_FAILED"]))

    def verdicts(task, passes, k):
        return [Verdict(trajectory_id=f"{task}-{i}", task_id=task, passed=i < passes, reason_codes=[])
                for i in range(k)]
    vs = verdicts("easy", 4, 4) + verdicts("hard", 0, 4) + verdicts("mid", 2, 4) + verdicts("broken", 1, 2)
    keep_all = apply_difficulty_band(tv, vs, "0.0,1.0")
    assert [v.passed for v in keep_all] == [True, True, True, True, False]
    rl = apply_difficulty_band(tv, vs, "(0,1)")
    assert [v.reason_codes for v in rl] == [["TASK_TOO_EASY"], ["TASK_TOO_HARD"], [], [], ["TASK_REFERENCE_FAILED"]]
    assert rl[2].details["difficulty"] == {"passes": 2, "k": 4, "pass_rate": 0.5, "band": "(0.0,1.0)"}
    assert "difficulty" not in rl[3].details


# ---- airline rule checks -----------------------------------------------------------------------

def test_airline_rule_violations():
    for kind in AIRLINE.task_kinds:
        t = task_for(AIRLINE, kind, 7)
        assert airline_checks.rule_violations(t.hidden.initial_state, [{**c, "error": None} for c in _ref(t)]) == []
    expected = {"rule:airline.cancel.eligibility": "airline.cancel.eligibility",
                "rule:airline.modify.basic_economy": "airline.modify.basic_economy",
                "rule:airline.modify.baggage": "airline.modify.baggage",
                "rule:airline.compensation.limits": "airline.compensation.limits"}
    for kind in AIRLINE.task_kinds:
        for variant in AIRLINE.variants_for_kind(kind):
            t = task_for(AIRLINE, kind, 7, variant)
            calls = [c for c in _ref(t) if not c["name"].startswith("transfer")] + t.hidden.generation_notes["forbidden_calls"]
            got = {v["rule_id"] for v in airline_checks.rule_violations(t.hidden.initial_state,
                                                                          [{**c, "error": None} for c in calls])}
            want = expected.get(variant, variant.split(":", 1)[1])
            assert want in got, (variant, got)
    # a failed call breaks no rule; an unidentified write breaks the identification rule
    t = task_for(AIRLINE, "cancel_reservation", 7)
    write = _ref(t)[-1]
    assert airline_checks.rule_violations(t.hidden.initial_state, [{**write, "error": "TOOL_ERROR"}]) == []
    assert [v["rule_id"] for v in airline_checks.rule_violations(t.hidden.initial_state, [{**write, "error": None}])
            ] == ["airline.general.identify"]


def test_every_verify_reason_code_is_documented():
    codes = set()
    for f in (ROOT / "pipeline" / "verify").glob("*.py"):
        codes |= set(re.findall(r'"((?:TASK|TRAJ)_[A-Z_]+)"', f.read_text()))
    assert codes and codes <= set(REASONS), codes - set(REASONS)
    doc = (ROOT / "docs" / "reason-codes.md").read_text()
    assert all(f"`{c}`" in doc for c in codes)


# ---- CLI -------------------------------------------------------------------------------------------

def test_cli_verify_with_band_and_mutant_trajectories(tmp_path):
    from typer.testing import CliRunner

    from pipeline.cli import app
    from pipeline.ingest import read_jsonl, write_jsonl
    from pipeline.records import TaskVerdict as TV
    from pipeline.records import Verdict as V

    tasks = [task_for(AIRLINE, "cancel_reservation", s) for s in (0, 1)]
    broken = _with_hidden(task_for(AIRLINE, "send_certificate", 0), reference_solution=[])
    broken = broken.model_copy(update={"task_id": "broken"})
    write_jsonl(tasks + [broken], tmp_path / "tasks.jsonl")
    # task 0: every mutant as a rollout (some pass); task 1: only failing mutants (pass rate 0)
    trajs = [to_trajectory(tasks[0], AIRLINE, v, i) for i, v in enumerate(build_variants(tasks[0], AIRLINE))]
    trajs += [to_trajectory(tasks[1], AIRLINE, v, i) for i, v in enumerate(build_variants(tasks[1], AIRLINE))
              if not v.expect_pass]
    write_jsonl(trajs, tmp_path / "trajectories.jsonl")
    r = CliRunner().invoke(app, ["verify", "--work", str(tmp_path), "--difficulty-band", "(0,1)"])
    assert r.exit_code == 0, r.output
    from pipeline.runner import artifact_path

    tv = {v.task_id: v for v in read_jsonl(artifact_path(tmp_path, "task_verdicts_banded"), TV)}
    assert tv[tasks[0].task_id].passed
    assert tv[tasks[1].task_id].reason_codes == ["TASK_TOO_HARD"]
    assert tv["broken"].reason_codes[0] == "TASK_REFERENCE_MISMATCH"
    vs = read_jsonl(artifact_path(tmp_path, "verdicts"), V)
    assert len(vs) == len(trajs) and all(set(v.reward_components) == set(rewards.WEIGHTS) | {"outcome"} for v in vs)
    bad = CliRunner().invoke(app, ["verify", "--work", str(tmp_path), "--difficulty-band", "1,0"])
    assert bad.exit_code == 2 and "difficulty band" in bad.output
    # the task verdicts before the band stay as written (difficulty is a label in a new artifact)
    assert all(not c.startswith("TASK_TOO") for v in read_jsonl(artifact_path(tmp_path, "task_verdicts"), TV)
               for c in v.reason_codes)


def test_judge_prompt_is_visible_text_only_and_never_adds_a_sample():
    from pipeline.verify.judge import judge_prompt, judged_ok, parse_score

    task = task_for(AIRLINE, "cancel_reservation", 0)
    t = _traj(task, _ref(task))
    prompt = judge_prompt(t)
    text = json.dumps(prompt)
    assert task.visible.instruction[:30] in text and "AGENT: All done" in text
    assert task.hidden.expected_state_hash not in text and "tool_call" not in text
    assert parse_score("Score: 4/5") == 4 and parse_score("great") is None
    ok = Verdict(trajectory_id="a", task_id="t", passed=True, reason_codes=[], details={"judge": {"tone_clarity": 2}})
    failed = Verdict(trajectory_id="b", task_id="t", passed=False, reason_codes=["TRAJ_WRONG_FINAL_STATE"],
                     details={"judge": {"tone_clarity": 5}})
    unjudged = Verdict(trajectory_id="c", task_id="t", passed=True, reason_codes=[])
    assert judged_ok([ok, failed, unjudged], min_score=3) == [False, False, True]


# ---- a real teacher --------------------------------------------------------------------------------

@pytest.mark.slow
def test_real_teacher_rollout_is_verified_with_components(teacher):
    """The real model (SmolLM2-135M) on one airline task, k=2, one turn of 24 tokens: the verifier returns a
    verdict with every reward component, violations with in-range step indices, and a reward that
    is 0 unless the outcome is right."""
    from pipeline.rollout.backends import SamplingConfig
    from pipeline.rollout.harness import RolloutConfig, run_rollouts

    task = task_for(AIRLINE, "cancel_reservation", 0)
    cfg = RolloutConfig(k=2, max_turns=1, sampling=SamplingConfig(max_new_tokens=24, temperature=0.7, seed=1))
    trajs = run_rollouts([task], teacher, lambda name: get_domain(name), cfg)
    assert len(trajs) == 2 and sum(t.completion_tokens for t in trajs) > 0
    for t in trajs:
        v = verify_trajectory(t, task, AIRLINE)
        assert set(v.reward_components) == {"outcome", "format_valid", "violations", "tool_calls", "length"}
        assert v.reward_components["length"] == t.completion_tokens
        assert v.reward_components["violations"] == len(v.violations)
        assert all(x["step"] is None or 0 <= x["step"] < len(t.tool_calls) for x in v.violations)
        assert (v.reward > 0) == (v.reward_components["outcome"] == 1.0 and v.reward > 0)
        assert v.reward_components["outcome"] == 1.0 or v.reward == 0.0
        assert v.passed == (not v.reason_codes)
    # the same model as an (optional) judge: a score or None in details, the verdict otherwise unchanged
    from pipeline.verify.judge import judge

    vs = [verify_trajectory(t, task, AIRLINE) for t in trajs]
    judged = judge(trajs, vs, teacher)
    for before, after in zip(vs, judged):
        assert after.details["judge"]["tone_clarity"] in (None, 1, 2, 3, 4, 5)
        assert (after.passed, after.reward, after.reason_codes) == (before.passed, before.reward, before.reason_codes)
