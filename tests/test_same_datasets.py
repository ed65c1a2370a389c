"""The same seeded run gives the same datasets, whichever way it is run: the Prefect flow, the
stage commands one at a time over a work folder, and a rerun that reuses every completed stage
(content hashes of every dataset file compared). A real model generates real tokens."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "sample_airline_logs.jsonl"
OPTS = {"limit": 6, "tasks_per_blueprint": 1, "k": 1, "max_turns": 2, "max_new_tokens": 24}


def _hashes(out: Path) -> dict[str, str]:
    m = json.loads((out / "manifest.json").read_text())
    return {name: f["sha256"] for name, f in m["files"].items()}


def _cfg(tmp: Path, name: str):
    from flows.trajpipe_flow import run_config

    return run_config(seed=3, work_dir=str(tmp / f"work-{name}"),
                      ingest={"input_path": str(SAMPLE), "limit": OPTS["limit"]},
                      synthesize={"tasks_per_blueprint": OPTS["tasks_per_blueprint"]},
                      rollout={"backend": "transformers", "k": OPTS["k"], "max_turns": OPTS["max_turns"],
                               "max_new_tokens": OPTS["max_new_tokens"], "shard_tasks": 1},
                      export={"out_dir": str(tmp / f"out-{name}")})


def test_flow_stage_commands_and_resume_give_identical_datasets(prefect_harness, tmp_path, monkeypatch):
    from flows.trajpipe_flow import trajpipe_run
    from pipeline.cli import app

    monkeypatch.setenv("TRAJPIPE_SECRET", "same-datasets-test")
    flow_manifest = trajpipe_run(_cfg(tmp_path, "flow"))
    flow = _hashes(tmp_path / "out-flow")
    assert flow_manifest["reproducible"] is True
    assert flow_manifest["counts"]["rollout"]["trajectories"] >= 1  # the teacher really ran
    assert {"sft", "rl", "steps", "tasks", "blueprints", "rejects", "groups"} <= set(flow)

    # the same config, stage by stage, in a fresh work folder
    work, out = tmp_path / "work-cli", tmp_path / "out-cli"
    common = ["--work", str(work), "--seed", "3"]
    steps = [["ingest", "--input", str(SAMPLE), "--limit", str(OPTS["limit"])], ["anonymize"], ["blueprints"],
             ["synthesize", "--tasks-per-blueprint", str(OPTS["tasks_per_blueprint"])], ["verify"],
             ["rollout", "--backend", "transformers", "--k", str(OPTS["k"]), "--max-turns", str(OPTS["max_turns"]),
              "--max-new-tokens", str(OPTS["max_new_tokens"]), "--shard-tasks", "1"], ["verify"],
             ["export", "--out", str(out)]]
    for step in steps:
        r = CliRunner().invoke(app, step + common)
        assert r.exit_code == 0, (step, r.output)
    assert _hashes(out) == flow

    # a rerun of the flow over its own work folder reuses every stage before export
    again = trajpipe_run(_cfg(tmp_path, "flow"))
    assert _hashes(tmp_path / "out-flow") == flow
    assert again["stage_signatures"] == flow_manifest["stage_signatures"] | {"export": again["stage_signatures"]["export"]}
    markers = sorted((tmp_path / "work-flow").glob("*/*/_SUCCESS.json"))
    assert len([m for m in markers if m.parts[-3] != "export"]) == 8  # one output per stage, not two

    # SIGKILL mid-rollout (after the first shard is written), then rerun: the finished shard is
    # not rolled out again and the datasets equal the uninterrupted run's
    import os
    import signal
    import subprocess
    import sys
    import time

    import yaml

    crash = _cfg(tmp_path, "crash")
    (tmp_path / "crash.yaml").write_text(yaml.safe_dump(crash.dump()))
    env = dict(os.environ, TRAJPIPE_NO_PROGRESS="1")
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "run", "--config", str(tmp_path / "crash.yaml")],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.time() + 900
    while time.time() < deadline and proc.poll() is None:
        if list((tmp_path / "work-crash" / "rollout").glob(".*.partial/shard-00000.jsonl")):
            break
        time.sleep(0.2)
    assert proc.poll() is None, "the run ended before its first rollout shard was written"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (tmp_path / "out-crash" / "manifest.json").exists()
    assert not list((tmp_path / "work-crash" / "rollout").glob("*/_SUCCESS.json"))  # no half stage looks done
    trajpipe_run(crash)
    assert _hashes(tmp_path / "out-crash") == flow
    (marker,) = (tmp_path / "work-crash" / "rollout").glob("*/_SUCCESS.json")
    assert json.loads(marker.read_text())["stats"]["shards_resumed"] >= 1


def test_a_changed_option_reruns_only_the_stages_it_reaches(tmp_path, monkeypatch):
    """Changing synthesize's option keeps ingest/anonymize/blueprints outputs and gives new
    signatures from synthesize on (no model: stops after task verification)."""
    import pipeline.stages  # noqa: F401
    from pipeline.runner import Runner

    monkeypatch.setenv("TRAJPIPE_SECRET", "same-datasets-test")
    cfg = _cfg(tmp_path, "partial")
    r1 = Runner(cfg)
    first = {n: r1.run(n, run_missing=True).signature for n in ("ingest", "anonymize", "blueprints", "synthesize",
                                                                 "verify_tasks")}
    cfg2 = cfg.model_copy(deep=True)
    cfg2.synthesize.tasks_per_blueprint = 2
    r2 = Runner(cfg2)
    second = {n: r2.run(n, run_missing=True) for n in first}
    assert all(second[n].reused and second[n].signature == first[n] for n in ("ingest", "anonymize", "blueprints"))
    assert not second["synthesize"].reused and second["synthesize"].signature != first["synthesize"]
    assert second["verify_tasks"].signature != first["verify_tasks"]
    assert len(second["synthesize"].outputs["tasks"]) > len(r1.results["synthesize"].outputs["tasks"])
    # without the secret pseudonyms are random: anonymize (and everything after) is never reused
    monkeypatch.delenv("TRAJPIPE_SECRET")
    r3 = Runner(cfg)
    assert r3.run("ingest").reused and not r3.run("anonymize").reused
