"""`trajpipe domain check`: replay fidelity of a domain's sandbox against logs, on the real tau-bench
airline runs and retail transcripts with their databases (../shared/data, skipped when absent) and on
a scaffolded domain of the fictional clinic logs."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.domains import get_domain
from pipeline.scaffold.check import load_snapshot, replay, resolve_domain
from pipeline.scaffold.observe import canonical, load_records, record_calls
from shared_paths import TAU_DIR

ROOT = Path(__file__).resolve().parents[1]
TAU = TAU_DIR
CLINIC_LOGS = ROOT / "tests" / "data" / "logs" / "clinic_openai_log.jsonl"


def _need_shared():
    if not (TAU / "logs" / "airline-gpt4o-trajectories.json").exists():
        pytest.skip(f"shared data not found at {TAU} (expected ../shared/data/tau-bench beside the project)")


def test_canonical_form():
    assert canonical('{"b": 1.0, "a": [2, 0.30000000000000004]}') == canonical('{"a":[2.0,0.3],"b":1}')
    assert canonical("Error:  user\n not found ") == "Error: user not found"
    assert canonical('{"a": 1}') != canonical('{"a": 2}')
    assert canonical('"x"') == canonical("x")


def test_difference_kinds_name_the_paths_not_the_values():
    from pipeline.scaffold.check import difference_kind

    a = {"address": {"province": "TX"}, "flights": [{"price": 1}, {"price": 2}]}
    b = {"address": {"state": "TX"}, "flights": [{"price": 1}, {"price": 3}]}
    assert difference_kind(a, b) == "address/province, address/state, flights[*]/price"
    assert difference_kind([1], [1, 2]) == "(top level)"  # lists of different lengths: their path
    assert difference_kind("Error: user not found", {"a": 1}) == "logged error / replayed result"
    assert difference_kind({"a": 1}, "Error: user not found") == "logged result / replayed error"
    assert difference_kind("Certificate x", "Certificate y") == "text"


def test_calls_pair_with_results_when_ids_repeat():
    """tau-bench's runs reuse a tool_call_id within a conversation: results pair with the open call."""
    rec = {"id": "r", "messages": [
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "function": {"name": "a", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c", "content": "A"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "function": {"name": "b", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c", "content": "B"}]}
    assert [(c.name, c.result) for c in record_calls(rec)] == [("a", "A"), ("b", "B")]


def test_snapshot_loading(tmp_path):
    (tmp_path / "db").mkdir()
    (tmp_path / "db" / "users.json").write_text('{"u1": {"name": "x"}}')
    (tmp_path / "db" / "notes.json").write_text("[1, 2]")  # not a table: skipped
    assert load_snapshot(tmp_path / "db") == {"users": {"u1": {"name": "x"}}}
    (tmp_path / "one.json").write_text('{"users": {}}')
    assert load_snapshot(tmp_path / "one.json") == {"users": {}}
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError):
        load_snapshot(tmp_path / "empty")
    with pytest.raises(FileNotFoundError):
        load_snapshot(tmp_path / "missing")
    with pytest.raises(ValueError, match="unknown domain"):
        resolve_domain("no_such_domain_xyz")


def test_airline_runs_against_the_airline_db(tmp_path):
    _need_shared()
    out = tmp_path / "airline.json"
    r = CliRunner().invoke(app, ["domain", "check", "airline", "--logs", str(TAU / "logs" / "airline-gpt4o-trajectories.json"),
                                 "--db", str(TAU / "airline"), "--limit", "40", "--differences", "1000", "--json", str(out)])
    assert r.exit_code == 0, r.output
    assert "| `get_reservation_details` | read |" in r.output
    rep = json.loads(out.read_text())
    assert rep["records"] == 40
    tools = rep["tools"]
    for t in tools.values():
        assert t["compared"] + sum(t["skipped"].values()) == t["calls"]
        assert len(t["first_differences"]) == t["compared"] - t["matched"]
    # reads that depend only on the snapshot reproduce exactly
    for name in ("get_reservation_details", "search_direct_flight", "calculate", "think"):
        assert tools[name]["compared"] > 0 and tools[name]["matched"] == tools[name]["compared"], name
    # every get_user_details difference is the address key: the logs say "province", the DB "state"
    gud = tools["get_user_details"]
    assert gud["compared"] > 0
    assert all(sorted(x.split(":")[0] for x in d["diff"]) == ["address/province", "address/state"]
               for d in gud["first_differences"])
    # ... and the report says so as one kind of mismatch covering all of them, not as a match
    assert gud["matched"] == 0
    assert gud["difference_kinds"] == {"address/province, address/state": gud["compared"]}
    assert f"get_user_details: {gud['compared']} of {gud['compared']} mismatches differ in address/province, " \
           f"address/state" in r.output
    # the writes the logged system made reproduce (reservation ids HATHAT..., the kept cabin,
    # certificate ids: docs/domains.md section 12), and so do the one-stop searches
    for name in ("book_reservation", "update_reservation_flights", "cancel_reservation", "search_onestop_flight"):
        assert tools[name]["compared"] > 0 and tools[name]["matched"] == tools[name]["compared"], (name, tools[name])


def test_retail_transcripts_against_the_retail_db(tmp_path):
    _need_shared()
    out = tmp_path / "retail.json"
    r = CliRunner().invoke(app, ["domain", "check", "retail", "--logs", str(TAU / "logs" / "retail-transcripts.jsonl"),
                                 "--db", str(TAU / "retail"), "--limit", "30", "--json", str(out)])
    assert r.exit_code == 0, r.output
    tools = json.loads(out.read_text())["tools"]
    # the transcripts do not show a calculation's expression: counted, not compared
    assert tools.get("calculate", {"compared": 0})["compared"] == 0
    assert tools["get_order_details"]["matched"] == tools["get_order_details"]["compared"] > 0
    assert tools["cancel_pending_order"]["matched"] == tools["cancel_pending_order"]["compared"] > 0


def test_a_wrong_sandbox_is_caught():
    """The check must be able to fail: a retail domain whose order lookup lies is measured as such."""
    _need_shared()
    import copy

    from pipeline.domains.base import Tool

    retail = get_domain("retail")
    broken = copy.copy(retail)
    broken.tools = dict(retail.tools)
    real = retail.tools["get_order_details"]

    def lying(state, order_id):
        rec = json.loads(real.fn(state, order_id=order_id))
        rec["status"] = "delivered" if rec["status"] != "delivered" else "pending"
        return json.dumps(rec)

    broken.tools["get_order_details"] = Tool(lying, real.schema, False)
    records = load_records(TAU / "logs" / "retail-transcripts.jsonl")[0][:10]
    rep = replay(broken, records, load_snapshot(TAU / "retail"))
    row = rep.tools["get_order_details"]
    assert row.compared > 0 and row.matched == 0
    assert any("status" in x for x in row.first_differences[0]["diff"])


def test_scaffolded_domain_checked_from_its_folder(tmp_path):
    out = tmp_path / "pkg"
    r = CliRunner().invoke(app, ["domain", "init", "clinic_chk", "--from-logs", str(CLINIC_LOGS), "--out", str(out)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, ["domain", "check", "clinic_chk", "--package-dir", str(out), "--logs", str(CLINIC_LOGS),
                                 "--json", str(tmp_path / "c.json")])
    assert r.exit_code == 0, r.output
    tools = json.loads((tmp_path / "c.json").read_text())["tools"]
    assert tools["find_patient_by_phone"]["share"] == 1.0
    assert tools["transfer_to_human_agents"]["share"] == 1.0  # the shared hand-off: its logged result
    assert tools["cancel_appointment"]["matched"] == 0
    # a registered domain without state_from_logs needs a snapshot
    r = CliRunner().invoke(app, ["domain", "check", "library", "--logs", str(CLINIC_LOGS)])
    assert r.exit_code == 2 and "--db" in r.output
