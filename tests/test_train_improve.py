"""``trajpipe improve`` (flows/improve_flow.py): the expert-iteration loop, for real except each
round's data.

Each round's datasets normally come from the run flow (``run_round_data``, the one call of
``flows.trajpipe_flow.trajpipe_run``), whose rollouts of the bundled teacher take many minutes on a
CPU; here that one function is replaced by a real export of the library domain
(tests/test_train_data.py) that records the teacher and held-out blueprints it was asked for.
Training (one real LoRA step per round) and evaluation (real rollouts of each model through the
harness, verified) run as in production, inside the Prefect flow.
"""
from __future__ import annotations

import json
import os

import pytest

from tests.test_train_data import HOLDOUT_KIND, library_export

from tests.conftest import AIRLINE_LOGS

pytestmark = pytest.mark.slow
pytest.importorskip("trl", reason="`trl` not installed: pip install -e '.[train]'")
pytest.importorskip("peft", reason="`peft` not installed: pip install -e '.[train]'")

HOLDOUT = f"library-{HOLDOUT_KIND}"


def test_improve_rounds_train_on_the_teachers_rows_and_evaluate_the_same_holdout(prefect_harness, tmp_path,
                                                                                  monkeypatch):
    from flows import improve_flow

    asked: list[dict] = []

    def fake_round(config):
        asked.append({"out": config.export.out_dir, "model": config.rollout.model,
                      "holdout": config.export.holdout_list(), "seed": config.seed, "work": config.work_dir,
                      "split_by": config.export.split_by, "backend": config.rollout.backend, "k": config.rollout.k})
        library_export(config.export.out_dir, holdout=tuple(config.export.holdout_list()))
        return json.loads(open(os.path.join(config.export.out_dir, "manifest.json")).read())

    monkeypatch.setattr(improve_flow, "run_round_data", fake_round)
    out = tmp_path / "improve"
    summary = improve_flow.trajpipe_improve(
        input_path="logs.jsonl", out_dir=str(out), rounds=2, holdout_blueprints=HOLDOUT, seed=3, eval_k=1,
        eval_limit=1, eval_splits=("holdout",), train={"max_steps": 1, "max_rows": 1, "learning_rate": 1e-3},
        run_options={"backend": "transformers", "k": 2})

    # round r's teacher is round r-1's model; every round holds out the same blueprint
    assert [a["model"] for a in asked] == [None, str(out / "round-1" / "model")]
    assert all(a["holdout"] == [HOLDOUT] and a["seed"] == 3 for a in asked)
    assert all(a["split_by"] == "blueprint" and a["backend"] == "transformers" and a["k"] == 2 for a in asked)
    assert [a["work"] for a in asked] == [str(out / "round-1" / "work"), str(out / "round-2" / "work")]
    assert [m["name"] for m in summary["models"]] == ["base", "round 1", "round 2"]
    assert summary["holdout_blueprints"] == [HOLDOUT] and not summary["holdout_auto"]
    for m in summary["models"]:
        ev = m["eval"]["holdout"]
        assert ev["tasks"] == 1 and ev["rollouts"] == 1 and list(ev["per_blueprint"]) == [HOLDOUT]
        assert 0.0 <= ev["pass_at_1"] <= 1.0
    for name in ("base", "round-1", "round-2"):
        res = json.loads((out / name / "eval-holdout.json").read_text())
        assert res["hints"] == "none" and res["data"] == str(out / "round-1" / "data")  # the same eval tasks
    # STaR: each round fine-tunes the base, on rows of the round's teacher
    for r in (1, 2):
        log = json.loads((out / f"round-{r}" / "model" / "train_log.json").read_text())
        assert log["base_model"].startswith("SmolLM2-135M-Instruct") and log["optimizer_steps"] == 1
        assert log["data"] == str(out / f"round-{r}" / "data")
    saved = json.loads((out / "improve.json").read_text())
    assert saved["holdout_blueprints"] == [HOLDOUT] and len(saved["models"]) == 3
    report = (out / "README.md").read_text()
    assert HOLDOUT in report and "| round 2 |" in report and "held-out pass@1" in report


def test_automatic_holdout_names_three_blueprints_with_verified_tasks(shared_data, tmp_path, monkeypatch):
    """The automatic choice sees the blueprints the round's run will see: that run's own stages up to
    task verification, in its work folder (real logs, real stages), which round 1 then reuses."""
    from flows.improve_flow import choose_holdout, round_config
    from pipeline.runner import Runner

    monkeypatch.setenv("TRAJPIPE_SECRET", "improve-test")  # as improve sets one: anonymize is reusable

    def cfg(limit):
        return round_config(str(AIRLINE_LOGS), str(tmp_path / "data"), str(tmp_path / "work"), None, [], 0,
                            {"limit": limit, "tasks_per_blueprint": 1})

    chosen = choose_holdout(cfg(12), 3)
    assert len(chosen) == 3 == len(set(chosen)) and all(c.startswith("airline-") for c in chosen)
    assert chosen == choose_holdout(cfg(12), 3)  # seeded, stable (and the stages are reused)
    runner = Runner(cfg(12))
    assert all(runner.latest(s) for s in ("ingest", "anonymize", "blueprints", "synthesize", "verify_tasks"))
    with pytest.raises(ValueError, match="need at least"):
        choose_holdout(cfg(2), 3)
