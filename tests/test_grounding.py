"""Grounded arguments (``TRAJ_UNGROUNDED_ARGUMENT``, pipeline/verify/grounding.py): every literal
in a tool call was shown to the agent before the call or is derived by a rule the domain
declares. Real domains, real generated and synthesized tasks, the real verifier throughout."""
from __future__ import annotations

import copy
import json
import re

import pytest

from pipeline.domains import get_domain, known_domains
from pipeline.records import Blueprint
from pipeline.synthesize import build_package
from pipeline.verify import verify_trajectory
from pipeline.verify.grounding import Evidence, dates_in_text, numbers_in_text
from pipeline.verify.mutations import Variant, build_variants, kinds_and_variants, task_for, to_trajectory
from pipeline.verify.tasks import verify_task

AIRLINE = get_domain("airline")
RETAIL = get_domain("retail")
CODE = "TRAJ_UNGROUNDED_ARGUMENT"
DONE = "All done: your request has been completed."


def _ref(task):
    return [c.model_dump() for c in task.hidden.reference_solution]


def _play(task, domain, calls, final=DONE, label="t"):
    """``calls`` as a harness-shaped trajectory (system, opening, proposal + "yes" before the first
    write, one tool result per call, a closing message), as reverse validation builds them."""
    return to_trajectory(task, domain, Variant(label, True, calls, final_text=final))


def _with_instruction(task, text):
    return task.model_copy(update={"visible": task.visible.model_copy(update={"instruction": text})})


def _ungrounded(verdict):
    return [(v["step"], v["path"]) for v in verdict.violations if v["code"] == CODE]


def _shown(traj, value, step):
    """Does ``value`` occur, as a whole token, in a non-agent message of ``traj`` before the
    assistant message that makes tool call ``step``?"""
    at = [i for i, m in enumerate(traj.messages) if m["role"] == "assistant" for _ in m.get("tool_calls") or []][step]
    pat = re.compile(r"(?<!\w)" + re.escape(str(value)) + r"(?!\w)")
    return any(pat.search(m.get("content") or "") for m in traj.messages[:at] if m["role"] != "assistant")


# ---- the evidence: numbers, tokens, dates ---------------------------------------------------------

def test_numbers_tokens_and_dates_are_normalized():
    assert numbers_in_text("It was $1,786.00, then 1786 and 12.5.") == {1786.0, 12.5}
    # digits inside ids, ISO dates and clock times are not amounts
    assert numbers_in_text("HAT170 gift_card_1247633 #W2129142 on 2024-05-18 at 15:00") == set()
    ev = Evidence()
    ev.add_text("Flight HAT170 for a cat, reservation 8JX2WO.")
    assert ev.seen_string("HAT170") and ev.seen_string("hat170") and ev.seen_string("8JX2WO")
    assert not ev.seen_string("1") and not ev.seen_string("HAT17") and not ev.seen_string("at")
    assert ev.seen_string("a")  # a whole token: short strings match only at token boundaries
    ev.add_text("I'd like to add two checked bags on May 18.", customer=True)
    assert ev.seen_number(2) and ev.seen_number(2.0) and not ev.seen_number(3)
    assert ev.customer_numbers == {2.0, 18.0}
    assert ev.seen_date("2024-05-18") and not ev.seen_date("2024-05-19")
    assert dates_in_text("the 3rd of June, 2023 or 5/18") == {(6, 3, 2023), (5, 18, None)}
    ev2 = Evidence()
    ev2.add_text("May 18, 2023")
    assert not ev2.seen_date("2024-05-18") and ev2.seen_date("2023-05-18")
    ev2.add_result("get_user_details", {}, json.dumps({"name": "Zo\u00eb", "amount": 1786}))
    assert ev2.seen_string("ZO\u00cb") and ev2.seen_number(1786.0)


# ---- (a) a valid, existing id never shown to the agent -------------------------------------------

def test_an_existing_id_the_conversation_never_showed_is_rejected_at_its_step_and_path():
    task = task_for(AIRLINE, "cancel_reservation", 0)
    rid = task.hidden.reference_solution[-1].arguments["reservation_id"]
    assert rid == "N15R19" and rid in task.hidden.initial_state["reservations"]
    assert re.fullmatch(r"[A-Z0-9]{6}", rid)
    # the customer does not name the reservation; the agent reads it before looking the user up
    vague = _with_instruction(task, task.visible.instruction.replace(f"reservation {rid}", "my upcoming trip"))
    assert rid not in vague.visible.instruction
    calls = [_ref(task)[1], _ref(task)[0], _ref(task)[2]]
    assert [c["name"] for c in calls] == ["get_reservation_details", "get_user_details", "cancel_reservation"]
    planted = _play(vague, AIRLINE, calls)
    v = verify_trajectory(planted, vague, AIRLINE)
    assert planted.final_state_hash == task.hidden.expected_state_hash  # otherwise a correct trajectory
    assert v.passed is False and v.reason_codes == [CODE]
    assert _ungrounded(v) == [(0, "reservation_id")]
    assert v.reward_components["violations"] == 1.0 and v.reward == 0.75
    # the cancel itself (step 2) is grounded: the reservation and the user's profile showed the id
    shown = verify_trajectory(_play(task, AIRLINE, calls), task, AIRLINE)
    assert shown.passed is True and shown.violations == [] and shown.reward == 1.0


# ---- (b) / (c) a hinted value: looked up first, or used without the lookup -----------------------

@pytest.fixture(scope="module")
def payment_task():
    task = task_for(RETAIL, "modify_pending_payment", 0)
    assert [c["name"] for c in _ref(task)] == ["find_user_id_by_name_zip", "get_user_details", "get_order_details",
                                              "modify_pending_order_payment"]
    return task


def test_hinted_value_looked_up_before_the_write_is_kept(payment_task):
    good = _play(payment_task, RETAIL, _ref(payment_task), label="looked-up")
    pid = _ref(payment_task)[-1]["arguments"]["payment_method_id"]
    assert pid == "paypal_4395984" and pid not in payment_task.visible.instruction
    assert _shown(good, pid, 3)  # get_user_details' result (step 1) shows it before the write
    assert not _shown(good, pid, 1)
    v = verify_trajectory(good, payment_task, RETAIL)
    assert v.passed is True and v.reason_codes == [] and v.violations == []


def test_hinted_value_used_without_the_lookup_is_rejected(payment_task):
    calls = [c for c in _ref(payment_task) if c["name"] != "get_user_details"]
    bad = _play(payment_task, RETAIL, calls, label="skipped-lookup")
    pid = calls[-1]["arguments"]["payment_method_id"]
    # right final state, identity established, confirmed: only the provenance is wrong
    assert bad.final_state_hash == payment_task.hidden.expected_state_hash
    assert not _shown(bad, pid, 2)
    # the agent naming the id in its own proposal does not ground it
    assert any(pid in (m.get("content") or "") for m in bad.messages if m["role"] == "assistant")
    v = verify_trajectory(bad, payment_task, RETAIL)
    assert v.passed is False and v.reason_codes == [CODE]
    assert v.violations == [{"code": CODE, "step": 2, "path": "payment_method_id",
                             "detail": 'modify_pending_order_payment payment_method_id="paypal_4395984" was never '
                                       "shown to the agent before this call nor derived by a rule of the retail "
                                       "domain"}]


def test_export_selection_keeps_the_grounded_row_only(payment_task):
    from pipeline.stages import select_stage

    good = _play(payment_task, RETAIL, _ref(payment_task), label="looked-up")
    bad = _play(payment_task, RETAIL, [c for c in _ref(payment_task) if c["name"] != "get_user_details"],
                label="skipped-lookup")
    verdicts = [verify_trajectory(t, payment_task, RETAIL) for t in (good, bad)]
    res = select_stage([good, bad], verdicts, cap=2)
    assert [t.trajectory_id for t in res.kept] == [good.trajectory_id]
    assert [(t.trajectory_id, code) for t, code, _ in res.rejects] == [(bad.trajectory_id, CODE)]


# ---- (d) derived numbers ---------------------------------------------------------------------------

def test_derived_baggage_total_passes_and_an_arbitrary_total_fails():
    task = task_for(AIRLINE, "update_reservation_baggages", 0)
    write = _ref(task)[-1]["arguments"]
    notes = task.hidden.generation_notes
    assert (notes["old_total"], notes["added"], write["total_baggages"], write["nonfree_baggages"]) == (2, 3, 5, 1)
    ok = _play(task, AIRLINE, _ref(task))
    assert not _shown(ok, 5, 2) and "add 3 checked bags" in task.visible.instruction
    v = verify_trajectory(ok, task, AIRLINE)
    assert v.passed is True and v.violations == []
    # the count said in words derives the same total
    words = _with_instruction(task, task.visible.instruction.replace("add 3 checked bags", "add three checked bags"))
    assert verify_trajectory(_play(words, AIRLINE, _ref(task)), words, AIRLINE).passed is True
    # a total no rule derives (and the nonfree count that total would imply)
    calls = copy.deepcopy(_ref(task))
    calls[-1]["arguments"].update(total_baggages=7, nonfree_baggages=3)
    bad = verify_trajectory(_play(task, AIRLINE, calls, final="Here is the summary."), task, AIRLINE)
    assert _ungrounded(bad) == [(2, "total_baggages")]
    assert bad.reason_codes == ["TRAJ_WRONG_FINAL_STATE", CODE]


def test_derived_certificate_and_booking_amounts():
    cert = task_for(AIRLINE, "send_certificate", 0)
    assert _ref(cert)[-1]["arguments"]["amount"] == 300  # 100 x 3 passengers, never said
    assert verify_trajectory(_play(cert, AIRLINE, _ref(cert)), cert, AIRLINE).violations == []
    calls = copy.deepcopy(_ref(cert))
    calls[-1]["arguments"]["amount"] = 350  # (250, the balance of a certificate the profile shows, is seen)
    assert _ungrounded(verify_trajectory(_play(cert, AIRLINE, calls), cert, AIRLINE)) == [(2, "amount")]
    book = task_for(AIRLINE, "book_reservation", 0)
    args = _ref(book)[-1]["arguments"]
    assert args["payment_methods"][0]["amount"] == 237 and "237" not in book.visible.instruction
    assert "Dallas (DFW)" in book.visible.instruction
    assert verify_trajectory(_play(book, AIRLINE, _ref(book)), book, AIRLINE).violations == []
    calls = copy.deepcopy(_ref(book))
    calls[-1]["arguments"]["payment_methods"][0]["amount"] = 238
    assert _ungrounded(verify_trajectory(_play(book, AIRLINE, calls), book, AIRLINE)) == \
        [(2, "payment_methods[0].amount")]


def test_calculate_expression_numbers_must_be_grounded():
    task = task_for(AIRLINE, "update_reservation_baggages", 0)
    ref = _ref(task)
    fine = ref[:2] + [{"name": "calculate", "arguments": {"expression": "(2 + 3 - 2 * 2) * 50"}}] + ref[2:]
    assert verify_trajectory(_play(task, AIRLINE, fine), task, AIRLINE).violations == []
    odd = ref[:2] + [{"name": "calculate", "arguments": {"expression": "5 * 4711"}}] + ref[2:]
    assert _ungrounded(verify_trajectory(_play(task, AIRLINE, odd), task, AIRLINE)) == [(2, "expression")]


# ---- (e) free text is exempt -------------------------------------------------------------------------

def test_free_text_arguments_are_exempt_only_where_declared():
    assert AIRLINE.free_text_arguments == {"think": {"thought"}, "transfer_to_human_agents": {"summary"}}
    assert RETAIL.free_text_arguments == AIRLINE.free_text_arguments
    assert get_domain("library").free_text_arguments == {}
    task = task_for(AIRLINE, "cancel_reservation", 0, "rule:airline.cancel.unflown")
    ref = _ref(task)
    assert ref[-1]["name"] == "transfer_to_human_agents"
    thought = {"name": "think", "arguments": {"thought": "Guessing ZZ9QX1 and 4711 would be wrong."}}
    calls = ref[:2] + [thought] + ref[2:]
    traj = _play(task, AIRLINE, calls, final=None)
    v = verify_trajectory(traj, task, AIRLINE)
    assert v.passed is True and v.violations == []
    undeclared = copy.copy(AIRLINE)
    undeclared.free_text_arguments = {}
    v2 = verify_trajectory(traj, task, undeclared)
    assert _ungrounded(v2) == [(2, "thought"), (3, "summary")]


# ---- (f) every synthesized reference is grounded, and the task verifier still passes them ---------

def _blueprint(name, kind):
    return Blueprint(blueprint_id=f"bp-{name}-{kind}", domain=name, intent=kind, action_signature=[],
                     required_tools=[], read_tools=[], initial_state_requirements={}, business_constraints=[],
                     success_condition="", failure_modes=[], source_log_ids=[], n_logs=0, n_success=0,
                     task_kind=kind)


@pytest.mark.parametrize("name", known_domains())
def test_every_synthesized_reference_is_grounded(name):
    """Reverse validation's own replay (to_trajectory: a 200-character system prompt, the opening
    message and a "yes"; less evidence than the harness gives, so grounded here is grounded there)
    of the reference and the known-good variants, for every kind and variant, generated
    (task_for, 6 seeds) and synthesized from a blueprint (build_package, 2 instances)."""
    domain = get_domain(name)
    n = 0
    for kind, variant in kinds_and_variants(domain):
        tasks = [task_for(domain, kind, s, variant) for s in range(6)]
        tasks += [build_package(_blueprint(name, kind), domain, i, seed=11, variant=variant) for i in range(2)]
        for task in tasks:
            for i, v in enumerate(build_variants(task, domain)):
                if not v.expect_pass:
                    continue
                verdict = verify_trajectory(to_trajectory(task, domain, v, i), task, domain)
                assert _ungrounded(verdict) == [], (task.task_id, v.label, verdict.violations)
                assert verdict.passed, (task.task_id, v.label, verdict.reason_codes)
                n += 1
    assert n >= 8 * len(kinds_and_variants(domain))


@pytest.mark.parametrize("name", known_domains())
def test_task_verifier_still_passes_synthesized_tasks(name):
    domain = get_domain(name)
    for kind, variant in kinds_and_variants(domain):
        for i in range(2):
            task = build_package(_blueprint(name, kind), domain, i, seed=3, variant=variant)
            tv = verify_task(task, domain)
            assert tv.passed, (task.task_id, tv.reason_codes, tv.details["checks"].get("reverse_validation"))


def test_reordered_variant_never_moves_a_lookup_after_its_use():
    """Retail: find_user_id -> get_user_details is the first swappable pair, but the swap would use
    the user id before the lookup shows it; the known-good reordering must pick another pair."""
    task = task_for(RETAIL, "cancel_pending_order", 0)
    labels = {v.label: v for v in build_variants(task, RETAIL)}
    if "reordered" in labels:
        names = [c["name"] for c in labels["reordered"].calls]
        assert names.index("find_user_id_by_email") < names.index("get_user_details")
    swapped = [_ref(task)[1], _ref(task)[0]] + _ref(task)[2:]
    v = verify_trajectory(_play(task, RETAIL, swapped), task, RETAIL)
    assert _ungrounded(v) == [(0, "user_id")]


def test_rl_reward_replay_of_a_reference_has_no_violation():
    """The RL reward (pipeline.rewards.compute_score) replays a response without a system prompt:
    the reference is still grounded by the opening message and the tool results."""
    from pipeline.export.rows import rl_row
    from pipeline.rewards import compute_score

    for name, kind in (("airline", "book_reservation"), ("airline", "update_reservation_baggages"),
                       ("retail", "exchange_delivered_items"), ("library", "renew_loan")):
        domain = get_domain(name)
        task = task_for(domain, kind, 1)
        parts, asked = [], False
        for c in _ref(task):
            if domain.tools[c["name"]].writes and not asked:
                parts.append("I can do that now. Shall I proceed?")
                asked = True
            parts.append("<tool_call>\n" + json.dumps({"name": c["name"], "arguments": c["arguments"]}) + "\n</tool_call>")
        parts.append("Thank you, is there anything else I can help with?")
        row = rl_row(task, "train", lambda t: t.visible.policy)
        got = compute_score(row["data_source"], "\n".join(parts), row["reward_model"]["ground_truth"])
        assert (got["violations"], got["outcome"]) == (0.0, 1.0), (task.task_id, got)
