"""Group-wise train/validation/test assignment.

The split of a row is a pure function of its *group*: blueprints (task types) that share a source
customer or a source period are joined into one connected component (union-find), and a component
gets one split from the SHA-256 of its smallest blueprint id and a seed. So all tasks and
trajectories of one task type, of one source customer and of one source period land in the same
split; a model is evaluated on task types (and customers, periods) it never trained on, and
re-running the export never moves a group. Whole blueprints can be held out as an evaluation set.
"""
from __future__ import annotations

import hashlib
from typing import Iterable

SPLITS = ("train", "validation", "test")


def split_point(group_key: str, seed: int = 0) -> float:
    """A uniform number in ``[0, 1)`` from the SHA-256 of ``"<seed>:<group_key>"`` (first 8 bytes)."""
    digest = hashlib.sha256(f"{seed}:{group_key}".encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64


def assign_split(
    group_key: str, seed: int = 0, fractions: tuple[float, float, float] = (0.8, 0.1, 0.1)
) -> str:
    """``"train"``, ``"validation"`` or ``"test"`` for ``group_key``, stable across runs.

    ``fractions`` are the expected shares of groups (not rows) per split; with few groups the
    realised shares can be far from them (three blueprints may all land in train): whole exports
    go through :func:`split_components`, which then fills the empty splits
    (:func:`fill_empty_splits`).

    Raises:
        ValueError: ``fractions`` is not three non-negative numbers summing to 1.
    """
    if len(fractions) != 3 or any(f < 0 for f in fractions) or abs(sum(fractions) - 1.0) > 1e-9:
        raise ValueError(f"fractions must be 3 non-negative numbers summing to 1, got {fractions}")
    u = split_point(group_key, seed)
    if u < fractions[0]:
        return "train"
    if u < fractions[0] + fractions[1]:
        return "validation"
    return "test" if fractions[2] > 0 else ("validation" if fractions[1] > 0 else "train")


HOLDOUT = "holdout"


class _UnionFind:
    """Disjoint sets over hashable keys (path halving + union by size)."""

    def __init__(self) -> None:
        self.parent: dict = {}
        self.size: dict = {}

    def add(self, x) -> None:
        if x not in self.parent:
            self.parent[x] = x
            self.size[x] = 1

    def find(self, x):
        self.add(x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a, b) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return
        if self.size[ra] < self.size[rb]:
            ra, rb = rb, ra
        self.parent[rb] = ra
        self.size[ra] += self.size[rb]


def split_components(
    blueprint_keys: dict[str, dict[str, list[str]]],
    seed: int = 0,
    fractions: tuple[float, float, float] = (0.8, 0.1, 0.1),
    holdout_blueprints: Iterable[str] = (),
) -> dict[str, dict]:
    """Assign every blueprint a split so that no *group* crosses splits.

    ``blueprint_keys`` maps a blueprint id to its group keys by kind, e.g.
    ``{"bp-1": {"customer": ["mia_li_3668"], "period": ["2024-05"]}}``. Blueprints that share any
    key (same source customer, same source period) are joined by union-find into one connected
    component; a component gets one split from :func:`assign_split` on its smallest blueprint id,
    so a blueprint, a source customer and a source period each fall wholly in one split. A
    component that contains a blueprint of ``holdout_blueprints`` goes entirely to
    :data:`HOLDOUT` (an evaluation set of unseen task types). With few components, every split
    with a nonzero fraction still gets one where there are enough (:func:`fill_empty_splits`).

    Returns ``{blueprint_id: {"split", "component", "component_size"}}``.

    Raises:
        ValueError: bad ``fractions`` (see :func:`assign_split`) or a holdout id that is not a
            known blueprint.
    """
    holdout = set(holdout_blueprints)
    unknown = holdout - set(blueprint_keys)
    if unknown:
        raise ValueError(f"--holdout-blueprints names unknown blueprint ids {sorted(unknown)}; "
                         f"known: {sorted(blueprint_keys)[:20]}")
    uf = _UnionFind()
    for bp, keys in blueprint_keys.items():
        uf.add(("bp", bp))
        for kind, values in (keys or {}).items():
            for v in values or ():
                if v is not None and str(v) != "":
                    uf.union(("bp", bp), (kind, str(v)))
    members: dict = {}
    for bp in blueprint_keys:
        members.setdefault(uf.find(("bp", bp)), []).append(bp)
    out: dict[str, dict] = {}
    chosen: dict[str, str] = {}
    for bps in members.values():
        comp = min(bps)
        chosen[comp] = HOLDOUT if holdout & set(bps) else assign_split(comp, seed, fractions)
    fill_empty_splits(chosen, seed, fractions)
    for bps in members.values():
        comp = min(bps)
        for bp in bps:
            out[bp] = {"split": chosen[comp], "component": comp, "component_size": len(bps)}
    return out


def fill_empty_splits(chosen: dict[str, str], seed: int = 0,
                      fractions: tuple[float, float, float] = (0.8, 0.1, 0.1)) -> list[str]:
    """Give every split with a nonzero fraction at least one component when there are enough.

    ``chosen`` maps a component key to its split (from :func:`assign_split`; :data:`HOLDOUT`
    components are left alone) and is changed in place. Hashing alone puts three components all in
    train about half the time (0.8 ** 3), leaving nothing to validate or test on. When the
    non-holdout components are at least as many as the splits with a nonzero fraction, each such
    split left empty (in the order train, validation, test) takes one component from the split
    that holds the most (ties: that order): the one whose :func:`split_point` lies nearest the
    empty split's interval of ``[0, 1)``. With more components the hash alone fills every split
    almost always, so large exports keep the plain hash assignment (stable as data grows); only
    small ones move. Returns the moved component keys, sorted."""
    wanted = [s for s, f in zip(SPLITS, fractions) if f > 0]
    comps = sorted(c for c, s in chosen.items() if s != HOLDOUT)
    if len(comps) < len(wanted):
        return []
    bounds, lo = {}, 0.0
    for s, f in zip(SPLITS, fractions):
        bounds[s] = (lo, lo + f)
        lo += f
    moved = []
    for empty in wanted:
        if any(chosen[c] == empty for c in comps):
            continue
        counts = {s: sum(chosen[c] == s for c in comps) for s in SPLITS}
        donor = max(SPLITS, key=lambda s: (counts[s], -SPLITS.index(s)))
        lo, hi = bounds[empty]

        def distance(c: str) -> tuple[float, str]:
            u = split_point(c, seed)
            return (0.0 if lo <= u < hi else min(abs(u - lo), abs(u - hi)), c)

        pick = min((c for c in comps if chosen[c] == donor), key=distance)
        chosen[pick] = empty
        moved.append(pick)
    return sorted(moved)


class SplitPlan:
    """The split of every row of one export: :func:`split_components` over every blueprint the
    export names (the blueprints, and the blueprint ids of the tasks, kept trajectories and
    groups, in that order), joined by their ``source_keys``; a blueprint id no component holds
    gets :func:`assign_split` of its own.

    ``components`` is :func:`split_components`' result; calling the plan with a blueprint id
    gives its split (None for None)."""

    def __init__(self, blueprint_ids: Iterable[str | None], source_keys: dict[str, dict[str, list[str]]] | None,
                 seed: int = 0, fractions: tuple[float, float, float] = (0.8, 0.1, 0.1),
                 holdout_blueprints: Iterable[str] = ()):
        keys: dict[str, dict[str, list[str]]] = {}
        for bp_id in blueprint_ids:
            if bp_id is not None:
                keys.setdefault(bp_id, {})
        for bp_id, k in (source_keys or {}).items():
            if bp_id in keys:
                keys[bp_id] = k
        self.seed, self.fractions = seed, fractions
        self.holdout = list(holdout_blueprints)
        self.components = split_components(keys, seed, fractions, self.holdout)

    def __call__(self, blueprint_id: str | None) -> str | None:
        if blueprint_id is None:
            return None
        c = self.components.get(blueprint_id)
        return c["split"] if c else assign_split(blueprint_id, self.seed, self.fractions)

    def manifest(self) -> dict:
        """The split part of the manifest's ``export`` section."""
        return {
            "split_seed": self.seed,
            "split_fractions": list(self.fractions),
            "split_group_key": "connected components of blueprint_id, source customer, source period",
            "split_components": len({c["component"] for c in self.components.values()}),
            "split_of_blueprint": {bp: c["split"] for bp, c in sorted(self.components.items())},
            "holdout_blueprints": sorted(self.holdout),
        }
