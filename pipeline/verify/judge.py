"""Optional model judge: scores only what code cannot (tone, clarity of the agent's messages).

Off by default (``trajpipe verify --judge`` turns it on). Any backend of
``pipeline/rollout/backends`` serves as judge. The score goes into ``Verdict.details["judge"]``
and never into ``reward_components`` or ``passed``: it is never the only reason to keep a sample
(a trajectory that fails a deterministic check stays failed; a passing one stays passing, the
score only informs preference and inspection).

Only agent-visible text reaches the judge prompt (the customer's and the agent's messages); no
hidden part of the task (reference, expected state) does.
"""
from __future__ import annotations

import re
from typing import Any, Iterable

from pipeline.records import Trajectory, Verdict

JUDGE_SYSTEM = ("You rate customer-service replies. Score the AGENT's tone and clarity from 1 (rude or "
                "confusing) to 5 (polite, clear, concise). Ignore whether the task was solved. Answer with "
                "one digit.")
_DIGIT = re.compile(r"[1-5]")


def judge_prompt(traj: Trajectory, max_chars: int = 4000) -> list[dict[str, str]]:
    """The judge's chat prompt: the system instruction and a transcript of the customer and agent
    text messages (tool calls and results left out), cut to the last ``max_chars`` characters."""
    lines = []
    for m in traj.messages:
        text = m.get("content") if isinstance(m.get("content"), str) else ""
        if m.get("role") == "user" and text and not text.startswith("[format error]"):
            lines.append(f"CUSTOMER: {text}")
        elif m.get("role") == "assistant" and text and not m.get("tool_calls"):
            lines.append(f"AGENT: {text}")
    transcript = "\n".join(lines)[-max_chars:] or "(the agent wrote no message)"
    return [{"role": "system", "content": JUDGE_SYSTEM},
            {"role": "user", "content": f"{transcript}\n\nScore (1-5):"}]


def parse_score(text: str) -> int | None:
    """The first digit 1-5 in the judge's answer, or None when there is none."""
    m = _DIGIT.search(text or "")
    return int(m.group(0)) if m else None


def judge(trajs: list[Trajectory], verdicts: list[Verdict], backend: Any, max_new_tokens: int = 4,
          seed: int = 0) -> list[Verdict]:
    """Verdicts with ``details["judge"] = {"tone_clarity": 1-5 or None, "raw": answer text}``.

    ``trajs`` and ``verdicts`` are matched on ``trajectory_id`` (KeyError for a verdict without
    its trajectory). ``passed``, ``reason_codes``, ``reward`` and ``reward_components`` are
    returned unchanged. Greedy decoding (temperature 0) so the score is reproducible.
    """
    from pipeline.rollout.backends.base import SamplingConfig

    by_id = {t.trajectory_id: t for t in trajs}
    prompts = [judge_prompt(by_id[v.trajectory_id]) for v in verdicts]
    if not prompts:
        return []
    gens = backend.generate(prompts, [None] * len(prompts),
                            SamplingConfig(max_new_tokens=max_new_tokens, temperature=0.0, seed=seed))
    out = []
    for v, g in zip(verdicts, gens):
        out.append(v.model_copy(update={"details": {**v.details, "judge": {
            "tone_clarity": parse_score(g.text), "raw": g.text[:40], "model": getattr(backend, "model_id", "")}}}))
    return out


def judged_ok(verdicts: Iterable[Verdict], min_score: int) -> list[bool]:
    """Per verdict: passed AND (no judge score, or score >= ``min_score``). A judge can only
    remove a sample from a kept set, never add one."""
    return [v.passed and ((v.details.get("judge") or {}).get("tone_clarity") is None
                          or v.details["judge"]["tone_clarity"] >= min_score) for v in verdicts]
