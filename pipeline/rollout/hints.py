"""Hinted and guided rollouts: STaR's rationalization applied to agent episodes.

Zelikman et al., "STaR: Bootstrapping Reasoning With Reasoning" (2022, arXiv:2203.14465): when a
model fails a problem, give it the answer as a hint, let it produce a solution, and keep that
solution as if it had been produced unaided, provided it is correct. Here the hint is derived from
the task's *hidden reference solution* and shown to the teacher **during generation only**: the
exported trajectory keeps the ordinary visible system prompt and never the help, and it is kept
only if it verifies and every argument is grounded in what the conversation showed
(``TRAJ_UNGROUNDED_ARGUMENT``, :mod:`pipeline.verify.grounding`).

Help modes (:data:`HINT_MODES`, ``--hints``):

* ``none``: no help.
* ``plan``: the tool sequence and when to ask for confirmation, as text appended to the system
  prompt (no argument values).
* ``example``: a worked conversation of *another* instance of the same task kind and variant
  (fresh fictional records from the domain's generator, its reference played in a sandbox),
  appended to the system prompt.
* ``guided``: the ``plan`` text, and the grammar of each turn (:mod:`pipeline.rollout.grammar`)
  admits only the reference's next tool at a tool-call turn, no write before the reference's
  reads, and text only where the reference has nothing left to call. The model still writes
  every argument value and every word to the customer (the plan tells it what the last words
  must do: refuse, confirm, hand over).

``--hint-when`` (:data:`HINT_WHEN`): ``always`` helps every episode; ``fallback`` helps only
tasks whose unhelped rollouts all failed (the zero-variance groups RL cannot use either), in a
second pass (:func:`pipeline.stages.rollout_stage`).
"""
from __future__ import annotations

import json
from typing import Any

from pipeline.records import TaskPackage
from pipeline.sandbox import Sandbox

HINT_MODES = ("none", "plan", "example", "guided")
HINT_WHEN = ("always", "fallback")
HINT_HEADER = "\n\n# Help for this conversation"


def _is_write(domain: Any, name: str) -> bool:
    return name in domain.write_tools and name not in domain.terminate_tools


def plan_text(task: TaskPackage, domain: Any) -> str:
    """The ``plan`` hint: the reference's tool sequence and where to ask for confirmation, in
    words, without argument values."""
    steps = []
    ref = task.hidden.reference_solution
    for c in ref:
        if _is_write(domain, c.name):
            steps.append(f"explain the change to the customer, ask them to confirm (yes/no), and after their "
                         f"'yes' call {c.name}")
        else:
            steps.append(f"call {c.name}")
    if task.expected_outcome == "refusal":
        steps.append("tell the customer that the policy does not allow the request, and do not change anything")
    elif task.expected_outcome == "transfer":
        if not any(c.name in domain.terminate_tools for c in ref):
            steps.append("transfer the customer to a human agent")
    else:
        steps.append("tell the customer what was done")
    lines = [f"{i}. {s[0].upper()}{s[1:]}." for i, s in enumerate(steps, 1)]
    return HINT_HEADER + " (a plan; use values from the customer and the tool results)\n" + "\n".join(lines)


def _agent_proposal(call: dict[str, Any]) -> str:
    args = ", ".join(f"{k} {json.dumps(v, ensure_ascii=False)}" for k, v in call.get("arguments", {}).items())
    return f"I can do this now: {call['name']} with {args}. Do you confirm (yes/no)?"


def example_conversation(task: TaskPackage, domain: Any, seed_offset: int = 7919) -> str | None:
    """The ``example`` hint: a worked conversation of another instance of ``task``'s kind and
    variant (the domain's generator with another seed; its own fictional records), as text.
    Returns None when the domain cannot generate one (no kind, or the generator raises)."""
    if not task.task_kind:
        return None
    try:
        if task.variant:
            gen = domain.generate_task(task.task_kind, task.seed + seed_offset, variant=task.variant)
        else:
            gen = domain.generate_task(task.task_kind, task.seed + seed_offset)
    except Exception:  # noqa: BLE001 - no example for this kind: the episode runs without one
        return None
    sb = Sandbox(domain, gen.initial_state)
    lines = [f"Customer: {gen.instruction}"]
    later = list(gen.user_messages)
    for call in gen.reference_solution:
        if _is_write(domain, call["name"]):
            lines.append(f"Agent: {_agent_proposal(call)}")
            lines.append(f"Customer: {later.pop(0) if later else 'Yes.'}")
        lines.append("Agent: <tool_call>\n" + json.dumps({"name": call["name"], "arguments": call.get("arguments", {})},
                                                       ensure_ascii=False) + "\n</tool_call>")
        res = sb.call(call["name"], call.get("arguments", {}))
        content = res.content if len(res.content) <= 600 else res.content[:600] + " ..."
        lines.append(f"Tool: <tool_response>\n{content}\n</tool_response>")
    outcome = gen.expected_outcome or "action"
    if outcome == "refusal":
        lines.append("Agent: I'm sorry, but I cannot do this: our policy does not allow it.")
    elif outcome != "transfer":
        lines.append("Agent: Done: your request has been completed.")
    return (HINT_HEADER + " (a worked example of a similar request with other records; use the values of "
            "this conversation, never the example's)\n" + "\n".join(lines))


def hint_text(task: TaskPackage, domain: Any, mode: str) -> str | None:
    """The help text appended to the system prompt for ``mode``: the plan for ``plan`` and
    ``guided`` (which adds the grammar), the worked example for ``example``, None for ``none``.
    Raises ValueError for an unknown mode."""
    if mode not in HINT_MODES:
        raise ValueError(f"unknown hint mode {mode!r}; choose one of {', '.join(HINT_MODES)}")
    if mode in ("plan", "guided"):
        return plan_text(task, domain)
    if mode == "example":
        return example_conversation(task, domain)
    return None


def reference_progress(task: TaskPackage, tool_calls: list[dict[str, Any]]) -> int:
    """How many reference steps the episode has done, in order: successful calls whose names
    follow the reference's sequence (other calls in between are ignored)."""
    ref = task.hidden.reference_solution
    p = 0
    for tc in tool_calls:
        if p < len(ref) and tc.get("name") == ref[p].name and tc.get("error") is None and tc.get("valid_json", True):
            p += 1
    return p


def guided_turn(task: TaskPackage, domain: Any, tool_calls: list[dict[str, Any]],
                messages: list[dict[str, Any]]) -> tuple[str, list[str] | None]:
    """The ``guided`` grammar for the agent's next turn: ``(kind, only)`` for
    :func:`pipeline.rollout.grammar.turn_format`.

    * the reference's next step is a read, a transfer, or a write the customer has just been asked
      about (the last message is the customer's reply to an agent text turn): ``("call", [name])``;
    * a write not yet proposed: ``("text", None)`` (explain and ask for confirmation first);
    * nothing left in the reference: ``("text", None)`` (answer, or refuse)."""
    ref = task.hidden.reference_solution
    p = reference_progress(task, tool_calls)
    if p >= len(ref):
        return "text", None
    nxt = ref[p].name
    if not _is_write(domain, nxt):
        return "call", [nxt]
    last = messages[-1] if messages else {}
    prev = messages[-2] if len(messages) >= 2 else {}
    proposed = (last.get("role") == "user" and prev.get("role") == "assistant" and not prev.get("tool_calls")
                and bool(prev.get("content")))
    return ("call", [nxt]) if proposed else ("text", None)
