"""Teacher backends behind one interface (:class:`~pipeline.rollout.backends.base.Backend`)."""
from __future__ import annotations

from pipeline.rollout.backends.base import Backend, Generation, SamplingConfig
from pipeline.rollout.models import resolve_model

BACKENDS = ("transformers", "vllm")


def load_backend(name: str = "transformers", model: str | None = None, **kwargs) -> Backend:
    """Build a backend by name with the model at ``model`` (None: the bundled teacher).

    Raises ValueError for an unknown backend name, ModelNotFound for missing weights."""
    spec = resolve_model(model)
    if name == "transformers":
        from pipeline.rollout.backends.transformers_backend import TransformersBackend
        return TransformersBackend(spec, **kwargs)
    if name == "vllm":
        from pipeline.rollout.backends.vllm_backend import VLLMBackend
        return VLLMBackend(spec, **kwargs)
    raise ValueError(f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}")


__all__ = ["Backend", "Generation", "SamplingConfig", "load_backend", "BACKENDS"]
