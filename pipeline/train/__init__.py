"""Closing the loop: train a student on trajpipe's own data and measure it (issue 14).

* :func:`pipeline.train.sft.train_sft`: TRL ``SFTTrainer`` on the train split of ``sft.parquet``,
  assistant-only loss, LoRA (peft) by default, adapter merged; writes a transformers model folder
  (weights, config, tokenizer) that ``--model DIR`` loads in every backend, plus ``train_log.json``.
* :func:`pipeline.train.evaluate.evaluate`: the tasks of one split of ``rl.parquet`` through the
  rollout harness without help, verified by the same verifiers; pass@1 / pass@k per blueprint
  and overall, ``eval.json``.
* ``flows/improve_flow.py``: expert iteration (rejection-sampling fine-tuning) over both.

Commands: ``trajpipe train``, ``trajpipe eval``, ``trajpipe improve`` (pipeline/commands/train.py);
docs/training.md.
"""
from __future__ import annotations

from pipeline.train.evaluate import evaluate, load_split_tasks
from pipeline.train.sft import NoTrainRows, TrainConfig, train_sft

__all__ = ["evaluate", "load_split_tasks", "train_sft", "TrainConfig", "NoTrainRows"]
