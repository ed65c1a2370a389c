"""Answer tasks and reward routing (issue 15): the answer matcher and its reward-hacking defenses,
the answer kinds of airline and retail, their mutation suite, the reward registry / router
(YAML routing tables, admission by reverse-validation), compute_score on answer tasks, the real
airline logs' answer-only blueprints, and the card's per-route counts."""
from __future__ import annotations

import json
import tomllib
from collections import Counter

import pytest

from pipeline.domains import get_domain
from pipeline.export.rows import rl_row
from pipeline.rewards import compute_score
from pipeline.verify import verify_task, verify_trajectory
from pipeline.verify import router as R
from pipeline.verify.answers import check_answer, check_facts, numbers, parse_dates, render
from pipeline.verify.mutations import Variant, build_variants, task_for, to_trajectory
from tests.conftest import ROOT

MONEY = [{"name": "gift_total", "type": "money", "value": 327.0, "allowed": [127.0, 200.0]}]
BAGS = [{"name": "free_bags", "type": "count", "value": 4, "unit": "bag", "allowed": [2]}]
STATUS = [{"name": "status", "type": "text", "value": "delivered", "alternatives": ["pending", "processed", "cancelled"]}]
DATE = [{"name": "flight_date", "type": "date", "value": "2024-05-20"}]
TRACK = [{"name": "tracking", "type": "id", "value": "#W1234567"}]


@pytest.mark.parametrize("facts,text,codes", [
    (MONEY, "Your gift cards total $327.", []),
    (MONEY, "That comes to 327 dollars.", []),
    (MONEY, "The sum is USD 327.00.", []),
    (MONEY, "Your 2 gift cards hold $127 and $200, so $327 in total.", []),
    (MONEY, "It is 300, 327 or 1000.", ["ANSWER_SPRAYING"]),
    (MONEY, "The total is $327. Actually, it is $350.", ["ANSWER_CONTRADICTION"]),
    (MONEY, "Is it $327?", ["ANSWER_QUESTION_ONLY"]),
    (MONEY, "The total is $372.", ["ANSWER_MISSING_FACT"]),
    (MONEY, "Your flight HAT327 leaves on May 27.", ["ANSWER_MISSING_FACT"]),  # an id and a date, not an amount
    (BAGS, "You have four free checked bags.", []),
    (BAGS, "Each of the 2 passengers gets 2 free bags: 4 checked bags in total.", []),
    (BAGS, "You can bring 4 or 5 bags.", ["ANSWER_SPRAYING"]),
    (BAGS, "You get 4 bags. Sorry, 3 bags.", ["ANSWER_CONTRADICTION"]),
    (STATUS, "Your order was delivered yesterday.", []),
    (STATUS, "It is either pending or delivered.", ["ANSWER_CONTRADICTION"]),
    (DATE, "Your flight is on May 20.", []),
    (DATE, "It departs 05/20/2024.", []),
    (DATE, "It is on 20 May 2024, or May 21.", ["ANSWER_CONTRADICTION"]),
    (TRACK, "The order is w1234567.", []),
    (TRACK, "The order is #W1234568.", ["ANSWER_MISSING_FACT"]),
])
def test_matcher_normalizes_and_refuses_the_cheap_answers(facts, text, codes):
    res = check_answer(facts, [text])
    assert res.codes == codes and res.passed == (not codes), (text, res)


def test_normalizers_read_money_counts_and_dates():
    got = [(m.kind, m.value) for m in numbers("I paid $1,786.50 for 2 tickets and 3 checked bags, flight HAT045.", "bag")]
    assert got == [("money", 1786.5), ("number", 2.0), ("count", 3.0)]
    assert [d for _, _, d in parse_dates("May 20, 2024 or 2024-05-21 or 5/22/2024", 2024)] == \
        ["2024-05-20", "2024-05-21", "2024-05-22"]


def test_malformed_facts_are_refused_with_a_clear_error():
    for bad, msg in [([], "non-empty"), ([{"name": "x", "type": "money"}], "name, type and value"),
                     ([{"name": "x", "type": "money", "value": "12"}], "must be a number"),
                     ([{"name": "x", "type": "colour", "value": 1}], "unknown type"),
                     ([{"name": "x", "type": "date", "value": "May 20"}], "YYYY-MM-DD")]:
        with pytest.raises(ValueError, match=msg):
            check_facts(bad)


def _traj_with_text(task, domain, text: str):
    ref = [c.model_dump() for c in task.hidden.reference_solution]
    return to_trajectory(task, domain, Variant("probe", True, ref, final_text=text))


def test_length_does_not_buy_reward():
    domain = get_domain("airline")
    task = task_for(domain, "answer_balances", 1)
    concise = verify_trajectory(_traj_with_text(task, domain, render(R.answer_facts(task))), task, domain)
    filler = " I am always happy to help with anything else regarding your travel plans." * 40
    padded = verify_trajectory(_traj_with_text(task, domain, render(R.answer_facts(task)) + filler), task, domain)
    assert concise.passed and padded.passed and padded.reward < concise.reward
    # padding with candidate numbers is spraying / contradiction, never more reward
    sprayed = render(R.answer_facts(task)) + " Or maybe $12, $999 or $4,321."
    v = verify_trajectory(_traj_with_text(task, domain, sprayed), task, domain)
    assert not v.passed and v.reward == 0.0 and {"ANSWER_SPRAYING", "ANSWER_CONTRADICTION"} & set(v.reason_codes)


@pytest.mark.parametrize("domain_name", ["airline", "retail"])
def test_answer_kinds_compute_hidden_facts_never_shown(domain_name):
    domain = get_domain(domain_name)
    assert len(domain.answer_kinds) >= 3 and not set(domain.answer_kinds) & set(domain.task_kinds)
    for kind in domain.answer_kinds:
        for seed in range(4):
            task = task_for(domain, kind, seed)
            assert task.expected_outcome == "answer" and R.answer_facts(task)
            tv = verify_task(task, domain)  # includes the leak check over the facts (must_discover)
            assert tv.passed, (kind, seed, tv.reason_codes)
            visible = task.visible.instruction + " ".join(task.visible.user_messages)
            for f in R.answer_facts(task):
                if f["type"] in ("money", "count") and float(f["value"]) >= 10:
                    assert f"{float(f['value']):g}" not in visible.replace(",", "")
    # facts really come from the state: the allowance rule recomputed here independently
    from pipeline.domains.airline.rules import FREE_BAGS
    if domain_name == "airline":
        t = task_for(domain, "answer_baggage_allowance", 2)
        res = t.hidden.initial_state["reservations"][t.hidden.generation_notes["reservation_id"]]
        user = t.hidden.initial_state["users"][res["user_id"]]
        assert R.answer_facts(t)[0]["value"] == FREE_BAGS[user["membership"]][res["cabin"]] * len(res["passengers"])


ANSWER_CODES = {"wrong_value": {"ANSWER_MISSING_FACT"}, "missing_fact": {"ANSWER_MISSING_FACT"},
                "answer_spraying": {"ANSWER_SPRAYING"}, "contradicting_fact": {"ANSWER_CONTRADICTION"},
                "question_only": {"ANSWER_QUESTION_ONLY"}}


@pytest.mark.parametrize("domain_name", ["airline", "retail"])
def test_mutation_suite_covers_answer_tasks(domain_name):
    domain = get_domain(domain_name)
    confusion, labels, wrong = Counter(), Counter(), []
    for kind in domain.answer_kinds:
        for seed in (0, 1, 2):
            task = task_for(domain, kind, seed)
            for i, v in enumerate(build_variants(task, domain)):
                verdict = verify_trajectory(to_trajectory(task, domain, v, i), task, domain)
                key = ("tp" if verdict.passed else "fn") if v.expect_pass else ("fp" if verdict.passed else "tn")
                confusion[key] += 1
                labels[v.label.split(":")[0]] += 1
                if verdict.passed != v.expect_pass:
                    wrong.append((task.task_id, v.label, verdict.reason_codes))
                elif v.label in ANSWER_CODES:
                    assert ANSWER_CODES[v.label] & set(verdict.reason_codes), (task.task_id, v.label, verdict.reason_codes)
                    assert verdict.reward_components["answer"] == 0.0 and verdict.reward == 0.0
    print(f"\n[{domain_name} answers] confusion {dict(confusion)} labels {dict(labels)}")
    assert not wrong and confusion["fp"] == confusion["fn"] == 0
    assert set(ANSWER_CODES) | {"answer_reformatted", "reference", "do_nothing"} <= set(labels)


def test_routing_tables_are_package_data_and_routes_are_most_specific():
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "*.yaml" in cfg["tool"]["setuptools"]["package-data"]["*"]
    assert any(d.startswith("pyyaml") for d in cfg["project"]["dependencies"])
    for name in ("airline", "retail"):
        assert (ROOT / "pipeline" / "domains" / name / "rewards.yaml").exists()
        table = R.load_table(name)
        assert table.domain == name
        assert R.route_for(table, "answer_balances", "answer").chain == ["state_hash", "answer_match", "path_checks"]
        assert R.route_for(table, "cancel_reservation", "refusal").chain == ["state_hash", "refusal_text", "path_checks"]
    assert R.load_table("library").domain == "*"  # no table of its own: the default
    table = R.parse_table("domain: x\nroutes:\n- {outcome: answer, chain: [state_hash]}\n"
                          "- {kind: k, outcome: answer, chain: [answer_match]}\n")
    assert R.route_for(table, "k", "answer").chain == ["answer_match"]
    assert R.route_for(table, "other", "answer").chain == ["state_hash"]
    with pytest.raises(ValueError, match="no route"):
        R.route_for(table, "k", "action")
    with pytest.raises(ValueError, match="unknown tools"):
        R.parse_table("domain: x\nroutes:\n- {outcome: answer, chain: [magic_judge]}\n")
    with pytest.raises(ValueError, match="unknown outcome"):
        R.parse_table("domain: x\nroutes:\n- {outcome: sing, chain: [state_hash]}\n")


def test_a_tool_enters_the_registry_only_after_its_reverse_validation():
    domain = get_domain("airline")
    cases = R.validation_cases(domain)
    registry = R.RewardRegistry()
    report = registry.admit(R.BUILTIN_TOOLS["answer_match"], domain, cases)
    assert report["passed"] and report["good"] > 0 and report["bad"] > 0
    lenient = R.RewardTool("lenient_answer", "gate", "passes everything", lambda ctx: R.ToolResult(True),
                           outcomes=("answer",), must_catch=R.BUILTIN_TOOLS["answer_match"].must_catch)
    with pytest.raises(R.RewardToolRejected, match="lenient_answer"):
        registry.admit(lenient, domain, cases)
    assert "lenient_answer" not in registry.names() and "answer_match" in registry.names()
    with pytest.raises(R.RewardToolRejected):
        registry.get("lenient_answer")
    # the domain router admitted every tool of its table
    assert set(R.router_for(domain).registry.names()) == {n for r in R.load_table("airline").routes for n in r.chain}


@pytest.mark.parametrize("domain_name,kind", [("airline", "answer_balances"), ("retail", "answer_return_refund")])
def test_compute_score_routes_answer_tasks(domain_name, kind):
    domain = get_domain(domain_name)
    task = task_for(domain, kind, 0)
    gt = rl_row(task, "train", lambda t: t.visible.policy)["reward_model"]["ground_truth"]
    calls = "".join(f"<tool_call>{json.dumps({'name': c.name, 'arguments': c.arguments})}</tool_call>\n"
                    for c in task.hidden.reference_solution)
    facts = R.answer_facts(task)
    right = compute_score(f"trajpipe/{domain_name}", calls + render(facts), gt)
    assert right["passed"] == 1.0 and right["answer"] == 1.0 and right["score"] > 0.8
    for text in ["Could you tell me your order number again?", render(facts, 0, {facts[0]["name"]: 1.0}),
                 render(facts) + " Or perhaps $1.00 or $2.00 or $3.00."]:
        bad = compute_score(f"trajpipe/{domain_name}", calls + text, gt)
        assert bad["passed"] == 0.0 and bad["answer"] == 0.0 and bad["score"] == 0.0, text


def test_real_airline_answer_only_blueprints_become_verified_answer_tasks(shared_data):
    from pipeline.blueprints import extract_blueprints
    from pipeline.ingest import ingest
    from pipeline.records import Blueprint
    from pipeline.synthesize import synthesize
    from tests.conftest import AIRLINE_LOGS

    domain = get_domain("airline")
    bps = extract_blueprints(ingest(AIRLINE_LOGS).records, domain)
    answer_bps = [b for b in bps if b.cluster["outcome"] == "answer"]
    assert answer_bps and all(b.task_kind in domain.answer_kinds for b in answer_bps)
    res = synthesize(answer_bps, get_domain, n_per_blueprint=3, seed=0)
    assert not res.rejects and len(res.tasks) == 3 * len(answer_bps)
    verdicts = [verify_task(t, domain) for t in res.tasks]
    assert all(v.passed for v in verdicts), [v.reason_codes for v in verdicts]
    # a request no answer kind computes stays rejected, with its own reason
    odd = answer_bps[0].model_copy(update={"task_kind": None, "blueprint_id": "airline-odd-answer"})
    assert isinstance(odd, Blueprint)
    rej = synthesize([odd], get_domain, n_per_blueprint=1).rejects
    assert [r.reason_code for r in rej] == ["SYNTH_ANSWER_NOT_COMPUTABLE"]


def test_card_counts_tasks_and_rows_per_route():
    from pipeline.card import reward_routes

    tasks = [{"task_id": "a", "domain": "airline", "task_kind": "answer_balances", "expected_outcome": "answer"},
             {"task_id": "b", "domain": "airline", "task_kind": "cancel_reservation", "expected_outcome": "action"},
             {"task_id": "c", "domain": "airline", "task_kind": "cancel_reservation", "expected_outcome": "action"}]
    rows = reward_routes(tasks, rl=[{"task_id": "a"}, {"task_id": "b"}], sft=[{"task_id": "b"}, {"task_id": "b"}])
    by = {r["route"]: r for r in rows}
    assert by["answer_balances/answer"]["tasks"] == 1 and by["answer_balances/answer"]["rl"] == 1
    assert by["*/action"] == {"domain": "airline", "route": "*/action", "chain": ["state_hash", "path_checks"],
                              "tasks": 2, "rl": 1, "sft": 2}


def test_answer_component_reaches_the_parquet_struct():
    """The answer matcher's component is a column of the exported reward_components struct (null
    for tasks not routed to it), so an answer task's rows say how the answer scored."""
    import pyarrow as pa

    from pipeline.export.rows import reward_components_row
    from pipeline.export.schemas import REWARD_COMPONENTS

    row = reward_components_row({"outcome": 1.0, "format_valid": 1.0, "answer": 0.0})
    assert row["answer"] == 0.0 and row["violations"] is None
    assert reward_components_row({"outcome": 1.0})["answer"] is None
    arr = pa.array([row], type=REWARD_COMPONENTS)
    assert arr.to_pylist()[0]["answer"] == 0.0
