"""One trajectory as the viewer draws it: messages as chat items, tool calls with their step
index, violations pinned at the step (or message) they name, the state diff as rows.

A *step* is an index into :attr:`pipeline.records.Trajectory.tool_calls` (what the verifier's
violations carry). The k-th parsed call is the k-th ``tool_calls`` entry of the assistant
messages (as in :func:`pipeline.verify.paths.executed_calls`); an unparseable entry sits on the
assistant message of its turn (the turn-th assistant message), which holds the broken text.
"""
from __future__ import annotations

import json
from typing import Any

#: Longest tool result / argument text drawn in full; longer ones are cut with a note.
MAX_TEXT = 20_000


def pretty(value: Any) -> str:
    """A JSON string or object as indented JSON text; any other string unchanged."""
    if isinstance(value, str):
        s = value.strip()
        if s[:1] in "{[":
            try:
                value = json.loads(s)
            except json.JSONDecodeError:
                return value
        else:
            return value
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def _cut(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + f"\n... [{len(text) - MAX_TEXT} more characters]"


def step_positions(messages: list[dict[str, Any]], tool_calls: list[dict[str, Any]] | None) -> dict[int, tuple[int, int | None]]:
    """Step index -> (message index, index of the call in that message's ``tool_calls`` or None).

    ``tool_calls`` None (datasets only, no tool-call log): step i is the i-th call shown in the
    messages. Steps that cannot be placed are left out."""
    calls = [(i, j) for i, m in enumerate(messages) if m.get("role") == "assistant"
             for j, _ in enumerate(m.get("tool_calls") or [])]
    if tool_calls is None:
        return {k: c for k, c in enumerate(calls)}
    assistant = [i for i, m in enumerate(messages) if m.get("role") == "assistant"]
    out: dict[int, tuple[int, int | None]] = {}
    k = 0
    for s, tc in enumerate(tool_calls):
        if tc.get("valid_json") and tc.get("name"):
            if k < len(calls):
                out[s] = calls[k]
            k += 1
        else:
            turn = tc.get("step")
            if isinstance(turn, int) and 0 <= turn < len(assistant):
                out[s] = (assistant[turn], None)
    return out


def state_diff_rows(lines: list[str] | None) -> list[dict[str, str]]:
    """``details.state_diff`` lines (``"path: expected -> got"``) as ``{path, expected, got}``
    rows (a line that does not split keeps its text in ``path``)."""
    rows = []
    for line in lines or []:
        path, sep, rest = str(line).partition(": ")
        exp, arrow, got = rest.partition(" -> ")
        rows.append({"path": path, "expected": exp, "got": got} if sep and arrow else
                    {"path": str(line), "expected": "", "got": ""})
    return rows


def chat_items(traj: dict[str, Any], verdict: dict[str, Any] | None) -> dict[str, Any]:
    """The trajectory as template data.

    Returns ``{"items": [...], "unplaced": [violations with no step or message], "failing_steps":
    sorted step indices with a violation, "n_calls": int}``; each item is ``{"index", "role",
    "content", "calls": [{"step", "name", "arguments", "error", "fault", "violations"}],
    "result": {...} for tool messages, "violations": [...] pinned at the message}``."""
    messages = traj.get("messages") or []
    tool_calls = traj.get("tool_calls")
    pos = step_positions(messages, tool_calls)
    by_msg_call = {v: s for s, v in pos.items()}
    violations = list((verdict or {}).get("violations") or [])
    at_step: dict[int, list[dict]] = {}
    at_msg: dict[int, list[dict]] = {}
    unplaced: list[dict] = []
    for v in violations:
        s, m = v.get("step"), v.get("message")
        if isinstance(s, int) and s in pos:
            at_step.setdefault(s, []).append(v)
        elif isinstance(m, int) and 0 <= m < len(messages):
            at_msg.setdefault(m, []).append(v)
        else:
            unplaced.append(v)
    # tool_call_id -> step, for results
    id_step: dict[str, int] = {}
    items = []
    for i, m in enumerate(messages):
        role = m.get("role") or "?"
        it: dict[str, Any] = {"index": i, "role": role, "content": _cut(str(m.get("content") or "")),
                              "calls": [], "result": None, "violations": list(at_msg.get(i, [])),
                              "step_here": None}
        if role == "assistant":
            for j, c in enumerate(m.get("tool_calls") or []):
                fn = c.get("function") or {}
                s = by_msg_call.get((i, j))
                if c.get("id") is not None and s is not None:
                    id_step[c["id"]] = s
                log = tool_calls[s] if (tool_calls is not None and s is not None and s < len(tool_calls)) else {}
                it["calls"].append({"step": s, "name": fn.get("name") or "?", "arguments": _cut(pretty(fn.get("arguments") or "{}")),
                                    "error": log.get("error"), "fault": log.get("fault"),
                                    "violations": at_step.get(s, []) if s is not None else []})
            # an unparseable call sits on this message
            for s, (mi, cj) in pos.items():
                if mi == i and cj is None:
                    it["step_here"] = s
                    it["violations"] += at_step.get(s, [])
                    log = tool_calls[s] if tool_calls is not None else {}
                    it["unparseable"] = log.get("error") or "unparseable tool call"
                    if not any(x.get("code") == "TRAJ_UNPARSEABLE_CALL" for x in it["violations"]):
                        # the verifier counts these (reason code, no violation entry): pin it here
                        it["violations"].append({"code": "TRAJ_UNPARSEABLE_CALL", "step": s,
                                                 "detail": f"tool call could not be parsed: {it['unparseable']}"})
                        at_step.setdefault(s, []).append(it["violations"][-1])
        elif role == "tool":
            s = id_step.get(m.get("tool_call_id"))
            log = tool_calls[s] if (tool_calls is not None and s is not None and s < len(tool_calls)) else {}
            text = str(m.get("content") or "")
            err = log.get("error") or (text.startswith("Error") and "error") or None
            it["result"] = {"name": m.get("name") or (log.get("name") if log else None) or "tool", "step": s,
                            "text": _cut(pretty(text)), "chars": len(text), "error": err, "fault": log.get("fault")}
        items.append(it)
    failing = sorted(set(at_step))
    return {"items": items, "unplaced": unplaced, "failing_steps": failing,
            "failing_messages": sorted(set(at_msg)), "n_calls": len(pos)}
