"""`runner: ray`: rollout shards run on a local Ray cluster with two workers (Prefect's
RayTaskRunner) and the datasets equal a local run's with the same seed (content hashes)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
ray = pytest.importorskip("ray", reason="the `ray` extra is not installed (pip install -e '.[ray]')")
pytest.importorskip("prefect_ray", reason="prefect-ray is not installed (pip install -e '.[ray]')")

ROOT = Path(__file__).resolve().parents[1]


def _cfg(tmp: Path, name: str, runner: str):
    from flows.trajpipe_flow import run_config

    return run_config(seed=5, work_dir=str(tmp / f"work-{name}"), runner=runner, ray_workers=2,
                      ingest={"input_path": str(ROOT / "data" / "sample_airline_logs.jsonl"), "limit": 6},
                      synthesize={"tasks_per_blueprint": 1},
                      rollout={"backend": "transformers", "k": 1, "max_turns": 2, "max_new_tokens": 24,
                               "shard_tasks": 1},
                      export={"out_dir": str(tmp / f"out-{name}")})


def test_ray_runner_gives_the_local_datasets(prefect_harness, tmp_path, monkeypatch):
    from flows.trajpipe_flow import trajpipe_run

    monkeypatch.setenv("TRAJPIPE_SECRET", "ray-test")
    local = trajpipe_run(_cfg(tmp_path, "local", "local"))
    try:
        on_ray = trajpipe_run(_cfg(tmp_path, "ray", "ray"))
    finally:
        if ray.is_initialized():
            ray.shutdown()
    assert local["counts"]["rollout"]["trajectories"] >= 2  # more than one shard really ran
    hashes = {n: f["sha256"] for n, f in local["files"].items()}
    assert {n: f["sha256"] for n, f in on_ray["files"].items()} == hashes
    # the shards were rolled out by the Ray workers: the rollout stage found them all done
    (marker,) = (tmp_path / "work-ray").glob("rollout/*/_SUCCESS.json")
    stats = json.loads(marker.read_text())["stats"]
    assert stats["shards"] >= 2 and stats["shards_resumed"] == stats["shards"]
