"""What a scaffolded domain package calls at run time (``trajpipe domain init`` writes the calls).

The state of a scaffolded domain is ``{<table>: {key: record}, "lookups": {tool: {arguments
key: result text}}}``: tables of records that read tools return by key, and, for read tools whose
results are not keyed records (a bare id, a list), the logged result per argument set.

* :func:`state_from_logs` seeds that state from the logs' own tool results (the state the logs
  reveal): for each record the first version a read showed in a conversation before any write
  touched its id there;
* :func:`lookup_record` / :func:`lookup_result` are the read tools;
* :func:`fake_value` draws a field from a :func:`pipeline.scaffold.models.field_spec`.
"""
from __future__ import annotations

import datetime as _dt
import json
from typing import Any, Iterable, Mapping

from pipeline.domains.base import ToolError
from pipeline.records import canonical_json

from .observe import canonical, record_calls

LOOKUPS = "lookups"


def arguments_key(arguments: Mapping[str, Any]) -> str:
    """The lookup key of an argument set: canonical JSON (sorted keys, no spaces)."""
    return canonical_json(dict(arguments))


def empty_state(tables: Iterable[str], lookup_tools: Iterable[str]) -> dict[str, Any]:
    """A state with the given tables and lookup tools, all empty."""
    return {**{t: {} for t in tables}, LOOKUPS: {n: {} for n in lookup_tools}}


def state_from_logs(records: Iterable[Any], record_tools: Mapping[str, tuple[str, str]],
                    lookup_tools: Iterable[str], write_tools: Iterable[str]) -> tuple[dict[str, Any], list[str]]:
    """``(state, conflicts)``: the state the logs reveal.

    ``record_tools`` maps a read tool to ``(table, key argument)``: its successful JSON-object
    results are records of ``table`` under the key argument's value; ``lookup_tools`` are read
    tools whose logged result text (errors included) is kept per argument set. Within one
    conversation, a value seen after a write whose arguments mention the record's key (or, for a
    lookup, one of its argument values) is the record *after* that write and is never used; a
    value seen after some other write of the conversation is used only when no conversation shows
    one before any write. The first such version wins; ``conflicts`` lists ``"table/key"``
    (``"lookups/tool/args"``) whose versions of the same rank differ between conversations (logs
    made on different database snapshots, or a reader's guessed arguments).
    """
    lookup_tools = list(lookup_tools)
    writes = set(write_tools)
    state = empty_state(sorted({t for t, _ in record_tools.values()}), lookup_tools)
    ranked: dict[tuple[str, ...], dict[int, Any]] = {}
    conflicts: list[str] = []

    def offer(path: tuple[str, ...], rank: int, value: Any) -> None:
        slot = ranked.setdefault(path, {})
        if rank not in slot:
            slot[rank] = value
        elif canonical(slot[rank]) != canonical(value):
            conflicts.append("/".join(path))

    for rec in records:
        touched: set[str] = set()
        wrote = False
        for c in record_calls(rec):
            if c.arguments is None or not c.args_logged:
                continue
            if c.name in writes:
                touched.update(str(v) for v in c.arguments.values() if isinstance(v, (str, int)))
                wrote = True
                continue
            if c.result is None:
                continue
            if c.name in record_tools:
                table, key_arg = record_tools[c.name]
                value = c.value
                if c.is_error or key_arg not in c.arguments or not isinstance(value, dict):
                    continue
                key = str(c.arguments[key_arg])
                if key not in touched:
                    offer((table, key), int(wrote), value)
            elif c.name in state[LOOKUPS]:
                if not any(str(v) in touched for v in c.arguments.values() if isinstance(v, (str, int))):
                    offer((LOOKUPS, c.name, arguments_key(c.arguments)), int(wrote), c.result)
    for path, slot in ranked.items():
        value = slot[min(slot)]
        if path[0] == LOOKUPS:
            state[LOOKUPS][path[1]][path[2]] = value
        else:
            state[path[0]][path[1]] = value
    return state, sorted(set(conflicts))


def lookup_record(state: dict[str, Any], table: str, key: Any, not_found: str) -> str:
    """A read tool over a table: the record ``state[table][str(key)]`` as JSON text.
    ToolError(``not_found``) when there is none."""
    rec = state.get(table, {}).get(str(key))
    if rec is None:
        raise ToolError(not_found)
    return json.dumps(rec, ensure_ascii=False)


def lookup_result(state: dict[str, Any], tool: str, arguments: Mapping[str, Any], not_found: str) -> str:
    """A read tool the logs show only as results: the result logged for these arguments. A
    logged ``Error: msg`` raises ToolError(msg); arguments never logged raise ToolError(``not_found``)."""
    text = state.get(LOOKUPS, {}).get(tool, {}).get(arguments_key(arguments))
    if text is None:
        raise ToolError(not_found)
    if text.lstrip().startswith("Error:"):
        raise ToolError(text.lstrip()[len("Error:"):].strip())
    return text


def fake_value(spec: Mapping[str, Any], factory: Any) -> Any:
    """A fictional value for one field spec (:func:`pipeline.scaffold.models.field_spec`),
    drawn through ``factory.rng`` (random.Random) and ``factory.fake`` (seeded Faker) only, so the
    same seed gives the same value. Raises ValueError for an unknown kind."""
    rng, fake = factory.rng, factory.fake
    kind = spec["kind"]
    if kind == "null":
        return None
    if kind == "bool":
        return rng.random() < spec.get("p", 0.5)
    if kind == "int":
        return rng.randint(spec["min"], spec["max"])
    if kind == "float":
        return round(rng.uniform(spec["min"], spec["max"]), 2)
    if kind in ("enum", "choice"):
        return rng.choice(spec["values"])
    if kind == "faker":
        return str(getattr(fake, spec["provider"])())
    if kind in ("date", "datetime"):
        lo = _dt.date.fromisoformat(spec["min"][:10])
        hi = _dt.date.fromisoformat(spec["max"][:10])
        day = lo + _dt.timedelta(days=rng.randint(0, max((hi - lo).days, 0)))
        if kind == "date":
            return day.isoformat()
        return f"{day.isoformat()}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"
    if kind == "time":
        return f"{rng.randint(spec['hours'][0], spec['hours'][1]):02d}:{rng.choice(spec['minutes'])}"
    if kind == "pattern":
        template = rng.choice(spec["templates"])
        return "".join(str(rng.randint(0, 9)) if ch == "#" else ch for ch in template)
    if kind == "text":
        n = rng.randint(spec["min_words"], spec["max_words"])
        return " ".join(fake.word() for _ in range(n)).capitalize()
    if kind == "object":
        return {k: fake_value(s, factory) for k, s in spec["fields"].items()
                if k not in spec.get("optional", ()) or rng.random() < 0.5}
    if kind == "list":
        return [fake_value(spec["item"], factory) for _ in range(rng.randint(spec["min"], spec["max"]))]
    if kind == "map":
        out = {}
        for _ in range(rng.randint(1, max(1, spec["max"]))):
            out[str(fake_value(spec["key"], factory))] = fake_value(spec["value"], factory)
        return out
    raise ValueError(f"unknown field kind {kind!r}")
