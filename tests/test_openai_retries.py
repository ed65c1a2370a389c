"""Retries with backoff of the OpenAI-compatible backend against a local HTTP server that fails on
purpose (no model: the unit is the request loop, ``OpenAICompatBackend._post``). The 503 retry,
the non-retryable 400 and exhausted retries are covered with a real teacher in
tests/test_rollout_engine.py; here: ``Retry-After`` is honoured, a timeout and a dropped
connection are retried."""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler

import pytest

from tests.conftest import local_openai_server


class _Flaky(BaseHTTPRequestHandler):
    script: list[str] = []  # what to do with each request, in order; then answer 200
    lock = threading.Lock()

    def log_message(self, *a):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        with self.lock:
            what = type(self).script.pop(0) if type(self).script else "ok"
        if what == "slow":
            time.sleep(1.5)
        if what == "drop":  # close the connection without an answer
            self.close_connection = True
            self.connection.shutdown(2)
            return
        if what == "429":
            body, code, extra = b'{"error": {"message": "rate limited"}}', 429, {"Retry-After": "1"}
        else:
            body, code, extra = json.dumps({"choices": [{"message": {"content": "hi"}}]}).encode(), 200, {}
        self.send_response(code)
        for k, v in {"Content-Type": "application/json", "Content-Length": str(len(body)), **extra}.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def flaky():
    with local_openai_server(_Flaky) as url:
        yield url


def _backend(url, **kw):
    from pipeline.rollout.backends.openai_compat import OpenAICompatBackend

    return OpenAICompatBackend(url, "m", **{"backoff_s": 0.01, **kw})


def test_retry_after_is_honoured(flaky):
    _Flaky.script = ["429"]
    be = _backend(flaky)
    t0 = time.monotonic()
    assert be._post({"model": "m"})["choices"][0]["message"]["content"] == "hi"
    assert time.monotonic() - t0 >= 1.0  # the server's Retry-After: 1, not the 10 ms backoff
    assert be.stats == {"requests": 2, "retries": 1, "failures": 0}
    be.close()


def test_timeouts_and_dropped_connections_are_retried(flaky):
    from pipeline.rollout.backends.openai_compat import OpenAICompatError

    _Flaky.script = ["slow", "drop"]
    be = _backend(flaky, timeout_s=0.5)
    assert be._post({"model": "m"})["choices"][0]["message"]["content"] == "hi"
    assert be.stats == {"requests": 3, "retries": 2, "failures": 0}
    be.close()
    _Flaky.script = ["drop"] * 3
    few = _backend(flaky, max_retries=2)
    with pytest.raises(OpenAICompatError, match="gave up after 3 attempts"):
        few._post({"model": "m"})
    assert few.stats == {"requests": 3, "retries": 2, "failures": 1}
    few.close()
