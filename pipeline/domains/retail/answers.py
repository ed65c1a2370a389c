"""Retail answer tasks: information requests whose answer the store's rules compute from the state.

The customer asks; nothing may change. The reference identifies the customer (the policy's
lookup) and reads the order; the hidden verifier holds the *facts* the agent must state
(:mod:`pipeline.verify.answers`), never written in the instruction.

| kind | the customer asks | facts (rule) |
| --- | --- | --- |
| ``answer_order_status`` | where an order is | ``status`` (text, one of the order statuses), plus ``tracking`` (id) once it shipped (``retail.data.status``) |
| ``answer_item_price`` | what they paid for one item of an order | ``price`` (money) |
| ``answer_return_refund`` | how much they would get back by returning some items of a delivered order | ``refund`` (money) = sum of the returned items' prices (``retail.return.result``) |

Seeds are hashed from ``"retail:<kind>:<seed>"``, so adding these kinds changed no existing task.
"""
from __future__ import annotations

from typing import Any, Callable

from pipeline.domains.base import GeneratedTask
from pipeline.domains.common import Denylist, assert_reads_only, leaked_values, match_intent

from .entities import RetailFactory
from .generator import task_seed
from .kinds.common import _and_list, _Ctx
from .state import ORDER_STATUSES
from .tools import TOOLS

Gen = tuple[str, list[str], list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]


def _ask(c: _Ctx, options: list[str]) -> str:
    i = c.rng.randrange(len(options))
    c.fac.template = i
    return options[i]


def _gen_status(c: _Ctx) -> Gen:
    target, status, reads, phrase, by_desc = c.target_order(["pending", "processed", "delivered", "cancelled"])
    order = c.fac.state["orders"][target]
    instruction = " ".join([c.opening(), _ask(c, [f"What's the status of {phrase}?",
                                                  f"Could you tell me where {phrase} is right now?",
                                                  f"I'm wondering what happened with {phrase}. Can you check its status?"])])
    facts: list[dict[str, Any]] = [{"name": "status", "type": "text", "value": status,
                                    "alternatives": [s for s in ORDER_STATUSES if s != status]}]
    tracking = [t for f in order["fulfillments"] for t in f["tracking_id"]]
    if tracking:
        facts.append({"name": "tracking", "type": "id", "value": tracking[0]})
    notes = {"order_id": target, "status": status, "found_by_description": by_desc,
             "rule_ids": ["retail.data.status"], "decided_by": "the order's status and its first tracking number"}
    return instruction, ["Thanks, that's all."], [*c.identity_calls(), *reads], facts, notes


def _gen_price(c: _Ctx) -> Gen:
    target, _status, reads, phrase, by_desc = c.target_order(["pending", "processed", "delivered"])
    order = c.fac.state["orders"][target]
    names = [it["name"] for it in order["items"]]
    unique = [it for it in order["items"] if names.count(it["name"]) == 1]
    item = c.rng.choice(unique)
    instruction = " ".join([c.opening(), _ask(c, [
        f"How much did I pay for the {item['name'].lower()} in {phrase}?",
        f"I need the price I paid for the {item['name'].lower()} from {phrase}, for my records.",
        f"Can you tell me what the {item['name'].lower()} in {phrase} cost me?"])])
    facts = [{"name": "price", "type": "money", "value": float(item["price"]),
              "allowed": sorted({float(it["price"]) for it in order["items"]} |
                                {float(p["amount"]) for p in order["payment_history"]})}]
    notes = {"order_id": target, "item_id": item["item_id"], "found_by_description": by_desc,
             "rule_ids": ["retail.data.profile"], "decided_by": "the order line's price"}
    return instruction, ["Thank you."], [*c.identity_calls(), *reads], facts, notes


def _gen_refund(c: _Ctx) -> Gen:
    target, _status, reads, phrase, by_desc = c.target_order("delivered")
    order = c.fac.state["orders"][target]
    names = [it["name"] for it in order["items"]]
    unique = [it for it in order["items"] if names.count(it["name"]) == 1]
    k = c.rng.randint(1, min(2, len(unique)))
    chosen = c.rng.sample(unique, k)
    refund = round(sum(it["price"] for it in chosen), 2)
    what = _and_list([it["name"].lower() for it in chosen])
    instruction = " ".join([c.opening(), _ask(c, [
        f"If I returned the {what} from {phrase}, how much would I get back?",
        f"I'm thinking about returning the {what} from {phrase}. What would the refund be?",
        f"Before I decide: how much money would a return of the {what} from {phrase} give me back?"]),
        "Please don't start a return yet, I only want the amount."])
    facts = [{"name": "refund", "type": "money", "value": float(refund),
              "allowed": sorted({float(it["price"]) for it in order["items"]} |
                                {float(p["amount"]) for p in order["payment_history"]})}]
    notes = {"order_id": target, "item_ids": [it["item_id"] for it in chosen], "found_by_description": by_desc,
             "rule_ids": ["retail.return.result"], "decided_by": "a return refunds the returned items' prices"}
    return instruction, ["Good to know, thanks."], [*c.identity_calls(), *reads], facts, notes


_GENERATORS: dict[str, Callable[[_Ctx], Gen]] = {
    "answer_order_status": _gen_status,
    "answer_item_price": _gen_price,
    "answer_return_refund": _gen_refund,
}
#: Answer kinds this domain generates (see the module docstring).
ANSWER_KINDS: tuple[str, ...] = tuple(_GENERATORS)
#: Skills every task of an answer kind exercises.
SKILLS_FOR_KIND: dict[str, tuple[str, ...]] = {
    "answer_order_status": ("identity_lookup",),
    "answer_item_price": ("identity_lookup",),
    "answer_return_refund": ("identity_lookup", "policy_reading", "refund_payment"),
}
_REQUIREMENTS = {k: {"users": "the customer plus 2 others", "orders": "0-2 other orders; the target in a status "
                     "the kind needs", "products": "the catalogue"} for k in _GENERATORS}
_SUCCESS = {
    "answer_order_status": "no state change; the agent states the order's status (and tracking number once shipped)",
    "answer_item_price": "no state change; the agent states the price paid for the item",
    "answer_return_refund": "no state change; the agent states the refund the return would give",
}
_INTENTS: tuple[tuple[str, str], ...] = (
    (r"\b(how much|what would)\b.*\b(get back|refund)\b", "answer_return_refund"),
    (r"\b(status|where is|where's|track|tracking|shipped yet|arrive)\b", "answer_order_status"),
    (r"\b(how much did|price|cost)\b", "answer_item_price"),
)


def _check(kind: str) -> None:
    if kind not in _GENERATORS:
        raise ValueError(f"unknown retail answer kind {kind!r}; known: {', '.join(ANSWER_KINDS)}")


def _value_texts(facts: list[dict[str, Any]]) -> list[str]:
    out = []
    for f in facts:
        v = f["value"]
        if f["type"] == "money":
            out += [f"{float(v):.2f}", str(int(v))] if float(v) == int(v) else [f"{float(v):.2f}"]
        elif f["type"] in ("id", "text"):
            out.append(str(v))
    return out


def generate_task(kind: str, seed: int, denylist: Denylist | None = None) -> GeneratedTask:
    """One answer task of ``kind`` from ``seed`` (same arguments -> equal result): identity lookup
    and order reads as reference, ``expected_outcome="answer"``, ``answer_facts`` from the state,
    ``notes["must_discover"]`` the fact values (redrawn when one appears in the instruction).
    ValueError for an unknown kind; RuntimeError (a bug) when the reference changes the state."""
    _check(kind)
    for attempt in range(20):
        fac = RetailFactory(task_seed(kind, seed, attempt), denylist)
        fac.template = None
        ctx = _Ctx(fac)
        instruction, later, reference, facts, notes = _GENERATORS[kind](ctx)
        must = _value_texts(facts)
        if not leaked_values(instruction, must):
            break
    else:  # pragma: no cover
        raise RuntimeError(f"{kind} seed {seed}: every attempt leaked a fact into the instruction")
    assert_reads_only(TOOLS, fac.state, reference, f"{kind} seed {seed}")
    return GeneratedTask(
        initial_state=fac.state, instruction=" ".join(instruction.split()), user_messages=later,
        reference_solution=reference,
        notes={"kind": kind, "seed": seed, "attempt": attempt, "template": fac.template,
               "lookup": "email" if ctx.by_email else "name_zip", "must_discover": must, **notes},
        expected_outcome="answer", skills=["search"] if notes.get("found_by_description") else [],
        variant=None, answer_facts=facts)


def kind_for_intent(text: str | list[str]) -> str | None:
    """The answer kind a customer's first message asks for (keyword rules), or None."""
    return match_intent(_INTENTS, text)


def initial_state_requirements(kind: str) -> dict[str, Any]:
    """What an answer task's initial state contains. ValueError for an unknown kind."""
    _check(kind)
    return dict(_REQUIREMENTS[kind])


def success_condition(kind: str) -> str:
    """The success condition of an answer kind. ValueError for an unknown kind."""
    _check(kind)
    return _SUCCESS[kind]
