"""Replay fidelity (``trajpipe domain check``): is a domain's sandbox the real system?

Every logged tool call is replayed, in order, in a :class:`~pipeline.sandbox.Sandbox` of the
domain started, for each conversation, from the same initial state (a database snapshot, or the
state the logs reveal); its result is compared with the logged one after canonicalization
(:func:`pipeline.scaffold.observe.canonical`: JSON key order, whitespace, float formatting). The
report gives per tool the share of compared calls that match and the first differences.

Calls that cannot be compared are counted, not guessed: a call the log shows without a result,
without recoverable arguments (the transcript reader's ``args_missing``), without a name
(``unknown``), or to a tool the domain does not have.
"""
from __future__ import annotations

import copy
import importlib
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from pipeline.sandbox import Sandbox, state_diff

from .observe import UNNAMED, canonical, record_calls

#: Entry-point group a domain package registers its ``DOMAIN`` object under.
ENTRY_POINT_GROUP = "trajpipe.domains"


def resolve_domain(name: str, package_dir: str | Path | None = None) -> Any:
    """The domain object called ``name``: a domain of trajpipe's registry
    (:func:`pipeline.domains.get_domain`), else one registered under the ``trajpipe.domains``
    entry point (an installed scaffolded package), else an importable module ``name`` with a
    ``DOMAIN`` (``package_dir`` is put first on ``sys.path`` for a package not installed).
    Raises ValueError naming what was tried."""
    from pipeline.domains import get_domain, known_domains

    if package_dir is not None:
        sys.path.insert(0, str(Path(package_dir).resolve()))
        importlib.invalidate_caches()
    if name in known_domains():  # the registry includes installed trajpipe.domains entry points
        return get_domain(name)
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError:
        module = None
    if module is not None and hasattr(module, "DOMAIN"):
        return module.DOMAIN
    raise ValueError(f"unknown domain {name!r}: not registered ({', '.join(known_domains())}), no "
                     f"{ENTRY_POINT_GROUP!r} entry point, no importable package with a DOMAIN "
                     f"(install it with `pip install -e DIR` or pass --package-dir DIR)")


def load_snapshot(path: str | Path) -> dict[str, Any]:
    """A database snapshot as a state: a JSON file holding ``{table: {key: record}}``, or a folder
    of ``<table>.json`` files each holding ``{key: record}`` (the tau-bench layout). Files whose
    content is not an object are skipped. FileNotFoundError / ValueError on a missing or empty one."""
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"database snapshot not found: {p}")
    if p.is_file():
        state = json.loads(p.read_text(encoding="utf-8"))
        if not isinstance(state, dict):
            raise ValueError(f"{p}: a snapshot file must hold a JSON object of tables")
        return state
    state = {}
    for f in sorted(p.glob("*.json")):
        data = json.loads(f.read_text(encoding="utf-8"))
        if isinstance(data, dict):
            state[f.stem] = data
    if not state:
        raise ValueError(f"{p}: no <table>.json file holding a JSON object")
    return state


def _cut(value: Any, n: int = 240) -> str:
    s = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return s if len(s) <= n else s[:n] + "..."


@dataclass
class ToolFidelity:
    """One tool's replay: ``calls`` logged, ``compared`` (replayed with a logged result),
    ``matched`` (same result after canonicalization), ``downstream`` (mismatches that come after
    a write of the same conversation that did not reproduce the logged result or could not be
    replayed: the difference may be that write's, not this tool's), ``skipped`` reasons with counts, up to 3
    ``first_differences`` ``{"record", "step", "arguments", "diff", "logged", "replayed",
    "downstream"}``, and ``difference_kinds``: every mismatch counted by :func:`difference_kind`
    (the paths that differ), so that one systematic difference (a renamed field) reads as one."""

    name: str
    writes: bool | None
    calls: int = 0
    compared: int = 0
    matched: int = 0
    downstream: int = 0
    skipped: Counter = field(default_factory=Counter)
    first_differences: list[dict[str, Any]] = field(default_factory=list)
    difference_kinds: Counter = field(default_factory=Counter)

    @property
    def share(self) -> float | None:
        """``matched / compared`` (None when nothing was compared)."""
        return self.matched / self.compared if self.compared else None


@dataclass
class FidelityReport:
    """Per tool :class:`ToolFidelity`, the number of conversations, and the totals."""

    domain: str
    records: int
    tools: dict[str, ToolFidelity]

    def totals(self, writes: bool | None = None) -> tuple[int, int]:
        """``(matched, compared)`` over the tools (``writes`` True / False: only write / read tools)."""
        rows = [t for t in self.tools.values() if writes is None or t.writes is writes]
        return sum(t.matched for t in rows), sum(t.compared for t in rows)

    def to_json(self) -> dict[str, Any]:
        """The report as JSON-able data."""
        return {"domain": self.domain, "records": self.records,
                "tools": {n: {"writes": t.writes, "calls": t.calls, "compared": t.compared, "matched": t.matched,
                              "share": t.share, "downstream": t.downstream, "skipped": dict(t.skipped),
                              "difference_kinds": dict(t.difference_kinds.most_common()),
                              "first_differences": t.first_differences}
                          for n, t in sorted(self.tools.items())}}

    def markdown(self) -> str:
        """The fidelity table: tool, read/write, logged calls, compared, matched, share, mismatches
        downstream of a diverged write, calls not compared (with why)."""
        lines = ["| tool | kind | calls | compared | matched | share | after a diverged write | not compared |",
                 "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"]
        for n, t in sorted(self.tools.items(), key=lambda kv: (kv[1].writes is not False, kv[0])):
            kind = {True: "write", False: "read", None: "not in domain"}[t.writes]
            share = f"{100 * t.share:.1f}%" if t.share is not None else "-"
            skipped = ", ".join(f"{k} {v}" for k, v in sorted(t.skipped.items())) or ""
            lines.append(f"| `{n}` | {kind} | {t.calls} | {t.compared} | {t.matched} | {share} | {t.downstream} | "
                         f"{skipped} |")
        for label, w in (("read tools", False), ("write tools", True)):
            m, c = self.totals(w)
            ds = sum(t.downstream for t in self.tools.values() if t.writes is w)
            lines.append(f"| **{label}** | | | {c} | {m} | {f'{100 * m / c:.1f}%' if c else '-'} | {ds} | |")
        return "\n".join(lines)

    def difference_lines(self) -> list[str]:
        """One line per tool and kind of mismatch: how many differ in which paths, e.g.
        ``get_user_details: 101 of 101 mismatches differ in address/province, address/state``."""
        out = []
        for n, t in sorted(self.tools.items()):
            wrong = t.compared - t.matched
            for kind, k in t.difference_kinds.most_common():
                out.append(f"{n}: {k} of {wrong} mismatches differ in {kind}")
        return out


def difference_kind(want: Any, got: Any) -> str:
    """What a mismatch is, without its values: for two JSON values the sorted paths that differ
    (list positions as ``[*]``; ``(top level)`` for two top-level values of different shape or
    length), else ``logged error / replayed result`` (or the reverse), or ``text``."""
    if isinstance(want, (dict, list)) and isinstance(got, (dict, list)):
        paths = sorted({re.sub(r"\[\d+\]", "[*]", d.split(": ", 1)[0]) for d in state_diff(want, got, limit=200)})
        return ", ".join(p or "(top level)" for p in paths) if paths else "list length"
    err_w = isinstance(want, str) and want.startswith("Error")
    err_g = isinstance(got, str) and got.startswith("Error")
    if err_w != err_g:
        return "logged error / replayed result" if err_w else "logged result / replayed error"
    return "text"


def replay(domain: Any, records: Iterable[Any], initial_state: dict[str, Any] | Callable[[Any], dict[str, Any]],
           max_differences: int = 3) -> FidelityReport:
    """Replay every logged call of ``records`` (canonical conversations) against ``domain``.

    ``initial_state`` is the state each conversation starts from (deep-copied per conversation),
    or a function ``record -> state``. Each call runs in the conversation's sandbox in log order
    (so a write that differs from the real one shows in the reads after it); its result is
    compared with the logged result by :func:`~pipeline.scaffold.observe.canonical`. Returns a
    :class:`FidelityReport`."""
    tools: dict[str, ToolFidelity] = {}
    replay_ctx = domain.replay_context  # the Domain contract (pipeline/domains/base.py)
    n = 0
    for rec in records:
        n += 1
        state = initial_state(rec) if callable(initial_state) else initial_state
        box = Sandbox(domain, state)
        diverged = False  # an earlier write of this conversation did not reproduce (or was not replayed)
        for c in record_calls(rec):
            tool = domain.tools.get(c.name)
            row = tools.setdefault(c.name, ToolFidelity(c.name, tool.writes if tool is not None else None))
            row.calls += 1
            if not c.name or c.name == UNNAMED:
                row.skipped["unnamed call"] += 1
                continue
            if tool is None:
                row.skipped["tool not in domain"] += 1
                continue
            if c.result is None:
                row.skipped["no logged result"] += 1
                continue
            if c.arguments is None or not c.args_logged:
                row.skipped["arguments not logged"] += 1
                diverged = diverged or tool.writes
                continue
            with replay_ctx():  # what the logged system does on purpose differently (domain hook)
                got = box.call(c.name, copy.deepcopy(c.arguments))
            row.compared += 1
            want_c, got_c = canonical(c.result), canonical(got.content)
            downstream = diverged
            if want_c == got_c:
                row.matched += 1
                continue
            row.downstream += downstream
            row.difference_kinds[difference_kind(want_c, got_c)] += 1
            diverged = diverged or tool.writes
            if len(row.first_differences) < max_differences:
                if isinstance(want_c, (dict, list)) and isinstance(got_c, (dict, list)):
                    diff = state_diff(want_c, got_c, limit=5)
                    if not diff:
                        diff = ["list lengths differ"]
                else:
                    diff = [f"logged {_cut(want_c, 120)!s} / replayed {_cut(got_c, 120)!s}"]
                row.first_differences.append({"record": c.record_id, "step": c.step, "arguments": c.arguments,
                                              "diff": diff, "logged": _cut(c.result), "replayed": _cut(got.content),
                                              "downstream": downstream})
    return FidelityReport(domain.name, n, tools)
