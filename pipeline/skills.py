"""The skill taxonomy: a small, fixed vocabulary of what a task exercises.

Every blueprint and every task package carries a list of skill ids from :data:`SKILLS`
(documented in ``docs/skills.md``). Domains map each task kind to its skills
(``domain.skills_for_kind(kind)``); the coverage report (blueprint x skill, skill-pair counts)
and ``trajpipe synthesize --target-skills`` are built on these ids.
"""
from __future__ import annotations

SKILLS: dict[str, str] = {
    "identity_lookup": "establish who the customer is and load their record (user / order lookup)",
    "policy_reading": "apply a rule of the policy text that decides what is allowed",
    "search": "search a catalogue or schedule (flights, products) for options that fit",
    "modification": "change an existing record (flights, items, address, baggage, passengers)",
    "creation": "create a new record (a booking, a certificate)",
    "cancellation": "cancel a record (reservation, order)",
    "refund_payment": "choose or split a payment method, or compute / route a refund",
    "multi_step": "compose several state-changing calls, or reads that feed later writes",
    "refusal": "refuse a request the policy forbids, leaving the state unchanged",
    "transfer": "hand the customer over to a human agent when the policy requires it",
    "confirmation": "obtain the customer's explicit confirmation before a write",
}


def check_skills(skills: list[str]) -> list[str]:
    """Return ``skills`` unchanged after checking every id is in :data:`SKILLS`.

    Raises ValueError naming the unknown ids and listing the known ones.
    """
    unknown = [s for s in skills if s not in SKILLS]
    if unknown:
        raise ValueError(f"unknown skill ids {unknown}; known: {', '.join(SKILLS)}")
    return list(skills)


#: Skills only a state-changing call exercises; a task whose correct outcome is a refusal or a
#: transfer keeps the skills of the request it handles (cancellation, modification...) but not these.
WRITE_ONLY_SKILLS: frozenset[str] = frozenset({"confirmation", "creation", "refund_payment", "multi_step"})


def ordered(skills) -> list[str]:
    """Unique skill ids in the order of :data:`SKILLS` (ValueError on an unknown id)."""
    s = set(check_skills(list(skills)))
    return [k for k in SKILLS if k in s]


def outcome_skills(base: list[str], outcome: str) -> list[str]:
    """The skills of a task or blueprint whose expected outcome is ``outcome``.

    ``"action"`` keeps ``base``; ``"refusal"`` / ``"transfer"`` drop :data:`WRITE_ONLY_SKILLS` and
    add ``policy_reading`` plus ``refusal`` / ``transfer``; anything else (``"answer"``: an
    information request) keeps ``base``. Returned in :data:`SKILLS` order.
    """
    if outcome in ("refusal", "transfer"):
        return ordered([s for s in base if s not in WRITE_ONLY_SKILLS] + ["policy_reading", outcome])
    return ordered(base)


def parse_skill_list(text: str | None) -> list[str]:
    """``"a,b"`` -> ``["a", "b"]`` after :func:`check_skills` (ValueError naming unknown ids)."""
    if not text:
        return []
    return check_skills([t.strip() for t in text.split(",") if t.strip()])
