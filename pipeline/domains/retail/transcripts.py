"""Transcript tool inference for the retail domain (:meth:`RetailDomain.transcript_call`).

A flattened transcript (``shared/data/tau-bench/logs/retail-transcripts.jsonl``) shows a hidden
call only by its result; the retail shapes name it (docs/domains.md, "Logs without tool names"):

* a bare user id (``first_last_1234``), or ``Error: user not found`` -> ``find_user_id_by_email``
  (an email in the customer's last turn) or ``find_user_id_by_name_zip`` (a zip in it);
* a user profile -> ``get_user_details`` (``modify_user_address`` when the address differs
  from the version seen before in the transcript);
* an order -> ``get_order_details``, or ``cancel_pending_order`` / ``return_delivered_order_items``
  / ``exchange_delivered_order_items`` / ``modify_pending_order_items`` /
  ``modify_pending_order_address`` / ``modify_pending_order_payment`` when, compared with the
  version seen before, the status, address or payment history changed that way (arguments are
  read from the changed record: reason, item ids, new item ids, payment method, address);
  ``Error: order not found`` -> ``get_order_details``;
* a product (``variants``) -> ``get_product_details``; a ``{name: product id}`` map ->
  ``list_all_product_types``.

A bare user id is also remembered as the transcript's ``last_user_id`` (other domains' profile
lookups take it as their argument).
"""
from __future__ import annotations

import re
from typing import Any

from pipeline.domains.base import TranscriptContext

USER_ID = re.compile(r"^[a-z]+(?:_[a-z]+)+_\d{3,5}$")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_ZIP = re.compile(r"\b\d{5}\b")
_ORDER_ID = re.compile(r"#?W\d{7}\b")

Named = tuple[str, dict[str, Any] | None]


def _identity(ctx: TranscriptContext, found: str | None) -> Named:
    email = _EMAIL.search(ctx.last_user_text)
    if email:
        return "find_user_id_by_email", {"email": email.group(0)}
    args: dict[str, Any] = {}
    if found and USER_ID.match(found):
        parts = found.split("_")
        args = {"first_name": parts[0].capitalize(), "last_name": parts[-2].capitalize()}
    z = _ZIP.search(ctx.last_user_text)
    if z:
        args["zip"] = z.group(0)
    return "find_user_id_by_name_zip", args


def _order_call(orders: dict[str, dict[str, Any]], new: dict[str, Any]) -> Named:
    oid = new["order_id"]
    old = orders.get(oid)
    orders[oid] = new
    if old is None or old == new:
        return "get_order_details", {"order_id": oid}
    st, was = new.get("status"), old.get("status")
    if st == "cancelled" and was != "cancelled":
        return "cancel_pending_order", {"order_id": oid, "reason": new.get("cancel_reason")}
    if st == "return requested" and was != st:
        return "return_delivered_order_items", {"order_id": oid, "item_ids": new.get("return_items"),
                                                "payment_method_id": new.get("return_payment_method_id")}
    if st == "exchange requested" and was != st:
        return "exchange_delivered_order_items", {
            "order_id": oid, "item_ids": new.get("exchange_items"), "new_item_ids": new.get("exchange_new_items"),
            "payment_method_id": new.get("exchange_payment_method_id")}
    if st and st.startswith("pending (item") and not (was or "").startswith("pending (item"):
        old_ids = [i.get("item_id") for i in old.get("items", [])]
        new_ids = [i.get("item_id") for i in new.get("items", [])]
        changed = [(a, b) for a, b in zip(old_ids, new_ids) if a != b]
        added = new.get("payment_history", [])[len(old.get("payment_history", [])):]
        args = {"order_id": oid, "item_ids": [a for a, _ in changed], "new_item_ids": [b for _, b in changed]}
        if added:
            args["payment_method_id"] = added[-1].get("payment_method_id")
        return "modify_pending_order_items", args
    if new.get("address") != old.get("address"):
        return "modify_pending_order_address", {"order_id": oid, **(new.get("address") or {})}
    added = new.get("payment_history", [])[len(old.get("payment_history", [])):]
    pays = [t for t in added if t.get("transaction_type") == "payment"]
    if pays:
        return "modify_pending_order_payment", {"order_id": oid, "payment_method_id": pays[0].get("payment_method_id")}
    return "get_order_details", {"order_id": oid}


def transcript_call(text: str, value: Any, ctx: TranscriptContext) -> Named | None:
    """The retail tool a hidden call with result ``text`` (JSON ``value``) was, or None (see the
    module docstring); keeps the orders and profiles seen in ``ctx.recall("retail")``."""
    memory = ctx.recall("retail")
    if USER_ID.match(text):
        ctx.last_user_id = text
        return _identity(ctx, text)
    if text == "Error: user not found":
        return _identity(ctx, None)
    if text == "Error: order not found":
        m = _ORDER_ID.search(ctx.last_user_text)
        oid = m.group(0) if m else None
        return "get_order_details", ({"order_id": oid if oid.startswith("#") else "#" + oid} if oid else None)
    if not isinstance(value, dict):
        return None
    if "order_id" in value:
        return _order_call(memory.setdefault("orders", {}), value)
    if "variants" in value and "product_id" in value:
        return "get_product_details", {"product_id": value["product_id"]}
    if "payment_methods" in value and "email" in value:
        users = memory.setdefault("users", {})  # email -> the last profile seen
        old = users.get(value["email"])
        users[value["email"]] = value
        uid = ctx.last_user_id
        if old is not None and old.get("address") != value.get("address"):
            return "modify_user_address", ({"user_id": uid, **(value.get("address") or {})} if uid else None)
        return "get_user_details", ({"user_id": uid} if uid else None)
    if value and all(isinstance(v, str) and v.isdigit() for v in value.values()):
        return "list_all_product_types", {}
    return None
