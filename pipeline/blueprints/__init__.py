"""Extract task blueprints (task types) from anonymized logs.

Logs are grouped by what they show: the ordered, de-duplicated sequence of *successful*
state-changing tool calls with the shape of their arguments (the action signature), mapped to
the domain's task kind. Failed runs (``metadata.reward == 0``) contribute failure modes: write
calls that returned an error, write calls a successful run of the same kind would make but the
failed run did not, extra writes. Deterministic: the same logs give the same catalog.
"""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from typing import Any, Iterable

from pipeline.records import Blueprint, LogRecord, stable_hash

MAX_EXAMPLES = 3


def _shape(v: Any) -> str:
    """Type shape of a JSON value: ``str``, ``int``, ``list[obj{a,b}]``..."""
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "num"
    if isinstance(v, str):
        return "str"
    if isinstance(v, list):
        return f"list[{_shape(v[0])}]" if v else "list"
    if isinstance(v, dict):
        return "obj{" + ",".join(sorted(v)) + "}"
    return "null"


def tool_calls_of(rec: LogRecord) -> list[dict[str, Any]]:
    """The record's tool calls in order: ``{"name", "arguments" (dict), "ok" (result not an error)}``."""
    results = {m.get("tool_call_id"): m.get("content") or "" for m in rec.messages if m.get("role") == "tool"}
    calls = []
    for m in rec.messages:
        for tc in m.get("tool_calls") or []:
            fn = tc.get("function", {})
            try:
                args = json.loads(fn.get("arguments") or "{}")
            except json.JSONDecodeError:
                args = {}
            res = results.get(tc.get("id"), "")
            calls.append({"name": fn.get("name"), "arguments": args if isinstance(args, dict) else {},
                          "ok": not str(res).startswith("Error")})
    return calls


def action_signature(calls: list[dict[str, Any]], write_tools: set[str]) -> list[str]:
    """Ordered signature of successful write calls, consecutive repeats collapsed.

    Example: ``["cancel_reservation(reservation_id:str)"]``."""
    sig: list[str] = []
    for c in calls:
        if c["name"] in write_tools and c["ok"]:
            s = c["name"] + "(" + ",".join(f"{k}:{_shape(v)}" for k, v in sorted(c["arguments"].items())) + ")"
            if not sig or sig[-1] != s:
                sig.append(s)
    return sig


def _intent(rec: LogRecord) -> str:
    """The customer's first message (already anonymized), trimmed."""
    for m in rec.messages:
        if m.get("role") == "user" and m.get("content"):
            return " ".join(str(m["content"]).split())[:300]
    return ""


def extract_blueprints(records: Iterable[LogRecord], domain: Any) -> list[Blueprint]:
    """Group anonymized log records into blueprints for ``domain``.

    ``domain`` provides ``name``, ``write_tools``, ``read_tools``, ``kind_for_write_calls(names)``,
    ``rules_for_tools(names)``, ``initial_state_requirements(kind)``, ``success_condition(kind)``.
    The grouping key is the task kind (or ``"no_write"`` for logs without a successful write)
    plus the distinct write tools of successful runs. Returns blueprints sorted by size, largest first.
    """
    write_tools = set(domain.write_tools)
    groups: dict[str, list[tuple[LogRecord, list[dict[str, Any]], list[str]]]] = defaultdict(list)
    for rec in records:
        calls = tool_calls_of(rec)
        ok_writes = [c["name"] for c in calls if c["name"] in write_tools and c["ok"]]
        gold = [a.get("name") for a in (rec.metadata.get("gold_actions") or []) if a.get("name") in write_tools]
        success = float(rec.metadata.get("reward", 1.0)) >= 1.0
        # a failed run is grouped by what it should have done (gold actions, when the log has
        # them), a successful one by what it did
        basis = ok_writes if success or not gold else gold
        kind = domain.kind_for_write_calls(basis) if basis else None
        key = kind or ("no_write" if not basis else "other:" + "+".join(dict.fromkeys(basis)))
        groups[key].append((rec, calls, action_signature(calls, write_tools)))

    out: list[Blueprint] = []
    for key, items in groups.items():
        succ = [(r, c, s) for r, c, s in items if float(r.metadata.get("reward", 1.0)) >= 1.0]
        fail = [(r, c, s) for r, c, s in items if float(r.metadata.get("reward", 1.0)) < 1.0]
        sig_counts = Counter(tuple(s) for _, _, s in (succ or items) if s)
        signature = list(sig_counts.most_common(1)[0][0]) if sig_counts else []
        required = sorted({s.split("(")[0] for s in signature})
        read_counts = Counter(c["name"] for _, calls, _ in succ for c in calls
                              if c["name"] not in write_tools and c["name"])
        reads = [n for n, _ in read_counts.most_common()]
        expected_writes = set(required)
        failure_modes: Counter[tuple[str, str]] = Counter()
        for r, calls, _ in fail:
            got = {c["name"] for c in calls if c["name"] in write_tools and c["ok"]}
            for c in calls:
                if c["name"] in write_tools and not c["ok"]:
                    failure_modes[("write_call_error", c["name"])] += 1
            for n in sorted(expected_writes - got):
                failure_modes[("missing_write", n)] += 1
            for n in sorted(got - expected_writes):
                failure_modes[("extra_write", n)] += 1
            if got == expected_writes and expected_writes:
                failure_modes[("wrong_arguments", ",".join(sorted(got)))] += 1
            if not expected_writes and got:
                failure_modes[("write_not_allowed", ",".join(sorted(got)))] += 1
        kind = None if key == "no_write" or key.startswith("other:") else key
        intents = Counter(_intent(r) for r, _, _ in items)
        rules = domain.rules_for_tools(required) if required else []
        out.append(Blueprint(
            blueprint_id=f"{domain.name}-{key.replace(':', '-').replace('+', '-')}-{stable_hash(sorted(r.id for r, _, _ in items), 6)}",
            domain=domain.name,
            intent=(f"customer wants: {kind.replace('_', ' ')}" if kind else
                    "customer request handled without a database change" if key == "no_write" else
                    f"customer wants: {key[6:].replace('_', ' ')}"),
            action_signature=signature,
            required_tools=required,
            read_tools=reads,
            initial_state_requirements=domain.initial_state_requirements(kind) if kind else {},
            business_constraints=rules,
            success_condition=domain.success_condition(kind) if kind else "no state change; the agent answers, refuses or transfers",
            failure_modes=[{"mode": m, "tool": t, "count": n} for (m, t), n in failure_modes.most_common()],
            source_log_ids=sorted(r.id for r, _, _ in items),
            n_logs=len(items), n_success=len(succ),
            example_intents=[t for t, _ in intents.most_common(MAX_EXAMPLES) if t],
            task_kind=kind,
        ))
    out.sort(key=lambda b: (-b.n_logs, b.blueprint_id))
    return out
