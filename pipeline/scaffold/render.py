"""Write a domain package from a :class:`~pipeline.scaffold.infer.DomainSpec` (jinja2 templates
in ``pipeline/scaffold/templates``).

Layout of ``OUT``::

    pyproject.toml        installable; registers DOMAIN under the "trajpipe.domains" entry point
    README.md             what was inferred (and on what evidence), what to fill in
    <name>/__init__.py    DOMAIN (a ModuleDomain) with state_from_logs
    <name>/state.py       record models (pydantic), empty_state, validate_state, state_from_logs
    <name>/tools.py       read tools as lookups, write tools as documented stubs
    <name>/policy.md      the logs' system prompt with rule ids
    <name>/rules.py       parsed rules; rule checks to fill in
    <name>/generator.py   Faker entity factory from the inferred field types; task kinds to fill in
    <name>/scaffold.json  the inference summary and the field specs
    tests/test_contract.py, tests/test_replay.py
"""
from __future__ import annotations

import json
import keyword
import pprint
import re
from pathlib import Path
from typing import Any

import jinja2

from pipeline.sandbox import state_diff

from .infer import DomainSpec, ToolSpec, dumps, spec_summary
from .models import field_spec, model_source

TEMPLATES = Path(__file__).with_name("templates")
NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")


def check_name(name: str) -> None:
    """ValueError unless ``name`` is a lower-case Python identifier (it names the package, the
    rule-id prefix and the registry entry) that is not a keyword."""
    if not NAME_RE.match(name) or keyword.iskeyword(name):
        raise ValueError(f"domain name {name!r} must be a lower-case Python identifier (letters, digits, _)")


def _doc(t: ToolSpec) -> str:
    lines = [t.description.replace('"""', "'''"), ""]
    if t.writes:
        basis = (f"the logs show {t.votes[0]} change(s) of the touched record after its calls" if t.basis == "logs"
                 else "no logged change either way: classified by its name's verb; check it")
        lines += [f"WRITE tool ({basis}). STUB: write the change it makes.", ""]
        if t.examples:
            lines.append("Logged examples (arguments; what changed in the record, from the version read before "
                         "the call to the one it returned or a later read showed; the call's result):")
            for i, ex in enumerate(t.examples, 1):
                after = ex.get("after", ex["result"])
                changes = state_diff(ex["before"], after, limit=8) if isinstance(after, dict) else []
                lines.append(f"{i}. arguments: {dumps(ex['arguments'], 300)}")
                lines.append(f"   before:    {dumps(ex['before'], 300)}")
                for ch in changes or ["(no field-level change shown)"]:
                    lines.append(f"   changed:   {ch}")
                lines.append(f"   result:    {dumps(ex['result'], 200)}")
        else:
            lines.append("The logs show no before/after pair for this tool (its target record was never read "
                         "before it in the same conversation).")
    elif t.table:
        lines.append(f"READ tool: the record of table {t.table!r} keyed by {t.key_arg!r}, as the logs showed it; "
                     f"ToolError({t.not_found!r}) when there is none.")
    elif t.impl == "constant":
        lines.append("READ tool: every logged call returned the same text, so it returns that text.")
    elif t.impl == "calculate":
        lines.append("READ tool: pipeline.domains.common.calculate_expression reproduces every logged result.")
    else:
        lines.append("READ tool: the logs show its results but not the records behind them, so it returns the "
                     f"result logged for the same arguments (ToolError({t.not_found!r}) for arguments never "
                     "logged). Replace it by a query over the state.")
    basis = "the logs (record versions)" if t.basis == "logs" else "its name only"
    lines += ["", f"Read/write split from {basis}: {t.votes[0]} write vote(s), {t.votes[1]} read vote(s); "
                  f"{t.n_calls} logged call(s)."]
    return "\n    ".join(lines).rstrip()


def _tool_context(t: ToolSpec) -> dict[str, Any]:
    props = t.parameters["properties"]
    state_param = "db" if "state" in props else "state"
    idents = all(p.isidentifier() and not keyword.iskeyword(p) for p in props)
    req = t.parameters["required"]
    if idents:
        params = [f"{p}: Any" for p in props if p in req] + [f"{p}: Any = None" for p in props if p not in req]
        signature = ", ".join([f"{state_param}: dict[str, Any]"] + params)
        args_expr = ("{k: v for k, v in {" + ", ".join(f"{p!r}: {p}" for p in props) + "}.items() if v is not None}"
                     if any(p not in req for p in props) else "{" + ", ".join(f"{p!r}: {p}" for p in props) + "}")
        key_expr = t.key_arg if t.key_arg else "None"
    else:
        signature = f"{state_param}: dict[str, Any], **arguments: Any"
        args_expr = "arguments"
        key_expr = f"arguments[{t.key_arg!r}]" if t.key_arg else "None"
    schema = {"name": t.name, "description": t.description, "parameters": t.parameters}
    return {"name": t.name, "writes": t.writes, "table": t.table, "schema_repr": pprint.pformat(schema, width=100,
            sort_dicts=False).replace("\n", "\n "), "signature": signature, "state_param": state_param,
            "args_expr": args_expr, "key_expr": key_expr, "not_found_repr": repr(t.not_found), "doc": _doc(t),
            "impl": t.impl, "constant_repr": repr(t.constant)}


def render_package(spec: DomainSpec, out: str | Path, logs: str | Path, table_samples: dict[str, list[dict[str, Any]]],
                   key_values: dict[str, list[Any]], force: bool = False) -> list[Path]:
    """Write the package of ``spec`` into ``out`` (created; FileExistsError when it holds files
    and ``force`` is False). ``table_samples`` are the logged records per table (for the Faker
    field specs), ``key_values`` the logged key values per table. Returns the written paths."""
    check_name(spec.name)
    out = Path(out)
    if out.exists() and any(out.iterdir()) and not force:
        raise FileExistsError(f"{out} is not empty (use --force to overwrite)")
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), keep_trailing_newline=True,
                             undefined=jinja2.StrictUndefined, autoescape=False)
    reads = [t for t in spec.tools if not t.writes]
    writes = [t for t in spec.tools if t.writes]
    record_tools = {t.name: (t.table, t.key_arg) for t in reads if t.table}
    lookup_tools = tuple(t.name for t in reads if t.impl == "lookup")
    models, models_map, tables_ctx = [], {}, []
    for table, schema in sorted(spec.tables.items()):
        src, root = model_source(table, schema)
        models.append(src)
        models_map[table] = root
        owners = [t for t in reads if t.table == table]
        tables_ctx.append({"table": table, "key_arg": owners[0].key_arg, "model": root,
                           "tools": [t.name for t in owners]})
    key_field = {t.table: t.key_arg for t in reads if t.table}
    scaffold = {"summary": spec_summary(spec), "logs": str(logs),
                "field_specs": {tb: field_spec(tb, table_samples.get(tb, [])) for tb in sorted(spec.tables)},
                "key_specs": {tb: [key_field[tb], field_spec(key_field[tb], key_values.get(tb, []))]
                              for tb in sorted(spec.tables)}}
    ctx = {"name": spec.name, "logs": str(logs), "logs_repr": repr(str(Path(logs).resolve())),
           "n_records": spec.n_records, "n_calls": spec.n_calls, "n_rules": len(spec.rules),
           "class_name": "".join(w.capitalize() for w in spec.name.split("_")) + "Domain",
           "tools": [_tool_context(t) for t in spec.tools], "any_declared": any(t.declared for t in spec.tools),
           "read_tools": [t.name for t in reads], "write_tools": [t.name for t in writes],
           "tables": tables_ctx, "lookup_tools": list(lookup_tools), "lookup_tools_repr": repr(lookup_tools),
           "write_tools_repr": repr(tuple(t.name for t in writes)),
           "record_tools": pprint.pformat(record_tools, width=100, sort_dicts=True),
           "models": "\n\n\n".join(models) if models else "# (the logs show no keyed records)",
           "models_map": "{" + ", ".join(f"{k!r}: {v}" for k, v in models_map.items()) + "}",
           "kinds_repr": repr(tuple(t.name for t in writes))}
    pkg = out / spec.name
    files = {out / "pyproject.toml": "pyproject.toml.j2", pkg / "__init__.py": "init.py.j2",
             pkg / "state.py": "state.py.j2", pkg / "tools.py": "tools.py.j2", pkg / "rules.py": "rules.py.j2",
             pkg / "generator.py": "generator.py.j2", out / "tests" / "test_contract.py": "test_contract.py.j2",
             out / "tests" / "test_replay.py": "test_replay.py.j2"}
    written = []
    for path, tpl in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(env.get_template(tpl).render(**ctx), encoding="utf-8")
        written.append(path)
    policy = spec.policy or (f"# {spec.name} policy\n\nThe logs carry no system prompt: write the policy here, one "
                             f"rule per bullet, `- [{spec.name}.<topic>.<rule>] text` (docs/domains.md section 5).\n")
    (pkg / "policy.md").write_text(policy, encoding="utf-8")
    (pkg / "scaffold.json").write_text(json.dumps(scaffold, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / "README.md").write_text(readme(spec, logs), encoding="utf-8")
    written += [pkg / "policy.md", pkg / "scaffold.json", out / "README.md"]
    return written


def readme(spec: DomainSpec, logs: str | Path) -> str:
    """The package's README: the inference table and the list of things to fill in."""
    rows = ["| tool | kind | basis (write/read votes) | calls | required arguments | enums | implemented as |",
            "| --- | --- | --- | ---: | --- | --- | --- |"]
    for t in spec.tools:
        enums = ", ".join(f"{k}: {'/'.join(v['enum'])}" for k, v in t.parameters["properties"].items() if "enum" in v)
        impl = {"stub": "stub (fill in)", "record": f"lookup {t.table}[{t.key_arg}]", "lookup": "logged results",
                "constant": "constant result", "calculate": "calculate_expression"}[t.impl]
        rows.append(f"| `{t.name}` | {'write' if t.writes else 'read'} | {t.basis} ({t.votes[0]}/{t.votes[1]}) | "
                    f"{t.n_calls} | {', '.join(t.parameters['required']) or '-'} | {enums or '-'} | {impl} |")
    skipped = ", ".join(f"{k} ({v})" for k, v in sorted(spec.skipped_tools.items())) or "none"
    return f"""# {spec.name}: a trajpipe domain scaffolded from logs

Written by `trajpipe domain init {spec.name} --from-logs {logs}` from {spec.n_records} conversations,
{spec.n_calls} tool calls. Shared or unnamed calls left out: {skipped}.

The docstrings of the write tools quote records from the logs as examples: if the logs hold
personal data, anonymize them first (`trajpipe anonymize`) or remove the examples.

## What was inferred

{chr(10).join(rows)}

Tables (records from the read tools' results): {', '.join(sorted(spec.tables)) or 'none'}.
Policy rules split from the system prompt: {len(spec.rules)}.

## What to fill in

1. `tools.py`: the write tools (each raises NotImplementedError; its docstring lists the logged
   before/after records); replace "logged results" lookups by queries over the state.
2. `state.py`: check the record models; add cross-reference checks.
3. `rules.py`: which rules constrain which tools, and `rule_violations`.
4. `generator.py`: the task kinds (instructions, reference solutions).
5. `__init__.py`: `identity_tools`, optional hooks (docs/domains.md section 2).

Then: `pip install -e .` (registers the domain under the `trajpipe.domains` entry point),
`python -m pytest -q tests/` (contract and replay tests), and
`trajpipe domain check {spec.name} --logs {logs}` (replay fidelity per tool).
"""
