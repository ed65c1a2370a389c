import json

import pytest

from pipeline.ingest import INGEST_DECODE, INGEST_DUPLICATE_ID, INGEST_EMPTY, INGEST_JSON, INGEST_SCHEMA, ingest
import pipeline.ingest as ing
from tests.conftest import AIRLINE_LOGS, ROOT


def good(i, **extra):
    # an airline-only tool (get_user_details is airline's and retail's: ambiguous, set aside)
    rec = {"id": f"r{i}", "messages": [{"role": "user", "content": "hi"},
                                      {"role": "assistant", "content": None, "tool_calls": [
                                          {"id": "c1", "type": "function",
                                           "function": {"name": "get_reservation_details", "arguments": "{}"}}]},
                                      {"role": "tool", "tool_call_id": "c1", "content": "{}"}]}
    rec.update(extra)
    return json.dumps(rec)


def test_canonical_bad_records_are_quarantined_with_reasons(tmp_path):
    p = tmp_path / "in.jsonl"
    lines = [good(1).encode(), b"{not json", good(1).encode(), b"\xff\xfe bad bytes",
             json.dumps({"id": "r3", "messages": [{"role": "tool", "content": "x"}]}).encode(), b"",
             json.dumps({"id": "r4", "messages": []}).encode(), good(5).encode()]
    p.write_bytes(b"\n".join(lines) + b"\n")
    res = ingest(p)
    assert res.n_in == len(lines) == len(res.records) + len(res.quarantine)
    assert [r.id for r in res.records] == ["r1", "r5"]
    codes = [q.reason_code for q in res.quarantine]
    assert codes == [INGEST_JSON, INGEST_DUPLICATE_ID, INGEST_DECODE, INGEST_SCHEMA, INGEST_EMPTY, INGEST_SCHEMA]
    assert "tool_call_id" in res.quarantine[3].error
    assert all(q.raw is not None for q in res.quarantine)


def test_too_large_and_deeply_nested(tmp_path, monkeypatch):
    # no tool call: the record names its domain, or routing would set it aside (INGEST_NO_DOMAIN)
    nested = {"id": "deep", "messages": [{"role": "user", "content": "x"}], "metadata": {"domain": "airline"}}
    cur = nested["metadata"]
    for _ in range(100):
        cur["a"] = {}
        cur = cur["a"]
    too_deep = '{"id": "x", "metadata": ' + '{"a": ' * 50_000 + '1' + '}' * 50_000 + '}'
    monkeypatch.setattr(ing, "MAX_RECORD_BYTES", 1_000_000)
    p = tmp_path / "in.jsonl"
    p.write_text(good(1, metadata={"pad": "x" * 2_000_000}) + "\n" + json.dumps(nested) + "\n" + too_deep + "\n")
    res = ingest(p)
    assert [q.reason_code for q in res.quarantine] == ["INGEST_TOO_LARGE", "INGEST_JSON"]
    assert "nested too deeply" in res.quarantine[1].error
    assert [r.id for r in res.records] == ["deep"]


def test_bundled_sample_validates():
    res = ingest(ROOT / "data" / "sample_airline_logs.jsonl")
    assert len(res.records) >= 5 and res.n_in == len(res.records) + len(res.quarantine)


def test_taubench_real_logs(shared_data):
    res = ingest(AIRLINE_LOGS)
    assert res.n_in == 152 and len(res.records) == 152 and not res.quarantine
    r = res.records[0]
    assert r.metadata["source_format"] == "taubench" and r.metadata["reward"] in (0.0, 1.0)
    assert any(m.get("tool_calls") for m in r.messages)
    limited = ingest(AIRLINE_LOGS, limit=5)
    assert len(limited.records) == 5


def test_missing_file_and_unknown_format(tmp_path):
    with pytest.raises(FileNotFoundError):
        ingest(tmp_path / "nope.jsonl")
    p = tmp_path / "x.jsonl"
    p.write_text(good(1))
    with pytest.raises(ValueError, match="unknown input format"):
        ingest(p, fmt="xml")
