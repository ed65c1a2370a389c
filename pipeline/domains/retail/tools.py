"""The retail store's tools: each behaviour function sits right beside its OpenAI function schema.

Names, argument names and result formats follow the tau-bench retail system: read tools return
JSON text of the stored record(s) (``find_user_id_*`` return the bare user id); write tools
return the JSON text of the changed order (``modify_user_address`` of the changed user);
business errors raise :class:`~pipeline.domains.base.ToolError`, shown to the agent as
``"Error: <msg>"``.

What the API checks and what it leaves to the agent (as in the airline domain): the tools check
*data integrity* - that users, orders, items, products and payment methods exist, that the items
named are in the order, that a new item exists in the catalogue and is available, that a gift
card balance covers what it must pay, that argument lists have matching lengths. They do NOT
check the *business rules* of ``policy.md`` - order status (cancel/modify only 'pending',
return/exchange only 'delivered'), one modification per order, same product type, refund
destination, a different payment method. The agent must keep those;
:func:`pipeline.domains.retail.rules.rule_violations` detects every break of them.

Everything is deterministic (no clock, no randomness). Money is dollars rounded to cents.
"""
from __future__ import annotations

import json
from collections import Counter
from typing import Any

from pipeline.domains.base import Tool, ToolError
from pipeline.domains.common import get_record, object_params, tool_registry
from pipeline.domains.shared import register_shared_tools

from .state import CANCEL_REASONS

TOOLS: dict[str, Tool] = {}


#: Decorator ``_register(schema, writes=False)``: the tool function beside its schema goes into :data:`TOOLS`.
_register = tool_registry(TOOLS)
#: A tool's JSON-schema ``parameters`` (every property required unless ``required`` says otherwise).
_params = object_params


# ---- shared argument schemas -----------------------------------------------------------------

_USER_ID = {"type": "string", "description": "The user id, such as 'sara_doe_4961'."}
_ORDER_ID = {"type": "string", "description": "The order id, such as '#W0000000' (with the '#')."}
_PAYMENT_ID = {"type": "string", "description": "Id of a payment method in the user's profile, such as "
                                                "'gift_card_0000000', 'credit_card_0000000' or 'paypal_0000000'."}
_ITEM_IDS = {"type": "array", "minItems": 1, "items": {"type": "string"},
             "description": "Item ids, such as ['1008292230']; an id may repeat when the order holds it twice."}
_ADDRESS = {
    "address1": {"type": "string", "description": "First line, such as '123 Main St'."},
    "address2": {"type": "string", "description": "Second line, such as 'Apt 1' or ''."},
    "city": {"type": "string"},
    "state": {"type": "string", "description": "Two-letter state code, such as 'CA'."},
    "country": {"type": "string", "description": "Country, such as 'USA'."},
    "zip": {"type": "string", "description": "Zip code, such as '12345'."},
}


# ---- helpers ---------------------------------------------------------------------------------

def _dumps(obj: Any) -> str:
    return json.dumps(obj)


def _money(x: float) -> float:
    return round(float(x), 2)


def _user(state: dict[str, Any], user_id: str) -> dict[str, Any]:
    return get_record(state, "users", user_id, "user")


def _order(state: dict[str, Any], order_id: str) -> dict[str, Any]:
    order = state["orders"].get(order_id)
    if order is None and not order_id.startswith("#"):
        order = state["orders"].get("#" + order_id)
    if order is None:
        raise ToolError("order not found")
    return order


def find_variant(state: dict[str, Any], item_id: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """``(product, variant)`` of catalogue item ``item_id``, or None when no product has it."""
    for prod in state["products"].values():
        v = prod["variants"].get(item_id)
        if v is not None:
            return prod, v
    return None


def _payment(user: dict[str, Any], payment_method_id: str) -> dict[str, Any]:
    pm = user["payment_methods"].get(payment_method_id)
    if pm is None:
        raise ToolError("payment method not found")
    return pm


def _check_items_in_order(order: dict[str, Any], item_ids: list[str]) -> None:
    have = Counter(it["item_id"] for it in order["items"])
    for item_id, n in Counter(item_ids).items():
        if have[item_id] < n:
            raise ToolError(f"item {item_id} not found in order")


def _new_items(state: dict[str, Any], item_ids: list[str], new_item_ids: list[str]) -> list[tuple[dict, dict]]:
    if len(item_ids) != len(new_item_ids):
        raise ToolError("the number of items to be exchanged should match")
    out = []
    for new_id in new_item_ids:
        found = find_variant(state, new_id)
        if found is None:
            raise ToolError(f"new item {new_id} not found")
        if not found[1]["available"]:
            raise ToolError(f"new item {new_id} not available")
        out.append(found)
    return out


def _price_difference(order: dict[str, Any], item_ids: list[str], found: list[tuple[dict, dict]]) -> float:
    old = {it["item_id"]: it["price"] for it in order["items"]}
    return _money(sum(v["price"] for _p, v in found) - sum(old[i] for i in item_ids))


def _charge_gift_card(pm: dict[str, Any], amount: float) -> None:
    """Take ``amount`` (may be negative: a refund) from a gift card; ToolError when short."""
    if pm["source"] != "gift_card":
        return
    if amount > 0 and pm["balance"] < amount:
        raise ToolError("insufficient gift card balance to pay for the price difference")
    pm["balance"] = _money(pm["balance"] - amount)


# ---- read tools ------------------------------------------------------------------------------

@_register({
    "name": "find_user_id_by_email",
    "description": "Find a user id by email address. If the user is not found, an error is returned.",
    "parameters": _params({"email": {"type": "string", "description": "The email, such as 'something@example.com'."}}),
})
def find_user_id_by_email(state: dict[str, Any], email: str) -> str:
    """The user id whose email equals ``email`` (case-insensitive). ToolError("user not found")."""
    for uid, user in state["users"].items():
        if user["email"].lower() == email.strip().lower():
            return uid
    raise ToolError("user not found")


@_register({
    "name": "find_user_id_by_name_zip",
    "description": "Find a user id by first name, last name and zip code. If the user is not found, an "
                   "error is returned.",
    "parameters": _params({
        "first_name": {"type": "string", "description": "First name, such as 'John'."},
        "last_name": {"type": "string", "description": "Last name, such as 'Doe'."},
        "zip": {"type": "string", "description": "Zip code, such as '12345'."},
    }),
})
def find_user_id_by_name_zip(state: dict[str, Any], first_name: str, last_name: str, zip: str) -> str:
    """The user id matching the names (case-insensitive) and zip exactly. ToolError otherwise."""
    for uid, user in state["users"].items():
        n = user["name"]
        if (n["first_name"].lower() == first_name.strip().lower() and n["last_name"].lower() == last_name.strip().lower()
                and user["address"]["zip"] == zip.strip()):
            return uid
    raise ToolError("user not found")


@_register({
    "name": "get_user_details",
    "description": "Get the profile of a user: name, default address, email, payment methods (with gift "
                   "card balances) and order ids.",
    "parameters": _params({"user_id": _USER_ID}),
})
def get_user_details(state: dict[str, Any], user_id: str) -> str:
    """The user record as JSON text. ToolError("user not found")."""
    return _dumps(_user(state, user_id))


@_register({
    "name": "get_order_details",
    "description": "Get the status and details of an order: address, items with prices and options, "
                   "fulfillments with tracking ids, status and payment history.",
    "parameters": _params({"order_id": _ORDER_ID}),
})
def get_order_details(state: dict[str, Any], order_id: str) -> str:
    """The order record as JSON text (an id without '#' is accepted). ToolError("order not found")."""
    return _dumps(_order(state, order_id))


@_register({
    "name": "get_product_details",
    "description": "Get the inventory details of a product type: its name and every variant item with "
                   "options, availability and price.",
    "parameters": _params({"product_id": {"type": "string", "description": "The product id, such as "
                                          "'6086499569'. Be careful: product ids differ from item ids."}}),
})
def get_product_details(state: dict[str, Any], product_id: str) -> str:
    """The product record as JSON text. ToolError("product not found")."""
    prod = state["products"].get(product_id)
    if prod is None:
        raise ToolError("product not found")
    return _dumps(prod)


@_register({
    "name": "list_all_product_types",
    "description": "List the name and product id of every product type the store sells.",
    "parameters": _params({}),
})
def list_all_product_types(state: dict[str, Any]) -> str:
    """JSON object ``{product name: product id}`` sorted by name."""
    return _dumps(dict(sorted((p["name"], pid) for pid, p in state["products"].items())))


# ---- the tools every domain shares (pipeline.domains.shared), in this domain's words --------------

register_shared_tools(
    _register,
    calculate_description="Calculate the result of an arithmetic expression (numbers, + - * / and parentheses).",
    expression_description="Such as '2 + 2' or '(12.5 - 3) * 2'.",
    think_description="Think about something: write down a reasoning step. It does not read or change any data.",
    handoff_description="Transfer the customer to a human agent with a summary of the issue. Only use it when "
                        "the request cannot be handled with the other tools within the policy.",
)


# ---- write tools -----------------------------------------------------------------------------

@_register({
    "name": "cancel_pending_order",
    "description": "Cancel a pending order. The agent must check the status is 'pending' and obtain the "
                   "customer's confirmation first. The total is refunded to the original payment methods "
                   "(gift cards at once, others in 5 to 7 business days).",
    "parameters": _params({"order_id": _ORDER_ID,
                           "reason": {"type": "string", "enum": list(CANCEL_REASONS),
                                      "description": "The reason for cancellation."}}),
}, writes=True)
def cancel_pending_order(state: dict[str, Any], order_id: str, reason: str) -> str:
    """Refund every payment of the order, set status 'cancelled' and ``cancel_reason``; return
    the order JSON. ToolError for an unknown order or a reason outside CANCEL_REASONS.
    Does not check the status (rule retail.cancel.pending_only is the agent's)."""
    if reason not in CANCEL_REASONS:
        raise ToolError("invalid reason")
    order = _order(state, order_id)
    user = _user(state, order["user_id"])
    refunds = []
    for tx in order["payment_history"]:
        if tx["transaction_type"] != "payment":
            continue
        refunds.append({"transaction_type": "refund", "amount": tx["amount"],
                        "payment_method_id": tx["payment_method_id"]})
        pm = user["payment_methods"].get(tx["payment_method_id"])
        if pm is not None and pm["source"] == "gift_card":
            pm["balance"] = _money(pm["balance"] + tx["amount"])
    order["payment_history"].extend(refunds)
    order["status"] = "cancelled"
    order["cancel_reason"] = reason
    return _dumps(order)


@_register({
    "name": "modify_pending_order_address",
    "description": "Change the shipping address of a pending order. The agent must check the status and "
                   "obtain the customer's confirmation first.",
    "parameters": _params({"order_id": _ORDER_ID, **_ADDRESS}),
}, writes=True)
def modify_pending_order_address(db: dict[str, Any], order_id: str, address1: str, address2: str, city: str,
                                 state: str, country: str, zip: str) -> str:
    """Replace the order's address; return the order JSON. ToolError("order not found").
    (The database is the first parameter ``db`` here because ``state`` is an address field.)"""
    order = _order(db, order_id)
    order["address"] = {"address1": address1, "address2": address2, "city": city, "country": country,
                        "state": state, "zip": zip}
    return _dumps(order)


@_register({
    "name": "modify_pending_order_payment",
    "description": "Pay a pending order with another payment method of the user's profile: the new "
                   "method is charged the total and the original payment is refunded. The agent must check "
                   "the status and obtain the customer's confirmation first.",
    "parameters": _params({"order_id": _ORDER_ID, "payment_method_id": _PAYMENT_ID}),
}, writes=True)
def modify_pending_order_payment(state: dict[str, Any], order_id: str, payment_method_id: str) -> str:
    """Append a payment by the new method and a refund to the old one, adjust gift card
    balances; return the order JSON. ToolError for an unknown order/payment method, an order
    without exactly one payment, or a gift card whose balance does not cover the total."""
    order = _order(state, order_id)
    user = _user(state, order["user_id"])
    new_pm = _payment(user, payment_method_id)
    payments = [t for t in order["payment_history"] if t["transaction_type"] == "payment"]
    if len(payments) != 1 or len(order["payment_history"]) != 1:
        raise ToolError("there should be exactly one payment for a pending order")
    amount = payments[0]["amount"]
    if new_pm["source"] == "gift_card" and new_pm["balance"] < amount:
        raise ToolError("insufficient gift card balance to pay for the order")
    old_id = payments[0]["payment_method_id"]
    _charge_gift_card(new_pm, amount)
    old_pm = user["payment_methods"].get(old_id)
    if old_pm is not None:
        _charge_gift_card(old_pm, -amount)
    order["payment_history"].extend([
        {"transaction_type": "payment", "amount": amount, "payment_method_id": payment_method_id},
        {"transaction_type": "refund", "amount": amount, "payment_method_id": old_id},
    ])
    return _dumps(order)


@_register({
    "name": "modify_pending_order_items",
    "description": "Change items of a pending order to other options of the same products; can be done "
                   "once per order. The price difference is paid with, or refunded to, the named payment "
                   "method. The agent must check the status, collect every item to change and obtain the "
                   "customer's confirmation first.",
    "parameters": _params({"order_id": _ORDER_ID, "item_ids": _ITEM_IDS,
                           "new_item_ids": {**_ITEM_IDS, "description": "The new item ids, in the same order "
                                            "as item_ids, such as ['1008292230']."},
                           "payment_method_id": _PAYMENT_ID}),
}, writes=True)
def modify_pending_order_items(state: dict[str, Any], order_id: str, item_ids: list[str], new_item_ids: list[str],
                               payment_method_id: str) -> str:
    """Replace the items, record the price difference (payment if positive, refund if
    negative), set status 'pending (item modified)'; return the order JSON. ToolError for an
    unknown order/item/payment method, an unavailable new item, mismatched list lengths or a
    short gift card. Does not check status or product type (rules retail.modify.*)."""
    order = _order(state, order_id)
    user = _user(state, order["user_id"])
    _check_items_in_order(order, item_ids)
    found = _new_items(state, item_ids, new_item_ids)
    pm = _payment(user, payment_method_id)
    diff = _price_difference(order, item_ids, found)
    _charge_gift_card(pm, diff)
    if diff != 0:
        order["payment_history"].append({"transaction_type": "payment" if diff > 0 else "refund",
                                         "amount": abs(diff), "payment_method_id": payment_method_id})
    pending = list(item_ids)
    for it in order["items"]:
        if it["item_id"] in pending:
            k = pending.index(it["item_id"])
            prod, var = found[k]
            pending[k] = None  # type: ignore[call-overload]
            it.update({"name": prod["name"], "product_id": prod["product_id"], "item_id": var["item_id"],
                       "price": var["price"], "options": dict(var["options"])})
    order["status"] = "pending (item modified)"
    return _dumps(order)


@_register({
    "name": "modify_user_address",
    "description": "Change the default address of a user (existing orders keep their address). The agent "
                   "must obtain the customer's confirmation first.",
    "parameters": _params({"user_id": _USER_ID, **_ADDRESS}),
}, writes=True)
def modify_user_address(db: dict[str, Any], user_id: str, address1: str, address2: str, city: str,
                        state: str, country: str, zip: str) -> str:
    """Replace the user's default address; return the user JSON. ToolError("user not found").
    (The database is the first parameter ``db`` because ``state`` is an address field.)"""
    user = _user(db, user_id)
    user["address"] = {"address1": address1, "address2": address2, "city": city, "country": country,
                       "state": state, "zip": zip}
    return _dumps(user)


@_register({
    "name": "return_delivered_order_items",
    "description": "Request the return of items of a delivered order; the refund goes to the named "
                   "payment method. The order becomes 'return requested' and the customer gets an email "
                   "with instructions. The agent must check the status and obtain the customer's "
                   "confirmation first.",
    "parameters": _params({"order_id": _ORDER_ID, "item_ids": _ITEM_IDS, "payment_method_id": _PAYMENT_ID}),
}, writes=True)
def return_delivered_order_items(state: dict[str, Any], order_id: str, item_ids: list[str],
                                 payment_method_id: str) -> str:
    """Set status 'return requested', ``return_items`` (sorted) and ``return_payment_method_id``;
    return the order JSON. ToolError for an unknown order/payment method or an item not in the
    order. Does not check status or refund destination (rules retail.return.*)."""
    order = _order(state, order_id)
    user = _user(state, order["user_id"])
    _payment(user, payment_method_id)
    _check_items_in_order(order, item_ids)
    order["status"] = "return requested"
    order["return_items"] = sorted(item_ids)
    order["return_payment_method_id"] = payment_method_id
    return _dumps(order)


@_register({
    "name": "exchange_delivered_order_items",
    "description": "Exchange items of a delivered order for other options of the same products; can be "
                   "done once per order. The price difference is paid with, or refunded to, the named "
                   "payment method. The order becomes 'exchange requested'. The agent must check the "
                   "status, collect every item and obtain the customer's confirmation first.",
    "parameters": _params({"order_id": _ORDER_ID, "item_ids": _ITEM_IDS,
                           "new_item_ids": {**_ITEM_IDS, "description": "The new item ids, in the same order "
                                            "as item_ids, such as ['1008292230']."},
                           "payment_method_id": _PAYMENT_ID}),
}, writes=True)
def exchange_delivered_order_items(state: dict[str, Any], order_id: str, item_ids: list[str],
                                   new_item_ids: list[str], payment_method_id: str) -> str:
    """Set status 'exchange requested' with ``exchange_items`` / ``exchange_new_items`` (sorted),
    ``exchange_payment_method_id`` and ``exchange_price_difference``; return the order JSON.
    ToolError as for :func:`modify_pending_order_items` (gift card must cover a positive
    difference; nothing is charged until the items come back)."""
    order = _order(state, order_id)
    user = _user(state, order["user_id"])
    _check_items_in_order(order, item_ids)
    found = _new_items(state, item_ids, new_item_ids)
    pm = _payment(user, payment_method_id)
    diff = _price_difference(order, item_ids, found)
    if pm["source"] == "gift_card" and diff > 0 and pm["balance"] < diff:
        raise ToolError("insufficient gift card balance to pay for the price difference")
    order["status"] = "exchange requested"
    order["exchange_items"] = sorted(item_ids)
    order["exchange_new_items"] = sorted(new_item_ids)
    order["exchange_payment_method_id"] = payment_method_id
    order["exchange_price_difference"] = diff
    return _dumps(order)


WRITE_TOOLS: frozenset[str] = frozenset(n for n, t in TOOLS.items() if t.writes)
READ_TOOLS: frozenset[str] = frozenset(n for n, t in TOOLS.items() if not t.writes)
