"""``trajpipe train``, ``trajpipe eval``, ``trajpipe improve``: close the loop on trajpipe's own data
(pipeline/train/, flows/improve_flow.py, docs/training.md)."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from pipeline.cli_config import die, warn

console = Console(stderr=True)

DATA_HELP = "A dataset folder written by `trajpipe run` / `export` (sft.parquet, rl.parquet, tasks.parquet)."
METHOD_HELP = "lora (default: a peft LoRA adapter, rank --lora-r, on every linear layer, merged after training) or full."
EPOCHS_HELP = "Passes over the train rows (ignored when --max-steps is given)."
MAX_STEPS_HELP = "Stop after N optimizer steps (wins over --epochs)."
BASE_MODEL_HELP = ("Model to fine-tune: a .gguf file or a transformers folder (e.g. an earlier `trajpipe train` "
                   "output). Default: the bundled SmolLM2-135M-Instruct.")
EVAL_MODEL_HELP = ("Model to evaluate: a `trajpipe train` output folder, another transformers folder or a .gguf file. "
                   "Default: the bundled SmolLM2-135M-Instruct (the baseline).")
EVAL_K_HELP = "Rollouts per task (pass@k is reported for this k; pass@1 from the same rollouts)."
EVAL_BACKEND_HELP = "auto (vllm where it imports, else transformers), transformers or vllm."
HOLDOUT_HELP = ("Comma-separated blueprint ids held out of training and evaluated every round. Default: an automatic, "
                "seeded choice of --n-holdout blueprints that have a verified task, named in improve.json and README.md.")


def _fmt(x) -> str:
    return "-" if x is None else f"{x:.4f}" if isinstance(x, float) else str(x)


def register(app: typer.Typer) -> None:
    """Add ``train``, ``eval`` and ``improve`` to the trajpipe CLI."""

    @app.command()
    def train(
        data: Path = typer.Option(..., "--data", "-d", help=DATA_HELP),
        out: Path = typer.Option(..., "--out", "-o", help="Folder for the trained model (replaced if it exists)."),
        method: str = typer.Option("lora", "--method", help=METHOD_HELP),
        epochs: float = typer.Option(1.0, "--epochs", help=EPOCHS_HELP),
        max_steps: Optional[int] = typer.Option(None, "--max-steps", help=MAX_STEPS_HELP),
        base_model: Optional[str] = typer.Option(None, "--base-model", help=BASE_MODEL_HELP),
        lr: Optional[float] = typer.Option(None, "--lr", help="Learning rate (default 2e-4 for lora, 2e-5 for full)."),
        batch_size: int = typer.Option(1, "--batch-size", help="Rows per device step."),
        grad_accum: int = typer.Option(1, "--grad-accum", help="Device steps per optimizer step."),
        max_rows: Optional[int] = typer.Option(None, "--max-rows", help="Train on a seeded sample of at most N train rows."),
        max_length: Optional[int] = typer.Option(None, "--max-length", help="Truncate rows to N tokens (default: none; a cut row loses its last agent turns)."),
        lora_r: int = typer.Option(16, "--lora-r", help="LoRA rank."),
        lora_alpha: int = typer.Option(32, "--lora-alpha", help="LoRA alpha."),
        save_dtype: str = typer.Option("float32", "--save-dtype", help="dtype of the saved weights: float32 (default: keeps small merged updates), bfloat16, float16."),
        gradient_checkpointing: bool = typer.Option(False, "--gradient-checkpointing/--no-gradient-checkpointing", help="Recompute activations in the backward pass (less memory, slower): about 5 GB instead of 11 GB peak for the 135M model on 3,300-token airline rows."),
        seed: int = typer.Option(0, "--seed", help="Seed of the data order, the row sample and the adapter's init."),
    ) -> None:
        """Fine-tune a model on the train split of DATA/sft.parquet (TRL SFTTrainer, assistant-only loss)."""
        if not (data / "sft.parquet").exists():
            die(f"no sft.parquet in {data}: pass a folder written by `trajpipe run` or `export`")
        try:
            from pipeline.train import NoTrainRows, TrainConfig, train_sft
            cfg = TrainConfig(method=method, epochs=epochs, max_steps=max_steps, learning_rate=lr, batch_size=batch_size,
                              grad_accum=grad_accum, max_rows=max_rows, max_length=max_length, lora_r=lora_r,
                              lora_alpha=lora_alpha, save_dtype=save_dtype,
                              gradient_checkpointing=gradient_checkpointing, seed=seed)
            cfg.check()
        except ImportError as exc:
            die(f"{exc}: install the training extra: pip install -e '.[train]'")
        except ValueError as exc:
            die(str(exc))
        from pipeline.rollout.models import ModelNotFound
        try:
            log = train_sft(data, out, base_model=base_model, config=cfg)
        except (NoTrainRows, ModelNotFound, ValueError) as exc:
            die(str(exc), 1)
        console.print(f"trained {log['method']} on {log['rows']} rows: {log['optimizer_steps']} steps, loss "
                      f"{_fmt(log['loss_first'])} -> {_fmt(log['loss_last'])}, {log['tokens_seen']} tokens seen, "
                      f"{log['train_seconds']} s training ({log['wall_seconds']} s in all)")
        console.print(f"model -> {out}/ (load with --model {out}); log -> {out}/train_log.json")

    @app.command(name="eval")
    def eval_(
        data: Path = typer.Option(..., "--data", "-d", help=DATA_HELP),
        split: str = typer.Option("validation", "--split", help="validation | holdout (or train | test)."),
        model: Optional[str] = typer.Option(None, "--model", help=EVAL_MODEL_HELP),
        k: int = typer.Option(4, "--k", help=EVAL_K_HELP),
        backend: str = typer.Option("auto", "--backend", help=EVAL_BACKEND_HELP),
        seed: int = typer.Option(0, "--seed", help="Sampling seed."),
        limit: Optional[int] = typer.Option(None, "--limit", help="At most N tasks per blueprint of the split."),
        out: Optional[Path] = typer.Option(None, "--out", "-o", help="Where to write the result (default DATA/eval.json)."),
        max_turns: Optional[int] = typer.Option(None, "--max-turns", help="Agent turns per episode (default: the export's)."),
        max_new_tokens: Optional[int] = typer.Option(None, "--max-new-tokens", help="Tokens of a text reply (default: the export's)."),
        temperature: Optional[float] = typer.Option(None, "--temperature", help="Sampling temperature (default: the export's)."),
        batch_size: Optional[int] = typer.Option(None, "--batch-size", help="Generation batch size (transformers)."),
    ) -> None:
        """pass@1 and pass@k of a model on one split's tasks (rl.parquet), rolled out without help and verified."""
        from pipeline.rollout.models import ModelNotFound, resolve_model
        from pipeline.train.evaluate import EVAL_SPLITS, evaluate, format_table

        if split not in EVAL_SPLITS:
            die(f"--split must be one of {', '.join(EVAL_SPLITS)}, not {split!r}")
        if not (data / "rl.parquet").exists():
            die(f"no rl.parquet in {data}: pass a folder written by `trajpipe run` or `export`")
        if k < 1:
            die("--k must be >= 1")
        if backend not in ("auto", "transformers", "vllm"):
            die(f"--backend must be auto, transformers or vllm, not {backend!r}")
        try:
            resolve_model(model)
        except ModelNotFound as exc:
            die(str(exc))
        out = out or data / "eval.json"
        try:
            res = evaluate(data, split, model=model, k=k, backend=backend, seed=seed, limit=limit, out_path=out,
                           max_turns=max_turns, max_new_tokens=max_new_tokens, temperature=temperature,
                           batch_size=batch_size)
        except (ValueError, FileNotFoundError) as exc:
            die(str(exc), 1)
        if not res["overall"]["tasks"]:
            warn(f"split {split!r} of {data} has no task in rl.parquet; nothing evaluated", prefix="Note:")
        table = Table(title=f"{res['model_id']} on {split} ({res['backend']}, k={k}, no help)")
        for col in ("blueprint", "tasks", "rollouts", "passes", "pass@1", f"pass@{k}", "outcome ok"):
            table.add_column(col)
        for row in format_table(res):
            table.add_row(*row)
        Console(width=max(Console().width, 140)).print(table)
        console.print(f"done in {res['wall_seconds']} s -> {out}")

    @app.command()
    def improve(
        input: Optional[Path] = typer.Option(None, "--input", "-i", help="Log file. Default: --config's, else the bundled sample (too few blueprints for the automatic holdout: name --holdout-blueprints)."),
        rounds: int = typer.Option(2, "--rounds", help="Rounds of roll out -> verify -> select -> train."),
        out: Path = typer.Option(Path("out/improve"), "--out", "-o", help="Output folder (round-<r>/data, round-<r>/model, improve.json, README.md)."),
        holdout_blueprints: Optional[str] = typer.Option(None, "--holdout-blueprints", help=HOLDOUT_HELP),
        n_holdout: int = typer.Option(3, "--n-holdout", help="How many blueprints the automatic choice holds out (at least 3)."),
        model: Optional[str] = typer.Option(None, "--model", help="Base model and round 1's teacher. Default: the bundled SmolLM2-135M-Instruct."),
        train_from: str = typer.Option("base", "--train-from", help="base (each round fine-tunes the base model on the current teacher's verified rows, as STaR) or previous (continue from the last round's model)."),
        limit: Optional[int] = typer.Option(None, "--limit", help="Read at most N input records."),
        tasks_per_blueprint: Optional[int] = typer.Option(None, "--tasks-per-blueprint", "-n", help="Task instances per blueprint (default: the run's, 2)."),
        k: Optional[int] = typer.Option(None, "--k", help="Teacher rollouts per task in each round (default: the run's, 4)."),
        cap: Optional[int] = typer.Option(None, "--cap", help="Max kept trajectories per task (default: the run's, 2)."),
        hints: Optional[str] = typer.Option(None, "--hints", help="Help for the teacher during each round's rollouts: none | plan | example | guided (default: the run's, guided); evaluation never has help."),
        hint_when: Optional[str] = typer.Option(None, "--hint-when", help="always | fallback (default: the run's, always)."),
        backend: Optional[str] = typer.Option(None, "--backend", help="Rollout and eval backend: " + EVAL_BACKEND_HELP + " (default: the run's, auto)"),
        max_turns: Optional[int] = typer.Option(None, "--max-turns", help="Agent turns per episode (default: the run's, 8)."),
        max_new_tokens: Optional[int] = typer.Option(None, "--max-new-tokens", help="Tokens of a text reply per agent turn (default: the run's, 64)."),
        batch_size: Optional[int] = typer.Option(None, "--batch-size", help="Generation batch size, transformers (default: the run's, 8)."),
        split_by: str = typer.Option("blueprint", "--split-by", help="Split groups (see `trajpipe run --help`); blueprint keeps the holdout to exactly the held-out blueprints."),
        method: str = typer.Option("lora", "--method", help=METHOD_HELP),
        epochs: float = typer.Option(1.0, "--epochs", help=EPOCHS_HELP),
        max_steps: Optional[int] = typer.Option(None, "--max-steps", help=MAX_STEPS_HELP),
        max_rows: Optional[int] = typer.Option(None, "--max-rows", help="Train each round on at most N rows."),
        lr: Optional[float] = typer.Option(None, "--lr", help="Learning rate (default 2e-4 lora, 2e-5 full)."),
        eval_k: int = typer.Option(4, "--eval-k", help="Rollouts per task in each evaluation."),
        eval_limit: Optional[int] = typer.Option(None, "--eval-limit", help="At most N tasks per blueprint in each evaluation."),
        seed: int = typer.Option(0, "--seed", help="Seed of synthesis, sampling, splits, holdout choice and training."),
        config: Optional[Path] = typer.Option(None, "--config", help="A run.yaml (RunConfig, as `trajpipe run --config`) for every round's run; the options above win."),
    ) -> None:
        """Expert iteration: each round rolls out the current model, verifies, selects and trains the next one;
        every model is evaluated without help on the same held-out blueprints (a Prefect flow)."""
        if input is not None and not input.is_file():
            die(f"--input must be a log file: {input}")
        if config is not None and not config.is_file():
            die(f"--config not found: {config}")
        if rounds < 1:
            die("--rounds must be >= 1")
        if n_holdout < 3:
            die("--n-holdout must be at least 3")
        if train_from not in ("base", "previous"):
            die(f"--train-from must be base or previous, not {train_from!r}")
        if backend not in (None, "auto", "transformers", "vllm"):
            die(f"--backend must be auto, transformers or vllm, not {backend!r}")
        from flows.improve_flow import round_config, trajpipe_improve
        from pipeline.rollout.models import ModelNotFound, resolve_model
        from pipeline.train import TrainConfig
        train_cfg = dict(method=method, epochs=epochs, max_steps=max_steps, max_rows=max_rows, learning_rate=lr,
                         seed=seed)
        run_options = dict(limit=limit, tasks_per_blueprint=tasks_per_blueprint, k=k, cap=cap, backend=backend,
                           max_turns=max_turns, max_new_tokens=max_new_tokens, hints=hints, hint_when=hint_when,
                           batch_size=batch_size, split_by=split_by)
        try:
            resolve_model(model)
            TrainConfig(**train_cfg).check()
            # the rounds' run config, checked before anything runs
            cfg = round_config(str(input) if input else None, str(out / "round-1" / "data"), str(out / "round-1" / "work"),
                               model, [], seed, run_options, str(config) if config else None)
            if cfg.rollout.backend not in ("auto", "transformers", "vllm"):
                raise ValueError(f"improve trains and evaluates local models: backend {cfg.rollout.backend!r} is not one")
        except (ModelNotFound, ValueError) as exc:
            die(str(exc))

        t0 = time.perf_counter()
        try:
            summary = trajpipe_improve(
                input_path=str(input) if input else None, out_dir=str(out), rounds=rounds,
                holdout_blueprints=holdout_blueprints, n_holdout=n_holdout, model=model, seed=seed,
                eval_k=eval_k, eval_limit=eval_limit, train_from=train_from, train=train_cfg,
                base_config=str(config) if config else None, run_options=run_options)
        except ValueError as exc:
            die(str(exc), 1)
        print((out / "README.md").read_text(encoding="utf-8"))
        console.print(f"done in {time.perf_counter() - t0:.1f}s -> {out}/improve.json "
                      f"(held out: {', '.join(summary['holdout_blueprints'])})")
