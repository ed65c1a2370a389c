"""Infer a domain's tools, records and policy from logged conversations (``trajpipe domain init``).

Every rule here works from what the logs show and says so in the generated package:

* **argument schemas**: genson (a JSON Schema generator) over every logged call's arguments;
  genson's ``required`` is the set of arguments present in every call; a string argument gets an
  ``enum`` when its value set is small (:func:`small_enum`); descriptions (and declared-only
  optional arguments) come from the logs' own tool definitions when they carry them;
* **read vs write**: the rule of the transcript reader (:mod:`pipeline.ingest.transcripts`: a
  call is a write when the record it touches differs from the version seen before it in the same
  conversation), generalised to any tool: see :func:`classify_tools`; a tool with no such
  evidence either way is classified by its name's verb (:data:`READ_VERBS`) and flagged;
* **records**: a read tool whose successful results are JSON objects keyed by one of its
  arguments (:func:`record_key`) becomes a table of records (pydantic models from genson schemas
  of every version seen, :mod:`pipeline.scaffold.models`); other read tools become lookups of
  the logged result by their arguments;
* **policy**: the system prompt split into rules with ids (:func:`split_policy`).
"""
from __future__ import annotations

import copy
import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable

from genson import SchemaBuilder

from .observe import UNNAMED, Call, canonical, record_calls, system_prompts, tool_definitions

#: Name verbs of tools that only read (used only when the logs show no change either way).
READ_VERBS = ("get", "find", "list", "search", "lookup", "look", "check", "show", "fetch", "read", "query",
              "view", "calculate", "compute", "think", "count", "describe", "retrieve", "is", "has")
#: Tools every domain shares (pipeline.domains.base.SHARED_TOOLS): read tools whatever their name says.
from pipeline.domains.shared import SHARED_TOOLS as SHARED  # noqa: E402  (one definition)
#: At most this many distinct values make an enum (:func:`small_enum`).
ENUM_MAX_VALUES = 6
_ID_NAME = re.compile(r"(^id$|_id$|_ids$|email|phone|name$|zip|address|city|state$|province|street|date|time|^note|"
                      r"summary|url)")
_DIGITS = re.compile(r"\d{3,}")
_CODE = re.compile(r"^[A-Z0-9]{2,5}$")  # JFK, CA, NYC: codes of open sets (airports, states), never an enum


def small_enum(name: str, values: list[Any]) -> list[str] | None:
    """The sorted value set of a string argument when it looks like a closed set: every value a
    string, at most :data:`ENUM_MAX_VALUES` distinct values, at least two, each seen three times on
    average (``len(values) >= 3 * distinct``), no value with a run of 3+ digits (ids, numbers),
    not all of them upper-case codes (``JFK``, ``CA``), and a name that is not id-, name-,
    contact-, address- or date-like (open sets). None otherwise."""
    if not values or not all(isinstance(v, str) for v in values) or _ID_NAME.search(name):
        return None
    distinct = sorted(set(values))
    if not 2 <= len(distinct) <= ENUM_MAX_VALUES or len(values) < 3 * len(distinct):
        return None
    if any(_DIGITS.search(v) or len(v) > 60 for v in distinct) or all(_CODE.match(v) for v in distinct):
        return None
    return distinct


def _add_enums(schema: dict[str, Any], samples: list[Any], name: str = "",
               pooled: dict[str, list[Any]] | None = None) -> None:
    """Put :func:`small_enum` enums into a genson object/array schema, walking the samples. A
    top-level argument's enum is judged on ``pooled[name]`` (its values in the calls of every tool
    that has an argument of that name) when given, so that ``cabin`` gets the cabins seen anywhere."""
    t = schema.get("type")
    if t == "object" and isinstance(schema.get("properties"), dict):
        for prop, sub in schema["properties"].items():
            vals = [s[prop] for s in samples if isinstance(s, dict) and prop in s]
            if pooled is not None and sub.get("type") == "string" and small_enum(prop, vals):
                vals = pooled.get(prop, vals)
            _add_enums(sub, vals, prop)
    elif t == "array" and isinstance(schema.get("items"), dict):
        _add_enums(schema["items"], [x for s in samples if isinstance(s, list) for x in s], name)
    elif t == "string":
        enum = small_enum(name, samples)
        if enum:
            schema["enum"] = enum


def infer_arguments_schema(calls: list[Call], declared: dict[str, Any] | None = None,
                           pooled: dict[str, list[Any]] | None = None) -> dict[str, Any]:
    """JSON Schema of a tool's arguments from its logged calls (genson; object without extra
    fields, unless no call logged its arguments and no definition declares them; ``required`` =
    present in every call; small enums), with each property's
    ``description`` taken from the declared ``parameters`` (the logs' tool definition) when given;
    declared properties no call used are added as optional with their declared schema."""
    args = [c.arguments for c in calls if c.arguments is not None and c.args_logged]
    b = SchemaBuilder(schema_uri=None)
    b.add_schema({"type": "object", "properties": {}})
    for a in args:
        b.add_object(a)
    schema = b.to_schema()
    schema.setdefault("properties", {})
    if not args:
        schema["required"] = []
    _add_enums(schema, args, pooled=pooled)
    props = (declared or {}).get("properties") or {}
    for pname, pdecl in props.items():
        if not isinstance(pdecl, dict):
            continue
        if pname in schema["properties"]:
            if isinstance(pdecl.get("description"), str):
                schema["properties"][pname]["description"] = pdecl["description"]
        else:
            schema["properties"][pname] = copy.deepcopy(pdecl)
    schema["required"] = sorted(schema.get("required", []))
    out = {"type": "object", "properties": schema["properties"], "required": schema["required"]}
    if args or props:  # no logged or declared arguments: nothing is known, so nothing is forbidden
        out["additionalProperties"] = False
    return out


def identities(call: Call) -> list[str]:
    """Values of a call's id arguments (``id`` or ``*_id``; strings or ints), as strings: the
    records the call touches."""
    out = []
    for k, v in (call.arguments or {}).items():
        if (k == "id" or k.endswith("_id")) and isinstance(v, (str, int)) and not isinstance(v, bool):
            out.append(str(v))
    return out


def result_identity(call: Call) -> str | None:
    """Which touched record a call's JSON-object result is: the id argument the result carries in
    the field of the same name, else the one whose value it carries in some field, else the only
    id argument; None otherwise (or no object result)."""
    value = call.value
    ids = identities(call)
    if not isinstance(value, dict) or not ids:
        return None
    same_field = [str(v) for k, v in (call.arguments or {}).items() if str(v) in ids and str(value.get(k)) == str(v)]
    if len(same_field) == 1:
        return same_field[0]
    carried = [i for i in ids if i in {str(v) for v in value.values() if isinstance(v, (str, int))}]
    if len(carried) == 1:
        return carried[0]
    return ids[0] if len(ids) == 1 else None


@dataclass
class Evidence:
    """Per tool: ``write`` / ``read`` votes from record versions (see :func:`classify_tools`)."""

    write: int = 0
    read: int = 0
    examples: list[dict[str, Any]] = field(default_factory=list)  # write calls with before/after


def classify_tools(records: Iterable[Any]) -> dict[str, Evidence]:
    """Read/write evidence per tool name, conversation by conversation.

    The rule of the transcript reader, for any tool: keep the last version of each record seen in
    the conversation (a record = a JSON-object result, identified by :func:`result_identity`).
    When a new version differs from the last one, the calls that touched that record's id since
    without showing it get a *write* vote (a write that answers "OK"), or, when there are none, the
    call that shows the new version does (a write that returns the changed record). A version
    equal to the last one gives a *read* vote to the call showing it and to the calls that touched
    the id in between. Failed calls (``Error: ...``) vote for nothing. Write votes keep up to 3
    examples ``{"arguments", "before", "result", "after"}``.
    """
    ev: dict[str, Evidence] = defaultdict(Evidence)
    for rec in records:
        last: dict[str, Any] = {}
        raw_last: dict[str, Any] = {}
        pending: dict[str, list[Call]] = defaultdict(list)
        for c in record_calls(rec):
            ev[c.name]  # every tool gets an entry
            if c.is_error or c.result is None or c.arguments is None:
                continue
            vid = result_identity(c)
            for i in identities(c):
                if i != vid:
                    pending[i].append(c)
            if vid is None:
                continue
            new = canonical(c.result)
            if vid in last:
                if new != last[vid]:
                    blamed = pending[vid] or [c]
                    for b in blamed:
                        ev[b.name].write += 1
                        ex = {"arguments": b.arguments, "before": raw_last[vid],
                              "result": b.value if b.value is not None else b.result}
                        if b is not c:
                            ex["after"] = c.value
                        if len(ev[b.name].examples) < 3 and all(e["arguments"] != b.arguments
                                                                 for e in ev[b.name].examples):
                            ev[b.name].examples.append(ex)
                else:
                    ev[c.name].read += 1
                    for b in pending[vid]:
                        ev[b.name].read += 1
            pending[vid] = []
            last[vid] = new
            raw_last[vid] = c.value
    return dict(ev)


def is_write(name: str, e: Evidence | None) -> tuple[bool, str]:
    """``(writes, basis)``: more write than read votes -> write (``"logs"``); read votes and no
    write votes, or more read votes -> read (``"logs"``); no votes -> by the name's first word
    (:data:`READ_VERBS` -> read) with basis ``"name"``."""
    if e is not None and (e.write or e.read):
        return e.write > e.read, "logs"
    if name in SHARED:
        return False, "name"
    verb = re.split(r"[_\W]+|(?<=[a-z])(?=[A-Z])", name)[0].lower()
    return verb not in READ_VERBS, "name"


def record_key(calls: list[Call]) -> str | None:
    """The argument that keys a read tool's records: present in every successful call, every
    successful result a JSON object, and either carried by every result in a field of the same
    name, or the only ``*_id`` argument, or the only argument. None otherwise."""
    ok = [c for c in calls if not c.is_error and c.result is not None and c.arguments is not None and c.args_logged]
    if not ok or not all(isinstance(c.value, dict) for c in ok):
        return None
    common = set.intersection(*(set(c.arguments) for c in ok))
    carried = [a for a in sorted(common) if all(str(c.value.get(a)) == str(c.arguments[a]) for c in ok)]
    if len(carried) == 1:
        return carried[0]
    ids = [a for a in sorted(common) if a == "id" or a.endswith("_id")]
    if len(ids) == 1:
        return ids[0]
    if len(common) == 1 and all(len(c.arguments) == 1 for c in ok):
        return next(iter(common))
    return None


def table_name(key_arg: str) -> str:
    """``order_id`` -> ``orders``, ``id`` -> ``records``, ``email`` -> ``emails``."""
    base = key_arg[:-3] if key_arg.endswith("_id") else ("record" if key_arg == "id" else key_arg)
    if base.endswith("s"):
        return base + "es"
    if base.endswith("y") and not base.endswith(("ay", "ey", "oy", "uy")):
        return base[:-1] + "ies"
    return base + "s"


def _slug_words(text: str, n: int = 3) -> str:
    stop = {"the", "a", "an", "to", "of", "and", "or", "for", "in", "on", "be", "is", "are", "you", "your", "it",
            "that", "this", "with", "as", "at", "by", "any", "all", "if", "can", "should", "must", "not", "only",
            "do", "does", "will", "may", "each", "one", "they", "their", "them", "we", "our", "from", "before",
            "after", "when", "user", "users", "agent", "please", "also", "has", "have", "its"}
    words = [w for w in re.findall(r"[a-z]+", text.lower()) if w not in stop]
    return "_".join(words[:n]) or "rule"


_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)$")
_HEADING = re.compile(r"^\s*#{1,6}\s+(.*)$")
_MODAL = re.compile(r"\b(must|should|cannot|can't|can not|never|do not|don't|only|always|required|not allowed|"
                    r"allowed|may not|need to|needs to)\b", re.I)


def split_policy(text: str, domain: str) -> tuple[str, list[tuple[str, str]]]:
    """Split a system prompt into a policy with rule ids (the ``policy.md`` convention of
    docs/domains.md section 5): every bullet or numbered item, and every sentence of a plain
    paragraph that states an obligation (must, should, cannot, never, only, ...), becomes
    ``- [<domain>.<topic>.<words>] text``, where ``<topic>`` is the nearest heading (else
    ``general``) and ``<words>`` the first content words of the rule (letters only; a repeated id
    gets ``_b``, ``_c``, ...). Other lines are kept as they are. Returns ``(policy markdown,
    [(rule_id, text)])``."""
    topic = "general"
    used: set[str] = set()
    rules: list[tuple[str, str]] = []
    out: list[str] = []

    def rid(sentence: str) -> str:
        base = f"{domain}.{topic}.{_slug_words(sentence)}"
        r, k = base, 0
        while r in used:
            k += 1
            r = f"{base}_{chr(ord('a') + k)}" if k < 26 else f"{base}_{'z' * (k // 25)}{chr(ord('a') + k % 25)}"
        used.add(r)
        return r

    for line in text.splitlines():
        h = _HEADING.match(line)
        if h:
            topic = _slug_words(h.group(1), 2) if _slug_words(h.group(1), 2) != "rule" else "general"
            out.append(line)
            continue
        b = _BULLET.match(line)
        if b and b.group(1).strip():
            body = " ".join(b.group(1).split())
            r = rid(body)
            rules.append((r, body))
            out.append(f"- [{r}] {body}")
            continue
        if line.strip() and _MODAL.search(line):
            sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", line.strip()) if s.strip()]
            for s in sentences:
                if _MODAL.search(s):
                    r = rid(s)
                    rules.append((r, s))
                    out.append(f"- [{r}] {s}")
                else:
                    out.append(s)
            continue
        out.append(line)
    return "\n".join(out).strip() + "\n", rules


@dataclass
class ToolSpec:
    """Everything inferred for one tool (rendered into the package's ``tools.py``)."""

    name: str
    description: str
    parameters: dict[str, Any]
    writes: bool
    basis: str                      # "logs" | "name": what the read/write split rests on
    n_calls: int
    votes: tuple[int, int]          # (write votes, read votes)
    key_arg: str | None = None      # read tools over a table: the argument keying the records
    table: str | None = None
    not_found: str = "not found"    # the error text a lookup of an unknown key returns
    #: read tools: "record" (table lookup), "lookup" (logged result per arguments), "constant"
    #: (every logged result the same text), "calculate" (pipeline.domains.common.calculate_expression
    #: reproduces every logged result); write tools: "stub"
    impl: str = "lookup"
    constant: str | None = None
    examples: list[dict[str, Any]] = field(default_factory=list)  # write tools: before/after
    declared: bool = False          # the logs carried a definition of this tool


@dataclass
class DomainSpec:
    """What ``trajpipe domain init`` writes a package from (see :func:`infer_domain`)."""

    name: str
    tools: list[ToolSpec]
    tables: dict[str, dict[str, Any]]      # table -> genson schema of every version of its records
    policy: str
    rules: list[tuple[str, str]]
    n_records: int
    n_calls: int
    skipped_tools: dict[str, int]          # shared / unnamed tools left out, with call counts


def _error_text(calls: list[Call]) -> str:
    errs = Counter(c.result.strip()[len("Error:"):].strip() for c in calls if c.is_error and c.result)
    return errs.most_common(1)[0][0] if errs else "not found"


def _calculate_fits(calls: list[Call]) -> bool:
    """True when :func:`pipeline.domains.common.calculate_expression` gives every logged result of
    a ``calculate`` tool (errors included) from its ``expression`` argument."""
    from pipeline.domains.base import ToolError
    from pipeline.domains.common import calculate_expression

    for c in calls:
        if c.result is None or not c.args_logged or not isinstance((c.arguments or {}).get("expression"), str):
            continue
        try:
            got = calculate_expression(c.arguments["expression"])
        except ToolError as exc:
            got = f"Error: {exc}"
        if canonical(got) != canonical(c.result):
            return False
    return True


def infer_domain(records: list[Any], name: str) -> DomainSpec:
    """Infer a :class:`DomainSpec` from canonical conversations (see the module doc for every
    rule). Unnamed calls are left out (counted in ``skipped_tools``); shared tools (:data:`SHARED`)
    are read tools. ValueError when the records hold no tool call."""
    by_tool: dict[str, list[Call]] = defaultdict(list)
    for rec in records:
        for c in record_calls(rec):
            by_tool[c.name].append(c)
    skipped = {n: len(cs) for n, cs in by_tool.items() if n == UNNAMED or not n}
    names = [n for n in by_tool if n not in skipped]
    if not names:
        raise ValueError("the logs hold no call of a business tool: nothing to scaffold "
                         f"(calls seen: {dict(sorted(skipped.items())) or 'none'})")
    declared = tool_definitions(records)
    # a tool the records declare but never call is the system's too: ingest reads a record's
    # declared tools as evidence of its domain, so a package without them would own none of its
    # records (a fresh-clone check of issue 11's fifteenth round: every record quarantined
    # INGEST_NO_DOMAIN); its arguments come from the declaration, its kind from its name
    names += [n for n in declared if n not in by_tool and n not in SHARED and n != UNNAMED]
    evidence = classify_tools(records)
    pooled: dict[str, list[Any]] = defaultdict(list)  # argument name -> its values in every tool's calls
    for n in names:
        for c in by_tool[n]:
            if c.arguments is not None and c.args_logged:
                for k, v in c.arguments.items():
                    pooled[k].append(v)
    tools: list[ToolSpec] = []
    tables: dict[str, dict[str, Any]] = {}
    table_owner: dict[str, str] = {}
    for n in sorted(names):
        calls = by_tool[n]
        decl = declared.get(n) or {}
        writes, basis = is_write(n, evidence.get(n))
        e = evidence.get(n) or Evidence()
        spec = ToolSpec(name=n, description=decl.get("description") or f"{n} (description not in the logs: write one)",
                        parameters=infer_arguments_schema(calls, decl.get("parameters"), pooled), writes=writes,
                        basis=basis,
                        n_calls=len(calls), votes=(e.write, e.read), not_found=_error_text(calls),
                        examples=e.examples if writes else [], declared=bool(decl))
        if writes:
            spec.impl = "stub"
        else:
            key = record_key(calls)
            ok_results = [c.result for c in calls if c.result is not None and not c.is_error]
            if key is None and len(ok_results) >= 2 and len(set(ok_results)) == 1:
                spec.impl, spec.constant = "constant", ok_results[0]
            elif key is None and n == "calculate" and ok_results and _calculate_fits(calls):
                spec.impl = "calculate"
            if key is not None:
                spec.impl = "record"
                table = table_name(key)
                ok = [c.value for c in calls if not c.is_error and isinstance(c.value, dict)]
                keys = set().union(*(set(v) for v in ok))
                if table in table_owner and set(tables[table].get("properties", {})) != keys:
                    table = f"{n}_records"  # another tool's records of the same key have another shape
                b = SchemaBuilder(schema_uri=None)
                if table in tables:
                    b.add_schema(tables[table])
                for v in ok:
                    b.add_object(v)
                tables[table] = b.to_schema()
                table_owner.setdefault(table, n)
                spec.key_arg, spec.table = key, table
        tools.append(spec)
    prompts = system_prompts(records)
    policy, rules = split_policy(prompts[0], name) if prompts else ("", [])
    return DomainSpec(name=name, tools=tools, tables=tables, policy=policy, rules=rules, n_records=len(records),
                      n_calls=sum(len(c) for c in by_tool.values()), skipped_tools=skipped)


def spec_summary(spec: DomainSpec) -> dict[str, Any]:
    """A JSON-able summary of a :class:`DomainSpec` (what the CLI prints and the package's
    ``scaffold.json`` keeps): per tool its kind, basis, votes, arguments, table."""
    return {"name": spec.name, "records": spec.n_records, "calls": spec.n_calls, "skipped_tools": spec.skipped_tools,
            "tables": sorted(spec.tables), "rules": len(spec.rules),
            "tools": {t.name: {"writes": t.writes, "basis": t.basis, "votes": {"write": t.votes[0], "read": t.votes[1]},
                               "calls": t.n_calls, "required": t.parameters["required"],
                               "arguments": sorted(t.parameters["properties"]),
                               "enums": {k: v["enum"] for k, v in t.parameters["properties"].items() if "enum" in v},
                               "lookup": (f"{t.table}[{t.key_arg}]" if t.table else
                                          {"lookup": "logged results", "constant": "constant result",
                                           "calculate": "calculate_expression", "stub": None}[t.impl]),
                               "described": t.declared}
                      for t in spec.tools}}


def dumps(obj: Any, limit: int = 600) -> str:
    """JSON text of ``obj`` cut to ``limit`` characters (for docstring examples)."""
    s = json.dumps(obj, ensure_ascii=False, sort_keys=False)
    return s if len(s) <= limit else s[:limit] + " ...(cut)"
