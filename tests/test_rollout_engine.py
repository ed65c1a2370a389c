"""The rollout engine with the real teacher (SmolLM2-135M on transformers, real tokens):
both user simulators in a multi-turn rollout, per-turn token ids / logprobs that match the text,
the chat-template tool format, and the OpenAI-compatible backend against a local HTTP server
that serves the same real model (with one injected 503 to prove the retry)."""
import json
import math
import threading
from http.server import BaseHTTPRequestHandler

import pytest

from pipeline.domains import get_domain
from pipeline.faults import FaultConfig
from pipeline.records import TaskHidden, TaskPackage, TaskVisible, ToolCall
from pipeline.rollout.backends.base import SamplingConfig
from pipeline.rollout.harness import RolloutConfig, run_rollouts
from pipeline.rollout.users import STOP, ModelUser, ScriptedUser, make_user, user_system_prompt
from tests.conftest import local_openai_server
from pipeline.sandbox import Sandbox

AIRLINE = get_domain("airline")
FINISH = {"agent_stop", "user_stop", "transfer", "turn_limit"}


SHORT_POLICY = ("Airline agent rules: check the customer's user id with get_user_details before any change; "
                "cancel a reservation only for its owner and only after the customer says yes.")
FEW_TOOLS = ("get_user_details", "get_reservation_details", "cancel_reservation", "transfer_to_human_agents")


def airline_task(kind: str = "cancel_reservation", seed: int = 3, short: bool = True) -> TaskPackage:
    """A real airline task from the domain generator. ``short``: a two-sentence policy and four
    tools in the agent's view (a ~300-token system prompt instead of ~2,300: CPU prefill time)."""
    gen = AIRLINE.generate_task(kind, seed)
    tools = [t for t in AIRLINE.tool_schemas() if not short or t["function"]["name"] in FEW_TOOLS]
    sb = Sandbox(AIRLINE, gen.initial_state)
    sb.run(gen.reference_solution)
    return TaskPackage(
        task_id=f"{kind}-{seed}", blueprint_id=f"bp-{kind}", domain="airline", seed=seed,
        visible=TaskVisible(instruction=gen.instruction, policy=SHORT_POLICY if short else AIRLINE.policy, tools=tools,
                            user_messages=list(gen.user_messages)),
        hidden=TaskHidden(initial_state=gen.initial_state,
                          reference_solution=[ToolCall(**c) for c in gen.reference_solution],
                          expected_state_hash=sb.state_hash(), verifier={"type": "state_hash"},
                          generation_notes={"secret_marker": "HIDDEN-NOTE-XYZ"}),
        task_kind=kind)


class Spy:
    """Wraps a real backend and records each batched call's prompts (to check batching)."""

    def __init__(self, inner):
        self.inner, self.calls = inner, []
        self.name, self.model_id = inner.name, inner.model_id

    def supports_tool_template(self):
        return self.inner.supports_tool_template()

    def generate(self, prompts, prefixes, sampling, grammars=None, **kw):
        self.calls.append([p[0]["content"][:40] for p in prompts])
        return self.inner.generate(prompts, prefixes, sampling, grammars=grammars, **kw)


def _check_turns(traj, tokenizer):
    """Per agent turn: ids and logprobs line up with completion_tokens and decode to the text."""
    assistant = [m for m in traj.messages if m["role"] == "assistant"]
    assert len(traj.turns) == traj.n_turns == len(assistant) > 0
    assert sum(t["completion_tokens"] for t in traj.turns) == traj.completion_tokens
    for turn, msg in zip(traj.turns, assistant):
        ids, lps = turn["completion_token_ids"], turn["logprobs"]
        assert len(ids) == len(lps) == turn["completion_tokens"] > 0
        assert all(lp <= 1e-6 and math.isfinite(lp) for lp in lps)
        text = tokenizer.decode(ids, skip_special_tokens=True)
        shown = msg["content"] if not msg.get("tool_calls") else None
        if shown is not None:  # plain text or an unparseable call: the message is the decoded ids
            assert shown == text
        else:  # a parsed call: its name was generated in this turn
            name = msg["tool_calls"][0]["function"]["name"]
            assert name in text
        # a grammar on every agent turn exactly when the rollout constrains them
        assert (turn["grammar"] is None) == (traj.sampling["constrain"] == "none"), turn["grammar"]
        assert len(turn["prompt_token_ids"]) == turn["prompt_tokens"]
        prompt = tokenizer.decode(turn["prompt_token_ids"])
        assert "customer service agent" in prompt and "HIDDEN-NOTE-XYZ" not in prompt
        # a turn's budget: at least the configured max_new_tokens, at most what fits the longest call
        mnt, budget = traj.sampling["max_new_tokens"], traj.sampling["turn_token_budget"]
        assert mnt <= turn["sampling"]["max_new_tokens"] <= max(mnt, budget) and "seed" in turn
        assert turn["completion_tokens"] <= turn["sampling"]["max_new_tokens"]


def test_user_simulators_read_only_the_visible_side():
    task = airline_task()
    s = make_user("scripted", task)
    assert isinstance(s, ScriptedUser) and s.opening() == task.visible.instruction
    replies = [s.reply("ok") for _ in range(len(task.visible.user_messages) + 1)]
    assert [r.text for r in replies[:-1]] == task.visible.user_messages and replies[-1].stop
    m = make_user("model", task)
    assert isinstance(m, ModelUser)
    sysp = user_system_prompt(task)
    assert task.visible.instruction in sysp and STOP in sysp and "HIDDEN-NOTE-XYZ" not in sysp
    msgs = [{"role": "system", "content": "policy"}, {"role": "user", "content": "hi"},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "type": "function",
                                                                   "function": {"name": "x", "arguments": "{}"}}]},
            {"role": "tool", "content": "secret tool output"}, {"role": "assistant", "content": "Done?"},
            {"role": "user", "content": "[format error] bad"}]
    p = m.prompt(msgs)  # roles flipped; no tool traffic, no harness notes, no agent system prompt
    assert [x["role"] for x in p] == ["system", "assistant", "user"] and "secret" not in json.dumps(p)
    assert m.parse(f"Thanks! {STOP}").stop and m.parse("   ").stop and not m.parse("My id is x").stop
    with pytest.raises(ValueError, match="unknown user simulator"):
        make_user("robot", task)


@pytest.mark.slow
@pytest.mark.parametrize("user_sim", ["scripted", "model"])
def test_multi_turn_rollout_real_model(teacher, user_sim):
    tasks = [airline_task("cancel_reservation", 3)]
    spy = Spy(teacher)
    cfg = RolloutConfig(k=2, max_turns=3, constrain="none", user_sim=user_sim,
                        sampling=SamplingConfig(max_new_tokens=12, temperature=0.8, seed=5))
    trajs = run_rollouts(tasks, spy, lambda n: AIRLINE, cfg)
    assert len(trajs) == 2 and all(t.finish_reason in FINISH for t in trajs)
    assert all(t.user_simulator == user_sim for t in trajs)
    for t in trajs:
        _check_turns(t, teacher.tokenizer)
    # every step is one batched call carrying every live episode
    assert spy.calls[0] == [spy.calls[0][0]] * 2
    user_rows = [r for c in spy.calls for r in c if r.startswith("You are a customer contacting")]
    if user_sim == "model":
        # the customer is played by the model, in the same batched calls as the agents
        assert user_rows, spy.calls
        assert any(len(set(c)) > 1 or c[0].startswith("You are a customer contacting") for c in spy.calls)
        assert sum(t.sampling["user_sim_completion_tokens"] for t in trajs) > 0
    else:
        assert not user_rows


@pytest.mark.slow
def test_chat_template_tool_format(teacher):
    tok = teacher.tokenizer
    assert not teacher.supports_tool_template()  # SmolLM2's template has no tools: hermes fallback
    tasks = [airline_task()]
    cfg = RolloutConfig(k=1, max_turns=1, tool_format="chat_template",
                        sampling=SamplingConfig(max_new_tokens=8, temperature=0.0))
    (t,) = run_rollouts(tasks, teacher, lambda n: AIRLINE, cfg)
    assert t.sampling["tool_format"] == "hermes" and t.sampling["tool_format_requested"] == "chat_template"
    # with a template that reads `tools`, the tools go through apply_chat_template
    saved = tok.chat_template
    try:
        tok.chat_template = ("{% if tools %}<|im_start|>system\nTOOLS:{{ tools | tojson }}<|im_end|>\n{% endif %}"
                             "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] or '' }}<|im_end|>\n"
                             "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
        assert teacher.supports_tool_template()
        text = teacher.render([{"role": "user", "content": "hi"}], None, tools=tasks[0].visible.tools)
        assert "TOOLS:" in text and '"cancel_reservation"' in text
        (t2,) = run_rollouts(tasks, teacher, lambda n: AIRLINE, cfg)
        assert t2.sampling["tool_format"] == "chat_template"
        assert "<tools>" not in t2.messages[0]["content"]  # the template, not the system prompt, holds the tools
        assert "TOOLS:" in tok.decode(t2.turns[0]["prompt_token_ids"])
    finally:
        tok.chat_template = saved


# ------------------------------------------------------------------ OpenAI-compatible backend
class _Handler(BaseHTTPRequestHandler):
    backend = None
    fail_first = 0
    seen = []
    served_tags = []  # per served completion: its structured_outputs.structural_tag (None: free)
    lock = threading.Lock()

    def log_message(self, *a):  # keep test output quiet
        pass

    def _send(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.lock:
            type(self).seen.append({"path": self.path, "auth": self.headers.get("Authorization")})
            fail = type(self).fail_first > 0
            type(self).fail_first -= 1
        if fail:
            return self._send(503, {"error": {"message": "overloaded, try again"}})
        if self.path != "/v1/chat/completions":
            return self._send(404, {"error": {"message": "not found"}})
        if body.get("model") != "smollm2":
            return self._send(400, {"error": {"message": f"unknown model {body.get('model')}"}})
        msgs, prefix = body["messages"], None
        if body.get("continue_final_message"):
            prefix, msgs = msgs[-1]["content"], msgs[:-1]
        # a vLLM server applies the structural tag of `structured_outputs` (the same XGrammar grammar)
        tag = (body.get("structured_outputs") or {}).get("structural_tag")
        with self.lock:
            type(self).served_tags.append(tag)
        g = self.backend.generate([msgs], [prefix], SamplingConfig(
            max_new_tokens=body["max_tokens"], temperature=body["temperature"], top_p=body["top_p"],
            seed=body["seed"]), grammars=[tag])[0]
        tok = self.backend.tokenizer
        self._send(200, {
            "id": "cmpl-1", "object": "chat.completion", "model": body["model"],
            "prompt_token_ids": g.prompt_token_ids,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": g.text},
                         "finish_reason": g.finish_reason, "token_ids": g.token_ids,
                         "logprobs": {"content": [{"token": tok.decode([i]), "logprob": lp}
                                                  for i, lp in zip(g.token_ids, g.logprobs)]}}],
            "usage": {"prompt_tokens": g.prompt_tokens, "completion_tokens": g.completion_tokens}})


@pytest.fixture
def openai_server(teacher):
    _Handler.backend, _Handler.fail_first, _Handler.seen, _Handler.served_tags = teacher, 1, [], []
    with local_openai_server(_Handler) as url:
        yield url


@pytest.mark.slow
def test_openai_backend_retries_and_records_tokens(openai_server, teacher, monkeypatch):
    from pipeline.rollout.backends import load_backend
    from pipeline.rollout.backends.openai_compat import OpenAICompatError

    monkeypatch.setenv("TRAJPIPE_TEST_KEY", "sk-test-123")
    be = load_backend("openai", "smollm2", base_url=openai_server, api_key_env="TRAJPIPE_TEST_KEY",
                      max_concurrency=2, backoff_s=0.01)
    try:
        cfg = RolloutConfig(k=2, max_turns=2, constrain="grammar",
                            faults=FaultConfig(rate=0.5, seed=1),
                            sampling=SamplingConfig(max_new_tokens=10, temperature=0.7, seed=2))
        trajs = run_rollouts([airline_task()], be, lambda n: AIRLINE, cfg)
        assert be.stats["retries"] >= 1  # the injected 503 was retried
        assert _Handler.seen[0]["auth"] == "Bearer sk-test-123"
        assert all(t.finish_reason in FINISH for t in trajs) and all(t.backend == "openai" for t in trajs)
        for t in trajs:
            _check_turns(t, teacher.tokenizer)
        # every agent turn reached the server with its structural tag (the grammar the harness chose)
        tags = list(_Handler.served_tags)
        assert len(tags) == sum(t.n_turns for t in trajs) and all(tags)
        assert all(json.loads(x)["type"] == "structural_tag" for x in tags)
        # a non-retryable 4xx fails at once, without retries
        bad = load_backend("openai", "no-such-model", base_url=openai_server, backoff_s=0.01)
        with pytest.raises(OpenAICompatError, match="HTTP 400"):
            bad.generate([[{"role": "user", "content": "hi"}]], [None], SamplingConfig(max_new_tokens=2))
        assert bad.stats == {"requests": 1, "retries": 0, "failures": 0}
        bad.close()
        # retries exhausted: a clear error
        _Handler.fail_first = 10
        few = load_backend("openai", "smollm2", base_url=openai_server, max_retries=2, backoff_s=0.01)
        with pytest.raises(OpenAICompatError, match="gave up after 3 attempts"):
            few.generate([[{"role": "user", "content": "hi"}]], [None], SamplingConfig(max_new_tokens=2))
        few.close()
    finally:
        _Handler.fail_first = 0
        be.close()
    with pytest.raises(ValueError, match="base-url"):
        load_backend("openai", "smollm2", base_url=None)


@pytest.mark.slow
def test_shared_prefix_attention_matches_standard_attention(teacher):
    """Rows attending to one batch-1 copy of the shared prefix (shared_prefix.py) give the same
    greedy tokens and logprobs as the standard per-row KV cache, padding and a grammar-constrained
    row included."""
    from pipeline.rollout.grammar import call_begin, turn_grammar
    from pipeline.rollout.prompting import system_prompt

    tasks = [airline_task("cancel_reservation", s) for s in (3, 4)]
    sysm = {"role": "system", "content": system_prompt(tasks[0].visible.policy, tasks[0].visible.tools)}
    prompts = [[sysm, {"role": "user", "content": t.visible.instruction}] for t in tasks]
    prompts.append(prompts[0] + [{"role": "assistant", "content": "Sure, one moment."},
                                 {"role": "user", "content": "Thanks, please go ahead."}])
    # row 1: the harness's first agent turn (a grounded tool call); rows 0 and 2 free
    grammars = [None, turn_grammar(tasks[1].visible.tools, "call", messages=prompts[1], grounded=True), None]
    samp = SamplingConfig(max_new_tokens=32, temperature=0.0)  # past the call opening: the tool name is chosen
    assert teacher.shared_prefix_attention
    shared = teacher.generate(prompts, [None] * 3, samp, grammars=grammars)
    try:
        teacher.shared_prefix_attention = False
        plain = teacher.generate(prompts, [None] * 3, samp, grammars=grammars)
    finally:
        teacher.shared_prefix_attention = True
    # the grammar held: the constrained row opens a call of one of the task's tools
    opens = [call_begin(t["function"]["name"]) for t in tasks[1].visible.tools]
    assert any(shared[1].text.startswith(o) for o in opens), shared[1].text
    for a, b in zip(shared, plain):
        assert a.token_ids == b.token_ids and a.text == b.text
        assert max(abs(x - y) for x, y in zip(a.logprobs, b.logprobs)) < 1e-3


@pytest.mark.slow
def test_row_cache_reuses_episode_kv_exactly(teacher):
    """A conversation's next turn reuses its cached K/V (only new messages are prefilled) and gives
    the same greedy tokens and logprobs as a cold prefill."""
    from pipeline.rollout.prompting import system_prompt

    tasks = [airline_task("cancel_reservation", s) for s in (3, 4)]
    sysm = {"role": "system", "content": system_prompt(tasks[0].visible.policy, tasks[0].visible.tools)}
    first = [[sysm, {"role": "user", "content": t.visible.instruction}] for t in tasks]
    samp = SamplingConfig(max_new_tokens=6, temperature=0.0)
    teacher.clear_row_cache()
    g1 = teacher.generate(first, [None, None], samp)
    assert len(teacher._rows) == 2
    second = [p + [{"role": "assistant", "content": g.text}, {"role": "user", "content": "Yes, please."}]
              for p, g in zip(first, g1)]
    full = [teacher.tokenizer(teacher.render(p, None), add_special_tokens=False)["input_ids"] for p in second]
    n = teacher._first_message_end(full[0])
    hits = teacher._row_hits((n, hash(tuple(full[0][:n]))), [f[n:] for f in full])
    assert all(h >= len(teacher.tokenizer(t.visible.instruction)["input_ids"]) for t, (h, _) in zip(tasks, hits))
    warm = teacher.generate(second, [None, None], samp)
    teacher.clear_row_cache()
    saved, teacher.row_cache_entries = teacher.row_cache_entries, 0
    try:
        cold = teacher.generate(second, [None, None], samp)
    finally:
        teacher.row_cache_entries = saved
    for a, b in zip(warm, cold):
        assert a.token_ids == b.token_ids and a.prompt_token_ids == b.prompt_token_ids
        assert max(abs(x - y) for x, y in zip(a.logprobs, b.logprobs)) < 1e-3
