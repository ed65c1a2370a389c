"""Export round trip: Parquet written with explicit schemas, read back by pyarrow and DuckDB."""
from __future__ import annotations

import json
import os
from collections import defaultdict

import pyarrow.parquet as pq
import pytest

from pipeline.browse import EXAMPLE_QUERIES, open_views, summary
from pipeline.dedupe import dedupe
from pipeline.export import SCHEMAS, assign_split, export_all, sha256_file
from pipeline.export.schemas import rl_schema
from pipeline.records import (
    Blueprint,
    PolicyRule,
    QuarantineRecord,
    TaskHidden,
    TaskPackage,
    TaskVerdict,
    TaskVisible,
    ToolCall,
    Trajectory,
    Verdict,
)
from pipeline.select import select

TOOLS = [{"type": "function", "function": {
    "name": "cancel_reservation", "description": "Cancel a reservation.",
    "parameters": {"type": "object", "properties": {"reservation_id": {"type": "string"}},
                   "required": ["reservation_id"]}}}]
POLICY = "You are an airline agent. Cancel only within 24 hours of booking."


def blueprint(bp_id: str) -> Blueprint:
    return Blueprint(
        blueprint_id=bp_id, domain="airline", intent="cancel_reservation",
        action_signature=["cancel_reservation(reservation_id:str)"],
        required_tools=["cancel_reservation"], read_tools=["get_reservation_details"],
        initial_state_requirements={"reservation": {"age_hours": "<24"}},
        business_constraints=[PolicyRule(rule_id="R1", text="Cancel within 24 hours.")],
        success_condition="reservation cancelled", failure_modes=[{"mode": "late"}],
        source_log_ids=["log-1", "log-2"], n_logs=2, n_success=1, example_intents=["cancel my trip"],
    )


def task(task_id: str, bp_id: str, res: str) -> TaskPackage:
    return TaskPackage(
        task_id=task_id, blueprint_id=bp_id, domain="airline", seed=7,
        visible=TaskVisible(instruction=f"Hi, I'm ava_kim_1 and I want to cancel {res}.",
                            policy=POLICY, tools=TOOLS, user_messages=["Yes, please go ahead."]),
        hidden=TaskHidden(
            initial_state={"reservations": {res: {"status": "active"}}},
            reference_solution=[ToolCall(name="cancel_reservation", arguments={"reservation_id": res})],
            expected_state_hash=f"deadbeefcafe{task_id}",
            verifier={"type": "state_hash", "assertions": [f"reservations.{res}.status == cancelled"]},
            generation_notes={"rule": "R1"},
        ),
    )


def episode(res: str, variant: int):
    cid = f"call_{variant}"
    return [
        {"role": "system", "content": POLICY},
        {"role": "user", "content": f"Hi, I'm ava_kim_1 and I want to cancel {res}. " + "variant " * variant},
        {"role": "assistant", "content": None, "tool_calls": [{"id": cid, "type": "function", "function": {
            "name": "cancel_reservation", "arguments": json.dumps({"reservation_id": res})}}]},
        {"role": "tool", "tool_call_id": cid, "name": "cancel_reservation", "content": '{"status": "cancelled"}'},
        {"role": "assistant", "content": f"Your reservation {res} is cancelled."},
        {"role": "user", "content": "Thanks!"},
    ]


def trajectory(tid: str, t: TaskPackage, idx: int, res: str, variant: int) -> Trajectory:
    return Trajectory(
        trajectory_id=tid, task_id=t.task_id, blueprint_id=t.blueprint_id, sample_index=idx,
        model="teacher-135m", backend="fake", messages=episode(res, variant), tools=TOOLS,
        tool_calls=[{"step": 1, "name": "cancel_reservation", "arguments": {"reservation_id": res},
                     "valid_json": True, "error": None}],
        final_state_hash="h", finish_reason="agent_stop", n_turns=2, prompt_tokens=50,
        completion_tokens=20 + idx, seed=idx, sampling={"temperature": 0.7},
    )


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A small run through select -> dedupe -> export."""
    tasks = [task("t1", "bp-a", "RES001"), task("t2", "bp-b", "RES002"), task("t3", "bp-b", "RES003")]
    tverdicts = [TaskVerdict(task_id="t1", passed=True, reason_codes=[]),
                 TaskVerdict(task_id="t2", passed=True, reason_codes=[]),
                 TaskVerdict(task_id="t3", passed=False, reason_codes=["TASK_UNSOLVABLE", "TASK_X"])]
    trajs = [trajectory("t1-0", tasks[0], 0, "RES001", 0), trajectory("t1-1", tasks[0], 1, "RES001", 0),
             trajectory("t1-2", tasks[0], 2, "RES001", 1), trajectory("t1-3", tasks[0], 3, "RES001", 2),
             trajectory("t2-0", tasks[1], 0, "RES002", 0), trajectory("t2-1", tasks[1], 1, "RES002", 3)]
    verdicts = [Verdict(trajectory_id=t.trajectory_id, task_id=t.task_id,
                        passed=t.trajectory_id != "t2-1", reward=0.0 if t.trajectory_id == "t2-1" else 1.0,
                        reason_codes=[] if t.trajectory_id != "t2-1" else ["VERIFY_STATE_MISMATCH"])
                for t in trajs]
    sel = select(trajs, verdicts, cap=2)
    ded = dedupe(sel.kept)
    quarantine = [QuarantineRecord(stage="ingest", source="logs.jsonl", position=3, record_id=None,
                                   reason_code="INGEST_SCHEMA", error="missing messages", raw="{}")]
    out = str(tmp_path_factory.mktemp("export"))
    paths = export_all(
        out, kept=ded.kept, rejects=sel.rejected + ded.rejected, tasks=tasks, task_verdicts=tverdicts,
        blueprints=[blueprint("bp-a"), blueprint("bp-b")], groups=sel.groups, quarantine=quarantine,
        manifest={"counts": {"rollout": len(trajs)}, "seed": 0}, verdicts=verdicts,
    )
    return {"out": out, "paths": paths, "sel": sel, "ded": ded, "trajs": trajs, "tasks": tasks}


def test_files_schemas_and_manifest(run):
    paths = run["paths"]
    assert set(paths) >= set(SCHEMAS) | {"manifest", "card", "llamafactory", "llamafactory_dataset_info"}
    manifest = json.load(open(paths["manifest"]))
    assert manifest["counts"] == {"rollout": 6} and manifest["seed"] == 0
    for name, schema in SCHEMAS.items():
        pf = pq.ParquetFile(paths[name])
        assert pf.schema_arrow == (rl_schema(["cancel_reservation"]) if name == "rl" else schema), name
        assert pf.metadata.row_group(0).column(0).compression == "ZSTD"
        assert manifest["files"][name]["rows"] == pf.metadata.num_rows
        assert manifest["files"][name]["sha256"] == sha256_file(paths[name])
    rows = {n: manifest["files"][n]["rows"] for n in SCHEMAS}
    # t1: 4 passes -> 2 kept (cap) -> identical text -> 1 after dedupe; t2: 1 pass, 1 failure
    # dpo: t2's failed rollout has another opening message than its verified one -> no pair;
    # steps: 6 rollouts x 2 agent turns; trajectories_failed: t2-1
    assert rows == {"sft": 2, "rl": 2, "rejects": 4 + 1, "tasks": 3, "blueprints": 2,
                    "groups": 2, "quarantine": 1, "dpo": 0, "steps": 12, "trajectories_failed": 1}
    assert manifest["export"]["dpo_pairs_skipped"] == 1
    # no help in this run: every rollout row says so, and groups keep their old meaning
    assert manifest["files"]["sft"]["rows_by_hint_mode"] == {"none": 2}
    assert manifest["files"]["steps"]["rows_by_hint_mode"] == {"none": 12}
    assert manifest["files"]["dpo"]["rows_by_hint_mode"] == {} == manifest["files"]["dpo"]["rejected_by_hint_mode"]
    for name in ("sft", "steps", "trajectories_failed"):
        assert {r["hint_mode"] for r in pq.read_table(paths[name], columns=["hint_mode"]).to_pylist()} == {"none"}
    groups = {g["task_id"]: g for g in pq.read_table(paths["groups"]).to_pylist()}
    assert [(g["k"], g["passes"], g["pass_rate"], g["kept"], g["exported"]) for g in groups.values()] == \
           [(4, 4, 1.0, 2, 1), (2, 1, 0.5, 1, 1)]
    assert all((g["hint_mode"], g["k_helped"], g["passes_helped"], g["pass_rate_helped"], g["kept_helped"],
                g["exported_helped"]) == ("none", 0, 0, None, 0, 0) for g in groups.values())
    # every rollout is either in sft or a trajectory reject
    rejects = pq.read_table(paths["rejects"]).to_pylist()
    assert rows["sft"] + sum(r["kind"] == "trajectory" for r in rejects) == len(run["trajs"])


def test_sft_nested_messages_round_trip_and_loss_mask(run):
    rows = pq.read_table(run["paths"]["sft"]).to_pylist()
    by_id = {t.trajectory_id: t for t in run["ded"].kept}
    assert {r["trajectory_id"] for r in rows} == set(by_id)
    for row in rows:
        src = by_id[row["trajectory_id"]]
        assert len(row["messages"]) == len(src.messages) == len(row["loss_mask"])
        for m, orig, mask in zip(row["messages"], src.messages, row["loss_mask"]):
            assert mask is (m["role"] == "assistant")
            # the nested struct holds exactly the source message (absent keys are null)
            assert {k: v for k, v in m.items() if v is not None} == \
                   {k: v for k, v in orig.items() if v is not None}
        call = row["messages"][2]["tool_calls"][0]
        assert call["function"]["name"] == "cancel_reservation"
        assert json.loads(call["function"]["arguments"])["reservation_id"].startswith("RES")
        assert json.loads(row["tools"]) == TOOLS
        assert row["reward"] == 1.0 and row["model"] == "teacher-135m"
        assert row["split"] == assign_split(row["blueprint_id"])


def test_rl_rows_keep_hidden_out_of_prompt(run):
    rows = pq.read_table(run["paths"]["rl"]).to_pylist()
    assert sorted(r["task_id"] for r in rows) == ["t1", "t2"]  # t3 failed task verification
    tasks = {t.task_id: t for t in run["tasks"]}
    for r in rows:
        t = tasks[r["task_id"]]
        assert [m["role"] for m in r["prompt"]] == ["system", "user"]
        assert r["prompt"][1]["content"] == t.visible.instruction
        assert r["data_source"] == "trajpipe/airline" and r["agent_name"] == "tool_agent"
        assert r["reward_model"]["style"] == "rule"
        gt = json.loads(r["reward_model"]["ground_truth"])
        assert gt["expected_state_hash"] == t.hidden.expected_state_hash
        assert gt["verifier"] == t.hidden.verifier
        assert gt["initial_state"] == t.hidden.initial_state
        assert "reference_solution" not in gt and "generation_notes" not in gt
        assert gt["reference_calls"] == len(t.hidden.reference_solution)
        assert r["extra_info"]["interaction_kwargs"]["user_messages"] == t.visible.user_messages
        visible = json.dumps([r["prompt"], r["tools"], r["extra_info"]])
        assert t.hidden.expected_state_hash not in visible and "generation_notes" not in visible


def test_rejects_stages_and_codes(run):
    rows = pq.read_table(run["paths"]["rejects"]).to_pylist()
    got = sorted((r["kind"], r["stage"], r["reason_code"]) for r in rows)
    assert got == sorted([
        ("trajectory", "select", "SELECT_OVER_CAP"), ("trajectory", "select", "SELECT_OVER_CAP"),
        ("trajectory", "verify_trajectory", "VERIFY_STATE_MISMATCH"),
        ("trajectory", "dedupe", "DEDUPE_EXACT"), ("task", "verify_task", "TASK_UNSOLVABLE")])
    task_rej = next(r for r in rows if r["kind"] == "task")
    assert task_rej["messages"] is None and "TASK_X" in task_rej["detail"]
    traj_rej = next(r for r in rows if r["kind"] == "trajectory")
    assert json.loads(traj_rej["messages"])[0]["role"] == "system"


def test_duckdb_views_nested_access_and_example_queries(run):
    out = run["out"]
    assert dict(summary(out)) == {"blueprints": 2, "groups": 2, "quarantine": 1, "rejects": 5,
                                  "rl": 2, "sft": 2, "tasks": 3, "dpo": 0, "steps": 12,
                                  "trajectories_failed": 1}
    con = open_views(out)
    for name in SCHEMAS:
        con.execute(f"SELECT * FROM {name}").fetchall()
    first = con.execute("SELECT min(trajectory_id) FROM sft").fetchone()[0]
    roles = [r[0] for r in con.execute(
        "SELECT unnest(messages).role FROM sft WHERE trajectory_id = ?", [first]).fetchall()]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "user"]
    name = con.execute('SELECT messages[3].tool_calls[1]."function".name FROM sft LIMIT 1').fetchone()[0]
    assert name == "cancel_reservation"
    # unnest of two lists in one SELECT zips them: message i with loss_mask[i]
    pairs = con.execute("SELECT unnest(messages).role AS role, unnest(loss_mask) AS mask FROM sft").fetchall()
    assert len(pairs) == 12 and all((role == "assistant") is mask for role, mask in pairs)
    tasks = con.execute("SELECT task_id, task_verified, json_extract_string(hidden, '$.generation_notes.rule') "
                        "FROM tasks ORDER BY task_id").fetchall()
    assert tasks == [("t1", True, "R1"), ("t2", True, "R1"), ("t3", False, "R1")]
    results = {n: con.execute(q).fetchall() for n, q in EXAMPLE_QUERIES.items()}
    assert ("trajectory", "select", "SELECT_OVER_CAP", 2) in results["reject_reasons"]
    pr = {r[0]: r for r in results["pass_rate_per_blueprint"]}
    assert pr["bp-a"][1:5] == (1, 4, 4, 1.0) and pr["bp-b"][1:5] == (1, 2, 1, 0.5)
    assert dict(results["tool_call_counts"]) == {"cancel_reservation": 2}


def test_empty_inputs_write_valid_files(tmp_path):
    paths = export_all(str(tmp_path), kept=[], rejects=[], tasks=[], task_verdicts=[], blueprints=[],
                       groups=[], quarantine=[], manifest={})
    for name, schema in SCHEMAS.items():
        table = pq.read_table(paths[name])
        assert table.num_rows == 0 and table.schema == schema
    assert dict(summary(str(tmp_path))) == {n: 0 for n in SCHEMAS}
    con = open_views(str(tmp_path))
    for q in EXAMPLE_QUERIES.values():
        con.execute(q).fetchall()
    assert json.load(open(paths["manifest"]))["files"]["sft"]["rows"] == 0


def test_export_is_deterministic_and_refuses_hidden_leaks(run, tmp_path):
    t = run["tasks"][0]
    kept = [k for k in run["ded"].kept if k.task_id == "t1"]
    common = dict(rejects=[], tasks=[t], task_verdicts=[], blueprints=[], groups=[], quarantine=[],
                  manifest={})
    a = export_all(str(tmp_path / "a"), kept=kept, **common)
    b = export_all(str(tmp_path / "b"), kept=kept, **common)
    assert all(sha256_file(a[n]) == sha256_file(b[n]) for n in SCHEMAS)
    leaky = kept[0].model_copy(deep=True)
    leaky.messages[4]["content"] += f" (state {t.hidden.expected_state_hash})"
    with pytest.raises(ValueError, match="leaks"):
        export_all(str(tmp_path / "c"), kept=[leaky], **common)


def test_split_assignment_groups_never_cross(tmp_path):
    keys = [f"bp-{i}" for i in range(3000)]
    splits = [assign_split(k) for k in keys]
    assert splits == [assign_split(k) for k in keys]  # stable
    share = {s: splits.count(s) / len(keys) for s in ("train", "validation", "test")}
    assert abs(share["train"] - 0.8) < 0.03 and abs(share["test"] - 0.1) < 0.03
    assert [assign_split(k, seed=1) for k in keys] != splits  # the seed matters
    assert {assign_split(k, fractions=(1.0, 0.0, 0.0)) for k in keys[:200]} == {"train"}
    with pytest.raises(ValueError):
        assign_split("x", fractions=(0.5, 0.5, 0.5))

    # many tasks over a few blueprints: every blueprint's rows share one split in every file
    tasks, kept, tv = [], [], []
    for i in range(40):
        bp = f"bp-{i % 9}"
        t = task(f"t{i}", bp, f"RES{i:03d}")
        tasks.append(t)
        tv.append(TaskVerdict(task_id=t.task_id, passed=True, reason_codes=[]))
        kept.append(trajectory(f"tr{i}", t, 0, f"RES{i:03d}", i))
    groups = [{"task_id": t.task_id, "blueprint_id": t.blueprint_id, "k": 1, "passes": 1,
               "pass_rate": 1.0, "kept": 1} for t in tasks]
    paths = export_all(str(tmp_path), kept=kept, rejects=[], tasks=tasks, task_verdicts=tv,
                       blueprints=[], groups=groups, quarantine=[], manifest={})
    seen = defaultdict(set)
    for name in ("sft", "rl", "groups"):
        for r in pq.read_table(paths[name], columns=["blueprint_id", "split"]).to_pylist():
            seen[r["blueprint_id"]].add(r["split"])
    assert len(seen) == 9 and all(len(s) == 1 for s in seen.values())
    assert len({s for v in seen.values() for s in v}) >= 2  # not everything in one split


def test_export_writes_whole_files_and_the_manifest_last(run, tmp_path, monkeypatch):
    """Issue 16, 'nothing half-written': a failure injected mid-export leaves no partial file under a
    final name, no temporary file, and no manifest; a later export into the folder completes."""
    import pipeline.export.writer as W
    from pipeline.fileio import is_tmp_name

    t = run["tasks"][0]
    kept = [k for k in run["ded"].kept if k.task_id == "t1"]
    common = dict(kept=kept, rejects=[], tasks=[t], task_verdicts=[], blueprints=[], groups=[], quarantine=[],
                  manifest={"seed": 0})
    good = export_all(str(tmp_path / "good"), **common)
    real = W.pq.write_table
    calls = {"n": 0}

    def dies_on_the_third_file(table, where, **kw):
        calls["n"] += 1
        if calls["n"] == 3:
            with open(where, "wb") as fh:  # half a file under the temporary name, then the crash
                fh.write(b"PAR1 partial")
            raise OSError("disk full (injected)")
        return real(table, where, **kw)

    out = tmp_path / "out"
    export_all(str(out), **common)  # a complete earlier export in the same folder
    monkeypatch.setattr(W.pq, "write_table", dies_on_the_third_file)
    with pytest.raises(OSError, match="injected"):
        export_all(str(out), **common)
    names = [p.name for p in out.rglob("*")]
    assert not [n for n in names if is_tmp_name(n) or ".tmp" in n]  # the temporary file is removed
    assert not (out / "manifest.json").exists()  # no manifest: not a complete export
    for p in out.glob("*.parquet"):  # every file under a final name is whole (old or new, never half)
        assert pq.read_table(p).num_rows >= 0
    monkeypatch.setattr(W.pq, "write_table", real)

    def card_fails(*a, **kw):
        raise RuntimeError("card failed (injected)")

    monkeypatch.setattr("pipeline.card.write_card", card_fails)
    with pytest.raises(RuntimeError, match="card failed"):
        export_all(str(out), **common)
    assert not (out / "manifest.json").exists()  # the card comes before the manifest
    monkeypatch.undo()
    again = export_all(str(out), **common)
    assert all(sha256_file(again[n]) == sha256_file(good[n]) for n in SCHEMAS)
    assert json.load(open(again["manifest"]))["files"]["sft"]["sha256"] == sha256_file(again["sft"])
