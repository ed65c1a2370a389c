"""CLI glue for the anonymization evaluation (``trajpipe anonymize --eval``).

Two ways to wire it into ``pipeline/cli.py``:

* as its own command::

      from pipeline.anonymize.cli_eval import anonymize_eval_command
      app.command("anonymize-eval")(anonymize_eval_command)

* as a flag of ``trajpipe anonymize``: add the parameter
  ``eval_: bool = typer.Option(False, "--eval", help=EVAL_HELP)`` (plus, optionally,
  ``tau: Optional[Path] = typer.Option(None, "--tau")``) and, first thing in the command body,
  ``if eval_: raise typer.Exit(run_eval_cli(tau=tau))``.

Both print the recall / precision table per log set and exit 1 when a target of issue 3 is
missed.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .eval import SETS, TAU_ENV

EVAL_HELP = ("Instead of anonymizing --work, measure recall / precision per entity type on the "
             "labelled tau-bench logs and print the table (exit 1 if a target is missed).")


def run_eval_cli(tau: Optional[Path] = None, sets: str = ",".join(SETS), limit: Optional[int] = None,
                 workers: int = 1, json_out: Optional[Path] = None, show: int = 0,
                 check: bool = True) -> int:
    """Run :func:`pipeline.anonymize.eval.main` with these options; return its exit code."""
    from .eval import main

    argv = ["--sets", sets, "--workers", str(workers), "--show", str(show)]
    if tau is not None:
        argv += ["--tau", str(tau)]
    if limit is not None:
        argv += ["--limit", str(limit)]
    if json_out is not None:
        argv += ["--json", str(json_out)]
    if check:
        argv.append("--check")
    try:
        return main(argv)
    except FileNotFoundError as exc:
        from ..cli_config import print_error

        print_error(str(exc))
        return 2


def anonymize_eval_command(
    tau: Optional[Path] = typer.Option(None, "--tau", help=f"tau-bench folder (default ${TAU_ENV} or ../shared/data/tau-bench)."),
    sets: str = typer.Option(",".join(SETS), "--sets", help="Comma-separated log sets: " + ", ".join(SETS) + "."),
    limit: Optional[int] = typer.Option(None, "--limit", help="First N records of each set."),
    workers: int = typer.Option(1, "--workers", help="Detector worker processes."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Also write the results as JSON."),
    show: int = typer.Option(0, "--show", help="List up to N left-over values / false positives (fictional data only)."),
) -> None:
    """Measure the anonymizer on the labelled tau-bench logs: recall and precision per entity type."""
    raise typer.Exit(run_eval_cli(tau, sets, limit, workers, json_out, show, check=True))
