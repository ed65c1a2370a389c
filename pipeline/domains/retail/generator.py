"""The retail task generators: one module per task kind, run here.

Task generators (:func:`generate_task`) build, for one *kind*, a small fresh state (one
customer with 1-4 orders plus two other customers, a catalogue of 8-10 product types: the entity
factory, :mod:`pipeline.domains.retail.entities`), the customer's opening message (from several
templates), scripted later turns, a reference solution that obeys the policy, and hidden notes
naming the varied values and the deciding rule. Each kind is a module of
:mod:`pipeline.domains.retail.kinds` (``KIND``, ``OUTCOME``, ``generate``, ``DECIDING_RULES``,
``VARIANTS``, ``SKILLS``, ``REQUIREMENTS``, ``SUCCESS``); :data:`KIND_MODULES` lists them in
catalogue order. Every task is self-checked: its reference runs cleanly, changes the state
exactly when the expected outcome is an action, and breaks no rule (:func:`rules.rule_violations`).
"""
from __future__ import annotations

import copy
import random
import re
from typing import Any, Callable

from pipeline.domains.base import GeneratedTask
from pipeline.domains.common import Denylist, hashed_seed, leaked_values, replay_reference

from . import rules as R
from .entities import RetailFactory, generate_state
from .kinds import (
    cancel_pending_order,
    exchange_delivered_items,
    modify_pending_address,
    modify_pending_items,
    modify_pending_payment,
    modify_user_address,
    refuse_cancel_not_pending,
    refuse_exchange_other_product,
    refuse_return_not_delivered,
    return_delivered_items,
    transfer_shipped_order_address,
)
from .kinds.common import Gen, _Ctx, _sources
from .tools import TOOLS

#: The task kinds, one module each, in catalogue order (the order of :data:`TASK_KINDS`).
KIND_MODULES = (cancel_pending_order, return_delivered_items, exchange_delivered_items, modify_pending_items,
                modify_pending_address, modify_pending_payment, modify_user_address, refuse_return_not_delivered,
                refuse_cancel_not_pending, refuse_exchange_other_product, transfer_shipped_order_address)

#: kind -> (generator, expected outcome)
_GENERATORS: dict[str, tuple[Callable[[_Ctx], Gen], str]] = {m.KIND: (m.generate, m.OUTCOME) for m in KIND_MODULES}

#: Task kinds with a generator.
TASK_KINDS: tuple[str, ...] = tuple(_GENERATORS)

#: kind -> the rule ids whose outcome the kind's variants turn on.
DECIDING_RULES: dict[str, list[str]] = {m.KIND: m.DECIDING_RULES for m in KIND_MODULES}

#: Rule-decided variants: kind -> {"rule:<rule_id>": the kind whose generator builds it}. An
#: action kind's variant is the request made where that rule forbids it (a refusal or transfer
#: task); a refusal / transfer kind's own variant is itself.
VARIANT_KINDS: dict[str, dict[str, str]] = {m.KIND: m.VARIANTS for m in KIND_MODULES}


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


#: kind -> skill ids (pipeline.skills.SKILLS).
SKILLS_FOR_KIND: dict[str, list[str]] = {m.KIND: m.SKILLS for m in KIND_MODULES}

_REQUIREMENTS: dict[str, dict[str, Any]] = {m.KIND: m.REQUIREMENTS for m in KIND_MODULES}

_SUCCESS: dict[str, str] = {m.KIND: m.SUCCESS for m in KIND_MODULES}

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
    return replay_reference(TOOLS, state, calls, f"{kind} seed {seed}")


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


__all__ = ["DECIDING_RULES", "KIND_FOR_TOOL", "KIND_MODULES", "RetailFactory", "SKILLS_FOR_KIND", "TASK_KINDS",
           "VARIANT_KINDS", "generate_state", "generate_task", "initial_state_requirements", "kind_for_intent",
           "kind_for_write_calls", "leaked_values", "success_condition", "task_seed", "variant_outcome",
           "variants_for_kind"]
