"""`trajpipe domain init`: a domain package scaffolded from logs, on the fictional clinic log set
(tests/data/logs, written by tests/data/make_clinic_logs.py) and on the real tau-bench retail
transcripts (../shared/data, skipped when absent), as if retail were unknown."""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.domains.base import Domain
from pipeline.sandbox import validate_arguments
from pipeline.scaffold.check import replay
from pipeline.scaffold.infer import small_enum, split_policy
from pipeline.scaffold.observe import all_calls, load_records
from shared_paths import TAU_DIR

ROOT = Path(__file__).resolve().parents[1]
CLINIC_LOGS = ROOT / "tests" / "data" / "logs" / "clinic_openai_log.jsonl"
CLINIC_WRITES = ROOT / "tests" / "data" / "clinic_writes.py"
RETAIL_TRANSCRIPTS = TAU_DIR / "logs" / "retail-transcripts.jsonl"
#: what the fictional clinic system really is (tests/data/make_clinic_logs.py), to judge the scaffold
CLINIC_WRITE_TOOLS = {"book_appointment", "cancel_appointment", "reschedule_appointment"}
CLINIC_READ_TOOLS = {"find_patient_by_phone", "get_patient", "get_appointment", "list_free_slots"}


def _import_package(out: Path, name: str):
    """Import a scaffolded package from ``out`` (fresh: earlier imports of ``name`` dropped)."""
    for mod in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[mod]
    sys.path.insert(0, str(out))
    importlib.invalidate_caches()
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(out))


def _init(tmp_path: Path, name: str, logs: Path) -> tuple[Path, dict]:
    out = tmp_path / name
    res = CliRunner().invoke(app, ["domain", "init", name, "--from-logs", str(logs), "--out", str(out)])
    assert res.exit_code == 0, res.output
    summary = json.loads((out / name / "scaffold.json").read_text())["summary"]
    # the terminal gets a short report pointing at scaffold.json, not the whole summary
    flat = res.output.replace("\n", "")
    assert "scaffold.json" in flat and '"tools"' not in flat and '"tables"' not in flat
    assert len(res.output.splitlines()) < 25  # (the whole summary was hundreds of lines)
    return out, summary


def test_clinic_scaffold_without_edits(tmp_path):
    out, summary = _init(tmp_path, "clinic_a", CLINIC_LOGS)
    for f in ("pyproject.toml", "README.md", "clinic_a/__init__.py", "clinic_a/state.py", "clinic_a/tools.py",
              "clinic_a/rules.py", "clinic_a/generator.py", "clinic_a/policy.md", "tests/test_contract.py",
              "tests/test_replay.py"):
        assert (out / f).is_file(), f
    assert '[project.entry-points."trajpipe.domains"]' in (out / "pyproject.toml").read_text()
    assert 'clinic_a = "clinic_a:DOMAIN"' in (out / "pyproject.toml").read_text()
    # read/write split: exactly the clinic's (the shared hand-off is a read tool, section 9a)
    tools = summary["tools"]
    assert {t for t, v in tools.items() if v["writes"]} == CLINIC_WRITE_TOOLS
    assert {t for t, v in tools.items() if not v["writes"]} == CLINIC_READ_TOOLS | {"transfer_to_human_agents"}
    assert summary["skipped_tools"] == {}
    assert tools["cancel_appointment"]["basis"] == "logs" and tools["cancel_appointment"]["votes"]["write"] >= 3

    pkg = _import_package(out, "clinic_a")
    dom = pkg.DOMAIN
    assert isinstance(dom, Domain) and dom.write_tools == CLINIC_WRITE_TOOLS
    # schemas: required = present in every call, descriptions from the logged tool definitions
    fn = {s["function"]["name"]: s["function"] for s in dom.tool_schemas()}
    assert fn["list_free_slots"]["parameters"]["required"] == ["date", "doctor_id"]
    assert fn["list_free_slots"]["parameters"]["properties"]["date"]["description"] == "YYYY-MM-DD"
    assert fn["get_patient"]["description"] == "Get a patient's record and appointment ids."
    assert fn["book_appointment"]["parameters"]["additionalProperties"] is False
    for f in fn.values():
        jsonschema.Draft202012Validator.check_schema(f["parameters"])
    records = load_records(CLINIC_LOGS)[0]
    for c in all_calls(records):
        if c.name in dom.tools:
            assert validate_arguments(dom.tools[c.name].schema, c.arguments) is None
    assert validate_arguments(dom.tools["get_patient"].schema, {"patient_id": "P-1", "x": 1})  # no extra fields
    # policy: the system prompt's bullets as rules with ids the domain parses
    assert len(dom.rules) == 7 and dom.rules[0].rule_id == "clinic_a.identity.identify_patient_phone"
    # state the logs reveal fits the inferred models; read tools replay the logs
    state = dom.state_from_logs(records)
    dom.validate_state(state)
    assert set(state["patients"]) == {"P-1001", "P-1002", "P-1003", "P-1004"}
    with pytest.raises(ValueError):
        dom.validate_state({**state, "patients": {"P-9": {"patient_id": "P-9"}}})
    rep = replay(dom, records, state)
    for t in CLINIC_READ_TOOLS:
        row = rep.tools[t]
        assert row.compared and row.matched + row.downstream == row.compared, (t, row.first_differences)
    assert rep.tools["find_patient_by_phone"].matched == rep.tools["find_patient_by_phone"].compared == 12
    for t in CLINIC_WRITE_TOOLS:  # stubs: every call differs, and says why
        assert rep.tools[t].matched == 0 and "scaffolded stub" in rep.tools[t].first_differences[0]["replayed"]
    # the write stubs document a logged change
    assert "status: 'scheduled' -> 'cancelled'" in (out / "clinic_a" / "tools.py").read_text()


def test_clinic_entity_factory(tmp_path):
    out, _ = _init(tmp_path, "clinic_b", CLINIC_LOGS)
    pkg = _import_package(out, "clinic_b")
    gen = importlib.import_module("clinic_b.generator")
    state_mod = importlib.import_module("clinic_b.state")
    a, b = gen.Factory(7), gen.Factory(7)
    keys = [a.record("patients") for _ in range(3)]
    assert keys == [b.record("patients") for _ in range(3)] and a.state == b.state
    for k in keys:
        rec = a.state["patients"][k]
        state_mod.MODELS["patients"].model_validate(rec)
        assert rec["patient_id"] == k and k.startswith("P-") and len(k) == 6
        assert rec["insurance"] in {"private", "public", "none"}  # an enum of the logged values
    real = {"Lena Marsh", "Omar Haddad", "Greta Lindqvist", "Tomas Reyes"}  # the logged patients
    denied = gen.Factory(7, denylist=lambda v: v in real or v == keys[0])
    assert denied.record("patients") != keys[0]
    assert not any(p["name"] in real for p in denied.state["patients"].values())
    with pytest.raises(NotImplementedError):
        pkg.DOMAIN.generate_task("book_appointment", seed=1)
    with pytest.raises(ValueError):
        pkg.DOMAIN.generate_task("fly_to_the_moon", seed=1)


def test_clinic_write_stubs_filled_in_replay_the_logs(tmp_path):
    """What a person writes to turn the stubs into the clinic's writes (tests/data/clinic_writes.py,
    appended to the generated tools.py): every logged call then replays exactly."""
    out, _ = _init(tmp_path, "clinic_c", CLINIC_LOGS)
    tools_py = out / "clinic_c" / "tools.py"
    tools_py.write_text(tools_py.read_text() + "\n\n" + CLINIC_WRITES.read_text())
    pkg = _import_package(out, "clinic_c")
    records = load_records(CLINIC_LOGS)[0]
    rep = replay(pkg.DOMAIN, records, pkg.DOMAIN.state_from_logs(records))
    for t in CLINIC_READ_TOOLS | CLINIC_WRITE_TOOLS:
        row = rep.tools[t]
        assert row.matched == row.compared > 0, (t, row.first_differences)
    written = [ln for ln in CLINIC_WRITES.read_text().splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    assert len(written) < 80  # the measured size is reported in docs/domains.md


def test_enum_and_policy_rules():
    assert small_enum("reason", ["a", "b", "a", "b", "a", "b"]) == ["a", "b"]
    assert small_enum("reason", ["a", "b", "a"]) is None             # too few calls per value
    assert small_enum("order_id", ["x", "y"] * 5) is None            # id-like name
    assert small_enum("status", ["W123456", "W223456"] * 5) is None  # id-like values
    policy, rules = split_policy("# Refunds\n- Refund within 30 days.\nBe nice. You must ask first.\n", "shop")
    assert rules == [("shop.refunds.refund_within_days", "Refund within 30 days."),
                     ("shop.refunds.ask_first", "You must ask first.")]
    assert "- [shop.refunds.ask_first] You must ask first." in policy and "Be nice." in policy


def test_readers_feed_init(tmp_path):
    """The new readers' formats scaffold too: the ShareGPT sample gives the repair desk's tools."""
    out, summary = _init(tmp_path, "desk", ROOT / "tests" / "data" / "logs" / "sharegpt_function_calls.json")
    # mark_ready is called only in a quarantined item, but every item declares it: ingest reads
    # declared tools as a record's evidence, so the domain has it too (no calls, a declared schema)
    assert set(summary["tools"]) == {"get_ticket", "mark_ready"}
    assert summary["tools"]["mark_ready"]["calls"] == 0
    assert summary["tools"]["get_ticket"]["lookup"] == "tickets[ticket_id]"


def test_bad_name_and_existing_out(tmp_path):
    r = CliRunner().invoke(app, ["domain", "init", "Bad-Name", "--from-logs", str(CLINIC_LOGS), "--out", str(tmp_path / "x")])
    assert r.exit_code == 2 and "identifier" in r.output
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("x")
    r = CliRunner().invoke(app, ["domain", "init", "ok", "--from-logs", str(CLINIC_LOGS), "--out", str(tmp_path / "full")])
    assert r.exit_code == 2 and "not empty" in r.output
    empty = tmp_path / "empty.jsonl"
    empty.write_text(json.dumps({"id": "a", "messages": [{"role": "user", "content": "hi"}]}) + "\n")
    r = CliRunner().invoke(app, ["domain", "init", "ok", "--from-logs", str(empty), "--out", str(tmp_path / "y")])
    assert r.exit_code == 2 and "no call of a business tool" in r.output


def test_retail_transcripts_as_if_unknown(tmp_path):
    if not RETAIL_TRANSCRIPTS.exists():
        pytest.skip(f"shared data not found at {RETAIL_TRANSCRIPTS} (../shared/data/tau-bench)")
    from pipeline.domains import get_domain

    retail = get_domain("retail")
    out, summary = _init(tmp_path, "shop", RETAIL_TRANSCRIPTS)
    tools = summary["tools"]
    # the read/write split agrees with the hand-written retail domain on every tool the logs use
    for t, v in tools.items():
        assert v["writes"] == (t in retail.write_tools), t
    assert all(v["basis"] == "logs" for t, v in tools.items() if v["writes"])  # every write seen changing a record
    # required arguments: those of retail's schema for tools whose arguments the transcripts show in full
    for t in ("get_order_details", "get_product_details", "get_user_details", "cancel_pending_order",
              "return_delivered_order_items", "exchange_delivered_order_items", "modify_pending_order_address"):
        want = set(retail.tools[t].schema["function"]["parameters"].get("required", []))
        assert set(tools[t]["required"]) == want, t
    assert tools["cancel_pending_order"]["enums"] == {"reason": ["no longer needed", "ordered by mistake"]}
    assert tools["think"]["lookup"] == "constant result"
    pkg = _import_package(out, "shop")
    records = load_records(RETAIL_TRANSCRIPTS)[0]
    from pipeline.scaffold import runtime

    state, conflicts = runtime.state_from_logs(records, importlib.import_module("shop.state").RECORD_TOOLS,
                                               importlib.import_module("shop.state").LOOKUP_TOOLS,
                                               importlib.import_module("shop.state").WRITE_TOOLS)
    pkg.DOMAIN.validate_state(state)
    rep = replay(pkg.DOMAIN, records, state, max_differences=100)
    conflicted = {c.split("/", 2)[1] + "/" + c.split("/", 2)[2] for c in conflicts if c.startswith("lookups/")}
    for t in pkg.DOMAIN.read_tools:
        row = rep.tools[t]
        # every read mismatch follows a write stub, or its arguments (guessed by the transcript reader)
        # had different logged results in different conversations
        unexplained = [d for d in row.first_differences if not d["downstream"]
                       and f"{t}/{runtime.arguments_key(d['arguments'])}" not in conflicted]
        assert not unexplained, (t, unexplained[:2])
        assert len(row.first_differences) == row.compared - row.matched
    m, c = rep.totals(writes=False)
    assert c >= 350 and m / c > 0.99


def test_airline_runs_as_if_unknown(tmp_path):
    """The tau-bench airline runs carry the policy as system prompt and declare no tools."""
    logs = RETAIL_TRANSCRIPTS.parent / "airline-gpt4o-trajectories.json"
    if not logs.exists():
        pytest.skip(f"shared data not found at {logs} (../shared/data/tau-bench)")
    from pipeline.domains import get_domain

    airline = get_domain("airline")
    out, summary = _init(tmp_path, "air", logs)
    tools = summary["tools"]
    assert set(tools) <= set(airline.tools)
    for t, v in tools.items():
        assert v["writes"] == (t in airline.write_tools), t
    for t in ("book_reservation", "update_reservation_flights"):  # enums pooled across tools
        want = airline.tools[t].schema["function"]["parameters"]["properties"]["cabin"]["enum"]
        assert tools[t]["enums"]["cabin"] == sorted(want)
    assert "origin" not in tools["book_reservation"]["enums"]  # airport codes: an open set
    assert summary["rules"] >= 20
    pkg = _import_package(out, "air")
    assert all(r.rule_id.startswith("air.") for r in pkg.DOMAIN.rules)


def test_clinic_filled_in_generates_verified_tasks(tmp_path):
    """The scaffold plus what a person writes (the write tools, tests/data/clinic_writes.py; one task
    kind, tests/data/clinic_generator.py; the identity tool) gives task packages that pass trajpipe's
    task verifier (reference, fail-to-pass, no answer leak, required tools, reverse validation)."""
    from pipeline.records import Blueprint
    from pipeline.synthesize import build_package
    from pipeline.verify.tasks import verify_task

    out, _ = _init(tmp_path, "clinic_d", CLINIC_LOGS)
    pkg_dir = out / "clinic_d"
    (pkg_dir / "tools.py").write_text((pkg_dir / "tools.py").read_text() + "\n\n" + CLINIC_WRITES.read_text())
    (pkg_dir / "generator.py").write_text((pkg_dir / "generator.py").read_text() + "\n\n"
                                          + (ROOT / "tests" / "data" / "clinic_generator.py").read_text())
    init = (pkg_dir / "__init__.py").read_text()
    assert "identity_tools: set[str] = set()" in init
    (pkg_dir / "__init__.py").write_text(init.replace("identity_tools: set[str] = set()",
                                                      'identity_tools: set[str] = {"find_patient_by_phone"}'))
    dom = _import_package(out, "clinic_d").DOMAIN
    bp = Blueprint(blueprint_id="clinic-cancel", domain="clinic_d", intent="cancel an appointment",
                   action_signature=["cancel_appointment(appointment_id:str)"],
                   required_tools=["find_patient_by_phone", "get_patient", "get_appointment", "cancel_appointment"],
                   read_tools=["find_patient_by_phone", "get_patient", "get_appointment"],
                   initial_state_requirements={}, business_constraints=[], success_condition="cancelled",
                   failure_modes=[], source_log_ids=[], n_logs=4, n_success=4,
                   task_kind=dom.kind_for_write_calls(["cancel_appointment"]))
    tasks = [build_package(bp, dom, i, seed=0) for i in range(8)]
    verdicts = [verify_task(t, dom) for t in tasks]
    assert all(v.passed for v in verdicts), [(v.task_id, v.reason_codes) for v in verdicts if not v.passed]
    assert len({t.hidden.expected_state_hash for t in tasks}) == len(tasks)  # distinct instances
    for t in tasks:
        dom.validate_state(t.hidden.initial_state)
        appt_times = [a["time"] for a in t.hidden.initial_state["appointments"].values()]
        assert all(0 <= int(x[:2]) <= 23 and x[3:] in ("00", "30") for x in appt_times)


def test_init_json_prints_the_summary(tmp_path):
    out = tmp_path / "clinic_j"
    res = CliRunner().invoke(app, ["domain", "init", "clinic_j", "--from-logs", str(CLINIC_LOGS), "--out", str(out),
                                   "--json"])
    assert res.exit_code == 0, res.output
    printed = json.loads(res.output[res.output.index("{"):])
    assert printed == json.loads((out / "clinic_j" / "scaffold.json").read_text())["summary"]


def test_a_tool_declared_but_never_called_is_scaffolded_and_owns_its_records(tmp_path):
    """Issue 11's fifteenth-round fresh-clone check: the logs declared ``update_address`` in every
    record's ``tools`` but never called it; ``domain init`` left it out, and ingest (which reads
    declared tools as a record's evidence) quarantined every record INGEST_NO_DOMAIN."""
    from pipeline.domains.base import foreign_tools
    from pipeline.scaffold.infer import infer_domain

    declared = [{"type": "function", "function": {"name": "get_customer", "description": "Look a customer up.",
                                                  "parameters": {"type": "object", "properties": {
                                                      "customer_id": {"type": "string"}}, "required": ["customer_id"]}}},
                {"type": "function", "function": {"name": "update_address", "description": "Change the address.",
                                                  "parameters": {"type": "object", "properties": {
                                                      "customer_id": {"type": "string"}, "address": {"type": "string"}},
                                                      "required": ["customer_id", "address"]}}}]
    records = []
    for i in range(3):
        cid = f"C-{1000 + i}"
        records.append({"id": f"r{i}", "tools": declared, "messages": [
            {"role": "user", "content": f"my id is {cid}"},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
                "name": "get_customer", "arguments": json.dumps({"customer_id": cid})}}]},
            {"role": "tool", "tool_call_id": "c1", "content": json.dumps({"customer_id": cid, "city": "Porto"})},
            {"role": "assistant", "content": "Found you."}]})
    spec = infer_domain(records, "shop_x")
    by_name = {t.name: t for t in spec.tools}
    assert set(by_name) == {"get_customer", "update_address"}
    assert by_name["update_address"].n_calls == 0 and by_name["update_address"].declared
    assert set(by_name["update_address"].parameters["properties"]) == {"customer_id", "address"}
    # the scaffolded package owns the records: none of their tools is foreign to it
    logs = tmp_path / "logs.jsonl"
    logs.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    out, summary = _init(tmp_path, "shop_x", logs)
    assert "update_address" in summary["tools"]
    pkg = _import_package(out, "shop_x")
    dom = next(v for v in vars(pkg).values() if isinstance(v, Domain)) if not hasattr(pkg, "DOMAIN") else pkg.DOMAIN
    assert all(foreign_tools(dom, r) == [] for r in records)
