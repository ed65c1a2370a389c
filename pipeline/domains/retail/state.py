"""Retail store state: plain JSON-serialisable dicts, with optional pydantic validation.

The state has the record shapes of the tau-bench retail database files (learned from
``shared/data/tau-bench/retail``; no data is copied)::

    {"users":    {user_id: User},
     "orders":   {order_id: Order},
     "products": {product_id: Product}}

* **User** ``{"name": {"first_name", "last_name"}, "address": Address, "email",
  "payment_methods": {payment_id: PaymentMethod}, "orders": [order_id, ...]}``.
* **Address** ``{"address1", "address2", "city", "country", "state", "zip"}``.
* **PaymentMethod** ``{"source": "credit_card", "brand", "last_four", "id"}``,
  ``{"source": "paypal", "id"}`` or ``{"source": "gift_card", "balance": <dollars>, "id"}``.
* **Product** ``{"name", "product_id", "variants": {item_id: {"item_id", "options": {str: str},
  "available": bool, "price": <dollars>}}}`` - a product *type* (e.g. "T-Shirt") with variant
  *items*; product ids and item ids are unrelated 10-digit strings.
* **Order** ``{"order_id": "#Wddddddd", "user_id", "address": Address, "items": [{"name",
  "product_id", "item_id", "price", "options"}], "fulfillments": [{"tracking_id": [str],
  "item_ids": [str]}], "status", "payment_history": [{"transaction_type": "payment"|"refund",
  "amount", "payment_method_id"}]}``. ``status`` is one of :data:`ORDER_STATUSES`. Write tools
  add ``cancel_reason``; ``return_items`` / ``return_payment_method_id``; ``exchange_items`` /
  ``exchange_new_items`` / ``exchange_payment_method_id`` / ``exchange_price_difference``.

Money is in dollars with cents (floats rounded to 2 decimals).
"""
from __future__ import annotations

from typing import Any, Literal

from pipeline.domains.common import Address, Name, StrictModel as _Strict, copy_state  # noqa: F401 (re-exported)
from pipeline.domains.common import check_owner, check_payment_method_keys, check_record

#: Every order status the store uses. Agents may act on "pending" (cancel/modify) and
#: "delivered" (return/exchange) orders only (see policy.md).
ORDER_STATUSES: tuple[str, ...] = ("pending", "processed", "delivered", "cancelled",
                                   "pending (item modified)", "return requested", "exchange requested")

#: Cancellation reasons the policy accepts (rule retail.cancel.reason).
CANCEL_REASONS: tuple[str, ...] = ("no longer needed", "ordered by mistake")


def empty_state() -> dict[str, Any]:
    """A state with no users, orders or products."""
    return {"users": {}, "orders": {}, "products": {}}


class PaymentMethod(_Strict):
    """A stored payment method; gift cards carry a dollar ``balance``."""

    source: Literal["credit_card", "paypal", "gift_card"]
    id: str
    brand: str | None = None
    last_four: str | None = None
    balance: float | None = None


class User(_Strict):
    """A customer profile (see the module docstring)."""

    name: Name
    address: Address
    email: str
    payment_methods: dict[str, PaymentMethod]
    orders: list[str]


class Variant(_Strict):
    """One purchasable item of a product."""

    item_id: str
    options: dict[str, str]
    available: bool
    price: float


class Product(_Strict):
    """A product type with its variant items."""

    name: str
    product_id: str
    variants: dict[str, Variant]


class OrderItem(_Strict):
    """An item line of an order (one unit)."""

    name: str
    product_id: str
    item_id: str
    price: float
    options: dict[str, str]


class Fulfillment(_Strict):
    """A shipment: tracking numbers and the item ids it carries."""

    tracking_id: list[str]
    item_ids: list[str]


class Transaction(_Strict):
    """A payment-history entry."""

    transaction_type: Literal["payment", "refund"]
    amount: float
    payment_method_id: str


class Order(_Strict):
    """An order (see the module docstring)."""

    order_id: str
    user_id: str
    address: Address
    items: list[OrderItem]
    fulfillments: list[Fulfillment]
    status: Literal["pending", "processed", "delivered", "cancelled", "pending (item modified)",
                    "return requested", "exchange requested"]
    payment_history: list[Transaction]
    cancel_reason: str | None = None
    return_items: list[str] | None = None
    return_payment_method_id: str | None = None
    exchange_items: list[str] | None = None
    exchange_new_items: list[str] | None = None
    exchange_payment_method_id: str | None = None
    exchange_price_difference: float | None = None


def validate_state(state: dict[str, Any]) -> None:
    """Check every record of ``state`` against the shapes above plus cross-references (an
    order's user exists and lists it; its items exist in the catalogue; keys equal ids).

    Raises ``ValueError`` (pydantic's ``ValidationError`` is a subclass) on the first problem.
    """
    if not isinstance(state, dict) or set(state) != {"users", "orders", "products"}:
        got = sorted(state) if isinstance(state, dict) else type(state).__name__
        raise ValueError(f"state must have exactly users/orders/products, got {got}")
    for uid, user in state["users"].items():
        User.model_validate(user)
        check_payment_method_keys(uid, user)
    for pid, prod in state["products"].items():
        check_record(Product, prod, pid, "product_id", "product")
    for oid, order in state["orders"].items():
        check_record(Order, order, oid, "order_id", "order")
        check_owner(state["users"], "order", oid, order["user_id"], "orders")
        for it in order["items"]:
            prod = state["products"].get(it["product_id"])
            if prod is None or it["item_id"] not in prod["variants"]:
                raise ValueError(f"order {oid}: item {it['item_id']} not in product {it['product_id']}")
