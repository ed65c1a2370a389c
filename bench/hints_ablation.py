"""Ablation: grammar x help mode on real tasks, with the bundled teacher (not a timed test).

For each setting in {no grammar, grammar} x {none, plan, example, guided} (guided needs the
grammar: it is skipped without one) the same verified tasks are rolled out ``k`` times with one
shared backend, then verified. Printed per setting:

* pass rate: verified trajectories / trajectories;
* valid calls: tool calls that parse, name a task tool and match its JSON schema / all call
  attempts (a ``<tool_call>`` block that does not parse counts as an invalid attempt);
* parseable turns: agent turns without a malformed ``<tool_call>`` block / agent turns;
* first-call accuracy: episodes whose first tool call equals the reference's first call (name
  and arguments) / episodes;
* wall seconds of the rollouts.

The baseline measured in the same run is the first setting (no grammar, no help); the last
column is each setting's pass rate over it (``inf`` where the baseline passes nothing).

Usage (a work folder after ``trajpipe synthesize`` + ``trajpipe verify``)::

    python bench/hints_ablation.py --work W --k 2 [--backend vllm] [--modes none,guided]
        [--grammar both|on|off] [--max-turns 8] [--limit N] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _metrics(trajs, verdicts, tasks) -> dict:
    from pipeline.sandbox import validate_arguments

    by_task = {t.task_id: t for t in tasks}
    attempts = valid = turns = bad_turns = first_ok = 0
    for tr in trajs:
        schemas = {t["function"]["name"]: t for t in by_task[tr.task_id].visible.tools}
        turns += tr.n_turns
        bad_turns += len({c["step"] for c in tr.tool_calls if not c.get("valid_json")})
        for c in tr.tool_calls:
            attempts += 1
            if not c.get("valid_json") or c.get("name") not in schemas:
                continue
            args = json.loads(c["arguments"]) if isinstance(c["arguments"], str) else c["arguments"]
            valid += validate_arguments(schemas[c["name"]], args) is None
        ref = by_task[tr.task_id].hidden.reference_solution
        first = next((c for c in tr.tool_calls if c.get("valid_json") and c.get("name")), None)
        if first is not None and ref and first["name"] == ref[0].name and json.loads(first["arguments"]) == ref[0].arguments:
            first_ok += 1
    n = max(1, len(trajs))
    return {"trajectories": len(trajs), "passed": sum(v.passed for v in verdicts),
            "pass_rate": sum(v.passed for v in verdicts) / n,
            "valid_calls": valid / attempts if attempts else float("nan"), "call_attempts": attempts,
            "parseable_turns": 1 - bad_turns / turns if turns else float("nan"),
            "first_call_accuracy": first_ok / n}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", required=True, help="work folder with tasks.jsonl (+ task_verdicts.jsonl)")
    ap.add_argument("--k", type=int, default=2)
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--model", default=None)
    ap.add_argument("--modes", default="none,plan,example,guided")
    ap.add_argument("--grammar", default="both", choices=["both", "on", "off"])
    ap.add_argument("--max-turns", type=int, default=8)
    ap.add_argument("--max-new-tokens", type=int, default=64)
    ap.add_argument("--limit", type=int, default=None, help="N verified tasks, evenly spaced over tasks.jsonl")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default=None)
    a = ap.parse_args()

    from pipeline.ingest import read_jsonl
    from pipeline.records import TaskPackage, TaskVerdict
    from pipeline.rollout.backends import SamplingConfig, load_backend, resolve_backend
    from pipeline.rollout.harness import RolloutConfig, run_rollouts
    from pipeline.stages import get_domain, verify_trajectories_stage

    from pipeline.runner import artifact_path

    work = Path(a.work)
    tp = artifact_path(work, "tasks")  # WORK/synthesize/<sig>/tasks.jsonl (or a flat WORK/tasks.jsonl)
    if tp is None:
        raise SystemExit(f"no tasks in {work}: run `trajpipe synthesize --work {work}` first")
    tasks = read_jsonl(tp, TaskPackage)
    tvp = artifact_path(work, "task_verdicts")
    if tvp is not None:
        ok = {v.task_id for v in read_jsonl(tvp, TaskVerdict) if v.passed}
        tasks = [t for t in tasks if t.task_id in ok]
    if a.limit and a.limit < len(tasks):  # spread over the file: every kind, not the first blueprint's
        step = len(tasks) / a.limit
        tasks = [tasks[int(i * step)] for i in range(a.limit)]
    name = resolve_backend(a.backend)
    t0 = time.perf_counter()
    be = load_backend(name, a.model, **({"seed": a.seed} if name == "vllm" else {}))
    load_s = time.perf_counter() - t0
    grammars = {"both": ["none", "grammar"], "on": ["grammar"], "off": ["none"]}[a.grammar]
    rows = []
    for constrain in grammars:
        for mode in a.modes.split(","):
            if mode == "guided" and constrain != "grammar":
                continue
            cfg = RolloutConfig(k=a.k, max_turns=a.max_turns, constrain=constrain, hints=mode,
                                sampling=SamplingConfig(max_new_tokens=a.max_new_tokens, temperature=0.7, seed=a.seed))
            t0 = time.perf_counter()
            trajs = run_rollouts(tasks, be, get_domain, cfg)
            wall = time.perf_counter() - t0
            verdicts = verify_trajectories_stage(trajs, tasks)
            m = {"backend": be.name, "grammar": constrain, "hints": mode, "wall_s": round(wall, 1), **_metrics(trajs, verdicts, tasks)}
            rows.append(m)
            print(json.dumps(m), flush=True)
    base = rows[0]["pass_rate"] if rows else 0.0
    print(f"\n{len(tasks)} tasks x k={a.k}, backend {be.name} (load {load_s:.0f} s)")
    print("| backend | grammar | hints | pass rate | valid calls | parseable turns | first-call acc. | wall s | pass rate / baseline |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        ratio = r["pass_rate"] / base if base else float("inf")
        print(f"| {r['backend']} | {r['grammar']} | {r['hints']} | {r['pass_rate']:.1%} ({r['passed']}/{r['trajectories']}) | "
              f"{r['valid_calls']:.1%} of {r['call_attempts']} | {r['parseable_turns']:.1%} | "
              f"{r['first_call_accuracy']:.1%} | {r['wall_s']} | {ratio:.2f} |")
    if a.json:
        Path(a.json).write_text(json.dumps({"tasks": len(tasks), "k": a.k, "load_s": load_s, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
