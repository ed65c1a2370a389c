"""``trajpipe improve``: expert iteration (rejection-sampling fine-tuning) as a Prefect flow.

Round r: the run flow (``flows.trajpipe_flow.trajpipe_run``) rolls out the current model on the
synthesized tasks (help as configured), verifies, selects and exports round r's datasets; the
current model is fine-tuned on the train split of that round's ``sft.parquet``
(:func:`pipeline.train.train_sft`, by default from the base model as STaR does, Zelikman et al.
2022; ``train_from="previous"`` continues from the last round's model); the trained model is the
next round's teacher. Each model (the base first) is evaluated without help on the same tasks:
the ``holdout`` and ``validation`` splits of round 1's export (:func:`pipeline.train.evaluate`).

Held-out blueprints are whole task types: ``holdout_blueprints`` (comma-separated ids) or an
automatic, seeded choice of ``n_holdout`` (at least 3) blueprints that have a verified task. Every
round's export puts them (alone, ``split_by="blueprint"`` by default) in the ``holdout`` split,
which training never reads; ``improve.json``, the report ``README.md`` and each round's dataset
card name them.

The run flow is called in exactly one place, :func:`run_round_data`, with the round's
:class:`pipeline.config.RunConfig` (:func:`round_config`); every other step calls library functions.
"""
from __future__ import annotations

import json
import os
import random
import secrets
import shutil
import time
from pathlib import Path
from typing import Any

from prefect import flow, task
from prefect.cache_policies import NO_CACHE

#: improve's per-round run options -> (RunConfig section, field)
RUN_OPTIONS = {
    "limit": ("ingest", "limit"), "fmt": ("ingest", "format"), "domain": ("ingest", "domain"),
    "tasks_per_blueprint": ("synthesize", "tasks_per_blueprint"),
    "k": ("rollout", "k"), "backend": ("rollout", "backend"), "max_turns": ("rollout", "max_turns"),
    "max_new_tokens": ("rollout", "max_new_tokens"), "temperature": ("rollout", "temperature"),
    "constrain": ("rollout", "constrain"), "grounded": ("rollout", "grounded"), "hints": ("rollout", "hints"),
    "hint_when": ("rollout", "hint_when"), "batch_size": ("rollout", "batch_size"),
    "prompt_style": ("rollout", "prompt_style"),
    "cap": ("select", "cap"), "split_by": ("export", "split_by"),
}
MIN_HOLDOUT = 3
EVAL_SPLITS = ("holdout", "validation")


def round_config(input_path: str | None, out_dir: str, work_dir: str, model: str | None, holdout_blueprints: list[str],
                 seed: int, options: dict[str, Any], base_config: str | None = None):
    """The :class:`pipeline.config.RunConfig` of one round: ``base_config`` (a run.yaml, optional)
    with ``options`` (:data:`RUN_OPTIONS`; None values left to the config) and the round's input
    (None: the config's, else the bundled sample), teacher, output folder, work folder, held-out
    blueprints and seed on top.

    Raises :class:`pipeline.config.ConfigError` (a ValueError) naming a bad option."""
    from pipeline.config import load_config

    unknown = set(options) - set(RUN_OPTIONS)
    if unknown:
        raise ValueError(f"unknown run options {sorted(unknown)}; known: {', '.join(RUN_OPTIONS)}")
    over: dict[str, Any] = {"seed": seed, "work_dir": work_dir, "ingest": {} if input_path is None else
                            {"input_path": input_path}, "rollout": {"model": model},
                            "export": {"out_dir": out_dir, "holdout_blueprints": ",".join(holdout_blueprints) or None}}
    for key, val in options.items():
        if val is not None:
            section, name = RUN_OPTIONS[key]
            over.setdefault(section, {})[name] = val
    return load_config(base_config, over)


def run_round_data(config) -> dict[str, Any]:
    """THE call of the run flow (``flows.trajpipe_flow.trajpipe_run``): one round's datasets as
    ``config`` (:func:`round_config`) says. Returns the run's manifest."""
    from flows.trajpipe_flow import trajpipe_run

    return trajpipe_run(config)


def choose_holdout(config, n: int = MIN_HOLDOUT) -> list[str]:
    """``n`` blueprint ids to hold out, chosen from what the run of ``config`` will see: its own
    stages up to task verification run (or are reused) in its work folder, so round 1 then reuses
    them. Only blueprints with at least one verified task count (so the holdout split has tasks);
    task kinds as distinct as possible; seeded by ``config.seed``; at least one such blueprint is
    left for training.

    Raises ValueError when fewer than ``n + 1`` blueprints have a verified task."""
    import pipeline.stages  # noqa: F401  (registers the stages)
    from pipeline.runner import Context, Runner

    runner = Runner(config, Context(seed=config.seed, progress=False))
    bps = runner.run("blueprints").outputs["blueprints"]
    tasks = runner.run("synthesize").outputs["tasks"]
    verdicts = runner.run("verify_tasks").outputs["task_verdicts"]
    passed = {v.task_id for v in verdicts if v.passed}
    ok = {t.blueprint_id for t in tasks if t.task_id in passed}
    kind = {b.blueprint_id: b.task_kind for b in bps}
    pool = sorted(ok)
    if len(pool) < n + 1:
        raise ValueError(f"{len(pool)} blueprints have a verified task, need at least {n + 1} to hold out {n} "
                         "and train on the rest: read more logs (--limit) or name --holdout-blueprints")
    random.Random(config.seed).shuffle(pool)
    chosen: list[str] = []
    seen_kinds: set[Any] = set()
    for bp in pool:  # distinct task kinds first, then fill
        if len(chosen) < n and kind.get(bp) not in seen_kinds:
            chosen.append(bp)
            seen_kinds.add(kind.get(bp))
    for bp in pool:
        if len(chosen) < n and bp not in chosen:
            chosen.append(bp)
    return sorted(chosen)


@task(name="choose_holdout", persist_result=False, cache_policy=NO_CACHE)
def choose_holdout_task(config, n: int) -> list[str]:
    return choose_holdout(config, n)


@task(name="train", persist_result=False, cache_policy=NO_CACHE)
def train_task(data: str, out: str, base_model: str | None, train_cfg: dict[str, Any]) -> dict[str, Any] | None:
    """The train log, or None when the round's export has no train row."""
    from pipeline.train import NoTrainRows, TrainConfig, train_sft

    try:
        return train_sft(data, out, base_model=base_model, config=TrainConfig(**train_cfg), progress=False)
    except NoTrainRows:
        return None


@task(name="evaluate", persist_result=False, cache_policy=NO_CACHE)
def eval_task(data: str, split: str, model: str | None, k: int, backend: str, seed: int, limit: int | None,
              out_path: str) -> dict[str, Any]:
    from pipeline.train import evaluate

    return evaluate(data, split, model=model, k=k, backend=backend, seed=seed, limit=limit, out_path=out_path)


def eval_summary(result: dict[str, Any]) -> dict[str, Any]:
    """The part of an :func:`pipeline.train.evaluate` result that improve.json and the closed-loop
    table keep: overall pass@1, pass@k, counts, outcome / format-valid rates, mean reward, pass@1
    per blueprint and wall seconds."""
    o = result["overall"]
    return {"pass_at_1": o["pass_at_1"], "pass_at_k": o["pass_at_k"], "k": result["k"], "tasks": o["tasks"],
            "rollouts": o["rollouts"], "passes": o["passes"], "outcome_rate": o["outcome_rate"],
            "format_valid_rate": o["format_valid_rate"], "reward_mean": o["reward_mean"],
            "per_blueprint": {bp: s["pass_at_1"] for bp, s in result["per_blueprint"].items()},
            "wall_seconds": result["wall_seconds"]}


def _fmt(x: Any) -> str:
    return "—" if x is None else f"{100 * x:.1f}%" if isinstance(x, float) else str(x)


def report_markdown(summary: dict[str, Any]) -> str:
    """The improve report (``README.md`` of the output folder): the table of every model's held-out
    and validation pass@1, the held-out blueprints, seeds and wall times."""
    lines = ["# trajpipe improve: expert iteration", "",
             f"Input `{summary['input_path']}`, seed {summary['seed']}, {summary['rounds']} round(s), "
             f"training from {summary['train_from']} ({summary['train']['method']}).", "",
             "Held-out blueprints (never trained on): " + ", ".join(f"`{b}`" for b in summary["holdout_blueprints"])
             + (" (chosen automatically)" if summary["holdout_auto"] else ""), "",
             "| model | trained on | train rows | held-out pass@1 | held-out pass@k | validation pass@1 | "
             "train s | eval s |", "|---|---|---|---|---|---|---|---|"]
    for m in summary["models"]:
        ev = m.get("eval") or {}
        h, v = ev.get("holdout") or {}, ev.get("validation") or {}
        lines.append(f"| {m['name']} | {m['trained_on']} | {m.get('train_rows', '—')} | {_fmt(h.get('pass_at_1'))} "
                     f"({h.get('passes', 0)}/{h.get('rollouts', 0)}) | {_fmt(h.get('pass_at_k'))} | "
                     f"{_fmt(v.get('pass_at_1'))} ({v.get('passes', 0)}/{v.get('rollouts', 0)}) | "
                     f"{m.get('train_seconds', '—')} | "
                     f"{round(sum((e or {}).get('wall_seconds', 0) for e in ev.values()), 1)} |")
    lines += ["", "pass@1 = passes / rollouts per task, averaged over tasks; pass@k: unbiased estimator "
              "(Chen et al. 2021) with k = the eval's rollouts per task. Evaluation without help, same verifiers.",
              "", f"Wall time: {summary['wall_seconds']} s.", ""]
    return "\n".join(lines)


@flow(name="trajpipe-improve", log_prints=False, persist_result=False)
def trajpipe_improve(input_path: str | None = None, out_dir: str = "out/improve", rounds: int = 2,
                     holdout_blueprints: str | list[str] | None = None, n_holdout: int = MIN_HOLDOUT,
                     model: str | None = None, seed: int = 0, eval_k: int = 4, eval_limit: int | None = None,
                     eval_splits: tuple[str, ...] | list[str] = EVAL_SPLITS, train_from: str = "base",
                     train: dict[str, Any] | None = None, run_options: dict[str, Any] | None = None,
                     base_config: str | None = None) -> dict[str, Any]:
    """Expert iteration for ``rounds`` rounds from ``model`` (None: the bundled teacher).

    ``run_options``: options of each round's run (:data:`RUN_OPTIONS`; ``split_by`` defaults to
    ``blueprint`` so the holdout is exactly the named blueprints) over ``base_config`` (a run.yaml);
    ``train``: fields of :class:`pipeline.train.TrainConfig`; ``eval_k`` rollouts per task and
    ``eval_limit`` tasks per blueprint in each evaluation (backend: the run's); ``train_from``:
    ``base`` (each round fine-tunes the base model on the rows the current teacher produced) or
    ``previous`` (continue from the last round's model).

    Writes ``out_dir/round-<r>/{data,model,work}``, ``out_dir/<model>/eval-<split>.json``,
    ``improve.json`` and ``README.md``; returns the summary (``improve.json``). Round 1's work
    folder is kept (a rerun reuses its stages: the base teacher's rollouts included); a later
    round's is emptied first, since its teacher was trained again in this run.
    Raises ValueError (bad option, too few blueprints for the automatic holdout)."""
    if rounds < 1:
        raise ValueError("--rounds must be >= 1")
    if train_from not in ("base", "previous"):
        raise ValueError(f"--train-from must be base or previous, not {train_from!r}")
    from pipeline.config import holdout_list
    from pipeline.stages import SAMPLE_INPUT

    t0 = time.perf_counter()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    options = {"split_by": "blueprint", **{k: v for k, v in (run_options or {}).items() if v is not None}}
    train_cfg = dict(train or {})
    train_cfg.setdefault("seed", seed)
    # one pseudonym key for every round (and the holdout choice), so blueprint ids, pseudonyms and
    # the reused stages agree across rounds; in this process only, never written
    had_secret = "TRAJPIPE_SECRET" in os.environ
    os.environ.setdefault("TRAJPIPE_SECRET", secrets.token_hex(16))

    def config_for(r: int, teacher: str | None, holdout: list[str]):
        rdir = out / f"round-{r}"
        return round_config(input_path, str(rdir / "data"), str(rdir / "work"), teacher, holdout, seed, options,
                            base_config)

    try:
        auto = not holdout_blueprints
        holdout = (choose_holdout_task(config_for(1, model, []), max(n_holdout, MIN_HOLDOUT)) if auto
                   else holdout_list(holdout_blueprints))
        first = config_for(1, model, holdout)
        backend = first.rollout.backend
        summary: dict[str, Any] = {"input_path": first.ingest.input_path or str(SAMPLE_INPUT), "out_dir": str(out),
                                   "rounds": rounds, "seed": seed,
                                   "holdout_blueprints": holdout, "holdout_auto": auto, "train_from": train_from,
                                   "train": train_cfg | {"method": train_cfg.get("method", "lora")},
                                   "run_options": options, "base_config": base_config,
                                   "eval": {"k": eval_k, "limit_per_blueprint": eval_limit, "splits": list(eval_splits),
                                            "backend": backend},
                                   "base_model": model or "default", "models": []}
        eval_data: str | None = None

        def evaluate_model(name: str, path: str | None) -> dict[str, Any]:
            return {s: eval_summary(eval_task(eval_data, s, path, eval_k, backend, seed, eval_limit,
                                               str(out / name.replace(" ", "-") / f"eval-{s}.json")))
                    for s in eval_splits}

        teacher = model
        for r in range(1, rounds + 1):
            rdir = out / f"round-{r}"
            if r > 1 and (rdir / "work").exists():  # rollouts of an earlier training of this teacher
                shutil.rmtree(rdir / "work")
            t_round = time.perf_counter()
            manifest = run_round_data(config_for(r, teacher, holdout))
            data_seconds = round(time.perf_counter() - t_round, 1)
            sft = (manifest.get("files") or {}).get("sft") or {}
            if r == 1:
                eval_data = str(rdir / "data")
                summary["eval_data"] = eval_data
                summary["models"].append({"name": "base", "path": model or "default", "trained_on": "—",
                                          "eval": evaluate_model("base", model)})
            log = train_task(str(rdir / "data"), str(rdir / "model"),
                             model if train_from == "base" else teacher, train_cfg)
            entry: dict[str, Any] = {"name": f"round {r}", "round": r, "teacher": teacher or "default",
                                     "data": str(rdir / "data"), "data_seconds": data_seconds,
                                     "sft_rows": sft.get("rows"),
                                     "trained_on": "verified rows of " + ("the base" if r == 1 else f"round {r - 1}'s model")}
            if log is None:
                entry.update(path=None, note="no verified row in the train split: nothing to train on; stopped")
                summary["models"].append(entry)
                break
            entry.update(path=str(rdir / "model"), train_rows=log["rows"], train_seconds=log["train_seconds"],
                         loss_first=log["loss_first"], loss_last=log["loss_last"], steps=log["optimizer_steps"],
                         tokens_seen=log["tokens_seen"])
            entry["eval"] = evaluate_model(f"round-{r}", str(rdir / "model"))
            summary["models"].append(entry)
            teacher = str(rdir / "model")
        summary["wall_seconds"] = round(time.perf_counter() - t0, 1)
        (out / "improve.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
        (out / "README.md").write_text(report_markdown(summary), encoding="utf-8")
        return summary
    finally:
        if not had_secret:
            os.environ.pop("TRAJPIPE_SECRET", None)


if __name__ == "__main__":  # pragma: no cover
    print(json.dumps(trajpipe_improve(), indent=1))
