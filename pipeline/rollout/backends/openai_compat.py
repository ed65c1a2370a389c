"""OpenAI-compatible HTTP backend: any server speaking ``POST /v1/chat/completions`` (for example
``vllm serve``, SGLang, TGI, llama.cpp's server, a hosted API).

Requests run on a thread pool of at most ``max_concurrency`` in flight (one batched
``generate`` = one request per prompt, answered in order). Each request is retried with
exponential backoff and jitter on HTTP 429, 5xx, timeouts and connection errors (honouring a
``Retry-After`` header), at most ``max_retries`` times; other 4xx errors raise at once.

Protocol details used (all optional for the server; missing fields degrade gracefully):

* forced prefix: the prefix is sent as a final ``assistant`` message with
  ``continue_final_message: true, add_generation_prompt: false`` (vLLM's chat API extension);
* ``logprobs: true`` -> ``choices[0].logprobs.content[i].logprob`` (OpenAI format);
* ``return_token_ids: true`` -> ``prompt_token_ids`` and ``choices[0].token_ids`` (vLLM >= 0.10.2);
* grammars (:mod:`pipeline.rollout.grammar`): ``structured_outputs: {"structural_tag": ...}``
  (vLLM's XGrammar structural tags, the same grammar the local backends apply); ignored by others,
  whose calls the harness still parses and the verifier still checks;
* ``stop: ["</tool_call>"]`` with ``include_stop_str_in_output: true`` (vLLM) so a turn ends at
  its first closed tool call.
"""
from __future__ import annotations

import os
import random
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from pipeline.rollout.backends.base import Generation, SamplingConfig

RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class OpenAICompatError(RuntimeError):
    """A request that failed for good: a non-retryable status or retries exhausted."""


class OpenAICompatBackend:
    """``OpenAICompatBackend(base_url, model, api_key=None, max_concurrency=8, timeout_s=120,
    max_retries=5, backoff_s=0.5)``.

    ``base_url`` is the server root up to ``/v1`` (e.g. ``http://localhost:8000/v1``); ``model``
    the served model name. ``api_key`` is sent as a Bearer token (read it from an environment
    variable with :meth:`from_env`; it is never logged). ``stats`` counts requests and retries.
    Raises ValueError for a bad base URL or ``max_concurrency < 1``.
    """

    name = "openai"

    def __init__(self, base_url: str, model: str, api_key: str | None = None, max_concurrency: int = 8,
                 timeout_s: float = 120.0, max_retries: int = 5, backoff_s: float = 0.5,
                 stop: tuple[str, ...] = ("</tool_call>",)):
        import httpx

        if not re.match(r"^https?://", base_url or ""):
            raise ValueError(f"--base-url must start with http:// or https://, got {base_url!r}")
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be >= 1")
        self.base_url = base_url.rstrip("/")
        self.model_id = model
        self.max_concurrency = max_concurrency
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.stop = list(stop)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(base_url=self.base_url, headers=headers, timeout=timeout_s,
                                    limits=httpx.Limits(max_connections=max_concurrency))
        self._pool = ThreadPoolExecutor(max_workers=max_concurrency, thread_name_prefix="openai-compat")
        self._stats_lock = threading.Lock()
        self.stats = {"requests": 0, "retries": 0, "failures": 0}

    @classmethod
    def from_env(cls, base_url: str, model: str, api_key_env: str | None = "OPENAI_API_KEY",
                 **kwargs) -> "OpenAICompatBackend":
        """Build with the API key read from environment variable ``api_key_env`` (may be unset)."""
        key = os.environ.get(api_key_env) if api_key_env else None
        return cls(base_url, model, api_key=key, **kwargs)

    def close(self) -> None:
        """Close the HTTP client and the thread pool."""
        self._pool.shutdown(wait=True)
        self._client.close()

    def _count(self, key: str) -> None:
        with self._stats_lock:
            self.stats[key] += 1

    def _payload(self, messages: list[dict[str, Any]], prefix: str | None, sampling: SamplingConfig,
                 grammar: str | None, seed: int, tools: list[dict[str, Any]] | None) -> dict[str, Any]:
        msgs = list(messages)
        body: dict[str, Any] = {
            "model": self.model_id, "max_tokens": sampling.max_new_tokens, "temperature": sampling.temperature,
            "top_p": sampling.top_p if sampling.temperature > 0 else 1.0, "seed": seed, "n": 1,
            "logprobs": True, "return_token_ids": True, "stop": self.stop, "include_stop_str_in_output": True,
        }
        if prefix:
            msgs.append({"role": "assistant", "content": prefix})
            body.update(continue_final_message=True, add_generation_prompt=False)
        if grammar:
            body["structured_outputs"] = {"structural_tag": grammar}
        if tools:
            body["tools"] = tools
        body["messages"] = msgs
        return body

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        """POST with retries on 429/5xx/timeouts/connection errors (exponential backoff, jitter)."""
        import httpx

        attempt = 0
        while True:
            self._count("requests")
            try:
                r = self._client.post("/chat/completions", json=body)
                if r.status_code < 400:
                    return r.json()
                if r.status_code not in RETRY_STATUS:
                    raise OpenAICompatError(f"HTTP {r.status_code} from {self.base_url}: {r.text[:300]}")
                err: Exception = OpenAICompatError(f"HTTP {r.status_code} from {self.base_url}: {r.text[:200]}")
                retry_after = r.headers.get("retry-after")
            except (httpx.TimeoutException, httpx.TransportError) as exc:
                err, retry_after = exc, None
            if attempt >= self.max_retries:
                self._count("failures")
                raise OpenAICompatError(f"gave up after {attempt + 1} attempts: {err}") from err
            delay = self.backoff_s * (2 ** attempt) * (0.5 + random.random())
            if retry_after:
                try:
                    delay = max(delay, float(retry_after))
                except ValueError:
                    pass
            self._count("retries")
            attempt += 1
            time.sleep(delay)

    @staticmethod
    def _generation(resp: dict[str, Any], prefix: str | None) -> Generation:
        ch = (resp.get("choices") or [{}])[0]
        msg = ch.get("message") or {}
        text = msg.get("content") or ""
        if prefix and text.startswith(prefix):  # some servers echo the continued message
            text = text[len(prefix):]
        usage = resp.get("usage") or {}
        ids = list(ch.get("token_ids") or [])
        lps = [float(t.get("logprob", 0.0)) for t in ((ch.get("logprobs") or {}).get("content") or [])]
        finish = ch.get("finish_reason") or "stop"
        return Generation(text=text, prompt_tokens=int(usage.get("prompt_tokens") or len(resp.get("prompt_token_ids") or [])),
                          completion_tokens=int(usage.get("completion_tokens") or len(ids) or len(lps)),
                          finish_reason="length" if finish == "length" else "stop", token_ids=ids, logprobs=lps,
                          prompt_token_ids=list(resp.get("prompt_token_ids") or []))

    def generate(self, prompts: list[list[dict[str, Any]]], prefixes: list[str | None],
                 sampling: SamplingConfig, grammars: list[str | None] | None = None,
                 tools: list[list[dict[str, Any]] | None] | None = None) -> list[Generation]:
        """One request per prompt, at most ``max_concurrency`` in flight; results in order.
        Request i is seeded ``sampling.seed + i``. Raises OpenAICompatError when a request fails
        for good (the harness then ends the live episodes with ``error``)."""
        grammars = grammars or [None] * len(prompts)
        tools = tools or [None] * len(prompts)
        bodies = [self._payload(p, x, sampling, g, sampling.seed + i, t)
                  for i, (p, x, g, t) in enumerate(zip(prompts, prefixes, grammars, tools))]
        resps = list(self._pool.map(self._post, bodies))
        return [self._generation(r, x) for r, x in zip(resps, prefixes)]
