"""Rule-based reward for RLVR: replay a response's tool calls in the task's sandbox and verify.

``compute_score`` has the signature veRL expects of a custom reward function
(``custom_reward_function.path=pipeline/rewards.py``, ``name=compute_score``; veRL calls
``compute_score(data_source, solution_str, ground_truth, extra_info)`` and accepts a float or a
dict with a ``"score"`` key plus extra numeric entries). The same scorer backs the TRL GRPO reward
function and environment in :mod:`pipeline.trl_env`: the same tasks and verifiers serve SFT and RLVR.

Two response shapes are read (:func:`parse_response`):

* **plain**: an agent's text with Hermes ``<tool_call>`` blocks (and ``<tool_response>`` blocks,
  ignored: the sandbox recomputes them), e.g. a single turn or TRL's joined completion; the
  scripted customer turns of the ground truth are replayed after each agent text turn but the
  last;
* **role-marked**: a multi-turn rollout as veRL's reward manager hands it over, the whole
  response decoded with ``skip_special_tokens=True``. The ChatML template
  (``<|im_start|>role\\n...<|im_end|>``) loses its special tokens and leaves the role words
  ``assistant`` / ``user`` / ``tool`` at line starts (or glued right after the previous turn's
  end when the model, not the template, wrote the ``<|im_end|>``); the response is split there
  into agent turns (their text and tool calls are replayed), customer turns (replayed as the
  customer's messages) and tool turns (ignored).

Tool-call blocks are read by the same scanner as the rollout harness
(:func:`pipeline.rollout.prompting.scan_tool_calls`), so the reward and the harness agree on
every call, including malformed ones.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from pipeline.records import TaskHidden, TaskPackage, TaskVisible, ToolCall, Trajectory
from pipeline.rollout.prompting import (TOOL_RESPONSE_TAG, ToolCallBlock, clean_unicode, parse_tool_calls,
                                        scan_tool_calls, wrap_bare_calls)
from pipeline.sandbox import Sandbox

#: A ChatML role word left by decoding with ``skip_special_tokens=True``: ``<|im_end|>\n<|im_start|>user\n``
#: becomes ``\nuser\n``. The word stands on its own line, or - when the model generated the
#: ``<|im_end|>`` without the template's newline (veRL's agent loop appends the next turn's
#: tokens directly after the generated ones) - right after a mark that is no letter, digit or
#: space (``proceed?user``, ``confirm:user``, ``(yes/no)user``, an emoji, ``</tool_call>``), up to
#: three spaces after it. A turn glued to a letter or digit ("Shall I proceeduser") is not
#: recognized: it cannot be told from a word.
ROLE_MARKER_RE = re.compile(r"(?:^|(?<=[^\w\s])|(?<=[^\w\s] )|(?<=[^\w\s]  )|(?<=[^\w\s]   ))"
                            r"(assistant|user|tool)[ \t]*(?:\r?\n|\Z)", re.M)
_HIDDEN_REF = "_hidden_reference_step"


def load_ground_truth(ground_truth: str | dict[str, Any]) -> dict[str, Any]:
    """``reward_model.ground_truth`` of an rl row (JSON text or dict) as a dict.

    Raises:
        ValueError: not JSON, or missing ``domain`` / ``initial_state`` / ``expected_state_hash``.
    """
    gt = json.loads(ground_truth) if isinstance(ground_truth, str) else dict(ground_truth)
    missing = [k for k in ("domain", "initial_state", "expected_state_hash") if k not in gt]
    if missing:
        raise ValueError(f"ground_truth lacks {missing}: is it a trajpipe rl row's reward_model.ground_truth?")
    return gt


def task_from_ground_truth(gt: dict[str, Any], domain: Any) -> TaskPackage:
    """A task package with what the verifier needs, rebuilt from a ground-truth dict.

    The reference solution is not in the ground truth (only its length, for the length and
    tool-call normalization of :mod:`pipeline.verify.rewards`): placeholder steps stand in."""
    names = gt.get("tool_names") or list(domain.tools)
    tools = [domain.tools[n].schema for n in names if n in domain.tools]
    n_ref = int(gt.get("reference_calls") or 0)
    return TaskPackage(
        task_id=gt.get("task_id") or "task", blueprint_id=gt.get("blueprint_id") or "blueprint",
        domain=gt["domain"], seed=0,
        visible=TaskVisible(instruction=gt.get("instruction") or "", policy=domain.policy, tools=tools,
                            user_messages=list(gt.get("user_messages") or [])),
        hidden=TaskHidden(initial_state=gt["initial_state"],
                          reference_solution=[ToolCall(name=_HIDDEN_REF, arguments={})] * n_ref,
                          expected_state_hash=gt["expected_state_hash"], verifier=gt.get("verifier") or {}),
        task_kind=gt.get("task_kind"), variant=gt.get("variant"),
        expected_outcome=gt.get("expected_outcome") or "action",
    )


@dataclass
class ParsedResponse:
    """A response split by :func:`parse_response`: ``segments`` (see :func:`segments`),
    ``role_marked`` (the response had ChatML role words, so customer turns come from it, not
    from the ground truth's script), ``agent_chars`` (characters the agent wrote: its text and
    tool-call blocks, not tool results or customer turns) and ``turns`` (per segment, the index
    of the agent turn it belongs to; -1 for a customer turn; in a plain response every segment
    is its own turn, as the plain format cannot tell)."""

    segments: list[tuple[str, Any]] = field(default_factory=list)
    role_marked: bool = False
    agent_chars: int = 0
    turns: list[int] = field(default_factory=list)


def _role_markers(text: str, start: int, end: int) -> list[re.Match[str]]:
    out = []
    for m in ROLE_MARKER_RE.finditer(text, start, end):
        if m.group().endswith("\n") or m.end() == len(text):  # a real line end, not the span's end
            out.append(m)
    return out


def _wrap_bare_turns(text: str) -> str:
    """``text`` with the bare JSON calls of its agent turns wrapped in tags
    (:func:`~pipeline.rollout.prompting.wrap_bare_calls`), as models whose chat template writes
    calls as bare JSON (Llama 3.x) produce them. Customer and tool turns are left alone."""
    if "{" not in text:
        return text
    marks = _role_markers(text, 0, len(text))
    bounds = [(0, marks[0].start() if marks else len(text))]  # the first agent turn
    bounds += [(m.end(), marks[i + 1].start() if i + 1 < len(marks) else len(text))
               for i, m in enumerate(marks) if m.group(1) == "assistant"]
    out, prev = [], 0
    for a, b in bounds:
        out += [text[prev:a], wrap_bare_calls(text[a:b])]
        prev = b
    out.append(text[prev:])
    return "".join(out)


def parse_response(solution_str: str) -> ParsedResponse:
    """Split a response into ordered segments: ``("text", str)`` (agent text, stripped),
    ``("call", ToolCallBlock)`` (an agent's ``<tool_call>`` block, read by
    :func:`pipeline.rollout.prompting.scan_tool_calls`) and, in a role-marked response only,
    ``("user", str)`` (a customer turn). ``<tool_response>`` blocks and ``tool`` turns are
    dropped; a ``<tool_call>`` inside a customer or tool turn is not an agent action and is
    dropped too. Lone surrogates are replaced by U+FFFD first. Never raises on a ``str``.

    Role words are recognized only in free text (never inside a tool-call block or a tool
    response); the text before the first one belongs to the agent (the response starts after
    the prompt's ``<|im_start|>assistant\\n``). A response without role words is read exactly as
    the plain format: all free text is agent text. Bare JSON calls that start a line of an agent
    turn (``{"name": ..., "parameters": ...}``, as Llama 3.x chat templates ask) are read as calls
    (:func:`~pipeline.rollout.prompting.wrap_bare_calls`, as the rollout harness reads them with
    ``tool_format="chat_template"``)."""
    text = _wrap_bare_turns(clean_unicode(solution_str or ""))
    parts = scan_tool_calls(text, skip_tags=(TOOL_RESPONSE_TAG,), boundary=ROLE_MARKER_RE)
    out = ParsedResponse()
    role = "assistant"
    customer: list[str] = []
    turn = 0

    def add(kind: str, value: Any, turn_index: int) -> None:
        out.segments.append((kind, value))
        out.turns.append(turn_index)

    def emit(piece: str) -> None:
        if role == "assistant":
            piece = piece.strip()
            if piece:
                add("text", piece, turn)
                out.agent_chars += len(piece)
        elif role == "user":
            customer.append(piece)

    def switch(new_role: str) -> None:
        nonlocal role, turn
        if role == "user":
            said = "".join(customer).strip()
            if said:
                add("user", said, -1)
            customer.clear()
        if new_role == "assistant":
            turn += 1
        role = new_role

    for part in parts:
        if part.kind == "block":
            if role == "assistant":
                add("call", part.value, turn)
                out.agent_chars += len(part.value.raw)
            continue
        if part.kind != "text":
            continue
        pos = part.start
        for m in _role_markers(text, part.start, part.end):
            out.role_marked = True
            emit(text[pos:m.start()])
            switch(m.group(1))
            pos = m.end()
        emit(text[pos:part.end])
    switch("end")
    if not out.role_marked:
        out.turns = list(range(len(out.segments)))
    return out


def segments(solution_str: str) -> list[tuple[str, Any]]:
    """Split a response into ``("text", str)``, ``("call", ToolCallBlock)`` and (role-marked
    responses only) ``("user", str)`` segments in order; ``<tool_response>`` blocks and tool
    turns are dropped. See :func:`parse_response`."""
    return parse_response(solution_str).segments


def replay(gt: dict[str, Any], domain: Any, segs: list[tuple[str, Any]], completion_tokens: int = 0,
           trajectory_id: str = "replay", scripted_users: bool = True,
           turns: list[int] | None = None) -> Trajectory:
    """Run the segments' tool calls in a fresh sandbox and build the :class:`Trajectory` the
    verifier checks.

    ``segs`` are :func:`segments` items: ``("text", str)``, ``("call", ToolCallBlock | str)`` (a
    str is parsed with :func:`~pipeline.rollout.prompting.parse_tool_calls`), ``("user", str)``
    (a customer turn taken from the response) or ``("call_parsed", (name, arguments))``
    (structured tool calls). With ``scripted_users`` (the plain format), like the rollout
    harness, after each agent text turn but the last the next scripted customer message
    (``gt["user_messages"]``) is appended; without it (a role-marked response) the customer
    says only what its ``("user", ...)`` segments say.

    ``turns`` (:attr:`ParsedResponse.turns`, one agent-turn index per segment) groups segments
    into agent turns as the rollout harness records them: the text of a turn that made tool
    calls is the content of its first tool-call message (not a separate text message, which the
    verifier would read as a proposal awaiting the customer's yes)."""
    sb = Sandbox(domain, gt["initial_state"])
    users = list(gt.get("user_messages") or [])
    messages: list[dict[str, Any]] = [{"role": "user", "content": gt.get("instruction") or ""}]
    tool_calls: list[dict[str, Any]] = []
    n = 0
    last_text_idx = max([i for i, (k, _) in enumerate(segs) if k == "text"], default=-1)
    turn_text: dict[int, list[str]] = {}
    if turns is not None:
        if len(turns) != len(segs):
            raise ValueError(f"turns has {len(turns)} entries for {len(segs)} segments")
        acting = {turns[i] for i, (k, v) in enumerate(segs)
                  if k == "call_parsed" or (k == "call" and (not isinstance(v, ToolCallBlock) or v.calls))}
        for i, (k, v) in enumerate(segs):
            if k == "text" and turns[i] in acting:
                turn_text.setdefault(turns[i], []).append(v)
    for i, (kind, val) in enumerate(segs):
        turn = turns[i] if turns is not None else None
        if kind == "text":
            if turn in turn_text:
                continue  # said in a turn that made tool calls: the content of its first call
            messages.append({"role": "assistant", "content": val})
            if scripted_users and i != last_text_idx and users:
                messages.append({"role": "user", "content": users.pop(0)})
            continue
        if kind == "user":
            messages.append({"role": "user", "content": val})
            continue
        if kind == "call":
            parsed = val if isinstance(val, ToolCallBlock) else parse_tool_calls(val)
            calls = list(parsed.calls)
            for err in parsed.errors:
                tool_calls.append({"step": n, "name": None, "arguments": None, "valid_json": False, "error": err})
        else:
            calls = [val]
        for name, args in calls:
            cid = f"call_{n}"
            res = sb.call(name, args)
            said = turn_text.pop(turn, None) if turn is not None else None
            messages.append({"role": "assistant", "content": "\n".join(said) if said else None, "tool_calls": [
                {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]})
            messages.append({"role": "tool", "tool_call_id": cid, "name": name, "content": res.content})
            tool_calls.append({"step": n, "name": name, "arguments": json.dumps(args), "valid_json": True,
                               "error": res.error_code})
            n += 1
    return Trajectory(trajectory_id=trajectory_id, task_id=gt.get("task_id") or "task",
                      blueprint_id=gt.get("blueprint_id") or "blueprint", sample_index=0, model="", backend="replay",
                      messages=messages, tools=[], tool_calls=tool_calls, final_state_hash=sb.state_hash(),
                      finish_reason="agent_stop", n_turns=sum(1 for m in messages if m["role"] == "assistant"),
                      prompt_tokens=0, completion_tokens=int(completion_tokens), seed=0)


def score_trajectory(traj: Trajectory, gt: dict[str, Any], domain: Any) -> dict[str, float]:
    """The verifier's verdict on ``traj`` as a score dict: ``score`` (``Verdict.reward``, in
    [0, 1]), ``passed`` (0/1), every ``Verdict.reward_components`` entry, ``n_reason_codes``."""
    from pipeline.verify import verify_trajectory

    task = task_from_ground_truth(gt, domain)
    try:
        v = verify_trajectory(traj, task, domain, expected=gt["initial_state"])
    except TypeError:  # a verifier without the ``expected`` argument
        v = verify_trajectory(traj, task, domain)
    out = {"score": float(v.reward), "passed": float(v.passed), "n_reason_codes": float(len(v.reason_codes))}
    out.update({k: float(x) for k, x in v.reward_components.items()})
    return out


def compute_score(data_source: str, solution_str: str, ground_truth: str | dict[str, Any],
                  extra_info: dict[str, Any] | None = None) -> dict[str, float]:
    """veRL custom reward: replay the Hermes ``<tool_call>`` blocks of ``solution_str`` in the
    task's sandbox (:func:`replay`) and verify (:func:`pipeline.verify.verify_trajectory`).

    ``solution_str`` is a plain response or a role-marked multi-turn response (veRL's decoded
    rollout with ``user`` / ``tool`` / ``assistant`` role words inline); see
    :func:`parse_response`. In a role-marked response the customer turns are the ones in it and
    only the agent's turns are replayed, so the score is the verifier's verdict on the same
    episode. Limit: with the special tokens gone, a role word the model wrote itself at a line
    start reads as a turn change (only the token-level response mask could tell them apart).

    ``data_source`` is ``"trajpipe/<domain>"`` (checked against the ground truth's domain);
    ``ground_truth`` is ``reward_model.ground_truth`` of the rl row; ``extra_info`` may carry
    ``completion_tokens`` (the agent's generated tokens; without it the characters the agent
    wrote, text and tool-call blocks but not tool results or customer turns, ``// 4``
    approximate it for the length component).

    Returns ``{"score", "passed", "outcome", "format_valid", "violations", "tool_calls",
    "length", "n_reason_codes"}`` (floats; component names from ``Verdict.reward_components``).
    A correct replay scores 1.0; a wrong final state scores 0.0.

    Raises:
        ValueError: bad ground truth, or ``data_source`` names another domain.
    """
    from pipeline.domains import get_domain

    gt = load_ground_truth(ground_truth)
    if data_source and data_source.startswith("trajpipe/") and data_source.split("/", 1)[1] != gt["domain"]:
        raise ValueError(f"data_source {data_source!r} does not match the ground truth's domain {gt['domain']!r}")
    domain = get_domain(gt["domain"])
    resp = parse_response(solution_str or "")
    tokens = (extra_info or {}).get("completion_tokens")
    tokens = int(tokens) if tokens is not None else resp.agent_chars // 4
    traj = replay(gt, domain, resp.segments, tokens, scripted_users=not resp.role_marked,
                  turns=resp.turns if resp.role_marked else None)
    return score_trajectory(traj, gt, domain)
