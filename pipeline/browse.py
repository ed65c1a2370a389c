"""Browse an exported folder with DuckDB: one view per Parquet file, plus ready queries.

    >>> con = open_views("out/run1")            # views sft, rl, rejects, tasks, ...
    >>> con.sql(EXAMPLE_QUERIES["pass_rate_per_blueprint"]).show()

Run ``python -m pipeline.browse OUT_DIR`` to print the row counts and every example query.
"""
from __future__ import annotations

import os
import sys

import duckdb

#: Named SQL queries over the views :func:`open_views` creates; each runs on any exported folder.
EXAMPLE_QUERIES: dict[str, str] = {
    "pass_rate_per_blueprint": """
        SELECT blueprint_id, count(*) AS tasks, sum(k)::BIGINT AS rollouts, sum(passes)::BIGINT AS passes,
               round(sum(passes) / nullif(sum(k), 0), 3) AS pass_rate, sum(exported)::BIGINT AS exported
        FROM groups GROUP BY blueprint_id ORDER BY blueprint_id""",
    "reject_reasons": """
        SELECT kind, stage, reason_code, count(*) AS n
        FROM rejects GROUP BY ALL ORDER BY n DESC, kind, stage, reason_code""",
    "split_sizes": """
        SELECT 'sft' AS dataset, split, count(*) AS n FROM sft GROUP BY split
        UNION ALL
        SELECT 'rl' AS dataset, split, count(*) AS n FROM rl GROUP BY split
        ORDER BY dataset, split""",
    "messages_per_role": """
        SELECT m.role AS role, count(*) AS n, avg(length(coalesce(m.content, ''))) AS avg_chars
        FROM (SELECT unnest(messages) AS m FROM sft) GROUP BY role ORDER BY role""",
    "tool_call_counts": """
        SELECT c."function".name AS tool, count(*) AS calls
        FROM (SELECT unnest(m.tool_calls) AS c
              FROM (SELECT unnest(messages) AS m FROM sft))
        GROUP BY tool ORDER BY calls DESC, tool""",
    "trained_turns_per_trajectory": """
        SELECT trajectory_id, len(messages) AS messages,
               coalesce(list_sum(CAST(loss_mask AS INTEGER[])), 0)::BIGINT AS trained_messages
        FROM sft ORDER BY trajectory_id""",
    "task_verification_per_blueprint": """
        SELECT blueprint_id, count(*) AS tasks,
               count(*) FILTER (WHERE task_verified) AS verified
        FROM tasks GROUP BY blueprint_id ORDER BY blueprint_id""",
    "quarantine_reasons": """
        SELECT stage, reason_code, count(*) AS n
        FROM quarantine GROUP BY ALL ORDER BY n DESC, stage, reason_code""",
    "learnable_groups": """
        SELECT task_id, blueprint_id, k, passes, round(pass_at_1, 3) AS pass_at_1, round(pass_at_k, 3) AS pass_at_k,
               round(reward_mean, 3) AS reward_mean, round(reward_std, 3) AS reward_std
        FROM groups WHERE NOT zero_variance ORDER BY task_id""",
    "dpo_rejected_reasons": """
        SELECT rejected_reason_code, count(*) AS pairs FROM dpo GROUP BY 1 ORDER BY pairs DESC, 1""",
    "anchor_states_shared": """
        SELECT task_id, anchor_state, count(*) AS steps, count(DISTINCT trajectory_id) AS trajectories,
               round(avg(discounted_return), 3) AS mean_return
        FROM steps GROUP BY ALL HAVING count(DISTINCT trajectory_id) > 1 ORDER BY steps DESC, task_id""",
    "failed_reason_codes": """
        SELECT unnest(reason_codes) AS reason_code, count(*) AS n
        FROM trajectories_failed GROUP BY 1 ORDER BY n DESC, 1""",
    "rl_rows_veRL": """
        SELECT data_source, ability, agent_name, reward_model.style AS style, extra_info.split AS split, count(*) AS n
        FROM rl GROUP BY ALL ORDER BY ALL""",
}

#: Views each example query needs (a query is skipped in :func:`main` when one is missing, e.g.
#: an export folder written before the dataset existed).
QUERY_VIEWS: dict[str, tuple[str, ...]] = {
    "pass_rate_per_blueprint": ("groups",), "reject_reasons": ("rejects",), "split_sizes": ("sft", "rl"),
    "messages_per_role": ("sft",), "tool_call_counts": ("sft",), "trained_turns_per_trajectory": ("sft",),
    "task_verification_per_blueprint": ("tasks",), "quarantine_reasons": ("quarantine",),
    "learnable_groups": ("groups",), "dpo_rejected_reasons": ("dpo",), "anchor_states_shared": ("steps",),
    "failed_reason_codes": ("trajectories_failed",), "rl_rows_veRL": ("rl",),
}


def _quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _quote_str(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def open_views(out_dir: str, con: duckdb.DuckDBPyConnection | None = None) -> duckdb.DuckDBPyConnection:
    """An (in-memory, unless ``con`` is given) DuckDB connection with one view per Parquet file.

    Each ``NAME.parquet`` directly in ``out_dir`` becomes the view ``NAME`` (sorted by name);
    views read the files lazily, nothing is copied.

    Raises:
        FileNotFoundError: ``out_dir`` does not exist or holds no ``.parquet`` file.
    """
    if not os.path.isdir(out_dir):
        raise FileNotFoundError(f"no such folder: {out_dir}")
    files = sorted(f for f in os.listdir(out_dir) if f.endswith(".parquet"))
    if not files:
        raise FileNotFoundError(f"no .parquet files in {out_dir}")
    con = con if con is not None else duckdb.connect()
    for f in files:
        path = os.path.abspath(os.path.join(out_dir, f))
        con.execute(
            f"CREATE OR REPLACE VIEW {_quote_ident(f[: -len('.parquet')])} AS "
            f"SELECT * FROM read_parquet({_quote_str(path)})"
        )
    return con


def summary(out_dir: str) -> list[tuple[str, int]]:
    """``[(view, rows), ...]`` for every Parquet file in ``out_dir``, sorted by view name.

    Raises:
        FileNotFoundError: as :func:`open_views`.
    """
    con = open_views(out_dir)
    try:
        views = [r[0] for r in con.execute(
            "SELECT view_name FROM duckdb_views() WHERE NOT internal ORDER BY view_name").fetchall()]
        return [(v, con.execute(f"SELECT count(*) FROM {_quote_ident(v)}").fetchone()[0]) for v in views]
    finally:
        con.close()


def main(argv: list[str] | None = None) -> int:  # pragma: no cover - convenience printer
    """Print :func:`summary` and every :data:`EXAMPLE_QUERIES` result for ``argv[0]``."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m pipeline.browse OUT_DIR", file=sys.stderr)
        return 2
    for view, n in summary(args[0]):
        print(f"{view:12s} {n}")
    con = open_views(args[0])
    have = {r[0] for r in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}
    for name, sql in EXAMPLE_QUERIES.items():
        if not set(QUERY_VIEWS.get(name, ())) <= have:
            continue
        print(f"\n-- {name}")
        con.sql(sql).show()
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
