"""Harness unit tests (a scripted backend double) and a real-model generation test."""
import json

import pytest

from pipeline.domains.base import Domain, Tool, ToolError
from pipeline.records import TaskHidden, TaskPackage, TaskVisible, ToolCall, stable_hash
from pipeline.rollout import grammar as gr
from pipeline.rollout.backends.base import Generation, SamplingConfig
from pipeline.rollout.harness import RolloutConfig, run_rollouts
from pipeline.rollout.prompting import parse_tool_calls, render_for_model
from pipeline.verify import verify_trajectory


def _set_flag(state, key: str):
    if key not in state["flags"]:
        raise ToolError("no such flag")
    state["flags"][key] = True
    return json.dumps(state["flags"])


class TinyDomain(Domain):
    """A minimal domain: one write tool; every other member is the contract's default."""
    name = "tiny"
    policy = "be nice"
    tools = {"set_flag": Tool(_set_flag, {"type": "function", "function": {
        "name": "set_flag", "description": "set a flag",
        "parameters": {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"],
                       "additionalProperties": False}}}, writes=True)}
    write_tools = {"set_flag"}
    read_tools: set[str] = set()


SET_A = '<tool_call>\n{"name": "set_flag", "arguments": {"key": "a"}}\n</tool_call>'


def kinds(grammars, n):
    """The turn kind of each row's grammar (None: a free row)."""
    return [gr.grammar_kind(g) if g else None for g in (grammars or [None] * n)]


def tiny_task():
    init = {"flags": {"a": False}}
    return TaskPackage(task_id="t1", blueprint_id="b1", domain="tiny", seed=0,
                       visible=TaskVisible(instruction="set flag a", policy="be nice",
                                           tools=[TinyDomain.tools["set_flag"].schema], user_messages=["thanks"]),
                       hidden=TaskHidden(initial_state=init, reference_solution=[ToolCall(name="set_flag", arguments={"key": "a"})],
                                         expected_state_hash=stable_hash({"flags": {"a": True}}), verifier={}))


class ScriptedBackend:
    """Test double: returns canned completions in order, one list per batch call; records per call
    the batch size and each row's grammar kind (None: no grammar)."""
    name = "scripted"
    model_id = "scripted"

    def __init__(self, script):
        self.script = list(script)
        self.calls = []

    def generate(self, prompts, prefixes, sampling, grammars=None, **kw):
        assert prefixes == [None] * len(prompts)  # nothing is forced any more: the grammar constrains
        self.calls.append((len(prompts), kinds(grammars, len(prompts))))
        outs = self.script.pop(0)
        return [Generation(text=o, prompt_tokens=10, completion_tokens=5) for o in outs]


def test_parse_tool_calls_variants():
    p = parse_tool_calls('<tool_call>\n{"name": "x", "arguments": {"a": 1}}\n</tool_call>')
    assert p.calls == [("x", {"a": 1})] and not p.errors
    p = parse_tool_calls('<tool_call>[{"name": "x", "arguments": "{\\"a\\": 2}"}]</tool_call> ok')
    assert p.calls == [("x", {"a": 2})] and p.text == "ok"
    p = parse_tool_calls('<tool_call>{"name": "x", "argu')
    assert not p.calls and p.errors and p.had_tag
    assert parse_tool_calls("plain answer").calls == []


def test_render_for_model_keeps_calls_and_results():
    msgs = [{"role": "assistant", "content": None, "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "f", "arguments": '{"k": 1}'}}]},
        {"role": "tool", "tool_call_id": "c", "content": "res"}]
    r = render_for_model(msgs)
    assert "<tool_call>" in r[0]["content"] and '"k": 1' in r[0]["content"]
    assert r[1]["content"].startswith("<tool_response>")


def test_harness_batches_episodes_and_verifies():
    # two episodes (k=2) advance together: each backend call carries both prompts
    be = ScriptedBackend([
        [SET_A, '<tool_call>\n{"name": "set_flag", "arguments": {"key": "zzz"}}</tool_call>'],
        ["Done, flag a is set.", "Sorry."],
        ["You're welcome.", "Bye."],
    ])
    trajs = run_rollouts([tiny_task()], be, lambda name: TinyDomain(), RolloutConfig(k=2, max_turns=5))
    assert [c[0] for c in be.calls] == [2, 2, 2]
    assert be.calls[0][1] == ["call", "call"]  # a call turn after the customer's opening
    # after a successful call the turn is free (text or a call); the failed episode must still call
    assert be.calls[1][1] == ["any", "call"]
    good, bad = trajs
    assert good.finish_reason == "agent_stop" and bad.finish_reason == "agent_stop"
    assert good.tool_calls[0]["error"] is None and bad.tool_calls[0]["error"] == "TOOL_ERROR"
    roles = [m["role"] for m in good.messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "user", "assistant"]
    task = tiny_task()
    assert verify_trajectory(good, task, TinyDomain()).passed
    v = verify_trajectory(bad, task, TinyDomain())
    assert not v.passed and "TRAJ_WRONG_FINAL_STATE" in v.reason_codes


def test_harness_answers_unparseable_output_and_hits_turn_limit():
    # what a truncated turn (the token budget ran out inside the call) or a free backend can produce
    be = ScriptedBackend([['<tool_call>\n{"name": "oops not json'], ['<tool_call>{"name": 5}</tool_call>']])
    (t,) = run_rollouts([tiny_task()], be, lambda n: TinyDomain(), RolloutConfig(k=1, max_turns=2))
    assert t.finish_reason == "turn_limit"
    assert t.messages[3]["role"] == "user" and t.messages[3]["content"].startswith("[format error]")
    assert [c[1] for c in be.calls] == [["call"], ["call"]]  # no successful call yet: still a call turn
    v = verify_trajectory(t, tiny_task(), TinyDomain())
    assert {"TRAJ_TURN_LIMIT", "TRAJ_UNPARSEABLE_CALL", "TRAJ_NO_TOOL_CALL"} <= set(v.reason_codes)


def test_backend_exception_ends_episodes_with_error():
    class Boom(ScriptedBackend):
        def generate(self, *a, **kw):
            raise RuntimeError("engine died")
    (t,) = run_rollouts([tiny_task()], Boom([]), lambda n: TinyDomain(), RolloutConfig(k=1))
    assert t.finish_reason == "error"
    assert "TRAJ_ERROR" in verify_trajectory(t, tiny_task(), TinyDomain()).reason_codes


def test_free_turn_budget_is_capped():
    """Without the grammar nothing but a stop string ends a turn: its budget is the call-sized
    budget capped at FREE_TURN_FACTOR x max_new_tokens (airline's book_reservation alone would
    allow thousands of tokens); with the grammar a call turn keeps the full call-sized budget."""
    from pipeline.domains import get_domain
    from pipeline.rollout.harness import FREE_TURN_FACTOR

    seen = []

    class Budget(ScriptedBackend):
        def generate(self, prompts, prefixes, sampling, grammars=None, **kw):
            seen.append(sampling.max_new_tokens)
            return super().generate(prompts, prefixes, sampling, grammars, **kw)

    airline_tools = get_domain("airline").tool_schemas()
    task = tiny_task().model_copy(deep=True)
    task.visible.tools = airline_tools + task.visible.tools
    big = gr.turn_token_budget(task.visible.tools, 16)
    assert big > FREE_TURN_FACTOR * 16
    for constrain, want in (("none", FREE_TURN_FACTOR * 16), ("grammar", big)):
        seen.clear()
        run_rollouts([task], Budget([["Sorry."]]), lambda n: TinyDomain(),
                     RolloutConfig(k=1, max_turns=1, constrain=constrain,
                                   sampling=SamplingConfig(max_new_tokens=16, temperature=0.0)))
        assert seen == [want], (constrain, seen)


def test_a_full_context_window_ends_only_its_own_episode():
    """A row whose prompt fills the model's context window (CONTEXT_FULL from the backend) ends
    that episode alone (finish_reason "context_full", an abnormal end for the verifier); the other
    episodes of the batch go on."""
    from pipeline.rollout.backends.base import CONTEXT_FULL

    class Full(ScriptedBackend):
        def generate(self, prompts, prefixes, sampling, grammars=None, **kw):
            gens = super().generate(prompts, prefixes, sampling, grammars, **kw)
            if len(self.calls) == 1:
                gens[1] = Generation(text="", prompt_tokens=8192, completion_tokens=0, finish_reason=CONTEXT_FULL)
            return gens

    be = Full([[SET_A, SET_A], ["Done, flag a is set."], ["You're welcome."]])
    good, full = run_rollouts([tiny_task()], be, lambda n: TinyDomain(), RolloutConfig(k=2, max_turns=5))
    assert [c[0] for c in be.calls] == [2, 1, 1]
    assert good.finish_reason == "agent_stop" and verify_trajectory(good, tiny_task(), TinyDomain()).passed
    assert full.finish_reason == "context_full" and full.n_turns == 0 and not full.tool_calls
    assert "TRAJ_ABNORMAL_END" in verify_trajectory(full, tiny_task(), TinyDomain()).reason_codes


@pytest.mark.slow
def test_real_teacher_generates_tokens(teacher):
    prompts = [[{"role": "user", "content": "Name a colour."}], [{"role": "user", "content": "Count to three."}]]
    forced = '<tool_call>\n{"name": "'  # a prefix forced at the start of the turn (backends still take one)
    gens = teacher.generate(prompts, [None, forced], SamplingConfig(max_new_tokens=12, temperature=0.0))
    assert len(gens) == 2
    for g in gens:
        assert 0 < g.completion_tokens <= 13 and g.prompt_tokens > 5 and g.text.strip()
    # greedy decoding is deterministic
    again = teacher.generate(prompts[:1], [None], SamplingConfig(max_new_tokens=12, temperature=0.0))
    assert again[0].text == gens[0].text


@pytest.mark.slow
def test_real_teacher_tool_name_constraint(teacher):
    """A "call" grammar restricted to three tools: every row opens a call of one of them (even on
    prompts that have nothing to do with tools); unconstrained, the same prompts do not."""
    from pipeline.domains import get_domain

    names = ["cancel_reservation", "get_user_details", "book_reservation"]
    tools = [t for t in get_domain("airline").tool_schemas() if t["function"]["name"] in names]
    openings = [gr.call_begin(n) for n in names]
    grammar = gr.turn_grammar(tools, "call", only=names)
    # enough tokens for the longest opening (up to the arguments) however the masked sampling splits
    # it (a token is at least one character)
    n = max(len(o) for o in openings) + 2
    prompts = [[{"role": "user", "content": f"Tell me a story about {w}."}] for w in ("cats", "ships", "rain", "bread")]
    gens = teacher.generate(prompts, [None] * 4, SamplingConfig(max_new_tokens=n, temperature=1.0, seed=3),
                            grammars=[grammar] * 4)
    for g in gens:
        assert any(g.text.startswith(c) for c in openings), g.text
    # unconstrained, the same prompts do not all open a call of a known tool
    free = teacher.generate(prompts, [None] * 4, SamplingConfig(max_new_tokens=n, temperature=1.0, seed=3))
    assert not all(any(g.text.startswith(c) for c in openings) for g in free)


def test_harness_records_turns_user_sim_and_fault_fields():
    be = ScriptedBackend([[SET_A], ["Done."], ["Bye."]])
    (t,) = run_rollouts([tiny_task()], be, lambda n: TinyDomain(), RolloutConfig(k=1, max_turns=5))
    assert t.user_simulator == "scripted" and t.faults == [] and t.recovery is False
    assert [x["turn"] for x in t.turns] == [0, 1, 2] and t.turns[0]["grammar"] == "call"
    assert [x["grammar"] for x in t.turns[1:]] == ["any", "any"]
    assert all("sampling" in x and "seed" in x and "prefix" not in x for x in t.turns)
    assert t.sampling["tool_format"] == "hermes" and t.sampling["constrain"] == "grammar"
    assert t.hint_mode == "none" and t.trajectory_id == "t1-s0"
    # without the grammar, no turn is constrained and the backend gets no grammars at all
    free = ScriptedBackend([[SET_A], ["Done."], ["Bye."]])
    (u,) = run_rollouts([tiny_task()], free, lambda n: TinyDomain(), RolloutConfig(k=1, max_turns=5, constrain="none"))
    assert [x["grammar"] for x in u.turns] == [None, None, None] and u.sampling["constrain"] == "none"
    assert [c[1] for c in free.calls] == [[None]] * 3 and u.messages == t.messages


def test_model_user_turns_share_the_batched_call():
    """A model-played customer's request rides in the same generate call as other agents'."""
    from pipeline.rollout.users import STOP

    class Routing(ScriptedBackend):
        def generate(self, prompts, prefixes, sampling, grammars=None, **kw):
            self.calls.append([p[0]["content"][:30] for p in prompts])
            out = []
            for p, kind in zip(prompts, kinds(grammars, len(prompts))):
                if p[0]["content"].startswith("You are a customer contacting"):
                    assert kind is None  # the customer's turns are never constrained
                    n_agent = sum(1 for m in p if m["role"] == "user")
                    out.append("Yes, go ahead." if n_agent == 1 else f"Thanks! {STOP}")
                elif kind == "call":
                    out.append('<tool_call>\n{"name": "set_flag", "arguments": {"key": "a"}}</tool_call>')
                else:
                    out.append("Shall I confirm?")
            return [Generation(text=o, prompt_tokens=3, completion_tokens=2) for o in out]

    be = Routing([])
    trajs = run_rollouts([tiny_task()], be, lambda n: TinyDomain(), RolloutConfig(k=2, max_turns=6, user_sim="model"))
    assert all(t.finish_reason == "user_stop" and t.user_simulator == "model" for t in trajs)
    roles = [m["role"] for m in trajs[0].messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "user", "assistant", "user"]
    assert trajs[0].messages[-1]["content"] == "Thanks!"
    assert trajs[0].sampling["user_sim_completion_tokens"] == 4
    # every call holds every live episode (2), customer turns included
    assert all(len(c) == 2 for c in be.calls)


def test_transfer_ends_episode():
    task = tiny_task()
    transfer = {"type": "function", "function": {"name": "transfer_to_human_agents", "description": "hand over",
                                                 "parameters": {"type": "object", "properties": {
                                                     "summary": {"type": "string"}}, "required": ["summary"]}}}

    class D(TinyDomain):
        tools = {**TinyDomain.tools, "transfer_to_human_agents": Tool(lambda s, summary: "Transfer successful", transfer)}

    task.visible.tools.append(transfer)
    be = ScriptedBackend([['<tool_call>\n{"name": "transfer_to_human_agents", "arguments": {"summary": "x"}}</tool_call>']])
    (t,) = run_rollouts([task], be, lambda n: D(), RolloutConfig(k=1))
    assert t.finish_reason == "transfer" and t.n_turns == 1


def test_rollout_options_rejected_with_clear_errors():
    from typer.testing import CliRunner

    from pipeline.cli import app

    r = CliRunner()
    for args, msg in ((["--user-sim", "robot"], "--user-sim"), (["--fault-kinds", "explode"], "unknown fault kind"),
                      (["--fault-rate", "2"], "--fault-rate"), (["--backend", "openai"], "--base-url"),
                      (["--tool-format", "xml"], "--tool-format"), (["--backend", "tgi"], "'tgi' is not one of")):
        res = r.invoke(app, ["rollout", "--work", "/nonexistent-work", *args])
        assert res.exit_code == 2 and msg in res.output, (args, res.output)
    with pytest.raises(ValueError, match="tool format"):
        RolloutConfig(tool_format="xml")
    with pytest.raises(ValueError, match="constrain must be one of grammar, none"):
        RolloutConfig(constrain="prefix")  # the forced-prefix constraint is gone


def test_vllm_backend_import_guard_and_logprob_extraction():
    import importlib.util

    from pipeline.rollout.backends.vllm_backend import sampled_logprobs

    class LP:
        def __init__(self, v):
            self.logprob = v
    assert sampled_logprobs([5, 7], [{5: LP(-0.5), 1: LP(-2.0)}, {7: LP(-1.25)}]) == [-0.5, -1.25]
    assert sampled_logprobs([5], None) == []
    if importlib.util.find_spec("vllm") is None:  # not installed here: a clear ImportError
        from pipeline.rollout.backends import load_backend
        with pytest.raises(ImportError, match="pip install vllm"):
            load_backend("vllm", None)
