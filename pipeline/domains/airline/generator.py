"""The airline task generators: one module per task kind, run here.

Task generators (:func:`generate_task`) build, for one *kind* (the write tool the task is
about), a small fresh state (one user, 1-3 of their reservations, a handful of flights: the
entity factory, :mod:`pipeline.domains.airline.entities`), the customer's opening message,
scripted later turns, a reference solution that obeys the policy, and hidden notes. Each kind is
a module of :mod:`pipeline.domains.airline.kinds` (``KIND``, ``generate``, ``VARIANTS``,
``SKILLS``, ``REQUIREMENTS``, ``SUCCESS``); :data:`KIND_MODULES` lists them in catalogue order.
Every generated task is self-checked: its reference solution is executed on a copy of the
initial state and must succeed.
"""
from __future__ import annotations

import copy
from typing import Any, Callable

from pipeline.domains.base import GeneratedTask
from pipeline.domains.common import Denylist, hashed_seed, leaked_values, replay_reference

from .entities import AirlineFactory, generate_state
from .kinds import (
    book_reservation,
    cancel_reservation,
    send_certificate,
    update_reservation_baggages,
    update_reservation_flights,
    update_reservation_passengers,
)
from .tools import TOOLS

#: The task kinds, one module each, in catalogue order (the order of :data:`TASK_KINDS`).
KIND_MODULES = (book_reservation, cancel_reservation, update_reservation_baggages, update_reservation_flights,
                update_reservation_passengers, send_certificate)

#: (kind, variant id) -> (generator, expected outcome, instance skills). The variant id names the
#: rule that decides the outcome: ``"rule:<rule_id>"``.
_VARIANTS: dict[tuple[str, str], tuple[Callable[[AirlineFactory], tuple], str, tuple[str, ...]]] = {
    (m.KIND, v): spec for m in KIND_MODULES for v, spec in m.VARIANTS.items()}


def variants_for_kind(kind: str) -> list[str]:
    """The rule-decided variant ids a ``kind`` supports (e.g. ``"rule:airline.cancel.eligibility"``)."""
    return [v for k, v in _VARIANTS if k == kind]


def variant_outcome(kind: str, variant: str | None) -> str:
    """Expected outcome of (kind, variant): ``"action"`` for the base task, else the variant's
    ``"refusal"`` / ``"transfer"``. ValueError for an unknown pair."""
    if variant is None:
        _check_kind(kind)
        return "action"
    if (kind, variant) not in _VARIANTS:
        raise ValueError(f"unknown airline variant {variant!r} of kind {kind!r}; known: {variants_for_kind(kind)}")
    return _VARIANTS[(kind, variant)][1]


#: Skills every task of a kind exercises (ids of pipeline.skills.SKILLS).
KIND_SKILLS: dict[str, tuple[str, ...]] = {m.KIND: m.SKILLS for m in KIND_MODULES}


#: The name the shared domain class (pipeline.domains.common.ModuleDomain) reads.
SKILLS_FOR_KIND = KIND_SKILLS


def _instance_skills(kind: str, notes: dict[str, Any]) -> list[str]:
    """Skills a particular base instance adds to its kind's: a cancellation the airline caused
    needs a flight search (reads that feed the decision); a gift card paying for a change is a
    payment choice."""
    out: list[str] = []
    if kind == "cancel_reservation" and notes.get("scenario") == "airline_cancelled":
        out += ["search", "multi_step"]
    return out


_GENERATORS: dict[str, Callable[[AirlineFactory], tuple[str, list[str], list[dict], dict]]] = {
    m.KIND: m.generate for m in KIND_MODULES}

#: Task kinds with a generator; each is named after the write tool the task is about.
TASK_KINDS: tuple[str, ...] = tuple(_GENERATORS)

_REQUIREMENTS: dict[str, dict[str, Any]] = {m.KIND: m.REQUIREMENTS for m in KIND_MODULES}

_SUCCESS: dict[str, str] = {m.KIND: m.SUCCESS for m in KIND_MODULES}


def _check_kind(kind: str) -> None:
    if kind not in _GENERATORS:
        raise ValueError(f"unknown airline task kind {kind!r}; known: {', '.join(TASK_KINDS)}")


def task_seed(kind: str, seed: int, attempt: int = 0, variant: str | None = None) -> int:
    """The entity seed of task (kind, seed): a hash of both, so that tasks of different kinds
    with the same seed do not share people, ids or flights. ``attempt`` > 0 gives the seeds of
    redraws (see :func:`generate_task`); a ``variant`` gets its own seeds."""
    return hashed_seed(f"airline:{kind}:{seed}" + (f":{attempt}" if attempt else "") + (f":{variant}" if variant else ""))


def generate_task(kind: str, seed: int, denylist: Denylist | None = None, variant: str | None = None) -> GeneratedTask:
    """Generate one task instance of ``kind`` from ``seed`` (same arguments -> equal result).

    ``instruction`` is the customer's opening message (user id, reservation id, what they want,
    which payment method, passenger details; never prices, refunds or nonfree bag counts);
    ``user_messages`` are later scripted turns; ``reference_solution`` lists ``{"name",
    "arguments"}`` calls that solve the task from ``initial_state`` within the policy; ``notes``
    hold the kind, seed, the varied values, ``must_discover`` (values only tools reveal, never in
    the instruction), ``template`` (index of the request paraphrase template) and the rule ids
    that decide the outcome.

    ``variant=None`` gives the base task (``expected_outcome="action"``: reads, then exactly one
    write). ``variant="rule:<rule_id>"`` (see :func:`variants_for_kind`) gives a task where that
    rule forbids the request: the reference only reads (``"refusal"``) or reads and calls
    ``transfer_to_human_agents`` (``"transfer"``), the state must not change, and
    ``notes["forbidden_calls"]`` holds the write an agent ignoring the rule would make.

    When a hidden value happens to appear in the instruction (e.g. a price difference of 22 and
    "May 22"), the task is redrawn from the next attempt seed, deterministically.

    Raises ValueError for an unknown kind or variant; RuntimeError if the denylist rejects every
    draw or (a bug) the reference solution fails or changes the state when it should not.
    """
    outcome = variant_outcome(kind, variant)
    gen = _GENERATORS[kind] if variant is None else _VARIANTS[(kind, variant)][0]
    for attempt in range(20):
        fac = AirlineFactory(task_seed(kind, seed, attempt, variant), denylist)
        instruction, later, reference, notes = gen(fac)
        if not leaked_values(instruction, notes.get("must_discover", [])):
            break
    else:  # pragma: no cover
        raise RuntimeError(f"{kind} seed {seed}: every attempt leaked a hidden value into the instruction")
    initial = fac.state
    # self-check: the reference must run cleanly on a copy of the initial state
    probe = replay_reference(TOOLS, initial, reference, f"{kind} seed {seed}")
    if outcome == "action" and probe == initial:  # pragma: no cover
        raise RuntimeError(f"{kind} seed {seed}: reference solution does not change the state")
    if outcome != "action" and probe != initial:  # pragma: no cover
        raise RuntimeError(f"{kind} seed {seed} {variant}: a {outcome} reference changed the state")
    skills = list(_instance_skills(kind, notes)) if variant is None else list(_VARIANTS[(kind, variant)][2])
    return GeneratedTask(
        initial_state=initial,
        instruction=instruction,
        user_messages=later,
        reference_solution=reference,
        notes={"kind": kind, "seed": seed, "attempt": attempt, "write_tool": kind, "variant": variant,
               "template": fac.template, **notes},
        expected_outcome=outcome,
        skills=skills,
        variant=variant,
    )


def initial_state_requirements(kind: str) -> dict[str, Any]:
    """What the initial state of a ``kind`` task must contain (human-readable values).
    ValueError for an unknown kind."""
    _check_kind(kind)
    return copy.deepcopy(_REQUIREMENTS[kind])


def success_condition(kind: str) -> str:
    """Human-readable description of the final state that counts as success for ``kind``.
    ValueError for an unknown kind."""
    _check_kind(kind)
    return _SUCCESS[kind]


def kind_for_write_calls(write_tool_names: list[str]) -> str | None:
    """Map a log's ordered write-call names to a task kind: the first name that has a generator,
    or None when there is none (e.g. the log made no write)."""
    for name in write_tool_names:
        if name in _GENERATORS:
            return name
    return None


__all__ = ["AirlineFactory", "KIND_MODULES", "KIND_SKILLS", "SKILLS_FOR_KIND", "TASK_KINDS", "generate_state",
           "generate_task", "initial_state_requirements", "kind_for_write_calls", "leaked_values", "success_condition",
           "task_seed", "variant_outcome", "variants_for_kind"]
