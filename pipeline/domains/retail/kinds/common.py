"""Building blocks of the retail task generators: the task context (:class:`_Ctx`: the customer,
their orders and how they identify themselves), how a customer words items, payments and
addresses, and the item swap that exchanges and item modifications share."""
from __future__ import annotations

import random
from typing import Any

from ..entities import RetailFactory


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


def _address_words(a: dict[str, str]) -> str:
    line2 = f", {a['address2']}" if a["address2"] else ""
    return f"{a['address1']}{line2}, {a['city']}, {a['state']} {a['zip']}, {a['country']}"


_BASE_SKILLS = ["identity_lookup", "policy_reading"]
