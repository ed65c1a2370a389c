"""OpenTelemetry GenAI trace reader (pipeline/ingest/otel.py) on the fictional samples in tests/data/logs."""
import json

from pipeline.ingest import detect_format, ingest
from pipeline.ingest.otel import any_value, parts_to_messages
from pipeline.ingest.readers import INGEST_ORPHAN_SPAN, INGEST_TOOL_RESULT_MISSING, schema_error
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

LOGS = ROOT / "tests" / "data" / "logs"
ATTR = LOGS / "otel_genai_attributes.jsonl"
EVENTS = LOGS / "otel_genai_events.json"


def test_detected_and_schema_valid():
    assert detect_format(ATTR) == "otel_genai"
    assert detect_format(EVENTS) == "otel_genai"
    for line in ATTR.read_text().splitlines():
        assert schema_error("otel_genai_export.schema.json", json.loads(line)) is None
    assert schema_error("otel_genai_export.schema.json", {"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "x"}]}]}]})


def test_attribute_form_stitched_across_traces_by_conversation_id():
    res = ingest(ATTR, route=False)
    assert res.n_in == 3 == len(res.records) + len(res.quarantine)
    (rec,) = res.records
    assert rec.id == "otel-conv-bike-7"
    assert rec.metadata["source_format"] == "otel_genai" and len(rec.metadata["trace_ids"]) == 2
    roles = [m["role"] for m in rec.messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "user", "assistant", "tool", "assistant"]
    calls = [(tc["function"]["name"], json.loads(tc["function"]["arguments"])) for m in rec.messages
             for tc in m.get("tool_calls") or []]
    assert calls == [("get_ticket", {"ticket_id": "T-1042"}), ("mark_ready", {"ticket_id": "T-1042"})]
    # the second result came only from the execute_tool span (gen_ai.tool.call.result)
    assert json.loads(rec.messages[7]["content"])["status"] == "ready"
    assert rec.messages[7]["name"] == "mark_ready" and rec.messages[7]["tool_call_id"] == "call_a2"
    assert [t["function"]["name"] for t in rec.tools] == ["get_ticket", "mark_ready"]
    assert rec.tools[0]["function"]["description"] == "Look up a repair ticket by id."
    codes = [q.reason_code for q in res.quarantine]
    assert codes == [INGEST_TOOL_RESULT_MISSING, INGEST_ORPHAN_SPAN]
    assert "call_c1" in res.quarantine[0].error and "d000000000000001" in res.quarantine[1].error
    assert all(q.raw for q in res.quarantine)


def test_event_form_from_log_records():
    res = ingest(EVENTS, route=False)
    assert not res.quarantine and len(res.records) == 1
    msgs = res.records[0].messages
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "tool", "assistant"]
    assert msgs[3]["tool_call_id"] == "call_e1" and json.loads(msgs[3]["content"])["ticket_id"] == "T-1077"
    assert msgs[-1]["content"].startswith("Your e-bike is in repair")


def test_event_form_as_span_events(tmp_path):
    def kv(k, v):
        return {"key": k, "value": {"stringValue": v}}
    span = {"traceId": "ab" * 16, "spanId": "cd" * 8, "name": "chat", "startTimeUnixNano": "1",
            "attributes": [kv("gen_ai.operation.name", "chat")],
            "events": [{"timeUnixNano": "2", "name": "gen_ai.user.message", "attributes": [kv("content", "hi")]},
                       {"timeUnixNano": "3", "name": "gen_ai.choice",
                        "attributes": [kv("body", json.dumps({"message": {"content": "Hello there"}}))]}]}
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}))
    res = ingest(p, route=False)
    assert [(m["role"], m["content"]) for m in res.records[0].messages] == [("user", "hi"), ("assistant", "Hello there")]


def test_missing_execute_tool_result_is_quarantined_not_guessed(tmp_path):
    lines = ATTR.read_text().splitlines()
    doc = json.loads(lines[1])
    spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    # drop the execute_tool span and the chat span that carried the result
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"] = [s for s in spans if s["spanId"] not in
                                                         ("b000000000000003", "b000000000000004")]
    p = tmp_path / "cut.jsonl"
    p.write_text(lines[0] + "\n" + json.dumps(doc) + "\n")
    res = ingest(p, route=False)
    assert not res.records and [q.reason_code for q in res.quarantine] == [INGEST_TOOL_RESULT_MISSING]
    assert "call_a2" in res.quarantine[0].error


def test_bad_document_and_routing(tmp_path):
    p = tmp_path / "mixed.jsonl"
    p.write_text(ATTR.read_text().splitlines()[0] + "\n" + '{"resourceSpans": [{"scopeSpans": [{"spans": [{}]}]}]}\n'
                 + "{not json\n")
    res = ingest(p, fmt="otel_genai", route=False)
    assert res.n_in == 3 and [q.reason_code for q in res.quarantine] == ["INGEST_SCHEMA", "INGEST_JSON"]
    assert "otel_genai_export.schema.json" in res.quarantine[0].error
    # with routing on, a repair desk no registered domain covers is set aside, naming its tools
    routed = ingest(ATTR)
    assert not routed.records
    assert any(q.reason_code == "INGEST_NO_DOMAIN" and "get_ticket" in q.error for q in routed.quarantine)


def test_any_value_and_parts():
    assert any_value({"kvlistValue": {"values": [{"key": "a", "value": {"intValue": "3"}},
                                                 {"key": "b", "value": {"arrayValue": {"values": [{"boolValue": True}]}}}]}}) \
        == {"a": 3, "b": [True]}
    msgs = parts_to_messages(json.dumps([{"role": "assistant", "parts": [
        {"type": "text", "content": "checking"}, {"type": "tool_call", "id": "c", "name": "f", "arguments": {"x": 1}}]}]))
    assert msgs == [{"role": "assistant", "content": "checking", "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}]}]


def test_hostile_attributes_are_quarantined_not_raised(tmp_path):
    def kv(k, v):
        return {"key": k, "value": v}

    def doc(*attrs):
        return {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "a1", "spanId": "b1", "attributes": [
            kv("gen_ai.operation.name", {"stringValue": "chat"}), *attrs]}]}]}]}
    bad = [doc(kv("gen_ai.input.messages", {"stringValue": "not json"})),
           doc(kv("gen_ai.input.messages", {"stringValue": json.dumps({"role": "user"})})),
           doc(kv("n", {"intValue": "zz"}), kv("gen_ai.output.messages", {"stringValue": json.dumps(
               [{"role": "assistant", "parts": ["x", {"type": "tool_call", "id": "c"}]}])}))]
    for i, d in enumerate(bad):
        p = tmp_path / f"b{i}.json"
        p.write_text(json.dumps(d))
        res = ingest(p, fmt="otel_genai", route=False)
        assert not res.records and [q.reason_code for q in res.quarantine] == ["INGEST_SCHEMA"], res.quarantine


def test_large_export_is_still_detected(tmp_path):
    doc = json.loads(EVENTS.read_text())
    doc["resourceSpans"][0]["resource"]["attributes"].append({"key": "pad", "value": {"stringValue": "x" * 1_200_000}})
    p = tmp_path / "big.json"
    p.write_text(json.dumps(doc, indent=1))
    assert detect_format(p) == "otel_genai" and len(ingest(p, route=False).records) == 1
