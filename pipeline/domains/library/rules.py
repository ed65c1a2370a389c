"""The library policy as data (one PolicyRule per bullet of ``policy.md``) and its rule checker."""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Iterable

from pipeline.domains.base import ToolError
from pipeline.domains.common import parse_policy_rules, select_rules
from pipeline.records import PolicyRule

from .state import TODAY
from .tools import TOOLS, WRITE_TOOLS

POLICY_TEXT: str = Path(__file__).with_name("policy.md").read_text(encoding="utf-8")


def parse_rules(policy_text: str) -> list[PolicyRule]:
    """Every ``- [library.x.y] text`` bullet, in order. ValueError on a duplicate id."""
    return parse_policy_rules(policy_text, "library")


RULES: list[PolicyRule] = parse_rules(POLICY_TEXT)
GENERAL_WRITE_RULES = ("library.general.identify", "library.general.confirm")
TOOL_RULES: dict[str, tuple[str, ...]] = {
    "renew_loan": ("library.renew.max_two", "library.renew.not_overdue", "library.renew.extension"),
    "return_book": ("library.return.any",),
}


def rules_for_tools(tool_names: Iterable[str]) -> list[PolicyRule]:
    """Rules constraining calls to ``tool_names``, in policy order, without repeats."""
    return select_rules(RULES, tool_names, WRITE_TOOLS, GENERAL_WRITE_RULES, TOOL_RULES)


def is_overdue(loan: dict[str, Any], today: str = TODAY) -> bool:
    """Active and due before ``today`` (rule library.renew.not_overdue)."""
    return loan["status"] == "active" and loan["due_date"] < today


def check_call(state: dict[str, Any], name: str, args: dict[str, Any], member_id: str | None) -> list[tuple[str, str]]:
    """``(rule_id, detail)`` for each rule the call breaks on ``state`` (the state before it)."""
    if name not in WRITE_TOOLS:
        return []
    loan = state["loans"].get(args.get("loan_id"))
    if loan is None:
        return []
    out = []
    if member_id is not None and loan["member_id"] != member_id:
        out.append(("library.general.identify", f"loan {loan['loan_id']} belongs to another member"))
    if name == "renew_loan":
        if loan["renewals"] >= 2:
            out.append(("library.renew.max_two", f"loan {loan['loan_id']} already renewed {loan['renewals']} times"))
        if is_overdue(loan):
            out.append(("library.renew.not_overdue", f"loan {loan['loan_id']} was due {loan['due_date']}"))
    return out


def rule_violations(initial_state: dict[str, Any], calls: list[dict[str, Any]],
                    final_state: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """``[{"rule_id", "step", "detail"}]`` for every rule the executed ``calls``
    (``[{"name", "arguments", "error"}]``) break, judged by replaying the successful calls on a
    copy of ``initial_state``. ``final_state`` is not needed (protocol signature)."""
    state, out = copy.deepcopy(initial_state), []
    member_id: str | None = None
    for step, call in enumerate(calls):
        if call.get("error") or call.get("name") not in TOOLS:
            continue
        args = dict(call.get("arguments") or {})
        for rule_id, detail in check_call(state, call["name"], args, member_id):
            out.append({"rule_id": rule_id, "step": step, "detail": detail})
        try:
            result = TOOLS[call["name"]].fn(state, **copy.deepcopy(args))
        except (ToolError, TypeError):
            continue
        if call["name"] == "find_member" and member_id is None:
            member_id = json.loads(result)["member_id"]
    return out
