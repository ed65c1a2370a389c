"""`runner: ray`: the shards of anonymize, synthesize, verify_tasks, rollout and
verify_trajectories run on a local Ray cluster with two workers (Prefect's RayTaskRunner), and the
datasets and every stage's work-folder files equal a local run's with the same seed (bytes)."""
from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
ray = pytest.importorskip("ray", reason="the `ray` extra is not installed (pip install -e '.[ray]')")
pytest.importorskip("prefect_ray", reason="prefect-ray is not installed (pip install -e '.[ray]')")

ROOT = Path(__file__).resolve().parents[1]
SHARDED = ("anonymize", "synthesize", "verify_tasks", "rollout", "verify_trajectories")


def _cfg(tmp: Path, name: str, runner: str):
    from flows.trajpipe_flow import run_config

    # six log records give 3 blueprints, 3 tasks and 3 trajectories: shards of 2 (3 records) make
    # two shards in every sharded stage, one per Ray worker
    return run_config(seed=5, work_dir=str(tmp / f"work-{name}"), runner=runner, ray_workers=2,
                      ingest={"input_path": str(ROOT / "data" / "sample_airline_logs.jsonl"), "limit": 6},
                      anonymize={"shard_records": 3},
                      synthesize={"tasks_per_blueprint": 1, "shard_blueprints": 2},
                      verify={"shard_tasks": 2, "shard_trajectories": 2},
                      rollout={"backend": "transformers", "k": 1, "max_turns": 2, "max_new_tokens": 24,
                               "shard_tasks": 2},
                      export={"out_dir": str(tmp / f"out-{name}")})


def _stage_files(work: Path) -> dict[str, bytes]:
    """Every completed stage's artifact files (not the marker, which holds wall times; not export's,
    whose signature is new each run and whose datasets the manifest's hashes compare)."""
    out = {}
    for f in sorted(work.glob("*/*/*")):
        if f.parent.name.startswith(".") or f.name == "_SUCCESS.json" or f.parent.parent.name == "export":
            continue
        out[f"{f.parent.parent.name}/{f.parent.name}/{f.name}"] = f.read_bytes()
    return out


def _without_logprobs(jsonl: bytes) -> tuple[list, list[float]]:
    """(the trajectories with their turns' logprobs removed, those logprobs in order)."""
    rows, lps = [], []
    for line in jsonl.decode().splitlines():
        t = json.loads(line)
        for turn in t.get("turns") or []:
            lps.extend(turn.pop("logprobs", None) or [])
        rows.append(t)
    return rows, lps


def _marker(work: Path, stage: str) -> dict:
    (marker,) = work.glob(f"{stage}/*/_SUCCESS.json")
    return json.loads(marker.read_text())["stats"]


def test_ray_runner_gives_the_local_datasets(prefect_harness, tmp_path, monkeypatch):
    from flows.trajpipe_flow import trajpipe_run

    monkeypatch.setenv("TRAJPIPE_SECRET", "ray-test")
    # Ray's session folder (logs, sockets) in a scratch folder of its own, removed afterwards, not
    # /tmp/ray; short, since a Unix socket path has at most 107 characters
    ray_tmp = tempfile.mkdtemp(prefix="tpray")
    monkeypatch.setenv("RAY_TMPDIR", ray_tmp)
    local = trajpipe_run(_cfg(tmp_path, "local", "local"))
    try:
        on_ray = trajpipe_run(_cfg(tmp_path, "ray", "ray"))
    finally:
        if ray.is_initialized():
            ray.shutdown()
        shutil.rmtree(ray_tmp, ignore_errors=True)
    assert local["counts"]["rollout"]["trajectories"] >= 2  # more than one shard really ran
    hashes = {n: f["sha256"] for n, f in local["files"].items()}
    assert {n: f["sha256"] for n, f in on_ray["files"].items()} == hashes
    # the work folders: same signatures, same bytes (tasks, verdicts, pseudonymized logs, ...)
    files_local, files_ray = _stage_files(tmp_path / "work-local"), _stage_files(tmp_path / "work-ray")
    assert any(k.startswith("anonymize/") and k.endswith("anonymized.jsonl") for k in files_local)
    assert files_ray.keys() == files_local.keys()
    differ = [k for k in files_local if files_ray[k] != files_local[k]]
    # the one exception: per-token logprobs of the rollouts may differ in the 6th decimal. The
    # transformers backend keeps prefix caches across calls, so a shard rolled out after another
    # one in the same process (the local run) prefills in other pieces than in a fresh Ray worker;
    # the tokens, and every exported dataset (compared above), are the same
    for k in [k for k in differ if k.startswith("rollout/") and k.endswith("/trajectories.jsonl")]:
        a, b = (_without_logprobs(f[k]) for f in (files_local, files_ray))
        assert a[0] == b[0], k  # everything but the logprobs: identical
        assert len(a[1]) == len(b[1]) and all(abs(x - y) <= 1e-4 for x, y in zip(a[1], b[1])), k
        differ.remove(k)
    assert differ == []
    for stage in SHARDED:
        # locally every shard ran in the stage (anonymize: none, it is one in-order pass) ...
        here = _marker(tmp_path / "work-local", stage)
        assert here["shards"] >= 2 and here["shards_resumed"] == 0, (stage, here)
        # ... on Ray the workers ran them all: the stage found every shard done and only merged
        stats = _marker(tmp_path / "work-ray", stage)
        assert stats["shards"] == here["shards"] and stats["shards_resumed"] == stats["shards"], (stage, stats)
    # no scratch folder is left behind once a stage is complete
    assert list((tmp_path / "work-ray").glob("*/.*.partial")) == []
