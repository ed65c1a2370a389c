"""``trajpipe domain init`` / ``trajpipe domain check``: bring your own system (docs/domains.md).

``init`` scaffolds an installable domain package from agent logs (:mod:`pipeline.scaffold`);
``check`` replays every logged tool call against a domain's sandbox and reports, per tool, the
share of results that match the logs (:mod:`pipeline.scaffold.check`).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from pipeline.cli_config import die, warn

console = Console(stderr=True)

LOGS_HELP = ("Log file in any format `trajpipe ingest` reads (auto-detected): canonical JSONL, tau-bench runs, "
             "transcripts, OpenTelemetry GenAI traces, OpenAI Chat Completions call logs, ShareGPT.")
FORMAT_HELP = "Input format (default: auto-detected)."


def register(app: typer.Typer) -> None:
    """Add the ``domain`` sub-app (``init``, ``check``) to the trajpipe CLI."""
    domain_app = typer.Typer(no_args_is_help=True, help="Bring your own system: scaffold a domain from logs, "
                                                        "check a domain's sandbox against logs.")
    app.add_typer(domain_app, name="domain")

    @domain_app.command("init")
    def init(
        name: str = typer.Argument(..., help="Domain name: a lower-case Python identifier (package and rule-id prefix)."),
        from_logs: Path = typer.Option(..., "--from-logs", help=LOGS_HELP),
        out: Path = typer.Option(..., "--out", "-o", help="Folder for the package (must be empty unless --force)."),
        fmt: Optional[str] = typer.Option(None, "--format", help=FORMAT_HELP),
        force: bool = typer.Option(False, "--force", help="Overwrite files in a non-empty --out."),
        as_json: bool = typer.Option(False, "--json", help="Also print the inferred summary (tools with their "
                                                           "read/write basis, tables, rules) as JSON; it is always "
                                                           "written to <out>/<name>/scaffold.json."),
    ) -> None:
        """Write an installable domain package skeleton inferred from the logs: tool schemas, read/write
        split, record models, a state loader, read tools as lookups, write stubs with logged examples, a
        policy with rule ids, a Faker entity factory, and a contract and a replay test to fill in."""
        from pipeline.scaffold import init_domain, spec_summary

        try:
            spec, written, n_quarantined = init_domain(name, from_logs, out, fmt=fmt, force=force)
        except (ValueError, FileExistsError, FileNotFoundError) as exc:
            die(str(exc))
        summary = spec_summary(spec)
        reads = [t for t, v in summary["tools"].items() if not v["writes"]]
        writes = [t for t, v in summary["tools"].items() if v["writes"]]
        console.print(f"[green]{name}[/green]: {spec.n_records} conversations, {spec.n_calls} calls "
                      f"({n_quarantined} records quarantined by the reader)")
        console.print(f"read tools ({len(reads)}): {', '.join(reads)}")
        console.print(f"write tools ({len(writes)}, stubs): {', '.join(writes) or '-'}")
        by_name = [t for t, v in summary["tools"].items() if v["basis"] == "name"]
        if by_name:
            console.print(f"[yellow]classified by name only (no change seen either way):[/yellow] {', '.join(by_name)}")
        console.print(f"tables: {', '.join(summary['tables']) or '-'}; policy rules: {summary['rules']}")
        console.print(f"wrote {len(written)} files under {out} (summary: {out / name / 'scaffold.json'}); next: "
                      f"pip install -e {out} && trajpipe domain check {name} --logs {from_logs}")
        if as_json:
            typer.echo(json.dumps(summary, indent=1))

    @domain_app.command("check")
    def check(
        name: str = typer.Argument(..., help="A registered domain, one installed under the trajpipe.domains entry "
                                             "point, or an importable package (see --package-dir)."),
        logs: Path = typer.Option(..., "--logs", help=LOGS_HELP),
        db: Optional[Path] = typer.Option(None, "--db", help="Database snapshot the logs were made on: a JSON file "
                                                             "{table: {key: record}} or a folder of <table>.json files. "
                                                             "Default: the state the logs reveal (the domain's "
                                                             "state_from_logs)."),
        package_dir: Optional[Path] = typer.Option(None, "--package-dir", help="Folder holding a scaffolded package "
                                                                               "that is not installed."),
        fmt: Optional[str] = typer.Option(None, "--format", help=FORMAT_HELP),
        json_out: Optional[Path] = typer.Option(None, "--json", help="Also write the full report (with every first "
                                                                     "difference) as JSON here."),
        differences: int = typer.Option(3, "--differences", help="First differences shown per tool."),
        limit: Optional[int] = typer.Option(None, "--limit", help="Replay only the first N conversations."),
    ) -> None:
        """Replay every logged tool call, in order, against the domain's sandbox started from the state the
        logs reveal (or --db) and report per tool the share of results equal to the logged ones (after
        canonicalization: key order, whitespace, float formatting), with the first differences."""
        from pipeline.scaffold.check import load_snapshot, replay, resolve_domain
        from pipeline.scaffold.observe import load_records

        try:
            dom = resolve_domain(name, package_dir)
            records, quarantine = load_records(logs, fmt)
            records = records[:limit] if limit is not None else records
            state = load_snapshot(db) if db is not None else dom.state_from_logs(records)
            if state is None:
                die(f"domain {name!r} has no state_from_logs: give the database snapshot the logs were made on (--db)")
        except (ValueError, FileNotFoundError) as exc:
            die(str(exc))
        try:
            dom.validate_state(state)
        except ValueError as exc:
            warn(f"the initial state does not validate: {str(exc)[:300]}")
        report = replay(dom, records, state, max_differences=differences)
        console.print(f"{name}: {report.records} conversations replayed from {logs}"
                      + (f" ({len(quarantine)} quarantined by the reader)" if quarantine else ""))
        typer.echo(report.markdown())
        kinds = report.difference_lines()
        if kinds:
            typer.echo("mismatches by the paths that differ:")
            for line in kinds:
                typer.echo(f"- {line}")
        for n, t in sorted(report.tools.items()):
            for d in t.first_differences:
                typer.echo(f"- {n} ({d['record']} call {d['step']}, arguments {json.dumps(d['arguments'])[:160]}): "
                           + "; ".join(d["diff"][:3]))
        if json_out is not None:
            json_out.parent.mkdir(parents=True, exist_ok=True)
            json_out.write_text(json.dumps(report.to_json(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
