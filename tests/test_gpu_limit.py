"""`rollout.gpu_concurrency_limit`: a rollout shard on the vllm backend holds one slot of a Prefect
global concurrency limit while it runs (real Prefect server: the session's test harness).

The unit under test is the limiter (``flows.trajpipe_flow.shard_task`` and ``gpu_slot``), so the
shard's body (``run_one_shard``, which would load a vLLM engine) is replaced by a fake that waits
up to 5 s for the other shard to start and records when it ran; no engine is loaded. Two shards
are submitted at once to a thread pool of two workers: with a limit of 1 they run one after the
other, with a limit of 2 (the control) they overlap."""
from __future__ import annotations

import threading
import time
import uuid

import pytest


def _limit(limit: int) -> str:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import GlobalConcurrencyLimitCreate

    name = f"gpu-{uuid.uuid4().hex[:8]}"
    with get_client(sync_client=True) as client:
        client.create_global_concurrency_limit(GlobalConcurrencyLimitCreate(name=name, limit=limit))
    return name


def _two_shards(monkeypatch, backend: str, limit_name):
    """Run two rollout shard tasks concurrently; returns their (start, end) intervals, sorted."""
    import flows.trajpipe_flow as fl
    from prefect import flow
    from prefect.task_runners import ThreadPoolTaskRunner

    cfg = fl.run_config(rollout={"backend": backend, "gpu_concurrency_limit": limit_name})
    intervals, started = [], threading.Condition()
    n_started = [0]

    def fake_shard(name, config, sig, index):
        # hold the shard until the other one has started too (at most 5 s): under a limit of 1
        # the other cannot start, so the two never overlap; without one they surely do
        t0 = time.monotonic()
        with started:
            n_started[0] += 1
            started.notify_all()
            started.wait_for(lambda: n_started[0] >= 2, timeout=5)
        time.sleep(0.2)
        with started:
            intervals.append((t0, time.monotonic()))
        return True

    monkeypatch.setattr(fl, "run_one_shard", fake_shard)

    @flow(task_runner=ThreadPoolTaskRunner(max_workers=2), persist_result=False)
    def two():
        futures = [fl.shard_task.submit("rollout", cfg, "0" * 16, i) for i in range(2)]
        return [f.result() for f in futures]

    assert two() == [0, 1]
    return sorted(intervals)


def _overlap(intervals) -> bool:
    (_s0, e0), (s1, _e1) = intervals
    return s1 < e0


def test_a_gpu_limit_of_one_serializes_vllm_rollout_shards(prefect_harness, monkeypatch):
    one = _two_shards(monkeypatch, "vllm", _limit(1))
    assert not _overlap(one), one
    # control: the same two shards under a limit of 2 run at the same time
    two = _two_shards(monkeypatch, "vllm", _limit(2))
    assert _overlap(two), two


def test_the_limit_applies_to_gpu_backends_only(prefect_harness, monkeypatch):
    from flows.trajpipe_flow import gpu_slot_needed, run_config

    # transformers runs on the CPU here: no slot is taken, the shards overlap under a limit of 1
    assert _overlap(_two_shards(monkeypatch, "transformers", _limit(1)))
    assert gpu_slot_needed(run_config(rollout={"backend": "vllm", "gpu_concurrency_limit": "gpu"}), "rollout")
    assert not gpu_slot_needed(run_config(rollout={"backend": "vllm", "gpu_concurrency_limit": "gpu"}), "synthesize")
    assert not gpu_slot_needed(run_config(rollout={"backend": "vllm"}), "rollout")


def test_a_missing_limit_fails_instead_of_running_unlimited(prefect_harness, monkeypatch):
    with pytest.raises(Exception, match="must be created before acquiring slots"):
        _two_shards(monkeypatch, "vllm", f"no-such-limit-{uuid.uuid4().hex[:6]}")
