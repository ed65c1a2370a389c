"""Two-stage verification: the task (a good exercise?) and the trajectory (a good demonstration?).

* :func:`verify_task` (``tasks.py``): reference solution in a clean sandbox, fail-to-pass
  (SWE-bench's FAIL_TO_PASS idea; for refusal / transfer tasks: the forbidden action fails), no
  answer leak, required tools really required, reverse-validation of the verifier against
  known-good variants and known-bad mutants (``mutations.py``); :func:`apply_difficulty_band`
  after rollouts.
* :func:`verify_trajectory` (``trajectory.py``): final state vs. the expected state (tau-bench's
  database-hash reward) with a state diff as evidence, normal end, valid tool calls, path checks
  with step indices (``paths.py``), false success claims; reward components and the combined
  reward (``rewards.py``, docs/rewards.md).

Every failed check is a reason code of ``reasons.py`` (docs/reason-codes.md).
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from pipeline.records import TaskPackage, Trajectory, Verdict

from .tasks import DifficultyBand, apply_difficulty_band, leaked_values, parse_band, pass_rates, verify_task
from .trajectory import expected_state, verify_trajectory


def verify_all(trajs: Iterable[Trajectory], tasks: dict[str, TaskPackage],
               domain_for: Callable[[str], Any]) -> list[Verdict]:
    """Verify every trajectory against its task (KeyError if a task is missing). The expected
    final state of each task is computed once."""
    cache: dict[str, dict[str, Any]] = {}
    out = []
    for t in trajs:
        task = tasks[t.task_id]
        domain = domain_for(task.domain)
        if t.task_id not in cache:
            cache[t.task_id] = expected_state(task, domain)
        out.append(verify_trajectory(t, task, domain, cache[t.task_id]))
    return out


__all__ = ["DifficultyBand", "apply_difficulty_band", "expected_state", "leaked_values",
           "parse_band", "pass_rates", "verify_all", "verify_task", "verify_trajectory"]
