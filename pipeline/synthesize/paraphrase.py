"""Optional model paraphrase of task instructions (off by default).

``trajpipe synthesize --paraphrase-with-model`` asks a teacher backend (any of
``pipeline.rollout.backends``) to rewrite each templated customer message in other words,
greedy (temperature 0, so a model gives the same paraphrase of the same task). A paraphrase is
kept only when it is safe for the task:

* every *anchor* of the original survives verbatim: tokens with a digit or an underscore (user
  ids, reservation ids, dates, card digits, counts) and capitalized words not at a sentence
  start (names, cities, card brands);
* no value only the tools reveal (``generation_notes.must_discover``) appears in it;
* one paragraph of at most twice the original length, no tool-call syntax, no quotes.

Otherwise the template text stays. Either way ``generation_notes.paraphrase`` records the model
and the decision (``accepted`` or the reason); an accepted paraphrase keeps the template text in
``generation_notes.template_instruction``.
"""
from __future__ import annotations

import re
from typing import Any

from pipeline.records import TaskPackage

SYSTEM = ("Rewrite the customer's message to a customer-service agent in different words, as the same "
          "customer. Keep every id, number, date and name exactly as written. Output only the rewritten "
          "message.")
_ANCHOR_DIGIT = re.compile(r"[\w.@-]*[\d_][\w.@-]*")
_CAP = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+")


def anchors(text: str) -> list[str]:
    """Tokens a paraphrase of ``text`` must keep verbatim (see the module docstring)."""
    out = [t.strip(".,;:!?()") for t in _ANCHOR_DIGIT.findall(text)]
    out += [m.group(0) for m in _CAP.finditer(text)]
    return sorted({t for t in out if t and t not in ("I", "Hi", "Hello")})


def check_paraphrase(original: str, new: str, hidden: list[str]) -> str | None:
    """Why ``new`` cannot replace ``original`` (``"empty"``, ``"too_long"``, ``"format"``,
    ``"lost:<token>"``, ``"leak"``), or None when it can."""
    t = " ".join((new or "").split())
    if not t:
        return "empty"
    if len(t) > 2 * len(original) + 40:
        return "too_long"
    if re.search(r"[{}<>\"]|tool_call", t):
        return "format"
    for a in anchors(original):
        if not re.search(rf"(?<![\w]){re.escape(a)}(?![\w])", t):
            return f"lost:{a}"
    if any(v and re.search(rf"(?<![\w.]){re.escape(str(v))}(?![\w])", t) for v in hidden):
        return "leak"
    return None


def paraphrase_tasks(tasks: list[TaskPackage], backend: Any, max_new_tokens: int = 128) -> list[TaskPackage]:
    """Tasks with model-paraphrased instructions where safe (see the module docstring); one
    batched ``backend.generate`` call; the inputs are not modified."""
    from pipeline.rollout.backends import SamplingConfig

    if not tasks:
        return []
    prompts = [[{"role": "system", "content": SYSTEM},
                {"role": "user", "content": t.visible.instruction}] for t in tasks]
    gens = backend.generate(prompts, [None] * len(tasks),
                            SamplingConfig(max_new_tokens=max_new_tokens, temperature=0.0, seed=0))
    out = []
    for t, g in zip(tasks, gens):
        text = " ".join(g.text.strip().split("\n\n")[0].split())
        hidden = list(t.hidden.generation_notes.get("must_discover", []) or [])
        why = check_paraphrase(t.visible.instruction, text, hidden)
        notes = {**t.hidden.generation_notes,
                 "paraphrase": {"model": getattr(backend, "model_id", "?"), "decision": why or "accepted"}}
        if why:
            out.append(t.model_copy(update={"hidden": t.hidden.model_copy(update={"generation_notes": notes})}))
        else:
            notes["template_instruction"] = t.visible.instruction
            out.append(t.model_copy(update={
                "visible": t.visible.model_copy(update={"instruction": text}),
                "hidden": t.hidden.model_copy(update={"generation_notes": notes})}))
    return out
