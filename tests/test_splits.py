"""Splits by group, never by row: blueprint, source customer and source period never cross splits."""
from __future__ import annotations

import os
import sys
from collections import defaultdict

import pyarrow.parquet as pq
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from export_helpers import blueprint, export_run, reference_calls, tasks_for, trajectory  # noqa: E402

from pipeline.export.splits import HOLDOUT, split_components  # noqa: E402
from pipeline.records import TaskVerdict  # noqa: E402
from pipeline.stages import source_keys  # noqa: E402


def test_union_find_components_share_one_split():
    # 60 blueprints; customers link bp-i with bp-(i+1) for i % 5 < 2 (chains of 3); periods link i and i+30
    keys = {f"bp-{i:02d}": {"customer": [f"c{i // 5}-{min(i % 5, 2)}"] if i % 5 < 3 else [f"solo-{i}"],
                            "period": [f"2024-{(i % 30) + 1:02d}"] if i < 10 or 30 <= i < 40 else []}
            for i in range(60)}
    comps = split_components(keys, seed=3)
    by_key = defaultdict(set)
    for bp, k in keys.items():
        for kind, values in k.items():
            for v in values:
                by_key[(kind, v)].add(comps[bp]["split"])
    assert all(len(s) == 1 for s in by_key.values())  # a customer / period is wholly in one split
    # blueprints with the same customer key are in the same component
    assert comps["bp-00"]["component"] == comps["bp-30"]["component"]  # linked by period 2024-01
    assert len({c["split"] for c in comps.values()}) >= 2
    assert split_components(keys, seed=3) == comps  # stable


def test_holdout_takes_the_whole_component_and_unknown_ids_fail():
    keys = {"a": {"customer": ["x"]}, "b": {"customer": ["x"]}, "c": {"customer": ["y"]}}
    comps = split_components(keys, holdout_blueprints=["a"])
    assert comps["a"]["split"] == comps["b"]["split"] == HOLDOUT and comps["c"]["split"] != HOLDOUT
    with pytest.raises(ValueError, match="unknown blueprint"):
        split_components(keys, holdout_blueprints=["nope"])


def test_source_keys_from_log_metadata():
    from pipeline.records import LogRecord

    bp = blueprint("bp-x", "cancel_reservation", source_logs=["l1", "l2"])
    recs = [LogRecord(id="l1", messages=[], metadata={"user_id": "u1", "timestamp": "2024-05-03T10:00:00Z"}),
            LogRecord(id="l2", messages=[], metadata={"customer_id": "u2"})]
    assert source_keys([bp], recs) == {"bp-x": {"customer": ["u1", "u2"], "period": ["2024-05"]}}


def test_exported_datasets_never_cross_splits(tmp_path):
    # 8 blueprints over two kinds; source customers chain some of them together
    bps, tasks, tv, trajs, verdicts = [], [], [], [], []
    from export_helpers import DOMAIN
    from pipeline.verify import verify_trajectory

    kinds = ["cancel_reservation", "send_certificate"]
    for i in range(8):
        bp = blueprint(f"bp-{i}", kinds[i % 2], source_logs=[f"log-{i}"])
        bps.append(bp)
        for t in tasks_for(bp, 2, seed=i):
            tasks.append(t)
            tv.append(TaskVerdict(task_id=t.task_id, passed=True, reason_codes=[]))
            tr = trajectory(t, 0, reference_calls(t))
            trajs.append(tr)
            verdicts.append(verify_trajectory(tr, t, DOMAIN))
    skeys = {f"bp-{i}": {"customer": [f"cust-{i // 3}"], "period": []} for i in range(8)}  # {0,1,2} {3,4,5} {6,7}
    run = {"blueprints": bps, "tasks": tasks, "task_verdicts": tv, "trajectories": trajs, "verdicts": verdicts}
    paths = export_run(str(tmp_path), run, source_keys=skeys, holdout_blueprints=["bp-7"], card=False)
    seen_bp, seen_cust = defaultdict(set), defaultdict(set)
    for name in ("sft", "rl", "groups", "tasks", "blueprints", "steps", "dpo", "trajectories_failed"):
        for r in pq.read_table(paths[name], columns=["blueprint_id", "split"]).to_pylist():
            seen_bp[r["blueprint_id"]].add(r["split"])
            seen_cust[skeys[r["blueprint_id"]]["customer"][0]].add(r["split"])
    assert len(seen_bp) == 8 and all(len(s) == 1 for s in seen_bp.values())
    assert all(len(s) == 1 for s in seen_cust.values())
    assert seen_bp["bp-6"] == seen_bp["bp-7"] == {HOLDOUT}  # bp-6 shares customer cust-2 with bp-7
    assert HOLDOUT not in seen_bp["bp-0"]


def test_split_by_chooses_which_keys_join_groups():
    """--split-by: with 'customer,period' two blueprints sharing a customer form one group; with
    'blueprint' each blueprint is its own group; an unknown key is a clear error."""
    import pytest

    from pipeline.export.splits import split_components
    from pipeline.stages import split_keys

    keys = {f"bp-{i}": {"customer": ["shared_customer"], "period": [f"2024-0{i % 9 + 1}"]} for i in range(40)}
    joined = split_components(split_keys(keys, "customer,period"))
    assert len({v["component"] for v in joined.values()}) == 1
    alone = split_components(split_keys(keys, "blueprint"))
    assert len({v["component"] for v in alone.values()}) == 40
    assert len({v["split"] for v in alone.values()}) > 1  # 40 groups spread over the splits
    by_period = split_components(split_keys(keys, "period"))
    for a in keys:
        for b in keys:
            if keys[a]["period"] == keys[b]["period"]:
                assert by_period[a]["split"] == by_period[b]["split"]
    with pytest.raises(ValueError, match="unknown group keys"):
        split_keys(keys, "customer,galaxy")


@pytest.mark.parametrize("seed", range(12))
def test_few_blueprints_still_fill_every_split(seed):
    """Hashing alone put all 3 blueprints of a small run in train (nothing to validate on); with at
    least as many components as splits, each split with a nonzero fraction gets one, the rest keep
    their hash split, and a large export is left exactly as the hash puts it."""
    from pipeline.export.splits import assign_split, fill_empty_splits

    keys = {f"bp-{i}": {} for i in range(3)}
    comps = split_components(keys, seed=seed)
    assert sorted(c["split"] for c in comps.values()) == ["test", "train", "validation"]
    # two components cannot fill three splits: plain hash
    two = split_components({"a": {}, "b": {}}, seed=seed)
    assert {bp: c["split"] for bp, c in two.items()} == {bp: assign_split(bp, seed) for bp in ("a", "b")}
    # fractions with a zero share never receive one; holdout components are never moved
    no_test = split_components(keys, seed=seed, fractions=(0.9, 0.1, 0.0))
    assert "test" not in {c["split"] for c in no_test.values()}
    assert {"train", "validation"} <= {c["split"] for c in no_test.values()}
    held = split_components({**keys, "h": {}}, seed=seed, holdout_blueprints=["h"])
    assert held["h"]["split"] == HOLDOUT
    assert sorted(held[b]["split"] for b in keys) == ["test", "train", "validation"]
    # 200 components: every split is filled by the hash already, nothing moves
    big = {f"k{i}": assign_split(f"k{i}", seed) for i in range(200)}
    assert fill_empty_splits(dict(big), seed) == []
    # a move takes from the fullest split and keeps the others' hash split
    chosen = {f"x{i}": "train" for i in range(5)}
    moved = fill_empty_splits(chosen, seed)
    assert len(moved) == 2 and sorted(chosen[m] for m in moved) == ["test", "validation"]
    assert sum(s == "train" for s in chosen.values()) == 3
