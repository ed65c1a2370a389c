"""Tests of the retail domain: tools vs schemas, generators, rules across variations, the
transcript reader and intent mapping on the real tau-bench retail transcripts."""
from __future__ import annotations

import copy
import inspect
import json
from collections import Counter
from pathlib import Path

import jsonschema
import pytest

from pipeline.domains import get_domain
from pipeline.domains.base import Domain
from pipeline.domains.retail import DOMAIN
from pipeline.domains.retail import generator as G
from pipeline.domains.retail import rules as R
from pipeline.domains.retail.tools import find_variant
from pipeline.ingest import detect_format, ingest
from pipeline.ingest.transcripts import transcript_to_canonical
from pipeline.records import Blueprint, stable_hash
from pipeline.sandbox import Sandbox, validate_arguments
from pipeline.skills import SKILLS
from pipeline.synthesize import build_package
from shared_paths import TAU_DIR

SEEDS = range(5)
RETAIL_LOGS = TAU_DIR / "logs" / "retail-transcripts.jsonl"
EXPECTED_TOOLS = {
    "find_user_id_by_email", "find_user_id_by_name_zip", "get_user_details", "get_order_details",
    "get_product_details", "list_all_product_types", "cancel_pending_order", "modify_pending_order_items",
    "modify_pending_order_address", "modify_pending_order_payment", "modify_user_address",
    "return_delivered_order_items", "exchange_delivered_order_items", "calculate", "transfer_to_human_agents", "think",
}
REQUIRED_KINDS = {"cancel_pending_order", "return_delivered_items", "exchange_delivered_items", "modify_pending_items",
                  "modify_pending_address", "modify_pending_payment", "modify_user_address"}


def run(state, calls):
    """Run ``calls`` in a fresh sandbox over ``state``; return (sandbox, executed-calls list)."""
    sb = Sandbox(DOMAIN, state)
    res = sb.run(calls)
    return sb, [{"name": r.name, "arguments": r.arguments, "error": r.error_code} for r in res]


# ---- tools and schemas -----------------------------------------------------------------------

def test_domain_is_registered_and_conforms():
    assert get_domain("retail") is DOMAIN
    assert isinstance(DOMAIN, Domain)
    assert set(DOMAIN.tools) == EXPECTED_TOOLS
    assert DOMAIN.write_tools == {n for n, t in DOMAIN.tools.items() if t.writes}
    assert DOMAIN.write_tools | DOMAIN.read_tools == EXPECTED_TOOLS and not DOMAIN.write_tools & DOMAIN.read_tools
    assert REQUIRED_KINDS <= set(DOMAIN.task_kinds)
    outcomes = Counter(G.variant_outcome(k, None) for k in DOMAIN.task_kinds)
    assert outcomes["refusal"] >= 2 and outcomes["transfer"] >= 1


@pytest.mark.parametrize("name", sorted(EXPECTED_TOOLS))
def test_tool_schema_matches_function(name):
    tool = DOMAIN.tools[name]
    fn = tool.schema["function"]
    assert fn["name"] == name and fn["description"]
    params = fn["parameters"]
    jsonschema.Draft202012Validator.check_schema(params)
    assert params["additionalProperties"] is False
    sig = list(inspect.signature(tool.fn).parameters.values())[1:]  # first parameter: the database
    assert [p.name for p in sig] == list(params["properties"])
    assert set(params["required"]) == {p.name for p in sig if p.default is inspect.Parameter.empty}
    # the sandbox rejects an argument the schema does not allow, before the tool runs
    state = G.generate_state(1)
    res = Sandbox(DOMAIN, state).call(name, {"no_such_argument": "x"})
    assert res.error_code == "INVALID_ARGUMENTS"


def test_policy_rule_ids_are_consistent():
    ids = {r.rule_id for r in DOMAIN.rules}
    assert len(ids) == len(DOMAIN.rules) >= 20
    for rule_ids in R.TOOL_RULES.values():
        assert set(rule_ids) <= ids
    for kind in DOMAIN.task_kinds:
        assert set(DOMAIN.deciding_rules(kind)) <= ids
        assert all(v.split(":", 1)[1] in ids for v in DOMAIN.variants_for_kind(kind))
    assert [r.rule_id for r in DOMAIN.rules_for_tools(["get_order_details"])] == []
    cancel_rules = {r.rule_id for r in DOMAIN.rules_for_tools(["cancel_pending_order"])}
    assert {"retail.cancel.pending_only", "retail.general.confirm"} <= cancel_rules
    for r in DOMAIN.rules:  # every rule's text is quoted from the policy given to agents
        assert f"[{r.rule_id}] {r.text}" in DOMAIN.policy
    with pytest.raises(ValueError, match="duplicate"):
        R.parse_rules("- [retail.a.b] x\n- [retail.a.b] y")


def test_tools_integrity_and_money():
    t = G.generate_task("cancel_pending_order", 3)
    state = t.initial_state
    oid = t.reference_solution[-1]["arguments"]["order_id"]
    order = state["orders"][oid]
    uid = order["user_id"]
    # a gift-card-paid order: cancelling refunds the balance at once
    pm_id = order["payment_history"][0]["payment_method_id"]
    state["users"][uid]["payment_methods"][pm_id] = {"source": "gift_card", "balance": 10.0, "id": pm_id}
    sb, calls = run(state, [t.reference_solution[-1]])
    assert calls[0]["error"] is None
    assert sb.state["users"][uid]["payment_methods"][pm_id]["balance"] == round(10.0 + order["payment_history"][0]["amount"], 2)
    assert sb.state["orders"][oid]["status"] == "cancelled"
    # integrity errors leave the state unchanged
    sb = Sandbox(DOMAIN, state)
    h = sb.state_hash()
    assert sb.call("get_order_details", {"order_id": "#W0000000"}).content == "Error: order not found"
    r = sb.call("return_delivered_order_items", {"order_id": oid, "item_ids": ["0"], "payment_method_id": pm_id})
    assert r.error_code == "TOOL_ERROR" and "not found in order" in r.content
    r = sb.call("modify_pending_order_payment", {"order_id": oid, "payment_method_id": "paypal_0"})
    assert r.content == "Error: payment method not found"
    assert sb.call("calculate", {"expression": "(10 + 5) * 2 / 4"}).content == "7.5"
    assert sb.call("calculate", {"expression": "import os"}).error_code == "TOOL_ERROR"
    assert sb.state_hash() == h
    assert json.loads(sb.call("list_all_product_types", {}).content) == {
        p["name"]: pid for pid, p in state["products"].items()}


def test_exchange_and_modify_items_price_difference():
    for kind, status in (("exchange_delivered_items", "exchange requested"), ("modify_pending_items", "pending (item modified)")):
        t = G.generate_task(kind, 11)
        sb, calls = run(t.initial_state, t.reference_solution)
        write = t.reference_solution[-1]["arguments"]
        order = sb.state["orders"][write["order_id"]]
        assert order["status"] == status
        diff = round(sum(find_variant(t.initial_state, n)[1]["price"] for n in write["new_item_ids"])
                     - sum(next(i["price"] for i in t.initial_state["orders"][write["order_id"]]["items"]
                                if i["item_id"] == o) for o in write["item_ids"]), 2)
        assert t.notes["price_difference"] == diff
        if kind == "exchange_delivered_items":
            assert order["exchange_price_difference"] == diff
            assert order["exchange_new_items"] == sorted(write["new_item_ids"])
        else:
            new_ids = [i["item_id"] for i in order["items"]]
            assert all(n in new_ids for n in write["new_item_ids"])
            assert not any(o in new_ids for o in write["item_ids"] if o not in write["new_item_ids"])
            if diff:
                assert order["payment_history"][-1] == {"transaction_type": "payment" if diff > 0 else "refund",
                                                        "amount": abs(diff), "payment_method_id": write["payment_method_id"]}


# ---- generated tasks -------------------------------------------------------------------------

@pytest.mark.parametrize("kind", G.TASK_KINDS)
def test_reference_passes_with_no_rule_violations(kind):
    for seed in SEEDS:
        t = DOMAIN.generate_task(kind, seed)
        DOMAIN.validate_state(t.initial_state)
        for call in t.reference_solution:
            assert validate_arguments(DOMAIN.tools[call["name"]].schema, call["arguments"]) is None
        sb, calls = run(t.initial_state, t.reference_solution)
        assert all(c["error"] is None for c in calls), calls
        assert DOMAIN.rule_violations(t.initial_state, calls, sb.state) == []
        changed = sb.state_hash() != stable_hash(t.initial_state)
        assert changed == (t.expected_outcome == "action"), (kind, seed)
        assert t.reference_solution[0]["name"] in DOMAIN.identity_tools
        if t.expected_outcome == "refusal":
            assert not any(c["name"] in DOMAIN.write_tools for c in t.reference_solution)
        if t.expected_outcome == "transfer":
            assert t.reference_solution[-1]["name"] == "transfer_to_human_agents"
        assert set(t.skills) <= set(SKILLS) and set(DOMAIN.skills_for_kind(kind)) <= set(t.skills)
        assert t.user_messages and any("yes" in m.lower() for m in t.user_messages)
        assert set(t.notes["rule_ids"]) <= {r.rule_id for r in DOMAIN.rules}
        assert not G.leaked_values(t.instruction, t.notes.get("must_discover", []))
        # what the customer says: how they identify, never ids only the tools reveal
        user = t.initial_state["users"][t.reference_solution[1]["arguments"]["user_id"]]
        assert user["email"] in t.instruction or user["address"]["zip"] in t.instruction


@pytest.mark.parametrize("kind", G.TASK_KINDS)
def test_same_seed_same_task(kind):
    a, b = DOMAIN.generate_task(kind, 7), DOMAIN.generate_task(kind, 7)
    assert a == b
    assert DOMAIN.generate_task(kind, 8).initial_state != a.initial_state


def test_values_vary_while_the_rule_stays():
    n_items, sources, lookups, openers, refunds = set(), set(), set(), set(), set()
    for seed in range(30):
        t = DOMAIN.generate_task("return_delivered_items", seed)
        n_items.add(t.notes["n_items"])
        refunds.add(t.notes["refund_source"])
        lookups.add(t.notes["lookup"])
        openers.add(t.instruction.split(".")[1][:25])
        p = DOMAIN.generate_task("modify_pending_payment", seed)
        sources.add(p.notes["to_source"])
        assert p.variant is None and p.notes["decided_by"]
    assert n_items == {1, 2, 3, 4, 5}
    assert sources == {"gift_card", "credit_card", "paypal"}
    assert {"gift_card"} < refunds and lookups == {"email", "name_zip"}
    assert len(openers) >= 3  # paraphrase variety
    statuses = {DOMAIN.generate_task("refuse_cancel_not_pending", s).notes["status"] for s in range(20)}
    assert len(statuses) >= 2 and "pending" not in statuses


def test_denylist_redraws_personal_values():
    t = DOMAIN.generate_task("cancel_pending_order", 4)
    seen = {f"{u['name']['first_name']} {u['name']['last_name']}" for u in t.initial_state["users"].values()}
    seen |= {u["email"] for u in t.initial_state["users"].values()}
    t2 = DOMAIN.generate_task("cancel_pending_order", 4, denylist=lambda v: v in seen)
    names = {f"{u['name']['first_name']} {u['name']['last_name']}" for u in t2.initial_state["users"].values()}
    assert not names & seen and not {u["email"] for u in t2.initial_state["users"].values()} & seen
    with pytest.raises(RuntimeError, match="denylist"):
        DOMAIN.generate_task("cancel_pending_order", 4, denylist=lambda v: True)
    with pytest.raises(ValueError, match="unknown retail task kind"):
        DOMAIN.generate_task("book_flight", 1)
    with pytest.raises(ValueError, match="no variant"):
        DOMAIN.generate_task("cancel_pending_order", 1, variant="rule:retail.nope.nope")


# ---- a solution that ignores the rule fails ---------------------------------------------------

def _cheapest(product):
    return min((v for v in product["variants"].values() if v["available"]), key=lambda v: v["price"])["item_id"]


def _other_product_item(state, order, item_id):
    """The cheapest available item of another product (so no gift card falls short)."""
    pid = next(i["product_id"] for i in order["items"] if i["item_id"] == item_id)
    others = [p for pid_, p in state["products"].items() if pid_ != pid]
    best = min(others, key=lambda p: state["products"][p["product_id"]]["variants"][_cheapest(p)]["price"])
    return _cheapest(best)


def _with_status(t, status):
    """The task's initial state with the target order in ``status`` (where the rule forbids the
    reference's write); the correct handling then changes nothing."""
    state = copy.deepcopy(t.initial_state)
    state["orders"][t.reference_solution[-1]["arguments"]["order_id"]]["status"] = status
    return state, stable_hash(state), t.reference_solution


def _breaking(kind, t, rng_pick):
    """(initial_state, expected final hash, rule-ignoring calls, rule id that must be reported)."""
    ref = t.reference_solution
    write = ref[-1]["arguments"] if ref[-1]["name"] in DOMAIN.write_tools else None
    if kind == "cancel_pending_order":
        return (*_with_status(t, rng_pick(["processed", "delivered", "pending (item modified)"])), "retail.cancel.pending_only")
    if kind == "return_delivered_items":
        return (*_with_status(t, rng_pick(["pending", "processed"])), "retail.return.delivered_only")
    if kind == "exchange_delivered_items":  # same state, another product type
        bad = copy.deepcopy(ref)
        order = t.initial_state["orders"][write["order_id"]]
        bad[-1]["arguments"]["new_item_ids"][0] = _other_product_item(t.initial_state, order, write["item_ids"][0])
        sb, _ = run(t.initial_state, ref)
        return t.initial_state, sb.state_hash(), bad, "retail.exchange.same_product"
    if kind == "modify_pending_items":
        # "pending (item modified)" -> retail.modify_items.once; others -> retail.modify.pending_only
        return (*_with_status(t, rng_pick(["processed", "delivered", "pending (item modified)"])), "retail.modify")
    if kind == "modify_pending_address":
        return (*_with_status(t, rng_pick(["processed", "delivered"])), "retail.modify.pending_only")
    if kind == "modify_pending_payment":  # pay with the method it was already paid with
        if t.notes["from_source"] == "gift_card":  # (a gift card may not cover a second charge)
            return (*_with_status(t, rng_pick(["processed", "delivered"])), "retail.modify.pending_only")
        bad = copy.deepcopy(ref)
        bad[-1]["arguments"]["payment_method_id"] = t.notes["from"]
        sb, _ = run(t.initial_state, ref)
        return t.initial_state, sb.state_hash(), bad, "retail.modify_payment.single_different"
    if kind == "modify_user_address":  # change another customer's address
        bad = copy.deepcopy(ref)
        other = sorted(u for u in t.initial_state["users"] if u != write["user_id"])[0]
        bad[-1]["arguments"]["user_id"] = other
        sb, _ = run(t.initial_state, ref)
        return t.initial_state, sb.state_hash(), bad, "retail.general.one_user"
    oid = t.notes["order_id"]
    order = t.initial_state["orders"][oid]
    pm = order["payment_history"][0]["payment_method_id"]
    if kind == "refuse_return_not_delivered":
        write_call = {"name": "return_delivered_order_items",
                      "arguments": {"order_id": oid, "item_ids": t.notes["requested_items"], "payment_method_id": pm}}
        rule = "retail.return.delivered_only"
    elif kind == "refuse_cancel_not_pending":
        write_call = {"name": "cancel_pending_order", "arguments": {"order_id": oid, "reason": t.notes["reason"]}}
        rule = "retail.cancel.pending_only"
    elif kind == "refuse_exchange_other_product":
        wanted = t.initial_state["products"][t.notes["wanted_product"]]
        pms = t.initial_state["users"][order["user_id"]]["payment_methods"]
        old_price = next(i["price"] for i in order["items"] if i["item_id"] == t.notes["item_id"])
        pm = None
        # the wanted product, else the cheapest other product when only a short gift card could pay
        for new in (_cheapest(wanted), _other_product_item(t.initial_state, order, t.notes["item_id"])):
            diff = find_variant(t.initial_state, new)[1]["price"] - old_price
            pm = next((p for p, m in sorted(pms.items()) if m["source"] != "gift_card" or m["balance"] >= diff), None)
            if pm:
                break
        assert pm, "no payment method can pay for a cross-product exchange"
        write_call = {"name": "exchange_delivered_order_items", "arguments": {
            "order_id": oid, "item_ids": [t.notes["item_id"]], "new_item_ids": [new], "payment_method_id": pm}}
        rule = "retail.exchange.same_product"
    elif kind == "transfer_shipped_order_address":
        addr = t.initial_state["users"][order["user_id"]]["address"]
        write_call = {"name": "modify_pending_order_address", "arguments": {"order_id": oid, **addr, "city": "Elsewhere"}}
        rule = "retail.modify.pending_only"
    else:  # pragma: no cover
        raise AssertionError(f"no rule-ignoring solution for {kind}")
    bad = [c for c in ref if c["name"] != "transfer_to_human_agents"] + [write_call]
    return t.initial_state, stable_hash(t.initial_state), bad, rule


@pytest.mark.parametrize("kind", G.TASK_KINDS)
def test_rule_ignoring_solution_fails(kind):
    import random

    rng = random.Random(kind)
    for seed in SEEDS:
        t = DOMAIN.generate_task(kind, seed)
        state, expected_hash, bad, rule = _breaking(kind, t, rng.choice)
        sb, calls = run(state, bad)
        assert all(c["error"] is None for c in calls), calls  # the tools let it through ...
        found = DOMAIN.rule_violations(state, calls, sb.state)
        assert any(v["rule_id"].startswith(rule) for v in found), (kind, seed, found)  # ... the rules do not
        assert all(set(v) == {"rule_id", "step", "detail"} and v["detail"] for v in found)
        assert found[0]["step"] == len(bad) - 1
        assert sb.state_hash() != expected_hash, (kind, seed)
        # and the correct handling of that same state breaks nothing
        good = [c for c in t.reference_solution if c["name"] not in DOMAIN.write_tools] if state is not t.initial_state \
            else t.reference_solution
        sb2, calls2 = run(state, good)
        assert DOMAIN.rule_violations(state, calls2, sb2.state) == []


def test_rule_violations_judge_state_before_each_call():
    t = DOMAIN.generate_task("modify_pending_items", 2)
    oid = t.reference_solution[-1]["arguments"]["order_id"]
    addr = dict(t.initial_state["orders"][oid]["address"], city="Elsewhere")
    # after the items were modified, the order can no longer be modified (address included)
    twice = t.reference_solution + [{"name": "modify_pending_order_address", "arguments": {"order_id": oid, **addr}}]
    sb, calls = run(t.initial_state, twice)
    assert calls[-1]["error"] is None
    found = DOMAIN.rule_violations(t.initial_state, calls, sb.state)
    assert [v["rule_id"] for v in found] == ["retail.modify_items.once"] and found[0]["step"] == len(twice) - 1
    # a failed call is not a violation
    calls[-1]["error"] = "TOOL_ERROR"
    assert DOMAIN.rule_violations(t.initial_state, calls) == []


# ---- synthesis over the retail domain ---------------------------------------------------------

def test_build_package_with_retail():
    bp = Blueprint(blueprint_id="bp-retail-cancel", domain="retail", intent="cancel an order",
                   action_signature=["cancel_pending_order(order_id:str,reason:str)"],
                   required_tools=["cancel_pending_order"], read_tools=["get_order_details"],
                   initial_state_requirements=DOMAIN.initial_state_requirements("cancel_pending_order"),
                   business_constraints=DOMAIN.rules_for_tools(["cancel_pending_order"]),
                   success_condition=DOMAIN.success_condition("cancel_pending_order"), failure_modes=[],
                   source_log_ids=["x"], n_logs=1, n_success=1, task_kind="cancel_pending_order")
    base = build_package(bp, DOMAIN, 0, seed=1)
    assert base.domain == "retail" and base.expected_outcome == "action" and base.variant is None
    assert base.hidden.expected_state_hash != stable_hash(base.hidden.initial_state)
    assert any("status" in c for c in base.hidden.verifier["expected_changes"])
    ref = build_package(bp, DOMAIN, 1, seed=1, variant="rule:retail.cancel.pending_only")
    assert ref.expected_outcome == "refusal" and "refusal" in ref.skills
    assert ref.hidden.expected_state_hash == stable_hash(ref.hidden.initial_state)
    assert build_package(bp, DOMAIN, 0, seed=1) == base


def _kind_blueprint(kind):
    return Blueprint(blueprint_id=f"bp-retail-{kind}", domain="retail", intent=kind, action_signature=[],
                     required_tools=[], read_tools=[], initial_state_requirements={}, business_constraints=[],
                     success_condition=DOMAIN.success_condition(kind), failure_modes=[], source_log_ids=["x"],
                     n_logs=1, n_success=1, task_kind=kind)


@pytest.mark.parametrize("kind,variant", [(k, v) for k in G.TASK_KINDS for v in [None, *G.variants_for_kind(k)]])
def test_every_kind_and_variant_passes_task_verification(kind, variant):
    """Every retail task (base and rule variants) passes the task verifier; a refusal / transfer
    declares the forbidden write, which (after the reference's reads) the tools accept, which
    changes the state and breaks the deciding rule - so the task is fail-to-pass."""
    from pipeline.verify import verify_task

    bp = _kind_blueprint(kind)
    for seed in SEEDS:
        t = build_package(bp, DOMAIN, seed, seed=seed, variant=variant)
        v = verify_task(t, DOMAIN)
        assert v.passed, (kind, variant, seed, v.reason_codes, v.details["checks"].get("fail_to_pass"))
        if t.expected_outcome == "action":
            continue
        assert v.details["checks"]["fail_to_pass"]["declared"] is True
        forbidden = t.hidden.generation_notes["forbidden_calls"]
        assert forbidden and all(c["name"] in DOMAIN.write_tools for c in forbidden)
        ref = [c.model_dump() for c in t.hidden.reference_solution]
        reads = [c for c in ref if c["name"] not in DOMAIN.write_tools and not c["name"].startswith("transfer")]
        for fc in forbidden:
            sb, calls = run(t.hidden.initial_state, reads + [fc])
            assert all(c["error"] is None for c in calls), calls  # the tools accept it ...
            assert sb.state_hash() != t.hidden.expected_state_hash  # ... and it changes the state
            deciding = t.variant.split(":", 1)[1]
            assert deciding in {x["rule_id"] for x in DOMAIN.rule_violations(t.hidden.initial_state, calls, sb.state)}
            hidden = [fc["arguments"].get("payment_method_id", ""), *fc["arguments"].get("new_item_ids", [])]
            assert not G.leaked_values(t.visible.instruction, hidden)  # looked-up values stay hidden


# ---- transcripts ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def retail_transcripts(shared_data):
    if not RETAIL_LOGS.exists():
        pytest.skip(f"retail transcripts not found at {RETAIL_LOGS}")
    return ingest(RETAIL_LOGS)


def test_transcript_reader_parses_all_retail_transcripts(retail_transcripts):
    res = retail_transcripts
    assert detect_format(RETAIL_LOGS) == "transcript"
    assert res.n_in == 69 and len(res.records) == 69 and not res.quarantine
    names = Counter()
    n_tool = 0
    for rec in res.records:
        assert rec.metadata["domain"] == "retail" and rec.metadata["source_format"] == "transcript"
        call_ids = {tc["id"] for m in rec.messages for tc in m.get("tool_calls") or []}
        for m in rec.messages:
            if m["role"] == "tool":
                n_tool += 1
                assert m["tool_call_id"] in call_ids
                names[m["name"]] += 1
    assert set(names) - {"unknown"} <= set(DOMAIN.tools)
    assert names["unknown"] / n_tool < 0.05, names
    for write in ("cancel_pending_order", "return_delivered_order_items", "exchange_delivered_order_items",
                  "modify_pending_order_items", "modify_pending_order_address", "modify_user_address"):
        assert names[write] >= 3, (write, names)


def test_inferred_write_arguments_validate(retail_transcripts):
    checked = 0
    for rec in retail_transcripts.records:
        for m in rec.messages:
            for tc in m.get("tool_calls") or []:
                name = tc["function"]["name"]
                if name in ("cancel_pending_order", "return_delivered_order_items", "exchange_delivered_order_items"):
                    args = json.loads(tc["function"]["arguments"])
                    assert validate_arguments(DOMAIN.tools[name].schema, args) is None, (name, args)
                    checked += 1
    assert checked >= 30


def test_kind_for_intent_maps_most_transcripts(retail_transcripts):
    kinds = Counter()
    for rec in retail_transcripts.records:
        first_turns = [m["content"] for m in rec.messages if m["role"] == "user"][:3]
        kinds[DOMAIN.kind_for_intent(first_turns)] += 1
    mapped = sum(n for k, n in kinds.items() if k is not None)
    assert mapped > 69 / 2, kinds
    assert set(kinds) - {None} <= set(DOMAIN.task_kinds)
    assert kinds["return_delivered_items"] >= 5 and kinds["exchange_delivered_items"] >= 5


def test_kind_for_intent_and_write_calls_examples():
    assert DOMAIN.kind_for_intent("I'd like to cancel my pending order") == "cancel_pending_order"
    assert DOMAIN.kind_for_intent(["Hi!", "I want to return a lamp"]) == "return_delivered_items"
    assert DOMAIN.kind_for_intent("Can I split the payment with another card?") == "modify_pending_payment"
    assert DOMAIN.kind_for_intent("Please update my default address") == "modify_user_address"
    assert DOMAIN.kind_for_intent("Can you guess a poem?") is None
    assert DOMAIN.kind_for_write_calls(["exchange_delivered_order_items"]) == "exchange_delivered_items"
    assert DOMAIN.kind_for_write_calls([]) is None


def test_transcript_reader_quarantines_bad_lines(tmp_path):
    good = {"messages_display": "user: hi, cancel #W1234567 please\nassistant: None\ntool: Error: user not found\n"
                                "assistant: Sorry, I could not find you."}
    p = tmp_path / "retail-logs.jsonl"
    p.write_text("\n".join([json.dumps(good), "{not json", json.dumps({"text": "no display"}),
                            json.dumps({"messages_display": ""}), ""]) + "\n", encoding="utf-8")
    res = ingest(p, fmt="transcript")
    assert res.n_in == 5 and len(res.records) == 1
    assert sorted(q.reason_code for q in res.quarantine) == ["INGEST_EMPTY", "INGEST_EMPTY", "INGEST_JSON", "INGEST_SCHEMA"]
    rec = res.records[0]
    assert rec.metadata["domain"] == "retail"
    assert rec.messages[1]["tool_calls"][0]["function"]["name"] == "find_user_id_by_name_zip"
    # write inference from a changed record
    order = {"order_id": "#W1", "status": "pending", "payment_history": [], "items": []}
    after = {**order, "status": "cancelled", "cancel_reason": "no longer needed"}
    conv = transcript_to_canonical("user: cancel it\nassistant: None\ntool: " + json.dumps(order)
                                   + "\nassistant: None\ntool: " + json.dumps(after), "t1")
    calls = [tc["function"] for m in conv["messages"] for tc in m.get("tool_calls") or []]
    assert [c["name"] for c in calls] == ["get_order_details", "cancel_pending_order"]
    assert json.loads(calls[1]["arguments"]) == {"order_id": "#W1", "reason": "no longer needed"}
