"""Domain routing at ingest (issue 17): each record goes to the domain that owns its tools, and a
record no domain owns is quarantined with a reason code naming its unknown tools, never forced into
a default domain (the office-assistant case of ../shared/cases/routing/)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.blueprints import extract_blueprints
from pipeline.domains import get_domain
from pipeline.domains.base import Domain, Tool, default_owns, evidence_tools, foreign_tools, record_tool_uses
from pipeline.ingest import ingest, read_jsonl, write_jsonl
from pipeline.ingest.routing import INGEST_DOMAIN_AMBIGUOUS, INGEST_NO_DOMAIN, route_all
from pipeline.ingest.transcripts import transcript_to_canonical
from pipeline.records import LogRecord, QuarantineRecord
from pipeline.stages import blueprints_stage
from pipeline.synthesize import synthesize
from pipeline.verify.reasons import REASONS
from tests.conftest import AIRLINE_LOGS, ROOT
from shared_paths import CASES_DIR

OFFICE = CASES_DIR / "routing" / "office-assistant-logs.jsonl"


@pytest.fixture(scope="module")
def office() -> Path:
    if not OFFICE.exists():
        pytest.skip(f"routing case not found at {OFFICE} (expected ../shared/cases/routing/ beside the project)")
    return OFFICE


# ---- building small inputs --------------------------------------------------------------------

def _call(i: int, name: str, args: dict, result: str = '{"ok": true}') -> list[dict]:
    return [{"role": "assistant", "content": None,
             "tool_calls": [{"id": f"c{i}", "type": "function",
                             "function": {"name": name, "arguments": json.dumps(args)}}]},
            {"role": "tool", "tool_call_id": f"c{i}", "name": name, "content": result}]


def conversation(rid: str, calls: list[tuple[str, dict]], metadata: dict | None = None,
                 text: str = "Hi, I need help with my request.") -> dict:
    """A canonical conversation calling ``calls`` in order (``(name, arguments)``)."""
    msgs = [{"role": "system", "content": "policy"}, {"role": "user", "content": text}]
    for i, (name, args) in enumerate(calls):
        msgs += _call(i, name, args)
    msgs.append({"role": "assistant", "content": "Done."})
    out = {"id": rid, "messages": msgs}
    if metadata is not None:
        out["metadata"] = metadata
    return out


def taubench_run(task_id: int, calls: list[tuple[str, dict]], gold: list[tuple[str, dict]] | None = None,
                 reward: float = 1.0, text: str = "Hi, please cancel my pending order #W1234567.") -> dict:
    """A tau-bench recorded run (the format of airline-gpt4o-trajectories.json)."""
    conv = conversation("x", calls, text=text)
    return {"task_id": task_id, "trial": 0, "reward": reward,
            "info": {"task": {"user_id": "ava_lee_1234", "instruction": "You are Ava.",
                              "actions": [{"name": n, "kwargs": a} for n, a in (gold if gold is not None else calls)],
                              "outputs": []}},
            "traj": conv["messages"]}


def write_lines(path: Path, objs: list[dict]) -> Path:
    path.write_text("".join(json.dumps(o) + "\n" for o in objs), encoding="utf-8")
    return path


RETAIL_CANCEL = [("find_user_id_by_email", {"email": "ava.lee@example.com"}),
                 ("get_order_details", {"order_id": "#W1234567"}),
                 ("think", {"thought": "pending: can cancel"}),
                 ("cancel_pending_order", {"order_id": "#W1234567", "reason": "no longer needed"})]
AIRLINE_CANCEL = [("get_user_details", {"user_id": "ava_lee_1234"}),
                  ("get_reservation_details", {"reservation_id": "ABC123"}),
                  ("cancel_reservation", {"reservation_id": "ABC123"})]
OFFICE_CALLS = [("search_events", {"query": "sync"}), ("send_email", {"to": "a@corp.test", "body": "moved"})]


# ---- the office-assistant case ----------------------------------------------------------------

def _office_tools(path: Path) -> dict[str, set[str]]:
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        out[rec["id"]] = {tc["function"]["name"] for m in rec["messages"] for tc in m.get("tool_calls") or []}
    return out


def test_office_assistant_logs_are_set_aside_with_their_unknown_tools(office, tmp_path):
    tools = _office_tools(office)
    res = ingest(office)
    assert res.n_in == len(tools) == 3 and res.records == []
    assert [q.record_id for q in res.quarantine] == list(tools)
    for q in res.quarantine:
        assert q.reason_code == INGEST_NO_DOMAIN and q.stage == "ingest"
        named = set(q.error.split("unknown tools: ", 1)[1].split(" (", 1)[0].split(", "))
        assert named == tools[q.record_id], q.error  # exactly its own unknown tools
        assert "docs/domains.md" in q.error
        assert json.loads(q.raw)["id"] == q.record_id  # nothing lost: the record is in the quarantine
    # no blueprint, no task
    assert blueprints_stage(res.records, "auto") == []
    assert synthesize([], get_domain, n_per_blueprint=2, seed=0).tasks == []
    # the quarantine file keeps them
    write_jsonl(res.quarantine, tmp_path / "quarantine.jsonl")
    back = read_jsonl(tmp_path / "quarantine.jsonl", QuarantineRecord)
    assert [q.record_id for q in back] == list(tools)


def test_office_assistant_logs_are_not_forced_into_a_named_domain(office):
    res = ingest(office, domain="airline")  # naming a domain never overrides what the tools say
    assert res.records == [] and {q.reason_code for q in res.quarantine} == {INGEST_NO_DOMAIN}
    assert all("'airline' does not have tool(s)" in q.error and "no registered domain has" in q.error
               for q in res.quarantine)


def test_office_records_bypassing_ingest_are_refused_by_blueprints(office):
    recs = [LogRecord.model_validate(json.loads(line)) for line in office.read_text().splitlines()]
    with pytest.raises(ValueError, match="INGEST_NO_DOMAIN.*unknown tools"):
        extract_blueprints(recs, get_domain)  # was: airline refusal blueprints


def test_office_case_through_the_cli(office, tmp_path):
    from typer.testing import CliRunner

    from pipeline.cli import app

    out = CliRunner().invoke(app, ["ingest", "--input", str(office), "--work", str(tmp_path)])
    assert out.exit_code == 3, out.output  # every record quarantined: a scheduler sees a failure
    assert "3 in = 0 ok + 3 quarantined" in out.output
    # nothing passed: the next stages would run on nothing - said, with the way out
    assert "warning: no record passed ingest" in out.output and "trajpipe domain init" in out.output
    from pipeline.runner import artifact_path

    assert artifact_path(tmp_path, "logs").read_text() == ""
    q = read_jsonl(artifact_path(tmp_path, "quarantine"), QuarantineRecord)
    assert [x.reason_code for x in q] == [INGEST_NO_DOMAIN] * 3
    bad = CliRunner().invoke(app, ["ingest", "--input", str(office), "--work", str(tmp_path), "--domain", "nope"])
    assert bad.exit_code != 0 and "known domains" in bad.output


def test_anonymize_after_an_ingest_that_passed_nothing_says_so(office, tmp_path, capfd):
    from typer.testing import CliRunner

    from pipeline.cli import app

    assert CliRunner().invoke(app, ["ingest", "--input", str(office), "--work", str(tmp_path)]).exit_code == 3
    capfd.readouterr()
    out = CliRunner().invoke(app, ["anonymize", "--work", str(tmp_path)])
    said = out.output + capfd.readouterr().err
    # a fresh-clone check (eighteenth round): it said "done" over an empty anonymized.jsonl
    assert "no record to anonymize" in said and "anonymized.jsonl is empty" in said, said


# ---- tau-bench format: routed by tools, no airline stamp -------------------------------------

def test_taubench_retail_run_goes_to_retail(tmp_path):
    runs = [taubench_run(1, RETAIL_CANCEL),
            taubench_run(2, RETAIL_CANCEL[:2], reward=0.0),  # failed run: the gold actions are evidence too
            taubench_run(3, [], gold=RETAIL_CANCEL, reward=0.0)]  # no call at all, gold actions only
    p = tmp_path / "runs.json"
    p.write_text(json.dumps(runs), encoding="utf-8")
    res = ingest(p)
    assert res.quarantine == [] and len(res.records) == 3
    assert [(r.metadata["domain"], r.metadata["domain_source"]) for r in res.records] == [("retail", "tools")] * 3
    bps = blueprints_stage(res.records, "auto")
    assert bps and {b.domain for b in bps} == {"retail"}
    assert any(b.task_kind == "cancel_pending_order" for b in bps)
    tasks = synthesize(bps, get_domain, n_per_blueprint=1, seed=0).tasks
    assert tasks and {t.domain for t in tasks} == {"retail"}


def test_taubench_office_runs_are_set_aside_naming_their_tools(office, tmp_path):
    """The office-assistant logs in tau-bench's run format (no domain stamp in that format): no
    record is forced into a default domain; each is set aside naming its own unknown tools, and
    nothing reaches a blueprint or a task."""
    recs = [json.loads(line) for line in office.read_text(encoding="utf-8").splitlines()]
    runs = []
    for i, rec in enumerate(recs):
        calls = [(tc["function"]["name"], json.loads(tc["function"]["arguments"] or "{}"))
                 for m in rec["messages"] for tc in m.get("tool_calls") or []]
        runs.append({"task_id": i, "trial": 0, "reward": 1.0,
                     "info": {"task": {"user_id": "x", "instruction": "", "actions": [], "outputs": []}},
                     "traj": rec["messages"], "_calls": calls})
    p = tmp_path / "office-runs.json"
    p.write_text(json.dumps(runs), encoding="utf-8")
    res = ingest(p)
    assert res.n_in == len(recs) and res.records == []
    tools = _office_tools(office)
    for q, run in zip(res.quarantine, runs):
        assert q.reason_code == INGEST_NO_DOMAIN
        named = set(q.error.split("unknown tools: ", 1)[1].split(" (", 1)[0].split(", "))
        assert named == {n for n, _ in run["_calls"]} == tools[recs[run["task_id"]]["id"]]
    assert blueprints_stage(res.records, "auto") == []


def test_retail_transcripts_without_a_domain_in_the_file_name_go_to_retail(shared_data, tmp_path):
    """Transcripts hide the tool names: every registered domain names the calls of its own result
    shapes (Domain.transcript_call), and routing then sends the records to the domain whose tools
    they are (no file-name hint, no default)."""
    src = shared_data / "logs" / "retail-transcripts.jsonl"
    p = tmp_path / "support-export.jsonl"
    p.write_text(src.read_text(encoding="utf-8"), encoding="utf-8")
    res = ingest(p)
    assert res.n_in == 69 and not res.quarantine
    assert {r.metadata["domain"] for r in res.records} == {"retail"}
    assert sum(r.metadata["domain_source"] == "tools" for r in res.records) >= 60
    named = {tc["function"]["name"] for r in res.records for m in r.messages for tc in m.get("tool_calls") or []}
    assert {"find_user_id_by_email", "get_order_details", "cancel_pending_order"} <= named


def test_taubench_airline_run_goes_to_airline(tmp_path):
    p = tmp_path / "runs.json"
    p.write_text(json.dumps([taubench_run(1, AIRLINE_CANCEL, text="Please cancel reservation ABC123.")]))
    res = ingest(p)
    assert [(r.metadata["domain"], r.metadata["domain_source"]) for r in res.records] == [("airline", "tools")]


def test_real_airline_logs_still_go_to_airline(shared_data):
    res = ingest(AIRLINE_LOGS)
    assert len(res.records) == 152 and not res.quarantine
    assert {r.metadata["domain"] for r in res.records} == {"airline"}
    by = {r.id: r.metadata["domain_source"] for r in res.records}
    # most by their own tools; the rest (no call, or only get_user_details) by the one-domain file
    assert sum(v == "tools" for v in by.values()) > 140 and set(by.values()) == {"tools", "file"}


def test_real_airline_logs_without_their_file_are_not_guessed(shared_data):
    runs = json.loads(AIRLINE_LOGS.read_text())
    silent = [r for r in runs if not any(m.get("tool_calls") for m in r["traj"]) and not r["info"]["task"]["actions"]]
    assert silent  # correct refusals: no call, no gold action
    routes = route_all([ingest_candidate(r) for r in silent])
    assert {rt.code for rt in routes} == {INGEST_NO_DOMAIN}
    assert all("calls no domain tool" in rt.detail for rt in routes)


def ingest_candidate(run: dict) -> dict:
    from pipeline.ingest import taubench_to_canonical

    return taubench_to_canonical(run, 0)


# ---- variations ---------------------------------------------------------------------------------

def test_mixed_file_routes_each_record(tmp_path):
    p = write_lines(tmp_path / "mixed.jsonl", [
        conversation("air-1", AIRLINE_CANCEL),
        conversation("office-1", OFFICE_CALLS),
        conversation("ret-1", RETAIL_CANCEL),
        conversation("chat-1", []),                                      # no tool, no name
        conversation("chat-2", [], metadata={"domain": "retail"}),       # no tool, named
        conversation("both-1", [AIRLINE_CANCEL[1], OFFICE_CALLS[1]]),    # an airline tool + an unknown tool
    ])
    res = ingest(p)
    assert res.n_in == 6 == len(res.records) + len(res.quarantine)
    assert {r.id: r.metadata["domain"] for r in res.records} == {"air-1": "airline", "ret-1": "retail",
                                                                  "chat-2": "retail"}
    q = {x.record_id: x for x in res.quarantine}
    assert [x.record_id for x in res.quarantine] == ["office-1", "chat-1", "both-1"]  # input order
    assert all(x.reason_code == INGEST_NO_DOMAIN for x in q.values())
    assert "unknown tools: search_events, send_email" in q["office-1"].error
    assert "calls no domain tool" in q["chat-1"].error
    # one airline tool and one unknown tool: set aside (a blueprint could not replay send_email),
    # and only the unknown one is named unknown
    assert "unknown tools: send_email (" in q["both-1"].error
    bps = blueprints_stage(res.records, "auto")
    assert {b.domain for b in bps} == {"airline", "retail"}


def test_one_domain_file_keeps_its_silent_records(tmp_path):
    silent = conversation("chat-1", [("think", {"thought": "nothing to do"})])
    only_shared = conversation("gud-1", [AIRLINE_CANCEL[0]])  # get_user_details: airline's and retail's
    res = ingest(write_lines(tmp_path / "a.jsonl", [conversation("air-1", AIRLINE_CANCEL), silent, only_shared]))
    assert [(r.id, r.metadata["domain"], r.metadata["domain_source"]) for r in res.records] == [
        ("air-1", "airline", "tools"), ("chat-1", "airline", "file"), ("gud-1", "airline", "file")]
    # the same records alone: no file to settle them
    alone = ingest(write_lines(tmp_path / "b.jsonl", [silent, only_shared]))
    assert alone.records == []
    assert [q.reason_code for q in alone.quarantine] == [INGEST_NO_DOMAIN, INGEST_DOMAIN_AMBIGUOUS]
    assert "airline, retail" in alone.quarantine[1].error
    # named, they are kept
    named = ingest(tmp_path / "b.jsonl", domain="retail")
    assert [r.metadata["domain"] for r in named.records] == ["retail", "retail"] and not named.quarantine



def test_silent_records_of_another_system_do_not_take_the_files_domain(tmp_path):
    """A red-team pass: tool-less records of another system (an office assistant, an HR bot whose
    tools are only named in its system prompt, one calling only think / the hand-off) beside
    airline runs became airline blueprints and tasks. The file's domain now goes only to silent
    records with no system prompt or the system prompt of the file's own records; the others are
    set aside with a reason that says why (through ingest and through route_all alike)."""
    air = conversation("air-1", AIRLINE_CANCEL)  # system prompt "policy"
    same_prompt = conversation("chat-1", [("think", {"thought": "nothing to do"})])
    no_prompt = {"id": "chat-2", "messages": [{"role": "user", "content": "Hello?"},
                                               {"role": "assistant", "content": "How can I help?"}]}
    office = {"id": "office-1", "messages": [
        {"role": "system", "content": "You are an office assistant with calendar and room booking tools."},
        {"role": "user", "content": "Please cancel my meeting room reservation for Friday."},
        {"role": "assistant", "content": "I'm sorry, I can't cancel room reservations."}]}
    hr = conversation("hr-1", [("think", {"thought": "leave"}), ("transfer_to_human_agents", {"summary": "x"})])
    hr["messages"][0]["content"] = "HR assistant. Tools: get_employee(id), submit_leave_request(id, days)."
    rows = [air, same_prompt, no_prompt, office, hr]
    res = ingest(write_lines(tmp_path / "a.jsonl", rows))
    assert [(r.id, r.metadata["domain"], r.metadata["domain_source"]) for r in res.records] == [
        ("air-1", "airline", "tools"), ("chat-1", "airline", "file"), ("chat-2", "airline", "file")]
    assert [(q.record_id, q.reason_code) for q in res.quarantine] == [("office-1", INGEST_NO_DOMAIN),
                                                                       ("hr-1", INGEST_NO_DOMAIN)]
    assert "system prompt" in res.quarantine[0].error and "docs/domains.md" in res.quarantine[0].error
    routes = route_all([LogRecord.model_validate(r) for r in rows])
    assert [rt.domain for rt in routes] == ["airline", "airline", "airline", None, None]

def test_tools_of_two_domains_or_wrong_shapes_are_set_aside(tmp_path):
    res = ingest(write_lines(tmp_path / "x.jsonl", [
        conversation("two-1", [AIRLINE_CANCEL[2], RETAIL_CANCEL[3]]),
        conversation("shape-1", [("cancel_reservation", {"order_id": "#W1234567"})]),
        conversation("named-1", RETAIL_CANCEL, metadata={"domain": "airline"}),
        conversation("named-2", AIRLINE_CANCEL, metadata={"domain": "nope"}),
    ]))
    assert res.records == []
    q = {x.record_id: x.error for x in res.quarantine}
    assert "no single domain has all" in q["two-1"] and "cancel_reservation (airline)" in q["two-1"] \
        and "cancel_pending_order (retail)" in q["two-1"]
    assert "cancel_reservation (no domain with these arguments)" in q["shape-1"]
    assert "'airline' does not have tool(s) find_user_id_by_email" in q["named-1"] and "owned by retail" in q["named-1"]
    assert "'nope' is not registered" in q["named-2"]
    with pytest.raises(ValueError, match="known domains"):
        ingest(tmp_path / "x.jsonl", domain="nope")


def test_owns_default_for_module_and_plugin_domains():
    lib = get_domain("library")
    loan = conversation("l", [("find_member", {"email": "a@b.org"}), ("renew_loan", {"loan_id": "L1"})])
    assert lib.owns(loan) and not get_domain("airline").owns(loan) and not get_domain("retail").owns(loan)
    assert not lib.owns(conversation("t", [("think", {"thought": "x"})]))  # shared tools are no evidence
    assert record_tool_uses(loan) == {"find_member": [frozenset({"email"})], "renew_loan": [frozenset({"loan_id"})]}
    assert evidence_tools(conversation("o", OFFICE_CALLS)) == ["search_events", "send_email"]

    class Office(Domain):  # a plug-in written without owns(): the contract's default applies
        name = "office"
        tools = {n: Tool(fn=lambda state, **a: "", schema={"type": "function", "function": {
            "name": n, "parameters": {"type": "object", "properties": {k: {} for k in args}}}})
            for n, args in [("search_events", ("query", "date")), ("send_email", ("to", "subject", "body")),
                            ("modify_event", ("event_id", "start"))]}

    rec = conversation("o", OFFICE_CALLS)
    assert default_owns(Office(), rec) and foreign_tools(Office(), rec) == []
    routes = route_all([rec], domains={"office": Office(), "airline": get_domain("airline")})
    assert (routes[0].domain, routes[0].source) == ("office", "tools")


def test_office_case_with_an_office_domain_registered(office):
    class Office(Domain):
        name = "office"
        tools = {n: Tool(fn=lambda state, **a: "", schema={"type": "function", "function": {"name": n}})
                 for names in _office_tools(office).values() for n in names}

    recs = [json.loads(line) for line in office.read_text().splitlines()]
    routes = route_all(recs, domains={"office": Office(), "airline": get_domain("airline")})
    assert [r.domain for r in routes] == ["office"] * 3


def test_transcripts_name_only_tools_of_the_named_domain():
    text = "user: hi, I'm Ava Lee\nassistant: None\ntool: Error: user not found\nassistant: Sorry."
    airline = transcript_to_canonical(text, "t1", "airline")
    names = [tc["function"]["name"] for m in airline["messages"] for tc in m.get("tool_calls") or []]
    assert names == ["unknown"] and airline["metadata"]["unknown_tool_calls"] == 1  # not retail's find_user_id_*
    retail = transcript_to_canonical(text, "t1", "retail")
    assert [tc["function"]["name"] for m in retail["messages"] for tc in m.get("tool_calls") or []] == [
        "find_user_id_by_name_zip"]
    assert "domain" not in transcript_to_canonical(text, "t1", None, guess=False)["metadata"]


def test_reason_codes_are_registered():
    assert REASONS[INGEST_NO_DOMAIN][0] == "ingest" and REASONS[INGEST_DOMAIN_AMBIGUOUS][0] == "ingest"
    doc = (ROOT / "docs" / "reason-codes.md").read_text()
    assert f"`{INGEST_NO_DOMAIN}`" in doc and f"`{INGEST_DOMAIN_AMBIGUOUS}`" in doc


def test_the_ingest_signature_changes_with_the_installed_domains(monkeypatch, tmp_path):
    """Installing a domain package reroutes the logs (a fresh-clone check: after `trajpipe domain
    init` + `pip install`, ingest reused its fully quarantined result)."""
    import pipeline.domains as domains
    from pipeline.config import RunConfig
    from pipeline.stages import _ingest_extra

    logs = tmp_path / "logs.jsonl"
    logs.write_text('{"id": "a", "messages": [{"role": "user", "content": "hi"}]}\n')
    cfg = RunConfig.model_validate({"ingest": {"input_path": str(logs)}})
    before = _ingest_extra(cfg)
    monkeypatch.setattr(domains, "_registry", lambda: {**domains.BUNDLED, "custsvc": "custsvc:DOMAIN"})
    after = _ingest_extra(cfg)
    assert before["input_sha256"] == after["input_sha256"] and before["domains"] != after["domains"]
    assert "custsvc" in after["domains"] and "custsvc" not in before["domains"]
