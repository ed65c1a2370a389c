"""Task verification: is this task package a good exercise? And the difficulty band.

Checks, in order; each writes a reason code and its evidence into ``TaskVerdict.details
["checks"][name]``. The cheap, basic checks (1-3) always run; the checks that build trajectories
(4-5) run only on a task that passed 1-2 (they are meaningless on a broken reference), so a
task is counted once, under its first failing basic check.

1. ``reference`` - the reference solution runs without an error in a clean sandbox
   (``TASK_REFERENCE_FAILED``) and reaches the expected final state
   (``TASK_REFERENCE_MISMATCH``).
2. ``fail_to_pass`` (SWE-bench's FAIL_TO_PASS idea) - for an ``"action"`` task the verifier
   fails on the untouched initial state and passes after the reference
   (``TASK_NOT_FAIL_TO_PASS``). For ``"refusal"`` / ``"transfer"`` tasks the right final state
   *is* the initial state, so doing nothing is not what must fail; the verifier there checks
   "state unchanged + the refusal said / the transfer made", and fail-to-pass means *the wrong
   action fails*: every call the rule forbids (``generation_notes["forbidden_calls"]``; when
   absent, at least one call derived by :func:`pipeline.verify.mutations.forbidden_calls`) run
   after the reference's reads must succeed in the tools and change the state, so the state-hash
   check catches it (``TASK_NOT_FAIL_TO_PASS`` when it does not, or when no forbidden call is
   known: a rule the tools already enforce does not test the agent's reading of the policy).
   A refusal / transfer task whose reference changes the state, or a transfer task whose
   reference makes no transfer, is ``TASK_OUTCOME_INCONSISTENT``.
   For an ``"answer"`` task the state must not change either (``TASK_OUTCOME_INCONSISTENT``),
   the facts must be valid and the reference answer must pass the answer matcher
   (``TASK_ANSWER_INVALID``), and a reply without the facts must fail it (``TASK_NOT_FAIL_TO_PASS``).
3. ``answer_leak`` - values the agent must obtain through tools (ids found by lookup, computed
   prices and refunds, the required facts of an answer task: ``generation_notes["must_discover"]``)
   do not occur, as whole tokens, in the instruction or the scripted customer turns
   (``TASK_ANSWER_LEAK``).
4. ``required_tools`` - each tool the task declares required
   (:func:`pipeline.verify.mutations.required_tools`) really is: with it removed from the
   sandbox (``TOOL_DISABLED``), the reference replayed as a trajectory no longer passes the
   trajectory verifier (``TASK_TOOL_NOT_REQUIRED``).
5. ``reverse_validation`` - the known-good variants of the reference pass and the known-bad
   mutants fail the trajectory verifier (:mod:`pipeline.verify.mutations`);
   otherwise ``TASK_VERIFIER_WEAK`` with the misclassified labels.

The difficulty band (:func:`apply_difficulty_band`) is applied after rollouts: a task whose
pass rate over its k teacher rollouts falls outside the band gets ``TASK_TOO_EASY`` /
``TASK_TOO_HARD``.
"""
from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable

from pipeline.domains.common import leaked_values as token_leaks
from pipeline.records import TaskPackage, TaskVerdict, Verdict
from pipeline.sandbox import Sandbox

from . import mutations


def leaked_values(task: TaskPackage) -> list[str]:
    """Hidden ``must_discover`` values that appear as a whole token (not inside a longer word or
    number) in the instruction or a scripted customer turn (the token test:
    :func:`pipeline.domains.common.leaked_values`, which the generators run on the instruction)."""
    text = "\n".join([task.visible.instruction, *task.visible.user_messages])
    notes = task.hidden.generation_notes or {}
    return token_leaks(text, [str(v) for v in notes.get("must_discover", []) or []])


def verify_task(task: TaskPackage, domain: Any, reverse_validation: bool = True) -> TaskVerdict:
    """Check that ``task`` is a good exercise (see the module docstring for the checks).

    Returns a :class:`TaskVerdict`: ``passed`` when no check failed, ``reason_codes`` in check
    order, ``details["checks"]`` the evidence per check. ``reverse_validation=False`` skips
    checks 4-5 (the slowest part, a few ms per task).
    """
    codes: list[str] = []
    checks: dict[str, dict[str, Any]] = {}
    details: dict[str, Any] = {"checks": checks}
    writes = set(domain.write_tools)
    ref = [c.model_dump() for c in task.hidden.reference_solution]
    sb = Sandbox(domain, task.hidden.initial_state)
    initial_hash = sb.state_hash()
    details["initial_state_hash"] = initial_hash
    results = sb.run(ref)
    errs = [f"{r.name}: {r.content[:200]}" for r in results if not r.ok]
    final_hash = sb.state_hash()
    checks["reference"] = {"passed": not errs and final_hash == task.hidden.expected_state_hash,
                           "errors": errs, "final_state_hash": final_hash}
    if errs:
        codes.append("TASK_REFERENCE_FAILED")
        details["reference_errors"] = errs
    if final_hash != task.hidden.expected_state_hash:
        codes.append("TASK_REFERENCE_MISMATCH")

    # fail-to-pass
    outcome = task.expected_outcome
    if outcome == "action":
        f2p = initial_hash != task.hidden.expected_state_hash
        checks["fail_to_pass"] = {"passed": f2p, "notion": "initial state fails, reference passes"}
        if not f2p:
            codes.append("TASK_NOT_FAIL_TO_PASS")
    elif outcome == "answer":
        # the right final state is the initial one; what must fail is a reply without the facts
        from . import answers
        from .router import answer_facts

        if task.hidden.expected_state_hash != initial_hash:
            codes.append("TASK_OUTCOME_INCONSISTENT")
        facts = answer_facts(task)
        try:
            answers.check_facts(facts)
            ref_ok = answers.check_answer(facts, [mutations.closing_text(task)]).passed
            empty_ok = answers.check_answer(facts, [mutations.DONE_TEXT]).passed
        except ValueError as exc:
            ref_ok, empty_ok = False, True
            details["answer_error"] = str(exc)
        checks["fail_to_pass"] = {"passed": ref_ok and not empty_ok, "facts": len(facts),
                                  "notion": "a reply without the facts fails, the reference answer passes"}
        if not ref_ok:
            codes.append("TASK_ANSWER_INVALID")
        elif empty_ok:
            codes.append("TASK_NOT_FAIL_TO_PASS")
    else:
        consistent = task.hidden.expected_state_hash == initial_hash
        if outcome == "transfer":
            consistent = consistent and any(c["name"] in domain.terminate_tools for c in ref)
        if not consistent:
            codes.append("TASK_OUTCOME_INCONSISTENT")
        forbidden, declared = mutations.forbidden_calls(task, domain)
        reads = [c for c in ref if c["name"] not in writes and c["name"] not in domain.terminate_tools]
        caught = []
        for fc in forbidden:
            fsb = Sandbox(domain, task.hidden.initial_state)
            fsb.run(reads)
            r = fsb.call(fc["name"], fc.get("arguments", {}))
            caught.append(r.ok and fsb.state_hash() != task.hidden.expected_state_hash)
        # declared forbidden calls must all be caught; of derived candidates, at least one
        f2p = bool(forbidden) and (all(caught) if declared else any(caught))
        checks["fail_to_pass"] = {"passed": f2p, "notion": "the forbidden action changes the state",
                                  "forbidden_calls": len(forbidden), "declared": declared, "caught": caught}
        if not f2p:
            codes.append("TASK_NOT_FAIL_TO_PASS")

    leaks = leaked_values(task)
    checks["answer_leak"] = {"passed": not leaks, "leaked_count": len(leaks)}
    if leaks:
        codes.append("TASK_ANSWER_LEAK")
        details["leaked_count"] = len(leaks)

    if reverse_validation and set(codes) <= {"TASK_ANSWER_LEAK"}:
        from .trajectory import verify_trajectory

        expected_state = sb.state
        not_required = []
        required = mutations.required_tools(task, domain)
        closing = mutations.closing_text(task)
        for tool in required:
            v = mutations.Variant(f"without:{tool}", False, ref, final_text=closing)
            traj = mutations.to_trajectory(task, domain, v, disabled_tools=(tool,))
            if verify_trajectory(traj, task, domain, expected_state).passed:
                not_required.append(tool)
        checks["required_tools"] = {"passed": not not_required, "required": required, "not_required": not_required}
        if not_required:
            codes.append("TASK_TOOL_NOT_REQUIRED")
        rv = mutations.reverse_validate(task, domain, expected_state)
        checks["reverse_validation"] = {"passed": not rv["misclassified"], **rv}
        if rv["misclassified"]:
            codes.append("TASK_VERIFIER_WEAK")
    return TaskVerdict(task_id=task.task_id, passed=not codes, reason_codes=codes, details=details)


# ---- difficulty band ---------------------------------------------------------------------------

@dataclass(frozen=True)
class DifficultyBand:
    """A pass-rate interval: ``lo``/``hi`` in [0, 1], each end closed unless ``*_open``.

    ``DifficultyBand(0, 1)`` keeps every task; ``DifficultyBand(0, 1, True, True)`` keeps the
    tasks some but not all rollouts pass (the useful band for RL with group-relative advantages:
    a group whose rollouts all score the same gives no learning signal).
    """

    lo: float = 0.0
    hi: float = 1.0
    lo_open: bool = False
    hi_open: bool = False

    def contains(self, p: float) -> bool:
        """Is pass rate ``p`` inside the band?"""
        above = p > self.lo if self.lo_open else p >= self.lo
        below = p < self.hi if self.hi_open else p <= self.hi
        return above and below

    def __str__(self) -> str:
        return f"{'(' if self.lo_open else '['}{self.lo},{self.hi}{')' if self.hi_open else ']'}"


def parse_band(text: str) -> DifficultyBand:
    """Parse ``"LO,HI"`` (closed), or with brackets: ``"(0,1)"`` open, ``"[0.2,1)"`` mixed.

    Raises ValueError for anything else, values outside [0, 1], or LO > HI.
    """
    m = re.fullmatch(r"\s*([\[(]?)\s*([0-9.]+)\s*,\s*([0-9.]+)\s*([\])]?)\s*", text or "")
    if not m:
        raise ValueError(f"difficulty band must look like 0.0,1.0 or (0,1), got {text!r}")
    try:
        lo, hi = float(m.group(2)), float(m.group(3))
    except ValueError:
        raise ValueError(f"difficulty band bounds must be numbers, got {text!r}") from None
    if not (0.0 <= lo <= hi <= 1.0):
        raise ValueError(f"difficulty band needs 0 <= LO <= HI <= 1, got {text!r}")
    return DifficultyBand(lo, hi, m.group(1) == "(", m.group(4) == ")")


def pass_rates(verdicts: Iterable[Verdict]) -> dict[str, tuple[int, int]]:
    """task_id -> (passes, k) over the trajectory verdicts."""
    acc: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for v in verdicts:
        acc[v.task_id][0] += int(v.passed)
        acc[v.task_id][1] += 1
    return {t: (p, k) for t, (p, k) in acc.items()}


def apply_difficulty_band(task_verdicts: Iterable[TaskVerdict], verdicts: Iterable[Verdict],
                          band: DifficultyBand | str = DifficultyBand()) -> list[TaskVerdict]:
    """Task verdicts after the difficulty check over the k teacher rollouts of each task.

    The pass rate is passes / k of the trajectory verdicts (``Verdict.passed``). A task that
    passed task verification and has rollouts outside ``band`` fails with ``TASK_TOO_EASY``
    (above) or ``TASK_TOO_HARD`` (below); ``details["difficulty"]`` records ``{passes, k,
    pass_rate, band}`` for every task with rollouts. Tasks without rollouts and tasks already
    failed are returned unchanged. Input order is kept.
    """
    if isinstance(band, str):
        band = parse_band(band)
    rates = pass_rates(verdicts)
    out = []
    for tv in task_verdicts:
        if tv.task_id not in rates:
            out.append(tv)
            continue
        p, k = rates[tv.task_id]
        rate = p / k if k else 0.0
        details = {**tv.details, "difficulty": {"passes": p, "k": k, "pass_rate": rate, "band": str(band)}}
        codes = list(tv.reason_codes)
        if tv.passed and not band.contains(rate):
            below = rate < band.lo or (band.lo_open and rate == band.lo)
            codes.append("TASK_TOO_HARD" if below else "TASK_TOO_EASY")
        out.append(tv.model_copy(update={"details": details, "reason_codes": codes, "passed": not codes}))
    return out
