"""Dataset card (README.md + PNG plots), `trajpipe stats` and `trajpipe browse` on an export."""
from __future__ import annotations

import os
import sys

import pyarrow.parquet as pq
import pytest
import yaml

sys.path.insert(0, os.path.dirname(__file__))
from export_helpers import build_run, export_run  # noqa: E402

from pipeline.browse import EXAMPLE_QUERIES, QUERY_VIEWS, open_views  # noqa: E402


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("card"))
    run = build_run(kinds=("cancel_reservation", "send_certificate"), tasks_per_bp=2, k=3)
    return {"paths": export_run(out, run, gamma=0.9), "out": out, "run": run}


def test_card_yaml_header_sections_and_plots(exported):
    text = open(exported["paths"]["card"], encoding="utf-8").read()
    assert text.startswith("---\n")
    header = yaml.safe_load(text.split("---\n")[1])
    assert header["license"] and "text-generation" in header["task_categories"]
    configs = {c["config_name"]: c for c in header["configs"]}
    assert {"sft", "rl", "dpo", "steps", "groups", "trajectories_failed"} <= set(configs)
    for name, c in configs.items():
        assert os.path.exists(os.path.join(exported["out"], c["data_files"][0]["path"]))
    for section in ("## Provenance", "## Helped rollouts", "## Pass rates", "## Per blueprint", "## Per skill",
                    "## Reward components"):
        assert section in text
    # a run without help says so, and still explains what helped would mean
    assert "- sft rows: 8 (none 8); 0 from helped rollouts" in text and "- groups: 0 of 4 tasks" in text
    assert "STaR" in text and "never in the data" in text
    for bp in exported["run"]["blueprints"]:
        assert f"| {bp.blueprint_id} |" in text
    for skill in {s for t in exported["run"]["tasks"] for s in t.skills}:
        assert f"| {skill} |" in text
    # the pass-rate histogram table adds up to the number of groups
    groups = pq.read_table(exported["paths"]["groups"]).to_pylist()
    assert "| 4 |" in text and len(groups) == 4
    for key in ("plot_pass_rate", "plot_blueprints", "plot_skills", "plot_reward_components"):
        path = exported["paths"][key]
        with open(path, "rb") as fh:
            assert fh.read(8) == b"\x89PNG\r\n\x1a\n"
        assert f"plots/{os.path.basename(path)}" in text


def test_groups_pass_at_k_and_steps_returns(exported):
    from pipeline.export.rows import pass_at_k

    for g in pq.read_table(exported["paths"]["groups"]).to_pylist():
        assert g["k"] == 3 and g["passes"] == 2
        assert g["pass_at_1"] == pytest.approx(2 / 3) and g["pass_at_k"] == 1.0
        assert g["reward_mean"] == pytest.approx(2 / 3) and g["reward_std"] > 0 and g["zero_variance"] is False
    assert pass_at_k(5, 1, 2) == pytest.approx(1 - (4 * 3) / (5 * 4))  # 1 - C(4,2)/C(5,2)
    with pytest.raises(ValueError):
        pass_at_k(3, 4, 1)
    steps = pq.read_table(exported["paths"]["steps"]).to_pylist()
    by_traj = {}
    for s in steps:
        by_traj.setdefault(s["trajectory_id"], []).append(s)
    for rows in by_traj.values():
        rows.sort(key=lambda r: r["step_index"])
        final = rows[-1]["step_reward"]
        for r in rows:
            assert r["gamma"] == 0.9
            assert r["discounted_return"] == pytest.approx(final * 0.9 ** (len(rows) - 1 - r["step_index"]))
    # the first step of every rollout of a task starts from the same anchor state
    first = {}
    for rows in by_traj.values():
        first.setdefault(rows[0]["task_id"], set()).add(rows[0]["anchor_state"])
    assert all(len(a) == 1 for a in first.values())


def test_canonical_observation_removes_volatile_values():
    from pipeline.export.steps import anchor_key, canonical_observation

    a = canonical_observation("t1", [{"role": "tool", "name": "x", "content":
                                      "at 2024-05-01T10:00:00Z session 123e4567-e89b-12d3-a456-426614174000 call_ab12"}])
    b = canonical_observation("t1", [{"role": "tool", "name": "x", "content":
                                      "at 2025-01-09T23:59:59.5+02:00 session 00000000-0000-0000-0000-000000000000 call_zz99"}])
    assert a == b and "<TIMESTAMP>" in a and "<UUID>" in a
    assert anchor_key(a) != anchor_key(canonical_observation("t2", [{"role": "tool", "name": "x", "content": "at"}]))


def test_stats_and_browse_queries(exported, capsys):
    from rich.console import Console

    from pipeline.stats import print_summary

    rows = {r["dataset"]: r for r in print_summary(exported["out"], Console(width=200))}
    printed = capsys.readouterr().out
    assert rows["sft"]["rows"] == 8 and rows["groups"]["rows"] == 4 and rows["dpo"]["rows"] == 4
    assert rows["sft"]["train"] + rows["sft"]["validation"] + rows["sft"]["test"] + rows["sft"]["holdout"] == 8
    assert "zero-variance groups 0" in rows["groups"]["notes"] and "sft" in printed
    assert rows["sft"]["hint_mode"] == "none 8" and rows["groups"]["hint_mode"] == "no helped rollouts"
    assert rows["tasks"]["hint_mode"] is None and "hint_mode" in printed
    con = open_views(exported["out"])
    for name, q in EXAMPLE_QUERIES.items():
        assert set(QUERY_VIEWS[name]) <= {"sft", "rl", "dpo", "steps", "groups", "rejects", "tasks", "quarantine",
                                          "trajectories_failed", "blueprints"}
        con.execute(q).fetchall()
    assert len(con.execute(EXAMPLE_QUERIES["learnable_groups"]).fetchall()) == 4
    assert con.execute(EXAMPLE_QUERIES["dpo_rejected_reasons"]).fetchall() == [("TRAJ_WRONG_FINAL_STATE", 4)]


def test_browse_sql_prints_only_the_result_on_stdout(exported):
    """`trajpipe browse OUT --sql ...` printed the views table before the result, in the way of a
    pipe: with --sql stdout carries the result alone and the views table goes to stderr."""
    import subprocess

    res = subprocess.run([sys.executable, "-m", "pipeline.cli", "browse", str(exported["out"]), "--sql",
                          "select count(*) as n_rows from sft"], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "COLUMNS": "120"})
    assert res.returncode == 0, res.stderr
    assert "n_rows" in res.stdout and "8" in res.stdout and "views in" not in res.stdout
    assert "views in" in res.stderr
