"""Reward components of a trajectory and the documented combined reward (docs/rewards.md).

Raw components (stored per trajectory in ``Verdict.reward_components``):

* ``outcome``: 1.0 when the final state matches the expected state (and, for refusal / transfer
  tasks, the refusal was said / the transfer made), else 0.0;
* ``format_valid``: 1.0 when every tool call parsed, named a known tool and had schema-valid
  arguments and the episode ended normally, else 0.0;
* ``violations``: number of path / policy violations (``Verdict.violations``);
* ``tool_calls``: number of tool calls the agent made (parsed or not);
* ``length``: completion tokens the agent generated over the episode.

Each is normalized to [0, 1] separately (:func:`normalize`), then combined with the weights of
:data:`WEIGHTS`, gated by the outcome (:func:`combine`): a trajectory that did not reach the
right outcome gets 0 whatever its style, so no shaping term can be earned without the task.
"""
from __future__ import annotations

from typing import Mapping

#: Weights of the normalized components inside the outcome gate; they sum to 1.
WEIGHTS: dict[str, float] = {"format_valid": 0.2, "violations": 0.5, "tool_calls": 0.15, "length": 0.15}
#: Completion-token budget: BASE + PER_CALL x (reference length).
LENGTH_BUDGET_BASE = 256
LENGTH_BUDGET_PER_CALL = 64


def length_budget(reference_calls: int) -> int:
    """Token budget of an episode whose reference solution has ``reference_calls`` calls."""
    return LENGTH_BUDGET_BASE + LENGTH_BUDGET_PER_CALL * max(0, reference_calls)


def normalize(components: Mapping[str, float], reference_calls: int) -> dict[str, float]:
    """Each raw component mapped to [0, 1], higher is better.

    ``outcome`` and ``format_valid`` stay 0/1; ``violations`` n -> 1 / (1 + n); ``tool_calls``
    n -> min(1, max(1, r) / n) for n > 0 (r = reference length; at most as many calls as the
    reference scores 1, twice as many 0.5), 0 for n = 0 when the reference has calls, 1 when it
    has none; ``length`` t tokens -> min(1, budget / t) (1 for t = 0), budget from
    :func:`length_budget`. KeyError when a component is missing.
    """
    n_calls = float(components["tool_calls"])
    r = max(0, int(reference_calls))
    if n_calls > 0:
        calls = min(1.0, max(1, r) / n_calls)
    else:
        calls = 0.0 if r > 0 else 1.0
    tokens = float(components["length"])
    budget = length_budget(r)
    return {
        "outcome": float(components["outcome"]),
        "format_valid": float(components["format_valid"]),
        "violations": 1.0 / (1.0 + float(components["violations"])),
        "tool_calls": calls,
        "length": 1.0 if tokens <= 0 else min(1.0, budget / tokens),
    }


def combine(components: Mapping[str, float], reference_calls: int) -> float:
    """The combined reward in [0, 1]: ``outcome x sum(WEIGHTS[c] x normalized[c])``.

    A perfect demonstration (right outcome, valid format, no violation, no more calls than the
    reference, within the token budget) scores 1.0; a wrong outcome scores 0.0.
    """
    n = normalize(components, reference_calls)
    return round(n["outcome"] * sum(w * n[c] for c, w in WEIGHTS.items()), 6)
