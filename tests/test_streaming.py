"""The pre-rollout path streams (issue 16): stage outputs are JSONL-backed sequences
(pipeline.streams.JsonlSeq) written as they are made, the runner saves and loads them without
holding them, and the Python memory peak of ingest -> blueprints -> source keys -> dedupe does
not grow with the number of records (tracemalloc, 4x the records)."""
from __future__ import annotations

import json
import pickle
import random
import tracemalloc
from pathlib import Path

import pytest

import pipeline.dedupe as dd
from pipeline.ingest import ingest, write_jsonl
from pipeline.records import LogRecord
from pipeline.streams import JsonlSeq, JsonlSpill, spill

WORDS = [f"w{i}" for i in range(5000)]


def _call(cid: str, name: str, args: dict) -> dict:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]}


def write_logs(path: Path, n: int, words: int = 3000, seed: int = 0) -> None:
    """``n`` airline logs (canonical JSONL, about 20 KB each: a long assistant message of random
    words, so each record is distinct and large while cheap to validate), streamed."""
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(n):
            uid, rid = f"user_{i}", f"R{i:05d}"
            msgs = [{"role": "user", "content": f"Please cancel reservation {rid}, I am {uid}."},
                    _call("c1", "get_reservation_details", {"reservation_id": rid}),
                    {"role": "tool", "tool_call_id": "c1", "name": "get_reservation_details",
                     "content": json.dumps({"reservation_id": rid, "user_id": uid})},
                    _call("c2", "cancel_reservation", {"reservation_id": rid}),
                    {"role": "tool", "tool_call_id": "c2", "name": "cancel_reservation",
                     "content": json.dumps({"reservation_id": rid, "status": "cancelled"})},
                    {"role": "assistant", "content": " ".join(rng.choices(WORDS, k=words))}]
            fh.write(json.dumps({"id": f"log-{i:06d}", "messages": msgs,
                                 "metadata": {"reward": 1.0, "user_id": uid, "timestamp": "2024-05-01"}}) + "\n")


def _trajectory(r: LogRecord):
    from pipeline.records import Trajectory

    return Trajectory(trajectory_id=r.id, task_id=r.id, blueprint_id="-", sample_index=0, model="log",
                      backend="log", messages=r.messages, tools=[], tool_calls=[], final_state_hash="-",
                      finish_reason="agent_stop", n_turns=0, prompt_tokens=0, completion_tokens=0, seed=0)


def test_jsonl_seq_is_a_reiterable_list_like_view(tmp_path):
    recs = [LogRecord(id=f"r{i}", messages=[{"role": "user", "content": f"hi {i}"}]) for i in range(5)]
    seq = spill(iter(recs), LogRecord, folder=tmp_path)
    assert len(seq) == 5 and bool(seq) and seq == recs and list(seq) == list(seq)  # re-iterable
    assert seq[0] == recs[0] and seq[-1] == recs[-1] and seq[1:3] == recs[1:3]
    with pytest.raises(IndexError):
        seq[5]
    assert seq + [] == recs and [] + seq == recs
    write_jsonl(recs, tmp_path / "ref.jsonl")  # the same bytes as write_jsonl
    assert seq.path.read_bytes() == (tmp_path / "ref.jsonl").read_bytes()
    copy = pickle.loads(pickle.dumps(seq))  # a worker's copy reads the file, never removes it
    assert copy == recs and len(JsonlSeq(seq.path, LogRecord)) == 5
    path = seq.path
    del seq, copy
    import gc

    gc.collect()
    assert not path.exists()  # an owned temporary file goes with its sequence
    empty = spill([], LogRecord, folder=tmp_path)
    assert len(empty) == 0 and not empty and empty == []
    with JsonlSpill(LogRecord, folder=tmp_path) as sp:  # an error leaves no file
        sp.add(recs[0])
    assert sp.seq() == recs[:1]


def test_runner_streams_ingest_and_saves_the_same_bytes(tmp_path):
    """Runner.run('ingest'): the outputs are JsonlSeq over the saved files, whose bytes are what
    write_jsonl wrote from ingest()'s lists; a second Runner loads them lazily."""
    import pipeline.stages  # noqa: F401  (registers the stages)
    from pipeline.config import RunConfig
    from pipeline.runner import Runner

    logs = tmp_path / "logs.jsonl"
    write_logs(logs, 30, words=50)
    with open(logs, "a", encoding="utf-8") as fh:
        fh.write("not json\n")
    cfg = RunConfig(work_dir=str(tmp_path / "work"))
    cfg.ingest.input_path = str(logs)
    res = Runner(cfg).run("ingest")
    assert isinstance(res.outputs["logs"], JsonlSeq) and len(res.outputs["logs"]) == 30
    assert res.stats["ok"] == 30 and res.stats["quarantined"] == 1
    ref = ingest(logs)
    write_jsonl(ref.records, tmp_path / "ref_logs.jsonl")
    write_jsonl(ref.quarantine, tmp_path / "ref_q.jsonl")
    folder = tmp_path / "work" / "ingest" / res.signature
    assert (folder / "logs.jsonl").read_bytes() == (tmp_path / "ref_logs.jsonl").read_bytes()
    assert (folder / "quarantine.jsonl").read_bytes() == (tmp_path / "ref_q.jsonl").read_bytes()
    again = Runner(cfg).run("ingest")
    assert again.reused and isinstance(again.outputs["logs"], JsonlSeq) and again.outputs["logs"] == ref.records


def test_dedupe_ids_decides_as_dedupe(tmp_path):
    recs = []
    rng = random.Random(3)
    for i in range(60):
        text = " ".join(rng.choices(WORDS[:300], k=40))
        recs.append(LogRecord(id=f"r{i}", messages=[{"role": "user", "content": text}]))
        if i % 5 == 0:  # an exact and a near copy
            recs.append(LogRecord(id=f"r{i}-copy", messages=[{"role": "user", "content": text}]))
            recs.append(LogRecord(id=f"r{i}-near", messages=[{"role": "user", "content": text + " thanks"}]))
    trajs = [_trajectory(r) for r in recs]
    ref = dd.dedupe(trajs, chunk_size=7)
    seq = spill(trajs, type(trajs[0]), folder=tmp_path)
    for got in (dd.dedupe_ids(seq, chunk_size=7), dd.dedupe_ids(iter(trajs), chunk_size=7)):
        assert got.kept == [t.trajectory_id for t in ref.kept]
        assert got.rejected == [(t.trajectory_id, c, d) for t, c, d in ref.rejected]
        assert got.params == ref.params and got.candidates == ref.candidates
    assert any(c == dd.DEDUPE_NEAR for _, c, _ in ref.rejected) and any(c == dd.DEDUPE_EXACT for _, c, _ in ref.rejected)


def _peaks_mb(tmp: Path, n: int) -> tuple[dict[str, float], int]:
    """tracemalloc peak (MB over the start) of each stage of ingest -> blueprints -> source keys
    -> dedupe_ids on ``n`` records, as the runner chains them (each stage reading the previous
    one's file), and the input's size in bytes."""
    from pipeline.stages import blueprints_stage, ingest_stage, source_keys

    logs = tmp / f"logs-{n}.jsonl"
    write_logs(logs, n)
    peaks: dict[str, float] = {}
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]

        def mark(stage: str) -> None:
            peaks[stage] = (tracemalloc.get_traced_memory()[1] - base) / 2**20
            tracemalloc.reset_peak()

        res = ingest_stage(str(logs), folder=tmp / f"ingest-{n}")
        recs = res.records
        mark("ingest")
        bps = blueprints_stage(recs)
        mark("blueprints")
        keys = source_keys(bps, recs)
        mark("source_keys")
        got = dd.dedupe_ids((_trajectory(r) for r in recs), chunk_size=8, fetch=lambda i: _trajectory(recs[i]))
        mark("dedupe")
    finally:
        tracemalloc.stop()
    assert len(recs) == n and sum(b.n_logs for b in bps) == n and len(keys) == len(bps) and len(got.kept) == n
    return peaks, logs.stat().st_size


def test_memory_does_not_grow_with_the_input(tmp_path, monkeypatch):
    """4x the records (about 20 KB each): for every stage, the extra peak of Python allocations is
    under half the extra input bytes (holding the records, as the list-passing pipeline did,
    costs more than the input itself). What still grows per record (ids, the blueprints' compact
    features, the LSH band keys of dedupe) is a few KB per record."""
    monkeypatch.setattr(dd, "SHINGLE_CACHE", 8)
    _peaks_mb(tmp_path, 10)  # imports and caches, outside the comparison
    small, size_small = _peaks_mb(tmp_path, 80)
    big, size_big = _peaks_mb(tmp_path, 320)
    extra_input = (size_big - size_small) / 2**20
    for stage in small:
        assert big[stage] - small[stage] < 0.5 * extra_input, (stage, small, big, extra_input)
