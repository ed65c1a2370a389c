"""Benchmark: `trajpipe view` on 10,000 synthetic trajectories, against 1,000 in the same run.

    python bench/view.py                      # 1,000 (baseline) and 10,000 trajectories
    python bench/view.py --sizes 1000,10000,20000 --keep /tmp/view10k

The rows are synthetic but shaped like a real run's: real airline tasks (the domain's generator
through :func:`pipeline.synthesize.build_package`), rollouts replaying each task's reference
solution in the real sandbox (system prompt, customer turns, tool calls and tool results as the
harness writes them), cloned to N trajectories over the tasks with varied verdicts (passes;
failures with a reason code and a violation pinned at a step, or a state diff), hint modes and
injected faults. They are written as a work folder (JSONL) and the viewer reads and renders it as
it would a run's: :func:`pipeline.view.load_run` then :func:`pipeline.view.render_view`.

Prints, per size: load seconds, render seconds, ms per trajectory, pages written, total MB, and
the size of the pages a person opens (index, a list page, a trajectory page, a task page, the
filter data); then the ratio of the largest size to the baseline (linear scaling reads ~N/N0).
Not a test: seconds depend on the machine.
"""
from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipeline.domains import get_domain  # noqa: E402
from pipeline.records import Blueprint, PolicyRule  # noqa: E402
from pipeline.rollout.prompting import system_prompt  # noqa: E402
from pipeline.sandbox import Sandbox  # noqa: E402
from pipeline.synthesize import build_package  # noqa: E402
from pipeline.view import load_run, render_view  # noqa: E402

KINDS = ("cancel_reservation", "update_reservation_baggages", "send_certificate", "update_reservation_flights",
         "book_reservation")
TASKS_PER_KIND = 10
CODES = ["TRAJ_WRONG_FINAL_STATE", "TRAJ_TURN_LIMIT", "TRAJ_REPEATED_CALL", "TRAJ_UNGROUNDED_ARGUMENT",
         "TRAJ_WRITE_WITHOUT_CONFIRMATION", "TRAJ_NO_REFUSAL"]


def base_rollouts() -> tuple[list, list[dict]]:
    """Real tasks and one reference-replay rollout (messages, tool-call log) per task."""
    dom = get_domain("airline")
    tasks, rolls = [], []
    for j, kind in enumerate(KINDS):
        bp = Blueprint(blueprint_id=f"airline-{kind}-bench", domain="airline", intent=f"customer wants: {kind}",
                       action_signature=[f"{kind}(...)"], required_tools=[kind],
                       read_tools=["get_user_details", "get_reservation_details"], initial_state_requirements={},
                       business_constraints=[PolicyRule(rule_id="R1", text="rule")], success_condition="state matches",
                       failure_modes=[], source_log_ids=[f"log-{kind}"], n_logs=1, n_success=1, task_kind=kind,
                       skills=dom.skills_for_kind(kind))
        for i in range(TASKS_PER_KIND):
            try:
                t = build_package(bp, dom, i, j)
            except Exception:  # noqa: BLE001 - a kind the generator cannot build here is skipped
                continue
            sb = Sandbox(dom, t.hidden.initial_state)
            msgs = [{"role": "system", "content": system_prompt(t.visible.policy, t.visible.tools)},
                    {"role": "user", "content": t.visible.instruction}]
            log = []
            for s, c in enumerate(t.hidden.reference_solution):
                res = sb.call(c.name, c.arguments)
                cid = f"call_{s}_0"
                msgs.append({"role": "assistant", "content": None, "tool_calls": [
                    {"id": cid, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}]})
                msgs.append({"role": "tool", "tool_call_id": cid, "name": c.name, "content": res.content})
                log.append({"step": s, "name": c.name, "arguments": json.dumps(c.arguments), "valid_json": True,
                            "error": res.error_code, "fault": None})
            msgs.append({"role": "assistant", "content": "Done. Is there anything else I can help you with?"})
            tasks.append(t)
            rolls.append({"messages": msgs, "tool_calls": log, "bp": bp})
    return tasks, rolls


def write_work(folder: Path, n: int, tasks: list, rolls: list[dict], seed: int = 0) -> None:
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    bps = {r["bp"].blueprint_id: r["bp"] for r in rolls}
    with open(folder / "blueprints.jsonl", "w") as fh:
        for b in bps.values():
            fh.write(b.model_dump_json() + "\n")
    with open(folder / "tasks.jsonl", "w") as ft, open(folder / "task_verdicts.jsonl", "w") as fv:
        for t in tasks:
            ft.write(t.model_dump_json() + "\n")
            fv.write(json.dumps({"task_id": t.task_id, "passed": True, "reason_codes": [], "details": {}}) + "\n")
    with open(folder / "trajectories.jsonl", "w") as ftr, open(folder / "verdicts.jsonl", "w") as fvd:
        for i in range(n):
            k = i % len(tasks)
            t, r = tasks[k], rolls[k]
            tid = f"{t.task_id}-s{i // len(tasks)}"
            hint = rng.choice(["none", "none", "guided", "plan"])
            faults = [{"step": 1, "tool": r["tool_calls"][min(1, len(r["tool_calls"]) - 1)]["name"], "kind": "timeout"}] \
                if rng.random() < 0.1 and r["tool_calls"] else []
            traj = {"trajectory_id": tid, "task_id": t.task_id, "blueprint_id": t.blueprint_id, "sample_index": i,
                    "model": "bench", "backend": "synthetic", "messages": r["messages"], "tools": t.visible.tools,
                    "tool_calls": r["tool_calls"], "final_state_hash": "0" * 16, "finish_reason": "agent_stop",
                    "n_turns": len(r["tool_calls"]) + 1, "prompt_tokens": 1000, "completion_tokens": 200, "seed": i,
                    "faults": faults, "recovery": bool(faults) and rng.random() < 0.5, "hint_mode": hint}
            passed = rng.random() < 0.4
            codes = [] if passed else rng.sample(CODES, rng.choice([1, 1, 2]))
            viol = [] if passed else [{"code": codes[0], "step": min(1, len(r["tool_calls"]) - 1),
                                       "detail": f"{codes[0]} at step 1 (synthetic)"}]
            details = {} if passed else {"state_diff": [f"reservations/X{i % 97}/status: 'cancelled' -> 'confirmed'"]}
            verdict = {"trajectory_id": tid, "task_id": t.task_id, "passed": passed, "reason_codes": codes,
                       "details": details, "reward": 1.0 if passed else 0.1,
                       "reward_components": {"outcome": float(passed), "format_valid": 1.0, "violations": len(viol),
                                             "tool_calls": len(r["tool_calls"]), "length": 200.0},
                       "violations": viol}
            ftr.write(json.dumps(traj) + "\n")
            fvd.write(json.dumps(verdict) + "\n")


def measure(n: int, tasks: list, rolls: list[dict], keep: Path | None) -> dict:
    root = Path(tempfile.mkdtemp(prefix=f"view{n}-"))
    try:
        work = root / "work"
        write_work(work, n, tasks, rolls)
        t0 = time.perf_counter()
        data = load_run(work)
        t1 = time.perf_counter()
        res = render_view(data, root / "view")
        t2 = time.perf_counter()
        v = res.folder
        traj_pages = sorted((v / "t").iterdir())
        task_pages = sorted((v / "task").iterdir())
        sizes = {"index": (v / "index.html").stat().st_size,
                 "list page": (v / "trajectories-0001.html").stat().st_size,
                 "trajectory page (mean)": sum(p.stat().st_size for p in traj_pages) / len(traj_pages),
                 "task page (mean)": sum(p.stat().st_size for p in task_pages) / len(task_pages),
                 "filter data (data.js)": (v / "assets" / "data.js").stat().st_size}
        out = {"n": n, "load_s": t1 - t0, "render_s": t2 - t1, "pages": sum(c for k, c in res.pages.items() if k != "assets"),
               "mb": res.bytes / 1e6, "sizes": sizes, "list_pages": res.pages.get("trajectories_list", 0)}
        if keep is not None:
            shutil.rmtree(keep, ignore_errors=True)
            shutil.copytree(v, keep)
        return out
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,10000", help="comma-separated trajectory counts; the first is the baseline")
    ap.add_argument("--keep", type=Path, default=None, help="copy the largest report here (to open it)")
    a = ap.parse_args()
    sizes = [int(x) for x in a.sizes.split(",")]
    tasks, rolls = base_rollouts()
    print(f"{len(tasks)} real airline tasks, reference-replay rollouts cloned to {sizes} trajectories")
    rows = []
    for n in sizes:
        r = measure(n, tasks, rolls, a.keep if n == max(sizes) else None)
        rows.append(r)
        print(f"\nN={n:,}: load {r['load_s']:.1f}s, render {r['render_s']:.1f}s "
              f"({1000 * r['render_s'] / n:.2f} ms/trajectory), {r['pages']:,} pages "
              f"({r['list_pages']} list pages), {r['mb']:.0f} MB")
        for k, s in r["sizes"].items():
            print(f"  {k:<24} {s / 1024:8.1f} KiB")
    base, top = rows[0], rows[-1]
    if top is not base:
        f = top["n"] / base["n"]
        print(f"\nratio N={top['n']:,} / N={base['n']:,} (x{f:.0f} rows): load x{top['load_s'] / base['load_s']:.1f}, "
              f"render x{top['render_s'] / base['render_s']:.1f}, bytes x{top['mb'] / base['mb']:.1f}, "
              f"index page x{top['sizes']['index'] / base['sizes']['index']:.2f}, "
              f"list page x{top['sizes']['list page'] / base['sizes']['list page']:.2f}")


if __name__ == "__main__":
    main()
