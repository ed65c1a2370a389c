"""``trajpipe stats DIR``: the summary table of an export folder (rich).

Built from the Parquet files with DuckDB (:func:`pipeline.browse.open_views`), so it works on any
export folder, including one copied elsewhere.
"""
from __future__ import annotations

from typing import Any

from pipeline.browse import _quote_ident, open_views


def summary_rows(out_dir: str) -> list[dict[str, Any]]:
    """One dict per dataset: ``dataset``, ``rows``, rows per split (``train``, ``validation``,
    ``test``, ``holdout``; None where the dataset has no ``split`` column), ``hint_mode`` (rows
    per help mode of their rollout, e.g. ``"none 3, guided 9"``; dpo per side; groups: tasks with
    helped rollouts; None where the dataset has none), plus dataset-specific facts in ``notes``
    (pass rate over unhelped rollouts, zero-variance groups, pairs, ...).

    Raises:
        FileNotFoundError: as :func:`pipeline.browse.open_views`.
    """
    con = open_views(out_dir)
    try:
        views = [r[0] for r in con.execute(
            "SELECT view_name FROM duckdb_views() WHERE NOT internal ORDER BY view_name").fetchall()]
        out = []
        for v in views:
            q = _quote_ident(v)
            n = con.execute(f"SELECT count(*) FROM {q}").fetchone()[0]
            cols = {r[0] for r in con.execute(f"DESCRIBE {q}").fetchall()}
            row: dict[str, Any] = {"dataset": v, "rows": n}
            for s in ("train", "validation", "test", "holdout"):
                row[s] = (con.execute(f"SELECT count(*) FROM {q} WHERE split = ?", [s]).fetchone()[0]
                          if "split" in cols else None)
            notes = ""
            if v == "groups" and n:
                k, p, zv, p1 = con.execute(
                    "SELECT sum(k), sum(passes), count(*) FILTER (WHERE zero_variance), avg(pass_at_1) FROM groups").fetchone()
                notes = (f"unhelped rollouts {k}, passes {p}, pass@1 "
                         + (f"{p1:.3f}" if p1 is not None else
                            "- (no unhelped rollout: every rollout had a hint, e.g. --hints guided)")
                         + f", zero-variance groups {zv}")
            elif v == "sft" and n:
                r = con.execute("SELECT avg(len(messages)), avg(reward) FROM sft").fetchone()
                notes = f"avg messages {r[0]:.1f}" + (f", avg reward {r[1]:.3f}" if r[1] is not None else "")
            elif v == "steps" and n:
                a = con.execute("SELECT count(DISTINCT anchor_state) FROM steps").fetchone()[0]
                notes = f"{a} distinct anchor states"
            elif v in ("rejects", "trajectories_failed") and n:
                col = "reason_code" if v == "rejects" else "reason_codes[1]"
                top = con.execute(f"SELECT {col}, count(*) c FROM {q} GROUP BY 1 ORDER BY c DESC LIMIT 3").fetchall()
                notes = ", ".join(f"{c} {k}" for c, k in top)
            row["notes"] = notes
            row["hint_mode"] = _hint_modes(con, v, q, cols) if n else None
            out.append(row)
        return out
    finally:
        con.close()


def _by_mode(pairs: list[tuple[Any, int]]) -> str:
    from pipeline.export.writer import in_hint_mode_order

    counts: dict[str, int] = {}
    for m, c in pairs:
        counts[m or "none"] = counts.get(m or "none", 0) + int(c)
    return ", ".join(f"{m} {n}" for m, n in in_hint_mode_order(counts).items())


def _hint_modes(con: Any, view: str, q: str, cols: set[str]) -> str | None:
    """Rows per help mode of their rollout (``hint_mode`` column; dpo: chosen / rejected side;
    groups: tasks with helped rollouts, their helped rollouts and passes); None for a dataset
    without one (or an export written before the column existed)."""
    if view == "dpo" and {"chosen_hint_mode", "rejected_hint_mode"} <= cols:
        side = {c: _by_mode(con.execute(f"SELECT {c}_hint_mode, count(*) FROM dpo GROUP BY 1").fetchall())
                for c in ("chosen", "rejected")}
        return f"chosen: {side['chosen']}; rejected: {side['rejected']}"
    if view == "groups" and {"hint_mode", "k_helped", "passes_helped"} <= cols:
        rows = con.execute("SELECT hint_mode, count(*), sum(k_helped), sum(passes_helped) FROM groups "
                           "WHERE k_helped > 0 GROUP BY 1 ORDER BY 1").fetchall()
        if not rows:
            return "no helped rollouts"
        return "helped tasks: " + ", ".join(f"{m} {n} (rollouts {k}, passes {p})" for m, n, k, p in rows)
    if "hint_mode" in cols and "trajectory_id" in cols:
        return _by_mode(con.execute(f"SELECT hint_mode, count(*) FROM {q} GROUP BY 1").fetchall())
    return None


def print_summary(out_dir: str, console: Any = None) -> list[dict[str, Any]]:
    """Print :func:`summary_rows` as a rich table; returns the rows."""
    from rich.console import Console
    from rich.table import Table

    rows = summary_rows(out_dir)
    table = Table(title=f"trajpipe datasets in {out_dir}")
    columns = ("dataset", "rows", "train", "validation", "test", "holdout", "hint_mode", "notes")
    for c in columns:
        table.add_column(c, justify="right" if c not in ("dataset", "hint_mode", "notes") else "left")
    for r in rows:
        table.add_row(*["" if r.get(c) is None else str(r[c]) for c in columns])
    (console or Console()).print(table)
    return rows
