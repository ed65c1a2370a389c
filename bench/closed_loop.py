"""Closed loop (issue 14): does training on trajpipe's verified rows lift a student on held-out task types?

Runs ``trajpipe improve`` (flows/improve_flow.py: expert iteration, every model evaluated without
help on the same held-out blueprints and validation split), then a control: the base model
trained, with the same settings, on as many *unverified* rollouts of round 1 as round 1 trained on
(a seeded uniform sample of round 1's train-split rollouts whatever their verdict: the rows of
sft.parquet and trajectories_failed.parquet; selection's cap / dedupe rejects are left out). Prints
and writes the table

    | model | trained on | train rows | held-out pass@1 | validation pass@1 | train s | eval s |

with the seeds, the held-out blueprints, wall times per phase and training seconds per row and per
1,000 tokens (how training time grows with rows). Not a timed test; the full size is for a
dedicated machine. Small sizes for a shared 2-core CPU::

    python bench/closed_loop.py --backend transformers --limit 20 --tasks-per-blueprint 1 --k 2 \\
        --eval-k 2 --eval-limit 1 --max-steps 4 --out out/bench/closed_loop

Default size (the issue's): ``--limit`` all logs, 2 tasks per blueprint, k 4, one epoch of LoRA.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DEFAULT_INPUT = Path(__file__).resolve().parents[2] / "shared" / "data" / "tau-bench" / "logs" / "airline-gpt4o-trajectories.json"
ROLLOUT_COLUMNS = ("trajectory_id", "task_id", "blueprint_id", "split", "messages", "tools", "hint_mode")


def unverified_sample(data: Path, n: int, seed: int, out: Path) -> dict[str, Any]:
    """Write ``out/sft.parquet``: ``n`` rollouts drawn uniformly (seeded) from the train split of
    ``data``'s sft.parquet and trajectories_failed.parquet together, i.e. without the verifier's
    filter. Returns counts (pool size, passed / failed in the sample)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    parts = []
    for name, passed in (("sft", True), ("trajectories_failed", False)):
        t = pq.read_table(data / f"{name}.parquet")
        t = t.filter(pc.equal(t["split"], "train")).select(list(ROLLOUT_COLUMNS))
        parts.append(t.append_column("verified", pa.array([passed] * t.num_rows)))
    # both files store messages with the same type (pipeline/export/schemas.py)
    pool = pa.concat_tables([parts[0], parts[1].cast(parts[0].schema)])
    idx = sorted(random.Random(seed).sample(range(pool.num_rows), min(n, pool.num_rows)))
    sample = pool.take(idx)
    out.mkdir(parents=True, exist_ok=True)
    pq.write_table(sample, out / "sft.parquet")
    v = sample["verified"].to_pylist()
    return {"pool": pool.num_rows, "pool_verified": parts[0].num_rows, "rows": len(v), "verified_in_sample": sum(v),
            "unverified_in_sample": len(v) - sum(v)}


def _pct(x: Any) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def table(models: list[dict[str, Any]]) -> str:
    lines = ["| model | trained on | train rows | held-out pass@1 | validation pass@1 | held-out outcome ok | "
             "train s | eval s |", "|---|---|---|---|---|---|---|---|"]
    for m in models:
        ev = m.get("eval") or {}
        h, v = ev.get("holdout") or {}, ev.get("validation") or {}
        lines.append(f"| {m['name']} | {m['trained_on']} | {m.get('train_rows', '—')} | "
                     f"{_pct(h.get('pass_at_1'))} ({h.get('passes', 0)}/{h.get('rollouts', 0)}) | "
                     f"{_pct(v.get('pass_at_1'))} ({v.get('passes', 0)}/{v.get('rollouts', 0)}) | "
                     f"{_pct(h.get('outcome_rate'))} | {m.get('train_seconds', '—')} | "
                     f"{round(sum((e or {}).get('wall_seconds', 0) for e in ev.values()), 1)} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--input", default=str(DEFAULT_INPUT), help="log file (default: the real tau-bench airline logs)")
    ap.add_argument("--out", default="out/bench/closed_loop")
    ap.add_argument("--limit", type=int, default=None, help="read at most N log records")
    ap.add_argument("--tasks-per-blueprint", type=int, default=2)
    ap.add_argument("--k", type=int, default=4, help="teacher rollouts per task in each round")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--hints", default="guided", help="help during each round's rollouts (never at evaluation)")
    ap.add_argument("--backend", default="auto", help="auto | transformers | vllm")
    ap.add_argument("--model", default=None, help="base model (default: the bundled SmolLM2-135M-Instruct)")
    ap.add_argument("--holdout-blueprints", default=None, help="comma-separated ids (default: automatic, 3)")
    ap.add_argument("--max-turns", type=int, default=8)
    ap.add_argument("--max-new-tokens", type=int, default=64)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--method", default="lora", choices=["lora", "full"])
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--max-steps", type=int, default=None, help="optimizer steps per training (wins over --epochs)")
    ap.add_argument("--max-rows", type=int, default=None, help="train on at most N rows per round")
    ap.add_argument("--lr", type=float, default=None)
    ap.add_argument("--gradient-checkpointing", action="store_true",
                    help="recompute activations in training (about 5 GB peak instead of 11 GB on airline rows, slower)")
    ap.add_argument("--train-from", default="base", choices=["base", "previous"])
    ap.add_argument("--eval-k", type=int, default=4, help="rollouts per task in each evaluation")
    ap.add_argument("--eval-limit", type=int, default=None, help="at most N tasks per blueprint in each evaluation")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--config", default=None, help="a run.yaml (RunConfig) under every round's run, e.g. rollout.shard_tasks")
    ap.add_argument("--no-control", action="store_true", help="skip the unverified-rollouts control")
    a = ap.parse_args()

    import os

    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("DO_NOT_TRACK", "1")
    from flows.improve_flow import eval_summary, trajpipe_improve
    from pipeline.train import NoTrainRows, TrainConfig, evaluate, train_sft

    out = Path(a.out)
    t0 = time.perf_counter()
    train_cfg = dict(method=a.method, epochs=a.epochs, max_steps=a.max_steps, max_rows=a.max_rows,
                     learning_rate=a.lr, seed=a.seed,
                     gradient_checkpointing=a.gradient_checkpointing)
    summary = trajpipe_improve(
        input_path=a.input, out_dir=str(out), rounds=a.rounds, holdout_blueprints=a.holdout_blueprints,
        model=a.model, seed=a.seed, eval_k=a.eval_k, eval_limit=a.eval_limit, train_from=a.train_from,
        train=train_cfg, base_config=a.config, run_options=dict(limit=a.limit, tasks_per_blueprint=a.tasks_per_blueprint, k=a.k,
                                          backend=a.backend, max_turns=a.max_turns, max_new_tokens=a.max_new_tokens,
                                          hints=a.hints, batch_size=a.batch_size))
    models = list(summary["models"])
    round1 = next((m for m in models if m.get("round") == 1), None)
    control: dict[str, Any] = {"name": "control", "trained_on": "the same number of unverified rollouts of round 1"}
    if a.no_control:
        control = {}
    elif round1 is None or not round1.get("train_rows"):
        control["note"] = "round 1 had no verified train row: no control to match"
    else:
        cdir = out / "control"
        control["sample"] = unverified_sample(Path(round1["data"]), round1["train_rows"], a.seed, cdir / "data")
        try:
            # same rows count, same settings; max_rows is already met by the sample's size
            log = train_sft(cdir / "data", cdir / "model", base_model=a.model,
                            config=TrainConfig(**(train_cfg | {"max_rows": None})), progress=False)
            control.update(path=str(cdir / "model"), train_rows=log["rows"], train_seconds=log["train_seconds"],
                           loss_first=log["loss_first"], loss_last=log["loss_last"], steps=log["optimizer_steps"])
            control["eval"] = {}
            for split in ("holdout", "validation"):
                r = evaluate(summary["eval_data"], split, model=str(cdir / "model"), k=a.eval_k, backend=a.backend,
                             seed=a.seed, limit=a.eval_limit, out_path=cdir / f"eval-{split}.json")
                control["eval"][split] = eval_summary(r)
        except NoTrainRows as exc:
            control["note"] = str(exc)
    if control:
        models.append(control)
    # how training time grows: seconds per row and per 1,000 tokens of each training
    growth = []
    for m in models:
        if m.get("path") and m["name"] != "base" and Path(m["path"], "train_log.json").exists():
            log = json.loads(Path(m["path"], "train_log.json").read_text())
            toks = log.get("tokens_seen") or 0
            growth.append({"model": m["name"], "rows": log["rows"], "steps": log["optimizer_steps"],
                           "tokens_seen": toks, "train_seconds": log["train_seconds"],
                           "seconds_per_step": round(log["train_seconds"] / max(1, log["optimizer_steps"]), 2),
                           "seconds_per_1k_tokens": round(1000 * log["train_seconds"] / toks, 2) if toks else None,
                           "tokens_per_row": round(log["tokens_per_epoch"] / max(1, log["rows"]))})
    result = {"command": " ".join(sys.argv), "seed": a.seed, "input": a.input, "holdout_blueprints": summary["holdout_blueprints"],
              "holdout_auto": summary["holdout_auto"], "eval_data": summary.get("eval_data"), "models": models,
              "train_time": growth, "data_seconds": {m["name"]: m.get("data_seconds") for m in models if m.get("data_seconds")},
              "wall_seconds": round(time.perf_counter() - t0, 1)}
    md = "\n".join([
        f"# Closed loop ({a.input}, seed {a.seed})", "", f"Command: `python bench/closed_loop.py {' '.join(sys.argv[1:])}`",
        "", "Held-out blueprints: " + ", ".join(f"`{b}`" for b in summary["holdout_blueprints"]), "",
        table(models), "",
        "Training time: " + "; ".join(f"{g['model']}: {g['rows']} rows, {g['steps']} steps, {g['train_seconds']} s "
                                      f"({g['seconds_per_step']} s/step, {g['seconds_per_1k_tokens']} s per 1k tokens, "
                                      f"~{g['tokens_per_row']} tokens/row)" for g in growth),
        "", f"Data (rollouts + verify + export) per round, s: {result['data_seconds']}. Total wall: {result['wall_seconds']} s.", ""])
    out.mkdir(parents=True, exist_ok=True)
    (out / "closed_loop.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    (out / "closed_loop.md").write_text(md, encoding="utf-8")
    print(md)


if __name__ == "__main__":
    main()
