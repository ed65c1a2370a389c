"""Skill coverage: a blueprint x skill matrix and skill-pair counts (docs/skills.md).

Units are task packages when tasks are given (``trajpipe synthesize``), else blueprints
(``trajpipe blueprints``): a matrix cell is the number of tasks of that blueprint tagged with the
skill (or 1/0: is the blueprint tagged with it); a pair count is the number of units tagged with
both skills. ``rare_pairs`` lists the co-occurring pairs with the fewest units, the combinations
``trajpipe synthesize --target-skills a,b`` can add tasks for.
"""
from __future__ import annotations

import itertools
from collections import Counter
from typing import Any, Iterable

from pipeline.records import Blueprint, TaskPackage
from pipeline.skills import SKILLS

#: Short column headers for the printed matrix.
ABBREV: dict[str, str] = {
    "identity_lookup": "ident", "policy_reading": "policy", "search": "search", "modification": "modify",
    "creation": "create", "cancellation": "cancel", "refund_payment": "pay", "multi_step": "multi",
    "refusal": "refuse", "transfer": "transf", "confirmation": "confirm",
}


def coverage(blueprints: Iterable[Blueprint], tasks: Iterable[TaskPackage] | None = None,
             n_rare: int = 5) -> dict[str, Any]:
    """The coverage report as a JSON-ready dict.

    Keys: ``unit`` ("task" or "blueprint"), ``skills`` (column order = :data:`SKILLS`),
    ``blueprints`` (row ids), ``matrix`` (rows x skills ints), ``skill_totals`` (units per skill),
    ``pairs`` ({"a+b": units with both}, every pair of SKILLS, a < b in SKILLS order),
    ``rare_pairs`` (up to ``n_rare`` pairs with the fewest but > 0 units), ``uncovered_skills``
    (skills no unit has), ``n_units``. Raises ValueError when a unit carries an unknown skill id.
    """
    bps = list(blueprints)
    tasks = list(tasks) if tasks is not None else None
    skills = list(SKILLS)
    col = {s: i for i, s in enumerate(skills)}
    rows = [b.blueprint_id for b in bps]
    row = {r: i for i, r in enumerate(rows)}
    matrix = [[0] * len(skills) for _ in rows]
    units: list[tuple[str, list[str]]] = ([(t.blueprint_id, t.skills) for t in tasks] if tasks is not None
                                          else [(b.blueprint_id, b.skills) for b in bps])
    pairs: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    for bp_id, tags in units:
        unknown = [s for s in tags if s not in col]
        if unknown:
            raise ValueError(f"{bp_id}: unknown skill ids {unknown}")
        tags = sorted(set(tags), key=col.__getitem__)
        if bp_id not in row:  # a task whose blueprint is not listed
            row[bp_id] = len(rows)
            rows.append(bp_id)
            matrix.append([0] * len(skills))
        for s in tags:
            matrix[row[bp_id]][col[s]] += 1
            totals[s] += 1
        for a, b in itertools.combinations(tags, 2):
            pairs[f"{a}+{b}"] += 1
    all_pairs = {f"{a}+{b}": pairs.get(f"{a}+{b}", 0) for a, b in itertools.combinations(skills, 2)}
    present = sorted(((n, p) for p, n in all_pairs.items() if n > 0))
    return {
        "unit": "task" if tasks is not None else "blueprint",
        "n_units": len(units),
        "skills": skills,
        "blueprints": rows,
        "matrix": matrix,
        "skill_totals": {s: totals.get(s, 0) for s in skills},
        "pairs": all_pairs,
        "rare_pairs": [{"pair": p, "count": n} for n, p in present[:n_rare]],
        "uncovered_skills": [s for s in skills if not totals.get(s)],
    }


def coverage_tables(report: dict[str, Any], max_rows: int = 40) -> list[Any]:
    """Rich tables for a :func:`coverage` report: the matrix (at most ``max_rows`` rows) and the
    skill totals with the rarest pairs."""
    from rich.table import Table

    unit = report["unit"]
    m = Table(title=f"coverage: {unit}s per blueprint x skill ({report['n_units']} {unit}s)")
    m.add_column("blueprint", no_wrap=True, min_width=max([9] + [len(b) for b in report["blueprints"]]))
    for s in report["skills"]:
        m.add_column(ABBREV.get(s, s), justify="right")
    for bp, cells in list(zip(report["blueprints"], report["matrix"]))[:max_rows]:
        m.add_row(bp, *[str(c) if c else "." for c in cells])
    t = Table(title="skill totals / rarest co-occurring pairs")
    t.add_column("skill")
    t.add_column(unit + "s", justify="right")
    t.add_column("rare pair")
    t.add_column(unit + "s", justify="right")
    rare = report["rare_pairs"]
    for i, s in enumerate(report["skills"]):
        p = rare[i] if i < len(rare) else None
        t.add_row(s, str(report["skill_totals"][s]), p["pair"] if p else "", str(p["count"]) if p else "")
    return [m, t]
