"""Stage glue: quarantined raw input is pseudonymized before it can reach an output file."""
from pipeline.records import QuarantineRecord


def test_quarantine_raw_is_pseudonymized():
    from pipeline.anonymize import Anonymizer
    from pipeline.stages import pseudonymize_quarantine

    raw = '{"id": "x", "messages": [{"content": "I am Tamsin Okafor, email tamsin.okafor77@example.org, user tamsin_okafor_4821"}]}'
    q = QuarantineRecord(stage="ingest", source="f.jsonl", position=3, reason_code="INGEST_SCHEMA", error="e", raw=raw)
    (out,) = pseudonymize_quarantine([q], Anonymizer(secret="s"))
    for v in ("Tamsin", "Okafor", "tamsin.okafor77@example.org", "tamsin_okafor_4821"):
        assert v not in out.raw, v
    assert "@" in out.raw and out.position == 3 and out.reason_code == "INGEST_SCHEMA"
    assert out.raw_sha256 and len(out.raw_sha256) == 64


def test_quarantined_json_records_stay_json_and_are_read_as_conversations():
    """A red-team pass (issue 11, eighth round): a quarantined JSON line was anonymized as one
    free text - "\\njack@x.com" lost its "n" (the raw line was no JSON any more), and keys and
    answers went unseen (more values left than in the anonymized records). Now a JSON record is
    anonymized as the conversation it is and written back as JSON; other JSON is walked as a tool
    result; plain text as text. The audit sees the quarantine too."""
    import json

    from pipeline.anonymize import Anonymizer
    from pipeline.stages import pseudonymize_quarantine

    rec = {"id": "mail-5", "source": "crm", "messages": [
        {"role": "assistant", "content": "What's your full name?"},
        {"role": "user", "content": "Cressida Holloway\njack.thornton@example.com"},
        {"role": "tool", "content": json.dumps({"vorname": "Theresia", "plz": "79098", "policyNo": "HLP-3390127"})}]}
    items = [QuarantineRecord(stage="ingest", source="f.jsonl", position=i, reason_code="INGEST_NO_DOMAIN", error="e",
                              raw=raw) for i, raw in enumerate([
                                  json.dumps(rec), json.dumps({"kunde": {"vorname": "Theresia", "nachname": "Brandl"}}),
                                  "not json: call Cressida Holloway"])]
    anon = Anonymizer(secret="s")
    out = pseudonymize_quarantine(items, anon)
    back = json.loads(out[0].raw)
    assert back["id"] == "mail-5" and back["source"] == "crm" and len(back["messages"]) == 3
    text = json.dumps(back)
    for v in ("Cressida", "Holloway", "jack.thornton", "Theresia", "79098", "HLP-3390127"):
        assert v not in text, v
    assert back["messages"][1]["content"].count("\n") == 1 and "@" in back["messages"][1]["content"]
    other = json.loads(out[1].raw)
    assert other["kunde"]["vorname"] != "Theresia" and other["kunde"]["nachname"] != "Brandl"
    assert "Cressida" not in out[2].raw and out[2].raw.startswith("not json: call ")
    assert anon.report()["audit"]["records"] >= 3


def test_a_quarantined_record_the_anonymizer_fails_on_is_withheld_alone():
    """The batch path must keep the old per-record guarantee: an unexpected failure on one
    quarantined record withholds that record only, the others are still pseudonymized."""
    from pipeline.anonymize import Anonymizer
    from pipeline.stages import pseudonymize_quarantine

    class Flaky(Anonymizer):
        def _collect_record(self, rec):
            if "boom" in str(rec.messages):
                raise RuntimeError("unexpected")
            return super()._collect_record(rec)

    items = [QuarantineRecord(stage="ingest", source="f.jsonl", position=i, reason_code="INGEST_SCHEMA", error="e",
                              raw=raw) for i, raw in enumerate(["call Cressida Holloway", "boom", "mail tamsin@x.org"])]
    out = pseudonymize_quarantine(items, Flaky(secret="s"))
    assert out[1].raw == "[withheld: could not be anonymized]"
    assert "Cressida" not in out[0].raw and out[0].raw.startswith("call ") and "tamsin@x.org" not in out[2].raw
