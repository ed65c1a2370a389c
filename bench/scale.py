"""Benchmark: time and peak memory of the stages before rollouts as the input grows.

    python bench/scale.py                      # 1k, 10k and 100k records
    python bench/scale.py --sizes 1000,10000   # what fits a small machine
    python bench/scale.py --sizes 300 --json out.json
    python bench/scale.py --stages ingest,blueprints,dedupe,parquet   # without presidio: 100k fits

For each size N, a fresh subprocess (so its memory starts clean) writes N synthetic airline log
records (canonical JSONL; fictional, made with Faker, seeded; six request templates so blueprints
form a handful of clusters, 5% exact copies and 5% light edits so dedupe has work) and runs:

* ``ingest``: :func:`pipeline.stages.ingest_stage` (read, validate, route), writing records and
  quarantine rows to JSONL files as it reads them;
* ``anonymize``: :func:`pipeline.stages.anonymize_stage` (real presidio, fixed key), reading the
  ingested file and writing each pseudonymized record as it comes;
* ``blueprints``: :func:`pipeline.stages.blueprints_stage` (one pass over the file, compact
  per-record features only);
* ``dedupe``: :func:`pipeline.dedupe.dedupe_ids` (the decisions of :func:`pipeline.dedupe.dedupe`,
  holding ids only) over the anonymized logs as trajectories, read from the file;
* ``parquet``: the anonymized records written by the export's writer,
  :func:`pipeline.export.writer.write_parquet` (one ``pyarrow.parquet.ParquetWriter``, row groups
  of ``--row-group`` rows, default :data:`pipeline.export.writer.ROW_GROUP_ROWS`), from a generator
  of rows (JSON text columns), then read back to check the row count.

Records pass from stage to stage as :class:`pipeline.streams.JsonlSeq` (a JSONL file read when
iterated), as in a pipeline run, where the files are the work folder's stage outputs.

``--stages`` runs a subset (``ingest`` always runs); without ``anonymize`` the later stages take
the ingested records as they are (the same shape, not pseudonymized): presidio's NER runs at
tens of records per second on a small machine, the other stages at hundreds to thousands.

Rollouts are excluded (a GPU-bound stage measured by bench/rollout.py). Per stage: wall seconds
(``time.perf_counter``) and memory: the process's resident set size sampled every 20 ms by a thread
(``psutil``) gives the stage's peak RSS and its growth over the RSS at the stage's start;
``ru_maxrss`` (``resource.getrusage``) gives the process peak. ``--tracemalloc`` adds the peak of
Python allocations per stage (``tracemalloc``; slows everything 2-3x). The summary prints, per
stage, the growth exponent: the least-squares slope of log(time) and of log(peak RSS growth) over
log(N) (1 = linear; memory that stays flat has slope ~0).

Measured (2026-12-01, 2 shared cores, ``nice -n 10``; docs/scaling.md has the table)::

    nice -n 10 python bench/scale.py --sizes 1000,10000,100000 --stages ingest,blueprints,dedupe,parquet

    records  stage       seconds  peak RSS growth MB      exponents (time / RSS growth)
    1k       ingest        11.35     2.5                   ingest      0.88 / 0.39
    10k      ingest       104.04     5.2                   blueprints  0.53 / 0.74
    100k     ingest       641.16    15.0                   dedupe      0.65 / 0.55
    100k     blueprints   112.65    89.8                   parquet     0.08 / 0.26
    100k     dedupe       108.29   378.2
    100k     parquet       19.65   248.1

Before streaming (stages passed lists) the 100k growth was ingest 833 MB, blueprints 399 MB,
dedupe 669 MB. What still grows: ingest's ids seen (~150 B/record), blueprints' compact
per-record features (~0.9 KB), dedupe_ids' LSH index (~3.5 KB per kept id); Parquet's RSS is
pyarrow's pool and fragmentation (its Python memory is flat). With anonymize
(``--sizes 300,1000,3000``) its RSS growth stays at its models' ~590 MB (exponent 0.00).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

STAGES = ("ingest", "anonymize", "blueprints", "dedupe", "parquet")


# ---------------------------------------------------------------- synthetic logs
def _call(cid: str, name: str, args: dict) -> dict:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]}


def _result(cid: str, name: str, content: dict | str) -> dict:
    return {"role": "tool", "tool_call_id": cid, "name": name,
            "content": content if isinstance(content, str) else json.dumps(content)}


def make_record(fake, rng: random.Random, i: int) -> dict:
    """One fictional airline log (canonical format) of one of six request kinds."""
    first, last = fake.first_name(), fake.last_name()
    uid = f"{first.lower()}_{last.lower()}_{rng.randint(1000, 9999)}"
    rid = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(6))
    city, email = fake.city(), f"{first.lower()}.{last.lower()}{rng.randint(1, 99)}@example.com"
    user = {"user_id": uid, "name": {"first_name": first, "last_name": last}, "email": email,
            "address": {"address1": fake.street_address(), "city": city, "zip": fake.zipcode(), "country": "USA"},
            "dob": fake.date_of_birth().isoformat(), "membership": rng.choice(["regular", "silver", "gold"]),
            "payment_methods": {f"credit_card_{rng.randint(10**6, 10**7 - 1)}": {"source": "credit_card",
                                                                                  "last_four": str(rng.randint(1000, 9999))}},
            "reservations": [rid]}
    res = {"reservation_id": rid, "user_id": uid, "origin": "JFK", "destination": rng.choice(["SEA", "LAX", "ORD"]),
           "cabin": rng.choice(["economy", "business"]), "flights": [
               {"flight_number": f"HAT{rng.randint(1, 300):03d}", "date": f"2024-05-{rng.randint(16, 30)}",
                "price": rng.randint(80, 900)}],
           "passengers": [{"first_name": first, "last_name": last, "dob": user["dob"]}], "insurance": "no"}
    kind = rng.randrange(6)
    opener = [
        f"Hi, I'm {first} {last} ({uid}). Please cancel reservation {rid}, my plans changed.",
        f"Hello, this is {first} {last}. I need to cancel booking {rid}; user id {uid}.",
        f"Hi, {uid} here. Can I add two checked bags to reservation {rid}? Email {email}.",
        f"Good morning, I am {first} {last}, user {uid}. What is the status of my trip {rid} to {city}?",
        f"I want a refund for {rid} right now, I'm {uid}. This airline is terrible.",
        f"Hey, {first} here (user id {uid}). Please upgrade {rid} to business class.",
    ][kind]
    msgs = [{"role": "system", "content": "You are an airline agent. Follow the policy."},
            {"role": "user", "content": opener},
            _call("c1", "get_user_details", {"user_id": uid}), _result("c1", "get_user_details", user),
            _call("c2", "get_reservation_details", {"reservation_id": rid}),
            _result("c2", "get_reservation_details", res),
            {"role": "assistant", "content": f"Thanks {first}. I found reservation {rid}. " + fake.sentence(nb_words=12)
             + " Shall I proceed (yes/no)?"},
            {"role": "user", "content": "Yes, please."}]
    if kind in (0, 1):
        msgs += [_call("c3", "cancel_reservation", {"reservation_id": rid}),
                 _result("c3", "cancel_reservation", {**res, "status": "cancelled"}),
                 {"role": "assistant", "content": "Your reservation is cancelled; the refund takes 5 to 7 days."}]
    elif kind == 2:
        args = {"reservation_id": rid, "total_baggages": 2, "nonfree_baggages": 1,
                "payment_id": next(iter(user["payment_methods"]))}
        msgs += [_call("c3", "update_reservation_baggages", args),
                 _result("c3", "update_reservation_baggages", {**res, "total_baggages": 2}),
                 {"role": "assistant", "content": "Two bags are added to your reservation."}]
    elif kind == 4:
        msgs += [_call("c3", "transfer_to_human_agents", {"summary": "customer wants a refund"}),
                 _result("c3", "transfer_to_human_agents", "Transfer successful"),
                 {"role": "assistant", "content": "I am transferring you to a human agent."}]
    else:
        msgs += [{"role": "assistant", "content": "I am sorry, I cannot do that under our policy. " + fake.sentence()}]
    return {"id": f"log-{i:07d}", "messages": msgs, "metadata": {"reward": 1.0, "domain": "airline"}}


def write_logs(path: Path, n: int, seed: int = 0) -> None:
    """``n`` records to ``path`` (JSONL), streamed; about 5% exact copies and 5% edited copies of
    earlier records under new ids."""
    from faker import Faker

    fake, rng = Faker("en_US"), random.Random(seed)
    Faker.seed(seed)
    recent: list[dict] = []
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(n):
            r = rng.random()
            if recent and r < 0.05:
                rec = {**rng.choice(recent), "id": f"log-{i:07d}"}
            elif recent and r < 0.10:
                src = rng.choice(recent)
                msgs = json.loads(json.dumps(src["messages"]))
                msgs[-1]["content"] += " Have a nice day."
                rec = {**src, "id": f"log-{i:07d}", "messages": msgs}
            else:
                rec = make_record(fake, rng, i)
            recent = (recent + [rec])[-50:]
            fh.write(json.dumps(rec) + "\n")


# ---------------------------------------------------------------- measuring one size (child process)
class RssSampler:
    """Peak resident set size (bytes) of this process while a stage runs, sampled every 20 ms."""

    def __init__(self) -> None:
        import psutil

        self.proc = psutil.Process()
        self.peak = 0
        self._stop = threading.Event()
        self._t: threading.Thread | None = None

    def rss(self) -> int:
        return self.proc.memory_info().rss

    def __enter__(self) -> "RssSampler":
        self.start = self.peak = self.rss()
        self._stop.clear()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            self.peak = max(self.peak, self.rss())

    def __exit__(self, *exc) -> bool:
        self._stop.set()
        assert self._t is not None
        self._t.join()
        self.peak = max(self.peak, self.rss())
        return False


def _trajectory(r):
    from pipeline.records import Trajectory

    return Trajectory(trajectory_id=r.id, task_id=r.id, blueprint_id="-", sample_index=0, model="log",
                      backend="log", messages=r.messages, tools=[], tool_calls=[], final_state_hash="-",
                      finish_reason="agent_stop", n_turns=0, prompt_tokens=0, completion_tokens=0, seed=0)


def _trajectories(records):
    for r in records:
        yield _trajectory(r)


def _write_parquet(records, path: Path, row_group: int | None) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from pipeline.export.writer import write_parquet

    schema = pa.schema([("id", pa.string()), ("domain", pa.string()), ("messages", pa.string()),
                        ("metadata", pa.string())])
    rows = ({"id": r.id, "domain": r.metadata.get("domain"), "messages": json.dumps(r.messages, ensure_ascii=False),
             "metadata": json.dumps(r.metadata, ensure_ascii=False, default=str)} for r in records)
    n = write_parquet(str(path), rows, schema, row_group_rows=row_group)
    assert pq.ParquetFile(path).metadata.num_rows == n
    return n


def measure(n: int, workdir: Path, use_tracemalloc: bool, stages: tuple[str, ...] = STAGES,
            row_group: int | None = None) -> dict:
    """Run the stages on ``n`` fresh records in this process; returns the measurements."""
    import logging
    import tracemalloc

    logging.disable(logging.WARNING)
    from pipeline.dedupe import dedupe_ids
    from pipeline.stages import anonymize_stage, blueprints_stage, ingest_stage

    logs = workdir / f"logs-{n}.jsonl"
    t = time.perf_counter()
    write_logs(logs, n)
    out: dict = {"n": n, "generate_s": round(time.perf_counter() - t, 2), "input_mb": round(logs.stat().st_size / 2**20, 1),
                 "stages": {}}
    if use_tracemalloc:
        tracemalloc.start()
    state: dict = {}

    def stage(name, fn):
        if use_tracemalloc:
            tracemalloc.reset_peak()
        with RssSampler() as s:
            t0 = time.perf_counter()
            result = fn()
            wall = time.perf_counter() - t0
        row = {"seconds": round(wall, 2), "rss_start_mb": round(s.start / 2**20, 1),
               "rss_peak_mb": round(s.peak / 2**20, 1), "rss_growth_mb": round((s.peak - s.start) / 2**20, 1)}
        if use_tracemalloc:
            row["py_peak_mb"] = round(tracemalloc.get_traced_memory()[1] / 2**20, 1)
        out["stages"][name] = row
        return result

    # every stage streams: records go from stage to stage as JSONL-backed sequences
    # (pipeline.streams.JsonlSeq) in workdir, as in a pipeline run (there: the work folder)
    state["ingest"] = stage("ingest", lambda: ingest_stage(str(logs), folder=workdir / f"ingest-{n}"))
    state["n_ok"] = len(state["ingest"].records)
    if "anonymize" in stages:
        anon = stage("anonymize", lambda: anonymize_stage(state["ingest"].records, secret="bench-scale-key",
                                                          progress=False, folder=workdir / f"anonymize-{n}"))
        records = anon.records
    else:
        records = state["ingest"].records
    bps = stage("blueprints", lambda: blueprints_stage(records)) if "blueprints" in stages else []
    # dedupe_ids: the decisions of pipeline.dedupe.dedupe, holding ids only (a kept record whose
    # shingles are not cached is read again from the file by position)
    dd = stage("dedupe", lambda: dedupe_ids(_trajectories(records), fetch=lambda i: _trajectory(records[i]))) \
        if "dedupe" in stages else None
    rows = stage("parquet", lambda: _write_parquet(records, workdir / f"records-{n}.parquet", row_group)) \
        if "parquet" in stages else 0
    out.update(records_ok=state["n_ok"], anonymized=len(records) if "anonymize" in stages else None,
               blueprints=len(bps), dedupe_kept=len(dd.kept) if dd else None,
               dedupe_rejected=len(dd.rejected) if dd else None, parquet_rows=rows,
               ru_maxrss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1))
    return out


# ---------------------------------------------------------------- parent: one subprocess per size
def slope(xs: list[float], ys: list[float]) -> float | None:
    """Least-squares slope of log(y) on log(x); None with fewer than two usable points."""
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if x > 0 and y > 0]
    if len(pts) < 2:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    den = sum((p[0] - mx) ** 2 for p in pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / den if den else None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,10000,100000", help="comma-separated record counts")
    ap.add_argument("--tracemalloc", action="store_true", help="also measure Python allocation peaks")
    ap.add_argument("--json", help="write the measurements here")
    ap.add_argument("--stages", default=",".join(STAGES),
                    help="stages to run (ingest always runs; without anonymize the later stages take the ingested records)")
    ap.add_argument("--row-group", type=int, default=None,
                    help="rows per Parquet row group (default: pipeline.export.writer.ROW_GROUP_ROWS)")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--workdir", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    stages = tuple(s for s in STAGES if s in {x.strip() for x in args.stages.split(",")} | {"ingest"})
    unknown = {x.strip() for x in args.stages.split(",") if x.strip()} - set(STAGES)
    if unknown:
        ap.error(f"unknown stages {sorted(unknown)}; choose from {', '.join(STAGES)}")
    if args.child:
        print(json.dumps(measure(args.child, Path(args.workdir), args.tracemalloc, stages, args.row_group)))
        return 0
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    results = []
    with tempfile.TemporaryDirectory(prefix="trajpipe-scale-") as tmp:
        for n in sizes:
            cmd = [sys.executable, __file__, "--child", str(n), "--workdir", tmp, "--stages", ",".join(stages)] + \
                (["--tracemalloc"] if args.tracemalloc else []) + \
                (["--row-group", str(args.row_group)] if args.row_group else [])
            t = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONWARNINGS": "ignore"})
            if proc.returncode != 0:
                print(proc.stderr[-3000:], file=sys.stderr)
                return 1
            res = json.loads(proc.stdout.strip().splitlines()[-1])
            res["subprocess_s"] = round(time.perf_counter() - t, 1)
            results.append(res)
            print(f"n={n}: done in {res['subprocess_s']}s (input {res['input_mb']} MB)", flush=True)
    head = "| records | stage | seconds | records/s | RSS at start MB | peak RSS MB | growth MB |" + \
        (" Python peak MB |" if args.tracemalloc else "")
    print("\n" + head)
    print("|" + "---|" * (head.count("|") - 1))
    for r in results:
        for s in stages:
            m = r["stages"][s]
            print(f"| {r['n']:,} | {s} | {m['seconds']} | {r['n'] / max(m['seconds'], 1e-9):,.0f} | {m['rss_start_mb']} | "
                  f"{m['rss_peak_mb']} | {m['rss_growth_mb']} |" + (f" {m['py_peak_mb']} |" if args.tracemalloc else ""))
    for r in results:
        print(f"n={r['n']:,}: ok {r['records_ok']}, anonymized {r['anonymized']}, blueprints {r['blueprints']}, "
              f"dedupe kept {r['dedupe_kept']} / rejected {r['dedupe_rejected']}, parquet rows {r['parquet_rows']}, "
              f"process peak (ru_maxrss) {r['ru_maxrss_mb']} MB")
    if len(results) >= 2:
        ns = [r["n"] for r in results]
        print("\ngrowth exponent (log-log slope over the sizes; 1 = linear, 0 = flat):")
        print("| stage | time | peak RSS growth |\n|---|---|---|")
        for s in stages:
            ts = slope(ns, [r["stages"][s]["seconds"] for r in results])
            ms = slope(ns, [max(r["stages"][s]["rss_growth_mb"], 0.1) for r in results])
            print(f"| {s} | {ts:.2f} | {ms:.2f} |")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
