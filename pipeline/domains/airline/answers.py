"""Airline answer tasks: information requests whose answer the policy's rules compute from the state.

The customer asks; nothing may change. The reference solution only reads (the profile and / or
the reservation), and the hidden verifier holds the *facts* the agent must state
(:mod:`pipeline.verify.answers`), computed here from the generated state by the policy's rules,
never written in the instruction (``notes["must_discover"]``, the task verifier's leak check).

| kind | the customer asks | facts (rule) |
| --- | --- | --- |
| ``answer_baggage_allowance`` | how many checked bags travel free on a reservation | ``free_bags`` (count, unit bag) = free bags per passenger for the membership and cabin x passengers (``airline.book.baggage``) |
| ``answer_balances`` | the sum of their gift card balances and of their certificate balances (tau-bench airline tasks 8, 9 ask exactly this) | ``gift_total``, ``cert_total`` (money) |
| ``answer_insurance`` | whether a reservation has travel insurance (the tau-bench log of task 36) | ``insurance`` (boolean) |

Seeds are hashed from ``"airline:<kind>:<seed>"`` like the write kinds, so adding these kinds
changed no existing task.
"""
from __future__ import annotations

from typing import Any, Callable

from pipeline.domains.base import GeneratedTask
from pipeline.domains.common import Denylist, assert_reads_only, leaked_values, match_intent

from . import rules as R
from .entities import AirlineFactory
from .generator import task_seed
from .kinds.common import _distractor_flights, _lookup, _opening, _other_trips, _shuffle_reservations
from .tools import TOOLS

Gen = tuple[str, list[str], list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]


def _ask(fac: AirlineFactory, options: list[str]) -> str:
    i = fac.rng.randrange(len(options))
    fac.template = i
    return options[i]


def _gen_allowance(fac: AirlineFactory) -> Gen:
    rng = fac.rng
    uid = fac.user()
    user = fac.state["users"][uid]
    _other_trips(fac, uid)
    rid = fac.trip(uid)
    res = fac.state["reservations"][rid]
    n = len(res["passengers"])
    per = R.free_bags(user["membership"], res["cabin"])
    total = per * n
    _distractor_flights(fac)
    _shuffle_reservations(fac, uid)
    instruction = " ".join([_opening(rng, uid), _ask(fac, [
        f"How many checked bags can we bring for free on reservation {rid}?",
        f"Before I pack: what is the free checked baggage allowance for my booking {rid}, all travellers together?",
        f"Could you tell me how many free checked bags my reservation {rid} includes in total?"]),
        "I don't want to change anything, I just need the number."])
    facts = [{"name": "free_bags", "type": "count", "value": total, "unit": "bag",
              "allowed": sorted({per, n, res["total_baggages"], res["nonfree_baggages"]})}]
    notes = {"reservation_id": rid, "membership": user["membership"], "cabin": res["cabin"], "passengers": n,
             "free_per_passenger": per, "rule_ids": ["airline.book.baggage"],
             "decided_by": "free bags per passenger (membership x cabin) x passengers"}
    return instruction, ["Thanks, that's all I needed."], _lookup(uid, rid), facts, notes


def _gen_balances(fac: AirlineFactory) -> Gen:
    rng = fac.rng
    uid = fac.user(gift_cards=rng.randint(1, 3), certificates=rng.randint(1, 2))
    user = fac.state["users"][uid]
    _other_trips(fac, uid)
    gifts = [m["amount"] for m in user["payment_methods"].values() if m["source"] == "gift_card"]
    certs = [m["amount"] for m in user["payment_methods"].values() if m["source"] == "certificate"]
    instruction = " ".join([_opening(rng, uid), _ask(fac, [
        "I'd like to know the sum of my gift card balances and the sum of my certificate balances.",
        "How much do I have left in total on my gift cards, and how much in total on my travel certificates?",
        "Can you add up my gift card balances for me, and separately my certificates?"]),
        "If you give me individual balances, I'd like the sums too."])
    facts = [{"name": "gift_total", "type": "money", "value": float(sum(gifts)), "allowed": sorted(set(map(float, gifts)))},
             {"name": "cert_total", "type": "money", "value": float(sum(certs)), "allowed": sorted(set(map(float, certs)))}]
    notes = {"gift_cards": len(gifts), "certificates": len(certs), "rule_ids": ["airline.book.payment"],
             "decided_by": "sums of the profile's gift card and certificate amounts"}
    return instruction, ["Great, thank you."], [{"name": "get_user_details", "arguments": {"user_id": uid}}], facts, notes


def _gen_insurance(fac: AirlineFactory) -> Gen:
    rng = fac.rng
    uid = fac.user()
    _other_trips(fac, uid)
    has = rng.random() < 0.5
    rid = fac.trip(uid, insurance="yes" if has else "no")
    _distractor_flights(fac)
    _shuffle_reservations(fac, uid)
    instruction = " ".join([_opening(rng, uid), _ask(fac, [
        f"I thought I added travel insurance to reservation {rid}, but I can't see it online. Does my booking have it?",
        f"Can you check whether my reservation {rid} includes travel insurance?",
        f"I'm flying soon on booking {rid}: is travel insurance part of it or not?"]),
        "Please just check, I don't want any changes."])
    facts = [{"name": "insurance", "type": "boolean", "value": has, "subject": ["travel insurance", "insurance"]}]
    notes = {"reservation_id": rid, "insurance": "yes" if has else "no", "rule_ids": ["airline.book.insurance"],
             "decided_by": "the reservation's insurance field"}
    return instruction, ["Okay, thanks for checking."], _lookup(uid, rid), facts, notes


_GENERATORS: dict[str, Callable[[AirlineFactory], Gen]] = {
    "answer_baggage_allowance": _gen_allowance,
    "answer_balances": _gen_balances,
    "answer_insurance": _gen_insurance,
}
#: Answer kinds this domain generates (see the module docstring).
ANSWER_KINDS: tuple[str, ...] = tuple(_GENERATORS)
#: Skills every task of an answer kind exercises.
SKILLS_FOR_KIND: dict[str, tuple[str, ...]] = {
    "answer_baggage_allowance": ("identity_lookup", "policy_reading"),
    "answer_balances": ("identity_lookup", "refund_payment"),
    "answer_insurance": ("identity_lookup",),
}
_REQUIREMENTS = {
    "answer_baggage_allowance": {"users": 1, "user_reservations": "1-3; the target has 1-3 passengers"},
    "answer_balances": {"users": 1, "payment_methods": "1-3 gift cards and 1-2 certificates"},
    "answer_insurance": {"users": 1, "user_reservations": "1-3; the target with or without insurance"},
}
_SUCCESS = {
    "answer_baggage_allowance": "no state change; the agent states the reservation's total free checked bags",
    "answer_balances": "no state change; the agent states the sum of the gift card balances and of the certificates",
    "answer_insurance": "no state change; the agent says whether the reservation has travel insurance",
}
#: (regex over the lower-cased first customer message, kind), first match wins.
_INTENTS: tuple[tuple[str, str], ...] = (
    (r"\binsurance\b", "answer_insurance"),
    (r"\b(balance|balances)\b", "answer_balances"),
    (r"\b(allowance|how many)\b.*\b(bag|bags|baggage|luggage)\b", "answer_baggage_allowance"),
)


def _check(kind: str) -> None:
    if kind not in _GENERATORS:
        raise ValueError(f"unknown airline answer kind {kind!r}; known: {', '.join(ANSWER_KINDS)}")


def _value_texts(facts: list[dict[str, Any]]) -> list[str]:
    """Fact values as they could leak into an instruction (numbers as written, ids)."""
    out = []
    for f in facts:
        v = f["value"]
        if f["type"] in ("money", "count", "number"):
            out.append(str(int(v)) if float(v) == int(v) else str(v))
        elif f["type"] in ("id", "date"):
            out.append(str(v))
    return out


def generate_task(kind: str, seed: int, denylist: Denylist | None = None) -> GeneratedTask:
    """One answer task of ``kind`` from ``seed`` (same arguments -> equal result): reads-only
    reference, ``expected_outcome="answer"``, ``answer_facts`` computed from the state by the
    policy's rules, ``notes["must_discover"]`` the fact values (redrawn from the next attempt
    seed when one appears in the instruction). ValueError for an unknown kind; RuntimeError (a
    bug) when a reference call fails or changes the state."""
    _check(kind)
    for attempt in range(20):
        fac = AirlineFactory(task_seed(kind, seed, attempt), denylist)
        instruction, later, reference, facts, notes = _GENERATORS[kind](fac)
        must = _value_texts(facts)
        if not leaked_values(instruction, must):
            break
    else:  # pragma: no cover
        raise RuntimeError(f"{kind} seed {seed}: every attempt leaked a fact into the instruction")
    assert_reads_only(TOOLS, fac.state, reference, f"{kind} seed {seed}")
    return GeneratedTask(
        initial_state=fac.state, instruction=" ".join(instruction.split()), user_messages=later,
        reference_solution=reference,
        notes={"kind": kind, "seed": seed, "attempt": attempt, "template": fac.template, "must_discover": must, **notes},
        expected_outcome="answer", skills=[], variant=None, answer_facts=facts)


def kind_for_intent(text: str | list[str]) -> str | None:
    """The answer kind a customer's first message asks for (keyword rules of ``_INTENTS``), or None."""
    return match_intent(_INTENTS, text)


def initial_state_requirements(kind: str) -> dict[str, Any]:
    """What an answer task's initial state contains. ValueError for an unknown kind."""
    _check(kind)
    return dict(_REQUIREMENTS[kind])


def success_condition(kind: str) -> str:
    """The success condition of an answer kind. ValueError for an unknown kind."""
    _check(kind)
    return _SUCCESS[kind]
