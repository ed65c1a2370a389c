"""The export folder is a Hugging Face dataset: `datasets.load_dataset(OUT, config)` loads every
declared config with its real splits, on a normal run, a run whose sft has no rows and a run with
no rows at all (real exports of real generated airline tasks, verified by the real verifier)."""
from __future__ import annotations

import collections
import json
import os
import sys

import pyarrow.parquet as pq
import pytest
import yaml

sys.path.insert(0, os.path.dirname(__file__))
from export_helpers import build_run, export_run  # noqa: E402

datasets = pytest.importorskip("datasets", reason="`datasets` not installed: pip install -e '.[train]'")

KINDS = ("cancel_reservation", "send_certificate", "update_reservation_baggages")
# split_seed 2 puts the two non-held-out blueprints in train and validation (checked below)
SPLIT_KW = {"fractions": (0.5, 0.5, 0.0), "split_seed": 2, "holdout_blueprints": ["bp-send_certificate"]}


def _configs(out: str) -> dict[str, dict]:
    text = open(os.path.join(out, "README.md"), encoding="utf-8").read()
    header = yaml.safe_load(text.split("---\n")[1])
    return {c["config_name"]: c for c in header["configs"]}


def _split_counts(path: str) -> dict[str, int]:
    rows = pq.read_table(path).to_pylist()
    if rows and "split" not in rows[0]:
        return {"full": len(rows)}
    return dict(collections.Counter(r["split"] for r in rows))


def _load(out, name=None, tmp=None):
    return datasets.load_dataset(out, name, cache_dir=str(tmp)) if name else datasets.load_dataset(out, cache_dir=str(tmp))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    normal = str(tmp_path_factory.mktemp("hf_normal"))
    paths = export_run(normal, build_run(kinds=KINDS, tasks_per_bp=1, k=2), **SPLIT_KW)
    # k=1: the only rollout of each task is the read-only mutation, which fails -> sft has no rows
    no_sft = str(tmp_path_factory.mktemp("hf_no_sft"))
    no_sft_paths = export_run(no_sft, build_run(kinds=KINDS[:2], tasks_per_bp=1, k=1))
    return {"normal": (normal, paths), "no_sft": (no_sft, no_sft_paths), "cache": tmp_path_factory.mktemp("hf_cache")}


def test_every_config_loads_with_the_real_splits(runs):
    out, paths = runs["normal"]
    cache = runs["cache"]
    configs = _configs(out)
    sft_splits = _split_counts(paths["sft"])
    assert {"train", "validation", "holdout"} <= set(sft_splits)  # the fixture really has several splits
    assert configs["sft"].get("default") is True
    for name in ("sft", "rl", "rejects", "tasks", "blueprints", "groups", "dpo", "steps", "trajectories_failed"):
        expected = _split_counts(paths[name])
        if not expected:  # no rows: not declared
            assert name not in configs
            continue
        assert [d["split"] for d in configs[name]["data_files"]] == [
            s for s in ("train", "validation", "test", "holdout", "full") if s in expected]
        loaded = _load(out, name, cache)
        assert {s: len(d) for s, d in loaded.items()} == expected, name
        for s, d in loaded.items():  # each split holds exactly the rows whose `split` column says so
            if s != "full":
                assert set(d["split"]) == {s}
    # the request from issue 14, literally
    val = _load(out, "sft", cache)["validation"]
    assert len(val) == sft_splits["validation"] and set(val["split"]) == {"validation"}
    # the default config is sft
    default = _load(out, None, cache)
    assert {s: len(d) for s, d in default.items()} == sft_splits
    # the index config lists every file and split
    index = _load(out, "index", cache)["full"].to_list()
    assert {(r["config"], r["split"]): r["rows"] for r in index if r["config"] == "sft"} == {
        ("sft", s): n for s, n in sft_splits.items()}


def test_split_files_in_manifest_and_no_stale_files(runs, tmp_path):
    out, paths = runs["normal"]
    manifest = json.load(open(paths["manifest"], encoding="utf-8"))
    from pipeline.export import sha256_file

    for name, entry in manifest["files"].items():
        for split, f in (entry.get("splits") or {}).items():
            assert sha256_file(os.path.join(out, f["file"])) == f["sha256"]
            assert f["rows"] == _split_counts(os.path.join(out, f["file"]))[split]
    assert sum(f["rows"] for f in manifest["files"]["sft"]["splits"].values()) == manifest["files"]["sft"]["rows"]
    # exporting a run without sft rows into a folder that had them leaves no old split file behind
    again = str(tmp_path / "again")
    export_run(again, build_run(kinds=KINDS[:1], tasks_per_bp=1, k=2), card=False)
    assert os.listdir(os.path.join(again, "splits", "sft"))
    export_run(again, build_run(kinds=KINDS[:1], tasks_per_bp=1, k=1))
    assert not os.listdir(os.path.join(again, "splits", "sft"))
    assert "sft" not in _configs(again)


def test_run_without_sft_rows_loads(runs):
    out, paths = runs["no_sft"]
    cache = runs["cache"]
    assert pq.read_metadata(paths["sft"]).num_rows == 0 and pq.read_metadata(paths["rl"]).num_rows > 0
    configs = _configs(out)
    assert "sft" not in configs and configs["index"].get("default") is True
    # load_dataset(OUT) works (was: ArrowInvalid: BatchSize must be greater than 0) and says sft is empty
    default = _load(out, None, cache)
    rows = {(r["config"], r["split"]): r["rows"] for r in default["full"]}
    assert rows[("sft", None)] == 0 and rows[("rl", "train")] == pq.read_metadata(paths["rl"]).num_rows
    for name in configs:
        loaded = _load(out, name, cache)
        assert sum(len(d) for d in loaded.values()) > 0
    assert "No rows in: `sft`" in open(paths["card"], encoding="utf-8").read()
    # trajpipe's loader gives the empty config as empty splits with the file's features
    from pipeline.export.hf import load_export

    sft = load_export(out, "sft")
    assert list(sft) == ["train", "validation", "test"] and all(len(d) == 0 for d in sft.values())
    assert "messages" in sft["train"].features and "tool_calls" in str(sft["train"].features["messages"])
    assert len(load_export(out, "rl", "train")) == pq.read_metadata(paths["rl"]).num_rows
    assert len(load_export(out, "rl", "holdout")) == 0


def test_run_without_any_rows_loads(tmp_path):
    from pipeline.export import export_all

    out = str(tmp_path / "empty")
    export_all(out, kept=[], rejects=[], tasks=[], task_verdicts=[], blueprints=[], groups=[], quarantine=[],
               manifest={"seed": 0})
    assert list(_configs(out)) == ["index"]
    index = _load(out, None, tmp_path / "cache")["full"]
    assert len(index) == 10 and set(index["rows"]) == {0} and set(index["split"]) == {None}
