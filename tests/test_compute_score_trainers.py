"""compute_score on what trainers hand it: veRL's multi-turn response string and Hermes tool calls
a model got creative with (pipeline.rewards).

The task is a real airline cancellation from the generator (tests/export_helpers.py,
``bp-cancel_reservation`` seed 0, task t000: user edwin_norman_9322, reservation Q3DXYE), the ids
of ../shared/cases/trainers/verl-multiturn-solution-str.txt; the ground truth is built the way the
exporter builds rl rows (pipeline.export.rows.rl_row). Each role-marked response is the training
chat template's rendering of a trajectory with the special tokens removed; its right score is the
verifier's verdict on that trajectory.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from export_helpers import (DOMAIN, blueprint, mutated_calls, reference_calls, tasks_for,  # noqa: E402
                            trajectory)

from pipeline.export.rows import rl_row  # noqa: E402
from pipeline.rewards import compute_score, parse_response  # noqa: E402
from pipeline.verify import verify_trajectory  # noqa: E402

from shared_paths import CASES_DIR, missing  # noqa: E402

CASE = CASES_DIR / "trainers" / "verl-multiturn-solution-str.txt"
# the three ../shared/cases/toolcalls inputs (checked against the files there)
from tests.test_toolcall_parser import CLOSE_TAG_IN_STRING, LONE_SURROGATE_ESCAPE, TWO_OBJECTS_ONE_BLOCK  # noqa: E402
SPECIAL = ("<|im_start|>", "<|im_end|>")


@pytest.fixture(scope="module")
def task():
    t = tasks_for(blueprint("bp-cancel_reservation", "cancel_reservation"), 2, seed=0)[0]
    assert [c["arguments"] for c in reference_calls(t)] == [
        {"user_id": "edwin_norman_9322"}, {"reservation_id": "Q3DXYE"}, {"reservation_id": "Q3DXYE"}]
    return t


@pytest.fixture(scope="module")
def row(task):
    return rl_row(task, "train", lambda t: t.visible.policy)


def chatml(messages: list[dict], glued: bool = False) -> str:
    """``messages`` rendered as pipeline.trl_env.TRAINING_CHAT_TEMPLATE renders them. ``glued``:
    no newline after an assistant's ``<|im_end|>`` (the model generated that token and stopped;
    veRL's agent loop appends the next turn's tokens right after it)."""
    out = ""
    for m in messages:
        role, content = m["role"], m.get("content") or ""
        if role == "assistant":
            out += "<|im_start|>assistant\n" + content
            for j, tc in enumerate(m.get("tool_calls") or []):
                if content or j:
                    out += "\n"
                fn = tc["function"]
                args = fn["arguments"] if isinstance(fn["arguments"], str) else json.dumps(fn["arguments"])
                out += '<tool_call>\n{"name": "' + fn["name"] + '", "arguments": ' + args + "}\n</tool_call>"
            out += "<|im_end|>" + ("" if glued else "\n")
        elif role == "tool":
            out += "<|im_start|>tool\n<tool_response>\n" + content + "\n</tool_response><|im_end|>\n"
        else:
            out += f"<|im_start|>{role}\n{content}<|im_end|>\n"
    return out


def response_text(messages: list[dict], glued: bool = False) -> str:
    """The response part (after system, customer opening and ``<|im_start|>assistant\\n``) with
    the special tokens removed, as ``decode(..., skip_special_tokens=True)`` gives it."""
    full = chatml(messages, glued)
    prompt = chatml(messages[:2]) + "<|im_start|>assistant\n"
    assert full.startswith(prompt)
    body = full[len(prompt):]
    for s in SPECIAL:
        body = body.replace(s, "")
    return body


def verdict_scores(traj, task) -> dict[str, float]:
    v = verify_trajectory(traj, task, DOMAIN)
    out = {"score": v.reward, "passed": float(v.passed), "n_reason_codes": float(len(v.reason_codes))}
    out.update(v.reward_components)
    return out


def passing(task):
    return trajectory(task, 0, reference_calls(task), tag=" ")


def failing_outcome(task):
    """Reads only: the reservation is never cancelled."""
    return trajectory(task, 2, mutated_calls(task))


def failing_confirmation(task):
    """Asks, gets no yes ("Hmm, let me check my calendar first."), cancels anyway."""
    t = passing(task)
    msgs = [dict(m) for m in t.messages]
    i = next(k for k, m in enumerate(msgs) if m["role"] == "user" and k > 1)
    msgs[i]["content"] = "Hmm, let me check my calendar first."
    return t.model_copy(update={"messages": msgs, "trajectory_id": "unconfirmed"})


def passing_with_text_beside_calls(task):
    """Text and a tool call in the same agent turn ("Let me look that up." + call)."""
    t = passing(task)
    msgs = [dict(m) for m in t.messages]
    for m in msgs:
        if m["role"] == "assistant" and m.get("tool_calls"):
            m["content"] = "Let me look that up." if m["tool_calls"][0]["function"]["name"] != "cancel_reservation" \
                else "Cancelling it now."
    return t.model_copy(update={"messages": msgs, "trajectory_id": "text-beside-calls"})


# ---------------------------------------------------------------- the veRL case


def test_verl_case_file_scores_the_verifiers_verdict(task, row):
    if not CASE.exists():
        pytest.skip(missing(CASE))
    solution = CASE.read_text(encoding="utf-8")
    assert solution == response_text(passing(task).messages)  # the same episode, rebuilt here
    got = compute_score(row["data_source"], solution, row["reward_model"]["ground_truth"], row["extra_info"])
    assert got == {"score": 1.0, "passed": 1.0, "n_reason_codes": 0.0, "outcome": 1.0, "format_valid": 1.0,
                   "violations": 0.0, "tool_calls": 3.0, "length": 102.0}


def test_verl_response_is_split_into_agent_customer_and_tool_turns(task):
    resp = parse_response(response_text(passing(task).messages))
    assert resp.role_marked
    kinds = [(k, v if isinstance(v, str) else [c[0] for c in v.calls]) for k, v in resp.segments]
    assert kinds == [("call", ["get_user_details"]), ("call", ["get_reservation_details"]),
                     ("text", "I can do that for you (cancel_reservation). Shall I proceed?"),
                     ("user", "Yes, that's correct. Please go ahead."),
                     ("call", ["cancel_reservation"]),
                     ("text", "Thank you, is there anything else I can help with?")]
    assert resp.turns == [0, 1, 2, -1, 3, 4]


@pytest.mark.parametrize("glued", [False, True])
@pytest.mark.parametrize("build,expected", [
    (passing, {"score": 1.0, "passed": 1.0, "violations": 0.0}),
    (passing_with_text_beside_calls, {"score": 1.0, "passed": 1.0, "violations": 0.0}),
    (failing_outcome, {"score": 0.0, "passed": 0.0, "outcome": 0.0}),
    (failing_confirmation, {"score": 0.75, "passed": 0.0, "outcome": 1.0, "violations": 1.0}),
])
def test_role_marked_response_scores_as_the_verifier(task, row, build, expected, glued):
    traj = build(task)
    truth = verdict_scores(traj, task)
    assert {k: truth[k] for k in expected} == expected  # the verifier's own verdict on the episode
    got = compute_score(row["data_source"], response_text(traj.messages, glued), row["reward_model"]["ground_truth"],
                        {"completion_tokens": traj.completion_tokens})
    assert got == truth


def test_customer_turn_cannot_make_tool_calls(task, row):
    """A ``<tool_call>`` inside a customer (or tool) turn is text, not an agent action."""
    t = failing_outcome(task)
    msgs = [dict(m) for m in t.messages]
    msgs.insert(-1, {"role": "user", "content": 'Do it: <tool_call>\n{"name": "cancel_reservation", '
                                                '"arguments": {"reservation_id": "Q3DXYE"}}\n</tool_call>'})
    got = compute_score(row["data_source"], response_text(msgs), row["reward_model"]["ground_truth"])
    assert got["outcome"] == 0.0 and got["score"] == 0.0 and got["tool_calls"] == 2.0


def test_plain_format_still_uses_the_scripted_customer(task, row):
    """No role words: agent text turns get the ground truth's scripted customer replies, as before."""
    def block(name, args):
        return "<tool_call>\n" + json.dumps({"name": name, "arguments": args}) + "\n</tool_call>"

    plain = "\n".join([block("get_user_details", {"user_id": "edwin_norman_9322"}),
                       "<tool_response>\nignored\n</tool_response>",
                       block("get_reservation_details", {"reservation_id": "Q3DXYE"}),
                       "Shall I proceed?", block("cancel_reservation", {"reservation_id": "Q3DXYE"}),
                       "Thank you, is there anything else I can help with?"])
    resp = parse_response(plain)
    assert not resp.role_marked and [k for k, _ in resp.segments] == ["call", "call", "text", "call", "text"]
    got = compute_score(row["data_source"], plain, row["reward_model"]["ground_truth"])
    assert got["score"] == 1.0 and got["passed"] == 1.0 and got["length"] == resp.agent_chars // 4


@pytest.fixture(scope="module")
def tokenizer():
    pytest.importorskip("transformers")
    from transformers import AutoTokenizer

    from pipeline.rollout.models import ModelNotFound, default_model
    from pipeline.trl_env import prepare_tokenizer

    try:
        spec = default_model()
    except ModelNotFound as exc:
        pytest.skip(str(exc))
    return prepare_tokenizer(AutoTokenizer.from_pretrained(spec.folder, gguf_file=spec.gguf_file))


def _ids(enc):
    return list(enc["input_ids"] if hasattr(enc, "keys") else enc)


@pytest.mark.parametrize("build", [passing, failing_outcome, failing_confirmation, passing_with_text_beside_calls])
def test_rebuilt_with_the_bundled_tokenizer(task, row, tokenizer, build):
    """As the README says: render with the training template, tokenize, take the response part,
    decode with skip_special_tokens=True. The decode equals response_text, and scores as the verifier."""
    traj = build(task)
    msgs = [{k: v for k, v in m.items() if v is not None} for m in traj.messages]
    prompt = _ids(tokenizer.apply_chat_template(msgs[:2], add_generation_prompt=True, tokenize=True))
    full = _ids(tokenizer.apply_chat_template(msgs, tokenize=True))
    assert full[:len(prompt)] == prompt
    solution = tokenizer.decode(full[len(prompt):], skip_special_tokens=True)
    assert solution == response_text(traj.messages)
    got = compute_score(row["data_source"], solution, row["reward_model"]["ground_truth"],
                        {"completion_tokens": traj.completion_tokens})
    assert got == verdict_scores(traj, task)


# ---------------------------------------------------------------- tool-call cases in compute_score


def _block(name, args):
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": args}) + "\n</tool_call>"


HEAD = [_block("get_user_details", {"user_id": "edwin_norman_9322"}), "<tool_response>\nx\n</tool_response>",
        _block("get_reservation_details", {"reservation_id": "Q3DXYE"}), "<tool_response>\nx\n</tool_response>",
        "I can cancel it now. Shall I proceed?"]
TAIL = ["Thank you, is there anything else I can help with?"]
CANCEL = _block("cancel_reservation", {"reservation_id": "Q3DXYE"})
THINK_DONE = _block("think", {"thought": "done"})
#: reference outcome, four calls for a three-call reference: 1 - 0.15 * (1 - 3/4)
FOUR_CALLS = {"score": 0.9625, "passed": 1.0, "n_reason_codes": 0.0, "outcome": 1.0, "format_valid": 1.0,
              "violations": 0.0, "tool_calls": 4.0, "length": 100.0}
EXTRA = {"completion_tokens": 100}


def _score(row, parts, extra=EXTRA):
    return compute_score(row["data_source"], "\n".join(parts), row["reward_model"]["ground_truth"], extra)


def test_two_calls_in_one_block_score_as_two_blocks(row):
    one = _score(row, HEAD + [TWO_OBJECTS_ONE_BLOCK] + TAIL)
    two = _score(row, HEAD + [CANCEL, THINK_DONE] + TAIL)
    assert one == two == FOUR_CALLS
    assert _score(row, HEAD + [TWO_OBJECTS_ONE_BLOCK] + TAIL, None)["score"] == \
        _score(row, HEAD + [CANCEL, THINK_DONE] + TAIL, None)["score"] == 0.9625


def test_close_tag_inside_json_string_is_one_valid_call(row):
    assert _score(row, HEAD + [CLOSE_TAG_IN_STRING, CANCEL] + TAIL) == FOUR_CALLS


def test_lone_surrogate_is_scored_not_crashed(row):
    assert _score(row, HEAD + [LONE_SURROGATE_ESCAPE, CANCEL] + TAIL) == FOUR_CALLS
    assert _score(row, HEAD + [LONE_SURROGATE_ESCAPE, CANCEL, "Done \ud83d"]) == FOUR_CALLS


def test_leftover_text_in_a_block_counts_against_the_format(row):
    garbage = CANCEL.replace("}}\n", "}} and then I stop\n")
    assert _score(row, HEAD + [garbage] + TAIL) == {
        "score": 0.7625, "passed": 0.0, "n_reason_codes": 1.0, "outcome": 1.0, "format_valid": 0.0,
        "violations": 0.0, "tool_calls": 4.0, "length": 100.0}
