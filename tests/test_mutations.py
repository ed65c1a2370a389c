"""Mutation suite: the trajectory verifier must classify known-good and known-bad trajectories,
built by perturbing reference solutions (pipeline/verify/mutations.py), for every task kind and
rule-decided variant of every registered domain and for every blueprint of the real airline logs.

Run with ``-s`` to see the confusion counts (positive = the verifier passed the trajectory).
"""
from __future__ import annotations

import json
from collections import Counter

import pytest

from pipeline.domains import get_domain, known_domains
from pipeline.sandbox import Sandbox
from pipeline.verify import verify_trajectory
from pipeline.verify.mutations import build_variants, kinds_and_variants, task_for, to_trajectory

SEEDS = (0, 1)

#: The check each mutant class must trip (a wrong verdict for the right reason is not enough:
#: the suite also asserts *why* the verifier failed it).
EXPECTED_CODE = {
    "wrong_argument": {"TRAJ_WRONG_FINAL_STATE"},
    "extra_write": {"TRAJ_WRONG_FINAL_STATE"},
    "no_confirmation": {"TRAJ_WRITE_WITHOUT_CONFIRMATION"},
    "forbidden_action": {"TRAJ_WRONG_FINAL_STATE"},
    "do_nothing": {"TRAJ_WRONG_FINAL_STATE", "TRAJ_NO_REFUSAL", "TRAJ_NO_TRANSFER", "TRAJ_FALSE_SUCCESS_CLAIM"},
}


def _classify(task, domain, confusion: Counter, per_label: Counter, wrong: list) -> None:
    for i, v in enumerate(build_variants(task, domain)):
        verdict = verify_trajectory(to_trajectory(task, domain, v, i), task, domain)
        key = ("tp" if verdict.passed else "fn") if v.expect_pass else ("fp" if verdict.passed else "tn")
        confusion[key] += 1
        per_label[(v.label.split(":")[0], key)] += 1
        if verdict.passed != v.expect_pass:
            wrong.append((task.task_id, v.label, verdict.reason_codes))
            continue
        label = v.label.split(":")[0]
        if not v.expect_pass and label in EXPECTED_CODE:
            assert EXPECTED_CODE[label] & set(verdict.reason_codes), (task.task_id, v.label, verdict.reason_codes)
        if label == "skipped" and v.label.split(":")[1] in (getattr(domain, "identity_tools", None) or ()):
            assert {"TRAJ_WRITE_BEFORE_IDENTITY", "TRAJ_FORBIDDEN_ACTION"} & set(verdict.reason_codes)


@pytest.mark.parametrize("domain_name", known_domains())
def test_every_kind_and_variant_is_classified(domain_name):
    domain = get_domain(domain_name)
    confusion, per_label, wrong = Counter(), Counter(), []
    n_tasks = 0
    for kind, variant in kinds_and_variants(domain):
        for seed in SEEDS:
            task = task_for(domain, kind, seed, variant)
            _classify(task, domain, confusion, per_label, wrong)
            n_tasks += 1
    print(f"\n[{domain_name}] {n_tasks} tasks, confusion {dict(confusion)}")
    print(json.dumps({f"{lab}/{k}": n for (lab, k), n in sorted(per_label.items())}, indent=None))
    assert not wrong, wrong[:10]
    assert confusion["fp"] == confusion["fn"] == 0
    # the suite has teeth: it exercised both sides, several mutant classes per domain
    assert confusion["tp"] >= n_tasks and confusion["tn"] >= 2 * n_tasks
    labels = {lab for lab, _ in per_label}
    assert {"reference", "do_nothing"} <= labels
    if any(variant is None for _, variant in kinds_and_variants(domain)):
        assert "wrong_argument" in labels and "no_confirmation" in labels


def test_real_airline_blueprints_are_classified(shared_data):
    """Every blueprint of the real airline logs (via ingest -> blueprints -> synthesize)."""
    from pipeline.blueprints import extract_blueprints
    from pipeline.ingest import ingest
    from pipeline.synthesize import synthesize
    from tests.conftest import AIRLINE_LOGS

    domain = get_domain("airline")
    bps = extract_blueprints(ingest(AIRLINE_LOGS).records, domain)
    tasks = synthesize(bps, get_domain, n_per_blueprint=1, seed=5).tasks
    assert len({t.blueprint_id for t in tasks}) >= 5
    confusion, per_label, wrong = Counter(), Counter(), []
    for task in tasks:
        _classify(task, domain, confusion, per_label, wrong)
    print(f"\n[airline real blueprints] {len({t.blueprint_id for t in tasks})} blueprints, {len(tasks)} tasks, "
          f"confusion {dict(confusion)}")
    assert not wrong, wrong[:10]
    assert confusion["tn"] > confusion["tp"] >= len(tasks)


def test_a_state_only_verifier_would_fail_the_suite():
    """The suite can fail: judged by the final state hash alone (the old verifier), the path
    mutants (no confirmation, identity skipped) of an action task pass and would be misclassified."""
    domain = get_domain("airline")
    task = task_for(domain, "cancel_reservation", 0)
    misclassified = []
    for v in build_variants(task, domain):
        traj = to_trajectory(task, domain, v)
        state_only_pass = traj.final_state_hash == task.hidden.expected_state_hash
        if state_only_pass != v.expect_pass:
            misclassified.append(v.label)
    assert "no_confirmation" in misclassified and "skipped:get_user_details" in misclassified


def test_mutants_really_differ_from_the_reference():
    domain = get_domain("airline")
    task = task_for(domain, "update_reservation_baggages", 3)
    variants = {v.label: v for v in build_variants(task, domain)}
    ref = variants["reference"].calls
    assert variants["wrong_argument"].calls != ref
    assert len(variants["extra_write"].calls) == len(ref) + 1
    assert variants["do_nothing"].calls == []
    assert variants["no_confirmation"].calls == ref and not variants["no_confirmation"].confirm
    # the reordered variant is a real permutation that reaches the same state
    reo = variants["reordered"].calls
    assert reo != ref and sorted(map(json.dumps, reo)) == sorted(map(json.dumps, ref))
    sb = Sandbox(domain, task.hidden.initial_state)
    sb.run(reo)
    assert sb.state_hash() == task.hidden.expected_state_hash
