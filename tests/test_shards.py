"""Stage shards (pipeline/stages.py, "shards"): a stage that crashes between shards resumes from
its finished ones and gives the same bytes as an uninterrupted run; the anonymizer fed with the
detections of shards (what Ray workers compute) gives the same output as one pass without them."""
from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "sample_airline_logs.jsonl"


def _cfg(work: Path):
    from flows.trajpipe_flow import run_config

    return run_config(seed=3, work_dir=str(work), ingest={"input_path": str(SAMPLE), "limit": 6},
                      synthesize={"tasks_per_blueprint": 1, "shard_blueprints": 1}, verify={"shard_tasks": 1})


def _outputs(work: Path, stage: str) -> dict[str, bytes]:
    (folder,) = [p for p in (work / stage).iterdir() if p.is_dir() and not p.name.startswith(".")]
    return {f.name: f.read_bytes() for f in sorted(folder.iterdir()) if f.name != "_SUCCESS.json"}


def test_a_crashed_stage_resumes_from_its_finished_shards(tmp_path, monkeypatch):
    import pipeline.stages as st
    from pipeline.runner import Runner

    monkeypatch.setenv("TRAJPIPE_SECRET", "shards-test")
    work = tmp_path / "work"
    Runner(_cfg(work)).run("verify_tasks")  # the uninterrupted run
    stages = ("synthesize", "verify_tasks")
    want = {s: _outputs(work, s) for s in stages}
    for s in stages:  # keep ingest, anonymize and blueprints; redo these two with crashes
        shutil.rmtree(work / s)

    for stage in stages:
        real = st.SHARDINGS[stage]
        ran: list[int] = []

        def crash_at_second(inputs, cfg, seed, lo, hi, _real=real, _ran=ran, **kw):
            _ran.append(lo)
            if len(_ran) == 2:
                raise RuntimeError("killed mid-stage")
            return _real.run(inputs, cfg, seed, lo, hi, **kw)

        monkeypatch.setitem(st.SHARDINGS, stage, dataclasses.replace(real, run=crash_at_second))
        with pytest.raises(RuntimeError, match="killed mid-stage"):
            Runner(_cfg(work)).run(stage)
        (scratch,) = (work / stage).glob(".*.partial")
        assert sorted(p.name for p in scratch.iterdir()) == ["shard-00000"]  # the finished one, complete
        assert not (work / stage / "latest").exists()  # nothing looks done
        monkeypatch.setitem(st.SHARDINGS, stage, real)
        res = Runner(_cfg(work)).run(stage)
        assert res.stats["shards"] >= 2 and res.stats["shards_resumed"] == 1, res.stats
        assert _outputs(work, stage) == want[stage], stage
        assert not scratch.exists()


def test_anonymize_with_shard_detections_equals_one_pass(monkeypatch):
    """Three shards of two records compute the detections (as Ray workers do); the in-order pass
    that uses them gives the same records and report as a pass without them, and runs the
    detector on no text (every text, input and residual-scan output, was a shard's)."""
    import pipeline.stages as st
    from pipeline.config import AnonymizeConfig
    from pipeline.ingest import ingest

    monkeypatch.setenv("TRAJPIPE_SECRET", "tap-test")
    logs = ingest(str(SAMPLE), limit=6).records
    plain = st.anonymize_stage(logs, "tap-test", progress=False)
    cfg = AnonymizeConfig(shard_records=2)
    det = {}
    for lo in (0, 2, 4):
        part = st._anonymize_shard({"logs": logs}, cfg, 0, lo, lo + 2)["detections"]
        for d in json.loads(json.dumps(part)):  # as written to and read from the shard files
            det[d["sha256"]] = [tuple(h) for h in d["hits"]]
    assert det
    tapped = st.anonymize_stage(logs, "tap-test", progress=False, detections=det)
    assert [r.model_dump() for r in tapped.records] == [r.model_dump() for r in plain.records]
    assert tapped.report == plain.report
    assert tapped.anonymizer._detector.new == []
    # and the tap really answers from what it was given: one more hit, a different output
    import re

    texts = [m["content"] for r in logs for m in r.messages
             if m.get("role") == "user" and isinstance(m.get("content"), str)]
    text = next(t for t in texts if st.DetectorTap.key(t) in det and re.match(r"[A-Za-z]{4,}", t))
    word = re.match(r"[A-Za-z]{4,}", text).group(0)
    more = dict(det)
    more[st.DetectorTap.key(text)] = det[st.DetectorTap.key(text)] + [("IBAN_CODE", 0, len(word), 1.0, "Planted")]
    other = st.anonymize_stage(logs, "tap-test", progress=False, detections=more)
    assert [r.model_dump() for r in other.records] != [r.model_dump() for r in plain.records]
