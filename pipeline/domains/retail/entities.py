"""The retail entity factory: seeded generators of fictional users, products and orders.

Entities come from ``Faker`` (seeded with ``seed_instance``) and ``random.Random(seed)``; no
wall-clock and no global random state, so the same seed always gives the same output. An
optional ``denylist(value) -> bool`` rejects personal values (full name "First Last", email,
address1, zip, user id, payment id, order id): a rejected value is redrawn, which keeps
fictional people from coinciding with real people seen in the logs. Product types and options
are generic catalogue words written for this module (not personal data, not copied data).

The task generators (one module per task kind in :mod:`pipeline.domains.retail.kinds`, run by
:mod:`pipeline.domains.retail.generator`) build each task's state with a :class:`RetailFactory`.
"""
from __future__ import annotations

from typing import Any

from pipeline.domains.common import MAX_TRIES as _MAX_TRIES
from pipeline.domains.common import Denylist, SeededFactory

from .state import CANCEL_REASONS, empty_state


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
