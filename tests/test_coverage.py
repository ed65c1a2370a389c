"""Skill coverage report (blueprint x skill matrix, skill pairs) and the CLI that prints it."""
import itertools
import json

import pytest
from typer.testing import CliRunner

from pipeline.blueprints import extract_blueprints
from pipeline.cli import app
from pipeline.coverage import coverage, coverage_tables
from pipeline.domains import get_domain
from pipeline.ingest import ingest
from pipeline.skills import SKILLS, outcome_skills, parse_skill_list
from pipeline.synthesize import synthesize
from tests.conftest import AIRLINE_LOGS


@pytest.fixture(scope="module")
def bps_tasks(shared_data):
    bps = extract_blueprints(ingest(AIRLINE_LOGS).records, get_domain("airline"))
    return bps, synthesize(bps, get_domain, n_per_blueprint=2, seed=1).tasks


def test_blueprint_coverage_matrix_shape_and_pairs(bps_tasks):
    bps, _ = bps_tasks
    rep = coverage(bps)
    assert rep["unit"] == "blueprint" and rep["n_units"] == len(bps)
    assert rep["skills"] == list(SKILLS) and rep["blueprints"] == [b.blueprint_id for b in bps]
    assert len(rep["matrix"]) == len(bps) and all(len(r) == len(SKILLS) for r in rep["matrix"])
    for b, row in zip(bps, rep["matrix"]):
        assert [s for s, c in zip(SKILLS, row) if c] == [s for s in SKILLS if s in b.skills]
    assert len(rep["pairs"]) == len(SKILLS) * (len(SKILLS) - 1) // 2
    for a, c in itertools.combinations(SKILLS, 2):
        expect = sum(1 for b in bps if a in b.skills and c in b.skills)
        assert rep["pairs"][f"{a}+{c}"] == expect
    counts = [p["count"] for p in rep["rare_pairs"]]
    assert counts == sorted(counts) and all(n > 0 for n in counts)
    assert rep["uncovered_skills"] == [s for s in SKILLS if rep["skill_totals"][s] == 0]


def test_task_coverage_counts_tasks_and_target_skills_raise_rare_pairs(bps_tasks):
    bps, tasks = bps_tasks
    rep = coverage(bps, tasks)
    assert rep["unit"] == "task" and rep["n_units"] == len(tasks)
    assert sum(map(sum, rep["matrix"])) == sum(len(t.skills) for t in tasks)
    for s in SKILLS:
        assert rep["skill_totals"][s] == sum(s in t.skills for t in tasks)
    more = synthesize(bps, get_domain, n_per_blueprint=2, seed=1, target_skills=["transfer", "cancellation"]).tasks
    rep2 = coverage(bps, more)
    assert rep2["pairs"]["cancellation+transfer"] > rep["pairs"]["cancellation+transfer"]
    assert len(coverage_tables(rep2)) == 2


def test_unknown_skills_are_rejected(bps_tasks):
    bps, tasks = bps_tasks
    bad = tasks[0].model_copy(update={"skills": ["flying"]})
    with pytest.raises(ValueError, match="unknown skill ids"):
        coverage(bps, [bad])
    with pytest.raises(ValueError, match="unknown skill ids"):
        parse_skill_list("refusal, flying")
    assert parse_skill_list("refusal, transfer") == ["refusal", "transfer"]
    assert outcome_skills(["identity_lookup", "cancellation", "confirmation"], "refusal") == [
        "identity_lookup", "policy_reading", "cancellation", "refusal"]


def test_cli_blueprints_and_synthesize_write_catalog_and_coverage(tmp_path, shared_data):
    """ingest -> anonymize (real presidio) -> blueprints -> synthesize --target-skills on 16 real logs."""
    run = CliRunner().invoke
    w = str(tmp_path / "w")
    r = run(app, ["ingest", "--input", str(AIRLINE_LOGS), "--work", w, "--limit", "16"])
    assert r.exit_code == 0, r.output
    r = run(app, ["anonymize", "--work", w])
    assert r.exit_code == 0, r.output
    r = run(app, ["blueprints", "--work", w])
    assert r.exit_code == 0, r.output
    from pipeline.runner import artifact_path

    cat = json.loads(artifact_path(w, "catalog").read_text())
    assert sum(row["size"] for row in cat) == 16 and all(set(row["skills"]) <= set(SKILLS) for row in cat)
    cov = json.loads(artifact_path(w, "coverage").read_text())
    assert cov["unit"] == "blueprint" and len(cov["matrix"]) == len(cat)
    assert "blueprint catalog" in r.output and "coverage" in r.output
    r = run(app, ["synthesize", "--work", w, "-n", "1", "--target-skills", "refusal,cancellation"])
    assert r.exit_code == 0, r.output
    tasks = [json.loads(line) for line in artifact_path(w, "tasks").read_text().splitlines()]
    assert any({"refusal", "cancellation"} <= set(t["skills"]) for t in tasks)
    assert json.loads(artifact_path(w, "task_coverage").read_text())["unit"] == "task"
    assert json.loads(artifact_path(w, "coverage").read_text())["unit"] == "blueprint"  # kept
    r = run(app, ["synthesize", "--work", w, "--target-skills", "refusal,flying"])
    assert r.exit_code != 0 and "unknown skill ids" in r.output
