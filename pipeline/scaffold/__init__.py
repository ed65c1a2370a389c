"""Bring your own system: scaffold a domain package from agent logs, and measure a domain's
sandbox against the logs (``trajpipe domain init`` / ``trajpipe domain check``).

* :mod:`pipeline.scaffold.observe`: the logged calls and results of canonical conversations;
* :mod:`pipeline.scaffold.infer`: tool schemas (genson), read/write split, record tables, policy;
* :mod:`pipeline.scaffold.models`: pydantic record models and Faker field specs;
* :mod:`pipeline.scaffold.render`: the package files (jinja2 templates);
* :mod:`pipeline.scaffold.runtime`: what a scaffolded package calls (state seeding, lookups, fakes);
* :mod:`pipeline.scaffold.check`: replay fidelity.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from .infer import DomainSpec, infer_domain, spec_summary
from .observe import load_records, record_calls


def init_domain(name: str, logs: str | Path, out: str | Path, fmt: str | None = None,
                force: bool = False) -> tuple[DomainSpec, list[Path], int]:
    """Scaffold domain ``name`` from the log file ``logs`` (any format ``trajpipe ingest`` reads)
    into the folder ``out``. Returns ``(spec, written paths, quarantined records)``. Raises
    ValueError for a bad name or logs without business tool calls, FileExistsError for a
    non-empty ``out`` without ``force``, FileNotFoundError for missing logs."""
    from .render import check_name, render_package

    check_name(name)
    records, quarantine = load_records(logs, fmt)
    spec = infer_domain(records, name)
    samples: dict[str, dict[str, Any]] = {}
    keys: dict[str, list[Any]] = {}
    tool_table = {t.name: (t.table, t.key_arg) for t in spec.tools if t.table}
    for rec in records:
        for c in record_calls(rec):
            if c.name in tool_table and not c.is_error and isinstance(c.value, dict) and c.arguments:
                table, key_arg = tool_table[c.name]
                if key_arg in c.arguments:
                    k = str(c.arguments[key_arg])
                    samples.setdefault(table, {}).setdefault(k, c.value)
                    keys.setdefault(table, []).append(c.arguments[key_arg])
    written = render_package(spec, out, logs, {t: list(v.values()) for t, v in samples.items()},
                             {t: sorted(set(map(str, v))) for t, v in keys.items()}, force=force)
    return spec, written, len(quarantine)


__all__ = ["init_domain", "infer_domain", "spec_summary", "load_records", "DomainSpec"]
