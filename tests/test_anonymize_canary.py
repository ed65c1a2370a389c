"""Canary test: distinctive fake personal values planted in logs never reach any output.

A few hundred canaries (names, e-mails, phones, user / reservation / payment / order ids,
card numbers, last fours, streets, zips, cities, dates of birth, passwords, API keys, session
ids, access tokens; and since issue 11 IBANs, SSNs, national phone numbers, account numbers and
name-derived handles, as bare answers, labelled values, under camelCase and person keys and in
lower case) are planted into canonical logs: in free text, in JSON tool results and
tool-call arguments, in metadata, split across turns, in UPPER case, inside URLs (also
percent-encoded), and in a malformed line that ingest quarantines. The full Prefect flow runs
on them; every output file (Parquet read back to text), the flow's returned manifest, Prefect's
local result storage, Prefect's stored log lines and everything written to the captured
stdout / stderr / logging must be free of every canary, in any letter case and URL-encoded.
"""
from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from urllib.parse import quote

import pyarrow.parquet as pq
import pytest

from pipeline.anonymize.planted import N_PERSONAS, canary_values, persona, record

pytestmark = pytest.mark.slow

def _forms(value: str) -> set[str]:
    forms = {value, value.lower(), value.upper(), quote(value, safe=""), quote(value, safe="").lower()}
    # non-ASCII canaries ("Bożysław") also as JSON writes them with ensure_ascii ("Bo\u017cys\u0142aw")
    return forms | {json.dumps(f)[1:-1] for f in forms if not f.isascii()}


#: a value right after a line break as JSON text writes it ("\\n38512 Ulvsundmyra") counts as
#: standing alone: the "n" of the escape is no letter of the text
_AFTER_ESCAPE = r"(?<=\\[nrt])"


def _leak_rx(value: str) -> re.Pattern:
    alts = "|".join(re.escape(f) for f in sorted(_forms(value), key=len, reverse=True))
    if value.isdigit():  # a number alone, not a piece of a longer number / decimal / hash
        return re.compile(r"(?:(?<![0-9A-Za-z.])|" + _AFTER_ESCAPE + r")(?:" + alts + r")(?![0-9A-Za-z])")
    return re.compile(r"(?:(?<![0-9A-Za-z])|" + _AFTER_ESCAPE + r")(?:" + alts + r")(?![0-9A-Za-z])", re.I)


def _texts(root: Path) -> dict[str, str]:
    out = {}
    for f in sorted(root.rglob("*")):
        if not f.is_file():
            continue
        if f.suffix == ".parquet":
            out[str(f)] = json.dumps(pq.read_table(f).to_pylist(), default=str, ensure_ascii=False)
        else:
            out[str(f)] = f.read_bytes().decode("utf-8", "replace")
    return out


def test_canaries_never_reach_outputs_results_or_logs(prefect_harness, tmp_path, capfd, caplog,
                                                       monkeypatch):
    # a fixed key (TRAJPIPE_SECRET below) makes the run reproducible; fakes never equal a real
    # value of the run in any case
    from faker.providers.person.en_US import Provider

    from flows.trajpipe_flow import trajpipe_run

    faker_names = set(Provider.first_names) | set(Provider.last_names)
    personas = [persona(i) for i in range(N_PERSONAS)]
    canaries = sorted({v for p in personas for v in canary_values(p)})
    # the quarantined line carries canaries of its own
    bad = {"name": "Philomena Stratharbour", "email": "philo.stratharbour@canary-mail.example.org",
           "user_id": "philomena_stratharbour_6161", "phone": "(628) 744-3190"}
    canaries += list(bad.values()) + ["Stratharbour"]
    assert len(canaries) >= 300, len(canaries)
    names = {p[k] for p in personas for k in ("first", "last", "companion_first", "companion_last")}
    assert not faker_names & (names | {"Philomena", "Stratharbour"})  # no fake can equal one

    inp = tmp_path / "canary_logs.jsonl"
    lines = [json.dumps(record(i)) for i in range(N_PERSONAS)]
    lines.insert(3, '{"id": "canary-bad", "messages": [{"role": "user", "content": "I am '
                 f'{bad["name"]}, {bad["email"]}, id {bad["user_id"]}, phone {bad["phone"]}"' + "}, ")
    inp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    raw = inp.read_text(encoding="utf-8")
    for c in canaries:  # each canary really is in the input (else the test proves nothing)
        assert _leak_rx(c).search(raw), c

    # the anonymize stage itself: every placement (URLs, secrets, split turns) is cleaned
    from pipeline.ingest import ingest
    from pipeline.stages import anonymize_stage

    monkeypatch.setenv("TRAJPIPE_SECRET", "canary-test-secret")
    anon = anonymize_stage(ingest(inp).records, progress=False)
    anon_text = "\n".join(json.dumps(r.model_dump(), ensure_ascii=False) for r in anon.records)
    assert len(anon.records) == N_PERSONAS and "I travel with" in anon_text
    assert not [cv for cv in canaries if _leak_rx(cv).search(anon_text)]
    assert anon.report["residual"]["count"] == 0, anon.report["residual"]

    out = tmp_path / "out"
    caplog.set_level(logging.DEBUG)
    from flows.trajpipe_flow import run_config

    manifest = trajpipe_run(run_config(
        seed=0, work_dir=str(tmp_path / "work"), ingest={"input_path": str(inp)}, synthesize={"tasks_per_blueprint": 1},
        rollout={"k": 1, "max_turns": 2, "max_new_tokens": 24, "batch_size": 8}, select={"cap": 1},
        export={"out_dir": str(out)}))
    c = manifest["counts"]
    assert c["ingest"]["in"] == N_PERSONAS + 1 and c["ingest"]["quarantined"] == 1
    assert c["anonymize"]["ok"] == N_PERSONAS and c["anonymize"]["quarantined"] == 0
    assert c["rollout"]["trajectories"] >= 1  # the teacher really ran

    sinks: dict[str, str] = _texts(out)
    assert any(k.endswith("quarantine.parquet") for k in sinks) and any(
        k.endswith("manifest.json") for k in sinks)
    sinks["flow return value"] = json.dumps(manifest, default=str)
    from prefect.settings import PREFECT_HOME, PREFECT_LOCAL_STORAGE_PATH

    for root in {Path(str(PREFECT_LOCAL_STORAGE_PATH.value())),
                 Path(str(PREFECT_HOME.value())) / "storage"}:
        if root.is_dir():
            sinks.update({f"prefect storage {k}": v for k, v in _texts(root).items()})
    try:
        from prefect.client.orchestration import get_client

        with get_client(sync_client=True) as client:
            logs = client.read_logs(limit=200)
        sinks["prefect API logs"] = "\n".join(str(getattr(x, "message", x)) for x in logs)
    except Exception as exc:  # noqa: BLE001 - an API without stored logs: the captured ones count
        sinks["prefect API logs"] = f"(unavailable: {type(exc).__name__})"
    captured = capfd.readouterr()
    sinks["stdout"], sinks["stderr"] = captured.out, captured.err
    sinks["logging"] = "\n".join(r.getMessage() for r in caplog.records)

    leaks = [(where, cv) for where, text in sinks.items() for cv in canaries
             if _leak_rx(cv).search(text)]
    assert not leaks, f"{len(leaks)} canary leaks, e.g. {leaks[:10]}"
    # the report names entity types and record ids, never values
    rep = manifest["anonymization_report"]
    for ent in ("FIRST_NAME", "LAST_NAME", "EMAIL_ADDRESS", "PHONE_NUMBER", "USER_ID",
                "RESERVATION_ID", "PAYMENT_ID", "CREDIT_CARD", "PASSWORD", "API_KEY",
                "SESSION_ID", "ACCESS_TOKEN", "ORDER_ID", "DATE_OF_BIRTH", "ZIP", "IBAN_CODE", "SSN",
                "ACCOUNT_ID"):
        assert rep["by_entity"].get(ent, 0) >= N_PERSONAS, ent
    assert rep["residual"]["records_scanned"] >= N_PERSONAS and rep["residual"]["real_values"] == 0
