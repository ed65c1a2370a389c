"""The same seeded run gives the same datasets, whichever way it is run: the Prefect flow, the
stage commands one at a time over a work folder, and a rerun that reuses every completed stage
(content hashes of every dataset file compared). A real model generates real tokens."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import yaml

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
    before = {m: m.read_text() for m in (tmp_path / "work-flow").glob("*/*/_SUCCESS.json") if m.parts[-3] != "export"}
    again = trajpipe_run(_cfg(tmp_path, "flow"))
    assert {m: m.read_text() for m in before} == before  # no marker rewritten: nothing rerun
    assert _hashes(tmp_path / "out-flow") == flow
    assert again["stage_signatures"] == flow_manifest["stage_signatures"]  # every stage before export reused
    markers = sorted((tmp_path / "work-flow").glob("*/*/_SUCCESS.json"))
    assert len([m for m in markers if m.parts[-3] != "export"]) == 8  # one output per stage, not two

    # SIGKILL at five points (after anonymize, mid-rollout after the first shard, after trajectory
    # verification, after select, mid-export once a file appears in OUT), each time rerunning the
    # same config over the same work folder; then a last run completes: the datasets equal the
    # uninterrupted run's, finished stages and rollout shards are not redone
    crash = _cfg(tmp_path, "crash")
    work_c, out_c = tmp_path / "work-crash", tmp_path / "out-crash"
    (tmp_path / "crash.yaml").write_text(yaml.safe_dump(crash.dump()))
    points = [lambda: list(work_c.glob("anonymize/*/_SUCCESS.json")),
              lambda: list(work_c.glob("rollout/.*.partial/shard-00000.jsonl")),
              lambda: list(work_c.glob("verify_trajectories/*/_SUCCESS.json")),
              lambda: list(work_c.glob("select/*/_SUCCESS.json")),
              lambda: [p for p in out_c.glob("*") if p.name != "manifest.json"] if out_c.exists() else []]
    killed = 0
    for reached in points:
        if _run_until(tmp_path / "crash.yaml", reached):
            killed += 1
            assert not (out_c / "manifest.json").exists()  # an interrupted export never looks complete
    assert killed >= 4, f"only {killed} of 5 kill points were hit before the run ended"
    trajpipe_run(crash)
    assert _hashes(out_c) == flow
    marker = work_c / "rollout" / (work_c / "rollout" / "latest").read_text().strip() / "_SUCCESS.json"
    assert json.loads(marker.read_text())["stats"]["shards_resumed"] >= 1
    assert len(list(work_c.glob("ingest/*/_SUCCESS.json"))) == 1  # ingest ran once across six runs


def _run_until(config: Path, reached, timeout: float = 900) -> bool:
    """Start `trajpipe run --config CONFIG` in a subprocess and SIGKILL its process group as soon as
    ``reached()`` is truthy; True if killed, False if the run ended first."""
    from prefect.settings import PREFECT_API_URL

    env = dict(os.environ, TRAJPIPE_NO_PROGRESS="1")
    if PREFECT_API_URL.value():  # the session's test server: no ephemeral server start per run
        env["PREFECT_API_URL"] = PREFECT_API_URL.value()
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "run", "--config", str(config)],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.time() + timeout
    while time.time() < deadline and proc.poll() is None:
        if reached():
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return True
        time.sleep(0.05)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise AssertionError("the run neither reached the kill point nor ended in time")
    return False


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
