"""The retail policy as data (one :class:`PolicyRule` per rule of ``policy.md``) plus the
deterministic rule checker :func:`rule_violations`.

``policy.md`` is the single source: every bullet ``- [retail.x.y] text`` becomes
``PolicyRule(rule_id="retail.x.y", text="text")``. The rules are our own wording of the
tau-bench retail policy (``shared/data/tau-bench/retail/policy.md``, MIT licence). The tools
check data integrity only; the business rules are the agent's to keep, and
:func:`rule_violations` finds every break of them by replaying the executed calls.
"""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Iterable

from pipeline.domains.base import ToolError
from pipeline.domains.common import parse_policy_rules, select_rules
from pipeline.records import PolicyRule

from .tools import TOOLS, WRITE_TOOLS, find_variant

POLICY_PATH = Path(__file__).with_name("policy.md")
#: The policy document given to agents (markdown).
POLICY_TEXT: str = POLICY_PATH.read_text(encoding="utf-8")


def parse_rules(policy_text: str) -> list[PolicyRule]:
    """Every ``- [retail.x.y] text`` bullet of ``policy_text``, in document order.
    Raises ValueError on a duplicate rule id."""
    return parse_policy_rules(policy_text, "retail")


#: All rules of the retail policy, in document order.
RULES: list[PolicyRule] = parse_rules(POLICY_TEXT)
RULES_BY_ID: dict[str, PolicyRule] = {r.rule_id: r for r in RULES}

#: Rules that bind every state-changing call.
GENERAL_WRITE_RULES = ("retail.general.identify", "retail.general.one_user", "retail.general.confirm",
                       "retail.general.facts_only", "retail.general.one_step")

#: Tool name -> ids of the rules specific to it.
TOOL_RULES: dict[str, tuple[str, ...]] = {
    "cancel_pending_order": ("retail.data.status", "retail.cancel.pending_only", "retail.cancel.reason",
                             "retail.cancel.refund"),
    "modify_pending_order_address": ("retail.data.status", "retail.modify.pending_only"),
    "modify_pending_order_payment": ("retail.data.status", "retail.modify.pending_only",
                                     "retail.modify_payment.single_different",
                                     "retail.modify_payment.gift_card_balance"),
    "modify_pending_order_items": ("retail.data.status", "retail.data.products", "retail.modify.pending_only",
                                   "retail.modify_items.once", "retail.modify_items.same_product",
                                   "retail.modify_items.payment"),
    "return_delivered_order_items": ("retail.data.status", "retail.return.delivered_only",
                                     "retail.return.confirm_items", "retail.return.refund_destination",
                                     "retail.return.result"),
    "exchange_delivered_order_items": ("retail.data.status", "retail.data.products",
                                       "retail.exchange.delivered_only", "retail.exchange.same_product",
                                       "retail.exchange.payment", "retail.exchange.result"),
    "modify_user_address": ("retail.user_address.update",),
    "transfer_to_human_agents": ("retail.general.transfer",),
}


def rules_for_tools(tool_names: Iterable[str]) -> list[PolicyRule]:
    """The rules constraining calls to ``tool_names``, in policy order, without repeats: write
    tools get the general rules plus their own; ``transfer_to_human_agents`` the transfer rule;
    read tools and unknown names add nothing."""
    return select_rules(RULES, tool_names, WRITE_TOOLS, GENERAL_WRITE_RULES, TOOL_RULES)


# ---- rule checker ----------------------------------------------------------------------------

_IDENTITY = ("find_user_id_by_email", "find_user_id_by_name_zip")


def _order_of(state: dict[str, Any], order_id: Any) -> dict[str, Any] | None:
    if not isinstance(order_id, str):
        return None
    return state["orders"].get(order_id) or state["orders"].get("#" + order_id)


def _same_product_breaks(state: dict[str, Any], order: dict[str, Any], item_ids: list[str],
                         new_item_ids: list[str]) -> list[str]:
    """Descriptions of each (old -> new) pair that changes product type or keeps the same item."""
    out = []
    product_of = {it["item_id"]: it["product_id"] for it in order["items"]}
    for old, new in zip(item_ids, new_item_ids):
        found = find_variant(state, new)
        new_pid = found[0]["product_id"] if found else None
        if product_of.get(old) != new_pid:
            out.append(f"item {old} (product {product_of.get(old)}) -> {new} (product {new_pid})")
        elif old == new:
            out.append(f"item {old} -> the same item (no option changes)")
    return out


def check_call(state: dict[str, Any], name: str, args: dict[str, Any], identified: str | None) -> list[tuple[str, str]]:
    """``(rule_id, detail)`` for every business rule that the write call ``name(**args)`` breaks
    when made on ``state`` (the state just before the call). ``identified`` is the user id the
    conversation established (None if none yet). Read calls break nothing here."""
    out: list[tuple[str, str]] = []
    if name not in WRITE_TOOLS:
        return out
    if name == "modify_user_address":
        if identified is not None and args.get("user_id") != identified:
            out.append(("retail.general.one_user", f"address change for {args.get('user_id')}, "
                        f"but the customer is {identified}"))
        return out
    order = _order_of(state, args.get("order_id"))
    if order is None:
        return out
    status = order["status"]
    if identified is not None and order["user_id"] != identified:
        out.append(("retail.general.one_user", f"order {order['order_id']} belongs to {order['user_id']}, "
                    f"the customer is {identified}"))
    if name == "cancel_pending_order" and status != "pending":
        out.append(("retail.cancel.pending_only", f"cancelled order {order['order_id']} in status {status!r}"))
    if name.startswith("modify_pending_order_"):
        if status == "pending (item modified)":
            out.append(("retail.modify_items.once", f"order {order['order_id']} was already item-modified"))
        elif status != "pending":
            out.append(("retail.modify.pending_only", f"modified order {order['order_id']} in status {status!r}"))
    if name == "modify_pending_order_payment":
        original = next((t["payment_method_id"] for t in order["payment_history"]
                         if t["transaction_type"] == "payment"), None)
        if args.get("payment_method_id") == original:
            out.append(("retail.modify_payment.single_different",
                        f"new payment method {original} equals the original one"))
    if name in ("modify_pending_order_items", "exchange_delivered_order_items"):
        rule = "retail.modify_items.same_product" if name.startswith("modify") else "retail.exchange.same_product"
        for detail in _same_product_breaks(state, order, list(args.get("item_ids") or []),
                                           list(args.get("new_item_ids") or [])):
            out.append((rule, detail))
    if name == "return_delivered_order_items":
        if status != "delivered":
            out.append(("retail.return.delivered_only", f"returned items of order {order['order_id']} in "
                        f"status {status!r}"))
        original = next((t["payment_method_id"] for t in order["payment_history"]
                         if t["transaction_type"] == "payment"), None)
        pm_id = args.get("payment_method_id")
        pm = state["users"].get(order["user_id"], {}).get("payment_methods", {}).get(pm_id, {})
        if pm_id != original and pm.get("source") != "gift_card":
            out.append(("retail.return.refund_destination", f"refund to {pm_id}, neither the original "
                        f"payment method {original} nor a gift card"))
    if name == "exchange_delivered_order_items" and status != "delivered":
        out.append(("retail.exchange.delivered_only", f"exchanged items of order {order['order_id']} in "
                    f"status {status!r}"))
    return out


def rule_violations(initial_state: dict[str, Any], calls: list[dict[str, Any]],
                    final_state: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Every business rule of the retail policy that an executed call sequence breaks.

    ``calls`` are the executed calls in order, ``[{"name", "arguments", "error"}]`` (``error``
    None / absent for a successful call). The successful calls are replayed on a copy of
    ``initial_state`` so each write is judged on the state just before it (e.g. the order's
    status at that moment). Returns ``[{"rule_id", "step", "detail"}]`` with ``step`` the index
    in ``calls``; ``[]`` when no rule is broken. ``final_state`` is accepted for the Domain
    protocol and not needed (every rule here is decided by the state before a call).

    Path rules (identify before writing, confirmation, one tool call a turn) are checked by the
    trajectory verifier, not here; ``retail.general.one_user`` is checked against the user id the
    identity tools returned.
    """
    state = copy.deepcopy(initial_state)
    identified: str | None = None
    out: list[dict[str, Any]] = []
    for step, call in enumerate(calls):
        if call.get("error"):
            continue
        name, args = call.get("name"), dict(call.get("arguments") or {})
        tool = TOOLS.get(name)
        if tool is None:
            continue
        for rule_id, detail in check_call(state, name, args, identified):
            out.append({"rule_id": rule_id, "step": step, "detail": detail})
        before = copy.deepcopy(state) if tool.writes else None
        try:
            result = tool.fn(state, **copy.deepcopy(args))
        except (ToolError, TypeError, KeyError, ValueError):
            if before is not None:
                state = before  # as in the sandbox: a failed write leaves no change
            continue
        if name in _IDENTITY and identified is None:
            identified = result
    return out
