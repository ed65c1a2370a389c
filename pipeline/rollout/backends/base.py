"""The teacher backend interface: one batched ``generate`` over many chat prompts."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


from pipeline.config import RolloutSection as _RolloutSection  # noqa: E402

_DEFAULTS = _RolloutSection()


@dataclass
class SamplingConfig:
    """Sampling parameters shared by all backends (temperature 0 means greedy)."""

    max_new_tokens: int = _DEFAULTS.max_new_tokens  # the one definition: pipeline.config.RolloutSection
    temperature: float = _DEFAULTS.temperature
    top_p: float = 0.95
    seed: int = 0

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


#: ``Generation.finish_reason`` of a row whose prompt already fills the model's context window:
#: nothing was generated; the harness ends that episode alone (``finish_reason`` "context_full")
CONTEXT_FULL = "context_full"


@dataclass
class Generation:
    """One completion.

    ``text``: generated text, without the forced ``prefix`` (it decodes exactly from
    ``token_ids`` with special tokens skipped); ``token_ids``: the completion token ids as sampled,
    including a final stop token when the turn ended on one (``len(token_ids) ==
    completion_tokens`` where the backend reports ids); ``logprobs``: the engine's log-probability
    (natural log, of the model's raw next-token distribution, i.e. before temperature/top-p, as
    vLLM's default ``raw_logprobs``) of each token in ``token_ids``, or empty where the engine gives
    none; ``prompt_token_ids``: the exact prompt ids the engine saw (incl. the forced prefix).
    """

    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str = "stop"  # "stop" | "length" | CONTEXT_FULL
    token_ids: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    prompt_token_ids: list[int] = field(default_factory=list)


class Backend(Protocol):
    """A teacher: ``generate(prompts, prefixes, sampling)`` -> one Generation per prompt.

    ``prompts`` are lists of ``{"role", "content"}`` messages; ``prefixes[i]`` (or None) is
    text forced at the start of the assistant turn (constrained generation by prefix);
    ``grammars[i]`` (or None): an XGrammar structural-tag JSON text (:mod:`pipeline.rollout.grammar`)
    the output must match (free text or one schema-exact tool call, a call only, text only); the
    transformers and vLLM backends enforce it, an OpenAI-compatible server gets it as vLLM's
    ``structured_outputs.structural_tag``.
    Optional keyword ``tools`` (list per prompt of OpenAI tool schemas, or None) asks the backend to
    render the tools through the model's own chat template (``supports_tool_template()`` says
    whether it can); prompts then hold OpenAI-format messages (assistant ``tool_calls``, ``tool``).
    """

    name: str
    model_id: str

    def generate(self, prompts: list[list[dict[str, Any]]], prefixes: list[str | None],
                 sampling: SamplingConfig, grammars: list[str | None] | None = None) -> list[Generation]:
        ...


def template_supports_tools(chat_template: Any) -> bool:
    """True when a Jinja chat template reads a ``tools`` variable (so ``apply_chat_template(...,
    tools=...)`` renders them), e.g. Qwen2.5 / Llama-3.1 / Hermes-3 templates; SmolLM2's does not."""
    if isinstance(chat_template, dict):
        return any(template_supports_tools(v) for v in chat_template.values())
    return isinstance(chat_template, str) and "tools" in chat_template
