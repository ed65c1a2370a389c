"""The teacher backend interface: one batched ``generate`` over many chat prompts."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass
class SamplingConfig:
    """Sampling parameters shared by all backends (temperature 0 means greedy)."""

    max_new_tokens: int = 128
    temperature: float = 0.7
    top_p: float = 0.95
    seed: int = 0

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Generation:
    """One completion: ``text`` (without the forced ``prefix``), token counts, finish reason."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str = "stop"  # "stop" | "length"
    token_ids: list[int] = field(default_factory=list)


class Backend(Protocol):
    """A teacher: ``generate(prompts, prefixes, sampling)`` -> one Generation per prompt.

    ``prompts`` are lists of plain ``{"role", "content"}`` messages; ``prefixes[i]`` (or None) is
    text forced at the start of the assistant turn (constrained generation by prefix);
    ``choices[i]`` (or None), where the backend supports it, restricts the output to start with
    one of the given strings (e.g. a known tool name). A backend that cannot constrain ignores it.
    """

    name: str
    model_id: str

    def generate(self, prompts: list[list[dict[str, str]]], prefixes: list[str | None],
                 sampling: SamplingConfig, choices: list[list[str] | None] | None = None) -> list[Generation]:
        ...
