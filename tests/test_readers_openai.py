"""OpenAI Chat Completions call-log reader (pipeline/ingest/openai_log.py) on tests/data/logs."""
import json

from pipeline.ingest import detect_format, ingest
from pipeline.ingest.readers import INGEST_STITCH_CONFLICT, INGEST_TOOL_RESULT_MISSING
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

LOG = ROOT / "tests" / "data" / "logs" / "openai_chat_log.jsonl"


def test_stitched_by_history_and_by_conversation_id():
    assert detect_format(LOG) == "openai_chat"
    res = ingest(LOG, route=False)
    assert res.n_in == 4 == len(res.records) + len(res.quarantine)
    by_id = {r.id: r for r in res.records}
    assert set(by_id) == {"openai-openai_chat_log-0000", "openai-desk-0042"}
    a = by_id["openai-openai_chat_log-0000"]
    assert [m["role"] for m in a.messages] == ["system", "user", "assistant", "tool", "assistant"]
    assert a.metadata["n_calls"] == 2 and a.metadata["model"] == "gpt-4o-2024-08-06"
    assert a.messages[3]["name"] == "get_ticket"
    b = by_id["openai-desk-0042"]
    assert b.messages[1]["content"] == "Please mark T-1077 ready, the mechanic finished."  # content parts joined
    assert json.loads(b.messages[2]["tool_calls"][0]["function"]["arguments"]) == {"ticket_id": "T-1077"}
    assert [t["function"]["name"] for t in b.tools] == ["get_ticket", "mark_ready"]
    codes = {q.reason_code: q for q in res.quarantine}
    assert set(codes) == {INGEST_TOOL_RESULT_MISSING, INGEST_STITCH_CONFLICT}
    assert "call_o3" in codes[INGEST_TOOL_RESULT_MISSING].error
    assert "desk-0044" in codes[INGEST_STITCH_CONFLICT].error
    assert len(json.loads(codes[INGEST_STITCH_CONFLICT].raw)) == 2  # both calls kept raw


def test_unrelated_calls_are_not_stitched(tmp_path):
    lines = [json.loads(x) for x in LOG.read_text().splitlines()]
    # the second call of the history-stitched pair, with another customer turn: another conversation
    second = json.loads(json.dumps(lines[1]))
    second["request"]["messages"][1]["content"] = "Is ticket T-1043 done?"
    p = tmp_path / "x.jsonl"
    p.write_text(json.dumps(lines[0]) + "\n" + json.dumps(second) + "\n")
    res = ingest(p, route=False)
    # the first call alone ends with an unanswered tool call; the second is complete by itself
    assert [q.reason_code for q in res.quarantine] == [INGEST_TOOL_RESULT_MISSING]
    assert len(res.records) == 1 and res.records[0].metadata["n_calls"] == 1


def test_schema_errors_are_quarantined(tmp_path):
    p = tmp_path / "bad.jsonl"
    p.write_text(json.dumps({"request": {"messages": [{"role": "tool", "content": "x"}]},
                             "response": {"choices": [{"message": {"role": "assistant", "content": "ok"}}]}}) + "\n"
                 + json.dumps({"request": {"messages": []}, "response": {"choices": []}}) + "\n")
    res = ingest(p, fmt="openai_chat", route=False)
    assert [q.reason_code for q in res.quarantine] == ["INGEST_SCHEMA", "INGEST_SCHEMA"]
    assert all("openai_chat_log.schema.json" in q.error for q in res.quarantine)
