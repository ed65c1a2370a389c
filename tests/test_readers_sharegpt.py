"""ShareGPT-with-function-calls reader (pipeline/ingest/sharegpt.py) on tests/data/logs."""
import json

from pipeline.ingest import detect_format, ingest
from pipeline.ingest.readers import INGEST_TOOL_CALL_MISSING, INGEST_TOOL_RESULT_MISSING
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

LOG = ROOT / "tests" / "data" / "logs" / "sharegpt_function_calls.json"


def test_sharegpt_list():
    assert detect_format(LOG) == "sharegpt"
    res = ingest(LOG, route=False)
    assert res.n_in == 4 == len(res.records) + len(res.quarantine)
    one, two = res.records
    assert [m["role"] for m in one.messages] == ["system", "user", "assistant", "tool", "assistant"]
    assert one.tools[1]["function"] == {"name": "mark_ready", "description": "Mark a repair ticket as ready for pickup.",
                                        "parameters": {"type": "object", "properties": {"ticket_id": {"type": "string"}},
                                                       "required": ["ticket_id"]}}
    # parallel calls: the observation list is split in order; string arguments parsed
    calls = two.messages[2]["tool_calls"]
    assert [json.loads(c["function"]["arguments"]) for c in calls] == [{"ticket_id": "T-1042"}, {"ticket_id": "T-1077"}]
    assert [json.loads(m["content"])["ticket_id"] for m in two.messages[3:5]] == ["T-1042", "T-1077"]
    assert [m["tool_call_id"] for m in two.messages[3:5]] == [c["id"] for c in calls]
    assert [q.reason_code for q in res.quarantine] == [INGEST_TOOL_RESULT_MISSING, INGEST_TOOL_CALL_MISSING]


def test_jsonl_and_bad_items(tmp_path):
    items = json.loads(LOG.read_text())
    bad_call = {"conversations": [{"from": "human", "value": "x"}, {"from": "function_call", "value": "not json"},
                                  {"from": "observation", "value": "1"}]}
    parallel_one_obs = {"conversations": [{"from": "function_call", "value": json.dumps(
        [{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}])}, {"from": "observation", "value": "ok"}]}
    p = tmp_path / "s.jsonl"
    p.write_text("\n".join(json.dumps(x) for x in [items[0], bad_call, {"conversations": [{"from": "bot", "value": "x"}]},
                                                    parallel_one_obs]) + "\n")
    assert detect_format(p) == "sharegpt"
    res = ingest(p, route=False)
    assert len(res.records) == 1
    assert [q.reason_code for q in res.quarantine] == ["INGEST_SCHEMA", "INGEST_SCHEMA", INGEST_TOOL_RESULT_MISSING]
    assert "sharegpt_conversation.schema.json" in res.quarantine[1].error
