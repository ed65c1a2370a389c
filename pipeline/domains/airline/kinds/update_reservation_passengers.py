"""Airline task kind ``update_reservation_passengers``: Correct a passenger's name or date of birth on a reservation.

``generate(fac)`` builds one instance with an :class:`~pipeline.domains.airline.entities.AirlineFactory`
and returns ``(instruction, later customer turns, reference solution, notes)``; ``VARIANTS`` maps each
rule-decided variant id to ``(generator, expected outcome, instance skills)``; ``SKILLS``,
``REQUIREMENTS`` and ``SUCCESS`` describe the kind (:mod:`pipeline.domains.airline.generator` runs them).
"""
from __future__ import annotations

import datetime as _dt
import random
from typing import Any, Callable

from pipeline.domains.common import MAX_TRIES as _MAX_TRIES

from ..entities import AirlineFactory
from .common import (
    _ask, _person, _opening, _CONSENT, _LATER, _lookup, _other_trips, _distractor_flights,
    _shuffle_reservations,
)

KIND = "update_reservation_passengers"
#: Skills every task of the kind exercises (ids of pipeline.skills.SKILLS).
SKILLS: tuple[str, ...] = ("identity_lookup", "modification", "confirmation")
#: What the initial state of a task contains (human-readable).
REQUIREMENTS: dict[str, Any] = {
    "users": 1, "user_reservations": "1-3; the target has 1-3 passengers, one with a wrong name or date "
    "of birth", "flights": "the reservations' flights",
}
#: The final state that counts as success.
SUCCESS = (
    "The named reservation has the corrected passenger details, the same number of "
    "passengers and nothing else changed."
)


def _misspell(name: str, rng: random.Random) -> str:
    if len(name) < 3:
        return name + name[-1]
    i = rng.randint(1, len(name) - 2)
    return rng.choice([name[:i] + name[i + 1:], name[:i] + name[i] + name[i:],
                       name[:i] + name[i + 1] + name[i] + name[i + 2:]])


def generate(fac: AirlineFactory) -> tuple[str, list[str], list[dict], dict]:
    rng = fac.rng
    uid = fac.user()
    _other_trips(fac, uid)
    rid = fac.trip(uid, n_passengers=rng.choice([1, 2, 2, 3]))
    res = fac.state["reservations"][rid]
    idx = rng.randrange(len(res["passengers"]))
    correct = dict(res["passengers"][idx])
    wrong = dict(correct)
    field = rng.choice(["first_name", "last_name", "dob"])
    for _ in range(_MAX_TRIES):
        if field == "dob":
            d = _dt.date.fromisoformat(correct["dob"])
            if rng.random() < 0.5:
                d2 = d + _dt.timedelta(days=rng.choice([-1, 1]) * rng.randint(1, 40))
            else:
                d2 = d.replace(year=d.year + rng.choice([-1, 1]), day=min(d.day, 28))
            wrong["dob"] = d2.isoformat()
            candidate = (wrong["dob"],)
        else:
            wrong[field] = _misspell(correct[field], rng)
            candidate = (_person(wrong),)
        if wrong != correct and fac._accept(*candidate):
            break
    else:  # pragma: no cover
        raise RuntimeError("could not draw a wrong passenger value")
    res["passengers"][idx] = wrong  # the booking holds the mistake; the customer corrects it
    _distractor_flights(fac)
    _shuffle_reservations(fac, uid)
    if field == "dob":
        fix = _ask(fac, [f"The date of birth for {_person(correct)} on reservation {rid} is wrong: it should be "
                         f"{correct['dob']}, not {wrong['dob']}.",
                         f"On booking {rid}, please correct {_person(correct)}'s date of birth to {correct['dob']}.",
                         f"I made a mistake when booking {rid}: {_person(correct)} was born on {correct['dob']}. "
                         f"Could you fix the date of birth?"])
    else:
        fix = _ask(fac, [f"On reservation {rid} the passenger name {_person(wrong)} is misspelled; "
                          f"it should be {_person(correct)}.",
                          f"Please fix a typo in booking {rid}: {_person(wrong)} should read {_person(correct)} "
                          f"(date of birth {correct['dob']}).",
                         f"There's a typo in a passenger name on my reservation {rid}. It says {_person(wrong)} but "
                         f"the correct name is {_person(correct)}."])
    instruction = " ".join([_opening(rng, uid), fix, "Everything else stays the same.", rng.choice(_CONSENT)])
    fixed = [dict(p) for p in res["passengers"]]
    fixed[idx] = correct
    reference = [
        *_lookup(uid, rid),
        {"name": "update_reservation_passengers", "arguments": {"reservation_id": rid, "passengers": fixed}},
    ]
    notes = {"reservation_id": rid, "passenger_index": idx, "field": field, "wrong": wrong, "correct": correct,
             "must_discover": [p["dob"] for i, p in enumerate(fixed) if i != idx]
             + [f["flight_number"] for f in res["flights"]],
             "rule_ids": ["airline.modify.passengers", "airline.general.confirm"],
             "decided_by": "passenger details may change, the passenger count may not"}
    return " ".join(instruction.split()), list(rng.choice(_LATER)), reference, notes


#: Rule-decided variant id -> (generator, expected outcome, instance skills); the id names the rule
#: that decides the outcome.
VARIANTS: dict[str, tuple[Callable[[AirlineFactory], tuple], str, tuple[str, ...]]] = {
}
