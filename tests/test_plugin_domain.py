"""The plug-in contract every registered domain must meet (airline, retail, library, yours),
the small library domain written from docs/domains.md, and that document's coverage of the
Domain protocol."""
from __future__ import annotations

import re
from pathlib import Path

import jsonschema
import pytest

from pipeline.domains import get_domain, known_domains
from pipeline.domains.base import Domain, GeneratedTask
from pipeline.records import Blueprint, stable_hash
from pipeline.sandbox import Sandbox, validate_arguments
from pipeline.skills import SKILLS
from pipeline.synthesize import build_package
from shared_paths import CASES_DIR

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "domains.md"
SEEDS = (0, 1)


def _executed(sb: Sandbox) -> list[dict]:
    return [{"name": r.name, "arguments": r.arguments, "error": r.error_code} for r in sb.calls]


def test_registry_lists_the_three_domains():
    assert {"airline", "retail", "library"} <= set(known_domains())
    with pytest.raises(ValueError, match="known domains"):
        get_domain("no_such_domain")


@pytest.mark.parametrize("name", known_domains())
def test_domain_contract(name):
    d = get_domain(name)
    assert isinstance(d, Domain)
    assert d.name == name and d.policy.strip() and d.task_kinds
    assert set(d.tools) == d.write_tools | d.read_tools and not d.write_tools & d.read_tools
    for tool_name, tool in d.tools.items():
        assert tool.name == tool_name and tool.writes == (tool_name in d.write_tools)
        jsonschema.Draft202012Validator.check_schema(tool.schema["function"]["parameters"])
    assert [s["function"]["name"] for s in d.tool_schemas()] == list(d.tools)
    rule_ids = {r.rule_id for r in d.rules}
    assert len(rule_ids) == len(d.rules) and all(f"[{r}]" in d.policy for r in rule_ids)
    for kind in d.task_kinds:
        assert set(d.skills_for_kind(kind)) <= set(SKILLS) and d.skills_for_kind(kind)
        assert isinstance(d.initial_state_requirements(kind), dict) and d.success_condition(kind)
        assert set(d.deciding_rules(kind)) <= rule_ids
        for seed in SEEDS:
            t = d.generate_task(kind, seed)
            assert isinstance(t, GeneratedTask) and t == d.generate_task(kind, seed)  # deterministic
            d.validate_state(t.initial_state)
            assert t.instruction and t.reference_solution and set(t.skills) <= set(SKILLS)
            assert t.expected_outcome in ("action", "refusal", "transfer")
            for call in t.reference_solution:
                assert validate_arguments(d.tools[call["name"]].schema, call["arguments"]) is None
            sb = Sandbox(d, t.initial_state)
            assert all(r.ok for r in sb.run(t.reference_solution)), (name, kind, seed)
            assert (sb.state_hash() != stable_hash(t.initial_state)) == (t.expected_outcome == "action")
            assert d.rule_violations(t.initial_state, _executed(sb), sb.state) in (None, []), (name, kind, seed)
        assert d.generate_task(kind, 0).initial_state != d.generate_task(kind, 1).initial_state
    with pytest.raises(ValueError):
        d.generate_task("no_such_kind", 0)


@pytest.mark.parametrize("name", known_domains())
def test_domain_variants_and_synthesis(name):
    d = get_domain(name)
    if not any(d.variants_for_kind(k) for k in d.task_kinds):
        pytest.skip(f"{name} has no rule-decided variants")
    kind = next(k for k in d.task_kinds if d.variants_for_kind(k))
    variant = d.variants_for_kind(kind)[0]
    t = d.generate_task(kind, 3, variant=variant)
    assert t.variant == variant and t.expected_outcome == d.variant_outcome(kind, variant) != "action"
    bp = Blueprint(blueprint_id=f"bp-{name}", domain=name, intent=kind, action_signature=[], required_tools=[],
                   read_tools=[], initial_state_requirements={}, business_constraints=[], success_condition="",
                   failure_modes=[], source_log_ids=[], n_logs=0, n_success=0, task_kind=kind)
    pkg = build_package(bp, d, 0, seed=5, variant=variant)
    assert pkg.domain == name and pkg.expected_outcome == t.expected_outcome and pkg.variant == variant
    assert pkg.hidden.expected_state_hash == stable_hash(pkg.hidden.initial_state)


# ---- the library domain (written only from docs/domains.md) ----------------------------------

def test_library_rules_decide_renewals():
    d = get_domain("library")
    assert set(d.tools) == {"find_member", "get_loan", "renew_loan", "return_book"}
    for seed in range(4):
        for kind, rule in (("refuse_renew_limit", "library.renew.max_two"),
                           ("refuse_renew_overdue", "library.renew.not_overdue")):
            t = d.generate_task(kind, seed)
            lid = t.notes["loan_id"]
            bad = t.reference_solution + [{"name": "renew_loan", "arguments": {"loan_id": lid}}]
            sb = Sandbox(d, t.initial_state)
            assert all(r.ok for r in sb.run(bad))  # the tool lets it through ...
            found = d.rule_violations(t.initial_state, _executed(sb), sb.state)
            assert [v["rule_id"] for v in found] == [rule] and found[0]["step"] == len(bad) - 1  # ... the rule not
            assert sb.state_hash() != stable_hash(t.initial_state)
        # a good renewal, then a third one: the third breaks the limit once the count reaches 2
        t = d.generate_task("renew_loan", seed)
        lid = t.notes["loan_id"]
        extra = [{"name": "renew_loan", "arguments": {"loan_id": lid}}] * (2 - t.notes["renewals_before"])
        sb = Sandbox(d, t.initial_state)
        sb.run(t.reference_solution + extra)
        found = d.rule_violations(t.initial_state, _executed(sb), sb.state)
        assert [v["rule_id"] for v in found] == ["library.renew.max_two"]
        assert sb.state["loans"][lid]["renewals"] == 3


def test_library_tools_check_integrity():
    d = get_domain("library")
    t = d.generate_task("return_loan", 2)
    sb = Sandbox(d, t.initial_state)
    sb.run(t.reference_solution)
    lid = t.notes["loan_id"]
    assert sb.state["loans"][lid]["status"] == "returned"
    assert sb.call("renew_loan", {"loan_id": lid}).content == "Error: loan already returned"
    assert sb.call("get_loan", {"loan_id": "L0"}).content == "Error: loan not found"
    assert sb.call("find_member", {"email": "nobody@example.org"}).error_code == "TOOL_ERROR"
    assert d.kind_for_intent("Could I renew my book?") == "renew_loan"
    assert d.kind_for_write_calls(["return_book"]) == "return_loan"


# ---- the document covers the protocol ---------------------------------------------------------

def test_domains_doc_covers_the_protocol():
    text = DOC.read_text(encoding="utf-8")
    required = [n for n in Domain.__annotations__] + [
        n for n, v in vars(Domain).items() if callable(v) and not n.startswith("_")]
    optional = ["identity_tools", "deciding_rules", "rule_violations", "kind_for_intent", "variants_for_kind",
                "variant_outcome", "confirmation_required"]
    for member in required + optional:
        assert re.search(rf"`{member}\b", text), f"docs/domains.md does not document {member}"
    for section in ("Package layout", "State schema", "Tools", "Policy text", "Faker", "denylist", "GeneratedTask",
                    "Rule checks", "Register", "Test it", "skeleton"):
        assert section in text, section
    # the skeleton in the doc is the shape the library domain has
    lib = get_domain("library")
    members = [m for m in re.findall(r"    def (\w+)\(self", text) if not m.startswith("_")]
    assert len(members) >= 10
    for member in members:
        assert hasattr(lib, member), member


# ---- a company's domain is a package it installs (entry points) -------------------------------

OFFICE_PACKAGE = '''
from pipeline.domains.base import Domain, Tool


def _tool(name, props, writes=False):
    schema = {"type": "function", "function": {"name": name, "description": name, "parameters": {
        "type": "object", "properties": {p: {"type": "string"} for p in props}, "required": list(props)}}}
    return Tool(fn=lambda state, **a: "{}", schema=schema, writes=writes)


class OfficeDomain(Domain):
    """Calendar, reminders and e-mail: a routing-only plug-in (no task generators)."""

    name = "office"
    policy = "You are an office assistant."
    tools = {t.name: t for t in [_tool("search_events", ["query", "date"]), _tool("list_reminders", ["date"]),
                                 _tool("modify_event", ["event_id", "start"], writes=True),
                                 _tool("delete_reminder", ["reminder_id"], writes=True),
                                 _tool("add_alarm", ["time", "date"], writes=True),
                                 _tool("send_email", ["to", "subject", "body"], writes=True)]}
    write_tools = {n for n, t in tools.items() if t.writes}
    read_tools = {n for n, t in tools.items() if not t.writes}


class NotADomain:  # duck-typed, without the contract's members
    name = "broken"
    tools = {}


DOMAIN = OfficeDomain()
BROKEN = NotADomain()
MISNAMED = OfficeDomain()
'''


def _install(tmp_path: Path, dist: str, entries: dict[str, str], monkeypatch) -> None:
    """Install a package the way pip leaves it: the module and a ``*.dist-info`` with
    ``entry_points.txt``, on ``sys.path``; the registry is reloaded."""
    import sys

    from pipeline.domains import reload_registry

    root = tmp_path / dist
    (root / "acme_office").mkdir(parents=True)
    (root / "acme_office" / "__init__.py").write_text(OFFICE_PACKAGE, encoding="utf-8")
    info = root / f"{dist}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[trajpipe.domains]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()), encoding="utf-8")
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.delitem(sys.modules, "acme_office", raising=False)
    reload_registry()


@pytest.fixture
def registry_restored():
    from pipeline.domains import reload_registry

    yield
    reload_registry()


def test_bundled_domains_are_declared_as_entry_points():
    import tomllib

    from pipeline.domains import BUNDLED, ENTRY_POINT_GROUP

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["entry-points"][ENTRY_POINT_GROUP] == BUNDLED


def test_an_installed_domain_package_is_registered_and_routes_its_logs(tmp_path, monkeypatch, registry_restored):
    from pipeline.ingest import ingest
    from pipeline.ingest.routing import registered_domains

    _install(tmp_path, "acme_office", {"office": "acme_office:DOMAIN"}, monkeypatch)
    assert "office" in known_domains() and {"airline", "retail", "library"} <= set(known_domains())
    office = get_domain("office")
    assert isinstance(office, Domain) and office.name == "office" and get_domain("office") is office
    # the contract's defaults: no task kinds, the shared hand-off, no identity step, no rule checks
    assert office.task_kinds == () and office.terminate_tools == {"transfer_to_human_agents"}
    assert office.identity_tools == frozenset() and office.rule_violations({}, [], None) is None
    assert office.variants_for_kind("x") == [] and office.kind_for_intent("hi") is None
    with pytest.raises(ValueError, match="no task kind"):
        office.generate_task("book_room", 0)
    assert "office" in registered_domains()
    case = CASES_DIR / "routing" / "office-assistant-logs.jsonl"
    if case.exists():  # the logs that no bundled domain owns now go to the installed one
        res = ingest(case)
        assert res.quarantine == [] and {r.metadata["domain"] for r in res.records} == {"office"}
        assert {r.metadata["domain_source"] for r in res.records} == {"tools"}


def test_a_registered_object_that_is_no_domain_is_refused(tmp_path, monkeypatch, registry_restored):
    _install(tmp_path, "acme_broken", {"broken": "acme_office:BROKEN", "renamed": "acme_office:MISNAMED",
                                       "airline": "acme_office:DOMAIN"}, monkeypatch)
    with pytest.warns(RuntimeWarning, match="airline = 'acme_office:DOMAIN' ignored"):
        assert {"broken", "renamed", "airline"} <= set(known_domains())
    with pytest.raises(TypeError, match="not a pipeline.domains.base.Domain"):
        get_domain("broken")
    with pytest.raises(ValueError, match="is named 'office'"):
        get_domain("renamed")
    # a plug-in cannot replace a bundled domain by reusing its name
    assert get_domain("airline").name == "airline" and type(get_domain("airline")).__name__ == "AirlineDomain"


def test_the_ingest_signature_changes_when_an_installed_domain_gains_a_tool(monkeypatch):
    """An editable domain package edited in place keeps its version; its tools' digest still
    changes the fingerprint, so ingest reroutes instead of reusing (issue 11, fifteenth round,
    a fresh-clone check: a tool added to a scaffold by hand, ingest printed "reused")."""
    from types import SimpleNamespace

    import pipeline.domains as domains

    def fake_domain(tool_names):
        return SimpleNamespace(tools={n: SimpleNamespace(schema={"function": {"parameters": {"properties": {"x": {}}}}})
                                      for n in tool_names})

    monkeypatch.setattr(domains, "_registry", lambda: {"shop_y": "shop_y:DOMAIN"})
    monkeypatch.setattr(domains, "get_domain", lambda name: fake_domain(["get_customer"]))
    before = domains.registry_fingerprint()
    monkeypatch.setattr(domains, "get_domain", lambda name: fake_domain(["get_customer", "update_address"]))
    after = domains.registry_fingerprint()
    assert before != after and before["shop_y"].startswith("shop_y:DOMAIN@")
    monkeypatch.setattr(domains, "get_domain", lambda name: fake_domain(["update_address", "get_customer"]))
    assert domains.registry_fingerprint() == after  # order does not matter
