"""Optional LLM-assisted refinement of blueprint intents (off by default).

``trajpipe blueprints --summarize-with-model`` asks a teacher backend (any of
``pipeline.rollout.backends``: transformers, vllm, openai) to write, for every blueprint, one
sentence saying what the customers wanted, from the blueprint's example intents and action
signature. The deterministic intent stays in ``cluster["deterministic_intent"]``; the model's
sentence (forced to start with "Customer wants to", cut at its first sentence end) replaces
``intent`` only when it passes a sanity check (something after the prefix, at most 200
characters, no tool-call syntax, no quotes); otherwise the deterministic one is kept and
``cluster["summary_rejected"]`` says why. Greedy decoding (temperature 0), so a given model gives
the same summaries on the same blueprints. Example intents are already pseudonymized.
"""
from __future__ import annotations

import re
from typing import Any

from pipeline.records import Blueprint

MAX_CHARS = 200
#: Forced start of the model's answer (constrained by prefix), so the output is a summary sentence.
PREFIX = "Customer wants to"
SYSTEM = ("You summarize customer-service requests. Answer with ONE short sentence starting with "
          "'Customer wants to' that says what these customers asked for. No names, no ids.")


def _prompt(bp: Blueprint) -> list[dict[str, str]]:
    examples = "\n".join(f"- {t}" for t in bp.example_intents[:3]) or "- (no customer message)"
    calls = ", ".join(s.split("(")[0] for s in bp.action_signature) or "no database change"
    outcome = bp.cluster.get("outcome", "action")
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"Customer messages:\n{examples}\nWhat the agent did: {calls} "
                                        f"(outcome: {outcome}).\nSummary:"}]


def check_summary(text: str) -> str | None:
    """Why a model summary is unusable (``"empty"``, ``"too_long"``, ``"tool_syntax"``,
    ``"quotes"``: it quotes the customer instead of summarizing), or None."""
    t = " ".join((text or "").split())
    if not t:
        return "empty"
    if len(t) > MAX_CHARS:
        return "too_long"
    if re.search(r"[{}<>]|tool_call", t):
        return "tool_syntax"
    if '"' in t:
        return "quotes"
    return None


def summarize_intents(blueprints: list[Blueprint], backend: Any, max_new_tokens: int = 40) -> list[Blueprint]:
    """Blueprints with model-written intents (see the module docstring); one batched
    ``backend.generate`` call. The input blueprints are not modified."""
    from pipeline.rollout.backends import SamplingConfig

    if not blueprints:
        return []
    gens = backend.generate([_prompt(b) for b in blueprints], [PREFIX] * len(blueprints),
                            SamplingConfig(max_new_tokens=max_new_tokens, temperature=0.0, seed=0))
    out = []
    for bp, g in zip(blueprints, gens):
        first = re.split(r"(?<=[.!?])\s|\n", g.text.strip(), maxsplit=1)[0] if g.text.strip() else ""
        text = " ".join((PREFIX + " " + first).split()) if first else ""
        why = check_summary(text)
        cluster = {**bp.cluster, "deterministic_intent": bp.intent, "summary_model": getattr(backend, "model_id", "?")}
        if why:
            cluster["summary_rejected"] = why
            out.append(bp.model_copy(update={"cluster": cluster}))
        else:
            out.append(bp.model_copy(update={"intent": text, "cluster": cluster}))
    return out
