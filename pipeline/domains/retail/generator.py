"""Seeded generators of fictional retail entities (users, products, orders) and of task instances.

Entities come from ``Faker`` (seeded with ``seed_instance``) and ``random.Random(seed)``; no
wall-clock and no global random state, so the same seed always gives the same output. An
optional ``denylist(value) -> bool`` rejects personal values (full name "First Last", email,
address1, zip, user id, payment id, order id): a rejected value is redrawn, which keeps
fictional people from coinciding with real people seen in the logs. Product types and options
are generic catalogue words written for this module (not personal data, not copied data).

Task generators (:func:`generate_task`) build, for one *kind*, a small fresh state (one
customer with 1-4 orders plus two other customers, a catalogue of 8-10 product types), the
customer's opening message (from several templates), scripted later turns, a reference solution
that obeys the policy, and hidden notes naming the varied values and the deciding rule. Every
task is self-checked: its reference runs cleanly, changes the state exactly when the expected
outcome is an action, and breaks no rule (:func:`rules.rule_violations`).
"""
from __future__ import annotations

import copy
import random
import re
from typing import Any, Callable

from pipeline.domains.base import GeneratedTask
from pipeline.domains.common import MAX_TRIES as _MAX_TRIES
from pipeline.domains.common import Denylist, SeededFactory, hashed_seed, leaked_values

from . import rules as R
from .state import CANCEL_REASONS, empty_state
from .tools import TOOLS


_COLORS = ["black", "white", "red", "blue", "green", "silver", "gray", "purple"]
#: Generic product types: option name -> values, and a price range in dollars.
PRODUCT_TYPES: dict[str, tuple[dict[str, list[str]], tuple[int, int]]] = {
    "T-Shirt": ({"color": _COLORS[:5], "size": ["S", "M", "L", "XL"], "material": ["cotton", "polyester"]}, (18, 60)),
    "Hiking Boots": ({"size": ["7", "8", "9", "10", "11"], "material": ["leather", "synthetic"],
                      "waterproof": ["yes", "no"]}, (120, 260)),
    "Water Bottle": ({"capacity": ["500ml", "750ml", "1000ml"], "material": ["plastic", "glass", "stainless steel"],
                      "color": _COLORS[:4]}, (15, 60)),
    "Desk Lamp": ({"color": ["black", "white", "silver"], "brightness": ["low", "medium", "high"],
                   "power source": ["AC adapter", "battery", "USB"]}, (60, 160)),
    "Bluetooth Speaker": ({"color": ["black", "blue", "red"], "battery life": ["10 hours", "20 hours"],
                           "water resistance": ["yes", "no"]}, (50, 330)),
    "Backpack": ({"color": ["black", "gray", "green", "navy"], "size": ["small", "medium", "large"],
                  "material": ["nylon", "polyester", "leather"]}, (40, 220)),
    "Office Chair": ({"material": ["fabric", "mesh", "leather"], "color": ["black", "gray", "blue"],
                      "armrest": ["fixed", "adjustable", "none"]}, (300, 550)),
    "Coffee Maker": ({"color": ["black", "stainless steel"], "capacity": ["1 cup", "4 cups", "8 cups", "12 cups"],
                      "type": ["espresso", "drip", "french press"]}, (50, 350)),
    "Skateboard": ({"deck material": ["maple", "bamboo", "plastic"], "length": ["28 inch", "31 inch", "34 inch"],
                    "design": ["plain", "graphic", "custom"]}, (80, 220)),
    "Electric Kettle": ({"capacity": ["1L", "1.5L", "2L"], "material": ["plastic", "stainless steel", "glass"],
                         "color": ["white", "black", "silver"]}, (40, 250)),
    "Wireless Earbuds": ({"color": ["black", "white", "blue"], "battery life": ["4 hours", "6 hours", "8 hours"],
                          "water resistance": ["IPX4", "IPX7", "not resistant"]}, (60, 260)),
    "Bookshelf": ({"material": ["wood", "metal", "glass"], "color": ["brown", "white", "black"],
                   "height": ["3 ft", "4 ft", "5 ft", "6 ft"]}, (200, 550)),
    "Digital Camera": ({"resolution": ["20MP", "24MP", "30MP"], "zoom": ["3x", "5x", "10x"],
                        "storage": ["SD card", "CF card"]}, (1500, 3000)),
    "Yoga Mat": ({"thickness": ["4mm", "6mm", "8mm"], "material": ["PVC", "TPE", "natural rubber"],
                  "color": ["blue", "green", "purple", "pink"]}, (20, 120)),
}


class RetailFactory(SeededFactory):
    """Builds one fictional retail state from a seed (``state``: users/orders/products).

    Every personal value is checked against ``denylist`` and against values already used in this
    state, and redrawn on a hit (RuntimeError after 500 failed draws).
    """

    def __init__(self, seed: int, denylist: Denylist | None = None):
        super().__init__(seed, denylist, empty_state)

    def _digits(self, n: int) -> str:
        return self._draw(lambda: str(self.rng.randint(10 ** (n - 1), 10 ** n - 1)), lambda v: (v,))

    # ---- catalogue ---------------------------------------------------------------------------

    def product(self, type_name: str, n_variants: int | None = None) -> str:
        """Add product ``type_name`` with 4-8 distinct variants (at least 3 available); return
        its 10-digit product id."""
        options, (lo, hi) = PRODUCT_TYPES[type_name]
        rng = self.rng
        n = n_variants or rng.randint(4, 8)
        combos: list[dict[str, str]] = []
        for _ in range(200):
            c = {k: rng.choice(v) for k, v in options.items()}
            if c not in combos:
                combos.append(c)
            if len(combos) == n:
                break
        pid = self._digits(10)
        variants = {}
        for i, c in enumerate(combos):
            iid = self._digits(10)
            variants[iid] = {"item_id": iid, "options": c, "available": i < 3 or rng.random() < 0.8,
                             "price": round(rng.uniform(lo, hi), 2)}
        self.state["products"][pid] = {"name": type_name, "product_id": pid, "variants": variants}
        return pid

    def catalogue(self, k: int | None = None, must: tuple[str, ...] = ()) -> None:
        """Add ``k`` (8-10) product types, always including ``must``."""
        k = k or self.rng.randint(8, 10)
        names = list(must) + self.rng.sample([t for t in PRODUCT_TYPES if t not in must], k - len(must))
        for name in names:
            self.product(name)

    def products_by_name(self) -> dict[str, str]:
        """Product name -> product id of the catalogue."""
        return {p["name"]: pid for pid, p in self.state["products"].items()}

    # ---- users -------------------------------------------------------------------------------

    def user(self, sources: tuple[str, ...] | None = None) -> str:
        """Add a customer; return the user id ``firstname_lastname_dddd``. ``sources`` lists the
        payment methods to create (e.g. ``("gift_card", "credit_card")``); None draws 1-3."""
        rng, fake = self.rng, self.fake
        for _ in range(_MAX_TRIES):
            n = {"first_name": fake.first_name(), "last_name": fake.last_name()}
            first = "".join(c for c in n["first_name"].lower() if c.isalpha())
            last = "".join(c for c in n["last_name"].lower() if c.isalpha())
            if not first or not last:
                continue
            uid = f"{first}_{last}_{rng.randint(1000, 9999)}"
            email = f"{first}.{last}{rng.randint(1000, 9999)}@example.com"
            full = f"{n['first_name']} {n['last_name']}"
            if all(v not in self.used and not self.denylist(v) for v in (uid, email, full)):
                self.used.update((uid, email, full))
                break
        else:  # pragma: no cover
            raise RuntimeError("could not draw a user the denylist accepts")
        user = {"name": n, "address": self.address(), "email": email, "payment_methods": {}, "orders": []}
        self.state["users"][uid] = user
        if sources is None:
            sources = tuple(rng.sample(["credit_card", "paypal", "gift_card"], rng.randint(1, 3)))
        for src in sources:
            self.add_payment(uid, src)
        return uid

    def add_payment(self, user_id: str, source: str, balance: float | None = None) -> str:
        """Add a payment method (credit_card / paypal / gift_card); return its id."""
        pid = self._draw(lambda: f"{source}_{self.rng.randint(1_000_000, 9_999_999)}", lambda v: (v,))
        pm: dict[str, Any] = {"source": source, "id": pid}
        if source == "credit_card":
            pm.update(brand=self.rng.choice(["visa", "mastercard"]), last_four=f"{self.rng.randint(0, 9999):04d}")
        elif source == "gift_card":
            pm["balance"] = float(self.rng.randint(0, 300)) if balance is None else round(balance, 2)
        self.state["users"][user_id]["payment_methods"][pid] = pm
        return pid

    # ---- orders ------------------------------------------------------------------------------

    def order(self, user_id: str, status: str, n_items: int | None = None, payment_id: str | None = None,
              products: list[str] | None = None) -> str:
        """Add an order of ``n_items`` (1-5) items of distinct products in ``status``; paid in
        one payment (refunded too when cancelled); return the order id ``#Wddddddd``."""
        rng = self.rng
        user = self.state["users"][user_id]
        n = n_items or rng.randint(1, 5)
        pids = products or rng.sample(sorted(self.state["products"]), n)
        items = []
        for pid in pids:
            prod = self.state["products"][pid]
            iid = rng.choice(sorted(prod["variants"]))
            v = prod["variants"][iid]
            items.append({"name": prod["name"], "product_id": pid, "item_id": iid, "price": v["price"],
                          "options": dict(v["options"])})
        oid = self._draw(lambda: f"#W{rng.randint(1_000_000, 9_999_999)}", lambda v: (v,))
        if payment_id is None:
            payment_id = rng.choice(sorted(user["payment_methods"]))
        total = round(sum(i["price"] for i in items), 2)
        history = [{"transaction_type": "payment", "amount": total, "payment_method_id": payment_id}]
        fulfillments = []
        if status in ("processed", "delivered", "return requested", "exchange requested"):
            fulfillments = [{"tracking_id": [self._digits(12)], "item_ids": [i["item_id"] for i in items]}]
        order = {"order_id": oid, "user_id": user_id, "address": dict(user["address"]), "items": items,
                 "fulfillments": fulfillments, "status": status, "payment_history": history}
        if status == "cancelled":
            history.append({"transaction_type": "refund", "amount": total, "payment_method_id": payment_id})
            order["cancel_reason"] = rng.choice(CANCEL_REASONS)
        self.state["orders"][oid] = order
        user["orders"].append(oid)
        return oid


def generate_state(seed: int, n_users: int = 3, denylist: Denylist | None = None) -> dict[str, Any]:
    """A small fictional retail state: a catalogue and ``n_users`` customers with 1-3 orders
    each in mixed statuses. Same seed (and denylist) -> identical state."""
    fac = RetailFactory(seed, denylist)
    fac.catalogue()
    for _ in range(n_users):
        uid = fac.user()
        for _ in range(fac.rng.randint(1, 3)):
            fac.order(uid, fac.rng.choice(["pending", "processed", "delivered", "cancelled"]))
    return fac.state


# =============================================================================================
# Task generators

_CONFIRM = (["Yes, please go ahead."], ["Yes, that's right. Please proceed."], ["Yes, I confirm."],
            ["Yes - that's everything. Go ahead."])
_INSIST = (["Yes, I'm sure. Please just do it."], ["Are you sure? Yes, I'd really like that done."],
           ["Yes, please do it anyway."])


def _pay_phrase(pm: dict[str, Any]) -> str:
    if pm["source"] == "credit_card":
        brand = {"visa": "Visa card", "mastercard": "Mastercard"}.get(pm["brand"], "credit card")
        return f"my {brand} ending in {pm['last_four']}"
    if pm["source"] == "gift_card":
        return "my gift card"
    return "my PayPal account"


def _and_list(words: list[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _options_phrase(options: dict[str, str]) -> str:
    return ", ".join(f"{k} {v}" for k, v in options.items())


class _Ctx:
    """One task being built: factory, the customer, how they identify, and the reads so far."""

    def __init__(self, fac: RetailFactory, sources: tuple[str, ...] | None = None):
        self.fac, self.rng = fac, fac.rng
        fac.catalogue()
        for _ in range(2):  # other customers: the agent must not touch them
            other = fac.user()
            fac.order(other, self.rng.choice(["pending", "delivered"]))
        self.uid = fac.user(sources)
        self.user = fac.state["users"][self.uid]
        self.by_email = self.rng.random() < 0.5

    def opening(self) -> str:
        """The customer's self-identification (email, or full name + zip), varied wording."""
        u, rng = self.user, self.rng
        if self.by_email:
            return rng.choice([f"Hi, my email is {u['email']}.", f"Hello! You can find me under {u['email']}.",
                               f"Hi there, this is {u['name']['first_name']} ({u['email']})."])
        name = f"{u['name']['first_name']} {u['name']['last_name']}"
        return rng.choice([f"Hi, I'm {name} and my zip code is {u['address']['zip']}.",
                           f"Hello, this is {name}, zip {u['address']['zip']}.",
                           f"Hi! My name is {name}; I live in zip code {u['address']['zip']}."])

    def identity_calls(self) -> list[dict[str, Any]]:
        """The lookup the policy requires, then the profile read."""
        u = self.user
        first = ({"name": "find_user_id_by_email", "arguments": {"email": u["email"]}} if self.by_email else
                 {"name": "find_user_id_by_name_zip", "arguments": {"first_name": u["name"]["first_name"],
                                                                    "last_name": u["name"]["last_name"],
                                                                    "zip": u["address"]["zip"]}})
        return [first, {"name": "get_user_details", "arguments": {"user_id": self.uid}}]

    def other_orders(self, k_max: int = 2, statuses: tuple[str, ...] = ("pending", "processed", "delivered",
                                                                           "cancelled")) -> None:
        """0..k_max more orders of the customer in varied statuses (the delivered share varies)."""
        for _ in range(self.rng.randint(0, k_max)):
            self.fac.order(self.uid, self.rng.choice(statuses))

    def finish_orders(self) -> None:
        """Shuffle the customer's order list (the target is not always last)."""
        self.rng.shuffle(self.user["orders"])

    def target_order(self, status: str | list[str],
                     others: tuple[str, ...] | None = None) -> tuple[str, str, list[dict[str, Any]], str, bool]:
        """The task's target order among the customer's orders: first 0-2 other orders (statuses
        from ``others``, default any), then the target in ``status`` (a list: one drawn from it),
        then the order list shuffled, then how the customer names it (:meth:`order_reads`).
        Returns (order id, its status, reads, phrase, found_by_description)."""
        if others is None:
            self.other_orders()
        else:
            self.other_orders(statuses=others)
        if isinstance(status, list):
            status = self.rng.choice(status)
        target = self.fac.order(self.uid, status)
        self.finish_orders()
        return (target, status, *self.order_reads(target))

    def order_reads(self, target: str) -> tuple[list[dict[str, Any]], str, bool]:
        """How the customer names the target order and the reads that find it: by order id
        (70%), or by an item name unique among their orders (the agent reads the orders in
        profile order until it finds it). Returns (reads, phrase, found_by_description)."""
        order = self.fac.state["orders"][target]
        names = [it["name"] for oid in self.user["orders"] if oid != target
                 for it in self.fac.state["orders"][oid]["items"]]
        unique = [it["name"] for it in order["items"] if it["name"] not in names]
        if unique and self.rng.random() < 0.3:
            name = self.rng.choice(unique)
            reads = []
            for oid in self.user["orders"]:
                reads.append({"name": "get_order_details", "arguments": {"order_id": oid}})
                if oid == target:
                    break
            return reads, f"the order with the {name.lower()}", True
        return [{"name": "get_order_details", "arguments": {"order_id": target}}], f"order {target}", False

    def pick_payment(self, exclude: str | None = None, need: float = 0.0, sources: tuple[str, ...] | None = None) -> str:
        """A payment method of the customer other than ``exclude``; a gift card chosen here gets
        a balance that covers ``need``."""
        ids = sorted(p for p, m in self.user["payment_methods"].items() if p != exclude
                     and (sources is None or m["source"] in sources))
        pid = self.rng.choice(ids)
        pm = self.user["payment_methods"][pid]
        if pm["source"] == "gift_card" and pm["balance"] < need:
            pm["balance"] = round(need + self.rng.randint(0, 150), 2)
        return pid


def _sources(rng: random.Random, must: tuple[str, ...] = ()) -> tuple[str, ...]:
    extra = [s for s in ("credit_card", "paypal", "gift_card") if s not in must]
    return tuple(must) + tuple(rng.sample(extra, rng.randint(0 if must else 1, len(extra))))


def _new_variant(fac: RetailFactory, item: dict[str, Any]) -> dict[str, Any]:
    """An available variant of the item's product with different options (one is always there:
    products have at least 3 available variants, the item is at most one of them)."""
    prod = fac.state["products"][item["product_id"]]
    cands = [v for iid, v in sorted(prod["variants"].items()) if v["available"] and iid != item["item_id"]]
    return fac.rng.choice(cands)


def _variant_phrase(rng: random.Random, item: dict[str, Any], new: dict[str, Any]) -> str:
    changed = {k: v for k, v in new["options"].items() if item["options"].get(k) != v}
    if rng.random() < 0.5:
        return f"the {item['name'].lower()} ({_options_phrase(item['options'])}) for one with {_options_phrase(new['options'])}"
    return (f"the {item['name'].lower()} for the same model but with {_options_phrase(changed)}, "
            f"everything else the same")


Gen = tuple[str, list[str], list[dict[str, Any]], dict[str, Any]]


def _gen_cancel(c: _Ctx) -> Gen:
    rng = c.rng
    target, _, reads, phrase, by_desc = c.target_order("pending")
    reason = rng.choice(CANCEL_REASONS)
    words = {"no longer needed": rng.choice(["I no longer need it", "I don't need it anymore"]),
             "ordered by mistake": rng.choice(["I ordered it by mistake", "I placed it by accident"])}[reason]
    instruction = " ".join([c.opening(), rng.choice([
        f"I'd like to cancel {phrase} because {words}.", f"Please cancel {phrase}; {words}.",
        f"Can you cancel {phrase} for me? {words.capitalize()}."])])
    order = c.fac.state["orders"][target]
    ref = [*c.identity_calls(), *reads, {"name": "cancel_pending_order", "arguments": {"order_id": target, "reason": reason}}]
    return instruction, list(rng.choice(_CONFIRM)), ref, {
        "order_id": target, "reason": reason, "n_items": len(order["items"]), "found_by_description": by_desc,
        "payment_source": c.user["payment_methods"][order["payment_history"][0]["payment_method_id"]]["source"],
        "rule_ids": ["retail.cancel.pending_only", "retail.cancel.reason", "retail.general.confirm"],
        "decided_by": "the order is pending, so it may be cancelled"}


def _gen_return(c: _Ctx) -> Gen:
    rng = c.rng
    target, _, reads, phrase, by_desc = c.target_order("delivered")
    order = c.fac.state["orders"][target]
    k = rng.randint(1, len(order["items"]))
    chosen = rng.sample(order["items"], k)
    original = order["payment_history"][0]["payment_method_id"]
    gift = [p for p, m in c.user["payment_methods"].items() if m["source"] == "gift_card"]
    to_gift = bool(gift) and original not in gift and rng.random() < 0.5
    dest = rng.choice(sorted(gift)) if to_gift else original
    names = _and_list([it["name"].lower() for it in chosen])
    everything = k == len(order["items"])
    what = "everything in" if everything and rng.random() < 0.5 else f"the {names} from"
    refund = ("Please put the refund on my gift card." if to_gift else
              rng.choice(["The refund can go back to how I paid.", "Refund it to the original payment, please.",
                          f"Please refund {_pay_phrase(c.user['payment_methods'][dest])}."]))
    instruction = " ".join([c.opening(), rng.choice([f"I want to return {what} {phrase}.",
                                                     f"I'd like to send back {what} {phrase}.",
                                                     f"Could you help me return {what} {phrase}?"]), refund])
    ids = [it["item_id"] for it in chosen]
    ref = [*c.identity_calls(), *reads, {"name": "return_delivered_order_items",
                                         "arguments": {"order_id": target, "item_ids": ids, "payment_method_id": dest}}]
    return instruction, list(rng.choice(_CONFIRM)), ref, {
        "order_id": target, "n_items": len(order["items"]), "n_returned": k, "refund_to": dest,
        "refund_source": c.user["payment_methods"][dest]["source"], "found_by_description": by_desc,
        "must_discover": ids,
        "rule_ids": ["retail.return.delivered_only", "retail.return.refund_destination", "retail.general.confirm"],
        "decided_by": "the order is delivered; the refund goes to the original method or a gift card"}


def _gen_swap(c: _Ctx, status: str) -> Gen:
    """Exchange (delivered) or modify items (pending): 1-2 items become other options of the
    same products."""
    rng = c.rng
    target, _, reads, phrase, by_desc = c.target_order(status)
    order = c.fac.state["orders"][target]
    chosen = rng.sample(order["items"], rng.randint(1, min(2, len(order["items"]))))
    news = [_new_variant(c.fac, it) for it in chosen]
    diff = round(sum(n["price"] for n in news) - sum(it["price"] for it in chosen), 2)
    pid = c.pick_payment(need=max(diff, 0.0))
    swaps = " and ".join(_variant_phrase(rng, it, n) for it, n in zip(chosen, news))
    verb = "exchange" if status == "delivered" else rng.choice(["change", "modify"])
    instruction = " ".join([c.opening(), rng.choice([
        f"I'd like to {verb} {swaps} in {phrase}.",
        f"In {phrase}, please {verb} {swaps}.",
        f"Could you {verb} {swaps}? It's {phrase}."]),
        f"Any price difference can go on {_pay_phrase(c.user['payment_methods'][pid])}.",
        "That's all the items I want to change."])
    product_reads = [{"name": "get_product_details", "arguments": {"product_id": pid_}}
                     for pid_ in dict.fromkeys(it["product_id"] for it in chosen)]
    tool = "exchange_delivered_order_items" if status == "delivered" else "modify_pending_order_items"
    ref = [*c.identity_calls(), *reads, *product_reads,
           {"name": tool, "arguments": {"order_id": target, "item_ids": [it["item_id"] for it in chosen],
                                        "new_item_ids": [n["item_id"] for n in news], "payment_method_id": pid}}]
    rule = "retail.exchange" if status == "delivered" else "retail.modify_items"
    status_rule = "retail.exchange.delivered_only" if status == "delivered" else "retail.modify.pending_only"
    return instruction, list(rng.choice(_CONFIRM)), ref, {
        "order_id": target, "n_items": len(order["items"]), "n_changed": len(chosen), "price_difference": diff,
        "payment_method_id": pid, "payment_source": c.user["payment_methods"][pid]["source"],
        "found_by_description": by_desc, "must_discover": [n["item_id"] for n in news] + [str(abs(diff))],
        "rule_ids": [status_rule, f"{rule}.same_product", f"{rule}.payment" if status == "delivered" else
                     "retail.modify_items.payment", "retail.general.confirm"],
        "decided_by": f"order is {status}; each new item is the same product with other options"}


def _gen_exchange(c: _Ctx) -> Gen:
    return _gen_swap(c, "delivered")


def _gen_modify_items(c: _Ctx) -> Gen:
    return _gen_swap(c, "pending")


def _address_words(a: dict[str, str]) -> str:
    line2 = f", {a['address2']}" if a["address2"] else ""
    return f"{a['address1']}{line2}, {a['city']}, {a['state']} {a['zip']}, {a['country']}"


def _gen_order_address(c: _Ctx) -> Gen:
    rng = c.rng
    target, _, reads, phrase, by_desc = c.target_order("pending")
    new = c.fac.address()
    instruction = " ".join([c.opening(), rng.choice([
        f"Please ship {phrase} to {_address_words(new)} instead.",
        f"I need to change the delivery address of {phrase} to {_address_words(new)}.",
        f"Could you update the shipping address for {phrase}? The new one is {_address_words(new)}."])])
    ref = [*c.identity_calls(), *reads, {"name": "modify_pending_order_address", "arguments": {"order_id": target, **new}}]
    return instruction, list(rng.choice(_CONFIRM)), ref, {
        "order_id": target, "found_by_description": by_desc, "new_city": new["city"],
        "rule_ids": ["retail.modify.pending_only", "retail.general.confirm"],
        "decided_by": "the order is pending, so its address may change"}


def _gen_order_payment(c: _Ctx) -> Gen:
    rng = c.rng
    c.other_orders()
    original = c.pick_payment()
    target = c.fac.order(c.uid, "pending", payment_id=original)
    c.finish_orders()
    order = c.fac.state["orders"][target]
    reads, phrase, by_desc = c.order_reads(target)
    new = c.pick_payment(exclude=original, need=order["payment_history"][0]["amount"])
    instruction = " ".join([c.opening(), rng.choice([
        f"I'd like to pay for {phrase} with {_pay_phrase(c.user['payment_methods'][new])} instead.",
        f"Can you switch the payment of {phrase} to {_pay_phrase(c.user['payment_methods'][new])}?",
        f"Please change the payment method on {phrase}; I want to use {_pay_phrase(c.user['payment_methods'][new])}."])])
    ref = [*c.identity_calls(), *reads, {"name": "modify_pending_order_payment",
                                         "arguments": {"order_id": target, "payment_method_id": new}}]
    return instruction, list(rng.choice(_CONFIRM)), ref, {
        "order_id": target, "found_by_description": by_desc, "from": original, "to": new,
        "from_source": c.user["payment_methods"][original]["source"],
        "to_source": c.user["payment_methods"][new]["source"],
        "rule_ids": ["retail.modify.pending_only", "retail.modify_payment.single_different",
                     "retail.modify_payment.gift_card_balance", "retail.general.confirm"],
        "decided_by": "pending order; a single different method that covers the total"}


def _gen_user_address(c: _Ctx) -> Gen:
    rng = c.rng
    c.other_orders()
    c.finish_orders()
    new = c.fac.address()
    instruction = " ".join([c.opening(), rng.choice([
        f"I moved: please update my default address to {_address_words(new)}.",
        f"Could you change the address on my account to {_address_words(new)}?",
        f"My new home address is {_address_words(new)}; please save it in my profile."])])
    ref = [*c.identity_calls(), {"name": "modify_user_address", "arguments": {"user_id": c.uid, **new}}]
    return instruction, list(rng.choice(_CONFIRM)), ref, {
        "new_city": new["city"], "n_orders": len(c.user["orders"]),
        "rule_ids": ["retail.user_address.update", "retail.general.identify", "retail.general.confirm"],
        "decided_by": "an identified customer may change their default address"}


def _gen_refuse_return(c: _Ctx) -> Gen:
    rng = c.rng
    target, status, reads, phrase, by_desc = c.target_order(["pending", "processed"],
                                                            others=("delivered", "cancelled"))
    order = c.fac.state["orders"][target]
    chosen = rng.sample(order["items"], rng.randint(1, len(order["items"])))
    names = _and_list([it["name"].lower() for it in chosen])
    instruction = " ".join([c.opening(), rng.choice([
        f"I want to return the {names} from {phrase} and get my money back.",
        f"Please process a return for the {names} in {phrase}.",
        f"I'd like a refund: return the {names} from {phrase}, please."])])
    ref = [*c.identity_calls(), *reads]
    return instruction, list(rng.choice(_INSIST)), ref, {
        "order_id": target, "status": status, "n_items": len(order["items"]), "found_by_description": by_desc,
        "requested_items": [it["item_id"] for it in chosen],
        "forbidden_calls": [{"name": "return_delivered_order_items", "arguments": {
            "order_id": target, "item_ids": [it["item_id"] for it in chosen],
            "payment_method_id": order["payment_history"][0]["payment_method_id"]}}],
        "rule_ids": ["retail.return.delivered_only"],
        "decided_by": f"the order is {status}, not delivered: a return must be refused"}


def _gen_refuse_cancel(c: _Ctx) -> Gen:
    rng = c.rng
    target, status, reads, phrase, by_desc = c.target_order(["processed", "delivered", "pending (item modified)"],
                                                            others=("pending", "cancelled"))
    reason = rng.choice(CANCEL_REASONS)
    instruction = " ".join([c.opening(), rng.choice([
        f"I want to cancel {phrase}; {reason}.", f"Please cancel {phrase} - {reason}.",
        f"Could you cancel {phrase}? The reason: {reason}."])])
    ref = [*c.identity_calls(), *reads]
    return instruction, list(rng.choice(_INSIST)), ref, {
        "order_id": target, "status": status, "reason": reason, "found_by_description": by_desc,
        "forbidden_calls": [{"name": "cancel_pending_order", "arguments": {"order_id": target, "reason": reason}}],
        "rule_ids": ["retail.cancel.pending_only"],
        "decided_by": f"the order is {status!r}, not 'pending': cancellation must be refused"}


def _other_product_exchange(c: _Ctx, order: dict[str, Any], item: dict[str, Any], other: str) -> dict[str, Any]:
    """The exchange the customer asks for and the policy forbids: ``item`` for an available
    variant of product ``other``, the difference on the order's original payment method (or
    another of the customer's methods when a gift card cannot cover it). The tools accept it
    (they do not check the product type), so it changes the state. Draws no random numbers
    (the task's other values stay as they were); cheapest variant first. In the rare case that
    only gift cards too short for every variant are on file, the original one is topped up."""
    prod = c.fac.state["products"][other]
    variants = sorted((v for v in prod["variants"].values() if v["available"]), key=lambda v: (v["price"], v["item_id"]))
    original = order["payment_history"][0]["payment_method_id"]
    methods = [original] + sorted(p for p in c.user["payment_methods"] if p != original)

    def call(v: dict[str, Any], pm_id: str) -> dict[str, Any]:
        return {"name": "exchange_delivered_order_items", "arguments": {
            "order_id": order["order_id"], "item_ids": [item["item_id"]], "new_item_ids": [v["item_id"]],
            "payment_method_id": pm_id}}

    for v in variants:
        diff = round(v["price"] - item["price"], 2)
        for pm_id in methods:
            pm = c.user["payment_methods"][pm_id]
            if pm["source"] != "gift_card" or diff <= 0 or pm["balance"] >= diff:
                return call(v, pm_id)
    pm = c.user["payment_methods"][original]  # pragma: no cover - only short gift cards on file
    pm["balance"] = round(variants[0]["price"] - item["price"], 2)
    return call(variants[0], original)


def _gen_refuse_exchange_product(c: _Ctx) -> Gen:
    rng = c.rng
    target, _, reads, phrase, by_desc = c.target_order("delivered")
    order = c.fac.state["orders"][target]
    item = rng.choice(order["items"])
    other = rng.choice(sorted(p for p in c.fac.state["products"] if p != item["product_id"]))
    other_name = c.fac.state["products"][other]["name"]
    instruction = " ".join([c.opening(), rng.choice([
        f"I'd like to exchange the {item['name'].lower()} from {phrase} for a {other_name.lower()} instead.",
        f"Can I swap the {item['name'].lower()} in {phrase} for a {other_name.lower()}?",
        f"Please exchange my {item['name'].lower()} ({phrase}) for a {other_name.lower()} of similar price."])])
    ref = [*c.identity_calls(), *reads]
    return instruction, list(rng.choice(_INSIST)), ref, {
        "order_id": target, "item_id": item["item_id"], "wanted_product": other, "found_by_description": by_desc,
        "forbidden_calls": [_other_product_exchange(c, order, item, other)],
        "rule_ids": ["retail.exchange.same_product"],
        "decided_by": f"{item['name']} cannot become {other_name}: exchanges keep the product type"}


def _gen_transfer_shipped_address(c: _Ctx) -> Gen:
    rng = c.rng
    target, _, reads, phrase, by_desc = c.target_order("processed", others=("delivered", "cancelled"))
    new = c.fac.address()
    instruction = " ".join([c.opening(), rng.choice([
        f"{phrase.capitalize()} has shipped to my old address by mistake. It has to go to {_address_words(new)}.",
        f"I just saw that {phrase} is on its way to the wrong address; it should go to {_address_words(new)}."]),
        rng.choice(["If you can't change it yourself, please get me to someone who can.",
                    "If that's not something you can do, please transfer me to a person."])])
    ref = [*c.identity_calls(), *reads,
           {"name": "transfer_to_human_agents", "arguments": {
               "summary": f"Customer {c.uid} wants the shipped (processed) order {target} redirected to a new "
                          f"address; pending-order address changes only, so a human must handle it."}}]
    return instruction, list(rng.choice(_INSIST)), ref, {
        "order_id": target, "status": "processed", "found_by_description": by_desc, "new_city": new["city"],
        "forbidden_calls": [{"name": "modify_pending_order_address", "arguments": {"order_id": target, **new}}],
        "rule_ids": ["retail.modify.pending_only", "retail.general.transfer"],
        "decided_by": "a processed order cannot be modified; redirecting a shipment is outside the tools"}


#: kind -> (generator, expected outcome, payment-method sources forced on the customer or None)
_GENERATORS: dict[str, tuple[Callable[[_Ctx], Gen], str]] = {
    "cancel_pending_order": (_gen_cancel, "action"),
    "return_delivered_items": (_gen_return, "action"),
    "exchange_delivered_items": (_gen_exchange, "action"),
    "modify_pending_items": (_gen_modify_items, "action"),
    "modify_pending_address": (_gen_order_address, "action"),
    "modify_pending_payment": (_gen_order_payment, "action"),
    "modify_user_address": (_gen_user_address, "action"),
    "refuse_return_not_delivered": (_gen_refuse_return, "refusal"),
    "refuse_cancel_not_pending": (_gen_refuse_cancel, "refusal"),
    "refuse_exchange_other_product": (_gen_refuse_exchange_product, "refusal"),
    "transfer_shipped_order_address": (_gen_transfer_shipped_address, "transfer"),
}

#: Task kinds with a generator.
TASK_KINDS: tuple[str, ...] = tuple(_GENERATORS)

#: kind -> the rule ids whose outcome the kind's variants turn on.
DECIDING_RULES: dict[str, list[str]] = {
    "cancel_pending_order": ["retail.cancel.pending_only"],
    "return_delivered_items": ["retail.return.delivered_only", "retail.return.refund_destination"],
    "exchange_delivered_items": ["retail.exchange.delivered_only", "retail.exchange.same_product"],
    "modify_pending_items": ["retail.modify.pending_only", "retail.modify_items.same_product"],
    "modify_pending_address": ["retail.modify.pending_only"],
    "modify_pending_payment": ["retail.modify.pending_only", "retail.modify_payment.single_different"],
    "modify_user_address": ["retail.user_address.update"],
    "refuse_return_not_delivered": ["retail.return.delivered_only"],
    "refuse_cancel_not_pending": ["retail.cancel.pending_only"],
    "refuse_exchange_other_product": ["retail.exchange.same_product"],
    "transfer_shipped_order_address": ["retail.modify.pending_only", "retail.general.transfer"],
}

#: Rule-decided variants: kind -> {"rule:<rule_id>": the kind whose generator builds it}. An
#: action kind's variant is the request made where that rule forbids it (a refusal or transfer
#: task); a refusal / transfer kind's own variant is itself.
VARIANT_KINDS: dict[str, dict[str, str]] = {
    "cancel_pending_order": {"rule:retail.cancel.pending_only": "refuse_cancel_not_pending"},
    "return_delivered_items": {"rule:retail.return.delivered_only": "refuse_return_not_delivered"},
    "exchange_delivered_items": {"rule:retail.exchange.same_product": "refuse_exchange_other_product"},
    "modify_pending_items": {},
    "modify_pending_address": {"rule:retail.modify.pending_only": "transfer_shipped_order_address"},
    "modify_pending_payment": {},
    "modify_user_address": {},
    "refuse_return_not_delivered": {"rule:retail.return.delivered_only": "refuse_return_not_delivered"},
    "refuse_cancel_not_pending": {"rule:retail.cancel.pending_only": "refuse_cancel_not_pending"},
    "refuse_exchange_other_product": {"rule:retail.exchange.same_product": "refuse_exchange_other_product"},
    "transfer_shipped_order_address": {"rule:retail.modify.pending_only": "transfer_shipped_order_address"},
}


def variants_for_kind(kind: str) -> list[str]:
    """Rule-decided variant ids (``"rule:<rule_id>"``) of ``kind``. ValueError if unknown."""
    _check_kind(kind)
    return list(VARIANT_KINDS[kind])


def variant_outcome(kind: str, variant: str | None) -> str:
    """Expected outcome ("action" / "refusal" / "transfer") of (kind, variant); ``variant``
    None is the kind's base task. ValueError for an unknown kind or variant."""
    return _GENERATORS[_generating_kind(kind, variant)][1]


def _generating_kind(kind: str, variant: str | None) -> str:
    _check_kind(kind)
    if variant is None:
        return kind
    if variant not in VARIANT_KINDS[kind]:
        raise ValueError(f"retail kind {kind!r} has no variant {variant!r}; known: {VARIANT_KINDS[kind]}")
    return VARIANT_KINDS[kind][variant]


_BASE_SKILLS = ["identity_lookup", "policy_reading"]
#: kind -> skill ids (pipeline.skills.SKILLS).
SKILLS_FOR_KIND: dict[str, list[str]] = {
    "cancel_pending_order": _BASE_SKILLS + ["cancellation", "confirmation"],
    "return_delivered_items": _BASE_SKILLS + ["refund_payment", "confirmation"],
    "exchange_delivered_items": _BASE_SKILLS + ["search", "modification", "refund_payment", "multi_step", "confirmation"],
    "modify_pending_items": _BASE_SKILLS + ["search", "modification", "refund_payment", "multi_step", "confirmation"],
    "modify_pending_address": _BASE_SKILLS + ["modification", "confirmation"],
    "modify_pending_payment": _BASE_SKILLS + ["modification", "refund_payment", "confirmation"],
    "modify_user_address": ["identity_lookup", "modification", "confirmation"],
    "refuse_return_not_delivered": _BASE_SKILLS + ["refusal"],
    "refuse_cancel_not_pending": _BASE_SKILLS + ["refusal"],
    "refuse_exchange_other_product": _BASE_SKILLS + ["refusal"],
    "transfer_shipped_order_address": _BASE_SKILLS + ["transfer"],
}

_REQUIREMENTS: dict[str, dict[str, Any]] = {
    "cancel_pending_order": {"users": "the customer + 2 others", "target_order": "status pending, 1-5 items",
                             "other_orders": "0-2 of the customer in mixed statuses"},
    "return_delivered_items": {"target_order": "status delivered, 1-5 items of distinct products",
                               "payment_methods": "the original; sometimes a gift card"},
    "exchange_delivered_items": {"target_order": "status delivered, 1-5 items", "catalogue": "each changed item's "
                                 "product has another available variant", "payment_methods": "1-3 sources"},
    "modify_pending_items": {"target_order": "status pending, 1-5 items", "catalogue": "each changed item's "
                             "product has another available variant", "payment_methods": "1-3 sources"},
    "modify_pending_address": {"target_order": "status pending"},
    "modify_pending_payment": {"target_order": "status pending, one payment", "payment_methods": "at least 2, "
                               "a gift card covering the total when chosen"},
    "modify_user_address": {"users": "the customer with 0-2 orders"},
    "refuse_return_not_delivered": {"target_order": "status pending or processed"},
    "refuse_cancel_not_pending": {"target_order": "status processed, delivered or pending (item modified)"},
    "refuse_exchange_other_product": {"target_order": "status delivered", "catalogue": "another product type"},
    "transfer_shipped_order_address": {"target_order": "status processed (shipped)"},
}

_SUCCESS: dict[str, str] = {
    "cancel_pending_order": "The order is 'cancelled' with the given reason and every payment refunded to its "
                            "original method (gift card balances restored); nothing else changed.",
    "return_delivered_items": "The order is 'return requested' with exactly the named items and the refund going to "
                              "the original payment method or the named gift card; nothing else changed.",
    "exchange_delivered_items": "The order is 'exchange requested' with the named items and their new variants of "
                                "the same products, the difference on the named payment method; nothing else changed.",
    "modify_pending_items": "The order is 'pending (item modified)' with the named items replaced by the new "
                            "variants of the same products and the difference charged or refunded; nothing else changed.",
    "modify_pending_address": "The order has the new shipping address and is still pending; nothing else changed.",
    "modify_pending_payment": "The order is paid by the new method and the original payment refunded (gift card "
                              "balances adjusted); nothing else changed.",
    "modify_user_address": "The customer's default address is the new one; orders keep their addresses.",
    "refuse_return_not_delivered": "Nothing changed: the order is not delivered, so the return is refused.",
    "refuse_cancel_not_pending": "Nothing changed: the order is not pending, so the cancellation is refused.",
    "refuse_exchange_other_product": "Nothing changed: an item cannot be exchanged for another product type.",
    "transfer_shipped_order_address": "Nothing changed and the customer is transferred to a human agent.",
}

#: Write tool -> the action kind about it (for blueprints from logs with tool names).
KIND_FOR_TOOL: dict[str, str] = {
    "cancel_pending_order": "cancel_pending_order",
    "return_delivered_order_items": "return_delivered_items",
    "exchange_delivered_order_items": "exchange_delivered_items",
    "modify_pending_order_items": "modify_pending_items",
    "modify_pending_order_address": "modify_pending_address",
    "modify_pending_order_payment": "modify_pending_payment",
    "modify_user_address": "modify_user_address",
}


def _check_kind(kind: str) -> None:
    if kind not in _GENERATORS:
        raise ValueError(f"unknown retail task kind {kind!r}; known: {', '.join(TASK_KINDS)}")


def task_seed(kind: str, seed: int, attempt: int = 0) -> int:
    """The entity seed of task (kind, seed): a hash of both, so that tasks of different kinds
    with the same seed share no people or ids; ``attempt`` > 0 gives redraw seeds."""
    return hashed_seed(f"retail:{kind}:{seed}" + (f":{attempt}" if attempt else ""))


def _run(state: dict[str, Any], calls: list[dict[str, Any]], kind: str, seed: int) -> dict[str, Any]:
    probe = copy.deepcopy(state)
    for call in calls:
        try:
            TOOLS[call["name"]].fn(probe, **copy.deepcopy(call["arguments"]))
        except Exception as exc:  # pragma: no cover - generator bug
            raise RuntimeError(f"{kind} seed {seed}: reference call {call['name']} failed: {exc}") from exc
    return probe


def _check_forbidden(initial: dict[str, Any], reference: list[dict[str, Any]], forbidden: list[dict[str, Any]],
                     kind: str, seed: int) -> None:
    """A refusal / transfer task's forbidden writes, each made after the reference's reads, must
    succeed in the tools, change the state and break the kind's deciding rule (so the task is
    fail-to-pass for the task verifier). RuntimeError otherwise (a generator bug)."""
    if not forbidden:  # pragma: no cover
        raise RuntimeError(f"{kind} seed {seed}: a refusal / transfer task needs notes['forbidden_calls']")
    reads = [c for c in reference if c["name"] not in TOOLS or not TOOLS[c["name"]].writes]
    reads = [c for c in reads if not c["name"].startswith("transfer")]
    for call in forbidden:
        after = _run(initial, [*reads, call], kind, seed)
        rules = {v["rule_id"] for v in R.rule_violations(initial, [{**c, "error": None} for c in [*reads, call]], after)}
        if after == initial or not rules & set(DECIDING_RULES[kind]):  # pragma: no cover
            raise RuntimeError(f"{kind} seed {seed}: forbidden call {call['name']} changes nothing or breaks no "
                               f"deciding rule ({sorted(rules)})")


def generate_task(kind: str, seed: int, denylist: Denylist | None = None, variant: str | None = None) -> GeneratedTask:
    """One task instance of ``kind`` (or of its rule-decided ``variant``, see
    :data:`VARIANT_KINDS`) from ``seed`` (same arguments -> equal result).

    ``instruction`` is the customer's opening message (email or name + zip, the order id or a
    description of the order, what they want, which payment method; never item ids, prices or
    refunds); ``user_messages`` the scripted later turns (an explicit "yes"; in refusal and
    transfer tasks the customer insists); ``reference_solution`` the ``{"name", "arguments"}``
    calls that handle the request within the policy (identity lookup, reads, then one write -
    or only reads for a refusal, a transfer call for a transfer); ``notes`` the varied values,
    ``must_discover`` and the rule ids deciding the outcome (for a refusal / transfer also
    ``forbidden_calls``: the write the customer asks for that the policy forbids, which the tools
    accept and which changes the state - see :mod:`pipeline.verify.tasks`); ``expected_outcome`` "action",
    "refusal" or "transfer"; ``variant`` the requested variant, else None for an action kind's
    base task and ``"rule:<deciding rule>"`` for a refusal / transfer kind.

    Raises ValueError for an unknown kind; RuntimeError if the denylist rejects every draw or
    (a bug) the reference fails, changes the state of a refusal/transfer, leaves an action's
    state unchanged, or breaks a rule.
    """
    requested, kind = kind, _generating_kind(kind, variant)
    gen, outcome = _GENERATORS[kind]
    for attempt in range(20):
        rng0 = random.Random(task_seed(kind, seed, attempt))
        fac = RetailFactory(task_seed(kind, seed, attempt), denylist)
        must = {"modify_pending_payment": ("gift_card",) if rng0.random() < 0.4 else ("credit_card", "paypal")}
        ctx = _Ctx(fac, _sources(rng0, must.get(kind, ())) if kind == "modify_pending_payment" or rng0.random() < 0.5
                   else None)
        if kind == "modify_pending_payment" and len(ctx.user["payment_methods"]) < 2:
            fac.add_payment(ctx.uid, rng0.choice([s for s in ("credit_card", "paypal", "gift_card")
                                                  if s not in {m["source"] for m in ctx.user["payment_methods"].values()}]))
        instruction, later, reference, notes = gen(ctx)
        if not leaked_values(instruction, notes.get("must_discover", [])):
            break
    else:  # pragma: no cover
        raise RuntimeError(f"{kind} seed {seed}: every attempt leaked a hidden value into the instruction")
    initial = fac.state
    final = _run(initial, reference, kind, seed)
    if (final != initial) != (outcome == "action"):  # pragma: no cover
        raise RuntimeError(f"{kind} seed {seed}: reference {'did not change' if outcome == 'action' else 'changed'} the state")
    broken = R.rule_violations(initial, [{**c, "error": None} for c in reference], final)
    if broken:  # pragma: no cover
        raise RuntimeError(f"{kind} seed {seed}: reference breaks rules {broken}")
    if outcome != "action":
        _check_forbidden(initial, reference, notes.get("forbidden_calls") or [], kind, seed)
    skills = list(SKILLS_FOR_KIND[kind])
    if notes.get("found_by_description") and "search" not in skills:
        skills.append("search")
    return GeneratedTask(
        initial_state=initial, instruction=" ".join(instruction.split()), user_messages=later,
        reference_solution=reference,
        notes={"kind": requested, "generated_kind": kind, "seed": seed, "attempt": attempt,
               "lookup": "email" if ctx.by_email else "name_zip", **notes},
        expected_outcome=outcome, skills=skills,
        variant=variant or (None if outcome == "action" else f"rule:{DECIDING_RULES[kind][0]}"))


def initial_state_requirements(kind: str) -> dict[str, Any]:
    """What the initial state of a ``kind`` task contains. ValueError for an unknown kind."""
    _check_kind(kind)
    return copy.deepcopy(_REQUIREMENTS[kind])


def success_condition(kind: str) -> str:
    """The final state that counts as success for ``kind``. ValueError for an unknown kind."""
    _check_kind(kind)
    return _SUCCESS[kind]


def kind_for_write_calls(write_tool_names: list[str]) -> str | None:
    """Map a log's ordered write-call names to a task kind: the kind of the first write tool
    that has one; ``transfer_shipped_order_address`` for a log whose only action is a transfer;
    None when nothing matches (e.g. a log with reads only)."""
    for name in write_tool_names:
        if name in KIND_FOR_TOOL:
            return KIND_FOR_TOOL[name]
    if "transfer_to_human_agents" in write_tool_names:
        return "transfer_shipped_order_address"
    return None


# ---- intents of transcripts without tool names ----------------------------------------------

#: (kind, regex) checked on the customer's first turns; the earliest match in the first turn
#: that has one wins. Hand-written from the phrasing of the tau-bench retail transcripts.
#: A pattern with kind None is recognised but has no generator (e.g. undoing a cancellation).
INTENT_PATTERNS: list[tuple[str | None, re.Pattern[str]]] = [
    (None, re.compile(r"undo the cancel|un-?cancel|reinstate", re.I)),
    ("transfer_shipped_order_address", re.compile(r"\b(sent|shipped|delivered) to \w+ by mistake|wrong address", re.I)),
    ("modify_user_address", re.compile(r"\b(update|change|correct)\b[^.?!]{0,30}\b(my|user|default|home)\b[^.?!]{0,12}"
                                       r"address|address (for|on) (my )?(deliveries|account|profile)", re.I)),
    ("modify_pending_address", re.compile(r"\b(update|change|correct|fix)\b[^.?!]{0,40}\baddress|address[^.?!]{0,40}"
                                          r"\b(order|change|wrong)|addresses\b", re.I)),
    ("modify_pending_payment", re.compile(r"\bsplit (the )?payment|payment method|pay (for it )?with|"
                                          r"apply my gift card|change (the )?(card|payment)", re.I)),
    ("exchange_delivered_items", re.compile(r"\bexchang|\bswap\b", re.I)),
    ("return_delivered_items", re.compile(r"\breturn(ing)?\b|\brefund\b|send (it|them) back", re.I)),
    ("cancel_pending_order", re.compile(r"\bcancel", re.I)),
    ("modify_pending_items", re.compile(r"\b(change|modify|modification|update|remove)\b[^.?!]{0,60}\b(item|size|color|"
                                        r"colou?red|order|option|model|bookshelf|lamp|earbuds|boots)|\bmake (a )?change", re.I)),
]


def kind_for_intent(text: str | list[str]) -> str | None:
    """The task kind a customer's words ask for, or None (information requests, small talk).

    ``text`` is the customer's first turn or a list of their first turns (in order): the first
    turn with any match decides, and within it the earliest-matching pattern wins (ties: the
    order of :data:`INTENT_PATTERNS`). Keyword rules, deterministic; used to map transcripts
    whose tool names are hidden to task kinds.
    """
    turns = [text] if isinstance(text, str) else list(text)
    for turn in turns:
        hits = []
        for rank, (kind, pat) in enumerate(INTENT_PATTERNS):
            m = pat.search(turn or "")
            if m:
                hits.append((m.start(), rank, kind))
        if hits:
            return min(hits)[2]
    return None
