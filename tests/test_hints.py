"""Hinted and guided rollouts (pipeline/rollout/hints.py): the help is derived from the hidden
reference, reaches the teacher's prompt (plan / example) or grammar (guided) during generation
only, never Trajectory.messages, leaks no hidden value, and ``hint_when="fallback"`` reruns only
the tasks with no passing rollout. Real synthesized airline and retail tasks throughout; the
teacher is a recording test double except in the one slow test."""
from __future__ import annotations

import json
import re

import pytest

from pipeline.domains import get_domain
from pipeline.records import Blueprint, PolicyRule, TaskPackage
from pipeline.rollout import grammar as gr
from pipeline.rollout.backends.base import Generation, SamplingConfig
from pipeline.rollout.harness import RolloutConfig, run_rollouts
from pipeline.rollout.hints import HINT_HEADER, example_conversation, guided_turn, hint_text, plan_text
from pipeline.rollout.users import STOP
from pipeline.synthesize import build_package
from pipeline.verify import verify_trajectory

AIRLINE = get_domain("airline")


def blueprint(domain: str, kind: str) -> Blueprint:
    dom = get_domain(domain)
    return Blueprint(blueprint_id=f"bp-{domain}-{kind}", domain=domain, intent=kind, action_signature=[f"{kind}(...)"],
                     required_tools=[kind], read_tools=[], initial_state_requirements={},
                     business_constraints=[PolicyRule(rule_id="R1", text="rule")], success_condition="state matches",
                     failure_modes=[], source_log_ids=[f"log-{kind}"], n_logs=1, n_success=1, task_kind=kind,
                     skills=dom.skills_for_kind(kind))


def package(domain: str, kind: str, variant: str | None = None, index: int = 0) -> TaskPackage:
    """A real synthesized task (pipeline.synthesize.build_package)."""
    return build_package(blueprint(domain, kind), get_domain(domain), index, 0, variant=variant)


def every_task() -> list[tuple[str, TaskPackage]]:
    """One task per (domain, kind, variant) of the shipped domains."""
    out = []
    for d in ("airline", "retail"):
        dom = get_domain(d)
        for kind in dom.task_kinds:
            for variant in [None, *dom.variants_for_kind(kind)]:
                out.append((d, package(d, kind, variant)))
    return out


def leaves(x, key=""):
    """(key, value) of every scalar in nested arguments."""
    if isinstance(x, dict):
        for k, v in x.items():
            yield from leaves(v, k)
    elif isinstance(x, list):
        for v in x:
            yield from leaves(v, key)
    else:
        yield key, x


def enum_values(domain) -> set:
    vals: set = set()

    def walk(s):
        if isinstance(s, dict):
            vals.update(s.get("enum") or [])
            for v in s.values():
                walk(v)
        elif isinstance(s, list):
            for v in s:
                walk(v)
    walk(domain.tool_schemas())
    return vals


def occurs(value, text: str) -> bool:
    """``value`` as a whole token of ``text``, any case (no letter, digit, ``_``, ``.`` or ``#``
    right before it, no letter, digit or ``_`` right after it)."""
    return re.search(r"(?<![\w.#])" + re.escape(str(value)) + r"(?!\w)", text, re.I) is not None


# ------------------------------------------------------------------ plan
def test_plan_names_the_reference_tools_in_order_and_no_values():
    for d, task in every_task():
        dom = get_domain(d)
        text = plan_text(task, dom)
        assert text.startswith(HINT_HEADER) and hint_text(task, dom, "plan") == text
        names = [c.name for c in task.hidden.reference_solution]
        at, pos = 0, []
        for n in names:  # each reference tool named, in the reference's order
            i = text.find(f"call {n}", at)
            if i < 0:
                i = text.find(f"Call {n}", at)
            assert i >= 0, (task.task_id, n, text)
            pos.append(i)
            at = i + 1
        assert pos == sorted(pos)
        # no argument value: every non-enum string, and no digit outside the step numbers
        public = enum_values(dom)
        body = re.sub(r"(?m)^\d+\. ", "", text)
        assert not re.search(r"\d", body), (task.task_id, body)
        for c in task.hidden.reference_solution:
            for key, v in leaves(c.arguments):
                if isinstance(v, str) and v and v not in public:
                    assert not occurs(v, text), (task.task_id, key, v)
        for v in task.hidden.generation_notes.get("must_discover", []):
            assert not occurs(v, body), (task.task_id, v)
        # the write steps ask for confirmation first; refusals say so
        for c in task.hidden.reference_solution:
            if c.name in getattr(dom, "write_tools", set()) and not c.name.startswith("transfer"):
                assert f"after their 'yes' call {c.name}" in text
        if task.expected_outcome == "refusal":
            assert "does not allow" in text


# ------------------------------------------------------------------ example
def test_example_is_another_instance_and_leaks_no_hidden_value():
    n = 0
    for d, task in every_task():
        dom = get_domain(d)
        text = example_conversation(task, dom)
        assert text is not None and text.startswith(HINT_HEADER), task.task_id
        assert hint_text(task, dom, "example") == text
        n += 1
        # built from another instance: the generator's task with another seed, its own records
        other = dom.generate_task(task.task_kind, task.seed + 7919, variant=task.variant) if task.variant \
            else dom.generate_task(task.task_kind, task.seed + 7919)
        assert other.instruction in text
        mine = {v for c in task.hidden.reference_solution for k, v in leaves(c.arguments) if gr.ID_KEY_RE.search(k)}
        theirs = {v for c in other.reference_solution for k, v in leaves(c.get("arguments", {}))
                  if gr.ID_KEY_RE.search(k)}
        assert theirs and mine and not (mine & theirs), (task.task_id, mine & theirs)
        assert all(occurs(v, text) for v in theirs), task.task_id
        # none of this task's hidden values: its identifiers, what only the tools reveal, its opening
        hidden = set(mine) | {str(v) for v in task.hidden.generation_notes.get("must_discover", [])
                              # (amounts under 1,000 recur across instances by chance: 200 certificates)
                              if not (str(v).isdigit() and int(v) < 1000)}
        for v in hidden:
            assert not occurs(v, text), (task.task_id, v)
        assert task.visible.instruction not in text
    assert n > 20
    # a task without a kind has no example
    bare = package("airline", "cancel_reservation").model_copy(update={"task_kind": None})
    assert example_conversation(bare, AIRLINE) is None and hint_text(bare, AIRLINE, "example") is None
    assert hint_text(bare, AIRLINE, "none") is None
    assert hint_text(bare, AIRLINE, "guided") == hint_text(bare, AIRLINE, "plan") == plan_text(bare, AIRLINE)
    with pytest.raises(ValueError, match="unknown hint mode"):
        hint_text(bare, AIRLINE, "answers")


# ------------------------------------------------------------------ guided
def _ok(name, step=0, error=None):
    return {"step": step, "name": name, "arguments": "{}", "valid_json": True, "error": error}


def test_guided_turn_follows_the_reference():
    task = package("airline", "update_reservation_baggages")
    ref = [c.name for c in task.hidden.reference_solution]
    assert ref == ["get_user_details", "get_reservation_details", "update_reservation_baggages"]
    sysm = {"role": "system", "content": "policy"}
    opening = {"role": "user", "content": task.visible.instruction}
    msgs = [sysm, opening]
    assert guided_turn(task, AIRLINE, [], msgs) == ("call", ["get_user_details"])
    # a failed call does not advance; a call of another tool in between is ignored
    assert guided_turn(task, AIRLINE, [_ok("get_user_details", error="TOOL_ERROR")], msgs) == ("call", ["get_user_details"])
    calls = [_ok("get_user_details"), _ok("think", 1), _ok("get_reservation_details", 2)]
    assert guided_turn(task, AIRLINE, calls[:2], msgs) == ("call", ["get_reservation_details"])
    tool_msg = {"role": "tool", "tool_call_id": "c", "content": "{}"}
    # the write is next and has not been proposed: a text turn (explain, ask to confirm)
    assert guided_turn(task, AIRLINE, calls, msgs + [tool_msg]) == ("text", None)
    proposal = {"role": "assistant", "content": "I can add the bags for $50. Confirm (yes/no)?"}
    assert guided_turn(task, AIRLINE, calls, msgs + [tool_msg, proposal]) == ("text", None)  # no answer yet
    reply = {"role": "user", "content": "Yes, please proceed."}
    assert guided_turn(task, AIRLINE, calls, msgs + [tool_msg, proposal, reply]) == (
        "call", ["update_reservation_baggages"])
    # a customer message that does not answer an agent text (the opening) is no confirmation
    assert guided_turn(task, AIRLINE, calls, [sysm, opening]) == ("text", None)
    # the reference is done: text (answer the customer)
    done = calls + [_ok("update_reservation_baggages", 3)]
    assert guided_turn(task, AIRLINE, done, msgs + [tool_msg, proposal, reply, tool_msg]) == ("text", None)


def test_guided_transfer_and_refusal():
    transfer = package("airline", "cancel_reservation", "rule:airline.cancel.unflown")
    names = [c.name for c in transfer.hidden.reference_solution]
    assert names[-1] == "transfer_to_human_agents"
    reads = [_ok(n, i) for i, n in enumerate(names[:-1])]
    msgs = [{"role": "user", "content": transfer.visible.instruction}, {"role": "tool", "content": "{}"}]
    assert guided_turn(transfer, AIRLINE, reads, msgs) == ("call", ["transfer_to_human_agents"])  # not a write
    refusal = package("airline", "update_reservation_flights", "rule:airline.modify.basic_economy")
    reads = [_ok(c.name, i) for i, c in enumerate(refusal.hidden.reference_solution)]
    assert guided_turn(refusal, AIRLINE, reads, msgs) == ("text", None)


# ------------------------------------------------------------------ the harness
class ReferencePlayer:
    """Recording teacher double: plays a task's hidden reference (reads, a confirmation question
    before a write, the write, a closing answer) when ``solves(task, prompt)``, else apologises.
    Model-played customers (if any) end the conversation at once. Records every row's prompt and
    grammar."""

    name = "reference-player"
    model_id = "reference-player"

    def __init__(self, tasks, solves=lambda task, prompt: True):
        self.by_opening = {t.visible.instruction: t for t in tasks}
        self.solves = solves
        self.rows: list[tuple[list[dict], str | None]] = []

    def _reply(self, prompt) -> str:
        if prompt[0]["content"].startswith("You are a customer contacting"):
            return f"Thanks. {STOP}"
        task = self.by_opening[next(m["content"] for m in prompt if m["role"] == "user")]
        if not self.solves(task, prompt):
            return "I am sorry, I cannot help with that."
        dom = get_domain(task.domain)
        done = sum(1 for m in prompt if m["role"] == "tool" and not m["content"].startswith("<tool_response>\nError"))
        ref = task.hidden.reference_solution
        if done >= len(ref):
            return "Your request is complete."
        c = ref[done]
        asked = prompt[-1]["role"] == "user" and prompt[-2]["role"] == "assistant" \
            and not prompt[-2]["content"].startswith("<tool_call>")
        if c.name in dom.write_tools and not asked:
            return f"I can do this now ({c.name}). Do you confirm (yes/no)?"
        return "<tool_call>\n" + json.dumps({"name": c.name, "arguments": c.arguments}) + "\n</tool_call>"

    def generate(self, prompts, prefixes, sampling, grammars=None, **kw):
        grammars = grammars or [None] * len(prompts)
        self.rows.extend(zip(prompts, grammars))
        return [Generation(text=self._reply(p), prompt_tokens=1, completion_tokens=1) for p in prompts]


@pytest.mark.parametrize("mode", ["plan", "example"])
@pytest.mark.parametrize("user_sim", ["scripted", "model"])
def test_help_text_reaches_the_prompt_only(mode, user_sim):
    task = package("airline", "update_reservation_baggages")
    help_text = hint_text(task, AIRLINE, mode)
    be = ReferencePlayer([task])
    trajs = run_rollouts([task], be, lambda n: AIRLINE, RolloutConfig(k=2, max_turns=8, hints=mode, user_sim=user_sim))
    agent_rows = [p for p, _ in be.rows if not p[0]["content"].startswith("You are a customer contacting")]
    customer_rows = [p for p, _ in be.rows if p[0]["content"].startswith("You are a customer contacting")]
    assert agent_rows and all(p[0]["content"].endswith(help_text) for p in agent_rows)
    assert all(HINT_HEADER not in json.dumps(p) for p in customer_rows)  # the customer never sees it
    assert (len(customer_rows) > 0) == (user_sim == "model")
    for i, t in enumerate(trajs):
        assert t.hint_mode == mode and t.sampling["hints"] == mode
        assert t.trajectory_id == f"{task.task_id}-{mode}-s{i}"
        assert ("-plan-s" in t.trajectory_id) == (mode == "plan")
        assert HINT_HEADER not in json.dumps(t.messages) and help_text not in t.messages[0]["content"]
        assert t.messages[0]["content"] + help_text == agent_rows[0][0]["content"]
    if user_sim == "scripted":  # the played reference passes: a helped trajectory is kept like any other
        assert all(verify_trajectory(t, task, AIRLINE).passed for t in trajs)


def test_guided_rollout_grammars_follow_the_reference():
    task = package("airline", "update_reservation_baggages")
    be = ReferencePlayer([task])
    (t,) = run_rollouts([task], be, lambda n: AIRLINE, RolloutConfig(k=1, max_turns=8, hints="guided"))
    kinds = [gr.grammar_kind(g) for _, g in be.rows]
    assert kinds == ["call", "call", "text", "call", "text"] == [x["grammar"] for x in t.turns]
    offered = []
    for _, g in be.rows:
        fmt = json.loads(g)["format"]
        offered.append(sorted(e["begin"] for e in fmt.get("elements", [fmt]) if e["type"] == "tag"))
    names = [c.name for c in task.hidden.reference_solution]
    assert offered == [[gr.call_begin(names[0])], [gr.call_begin(names[1])], [], [gr.call_begin(names[2])], []]
    # guided: the plan text in every agent prompt too (generation only: never in the messages)
    assert all(p[0]["content"].endswith(plan_text(task, AIRLINE)) for p, _ in be.rows)
    assert all(HINT_HEADER not in (m.get("content") or "") for m in t.messages)
    assert t.hint_mode == "guided" and t.trajectory_id.endswith("-guided-s0")
    assert verify_trajectory(t, task, AIRLINE).passed


def test_config_rejects_guided_without_grammar_and_unknown_modes():
    with pytest.raises(ValueError, match="guided"):
        RolloutConfig(hints="guided", constrain="none")
    with pytest.raises(ValueError, match="hints must be one of"):
        RolloutConfig(hints="answers")
    RolloutConfig(hints="plan", constrain="none")  # text help needs no grammar
    assert RolloutConfig().hints == "none"


# ------------------------------------------------------------------ rollout_stage fallback
def test_fallback_reruns_only_tasks_without_a_pass():
    from pipeline.stages import rollout_stage, verify_trajectories_stage

    easy = package("airline", "cancel_reservation", index=0)
    hard = package("airline", "update_reservation_baggages", index=0)
    # the double solves `easy` unhelped, and `hard` only when the plan is in its prompt
    be = ReferencePlayer([easy, hard], solves=lambda t, p: t is easy or HINT_HEADER in p[0]["content"])
    res = rollout_stage([easy, hard], backend_obj=be, k=2, max_turns=8, hints="plan", hint_when="fallback")
    ids = [t.trajectory_id for t in res.trajectories]
    assert ids == [f"{easy.task_id}-s0", f"{easy.task_id}-s1", f"{hard.task_id}-s0", f"{hard.task_id}-s1",
                   f"{hard.task_id}-plan-s0", f"{hard.task_id}-plan-s1"]
    assert [t.hint_mode for t in res.trajectories] == ["none"] * 4 + ["plan"] * 2
    helped_prompts = [p for p, _ in be.rows if HINT_HEADER in p[0]["content"]]
    assert helped_prompts and all(p[1]["content"] == hard.visible.instruction for p in helped_prompts)
    verdicts = {v.trajectory_id: v.passed for v in verify_trajectories_stage(res.trajectories, [easy, hard])}
    assert verdicts == {ids[0]: True, ids[1]: True, ids[2]: False, ids[3]: False, ids[4]: True, ids[5]: True}
    assert all(HINT_HEADER not in json.dumps(t.messages) for t in res.trajectories)

    # every task passes unhelped: no second pass at all
    be2 = ReferencePlayer([easy, hard])
    res2 = rollout_stage([easy, hard], backend_obj=be2, k=1, max_turns=8, hints="plan", hint_when="fallback")
    assert [t.hint_mode for t in res2.trajectories] == ["none", "none"]
    assert not any(HINT_HEADER in p[0]["content"] for p, _ in be2.rows)
    # always: every task helped, in one pass
    be3 = ReferencePlayer([easy, hard], solves=lambda t, p: False)
    res3 = rollout_stage([easy, hard], backend_obj=be3, k=1, max_turns=4, hints="plan", hint_when="always")
    assert [t.trajectory_id for t in res3.trajectories] == [f"{easy.task_id}-plan-s0", f"{hard.task_id}-plan-s0"]
    with pytest.raises(ValueError, match="hint-when"):
        rollout_stage([easy], backend_obj=be3, hints="plan", hint_when="sometimes")


SHORT_POLICY = ("Airline agent rules: check the customer's user id with get_user_details before any change; "
                "change a reservation only for its owner and only after the customer says yes.")


@pytest.mark.slow
def test_fallback_with_the_real_teacher(teacher):
    """The real teacher (k=1, one turn, a short policy and four tools for CPU prefill): its
    unhelped episode cannot pass in one turn, so the task is rerun with the plan; the plan is in
    the prompt tokens the model saw, never in the trajectory."""
    from pipeline.stages import rollout_stage

    task = package("airline", "update_reservation_baggages")
    few = {"get_user_details", "get_reservation_details", "update_reservation_baggages", "transfer_to_human_agents"}
    vis = task.visible.model_copy(update={"policy": SHORT_POLICY,
                                          "tools": [t for t in task.visible.tools if t["function"]["name"] in few]})
    task = task.model_copy(update={"visible": vis})
    res = rollout_stage([task], backend_obj=teacher, k=1, max_turns=1, max_new_tokens=8, temperature=0.0,
                        hints="plan", hint_when="fallback")
    plain, helped = res.trajectories
    assert (plain.trajectory_id, helped.trajectory_id) == (f"{task.task_id}-s0", f"{task.task_id}-plan-s0")
    assert (plain.hint_mode, helped.hint_mode) == ("none", "plan")
    tok = teacher.tokenizer
    header = HINT_HEADER.strip()
    assert header not in tok.decode(plain.turns[0]["prompt_token_ids"])
    seen = tok.decode(helped.turns[0]["prompt_token_ids"])
    assert header in seen and "update_reservation_baggages" in seen.split(header, 1)[1]
    for t in (plain, helped):
        assert header not in json.dumps(t.messages) and t.turns[0]["grammar"] == "call"
