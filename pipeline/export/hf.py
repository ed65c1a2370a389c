"""The export folder as a Hugging Face dataset: one config per file, one split per ``split`` value.

``datasets.load_dataset(OUT, "sft")["validation"]`` reads what the card's YAML ``configs`` declare
(https://huggingface.co/docs/hub/datasets-manual-configuration): each config lists its
``data_files`` per split, and a split is a set of files, not a filter on a column. So, next to each
``<name>.parquet`` (all rows, the ``split`` column; what DuckDB, ``trajpipe browse`` / ``stats`` /
``view`` and the manifest use), :func:`write_split_files` writes one file per split value:
``splits/<name>/<split>.parquet`` (same schema, the rows of that split; ``full.parquet`` for files
without a ``split`` column: rejects, quarantine).

Empty splits: ``datasets`` cannot load a split with no rows (an empty Parquet file fails with
"ArrowInvalid: BatchSize must be greater than 0", one without row groups with 'Instruction
"train" corresponds to no data!'; huggingface/datasets#8401), and one such split fails the whole
config. So a split file is written only for a split that has rows, and a config is declared only
for a file that has rows. The ``index`` config (``splits/index/full.parquet``: one row per file
and split, with its row count, empty files included) is always declared, and is the default
config when sft has no rows, so ``load_dataset(OUT)`` works on every export and says what is in
it. :func:`load_export` gives every config of an export, empty ones as empty ``Dataset`` objects
with the file's features.
"""
from __future__ import annotations

import contextlib
import os
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .schemas import SCHEMAS
from .splits import HOLDOUT, SPLITS

#: Folder (inside an export) of the per-split files.
SPLITS_DIR = "splits"
#: Split name of a file that has no ``split`` column (rejects, quarantine) and of the index
#: (``all`` is reserved by ``datasets`` for the union of splits, and ``train`` would mislabel them).
ALL = "full"
#: Split name of rows whose ``split`` is null (e.g. a group without a blueprint).
UNASSIGNED = "unassigned"
#: The always-present config: one row per (file, split).
INDEX = "index"
INDEX_SCHEMA = pa.schema([
    pa.field("config", pa.string(), nullable=False),  # file stem (sft, rl, ...)
    pa.field("split", pa.string()),  # null for a file with no rows
    pa.field("rows", pa.int64(), nullable=False),
    pa.field("path", pa.string()),  # the split file, relative to the export folder; null when not written
])
#: Order of splits in the card and the index; other split values follow alphabetically.
SPLIT_ORDER = (*SPLITS, HOLDOUT, UNASSIGNED, ALL)


def _order(split: str) -> tuple[int, str]:
    return (SPLIT_ORDER.index(split) if split in SPLIT_ORDER else len(SPLIT_ORDER), split)


def split_path(name: str, split: str) -> str:
    """``splits/<name>/<split>.parquet``: the file of one split, relative to the export folder."""
    return f"{SPLITS_DIR}/{name}/{split}.parquet"


def _split_tables(table: pa.Table) -> dict[str, pa.Table]:
    if "split" not in table.column_names:
        return {ALL: table} if table.num_rows else {}
    col = table.column("split")
    out = {}
    for value in sorted({v for v in col.to_pylist()}, key=lambda v: _order(v or UNASSIGNED)):
        mask = pc.is_null(col) if value is None else pc.equal(col, value)
        out[value or UNASSIGNED] = table.filter(mask)
    return out


def _write_split_files_of(out_dir: str, name: str) -> dict[str, int]:
    """Stream ``<name>.parquet`` one row group at a time into ``splits/<name>/<split>.parquet``, one
    ``ParquetWriter`` per split value (opened at the split's first row; each written atomically);
    returns ``{split: rows}`` for the splits that have rows. A source of one row group (up to
    :data:`pipeline.export.writer.ROW_GROUP_ROWS` rows) gives each split file as one row group,
    byte-identical to writing the filtered whole table."""
    from ..fileio import atomic_path
    from .writer import COMPRESSION, ROW_GROUP_ROWS

    source = pq.ParquetFile(os.path.join(out_dir, f"{name}.parquet"))
    counts: dict[str, int] = {}
    with contextlib.ExitStack() as stack:
        writers: dict[str, pq.ParquetWriter] = {}
        for i in range(source.num_row_groups):
            for split, part in _split_tables(source.read_row_group(i)).items():
                if split not in writers:
                    path = os.path.join(out_dir, split_path(name, split))
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    tmp = stack.enter_context(atomic_path(path))  # renamed after the writer closes
                    writers[split] = pq.ParquetWriter(tmp, part.schema, compression=COMPRESSION)
                    stack.callback(writers[split].close)
                writers[split].write_table(part, row_group_size=ROW_GROUP_ROWS)
                counts[split] = counts.get(split, 0) + part.num_rows
    return counts


def write_split_files(out_dir: str, names: list[str] | None = None) -> dict[str, dict[str, dict[str, Any]]]:
    """Write ``splits/<name>/<split>.parquet`` for every ``<name>.parquet`` of ``out_dir`` (the
    stems of :data:`pipeline.export.schemas.SCHEMAS`, or ``names``) and the index config; returns
    ``{name: {split: {"file": relative path, "rows": n, "sha256": hex}}}`` (the index under
    ``"index"``). Splits with no rows get no file; split files left from an earlier export into the
    same folder are removed. Each file keeps its source file's schema and zstd compression; the
    source is read one row group at a time (:func:`_write_split_files_of`).

    Raises:
        FileNotFoundError: ``out_dir`` does not exist.
        pyarrow.ArrowInvalid: a ``<name>.parquet`` cannot be read.
    """
    from ..fileio import sha256_file
    from .writer import write_parquet

    if not os.path.isdir(out_dir):
        raise FileNotFoundError(out_dir)
    names = [n for n in (names or list(SCHEMAS)) if os.path.exists(os.path.join(out_dir, f"{n}.parquet"))]
    base = os.path.join(out_dir, SPLITS_DIR)
    for name in [*names, INDEX]:  # only the files this function owns
        folder = os.path.join(base, name)
        if os.path.isdir(folder):
            for f in os.listdir(folder):
                if f.endswith(".parquet"):
                    os.remove(os.path.join(folder, f))
    layout: dict[str, dict[str, dict[str, Any]]] = {}
    index_rows = []
    for name in names:
        counts = _write_split_files_of(out_dir, name)
        layout[name] = {}
        for split in sorted(counts, key=_order):
            rel = split_path(name, split)
            layout[name][split] = {"file": rel, "rows": counts[split], "sha256": sha256_file(os.path.join(out_dir, rel))}
            index_rows.append({"config": name, "split": split, "rows": counts[split], "path": rel})
        if not layout[name]:
            index_rows.append({"config": name, "split": None, "rows": 0, "path": None})
    rel = split_path(INDEX, ALL)
    os.makedirs(os.path.dirname(os.path.join(out_dir, rel)), exist_ok=True)
    n = write_parquet(os.path.join(out_dir, rel), index_rows, INDEX_SCHEMA)
    layout[INDEX] = {ALL: {"file": rel, "rows": n, "sha256": sha256_file(os.path.join(out_dir, rel))}}
    return layout


def read_layout(out_dir: str) -> dict[str, dict[str, int]]:
    """``{name: {split: rows}}`` of the split files present in ``out_dir`` (read from the index
    config; ``{}`` when the folder has none, e.g. an export written before split files existed).
    A file with no rows maps to ``{}``."""
    path = os.path.join(out_dir, split_path(INDEX, ALL))
    if not os.path.exists(path):
        return {}
    layout: dict[str, dict[str, int]] = {}
    for r in pq.read_table(path).to_pylist():
        layout.setdefault(r["config"], {})
        if r["split"] is not None and r["path"] and os.path.exists(os.path.join(out_dir, r["path"])):
            layout[r["config"]][r["split"]] = r["rows"]
    layout.setdefault(INDEX, {ALL: len(layout)})
    return layout


def card_configs(layout: dict[str, dict[str, int]]) -> list[dict[str, Any]]:
    """The card's YAML ``configs`` list for a :func:`read_layout` layout: one entry per file with
    rows, ``data_files`` one ``{"split", "path"}`` per split with rows (HF dataset-card
    manual configuration), plus the index. ``default: true`` on ``sft`` when it has rows, else on
    the index, so ``datasets.load_dataset(OUT)`` always loads."""
    default = "sft" if layout.get("sft") else INDEX
    out = []
    for name in [n for n in SCHEMAS if layout.get(n)] + [INDEX]:
        entry: dict[str, Any] = {"config_name": name}
        if name == default:
            entry["default"] = True
        entry["data_files"] = [{"split": s, "path": split_path(name, s)}
                               for s in sorted(layout.get(name) or {ALL: 0}, key=_order)]
        out.append(entry)
    return out


def load_export(out_dir: str, name: str = "sft", split: str | None = None):
    """One config of an export as ``datasets`` objects, empty splits included.

    Returns a ``datasets.DatasetDict`` with every split of the file (``train``, ``validation``,
    ``test``, plus ``holdout`` / other values present; ``full`` for files without a ``split``
    column), a split with no rows as an empty ``Dataset`` with the file's features, or the one
    ``Dataset`` of ``split``. Tool-call ``arguments`` come back as objects (``datasets``' ``Json``
    feature), as chat templates expect. Use it where ``datasets.load_dataset(OUT, name)`` cannot
    serve: a file or split with no rows.

    Raises:
        FileNotFoundError: ``out_dir`` has no ``<name>.parquet``.
        ImportError: ``datasets`` is not installed (``pip install -e '.[train]'``).
    """
    import datasets
    from datasets.table import InMemoryTable

    path = os.path.join(out_dir, f"{name}.parquet")
    if not os.path.exists(path):
        raise FileNotFoundError(f"no {name}.parquet in {out_dir}")
    table = pq.read_table(path)
    parts = _split_tables(table)
    names = [ALL] if "split" not in table.column_names else list(SPLITS)
    for s in parts:
        if s not in names:
            names.append(s)
    names = sorted(names, key=_order)

    def ds(t: pa.Table | None):  # an empty split: a zero-row slice keeps one (empty) chunk per column
        return datasets.Dataset(InMemoryTable((table.slice(0, 0) if t is None else t).combine_chunks()))

    if split is not None:
        return ds(parts.get(split))
    return datasets.DatasetDict({s: ds(parts.get(s)) for s in names})

