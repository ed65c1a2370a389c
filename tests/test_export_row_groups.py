"""pipeline.export.writer.write_parquet writes in row groups through one ParquetWriter: files up
to ROW_GROUP_ROWS rows are byte-identical to pq.write_table of the whole table (what the export
wrote before), larger ones hold the same schema and rows in several row groups; an iterator is
consumed once; a row that does not fit leaves no file."""
from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pipeline.export.writer as writer
from pipeline.export.columns import storage_schema
from pipeline.export.writer import COMPRESSION, ROW_GROUP_ROWS, write_parquet


def whole_table_bytes(path: str, rows: list[dict], schema: pa.Schema) -> bytes:
    """The file as the export wrote it before row groups: one table, pq.write_table."""
    table = pa.Table.from_pylist(rows, schema=storage_schema(schema)).cast(schema)
    pq.write_table(table, path, compression=COMPRESSION)
    with open(path, "rb") as fh:
        return fh.read()


def small_export(out: str):
    """The small run of tests/test_export.py (select -> dedupe -> export_all)."""
    from pipeline.dedupe import dedupe
    from pipeline.records import QuarantineRecord, TaskVerdict, Verdict
    from pipeline.select import select
    from tests.test_export import blueprint, task, trajectory

    tasks = [task("t1", "bp-a", "RES001"), task("t2", "bp-b", "RES002"), task("t3", "bp-b", "RES003")]
    tverdicts = [TaskVerdict(task_id="t1", passed=True, reason_codes=[]),
                 TaskVerdict(task_id="t2", passed=True, reason_codes=[]),
                 TaskVerdict(task_id="t3", passed=False, reason_codes=["TASK_UNSOLVABLE"])]
    trajs = [trajectory("t1-0", tasks[0], 0, "RES001", 0), trajectory("t1-1", tasks[0], 1, "RES001", 1),
             trajectory("t2-0", tasks[1], 0, "RES002", 0), trajectory("t2-1", tasks[1], 1, "RES002", 3)]
    verdicts = [Verdict(trajectory_id=t.trajectory_id, task_id=t.task_id, passed=t.trajectory_id != "t2-1",
                        reward=0.0 if t.trajectory_id == "t2-1" else 1.0,
                        reason_codes=[] if t.trajectory_id != "t2-1" else ["VERIFY_STATE_MISMATCH"])
                for t in trajs]
    sel = select(trajs, verdicts, cap=2)
    ded = dedupe(sel.kept)
    quarantine = [QuarantineRecord(stage="ingest", source="logs.jsonl", position=3, record_id=None,
                                   reason_code="INGEST_SCHEMA", error="missing messages", raw="{}")]
    return writer.export_all(out, kept=ded.kept, rejects=sel.rejected + ded.rejected, tasks=tasks,
                             task_verdicts=tverdicts, blueprints=[blueprint("bp-a"), blueprint("bp-b")],
                             groups=sel.groups, quarantine=quarantine, manifest={"seed": 0}, verdicts=verdicts,
                             card=False)


def test_every_dataset_of_a_real_export_is_byte_identical_to_the_whole_table_write(tmp_path, monkeypatch):
    seen: list[tuple[str, list[dict], pa.Schema]] = []
    real = writer.write_parquet

    def spy(path, rows, schema, row_group_rows=None):
        rows = list(rows)
        seen.append((path, rows, schema))
        return real(path, rows, schema, row_group_rows)

    monkeypatch.setattr(writer, "write_parquet", spy)
    small_export(str(tmp_path / "out"))
    names = set()
    for path, rows, schema in seen:
        with open(path, "rb") as fh:
            got = fh.read()
        assert got == whole_table_bytes(str(tmp_path / "old.parquet"), rows, schema), path
        names.add(os.path.basename(path))
    assert {"sft.parquet", "rl.parquet", "rejects.parquet", "quarantine.parquet", "dpo.parquet"} <= names


SCHEMA = pa.schema([pa.field("id", pa.string(), nullable=False), pa.field("n", pa.int64()),
                    pa.field("messages", pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())])))])


def rows(n: int) -> list[dict]:
    return [{"id": f"r{i}", "n": i, "messages": [{"role": "user", "content": f"text {i} " * (i % 7)}]}
            for i in range(n)]


@pytest.mark.parametrize("n", [0, 1, 37, 250])
def test_small_files_are_byte_identical(tmp_path, n):
    path = str(tmp_path / "new.parquet")
    assert write_parquet(path, rows(n), SCHEMA, row_group_rows=250) == n
    assert open(path, "rb").read() == whole_table_bytes(str(tmp_path / "old.parquet"), rows(n), SCHEMA)
    assert pq.ParquetFile(path).metadata.num_row_groups == 1  # empty files too: readers expect group 0


def test_large_files_keep_schema_and_rows_in_row_groups(tmp_path):
    path = str(tmp_path / "big.parquet")
    assert write_parquet(path, iter(rows(1001)), SCHEMA, row_group_rows=250) == 1001  # a one-pass iterator
    pf = pq.ParquetFile(path)
    assert pf.metadata.num_row_groups == 5
    assert [pf.metadata.row_group(i).num_rows for i in range(5)] == [250, 250, 250, 250, 1]
    assert pf.schema_arrow == SCHEMA
    assert pq.read_table(path).to_pylist() == rows(1001)
    assert pf.metadata.row_group(0).column(0).compression == "ZSTD"
    assert ROW_GROUP_ROWS >= 1000


def test_a_bad_row_in_a_later_group_leaves_no_file(tmp_path):
    path = str(tmp_path / "bad.parquet")
    bad = rows(600)
    bad[550]["id"] = None  # required column
    with pytest.raises((pa.ArrowInvalid, pa.ArrowTypeError, ValueError)):
        write_parquet(path, bad, SCHEMA, row_group_rows=250)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("bad", [0, -1, True, 2.5])
def test_bad_row_group_size(tmp_path, bad):
    with pytest.raises(ValueError, match="row_group_rows"):
        write_parquet(str(tmp_path / "x.parquet"), rows(3), SCHEMA, row_group_rows=bad)


def test_split_files_are_byte_identical_to_filtering_the_whole_table(tmp_path):
    """splits/<name>/<split>.parquet, now streamed row group by row group, equal what filtering
    the whole table and pq.write_table wrote before (every file of a small export)."""
    from pipeline.export.hf import _split_tables, split_path

    out = str(tmp_path / "out")
    small_export(out)
    checked = 0
    from pipeline.export import SCHEMAS

    for name in SCHEMAS:
        table = pq.read_table(os.path.join(out, f"{name}.parquet"))
        for split, part in _split_tables(table).items():
            old = str(tmp_path / "old.parquet")
            pq.write_table(part, old, compression=COMPRESSION)
            got = open(os.path.join(out, split_path(name, split)), "rb").read()
            assert got == open(old, "rb").read(), (name, split)
            checked += 1
    assert checked >= 8


def test_split_files_of_a_file_with_many_row_groups(tmp_path):
    from pipeline.export.hf import read_layout, split_path, write_split_files

    schema = pa.schema([pa.field("id", pa.string(), nullable=False), pa.field("split", pa.string())])
    splits = ["train", "validation", None, "test", "train", "holdout", "train"]
    data = [{"id": f"r{i}", "split": splits[i % 7] if i < 900 else "train"} for i in range(1003)]
    out = str(tmp_path)
    assert write_parquet(os.path.join(out, "custom.parquet"), data, schema, row_group_rows=100) == 1003
    layout = write_split_files(out, ["custom"])
    want = {}
    for r in data:
        want.setdefault(r["split"] or "unassigned", []).append(r)
    assert list(layout["custom"]) == ["train", "validation", "test", "holdout", "unassigned"]  # SPLIT_ORDER
    for split, rows in want.items():
        path = os.path.join(out, split_path("custom", split))
        assert layout["custom"][split]["rows"] == len(rows)
        assert pq.read_table(path).to_pylist() == rows  # source order kept across row groups
        assert pq.ParquetFile(path).schema_arrow == schema
    assert read_layout(out)["custom"] == {s: len(r) for s, r in want.items()}
    assert not [f for _, _, fs in os.walk(out) for f in fs if ".tmp" in f or f.startswith(".")]
