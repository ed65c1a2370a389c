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
