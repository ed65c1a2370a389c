"""The agent harness: runs a teacher through task packages, k episodes per task, batched.

All live episodes advance together: each turn, the generation requests of every live episode
go to the backend as one batch; tool execution happens between batches. The customer side is a
scripted user simulator that replays the task's ``user_messages`` after each plain-text agent
reply and ends the episode when it has nothing more to say.

Only the agent-visible part of a task package (instruction, policy, tool schemas, scripted
customer turns) reaches a prompt; the hidden part stays in the sandbox and the verifier.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from pipeline.records import TaskPackage, Trajectory, stable_hash
from pipeline.rollout.backends.base import Backend, SamplingConfig
from pipeline.rollout.prompting import TOOL_PREFIX, parse_tool_calls, tool_call_openings, render_for_model, system_prompt
from pipeline.sandbox import Sandbox

FORMAT_ERROR_NOTE = ("[format error] {error}. Reply with one valid <tool_call>{{\"name\": ..., "
                     "\"arguments\": {{...}}}}</tool_call> or answer the customer in plain text.")


@dataclass
class RolloutConfig:
    """Harness settings.

    ``k`` episodes per task; ``max_turns`` agent turns per episode (a turn = one generation);
    ``constrain``: ``"prefix"`` forces the agent's first turn after each customer message to
    open a tool call (``<tool_call>{"name": "``), a cheap structured-generation constraint that
    small teachers need; ``"none"`` leaves generation free.
    """

    k: int = 4
    max_turns: int = 6
    constrain: str = "prefix"
    prompt_style: str = "compact"
    sampling: SamplingConfig = field(default_factory=SamplingConfig)


@dataclass
class _Episode:
    task: TaskPackage
    sample_index: int
    sandbox: Sandbox
    messages: list[dict[str, Any]]
    user_queue: list[str]
    seed: int
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    n_turns: int = 0
    done: bool = False
    finish_reason: str = ""
    force_prefix: bool = True


def _start(task: TaskPackage, i: int, domain: Any, cfg: RolloutConfig) -> _Episode:
    vis = task.visible
    msgs = [{"role": "system", "content": system_prompt(vis.policy, vis.tools, cfg.prompt_style)},
            {"role": "user", "content": vis.instruction}]
    seed = cfg.sampling.seed * 1_000_003 + int(stable_hash([task.task_id, i], 8), 16) % 1_000_000
    return _Episode(task, i, Sandbox(domain, task.hidden.initial_state), msgs, list(vis.user_messages), seed)


def _step(ep: _Episode, text: str, cfg: RolloutConfig) -> None:
    """Apply one generated assistant turn to an episode: parse, execute tools, advance the user."""
    parsed = parse_tool_calls(text)
    turn = ep.n_turns
    if parsed.calls:
        tool_calls = []
        for j, (name, args) in enumerate(parsed.calls):
            tool_calls.append({"id": f"call_{turn}_{j}", "type": "function",
                               "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)}})
        ep.messages.append({"role": "assistant", "content": parsed.text or None, "tool_calls": tool_calls})
        for tc, (name, args) in zip(tool_calls, parsed.calls):
            res = ep.sandbox.call(name, args)
            ep.tool_calls.append({"step": turn, "name": name, "arguments": json.dumps(args, ensure_ascii=False),
                                  "valid_json": True, "error": res.error_code})
            ep.messages.append({"role": "tool", "tool_call_id": tc["id"], "name": name, "content": res.content})
            if name == "transfer_to_human_agents" and res.ok:
                ep.done, ep.finish_reason = True, "transfer"
        ep.force_prefix = False
        for err in parsed.errors:  # extra malformed blocks beside valid ones
            ep.tool_calls.append({"step": turn, "name": None, "arguments": None, "valid_json": False, "error": err})
        return
    if parsed.had_tag or parsed.errors:
        err = parsed.errors[0] if parsed.errors else "empty tool call"
        ep.tool_calls.append({"step": turn, "name": None, "arguments": None, "valid_json": False, "error": err})
        ep.messages.append({"role": "assistant", "content": text})
        # answered, never left hanging: the harness tells the agent what was wrong
        ep.messages.append({"role": "user", "content": FORMAT_ERROR_NOTE.format(error=err)})
        ep.force_prefix = False
        return
    ep.messages.append({"role": "assistant", "content": text})
    if ep.user_queue:
        ep.messages.append({"role": "user", "content": ep.user_queue.pop(0)})
    else:
        ep.done, ep.finish_reason = True, "agent_stop"


def run_rollouts(tasks: Iterable[TaskPackage], backend: Backend, domain_for: Callable[[str], Any],
                 cfg: RolloutConfig | None = None,
                 progress: Callable[[int, int], None] | None = None) -> list[Trajectory]:
    """Run ``cfg.k`` episodes of ``backend`` on each task; returns one Trajectory per episode.

    ``domain_for(name)`` returns the domain object for a task's ``domain``. ``progress(done,
    total)`` is called after every batched turn. Episodes end on a plain-text agent answer with no
    further customer turn (``agent_stop``), a successful transfer (``transfer``) or
    ``max_turns`` (``turn_limit``); a backend exception ends the live episodes with ``error``.
    """
    cfg = cfg or RolloutConfig()
    episodes = [_start(t, i, domain_for(t.domain), cfg) for t in tasks for i in range(cfg.k)]
    total = len(episodes)
    for turn in range(cfg.max_turns):
        live = [e for e in episodes if not e.done]
        if not live:
            break
        prompts = [render_for_model(e.messages) for e in live]
        prefixes = [TOOL_PREFIX if (cfg.constrain == "prefix" and e.force_prefix) else None for e in live]
        # after the forced opening: one of the task's tool names and its first required argument
        choices = [tool_call_openings(e.task.visible.tools) if p else None for e, p in zip(live, prefixes)]
        sampling = SamplingConfig(**{**cfg.sampling.as_dict(), "seed": cfg.sampling.seed * 7919 + turn})
        try:
            gens = backend.generate(prompts, prefixes, sampling, choices=choices)
        except Exception as exc:  # noqa: BLE001 - recorded per episode, never silent
            for e in live:
                e.done, e.finish_reason = True, "error"
                e.messages.append({"role": "assistant", "content": None, "error": f"{type(exc).__name__}: {exc}"})
            break
        for e, g, pre in zip(live, gens, prefixes):
            e.prompt_tokens += g.prompt_tokens
            e.completion_tokens += g.completion_tokens
            text = (pre or "") + g.text
            _step(e, text, cfg)
            e.n_turns += 1
        if progress:
            progress(sum(e.done for e in episodes), total)
    out = []
    for e in episodes:
        if not e.done:
            e.done, e.finish_reason = True, "turn_limit"
        out.append(Trajectory(
            trajectory_id=f"{e.task.task_id}-s{e.sample_index}",
            task_id=e.task.task_id, blueprint_id=e.task.blueprint_id, sample_index=e.sample_index,
            model=getattr(backend, "model_id", "unknown"), backend=getattr(backend, "name", "unknown"),
            messages=e.messages, tools=e.task.visible.tools, tool_calls=e.tool_calls,
            final_state_hash=e.sandbox.state_hash(), finish_reason=e.finish_reason, n_turns=e.n_turns,
            prompt_tokens=e.prompt_tokens, completion_tokens=e.completion_tokens, seed=e.seed,
            sampling={**cfg.sampling.as_dict(), "k": cfg.k, "max_turns": cfg.max_turns, "constrain": cfg.constrain,
                      "prompt_style": cfg.prompt_style}))
    return out
