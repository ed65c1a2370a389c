"""Known-good variants and known-bad mutants of a task's reference solution, as trajectories.

The same code serves the task verifier's reverse-validation (``verify_task``: a verifier that
cannot tell them apart drops the task) and the mutation suite in ``tests/test_mutations.py``
(the trajectory verifier must classify all of them). The idea is mutation testing of the
verifier: perturb a correct solution in ways that must (or must not) change the verdict.

Known-good (``expect_pass=True``):

* ``reference``: the reference calls, a proposal and a customer "yes" before the first write,
  a closing message;
* ``reordered``: the first pair of adjacent calls whose swap reaches the same final state with
  every call still succeeding and every argument still grounded (e.g. two independent reads; not
  a lookup moved after the call that uses its result), swapped;
* ``extra_read``: a harmless read (a read tool with no required argument, e.g. airline
  ``list_all_airports``) inserted after the first call.

Known-bad (``expect_pass=False``):

* ``wrong_argument``: one argument of the last write changed (another id of the same shape from
  the state, a number +-1, another enum value, a date +1 day ...), the first change that still
  runs and reaches a different state;
* ``extra_write``: the reference followed by one more successful state-changing call;
* ``skipped:<tool>``: the calls of one required tool (the writes, the identity lookups) left out;
* ``no_confirmation``: the agent proposes the write and makes it without waiting for a "yes"
  (the policy's confirmation constraint dropped; where ``paths.confirmation_required``);
* ``forbidden_action``: for a rule-decided task (refusal / transfer), the first call the rule
  forbids (:func:`forbidden_calls`) that the tools accept, made after the reference reads;
* ``do_nothing``: no call at all and a closing message that claims success.

Answer tasks (``expected_outcome == "answer"``: the reference only reads; the closing message
states the facts of ``hidden.verifier["answer"]["facts"]``, :func:`pipeline.verify.answers.render`)
add a known-good ``answer_reformatted`` (the same facts in other formats: ``1786.00 dollars``,
``four bags``, ISO dates, upper-cased ids) and known-bad ``wrong_value`` (one fact's value
changed to a value the task does not allow), ``missing_fact`` (one fact left out),
``answer_spraying`` (a numeric fact listed among other candidates: "300, 327 or 1000"),
``contradicting_fact`` (the right answer, then another value of the same fact) and
``question_only`` (the agent only asks a question back).

A mutant that cannot be built for a task (no write to perturb, no second read to swap, ...) is
simply absent; :func:`build_variants` reports what was built.
"""
from __future__ import annotations

import copy
import datetime as _dt
import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterator

from pipeline.records import TaskPackage, Trajectory, canonical_json
from pipeline.sandbox import Sandbox

from . import answers, paths

PROPOSAL = "I am about to run {name} with {args}. Shall I go ahead?"
CONFIRMATION = "Yes, please go ahead."
DONE_TEXT = "All done: your request has been completed."
REFUSAL_TEXT = "I'm sorry, but I cannot do that: our policy does not allow it."
CLAIM_TEXT = "Done! Everything has been updated as you asked."


@dataclass
class Variant:
    """One perturbed solution: ``label``, whether a correct verifier must pass it, its calls and
    how the conversation around them is built (``confirm``: a proposal + customer yes before the
    first write; ``final_text``: the agent's closing message)."""

    label: str
    expect_pass: bool
    calls: list[dict[str, Any]]
    confirm: bool = True
    final_text: str | None = None
    notes: dict[str, Any] = field(default_factory=dict)


def _write_tools(domain: Any) -> set[str]:
    return set(domain.write_tools)


def _run(domain: Any, task: TaskPackage, calls: list[dict[str, Any]]) -> tuple[str, bool]:
    """(final state hash, every call succeeded) of ``calls`` from the task's initial state."""
    sb = Sandbox(domain, task.hidden.initial_state)
    ok = all(r.ok for r in sb.run(copy.deepcopy(calls)))
    return sb.state_hash(), ok


def _reference(task: TaskPackage) -> list[dict[str, Any]]:
    return [c.model_dump() for c in task.hidden.reference_solution]


def required_tools(task: TaskPackage, domain: Any) -> list[str]:
    """Tools a task declares required: ``hidden.verifier["required_tools"]`` when the synthesizer
    set it, else the reference's write tools, identity tools (the policy's identification
    step) and, for a transfer task, its transfer call, in reference order."""
    declared = task.hidden.verifier.get("required_tools")
    if declared:
        return list(declared)
    writes = _write_tools(domain)
    has_write = any(c.name in writes for c in task.hidden.reference_solution)
    # identification binds state-changing calls: a refusal (no write) does not declare it required
    ident = set(domain.identity_tools) if has_write else set()
    out: list[str] = []
    transfer = task.expected_outcome == "transfer"
    for c in task.hidden.reference_solution:
        wanted = c.name in writes or c.name in ident or (transfer and c.name in domain.terminate_tools)
        if wanted and c.name not in out:
            out.append(c.name)
    return out


def forbidden_calls(task: TaskPackage, domain: Any) -> tuple[list[dict[str, Any]], bool]:
    """The calls a rule-decided (refusal / transfer) task forbids, and whether they were declared.

    Declared: ``generation_notes["forbidden_calls"]`` (``[{"name", "arguments"}]``). Otherwise
    derived: every write tool whose required parameters are all keys of the generation notes,
    called with the notes' values for its declared parameters (e.g. retail
    ``cancel_pending_order(order_id, reason)`` from notes holding ``order_id`` and ``reason``).
    Returns ``([], False)`` for an ``"action"`` task or when nothing can be derived.
    """
    notes = task.hidden.generation_notes or {}
    declared = list(notes.get("forbidden_calls") or [])
    if declared:
        return declared, True
    if task.expected_outcome == "action":
        return [], False
    out = []
    for name in sorted(_write_tools(domain)):
        params = domain.tools[name].schema.get("function", {}).get("parameters") or {}
        required = params.get("required") or []
        props = params.get("properties") or {}
        if required and all(k in notes for k in required):
            out.append({"name": name, "arguments": {k: notes[k] for k in props if k in notes}})
    return out, False


# ---- value perturbation --------------------------------------------------------------------

def _strings(obj: Any) -> Iterator[str]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            if isinstance(k, str):
                yield k
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)
    elif isinstance(obj, str):
        yield obj


def _shape(s: str) -> str:
    """Upper-case letters and digits -> X, other characters kept: ids of one kind share a shape
    (``"QX7P2L"`` -> ``"XXXXXX"``, ``"gift_card_1234567"`` -> ``"gift_card_XXXXXXX"``)."""
    return re.sub(r"[A-Z0-9]", "X", s)


def _value_candidates(v: Any, pool: list[str], enum: list[Any] | None) -> list[Any]:
    out: list[Any] = []
    if enum:
        out += [e for e in enum if e != v]
    if isinstance(v, bool):
        out.append(not v)
    elif isinstance(v, (int, float)):
        out += [v + 1, v - 1, v * 2] if v else [1]
    elif isinstance(v, str):
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", v):
            out.append((_dt.date.fromisoformat(v) + _dt.timedelta(days=1)).isoformat())
        shape = _shape(v)
        out += sorted({s for s in pool if s != v and _shape(s) == shape and ("_" in v) == ("_" in s)})[:6]
        if v in ("yes", "no"):
            out.append("no" if v == "yes" else "yes")
        out.append(v + "X")
    return out


def _mutations(args: dict[str, Any], schema: dict[str, Any], pool: list[str]) -> Iterator[dict[str, Any]]:
    """Arguments dicts that each differ from ``args`` in one place."""
    props = (schema.get("function", {}).get("parameters") or {}).get("properties", {})

    def rec(v: Any, prop: dict[str, Any]) -> Iterator[Any]:
        if isinstance(v, dict):
            sub = prop.get("properties", {}) if isinstance(prop, dict) else {}
            for k in v:
                for m in rec(v[k], sub.get(k, {})):
                    yield {**v, k: m}
        elif isinstance(v, list):
            item = prop.get("items", {}) if isinstance(prop, dict) else {}
            for i, x in enumerate(v):
                for m in rec(x, item):
                    yield v[:i] + [m] + v[i + 1:]
            if len(v) > 1:
                yield v[:-1]
        else:
            yield from _value_candidates(v, pool, prop.get("enum") if isinstance(prop, dict) else None)

    for k in args:
        for m in rec(args[k], props.get(k, {})):
            yield {**args, k: m}


def _wrong_argument(task: TaskPackage, domain: Any, ref: list[dict[str, Any]], expected: str,
                    writes: set[str]) -> Variant | None:
    idx = [i for i, c in enumerate(ref) if c["name"] in writes]
    if not idx:
        return None
    i = idx[-1]
    call = ref[i]
    pool = list(dict.fromkeys(_strings(task.hidden.initial_state)))
    fallback = None
    for n, args in enumerate(_mutations(call["arguments"], domain.tools[call["name"]].schema, pool)):
        if n >= 60:
            break
        calls = ref[:i] + [{"name": call["name"], "arguments": args}] + ref[i + 1:]
        h, ok = _run(domain, task, calls)
        if h != expected and ok:
            return Variant("wrong_argument", False, calls, notes={"call": i, "arguments": args})
        if h != expected and fallback is None:
            fallback = Variant("wrong_argument", False, calls, notes={"call": i, "arguments": args, "errors": True})
    return fallback


def _extra_write(task: TaskPackage, domain: Any, ref: list[dict[str, Any]], expected: str,
                 writes: set[str]) -> Variant | None:
    forbidden, _declared = forbidden_calls(task, domain)
    cands: list[dict[str, Any]] = list(forbidden)
    pool = list(dict.fromkeys(_strings(task.hidden.initial_state)))
    for c in ref:
        if c["name"] in writes:
            cands.append(c)
            for n, args in enumerate(_mutations(c["arguments"], domain.tools[c["name"]].schema, pool)):
                if n >= 40:
                    break
                cands.append({"name": c["name"], "arguments": args})
    # a closing transfer ends the episode: the extra write goes before it
    head, tail = (ref[:-1], ref[-1:]) if ref and ref[-1]["name"] in domain.terminate_tools else (ref, [])
    base = Sandbox(domain, task.hidden.initial_state)
    if not all(r.ok for r in base.run(copy.deepcopy(head))):
        return None
    after_head = base.state  # each candidate is tried from here, not replayed from the start
    for extra in cands:
        sb = Sandbox(domain, after_head)
        r = sb.call(extra["name"], copy.deepcopy(extra.get("arguments", {})))
        if not r.ok:
            continue
        sb.run(copy.deepcopy(tail))
        if sb.state_hash() != expected:
            return Variant("extra_write", False, head + [extra] + tail, notes={"extra": extra})
    return None


def _reordered(task: TaskPackage, domain: Any, ref: list[dict[str, Any]], expected: str) -> Variant | None:
    for i in range(len(ref) - 1):
        if canonical_json(ref[i]) == canonical_json(ref[i + 1]):
            continue
        calls = ref[:i] + [ref[i + 1], ref[i]] + ref[i + 2:]
        h, ok = _run(domain, task, calls)
        if ok and h == expected and _grounded(task, domain, calls):
            return Variant("reordered", True, calls, notes={"swapped": [i, i + 1]})
    return None


def _grounded(task: TaskPackage, domain: Any, calls: list[dict[str, Any]]) -> bool:
    """Do ``calls``, played as a trajectory, use only values the conversation showed before
    each call (:mod:`pipeline.verify.grounding`)?"""
    from .grounding import ungrounded_arguments

    traj = to_trajectory(task, domain, Variant("probe", True, calls))
    schemas = {t["function"]["name"]: t for t in task.visible.tools}
    return not ungrounded_arguments(paths.executed_calls(traj.tool_calls, traj.messages), traj.messages, domain,
                                    schemas, task.visible.instruction)


def _extra_read(task: TaskPackage, domain: Any, ref: list[dict[str, Any]]) -> Variant | None:
    writes = _write_tools(domain)
    used = {c["name"] for c in ref}
    for name, tool in domain.tools.items():
        params = tool.schema.get("function", {}).get("parameters") or {}
        if name in writes or name in used or params.get("required") or name in domain.terminate_tools:
            continue
        calls = ref[:1] + [{"name": name, "arguments": {}}] + ref[1:]
        return Variant("extra_read", True, calls, notes={"read": name})
    return None


QUESTION_TEXT = "Could you tell me which booking you mean, and what exactly you would like to know?"


def _wrong(fact: dict[str, Any]) -> Any:
    """A wrong value for ``fact`` that its ``allowed`` values do not cover either."""
    allowed = fact.get("allowed", []) or []
    v = answers.wrong_value(fact)
    for _ in range(20):
        if not (isinstance(v, (int, float)) and any(abs(float(v) - float(a)) < 0.005 for a in allowed
                                                    if isinstance(a, (int, float)))):
            return v
        v = answers.wrong_value({**fact, "value": v})
    return v


def _answer_variants(task: TaskPackage, ref: list[dict[str, Any]]) -> tuple[list[Variant], list[Variant]]:
    """(known-good, known-bad) answer variants of an answer task (see the module docstring)."""
    from .router import answer_facts

    facts = answer_facts(task)
    if not facts:
        return [], []
    first = facts[0]
    good = [Variant("answer_reformatted", True, ref, final_text=answers.render(facts, 1))]
    bad = [Variant("wrong_value", False, ref, final_text=answers.render(facts, 0, {first["name"]: _wrong(first)})),
           Variant("missing_fact", False, ref, final_text=answers.render(facts, 0, {first["name"]: None})),
           Variant("question_only", False, ref, final_text=QUESTION_TEXT)]
    numeric = next((f for f in facts if f["type"] in ("money", "count", "number")), None)
    if numeric is not None:
        w1 = _wrong(numeric)
        w2 = _wrong({**numeric, "value": w1})
        listed = (f"{answers.value_text(numeric, 0, w1)}, {answers.value_text(numeric)} or "
                  f"{answers.value_text(numeric, 0, w2)}")
        rest = answers.render([f for f in facts if f is not numeric]) if len(facts) > 1 else ""
        text = f"{numeric['name'].replace('_', ' ')}: {listed}. {rest}".strip()
        bad.append(Variant("answer_spraying", False, ref, final_text=text))
    correction = answers.render([first], 0, {first["name"]: _wrong(first)})
    bad.append(Variant("contradicting_fact", False, ref,
                       final_text=answers.render(facts) + " Sorry, a correction. " + correction))
    return good, bad


def build_variants(task: TaskPackage, domain: Any) -> list[Variant]:
    """Every known-good variant and known-bad mutant that can be built for ``task`` (see the
    module docstring), goods first. Deterministic for a given task."""
    ref = _reference(task)
    expected = task.hidden.expected_state_hash
    writes = _write_tools(domain)
    outcome = task.expected_outcome
    closing = closing_text(task)
    out: list[Variant] = [Variant("reference", True, ref, final_text=closing)]
    for v in (_reordered(task, domain, ref, expected), _extra_read(task, domain, ref)):
        if v is not None:
            v.final_text = closing
            out.append(v)
    good_answers, bad_answers = _answer_variants(task, ref) if outcome == "answer" else ([], [])
    out += good_answers
    bad: list[Variant | None] = [_wrong_argument(task, domain, ref, expected, writes),
                                 _extra_write(task, domain, ref, expected, writes), *bad_answers]
    for tool in required_tools(task, domain):
        kept = [c for c in ref if c["name"] != tool]
        if kept != ref:
            bad.append(Variant(f"skipped:{tool}", False, kept))
    has_write = any(c["name"] in writes for c in ref)
    if has_write and paths.confirmation_required(domain):
        bad.append(Variant("no_confirmation", False, ref, confirm=False))
    reads = [c for c in ref if c["name"] not in writes and c["name"] not in domain.terminate_tools]
    for fc in forbidden_calls(task, domain)[0]:
        h, ok = _run(domain, task, reads + [fc])
        if ok and h != expected:  # a forbidden call the tools themselves reject is no mutant of the path
            bad.append(Variant("forbidden_action", False, reads + [fc], notes={"forbidden": fc}))
            break
    bad.append(Variant("do_nothing", False, [], final_text=CLAIM_TEXT))
    for v in bad:
        if v is not None:
            if v.final_text is None and v.label != "do_nothing":
                v.final_text = closing
            out.append(v)
    return out


def closing_text(task: TaskPackage) -> str | None:
    """The closing agent message of a correct episode: a done message (action), a refusal, none
    after a transfer, or the facts stated (answer, :func:`pipeline.verify.answers.render`)."""
    if task.expected_outcome == "answer":
        from .router import answer_facts

        return answers.render(answer_facts(task))
    return {"action": DONE_TEXT, "refusal": REFUSAL_TEXT, "transfer": None}[task.expected_outcome]


def _tokens(text: str | None) -> int:
    return len((text or "").split())


def to_trajectory(task: TaskPackage, domain: Any, v: Variant, index: int = 0,
                  disabled_tools: tuple[str, ...] = ()) -> Trajectory:
    """Run ``v.calls`` in a fresh sandbox and wrap them as a harness-shaped :class:`Trajectory`:
    system + the task's opening message, one assistant tool-call message and one tool result per
    call, a proposal and the customer's "yes" before the first write (``v.confirm``; with
    ``confirm=False`` the proposal is made and the write follows without an answer), and
    ``v.final_text`` as the closing agent message. ``finish_reason`` is ``"transfer"`` after a
    successful transfer call, else ``"agent_stop"``; ``completion_tokens`` counts the words of
    the agent's messages (a stand-in for tokens). ``disabled_tools`` are removed from the sandbox
    (their calls return ``TOOL_DISABLED``). The calls are the hidden reference's, verbatim: these
    trajectories serve verification only and must never be exported as data."""
    writes = _write_tools(domain)
    sb = Sandbox(domain, task.hidden.initial_state, disabled_tools)
    msgs: list[dict[str, Any]] = [{"role": "system", "content": task.visible.policy[:200]},
                                  {"role": "user", "content": task.visible.instruction}]
    tool_calls: list[dict[str, Any]] = []
    proposed = False
    finish = "agent_stop"
    words = 0
    for i, c in enumerate(v.calls):
        if c["name"] in writes and not proposed:
            text = PROPOSAL.format(name=c["name"], args=json.dumps(c["arguments"], sort_keys=True))
            msgs.append({"role": "assistant", "content": text})
            words += _tokens(text)
            if v.confirm:
                msgs.append({"role": "user", "content": CONFIRMATION})
            proposed = True
        args_text = json.dumps(c["arguments"], ensure_ascii=False)
        cid = f"call_{i}_0"
        msgs.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": cid, "type": "function", "function": {"name": c["name"], "arguments": args_text}}]})
        words += _tokens(args_text) + 2
        res = sb.call(c["name"], copy.deepcopy(c["arguments"]))
        msgs.append({"role": "tool", "tool_call_id": cid, "name": c["name"], "content": res.content})
        tool_calls.append({"step": i, "name": c["name"], "arguments": args_text, "valid_json": True,
                           "error": res.error_code})
        if c["name"] in domain.terminate_tools and res.ok:
            finish = "transfer"
            break
    if v.final_text and finish != "transfer":
        msgs.append({"role": "assistant", "content": v.final_text})
        words += _tokens(v.final_text)
    return Trajectory(trajectory_id=f"{task.task_id}-mut-{v.label}", task_id=task.task_id,
                      blueprint_id=task.blueprint_id, sample_index=index, model="mutation", backend="mutation",
                      messages=msgs, tools=task.visible.tools, tool_calls=tool_calls,
                      final_state_hash=sb.state_hash(), finish_reason=finish,
                      n_turns=sum(1 for m in msgs if m["role"] == "assistant"), prompt_tokens=0,
                      completion_tokens=words, seed=0, sampling={"mutation": v.label})


def reverse_validate(task: TaskPackage, domain: Any, expected_state: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run the trajectory verifier on every variant of ``task``.

    Returns ``{"results": [{"label", "expect_pass", "passed", "reason_codes"}], "misclassified":
    [labels], "confusion": {"tp", "tn", "fp", "fn"}}`` where positive = the verifier passed it:
    ``tp`` good passed, ``fn`` good failed, ``tn`` bad failed, ``fp`` bad passed.
    """
    from .trajectory import verify_trajectory

    results, confusion = [], {"tp": 0, "tn": 0, "fp": 0, "fn": 0}
    for i, v in enumerate(build_variants(task, domain)):
        verdict = verify_trajectory(to_trajectory(task, domain, v, i), task, domain, expected_state)
        key = ("tp" if verdict.passed else "fn") if v.expect_pass else ("fp" if verdict.passed else "tn")
        confusion[key] += 1
        results.append({"label": v.label, "expect_pass": v.expect_pass, "passed": verdict.passed,
                        "reason_codes": verdict.reason_codes})
    return {"results": results, "misclassified": [r["label"] for r in results if r["passed"] != r["expect_pass"]],
            "confusion": confusion}


def task_for(domain: Any, kind: str, seed: int, variant: str | None = None) -> TaskPackage:
    """A task package straight from ``domain.generate_task`` (no blueprint): the reference is run
    in a sandbox for the expected state hash. For the mutation suite and measurements; the
    pipeline's packages come from :func:`pipeline.synthesize.build_package`."""
    from pipeline.records import TaskHidden, TaskVisible, ToolCall

    from pipeline.synthesize import answer_verifier

    gen = domain.generate_task(kind, seed, variant=variant) if variant else domain.generate_task(kind, seed)
    sb = Sandbox(domain, gen.initial_state)
    sb.run(copy.deepcopy(gen.reference_solution))
    return TaskPackage(
        task_id=f"{domain.name}-{kind}-{(variant or 'base').replace(':', '_')}-{seed}", blueprint_id=f"{domain.name}-{kind}",
        domain=domain.name, seed=seed,
        visible=TaskVisible(instruction=gen.instruction, policy=domain.policy, tools=domain.tool_schemas(),
                            user_messages=list(gen.user_messages)),
        hidden=TaskHidden(initial_state=gen.initial_state,
                          reference_solution=[ToolCall(name=c["name"], arguments=c.get("arguments", {}))
                                              for c in gen.reference_solution],
                          expected_state_hash=sb.state_hash(),
                          verifier={"type": "state_hash", **answer_verifier(gen)},
                          generation_notes=dict(gen.notes)),
        task_kind=kind, variant=gen.variant, expected_outcome=gen.expected_outcome, skills=list(gen.skills))


def kinds_and_variants(domain: Any) -> list[tuple[str, str | None]]:
    """Every (task kind, variant) a domain generates: each kind with ``None`` plus the kind's
    rule-decided variants (``variants_for_kind``)."""
    out: list[tuple[str, str | None]] = []
    for kind in domain.task_kinds:
        out.append((kind, None))
        for v in domain.variants_for_kind(kind):
            out.append((kind, v))
    return out
