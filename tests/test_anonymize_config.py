"""Issue 11: the YAML PII config (shipped defaults + --pii-config), the independent audit and
--review (masked contexts), through the library and the CLI."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from pipeline.anonymize import Anonymizer, build_analyzer
from pipeline.anonymize.audit import audit_record, masked
from pipeline.anonymize.config import PiiConfig, PiiConfigError, normalize_key
from pipeline.records import LogRecord


@pytest.fixture(scope="module")
def analyzer():
    return build_analyzer()


def test_key_normalization_and_matching():
    assert [normalize_key(k) for k in ("homePhone", "last4Digits", "postalCode", "E-Mail", "SSN",
                                       "billing.zip", "XMLHttpId")] == [
        "home_phone", "last4_digits", "postal_code", "e_mail", "ssn", "billing_zip", "xml_http_id"]
    cfg = PiiConfig.load()
    for key, ent in (("home_phone", "PHONE_NUMBER"), ("billing_zip", "ZIP"), ("card_last4", "LAST_FOUR"),
                     ("shipping_postcode", "ZIP"), ("last4_digits", "LAST_FOUR"), ("contact_email", "EMAIL_ADDRESS")):
        assert cfg.key_entity(key)[0] == ent, key
    for key in ("phone_type", "product_name", "title", "email_count", "zip_format"):
        assert cfg.key_entity(key)[0] is None, key
    # a word saying the value was checked excludes nothing: the value's shape must confirm it
    # (twentieth round: "zip_verified": "30305" is a postcode; "zip_valid": true is a flag)
    for key, ent in (("zip_valid", "ZIP"), ("email_verified", "EMAIL_ADDRESS"), ("phone_confirmed", "PHONE_NUMBER")):
        assert cfg.key_entity(key) == (ent, False), key
    assert cfg.key_entity("verified") == (None, False)
    assert "attendees" in cfg.person_keys and "sender" in cfg.person_keys


def test_config_extension_and_errors(tmp_path, analyzer):
    extra = tmp_path / "company.yaml"
    extra.write_text("key_rules:\n  ACCOUNT_ID: [crewLocker]\nkeep_words: [zorblax]\n"
                     "id_labels:\n  ACCOUNT_ID: ['locker']\n", encoding="utf-8")
    rec = LogRecord.model_validate({"id": "c", "messages": [
        {"role": "tool", "tool_call_id": "t", "content": json.dumps({"crewLocker": "ZX99812"})},
        {"role": "user", "content": "my locker ZX99812 and locker 4471-0932"}]})
    plain = Anonymizer(secret="c", analyzer=analyzer)
    out = plain.anonymize_record(rec)
    # unknown key, not a known shape (a "ZX-99812" would be: PREFIX-digits ids, tenth round)
    assert "ZX99812" in json.dumps(out.model_dump())
    assert plain.report()["audit"]["suspects"]["count"] >= 1  # ... but the audit shows it
    ext = Anonymizer(secret="c", analyzer=analyzer, pii_config=extra)
    out = ext.anonymize_record(rec)
    text = json.dumps(out.model_dump())
    assert "ZX99812" not in text and "4471-0932" not in text
    assert "zorblax" in ext._keep_words and ext.config.sources[-1] == str(extra)
    for bad, msg in (("key_rules:\n  BADGE: [x]\n", "unknown entity"), ("nope: [1]\n", "unknown section"),
                     ("id_labels:\n  USER_ID: ['(']\n", "bad regex"), ("key_rules: [", "not valid YAML")):
        p = tmp_path / "bad.yaml"
        p.write_text(bad, encoding="utf-8")
        with pytest.raises(PiiConfigError, match=msg):
            PiiConfig.load(p)
    with pytest.raises(PiiConfigError, match="not found"):
        PiiConfig.load(tmp_path / "missing.yaml")


def test_audit_sees_what_detection_misses():
    """The audit does not use detection: a value under a personal key, an e-mail or an IBAN that
    survived is a leak; a digit run or a handle kept is a suspect; pseudonyms are not findings."""
    cfg = PiiConfig.load()
    inp = LogRecord.model_validate({"id": "a", "messages": [
        {"role": "system", "content": "Policy: call 1800-555-0100 for help."},
        {"role": "tool", "tool_call_id": "t", "content": json.dumps(
            {"sender": "zq_velmont", "homePhone": "415-555-0142", "item_id": "9912345678"})},
        {"role": "user", "content": "Mail me: zq.velmont@mailhub.test, IBAN GB26QAXB40404090817263, "
                                    "order 7744120933, Quorvin Zelmanski says hi; item 9912345678"}]})
    findings = audit_record(inp, inp, cfg)  # an "anonymizer" that changed nothing
    kinds = {(f.type, f.leak) for f in findings}
    assert {("key:PERSON", True), ("key:PHONE_NUMBER", True), ("shape:email", True),
            ("shape:iban", True), ("shape:digits", False), ("shape:name_pair", False)} <= kinds, kinds
    assert not any("1800" in f.value for f in findings)  # the policy's number is not personal
    assert all(f.record_id == "a" for f in findings)
    assert masked("Tamsin Okafor") == "T***** O*****" and masked("5810273946") == "5#########"


def _stage_dir(work, stage: str):
    """WORK/<stage>/<signature>/ of the newest completed run of ``stage``."""
    latest = work / stage / "latest"
    if latest.is_file():
        return work / stage / latest.read_text().strip()
    return work  # the older flat layout


def test_cli_pii_config_and_review(tmp_path, monkeypatch):
    from pipeline.cli import app

    work = tmp_path / "w"
    logs = tmp_path / "logs.jsonl"
    logs.write_text(json.dumps({"id": "r1", "messages": [
        {"role": "user", "content": "Hi, I'm Tamsin Okafor (tokafor482), locker ZX99812."},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "t", "type": "function", "function": {
            "name": "get_user_details", "arguments": json.dumps({"user_id": "tokafor482"})}}]},
        {"role": "tool", "tool_call_id": "t", "name": "get_user_details",
         "content": json.dumps({"crewLocker": "ZX99812"})}],
        "metadata": {}}) + "\n",
        encoding="utf-8")
    runner = CliRunner()
    res = runner.invoke(app, ["ingest", "--work", str(work), "--input", str(logs), "--domain", "airline"])
    assert res.exit_code == 0 and "1 ok" in res.output, res.output
    monkeypatch.delenv("TRAJPIPE_SECRET", raising=False)
    res = runner.invoke(app, ["anonymize", "--work", str(work), "--review"])
    assert res.exit_code == 0, res.output
    assert "suspect" in res.output and "ZX99812" not in res.output and "Z*#####" in res.output
    # the audit line and the review list are the result: on stdout (they were on stderr)
    assert "audit:" in res.stdout and "suspect" in res.stdout and "Z*#####" in res.stdout, res.stdout
    # a fresh user's check: `trajpipe anonymize` said nothing about the random key
    assert "Note: TRAJPIPE_SECRET is not set" in res.output, res.output
    report = json.loads((_stage_dir(work, "anonymize") / "anonymization_report.json").read_text())
    assert report["audit"]["suspects"]["count"] >= 1 and "ZX99812" not in json.dumps(report)
    cfg = tmp_path / "c.yaml"
    cfg.write_text("key_rules:\n  ACCOUNT_ID: [crew_locker]\n", encoding="utf-8")
    res = runner.invoke(app, ["anonymize", "--work", str(work), "--pii-config", str(cfg)])
    assert res.exit_code == 0, res.output
    out = (_stage_dir(work, "anonymize") / "anonymized.jsonl").read_text()
    for v in ("ZX99812", "Tamsin", "Okafor", "tokafor482"):
        assert v not in out, v
    cfg.write_text("key_rules:\n  BADGE: [crew_locker]\n", encoding="utf-8")
    res = runner.invoke(app, ["anonymize", "--work", str(work), "--pii-config", str(cfg)])
    assert res.exit_code == 2 and "unknown entity" in " ".join(res.output.split())


def test_anonymization_without_the_name_gazetteer_is_not_reused(tmp_path):
    """A fresh user's run: the names-dataset cache could not be built (an unwritable cache
    folder), so anonymize ran with Faker's names only and kept "Oluwaseun"; a rerun with the
    cache available said "reused" and kept the name. The gazetteer now belongs to the stage's
    signature and to anonymization_report.json."""
    import json
    import os
    import subprocess
    import sys

    from pipeline.anonymize.names_data import cache_path

    if cache_path() is None:
        pytest.skip("names-dataset is not installed (bash scripts/install.sh installs it)")
    logs = tmp_path / "logs.jsonl"
    logs.write_text(json.dumps({"id": "c1", "messages": [
        {"role": "user", "content": "The refund for Oluwaseun arrived yesterday, it was approved."},
        {"role": "assistant", "content": "I can look into that refund for you."}]}) + "\n", encoding="utf-8")
    work = tmp_path / "work"
    cli = [sys.executable, "-m", "pipeline.cli"]

    def trajpipe(*args: str, cache: str) -> str:
        env = dict(os.environ, TRAJPIPE_SECRET="s3cret", TRAJPIPE_CACHE=cache, TRAJPIPE_NO_PROGRESS="1")
        res = subprocess.run([*cli, *args], env=env, capture_output=True, text=True, timeout=600)
        assert res.returncode == 0, res.stdout + res.stderr
        return res.stdout + res.stderr

    real_cache = str(cache_path().parent)
    trajpipe("ingest", "--work", str(work), "--input", str(logs), "--domain", "retail", cache=real_cache)
    without = trajpipe("anonymize", "--work", str(work), cache="/proc/no-cache-here")
    assert "reused" not in without

    def latest() -> tuple[str, dict]:
        sig = (work / "anonymize" / "latest").read_text().strip()
        report = json.loads((work / "anonymize" / sig / "anonymization_report.json").read_text())
        return (work / "anonymize" / sig / "anonymized.jsonl").read_text(), report

    text, report = latest()
    assert report["name_gazetteer"]["first"] == 0, report["name_gazetteer"]  # recorded: names-dataset not used
    assert "Oluwaseun" in text  # the kind of name only names-dataset knows (not in Faker's lists)
    again = trajpipe("anonymize", "--work", str(work), cache=real_cache)
    assert "reused" not in again, again
    text, report = latest()
    assert report["name_gazetteer"]["first"] > 10000, report["name_gazetteer"]
    assert "Oluwaseun" not in text


def test_keys_ending_in_by_hold_people_unless_they_say_how():
    """Issue 11, seventh round: "last_touched_by" / "closed_by" hold who did it; "sort_by" /
    "group_by" / "order_by" say how (their values - "created_at", "region" - are no people)."""
    from pipeline.anonymize.config import default_config

    cfg = default_config()
    assert cfg.is_person_key("last_touched_by") and cfg.is_person_key("closed_by") and cfg.is_person_key("organizer")
    assert not any(cfg.is_person_key(k) for k in ("sort_by", "group_by", "order_by", "by", "status", None))


def test_review_context_names_the_json_key_of_a_suspect():
    """A fresh user's check (seventh round): `--review` showed a suspect inside a JSON tool result
    as "...[5#########]..." with nothing around it; the masked context now names its key."""
    from pipeline.anonymize.audit import Finding, masked_context

    rec = LogRecord.model_validate({"id": "r1", "messages": [
        {"role": "assistant", "content": None, "tool_calls": [{"id": "t", "type": "function", "function": {
            "name": "get_product_details", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "t", "name": "get_product_details",
         "content": json.dumps({"item_id": "5810273946", "status": "ok"})}]})
    ctx = masked_context(rec, Finding("r1", "shape:digits", False, "5810273946"))
    assert ctx.startswith("item_id: ") and "5810273946" not in ctx and "5#########" in ctx, ctx
