"""The agent harness: runs a teacher through task packages, k episodes per task, batched.

All live episodes advance together: each step, the generation requests of every live episode,
agent turns and model-played customer turns alike, go to the backend as one batched
``generate`` call; tool execution (and scripted customer replies) happen between batches.

Each episode has a user simulator (:mod:`pipeline.rollout.users`): ``scripted`` replays the
task's customer turns, ``model`` has a backend play the customer. Episodes end on the customer's
stop signal (``user_stop``; ``agent_stop`` when a scripted customer has nothing more to say
after the agent's text answer), a successful call of one of the domain's ``terminate_tools`` (the
hand-off to a human agent: ``transfer``),
the turn limit (``turn_limit``) or a backend exception (``error``).

Only the agent-visible part of a task package (instruction, policy, tool schemas, customer turns)
reaches the agent's prompt; the hidden part stays in the sandbox and the verifier. Each agent turn
is recorded in ``Trajectory.turns`` with the exact prompt and completion token ids, the engine's
per-token logprobs, the sampling parameters and seed, for RL trainers.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from pipeline.faults import FaultConfig, FaultInjector
from pipeline.records import TaskPackage, Trajectory, stable_hash
from pipeline.rollout.backends.base import CONTEXT_FULL, Backend, Generation, SamplingConfig
from pipeline.rollout import grammar as gr
from pipeline.rollout.hints import HINT_MODES, guided_turn, hint_text
from pipeline.rollout.prompting import (clean_unicode, parse_tool_calls, wrap_bare_calls, render_for_model, system_prompt,
                                        system_prompt_native)
from pipeline.rollout.users import HARNESS_NOTE_MARK, make_user
from pipeline.sandbox import Sandbox

FORMAT_ERROR_NOTE = (HARNESS_NOTE_MARK + " {error}. Reply with one valid <tool_call>{{\"name\": ..., "
                     "\"arguments\": {{...}}}}</tool_call> or answer the customer in plain text.")
TOOL_FORMATS = ("hermes", "chat_template")
CONSTRAIN_MODES = ("grammar", "none")


from pipeline.config import RolloutSection as _RolloutSection  # noqa: E402

_DEFAULTS = _RolloutSection()


@dataclass
class RolloutConfig:
    """Harness settings.

    ``k`` episodes per task; ``max_turns`` agent turns per episode (a turn = one generation);
    ``constrain``: ``"grammar"`` (default) constrains every agent turn with an XGrammar structural
    tag (:mod:`pipeline.rollout.grammar`): free text or one tool call whose name is one of the
    task's tools and whose arguments match its JSON schema exactly; until the episode's first
    successful tool call the turn must be a call (the customer's opening asks for action).
    ``"none"`` leaves generation free (the harness still parses and the verifier still checks).
    ``grounded``: with the grammar, identifier-typed arguments may only take identifiers the agent
    has seen (grounded decoding). ``hints``: help mode for every episode of this call
    (:mod:`pipeline.rollout.hints`; ``none`` | ``plan`` | ``example`` | ``guided``; guided needs the
    grammar); the help reaches the prompt or the grammar only, never ``Trajectory.messages``.
    A turn's token budget is at least ``sampling.max_new_tokens`` and fits the longest valid call
    of the tools its grammar admits (all the task's tools without a grammar;
    :func:`pipeline.rollout.grammar.turn_token_budget`); text is bounded by
    ``sampling.max_new_tokens`` through the grammar.
    ``user_sim``: ``scripted`` | ``model``.
    ``tool_format``: ``hermes`` (tools in the system prompt, ``<tool_call>`` JSON) or
    ``chat_template`` (tools passed to the model's own chat template when it renders them; falls
    back to hermes otherwise, recorded in ``Trajectory.sampling["tool_format"]``). ``faults``:
    fault injection (:class:`pipeline.faults.FaultConfig`); ``failure_modes``: blueprint id ->
    that blueprint's ``failure_modes`` (the fault kinds seen in the logs come first).
    ``record_tokens``: keep per-turn token ids and logprobs in ``Trajectory.turns``.
    """

    # defaults: the one definition in pipeline.config.RolloutSection (hints: this call's mode, none
    # unless the stage asks; the stage resolves --hints / --hint-when)
    k: int = _DEFAULTS.k
    max_turns: int = _DEFAULTS.max_turns
    constrain: str = _DEFAULTS.constrain
    grounded: bool = _DEFAULTS.grounded
    hints: str = "none"
    prompt_style: str = _DEFAULTS.prompt_style
    sampling: SamplingConfig = field(default_factory=SamplingConfig)
    user_sim: str = _DEFAULTS.user_sim
    tool_format: str = _DEFAULTS.tool_format
    faults: FaultConfig | None = None
    failure_modes: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    record_tokens: bool = True

    def __post_init__(self) -> None:
        if self.tool_format not in TOOL_FORMATS:
            raise ValueError(f"unknown tool format {self.tool_format!r}; choose one of {', '.join(TOOL_FORMATS)}")
        if self.constrain not in CONSTRAIN_MODES:
            raise ValueError(f"constrain must be one of {', '.join(CONSTRAIN_MODES)}, not {self.constrain!r}")
        if self.hints not in HINT_MODES:
            raise ValueError(f"hints must be one of {', '.join(HINT_MODES)}, not {self.hints!r}")
        if self.hints == "guided" and self.constrain != "grammar":
            raise ValueError("hints='guided' works through the grammar: use constrain='grammar'")


@dataclass
class _Episode:
    task: TaskPackage
    sample_index: int
    sandbox: Sandbox
    messages: list[dict[str, Any]]
    user: Any
    seed: int
    injector: FaultInjector | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    turns: list[dict[str, Any]] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    user_tokens: int = 0
    n_turns: int = 0
    done: bool = False
    finish_reason: str = ""
    awaiting: str = "agent"  # "agent" | "user" (a model-played customer's reply is due)
    domain: Any = None
    hint: str | None = None  # help text for the prompt (plan / example); never in ``messages``
    budget: int = 0  # max new tokens of an agent turn


def _start(task: TaskPackage, i: int, domain: Any, cfg: RolloutConfig, native: bool) -> _Episode:
    vis = task.visible
    sysp = system_prompt_native(vis.policy) if native else system_prompt(vis.policy, vis.tools, cfg.prompt_style)
    user = make_user(cfg.user_sim, task)
    msgs = [{"role": "system", "content": sysp}, {"role": "user", "content": user.opening()}]
    seed = cfg.sampling.seed * 1_000_003 + int(stable_hash([task.task_id, i], 8), 16) % 1_000_000
    injector = None
    if cfg.faults is not None and cfg.faults.enabled:
        injector = FaultInjector(cfg.faults, seed, list(cfg.failure_modes.get(task.blueprint_id, [])))
    ep = _Episode(task, i, Sandbox(domain, task.hidden.initial_state, faults=injector), msgs, user, seed, injector)
    ep.domain = domain
    ep.hint = hint_text(task, domain, cfg.hints)
    ep.budget = gr.turn_token_budget(vis.tools, cfg.sampling.max_new_tokens)
    return ep


def _agent_prompt(ep: _Episode, native: bool) -> list[dict[str, Any]]:
    """The agent's prompt: the episode's messages, with the help text (if any) appended to the
    system prompt for this generation only."""
    msgs = ep.messages
    if ep.hint:
        msgs = [{**msgs[0], "content": msgs[0]["content"] + ep.hint}] + msgs[1:]
    return msgs if native else render_for_model(msgs)


#: a free (``constrain="none"``) turn gets at most this many times ``max_new_tokens`` (256 by
#: default: a four-argument write is about 100 tokens)
FREE_TURN_FACTOR = 4


def _agent_grammar(ep: _Episode, cfg: RolloutConfig) -> tuple[str | None, int]:
    """The structural tag of the episode's next agent turn (None without the grammar) and the
    turn's token budget (text: ``max_new_tokens``; a call: the longest call of the admitted
    tools)."""
    tools = ep.task.visible.tools
    floor = cfg.sampling.max_new_tokens
    if cfg.constrain != "grammar":
        # nothing but a stop string ends a free turn: the call-sized budget (up to thousands of
        # tokens for many-string tools) is capped so a rambling free turn cannot run that long
        return None, min(ep.budget, FREE_TURN_FACTOR * floor)
    if cfg.hints == "guided":
        kind, only = guided_turn(ep.task, ep.domain, ep.tool_calls, ep.messages)
    else:
        acted = any(tc.get("name") and tc.get("error") is None for tc in ep.tool_calls)
        kind, only = ("any" if acted else "call"), None
    admitted = [t for t in tools if only is None or t.get("function", t)["name"] in only]
    budget = floor if kind == "text" else gr.turn_token_budget(admitted, floor)
    return gr.turn_grammar(tools, kind, only, ep.messages, grounded=cfg.grounded, text_tokens=floor), budget


def _customer_says(ep: _Episode, text: str | None, stop: bool, stop_reason: str) -> None:
    if text:
        ep.messages.append({"role": "user", "content": text})
    if stop:
        ep.done, ep.finish_reason = True, stop_reason


def _step(ep: _Episode, text: str, cfg: RolloutConfig) -> None:
    """Apply one generated assistant turn to an episode: parse, execute tools, advance the user."""
    text = clean_unicode(text)  # a lone surrogate from a server must not crash a later stage
    if cfg.tool_format == "chat_template":
        text = wrap_bare_calls(text)  # templates that emit bare JSON calls (Llama 3.x), as the reward reads them
    parsed = parse_tool_calls(text)
    turn = ep.n_turns
    if parsed.calls:
        tool_calls = []
        for j, (name, args) in enumerate(parsed.calls):
            tool_calls.append({"id": f"call_{turn}_{j}", "type": "function",
                               "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)}})
        ep.messages.append({"role": "assistant", "content": parsed.text or None, "tool_calls": tool_calls})
        if ep.injector is not None:
            ep.injector.step = turn
        for tc, (name, args) in zip(tool_calls, parsed.calls):
            res = ep.sandbox.call(name, args)
            ep.tool_calls.append({"step": turn, "name": name, "arguments": json.dumps(args, ensure_ascii=False),
                                  "valid_json": True, "error": res.error_code, "fault": res.fault})
            ep.messages.append({"role": "tool", "tool_call_id": tc["id"], "name": name, "content": res.content})
            if name in ep.domain.terminate_tools and res.ok:
                ep.done, ep.finish_reason = True, "transfer"
        for err in parsed.errors:  # extra malformed blocks beside valid ones
            ep.tool_calls.append({"step": turn, "name": None, "arguments": None, "valid_json": False, "error": err})
        return
    if parsed.had_tag or parsed.errors:
        err = parsed.errors[0] if parsed.errors else "empty tool call"
        ep.tool_calls.append({"step": turn, "name": None, "arguments": None, "valid_json": False, "error": err})
        ep.messages.append({"role": "assistant", "content": text})
        # answered, never left hanging: the harness tells the agent what was wrong
        ep.messages.append({"role": "user", "content": FORMAT_ERROR_NOTE.format(error=err)})
        return
    ep.messages.append({"role": "assistant", "content": text})
    if ep.user.needs_model:
        ep.awaiting = "user"
        return
    r = ep.user.reply(text)
    _customer_says(ep, r.text, r.stop, "agent_stop")


def _turn_record(g: Generation, turn: int, grammar: str | None, seed: int, row: int, sampling: SamplingConfig,
                 keep: bool) -> dict[str, Any]:
    kind = gr.grammar_kind(grammar) if grammar else None
    rec: dict[str, Any] = {"turn": turn, "grammar": kind, "finish": g.finish_reason, "seed": seed, "row": row,
                           "sampling": sampling.as_dict(), "prompt_tokens": g.prompt_tokens,
                           "completion_tokens": g.completion_tokens}
    if keep:
        rec.update(prompt_token_ids=list(g.prompt_token_ids), completion_token_ids=list(g.token_ids),
                   logprobs=[round(float(x), 6) for x in g.logprobs])
    return rec


def _native_ok(backend: Any, cfg: RolloutConfig) -> bool:
    if cfg.tool_format != "chat_template":
        return False
    fn = getattr(backend, "supports_tool_template", None)
    return bool(fn and fn())


def run_rollouts(tasks: Iterable[TaskPackage], backend: Backend, domain_for: Callable[[str], Any],
                 cfg: RolloutConfig | None = None,
                 progress: Callable[[int, int], None] | None = None) -> list[Trajectory]:
    """Run ``cfg.k`` episodes of ``backend`` on each task; returns one Trajectory per episode.

    ``domain_for(name)`` returns the domain object for a task's ``domain``. ``progress(done,
    total)`` is called after every batched step. One ``backend.generate`` call per step carries
    every live episode's request (agent turns and model-user turns). A backend exception ends
    the live episodes with ``error`` (recorded in the last message, never silent).
    """
    cfg = cfg or RolloutConfig()
    native = _native_ok(backend, cfg)
    episodes = [_start(t, i, domain_for(t.domain), cfg, native) for t in tasks for i in range(cfg.k)]
    total = len(episodes)
    step = 0
    while True:
        for e in episodes:  # the turn limit applies when the agent is due
            if not e.done and e.awaiting == "agent" and e.n_turns >= cfg.max_turns:
                e.done, e.finish_reason = True, "turn_limit"
        live = [e for e in episodes if not e.done]
        if not live:
            break
        prompts: list[list[dict[str, Any]]] = []
        grammars: list[str | None] = []
        tools: list[list[dict[str, Any]] | None] = []
        budget = cfg.sampling.max_new_tokens
        for e in live:
            if e.awaiting == "user":
                prompts.append(e.user.prompt(e.messages))
                grammars.append(None)
                tools.append(None)
                continue
            prompts.append(_agent_prompt(e, native))
            gram, turn_budget = _agent_grammar(e, cfg)
            grammars.append(gram)
            tools.append(e.task.visible.tools if native else None)
            budget = max(budget, turn_budget)
        call_seed = cfg.sampling.seed * 7919 + step
        sampling = SamplingConfig(**{**cfg.sampling.as_dict(), "seed": call_seed, "max_new_tokens": budget})
        kwargs: dict[str, Any] = {"tools": tools} if native else {}
        if any(grammars):
            kwargs["grammars"] = grammars
        try:
            gens = backend.generate(prompts, [None] * len(prompts), sampling, **kwargs)
        except Exception as exc:  # noqa: BLE001 - recorded per episode, never silent
            for e in live:
                e.done, e.finish_reason = True, "error"
                e.messages.append({"role": "assistant", "content": None, "error": f"{type(exc).__name__}: {exc}"})
            break
        for row, (e, g, gram) in enumerate(zip(live, gens, grammars)):
            if e.awaiting == "user":
                e.user_tokens += g.completion_tokens
                r = e.user.parse(clean_unicode(g.text))  # the model-played customer's text too
                e.awaiting = "agent"
                _customer_says(e, r.text, r.stop, "user_stop")
                continue
            if g.finish_reason == CONTEXT_FULL:  # the prompt fills the context window: this episode ends
                e.done, e.finish_reason = True, CONTEXT_FULL
                continue
            e.prompt_tokens += g.prompt_tokens
            e.completion_tokens += g.completion_tokens
            e.turns.append(_turn_record(g, e.n_turns, gram, call_seed, row, sampling, cfg.record_tokens))
            _step(e, g.text, cfg)
            e.n_turns += 1
        step += 1
        if progress:
            progress(sum(e.done for e in episodes), total)
    out = []
    fmt = "chat_template" if native else "hermes"
    for e in episodes:
        if not e.done:
            e.done, e.finish_reason = True, "turn_limit"
        out.append(Trajectory(
            trajectory_id=(f"{e.task.task_id}-s{e.sample_index}" if cfg.hints == "none"
                           else f"{e.task.task_id}-{cfg.hints}-s{e.sample_index}"),
            task_id=e.task.task_id, blueprint_id=e.task.blueprint_id, sample_index=e.sample_index,
            model=getattr(backend, "model_id", "unknown"), backend=getattr(backend, "name", "unknown"),
            messages=e.messages, tools=e.task.visible.tools, tool_calls=e.tool_calls,
            final_state_hash=e.sandbox.state_hash(), finish_reason=e.finish_reason, n_turns=e.n_turns,
            prompt_tokens=e.prompt_tokens, completion_tokens=e.completion_tokens, seed=e.seed,
            hint_mode=cfg.hints,
            sampling={**cfg.sampling.as_dict(), "k": cfg.k, "max_turns": cfg.max_turns, "constrain": cfg.constrain,
                      "grounded_decoding": cfg.grounded and cfg.constrain == "grammar", "hints": cfg.hints,
                      "turn_token_budget": e.budget,
                      "prompt_style": cfg.prompt_style, "tool_format": fmt, "tool_format_requested": cfg.tool_format,
                      "user_sim_completion_tokens": e.user_tokens,
                      "fault_rate": cfg.faults.rate if cfg.faults else 0.0,
                      "fault_kinds": list(cfg.faults.kinds) if cfg.faults else []},
            turns=e.turns, user_simulator=cfg.user_sim,
            faults=list(e.injector.log) if e.injector is not None else []))
    return out
