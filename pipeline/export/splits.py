"""Group-wise train/validation/test assignment.

The split of a row is a pure function of its *group key* (the blueprint id) and a seed, so all
tasks and trajectories of one task type land in the same split: a model is evaluated on task
types it never trained on, and re-running the export never moves a group.
"""
from __future__ import annotations

import hashlib

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
    realised shares can be far from them (three blueprints may all land in train).

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
