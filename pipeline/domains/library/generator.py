"""Seeded generator of fictional library members, books and loans, and of task instances.

Faker (``seed_instance``) and ``random.Random(seed)`` only; no clock, no global random state:
same seed (and denylist) -> identical task. ``denylist(value) -> bool`` rejects personal values
(full name, email, member id) seen in real logs; a rejected value is redrawn.
"""
from __future__ import annotations

import copy
import datetime as _dt
import re
from typing import Any, Callable

from pipeline.domains.base import GeneratedTask
from pipeline.domains.common import Denylist, SeededFactory, hashed_seed

from . import rules as R
from .state import TODAY, empty_state
from .tools import TOOLS


class LibraryFactory(SeededFactory):
    """Builds one fictional library state from a seed (``state``); ``rng``, ``fake`` and the
    denylist-checked ``_draw`` come from :class:`SeededFactory`."""

    def __init__(self, seed: int, denylist: Denylist | None = None):
        super().__init__(seed, denylist, empty_state)

    def member(self) -> str:
        """Add a member; return the member id ``M`` + 5 digits."""
        def make():
            first, last = self.fake.first_name(), self.fake.last_name()
            email = f"{first.lower()}.{last.lower()}{self.rng.randint(10, 99)}@example.org"
            return f"M{self.rng.randint(10000, 99999)}", f"{first} {last}", email
        mid, name, email = self._draw(make, lambda v: v)
        self.state["members"][mid] = {"member_id": mid, "name": name, "email": email, "loans": []}
        return mid

    def book(self) -> str:
        """Add a book (Faker title and author); return its id ``B`` + 5 digits."""
        bid = self._draw(lambda: f"B{self.rng.randint(10000, 99999)}", lambda v: (v,))
        title = self.fake.catch_phrase().title()
        self.state["books"][bid] = {"book_id": bid, "title": title, "author": self.fake.name()}
        return bid

    def loan(self, member_id: str, renewals: int, overdue: bool) -> str:
        """Add an active loan with ``renewals`` renewals, due 1-20 days before (overdue) or
        0-20 days after TODAY; return its id ``L`` + 5 digits."""
        lid = self._draw(lambda: f"L{self.rng.randint(10000, 99999)}", lambda v: (v,))
        days = -self.rng.randint(1, 20) if overdue else self.rng.randint(0, 20)
        due = (_dt.date.fromisoformat(TODAY) + _dt.timedelta(days=days)).isoformat()
        self.state["loans"][lid] = {"loan_id": lid, "member_id": member_id, "book_id": self.book(),
                                    "due_date": due, "renewals": renewals, "status": "active"}
        self.state["members"][member_id]["loans"].append(lid)
        return lid


Gen = tuple[str, list[str], list[dict[str, Any]], dict[str, Any], str]
_OPEN = ("Hi, my email is {email}.", "Hello! I'm {name} ({email}).", "Hi there, {email} here.")
_YES = (["Yes, please go ahead."], ["Yes, I confirm."], ["Yes, that's right."])
_INSIST = (["Yes, please renew it anyway."], ["Are you sure? I'd really like it renewed."])


def _setup(fac: LibraryFactory, renewals: int, overdue: bool) -> tuple[str, str, str]:
    other = fac.member()
    fac.loan(other, fac.rng.randint(0, 2), fac.rng.random() < 0.3)
    mid = fac.member()
    for _ in range(fac.rng.randint(0, 2)):  # other loans of the member, varied
        fac.loan(mid, fac.rng.randint(0, 2), fac.rng.random() < 0.3)
    lid = fac.loan(mid, renewals, overdue)
    fac.rng.shuffle(fac.state["members"][mid]["loans"])
    m = fac.state["members"][mid]
    return mid, lid, fac.rng.choice(_OPEN).format(email=m["email"], name=m["name"])


def _reads(fac: LibraryFactory, mid: str, lid: str) -> list[dict[str, Any]]:
    return [{"name": "find_member", "arguments": {"email": fac.state["members"][mid]["email"]}},
            {"name": "get_loan", "arguments": {"loan_id": lid}}]


def _title(fac: LibraryFactory, lid: str) -> str:
    return fac.state["books"][fac.state["loans"][lid]["book_id"]]["title"]


def _gen_renew(fac: LibraryFactory) -> Gen:
    renewals = fac.rng.randint(0, 1)
    mid, lid, hello = _setup(fac, renewals, overdue=False)
    ask = fac.rng.choice([f"Could I renew my loan {lid} ({_title(fac, lid)})?", f"Please renew loan {lid}.",
                          f"I'd like more time with \"{_title(fac, lid)}\", loan {lid}."])
    ref = _reads(fac, mid, lid) + [{"name": "renew_loan", "arguments": {"loan_id": lid}}]
    return f"{hello} {ask}", list(fac.rng.choice(_YES)), ref, {
        "loan_id": lid, "renewals_before": renewals, "rule_ids": ["library.renew.max_two", "library.renew.not_overdue"],
        "decided_by": f"renewed {renewals} times and not overdue: renewal allowed"}, "action"


def _gen_return(fac: LibraryFactory) -> Gen:
    overdue = fac.rng.random() < 0.5
    mid, lid, hello = _setup(fac, fac.rng.randint(0, 2), overdue=overdue)
    ask = fac.rng.choice([f"I'm returning the book of loan {lid}.", f"Please check in my loan {lid}, I've brought it back."])
    ref = _reads(fac, mid, lid) + [{"name": "return_book", "arguments": {"loan_id": lid}}]
    return f"{hello} {ask}", list(fac.rng.choice(_YES)), ref, {
        "loan_id": lid, "overdue": overdue, "rule_ids": ["library.return.any"],
        "decided_by": "any active loan may be returned"}, "action"


def _gen_refuse_limit(fac: LibraryFactory) -> Gen:
    mid, lid, hello = _setup(fac, 2, overdue=False)
    ask = fac.rng.choice([f"Please renew loan {lid} once more.", f"Can I renew my loan {lid} again?"])
    return f"{hello} {ask}", list(fac.rng.choice(_INSIST)), _reads(fac, mid, lid), {
        "loan_id": lid, "renewals_before": 2, "rule_ids": ["library.renew.max_two"],
        "decided_by": "already renewed twice: renewal must be refused"}, "refusal"


def _gen_refuse_overdue(fac: LibraryFactory) -> Gen:
    mid, lid, hello = _setup(fac, fac.rng.randint(0, 1), overdue=True)
    ask = fac.rng.choice([f"My loan {lid} is a bit late; could you renew it?", f"Please renew loan {lid}."])
    return f"{hello} {ask}", list(fac.rng.choice(_INSIST)), _reads(fac, mid, lid), {
        "loan_id": lid, "due_date": fac.state["loans"][lid]["due_date"], "rule_ids": ["library.renew.not_overdue"],
        "decided_by": "overdue: renewal must be refused"}, "refusal"


_GENERATORS: dict[str, Callable[[LibraryFactory], Gen]] = {
    "renew_loan": _gen_renew, "return_loan": _gen_return,
    "refuse_renew_limit": _gen_refuse_limit, "refuse_renew_overdue": _gen_refuse_overdue,
}
TASK_KINDS: tuple[str, ...] = tuple(_GENERATORS)
DECIDING_RULES: dict[str, list[str]] = {
    "renew_loan": ["library.renew.max_two", "library.renew.not_overdue"], "return_loan": ["library.return.any"],
    "refuse_renew_limit": ["library.renew.max_two"], "refuse_renew_overdue": ["library.renew.not_overdue"],
}
SKILLS_FOR_KIND: dict[str, list[str]] = {
    "renew_loan": ["identity_lookup", "policy_reading", "modification", "confirmation"],
    "return_loan": ["identity_lookup", "modification", "confirmation"],
    "refuse_renew_limit": ["identity_lookup", "policy_reading", "refusal"],
    "refuse_renew_overdue": ["identity_lookup", "policy_reading", "refusal"],
}
_REQUIREMENTS = {
    "renew_loan": {"target_loan": "active, 0-1 renewals, not overdue"},
    "return_loan": {"target_loan": "active, overdue or not"},
    "refuse_renew_limit": {"target_loan": "active, renewed twice"},
    "refuse_renew_overdue": {"target_loan": "active, overdue"},
}
_SUCCESS = {
    "renew_loan": "The loan's due date is 14 days later and its renewal count one higher; nothing else changed.",
    "return_loan": "The loan's status is 'returned'; nothing else changed.",
    "refuse_renew_limit": "Nothing changed: the renewal is refused.",
    "refuse_renew_overdue": "Nothing changed: the renewal is refused.",
}


#: Rule-decided variants: kind -> {"rule:<id>": the kind that generates it}.
VARIANT_KINDS: dict[str, dict[str, str]] = {
    "renew_loan": {"rule:library.renew.max_two": "refuse_renew_limit",
                   "rule:library.renew.not_overdue": "refuse_renew_overdue"},
    "return_loan": {},
    "refuse_renew_limit": {"rule:library.renew.max_two": "refuse_renew_limit"},
    "refuse_renew_overdue": {"rule:library.renew.not_overdue": "refuse_renew_overdue"},
}
_OUTCOME = {"renew_loan": "action", "return_loan": "action", "refuse_renew_limit": "refusal",
            "refuse_renew_overdue": "refusal"}


def _generating_kind(kind: str, variant: str | None) -> str:
    _check_kind(kind)
    if variant is None:
        return kind
    if variant not in VARIANT_KINDS[kind]:
        raise ValueError(f"library kind {kind!r} has no variant {variant!r}")
    return VARIANT_KINDS[kind][variant]


def variants_for_kind(kind: str) -> list[str]:
    """Rule-decided variant ids of ``kind``. ValueError for an unknown kind."""
    _check_kind(kind)
    return list(VARIANT_KINDS[kind])


def variant_outcome(kind: str, variant: str | None) -> str:
    """"action" / "refusal" of (kind, variant). ValueError for an unknown kind or variant."""
    return _OUTCOME[_generating_kind(kind, variant)]


def _check_kind(kind: str) -> None:
    if kind not in _GENERATORS:
        raise ValueError(f"unknown library task kind {kind!r}; known: {', '.join(TASK_KINDS)}")


def task_seed(kind: str, seed: int) -> int:
    """Entity seed of task (kind, seed): a hash of both."""
    return hashed_seed(f"library:{kind}:{seed}")


def generate_task(kind: str, seed: int, denylist: Denylist | None = None, variant: str | None = None) -> GeneratedTask:
    """One task of ``kind`` (or its ``variant``, see VARIANT_KINDS) from ``seed``
    (deterministic). ValueError for an unknown kind or variant; RuntimeError when (a bug) the
    reference fails, changes the state of a refusal, leaves an action's state unchanged or
    breaks a rule."""
    requested, kind = kind, _generating_kind(kind, variant)
    fac = LibraryFactory(task_seed(kind, seed), denylist)
    instruction, later, reference, notes, outcome = _GENERATORS[kind](fac)
    probe = copy.deepcopy(fac.state)
    for call in reference:
        TOOLS[call["name"]].fn(probe, **copy.deepcopy(call["arguments"]))
    if (probe != fac.state) != (outcome == "action"):  # pragma: no cover
        raise RuntimeError(f"{kind} seed {seed}: reference state change does not match outcome {outcome}")
    if R.rule_violations(fac.state, [{**c, "error": None} for c in reference], probe):  # pragma: no cover
        raise RuntimeError(f"{kind} seed {seed}: reference breaks a rule")
    return GeneratedTask(initial_state=fac.state, instruction=instruction, user_messages=later,
                         reference_solution=reference, notes={"kind": requested, "generated_kind": kind,
                                                              "seed": seed, **notes},
                         expected_outcome=outcome, skills=list(SKILLS_FOR_KIND[kind]),
                         variant=variant or (None if outcome == "action" else f"rule:{DECIDING_RULES[kind][0]}"))


def initial_state_requirements(kind: str) -> dict[str, Any]:
    """What a ``kind`` task's initial state holds. ValueError for an unknown kind."""
    _check_kind(kind)
    return dict(_REQUIREMENTS[kind])


def success_condition(kind: str) -> str:
    """The final state that counts as success. ValueError for an unknown kind."""
    _check_kind(kind)
    return _SUCCESS[kind]


def kind_for_write_calls(names: list[str]) -> str | None:
    """``renew_loan`` / ``return_loan`` for the first matching write, else None."""
    for n in names:
        if n == "renew_loan":
            return "renew_loan"
        if n == "return_book":
            return "return_loan"
    return None


def kind_for_intent(text: str | list[str]) -> str | None:
    """``renew_loan`` / ``return_loan`` from the member's first turn(s) (keywords), else None."""
    for turn in [text] if isinstance(text, str) else text:
        if re.search(r"\brenew", turn or "", re.I):
            return "renew_loan"
        if re.search(r"\breturn|brought it back|check in", turn or "", re.I):
            return "return_loan"
    return None
