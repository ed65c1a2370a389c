"""Bad input at the anonymizer: nothing crashes, nothing is lost, nothing passes through raw.

Huge (10 MB) JSON tool results are anonymized; a 10 MB free text, JSON nested too deeply and
text that is not valid Unicode (undecodable bytes as lone surrogates) are quarantined by the
anonymize stage with ``ANON_FAILED`` and a clear reason (``ANON_TOO_LARGE``,
``ANON_TOO_DEEP``, ``ANON_BAD_TEXT``); empty records and messages pass. Ingest handles bytes
that are not UTF-8 before this (``INGEST_DECODE``, tests/test_ingest.py).
"""
from __future__ import annotations

import json

import pytest

from pipeline.anonymize import Anonymizer, build_analyzer
from pipeline.anonymize.anonymizer import AnonymizeInputError
from pipeline.records import LogRecord
from pipeline.stages import anonymize_stage

PROFILE = {"name": {"first_name": "Ottoline", "last_name": "Wexworth"},
           "email": "ottoline.w@canary-mail.example.org", "user_id": "ottoline_wexworth_7301",
           "flights": [{"flight_number": "HAT412", "date": "2024-05-20"}]}
MB10 = 10 * 1024 * 1024


def _deep(levels: int) -> str:
    return '{"a": ' * levels + json.dumps(PROFILE) + "}" * levels


@pytest.fixture(scope="module")
def stage_result():
    build_analyzer()
    big_json = json.dumps({"results": [dict(PROFILE, idx=i) for i in range(MB10 // 190)]})
    assert len(big_json) >= MB10
    big_text = ("Hi, I'm Ottoline Wexworth, ottoline.w@canary-mail.example.org. " * (MB10 // 60))
    records = [
        LogRecord(id="empty", messages=[]),
        LogRecord(id="empty-messages", messages=[
            {"role": "user", "content": ""}, {"role": "assistant", "content": None},
            {"role": "user"}, {"role": "tool", "content": "  "}, {}]),
        LogRecord(id="huge-json", messages=[{"role": "tool", "content": big_json}]),
        LogRecord(id="huge-text", messages=[{"role": "user", "content": big_text}]),
        LogRecord(id="deep-tool-result", messages=[{"role": "tool", "content": _deep(5000)}]),
        LogRecord(id="nested-ok", messages=[{"role": "tool", "content": _deep(30)}]),
        LogRecord(id="deep-metadata", messages=[], metadata=json.loads(_deep(200))),
        LogRecord(id="bad-unicode", messages=[
            {"role": "user", "content": b"caf\xe9 Ottoline".decode("utf-8", "surrogateescape")}]),
        LogRecord(id="odd-content", messages=[{"role": "user", "content": dict(PROFILE)},
                                              {"role": "user", "content": 12345}]),
        LogRecord(id="plain", messages=[{"role": "user", "content": "I'm Ottoline Wexworth."}]),
    ]
    return records, anonymize_stage(records, secret="bad-input", progress=False)


def test_nothing_lost_and_reasons_are_clear(stage_result):
    records, res = stage_result
    ids_in = [r.id for r in records]
    assert sorted([r.id for r in res.records] + [q.record_id for q in res.quarantine]) == sorted(ids_in)
    reasons = {q.record_id: q for q in res.quarantine}
    assert set(reasons) == {"huge-text", "deep-tool-result", "deep-metadata", "bad-unicode"}
    expect = {"huge-text": "ANON_TOO_LARGE", "deep-tool-result": "ANON_TOO_DEEP",
              "deep-metadata": "ANON_TOO_DEEP", "bad-unicode": "ANON_BAD_TEXT"}
    for rid, q in reasons.items():
        assert q.reason_code == "ANON_FAILED" and q.stage == "anonymize"
        assert expect[rid] in q.error, q.error
        assert q.raw == "[withheld: not anonymized]"  # the raw text never passes on
        assert "Ottoline" not in q.error and "canary" not in q.error


def test_what_passes_is_anonymized(stage_result):
    _, res = stage_result
    out = {r.id: r for r in res.records}
    assert out["empty"].messages == [] and len(out["empty-messages"].messages) == 5
    for rid in ("huge-json", "nested-ok", "odd-content", "plain"):
        text = json.dumps(out[rid].model_dump(), ensure_ascii=False)
        for v in ("Ottoline", "Wexworth", "canary-mail", "ottoline_wexworth_7301"):
            assert v not in text, (rid, v)
        text.encode("utf-8")  # writable
    huge = json.loads(out["huge-json"].messages[0]["content"])
    assert len(huge["results"]) == MB10 // 190 and huge["results"][-1]["flights"][0]["flight_number"] == "HAT412"
    assert len({r["user_id"] for r in huge["results"]}) == 1  # one person, one pseudonym
    assert res.report["records"] == len(res.records)


def test_anonymizer_raises_a_typed_error_or_reports_it():
    anon = Anonymizer(secret="x", max_text_chars=1000)
    recs = [LogRecord(id="a", messages=[{"role": "user", "content": "word " * 300}]),
            LogRecord(id="b", messages=[{"role": "user", "content": "Hi, I'm Ottoline Wexworth."}])]
    with pytest.raises(AnonymizeInputError, match="ANON_TOO_LARGE"):
        list(anon.anonymize(recs))
    errors = []
    out = list(anon.anonymize(recs, on_error=lambda pos, rec, exc: errors.append((pos, rec.id, str(exc)))))
    assert [r.id for r in out] == ["b"] and [(p, i) for p, i, _ in errors] == [(0, "a")]
    assert "Ottoline" not in out[0].messages[0]["content"]
