"""Extract task blueprints (task types) from anonymized logs.

Each log becomes a *case*: its domain (``metadata.domain``), the action signature (ordered,
de-duplicated *successful* state-changing calls with the shape of their arguments; for a failed
run with gold actions, the gold writes: a failed run is grouped by what it should have done),
the task kind the domain maps the writes to (``kind_for_write_calls``; for a log without a
write, the domain's ``kind_for_intent(text)`` on the customer's first message), the
expected outcome (``action`` when a write is due, ``transfer`` when the run handed over to a
human, ``refusal`` when a request of a known kind ended without a write, ``answer`` otherwise;
a transcript whose tool calls are not shown counts as ``action``)
and the intent text. Cases are clustered by intent text (delexicalized: entity-type placeholders
instead of pseudonyms, :mod:`pipeline.blueprints.delex`, so the catalog does not depend on the
anonymization key) and action signature
(:mod:`pipeline.blueprints.cluster`), and each cluster becomes one :class:`Blueprint` with its
requirements, tools, policy rules, success condition, failure modes, skills and rule variants.

Failed runs (``metadata.reward < 1``) give failure modes: which call went wrong (a write that
returned an error, a missing or an extra write, a write with different arguments than the gold
one, naming the arguments that differ) and which rule was broken: from the domain's
``rule_violations`` replayed on the state the log shows (``state_from_log``), else by
tool (the rules specific to that tool). Rule ids broken in failed runs of a blueprint become its
``rule_variants``. Deterministic: the same logs give the same catalog.
"""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from typing import Any, Callable, Iterable, NamedTuple

from pipeline.domains.base import Domain
from pipeline.records import Blueprint, LogRecord, stable_hash
from pipeline.skills import SKILLS, outcome_skills

from .cluster import (DEFAULT_THRESHOLD, SIG_WEIGHT, Case, cluster_cases, mean_intent_similarity, medoid)

MAX_EXAMPLES = 3
#: A rule becomes a rule variant when failed runs of the blueprint broke it at least this often.
MIN_RULE_BREAKS = 1

__all__ = ["action_signature", "tool_calls_of", "extract_blueprints", "catalog", "MAX_EXAMPLES"]


def _shape(v: Any) -> str:
    """Type shape of a JSON value: ``str``, ``int``, ``list[obj{a,b}]``..."""
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "num"
    if isinstance(v, str):
        return "str"
    if isinstance(v, list):
        return f"list[{_shape(v[0])}]" if v else "list"
    if isinstance(v, dict):
        return "obj{" + ",".join(sorted(v)) + "}"
    return "null"


def tool_calls_of(rec: LogRecord) -> list[dict[str, Any]]:
    """The record's tool calls in order: ``{"step", "name", "arguments" (dict), "ok" (result not
    an error), "result" (the tool message text)}``."""
    results = {m.get("tool_call_id"): m.get("content") or "" for m in rec.messages if m.get("role") == "tool"}
    calls = []
    for m in rec.messages:
        for tc in m.get("tool_calls") or []:
            fn = tc.get("function", {})
            try:
                args = json.loads(fn.get("arguments") or "{}")
            except (json.JSONDecodeError, TypeError):
                args = {}
            res = str(results.get(tc.get("id"), ""))
            calls.append({"step": len(calls), "name": fn.get("name"),
                          "arguments": args if isinstance(args, dict) else {},
                          "ok": not res.startswith("Error"), "result": res})
    return calls


def _sig_item(name: str, args: dict[str, Any]) -> str:
    return name + "(" + ",".join(f"{k}:{_shape(v)}" for k, v in sorted(args.items())) + ")"


def action_signature(calls: list[dict[str, Any]], write_tools: set[str]) -> list[str]:
    """Ordered signature of successful write calls, consecutive repeats collapsed.

    Example: ``["cancel_reservation(reservation_id:str)"]``."""
    sig: list[str] = []
    for c in calls:
        if c["name"] in write_tools and c["ok"]:
            s = _sig_item(c["name"], c["arguments"])
            if not sig or sig[-1] != s:
                sig.append(s)
    return sig


def _intent(rec: LogRecord) -> str:
    """The customer's first message (already anonymized), whitespace-normalized, at most 300 chars."""
    for m in rec.messages:
        if m.get("role") == "user" and m.get("content"):
            return " ".join(str(m["content"]).split())[:300]
    return ""


def _success(rec: LogRecord) -> bool:
    return float(rec.metadata.get("reward", 1.0)) >= 1.0


def _gold(rec: LogRecord) -> list[dict[str, Any]]:
    out = []
    for a in rec.metadata.get("gold_actions") or []:
        if isinstance(a, dict) and a.get("name"):
            args = a.get("kwargs", a.get("arguments", {}))
            out.append({"name": a["name"], "arguments": args if isinstance(args, dict) else {}})
    return out


class _Src(NamedTuple):
    """What a blueprint needs of one log after clustering (the record itself is not kept):
    ``id``; ``success`` (``metadata.reward >= 1``); ``reads``: the names of its calls of non-write
    tools, in order; and for a failed run only (None for a successful one): ``calls`` (its tool
    calls without the result text), ``gold`` (its gold writes) and ``viol`` (:func:`_violations`
    of its calls, computed while the record is at hand)."""

    id: str
    success: bool
    reads: tuple[str, ...]
    calls: list[dict[str, Any]] | None
    gold: list[dict[str, Any]] | None
    viol: list[dict[str, Any]] | None


def _case(rec: LogRecord, domain: Any) -> Case:
    """The clustering features of one log and its compact :class:`_Src` (payload)."""
    write_tools = set(domain.write_tools)
    calls = tool_calls_of(rec)
    success = _success(rec)
    has_gold = "gold_actions" in rec.metadata
    gold = _gold(rec)
    if success or not has_gold:
        basis = [c["name"] for c in calls if c["name"] in write_tools and c["ok"]]
        signature = action_signature(calls, write_tools)
        transferred = any(c["name"] in domain.terminate_tools and c["ok"] for c in calls)
    else:  # a failed run: what it should have done
        basis = [a["name"] for a in gold if a["name"] in write_tools]
        signature = action_signature([{**a, "ok": True} for a in gold], write_tools)
        transferred = any(a["name"] in domain.terminate_tools for a in gold)
    intent = _intent(rec)
    kind = domain.kind_for_write_calls(basis) if basis else None
    if basis:
        outcome = "action"
    else:
        kind = domain.kind_for_intent(intent)
        if transferred:
            outcome = "transfer"
        elif kind and not calls and any(m.get("role") == "tool" for m in rec.messages):
            outcome = "action"  # a transcript whose tool calls are not shown: the writes are not visible
        elif kind:
            outcome = "refusal"
        else:
            outcome = "answer"
            # an information request the domain can compute from its state becomes an answer kind
            kind = domain.answer_kind_for_intent(intent)
    other = "" if kind or not basis else "other:" + "+".join(dict.fromkeys(basis))
    reads = tuple(c["name"] for c in calls if c["name"] not in write_tools and c["name"])
    if success:
        src = _Src(rec.id, True, reads, None, None, None)
    else:  # failure modes need the calls (not their result texts), the gold and the rule replay
        src = _Src(rec.id, False, reads, [{k: v for k, v in c.items() if k != "result"} for c in calls], gold,
                   _violations(domain, calls))
    return Case(family=(domain.name, kind or other, outcome), signature=signature, intent=intent,
                record_id=rec.id, payload=src)


def _general_rule_ids(domain: Any) -> set[str]:
    """Rule ids that bind every write tool (e.g. confirmation, identification)."""
    sets = [{r.rule_id for r in domain.rules_for_tools([w])} for w in sorted(domain.write_tools)]
    return set.intersection(*sets) if sets else set()


def _tool_rule_ids(domain: Any, tool: str, general: set[str]) -> list[str]:
    return [r.rule_id for r in domain.rules_for_tools([tool]) if r.rule_id not in general]


def _violations(domain: Any, calls: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The domain's rule violations of a logged run (``rule_violations``), replayed on the state
    the log shows (``state_from_log``); None when the domain does not know that state or has no rule
    checks (either member returns None), or they fail."""
    try:
        state = domain.state_from_log(calls)
        if state is None:
            return None
        found = domain.rule_violations(state, [{"name": c["name"], "arguments": c["arguments"],
                                                "error": None if c["ok"] else "TOOL_ERROR"} for c in calls], None)
        return None if found is None else list(found)
    except Exception:  # noqa: BLE001 - NotImplementedError (no checks module) or a partial state
        return None


def _failure_modes(fails: list[_Src], domain: Any, expected_writes: set[str], kind: str | None):
    """Failure modes of a cluster's failed runs (their :class:`_Src`) and the rule-break counts.

    Returns ``(modes, rule_breaks)``: ``modes`` is a list of ``{"mode", "tool", "count",
    "rule_ids", "mapped_by", "calls"}`` sorted by count, where ``calls`` lists up to 3 wrong
    calls as ``{"log_id", "step", "call", "differs"}``; ``rule_breaks`` counts, per rule id, the
    failed runs that broke it."""
    write_tools = set(domain.write_tools)
    general = _general_rule_ids(domain)
    modes: dict[tuple[str, str], dict[str, Any]] = {}
    rule_breaks: Counter[str] = Counter()

    def add(mode: str, tool: str, rec: _Src, call: dict | None, rule_ids: list[str], by: str,
            differs: list[str] | None = None) -> None:
        m = modes.setdefault((mode, tool), {"mode": mode, "tool": tool, "count": 0, "rule_ids": Counter(),
                                            "mapped_by": Counter(), "calls": []})
        m["count"] += 1
        m["rule_ids"].update(rule_ids)
        m["mapped_by"][by] += 1
        if call is not None and len(m["calls"]) < 3:
            m["calls"].append({"log_id": rec.id, "step": call["step"], "call": _sig_item(call["name"], call["arguments"]),
                               "differs": differs or []})

    for rec in fails:
        calls, gold, viol = rec.calls or [], rec.gold or [], rec.viol
        by_step: dict[int, list[str]] = defaultdict(list)
        if viol is not None:
            for v in viol:
                if v.get("step") is not None:
                    by_step[int(v["step"])].append(v["rule_id"])
            rule_breaks.update(set(v["rule_id"] for v in viol if v.get("rule_id") not in general))

        def rules_of(call: dict | None, tool: str) -> tuple[list[str], str]:
            if viol is not None and call is not None:
                ids = sorted(set(by_step.get(call["step"], [])))
                return ids, "rule_violations"
            return _tool_rule_ids(domain, tool, general), "tool"

        ok_writes = [c for c in calls if c["name"] in write_tools and c["ok"]]
        got = {c["name"] for c in ok_writes}
        gold_by_name = defaultdict(list)
        for a in gold:
            gold_by_name[a["name"]].append(a["arguments"])
        for c in calls:
            if c["name"] in write_tools and not c["ok"]:
                ids, by = rules_of(c, c["name"])
                add("write_call_error", c["name"], rec, c, ids, by)
        for n in sorted(expected_writes - got):
            add("missing_write", n, rec, None, _tool_rule_ids(domain, n, general), "tool")
        for c in ok_writes:
            ids, by = rules_of(c, c["name"])
            if c["name"] not in expected_writes:
                add("write_not_allowed" if not expected_writes else "extra_write", c["name"], rec, c, ids, by)
            elif gold_by_name.get(c["name"]) and c["arguments"] not in gold_by_name[c["name"]]:
                ref = gold_by_name[c["name"]][0]
                differs = sorted(k for k in set(ref) | set(c["arguments"]) if ref.get(k) != c["arguments"].get(k))
                add("wrong_arguments", c["name"], rec, c, ids, by, differs)
    out = []
    for m in sorted(modes.values(), key=lambda m: (-m["count"], m["mode"], m["tool"])):
        out.append({"mode": m["mode"], "tool": m["tool"], "count": m["count"],
                    "rule_ids": [r for r, _ in sorted(m["rule_ids"].items(), key=lambda kv: (-kv[1], kv[0]))],
                    "mapped_by": m["mapped_by"].most_common(1)[0][0], "calls": m["calls"]})
    if not rule_breaks:  # no hook: rules of the wrongly called tools, counted by run
        for rec in fails:
            wrong = {c["name"] for c in rec.calls or [] if c["name"] in write_tools and (not c["ok"] or c["name"] not in expected_writes)}
            rule_breaks.update({r for t in wrong for r in _tool_rule_ids(domain, t, general)})
    return out, rule_breaks


def _skills(domain: Any, kind: str | None, outcome: str, signature: list[str], reads: list[str]) -> list[str]:
    base: list[str] = []
    if kind:
        try:
            base = list(domain.skills_for_kind(kind))
        except ValueError:
            base = []
    if len({s.split("(")[0] for s in signature}) > 1:
        base.append("multi_step")
    ident = set(domain.identity_tools)
    if ident & set(reads):
        base.append("identity_lookup")
    if any("search" in r for r in reads):
        base.append("search")
    if not base:
        base.append("policy_reading")
    return outcome_skills([s for s in base if s in SKILLS], outcome)


def _blueprint(cluster: list[Case], domain: Any, threshold: float) -> Blueprint:
    write_tools = set(domain.write_tools)
    _dom, key, outcome = cluster[0].family
    kind = key if key and not key.startswith("other:") else None
    items: list[_Src] = [c.payload for c in cluster]
    succ = [p for p in items if p.success]
    fail = [p for p in items if not p.success]
    sig_counts = Counter(tuple(c.signature) for c in cluster if c.signature)
    signature = list(min(sig_counts, key=lambda s: (-sig_counts[s], s))) if sig_counts else []
    required = sorted({s.split("(")[0] for s in signature})
    read_counts = Counter(name for p in (succ or items) for name in p.reads)
    reads = [n for n, _ in sorted(read_counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    modes, breaks = _failure_modes(fail, domain, set(required), kind)
    rule_variants = [r for r, n in sorted(breaks.items(), key=lambda kv: (-kv[1], kv[0])) if n >= MIN_RULE_BREAKS]
    # constraints: the rules of the required tools, of what the refused request would have needed,
    # of a transfer, and the rules agents broke
    tools_for_rules = list(required) + ([kind] if kind and outcome != "action" else []) + \
        (sorted(domain.terminate_tools) if outcome == "transfer" else [])
    rules = list(domain.rules_for_tools(tools_for_rules)) if tools_for_rules else []
    known = {r.rule_id for r in rules}
    by_id = {r.rule_id: r for r in domain.rules}
    rules += [by_id[r] for r in rule_variants if r in by_id and r not in known]
    intents = [c for c in cluster if c.intent]
    rep = medoid(intents) if intents else None
    examples = ([rep.intent] if rep else []) + [t for t, _ in Counter(c.intent for c in intents).most_common()
                                                if not rep or t != rep.intent]
    verb = (kind or key[6:] if key else "").replace("_", " ").replace("+", ", ")
    intent = {"action": f"customer wants: {verb}",
              "refusal": f"customer asks to {verb}; the policy forbids it (refusal)",
              "transfer": f"customer asks to {verb or 'be helped'}; the policy requires a transfer to a human",
              "answer": f"customer asks: {verb}; answered without a database change" if kind else
              "customer request answered without a database change"}[outcome]
    if outcome == "action" and not kind and not key:
        intent = "customer request answered without a database change"
    if outcome == "action":
        success = domain.success_condition(kind) if kind else \
            "the writes of the action signature happen with the arguments the customer asked for"
    elif outcome == "refusal":
        success = "no state change: the agent refuses the request the policy forbids"
    elif outcome == "transfer":
        success = "no state change; the agent transfers the customer to a human agent"
    elif kind:
        success = domain.success_condition(kind)
    else:
        success = "no state change; the agent answers from what the tools return"
    ids = sorted(c.record_id for c in cluster)
    slug = (kind or key.replace(":", "-").replace("+", "-") or "no_write") + ("" if outcome == "action" else f"-{outcome}")
    return Blueprint(
        blueprint_id=f"{domain.name}-{slug}-{stable_hash(ids, 6)}",
        domain=domain.name,
        intent=intent,
        action_signature=signature,
        required_tools=required,
        read_tools=reads,
        initial_state_requirements=domain.initial_state_requirements(kind) if kind else {},
        business_constraints=rules,
        success_condition=success,
        failure_modes=modes,
        source_log_ids=ids,
        n_logs=len(cluster), n_success=len(succ),
        example_intents=examples[:MAX_EXAMPLES],
        task_kind=kind,
        skills=_skills(domain, kind, outcome, signature, reads),
        cluster={"outcome": outcome, "size": len(cluster), "n_failed": len(fail),
                 "signatures": {" > ".join(s) or "(none)": n for s, n in sorted(
                     Counter(tuple(c.signature) for c in cluster).items(), key=lambda kv: (-kv[1], kv[0]))},
                 "representative_intent": rep.intent if rep else "",
                 "representative_intent_delexicalized": rep.delex_intent if rep else "",
                 "mean_intent_similarity": mean_intent_similarity(cluster),
                 "rule_breaks": dict(sorted(breaks.items())),
                 "method": {"intent": "MinHash Jaccard of word 1-2-gram shingles of the delexicalized intent "
                                      "(entity-type placeholders, not pseudonyms; datasketch, 128 perm, seed 1)",
                            "signature": "Jaccard of write-call items", "sig_weight": SIG_WEIGHT,
                            "threshold": threshold, "family": "domain, task kind, expected outcome"}},
        rule_variants=rule_variants,
    )


def extract_blueprints(records: Iterable[LogRecord], domain: Any | Callable[[str], Any],
                       threshold: float = DEFAULT_THRESHOLD) -> list[Blueprint]:
    """Cluster anonymized log records into blueprints.

    ``domain`` is a domain object (every record belongs to it) or a function ``name -> domain``
    (each record goes to ``metadata.domain``, which ingest sets by routing; ValueError from it for
    an unknown name propagates). A record without ``metadata.domain`` (made without ingest) goes to
    the registered domain that owns it by its tools (:func:`pipeline.ingest.routing.route_record`);
    ValueError naming the record and the reason when none does (never a default domain). A domain
    is a :class:`pipeline.domains.base.Domain` (the members read here: ``name``, ``write_tools``,
    ``terminate_tools``, ``identity_tools``, ``rules``, ``kind_for_write_calls``, ``kind_for_intent``,
    ``answer_kind_for_intent``, ``rules_for_tools``, ``skills_for_kind``, ``initial_state_requirements``,
    ``success_condition``, ``state_from_log`` and ``rule_violations``).
    ``threshold`` in [0, 1] is the clustering similarity threshold
    (:mod:`pipeline.blueprints.cluster`). Returns blueprints sorted by size, largest first; every
    record is in exactly one blueprint.

    One pass over ``records`` (any iterable, e.g. a :class:`pipeline.streams.JsonlSeq`): each
    record is reduced at once to its clustering features (family, action signature, intent text of
    at most 300 characters) and a compact :class:`_Src`; records are not kept. Failed runs keep
    their tool calls without result texts (their failure modes need them).
    """
    resolve = None if isinstance(domain, Domain) else domain
    cases: list[Case] = []
    domains: dict[str, Any] = {}
    for rec in records:
        d = resolve(_domain_name(rec)) if resolve else domain
        domains[d.name] = d
        cases.append(_case(rec, d))
    out = [_blueprint(cl, domains[cl[0].family[0]], threshold) for cl in cluster_cases(cases, threshold)]
    out.sort(key=lambda b: (-b.n_logs, b.blueprint_id))
    return out


def _domain_name(rec: LogRecord) -> str:
    """``metadata.domain`` of ``rec``, else the domain that owns it by its tools; ValueError when
    no single registered domain does (the routing reason in the message)."""
    name = rec.metadata.get("domain")
    if name:
        return str(name)
    from pipeline.ingest.routing import registered_domains, route_record

    route = route_record(rec, registered_domains())
    if route.domain is None:
        raise ValueError(f"record {rec.id!r} has no metadata.domain and cannot be routed: {route.code}: "
                         f"{route.detail} (ingest routes records and sets unowned ones aside)")
    return route.domain


def catalog(blueprints: Iterable[Blueprint]) -> list[dict[str, Any]]:
    """One summary row per blueprint: ``blueprint_id, domain, task_kind, outcome, size, n_success,
    skills, rule_variants, action_signature, intent`` (what ``trajpipe blueprints`` prints and
    writes as catalog.json)."""
    return [{"blueprint_id": b.blueprint_id, "domain": b.domain, "task_kind": b.task_kind,
             "outcome": b.cluster.get("outcome", "action"), "size": b.n_logs, "n_success": b.n_success,
             "skills": list(b.skills), "rule_variants": list(b.rule_variants),
             "action_signature": list(b.action_signature), "intent": b.intent,
             "representative_intent": b.cluster.get("representative_intent", "")} for b in blueprints]
