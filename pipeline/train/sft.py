"""``trajpipe train``: supervised fine-tuning on the train split of an export's ``sft.parquet``.

TRL's ``SFTTrainer`` with ``assistant_only_loss=True``: the tokenizer gets
:data:`pipeline.trl_env.TRAINING_CHAT_TEMPLATE` (assistant turns inside ``{% generation %}``), so
the loss covers what the agent wrote (its text, its Hermes ``<tool_call>`` blocks and its
``<|im_end|>``) and nothing of the system prompt, the customer's turns or the tool results. That
template renders a row exactly as the rollout harness showed it to the teacher (Hermes tool calls
in the text, ChatML around), so what is trained is what the harness will later ask for.

LoRA through peft by default (``method="lora"``: rank 16, every linear layer but the output
head), merged into the base weights after training; ``method="full"`` trains every weight. The
result is an ordinary transformers folder (safetensors weights, config, the base's tokenizer with
its own chat template, ``generation_config.json``) that ``--model DIR`` loads in every backend
(transformers, vLLM; :func:`pipeline.rollout.models.resolve_model` takes a folder with
``config.json`` as is), plus ``train_log.json`` (loss per step, tokens seen, wall time).

Weights are saved in float32 by default: a merged LoRA update of a short schedule is small next to
the weights, and bfloat16's 8-bit mantissa would round part of it away (``save_dtype`` to change).
"""
from __future__ import annotations

import json
import shutil
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

METHODS = ("lora", "full")
#: learning rates used when none is given: LoRA adapters take a larger step than full weights
DEFAULT_LR = {"lora": 2e-4, "full": 2e-5}


class NoTrainRows(ValueError):
    """The export's sft.parquet has no row in the train split (nothing verified to learn from)."""


@dataclass
class TrainConfig:
    """Training settings (the ``trajpipe train`` options).

    ``epochs`` over the train rows, or ``max_steps`` optimizer steps when given (it wins, as in
    transformers); ``learning_rate`` None takes :data:`DEFAULT_LR` of the method; ``batch_size``
    rows per device step and ``grad_accum`` steps per optimizer step; ``max_rows`` trains on a
    seeded sample of at most that many train rows; ``max_length`` truncates rows (None: no
    truncation; trajpipe rows are ~3,500 tokens on airline, most of it the policy prompt, and a
    cut row loses its last assistant turns); ``lora_*`` the adapter; ``gradient_checkpointing``
    trades time for memory (about 11 GB peak without, 5 GB with, for the 135M model on
    3,300-token airline rows; measured in docs/training.md); ``save_dtype`` of the merged weights.
    """

    method: str = "lora"
    epochs: float = 1.0
    max_steps: int | None = None
    learning_rate: float | None = None
    batch_size: int = 1
    grad_accum: int = 1
    max_rows: int | None = None
    max_length: int | None = None
    lr_scheduler: str = "linear"
    warmup_steps: int = 0
    lora_r: int = 16
    lora_alpha: int = 32
    lora_dropout: float = 0.05
    lora_target_modules: str = "all-linear"
    gradient_checkpointing: bool = False
    save_dtype: str = "float32"
    seed: int = 0

    def lr(self) -> float:
        return float(self.learning_rate if self.learning_rate is not None else DEFAULT_LR[self.method])

    def check(self) -> None:
        """Raise ValueError naming a bad setting."""
        if self.method not in METHODS:
            raise ValueError(f"--method must be one of {', '.join(METHODS)}, not {self.method!r}")
        if self.max_steps is not None and self.max_steps < 1:
            raise ValueError("--max-steps must be >= 1")
        if self.epochs <= 0:
            raise ValueError("--epochs must be > 0")
        if self.batch_size < 1 or self.grad_accum < 1:
            raise ValueError("--batch-size and --grad-accum must be >= 1")
        if self.max_rows is not None and self.max_rows < 1:
            raise ValueError("--max-rows must be >= 1")
        if self.save_dtype not in ("float32", "bfloat16", "float16"):
            raise ValueError(f"--save-dtype must be float32, bfloat16 or float16, not {self.save_dtype!r}")


def load_train_rows(data: str | Path, max_rows: int | None = None, seed: int = 0):
    """The train split of ``DATA/sft.parquet`` as a ``datasets.Dataset`` with ``messages`` (tool-call
    arguments as objects) and ``tools``; at most ``max_rows`` of them (a seeded sample).

    Raises FileNotFoundError (no sft.parquet) or :class:`NoTrainRows`."""
    from pipeline.export.hf import load_export

    ds = load_export(str(data), "sft", split="train")
    if len(ds) == 0:
        raise NoTrainRows(f"{data}/sft.parquet has no train rows: no verified trajectory in the train split "
                          "(see `trajpipe stats` for why rollouts failed)")
    if max_rows is not None and len(ds) > max_rows:
        ds = ds.shuffle(seed=seed).select(range(max_rows))
    return ds.select_columns([c for c in ("messages", "tools") if c in ds.column_names])


def is_chatml(tokenizer: Any) -> bool:
    """Whether the tokenizer's chat template is ChatML (``<|im_start|>role``): SmolLM2, Qwen."""
    template = getattr(tokenizer, "chat_template", None) or ""
    if isinstance(template, dict):
        template = " ".join(template.values())
    return "<|im_start|>" in template


class _LossLog:
    """A ``TrainerCallback`` (built lazily: transformers is only imported when training) that keeps
    each logged step: loss, learning rate, grad norm, TRL's cumulative ``num_tokens``."""

    def __new__(cls, sink: list[dict[str, Any]]):
        from transformers import TrainerCallback

        class LossLog(TrainerCallback):
            def on_log(self, args, state, control, logs=None, **kwargs):  # noqa: D401
                logs = dict(logs or {})
                if "loss" not in logs:
                    return
                sink.append({"step": int(state.global_step), "epoch": round(float(state.epoch or 0.0), 4),
                             "loss": float(logs["loss"]),
                             "learning_rate": float(logs.get("learning_rate", 0.0)),
                             "grad_norm": float(logs["grad_norm"]) if logs.get("grad_norm") is not None else None,
                             "num_tokens": int(logs["num_tokens"]) if logs.get("num_tokens") is not None else None,
                             "mean_token_accuracy": logs.get("mean_token_accuracy")})

        return LossLog()


def _versions() -> dict[str, str]:
    from importlib import metadata

    out = {}
    for pkg in ("trajpipe", "torch", "transformers", "trl", "peft", "datasets", "accelerate"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            pass
    return out


def train_sft(data: str | Path, out: str | Path, base_model: str | None = None,
              config: TrainConfig | None = None, progress: bool = True) -> dict[str, Any]:
    """Fine-tune ``base_model`` (None: the bundled SmolLM2-135M; a ``.gguf`` file or a transformers
    folder, e.g. a previous round's output) on the train split of ``DATA/sft.parquet`` and write the
    merged model into ``out`` (created; an existing model there is replaced). Returns the train
    log, also written to ``out/train_log.json``.

    Raises :class:`NoTrainRows`, FileNotFoundError, ``ModelNotFound``, ValueError (bad config, or a
    base model whose chat template is not ChatML: the training template renders ChatML, the
    format the harness prompts the bundled teacher in), ImportError (``pip install -e '.[train]'``).
    """
    cfg = config or TrainConfig()
    cfg.check()
    t_start = time.perf_counter()
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    from pipeline.rollout.models import ensure_safetensors, resolve_model
    from pipeline.trl_env import prepare_tokenizer

    ds = load_train_rows(data, cfg.max_rows, cfg.seed)
    spec = resolve_model(base_model)
    folder = ensure_safetensors(spec)  # a GGUF teacher becomes a cached safetensors folder once
    tokenizer = AutoTokenizer.from_pretrained(folder)
    if not is_chatml(tokenizer):
        raise ValueError(f"{spec.model_id}: the chat template is not ChatML (<|im_start|>); trajpipe's training "
                         "template (pipeline.trl_env.TRAINING_CHAT_TEMPLATE) renders ChatML with Hermes tool calls, "
                         "which is what the rollout harness prompts with. Use a ChatML model (SmolLM2, Qwen).")
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    prepare_tokenizer(tokenizer)
    cuda = torch.cuda.is_available()
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32)
    model.config.use_cache = False
    peft_config = None
    if cfg.method == "lora":
        from peft import LoraConfig

        peft_config = LoraConfig(r=cfg.lora_r, lora_alpha=cfg.lora_alpha, lora_dropout=cfg.lora_dropout,
                                 target_modules=cfg.lora_target_modules, task_type="CAUSAL_LM")
    out = Path(out)
    work = Path(tempfile.mkdtemp(prefix="trajpipe-train-"))
    steps: list[dict[str, Any]] = []
    args = SFTConfig(output_dir=str(work), assistant_only_loss=True, max_length=cfg.max_length,
                     num_train_epochs=cfg.epochs, max_steps=cfg.max_steps if cfg.max_steps else -1,
                     per_device_train_batch_size=cfg.batch_size, gradient_accumulation_steps=cfg.grad_accum,
                     learning_rate=cfg.lr(), lr_scheduler_type=cfg.lr_scheduler, warmup_steps=cfg.warmup_steps,
                     logging_steps=1, save_strategy="no", report_to="none", seed=cfg.seed, data_seed=cfg.seed,
                     use_cpu=not cuda, bf16=bool(cuda and torch.cuda.is_bf16_supported()),
                     gradient_checkpointing=cfg.gradient_checkpointing, dataset_num_proc=None,
                     disable_tqdm=not progress)
    try:
        trainer = SFTTrainer(model=model, args=args, train_dataset=ds, processing_class=tokenizer,
                             peft_config=peft_config, callbacks=[_LossLog(steps)])
        tok_ds = trainer.train_dataset
        tokens_per_epoch = sum(len(x) for x in tok_ds["input_ids"])
        # TRL turns the template's assistant mask into labels (-100 outside it)
        if "labels" in tok_ds.column_names:
            trained_per_epoch = sum(sum(lab != -100 for lab in labels) for labels in tok_ds["labels"])
        elif "assistant_masks" in tok_ds.column_names:
            trained_per_epoch = sum(sum(m) for m in tok_ds["assistant_masks"])
        else:
            trained_per_epoch = None
        t_train = time.perf_counter()
        result = trainer.train()
        train_seconds = time.perf_counter() - t_train
        trained = trainer.model
        if cfg.method == "lora":
            trained = trained.merge_and_unload()
        trained.config.use_cache = True
        trained = trained.to(getattr(torch, cfg.save_dtype))
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        trained.save_pretrained(str(out), safe_serialization=True)
        # the base's own tokenizer and chat template: the trained model is prompted like the base
        AutoTokenizer.from_pretrained(folder).save_pretrained(str(out))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    losses = [s["loss"] for s in steps]
    log = {
        "data": str(data), "out": str(out), "base_model": spec.model_id, "base_folder": str(folder),
        "method": cfg.method, "rows": len(ds), "optimizer_steps": int(result.global_step),
        "epochs_done": round(float(trainer.state.epoch or 0.0), 4),
        "loss_first": losses[0] if losses else None, "loss_last": losses[-1] if losses else None,
        "train_loss": float(result.training_loss),
        "steps": steps,
        # TRL counts input tokens (attention mask) of every batch it trained on
        "tokens_seen": steps[-1]["num_tokens"] if steps and steps[-1]["num_tokens"] is not None else None,
        "tokens_per_epoch": tokens_per_epoch, "trained_tokens_per_epoch": trained_per_epoch,
        "train_seconds": round(train_seconds, 2),
        "wall_seconds": round(time.perf_counter() - t_start, 2),
        "device": "cuda" if cuda else "cpu", "config": asdict(cfg) | {"learning_rate": cfg.lr()},
        "versions": _versions(),
    }
    (out / "train_log.json").write_text(json.dumps(log, indent=1), encoding="utf-8")
    return log
