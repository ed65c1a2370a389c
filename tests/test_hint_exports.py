"""Helped (hinted / guided) rollouts in the exports: hint_mode columns, groups that keep pass@k
over unhelped rollouts, manifest and card counts by mode, `trajpipe stats`.

The run mimics ``--hint-when fallback`` on real synthesized airline tasks: one task is solved
without help; three tasks fail all unhelped rollouts and get helped ones (guided, plan, example)
that replay the reference (pass) or drop its writes (fail), all checked by the real verifier.
"""
from __future__ import annotations

import json
import os
import sys

import duckdb
import pyarrow.parquet as pq
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from export_helpers import (  # noqa: E402
    DOMAIN,
    blueprint,
    export_run,
    mutated_calls,
    reference_calls,
    tasks_for,
    trajectory,
)

from pipeline.verify import verify_task, verify_trajectory  # noqa: E402

#: task index -> (help mode of the fallback pass or None, passes among its helped rollouts, helped k)
PLAN = {0: (None, 0, 0), 1: ("guided", 2, 3), 2: ("plan", 1, 2), 3: ("example", 2, 2)}
K = 3  # unhelped rollouts per task


def rollout(task, i: int, ok: bool, mode: str = "none"):
    """One constructed rollout, ids as the harness writes them (``<task>-s<i>``, ``<task>-<mode>-s<i>``)."""
    tr = trajectory(task, i, reference_calls(task) if ok else mutated_calls(task),
                    tag=f" {mode} " + "ok " * i)
    tid = f"{task.task_id}-s{i}" if mode == "none" else f"{task.task_id}-{mode}-s{i}"
    return tr.model_copy(update={"trajectory_id": tid, "hint_mode": mode})


def hinted_run():
    """Four tasks (2 kinds x 2); task 0: 2 of 3 unhelped pass; tasks 1-3: 0 of 3 unhelped pass,
    then helped rollouts as in :data:`PLAN`."""
    bps, tasks, tverd, trajs = [], [], [], []
    for j, kind in enumerate(("cancel_reservation", "send_certificate")):
        bp = blueprint(f"bp-{kind}", kind)
        bps.append(bp)
        tasks += tasks_for(bp, 2, seed=j)
    for n, t in enumerate(tasks):
        tverd.append(verify_task(t, DOMAIN))
        mode, passes, hk = PLAN[n]
        trajs += [rollout(t, i, ok=(mode is None and i < K - 1)) for i in range(K)]
        if mode:
            trajs += [rollout(t, i, ok=i < passes, mode=mode) for i in range(hk)]
    by_id = {t.task_id: t for t in tasks}
    verdicts = [verify_trajectory(tr, by_id[tr.task_id], DOMAIN) for tr in trajs]
    for tr, v in zip(trajs, verdicts):  # the construction is what the verifier says, not assumed
        helped_ok = tr.hint_mode != "none" and int(tr.trajectory_id.rsplit("-s", 1)[1]) < PLAN[tasks.index(by_id[tr.task_id])][1]
        plain_ok = tr.hint_mode == "none" and PLAN[tasks.index(by_id[tr.task_id])][0] is None and tr.sample_index < K - 1
        assert v.passed is (helped_ok or plain_ok), (tr.trajectory_id, v.reason_codes)
    return {"blueprints": bps, "tasks": tasks, "task_verdicts": tverd, "trajectories": trajs, "verdicts": verdicts}


@pytest.fixture(scope="module")
def hinted(tmp_path_factory):
    run = hinted_run()
    out = str(tmp_path_factory.mktemp("hinted"))
    return {"run": run, "out": out, "paths": export_run(out, run, cap=2)}


def _read(paths, name):
    return pq.read_table(paths[name]).to_pylist()


def test_rows_carry_the_mode(hinted):
    paths, run = hinted["paths"], hinted["run"]
    mode_of = {t.trajectory_id: t.hint_mode for t in run["trajectories"]}
    sft = _read(paths, "sft")
    assert sorted((r["task_id"][-4:], r["hint_mode"]) for r in sft) == sorted(
        [("t000", "none")] * 2 + [("t001", "guided")] * 2 + [("t000", "plan")] + [("t001", "example")] * 2)
    for name in ("sft", "steps", "trajectories_failed"):
        rows = _read(paths, name)
        assert rows and all(r["hint_mode"] == mode_of[r["trajectory_id"]] for r in rows), name
    assert {r["hint_mode"] for r in _read(paths, "trajectories_failed")} == {"none", "guided", "plan"}
    dpo = _read(paths, "dpo")
    assert dpo and all(r["chosen_hint_mode"] == mode_of[r["chosen_trajectory_id"]]
                       and r["rejected_hint_mode"] == mode_of[r["rejected_trajectory_id"]] for r in dpo)
    # helped tasks pair a helped chosen side with unhelped (and helped) failures: the prompts are equal,
    # since the help was never in the messages
    assert {(r["chosen_hint_mode"], r["rejected_hint_mode"]) for r in dpo} >= {("guided", "none"), ("guided", "guided")}
    # the exported system prompt of a helped rollout is the ordinary one
    for r in sft:
        src = next(t for t in run["trajectories"] if t.trajectory_id == r["trajectory_id"])
        assert r["messages"][0]["content"] == src.messages[0]["content"]


def test_groups_keep_unhelped_pass_at_k(hinted):
    groups = {g["task_id"]: g for g in _read(hinted["paths"], "groups")}
    tasks = hinted["run"]["tasks"]
    assert len(groups) == 4  # still one row per task
    g0 = groups[tasks[0].task_id]  # no help: exactly the old meaning
    assert (g0["k"], g0["passes"], g0["kept"], g0["exported"], g0["hint_mode"], g0["k_helped"],
            g0["pass_rate_helped"]) == (3, 2, 2, 2, "none", 0, None)
    assert g0["pass_at_1"] == pytest.approx(2 / 3) and g0["pass_at_k"] == 1.0 and g0["zero_variance"] is False
    for n in (1, 2, 3):
        mode, passes, hk = PLAN[n]
        g = groups[tasks[n].task_id]
        # unhelped: 0 of 3 -> pass@k 0, zero variance, nothing kept; the helped passes do not count
        assert (g["k"], g["passes"], g["pass_rate"], g["pass_at_1"], g["pass_at_k"], g["zero_variance"],
                g["kept"], g["exported"]) == (3, 0, 0.0, 0.0, 0.0, True, 0, 0), mode
        assert g["reward_mean"] == pytest.approx(0.0)  # unhelped verdicts only
        assert (g["hint_mode"], g["k_helped"], g["passes_helped"], g["kept_helped"], g["exported_helped"]) == \
               (mode, hk, passes, min(passes, 2), min(passes, 2))
        assert g["pass_rate_helped"] == pytest.approx(passes / hk)
    # browse's learnable-band query keeps meaning "learnable without help"
    con = duckdb.connect()
    n = con.execute(f"SELECT count(*) FROM '{hinted['paths']['groups']}' WHERE NOT zero_variance").fetchone()[0]
    assert n == 1


def test_always_helped_group_has_no_unhelped_numbers():
    from pipeline.export.rows import group_row

    g = {"task_id": "t", "blueprint_id": "b", "k": 4, "passes": 3, "pass_rate": 0.75, "kept": 2}
    row = group_row(g, 0, "train", [], None, {"mode": "guided", "k": 4, "passes": 3, "kept": 2, "exported": 2})
    assert (row["k"], row["passes"], row["pass_rate"], row["pass_at_k"], row["zero_variance"], row["kept"]) == \
           (0, 0, None, None, None, 0)
    assert (row["hint_mode"], row["k_helped"], row["passes_helped"], row["pass_rate_helped"]) == ("guided", 4, 3, 0.75)
    with pytest.raises(ValueError, match="do not fit"):
        group_row(g, 0, "train", [], None, {"mode": "plan", "k": 5, "passes": 0})


def test_manifest_card_and_stats_count_by_mode(hinted, capsys):
    from rich.console import Console

    from pipeline.stats import print_summary

    manifest = json.load(open(hinted["paths"]["manifest"]))
    files = manifest["files"]
    assert files["sft"]["rows_by_hint_mode"] == {"none": 2, "plan": 1, "example": 2, "guided": 2}
    assert sum(files["dpo"]["rows_by_hint_mode"].values()) == files["dpo"]["rows"]
    assert sum(files["dpo"]["rejected_by_hint_mode"].values()) == files["dpo"]["rows"]
    assert sum(files["trajectories_failed"]["rows_by_hint_mode"].values()) == files["trajectories_failed"]["rows"]
    assert "rows_by_hint_mode" not in files["rl"]

    card = open(hinted["paths"]["card"], encoding="utf-8").read()
    assert "## Helped rollouts" in card
    assert "sft rows: 7 (none 2, plan 1, example 2, guided 2); 5 from helped rollouts" in card
    assert "STaR" in card and "never in the data" in card and "grounded" in card
    assert "unhelped rollouts only" in card

    rows = {r["dataset"]: r for r in print_summary(hinted["out"], Console(width=250))}
    out = capsys.readouterr().out
    assert rows["sft"]["hint_mode"] == "none 2, plan 1, example 2, guided 2"
    assert rows["dpo"]["hint_mode"].startswith("chosen: ")
    assert "guided" in rows["groups"]["hint_mode"] and rows["rl"]["hint_mode"] is None
    assert "hint_mode" in out and "guided 2" in out


def test_hint_summary_line():
    from pipeline.card import hint_mode_line

    assert hint_mode_line("sft rows", {"none": 3, "guided": 9}) == \
        "sft rows: 12 (none 3, guided 9); 9 from helped rollouts"
    assert hint_mode_line("sft rows", {"none": 3}) == "sft rows: 3 (none 3); 0 from helped rollouts"
    assert hint_mode_line("sft rows", {}) == "sft rows: 0; 0 from helped rollouts"


def test_run_counts_by_mode(tmp_path):
    """The select and export stages (through the stage runner, from hand-placed work files) put
    per-mode counts into the manifest's stage counts (printed by `trajpipe run`)."""
    from pipeline.config import RunConfig
    from pipeline.ingest import write_jsonl
    from pipeline.runner import Runner
    import pipeline.stages  # noqa: F401

    run = hinted_run()
    work = tmp_path / "work"
    for name in ("trajectories", "verdicts", "tasks", "task_verdicts", "blueprints"):
        write_jsonl(run[name], work / f"{name}.jsonl")
    runner = Runner(RunConfig(work_dir=str(work), export={"out_dir": str(tmp_path / "out")}))
    runner.run("select", run_missing=False)
    manifest = runner.run("export", run_missing=False).runtime["manifest"]
    c = manifest["counts"]
    assert set(c) == {"select"}  # only the stages that ran here report counts
    sel = runner.results["select"].stats
    assert sel["kept_by_hint_mode"] == {"none": 1, "plan": 1, "example": 1, "guided": 1}
    assert c["select"] == sel
    assert manifest["files"]["sft"]["rows_by_hint_mode"] == c["select"]["kept_by_hint_mode"]
    from pipeline.stages import rollout_stage  # noqa: F401  (the library API stays importable)
    out = tmp_path / "out"
    groups = {g["task_id"]: g for g in pq.read_table(os.path.join(out, "groups.parquet")).to_pylist()}
    g0, g1 = groups[run["tasks"][0].task_id], groups[run["tasks"][1].task_id]
    # kept = selected by rejection sampling (before dedupe), exported = rows in sft
    assert (g0["kept"], g0["exported"], g0["kept_helped"], g0["exported_helped"]) == (2, 1, 0, 0)
    assert (g1["kept"], g1["exported"], g1["kept_helped"], g1["exported_helped"]) == (0, 0, 2, 1)
    # the work folder holds select's output under its signature; the hand-placed inputs are untouched
    assert (work / "select" / "latest").is_file() and (work / "trajectories.jsonl").is_file()


def test_run_summary_prints_sft_rows_by_mode(hinted, monkeypatch):
    """`trajpipe run` prints the sft rows per help mode after the stage counts (the flow itself is
    replaced by the manifest of the hinted export, so no model runs)."""
    from types import SimpleNamespace

    from typer.testing import CliRunner

    from pipeline.cli import app

    manifest = json.load(open(hinted["paths"]["manifest"]))
    manifest["counts"] = {"ingest": {"in": 1, "ok": 1}, "verify_trajectory": {"in": 19, "passed": 7}}
    monkeypatch.setitem(sys.modules, "flows.trajpipe_flow", SimpleNamespace(trajpipe_run=lambda config: manifest))
    r = CliRunner().invoke(app, ["run", "--out", hinted["out"], "--backend", "openai", "--base-url",
                                 "http://127.0.0.1:9/v1", "--model", "teacher"])
    assert r.exit_code == 0, r.output
    text = " ".join(r.output.split())  # the console wraps long lines
    assert "sft rows: 7 (none 2, plan 1, example 2, guided 2); 5 from helped rollouts" in text


def test_stats_explains_pass_at_1_when_every_rollout_was_helped(hinted, tmp_path, capsys):
    """A fresh user's quick start (--hints guided) showed ``pass@1 -`` in `trajpipe stats` with
    nothing saying why: with no unhelped rollout the note says so."""
    from rich.console import Console

    from pipeline.stats import print_summary

    run = hinted["run"]
    keep = [i for i, tr in enumerate(run["trajectories"]) if tr.hint_mode != "none"]
    run = {**run, "trajectories": [run["trajectories"][i] for i in keep],
           "verdicts": [run["verdicts"][i] for i in keep]}
    export_run(str(tmp_path), run, cap=2)
    rows = {r["dataset"]: r for r in print_summary(str(tmp_path), Console(width=250))}
    capsys.readouterr()
    assert rows["groups"]["rows"] > 0, rows["groups"]
    assert "unhelped rollouts 0" in rows["groups"]["notes"]
    assert "pass@1 - (no unhelped rollout: every rollout had a hint" in rows["groups"]["notes"], rows["groups"]
