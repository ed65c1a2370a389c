"""Write every dataset of a run as zstd-compressed Parquet, then ``manifest.json`` (I/O only).

The rows come from :func:`pipeline.export.tables.build_tables` (splits, row functions, leak
audit). Every file is written under a temporary name in its own folder and renamed when complete
(:func:`pipeline.fileio.atomic_path`), and ``manifest.json`` is written last: a crash or an error
mid-export leaves no partial file under a final name, and a folder whose manifest is present is a
complete export.
"""
from __future__ import annotations

import contextlib
import json
import os
import itertools
from itertools import islice
from typing import Any, Callable, Iterable

import pyarrow as pa
import pyarrow.parquet as pq

from ..fileio import atomic_path, sha256_file
from ..records import Blueprint, QuarantineRecord, TaskPackage, TaskVerdict, Trajectory, Verdict
from .columns import storage_schema

__all__ = ["COMPRESSION", "HINT_MODE_COLUMNS", "ROW_GROUP_ROWS", "export_all", "hint_mode_counts", "in_hint_mode_order",
           "sha256_file", "write_manifest", "write_parquet"]

COMPRESSION = "zstd"
#: Rows per Parquet row group. Files up to this many rows are one row group, byte-identical to
#: what ``pq.write_table`` wrote before row groups; larger files hold one group in Arrow at a time.
ROW_GROUP_ROWS = 10_000


def _batches(rows: Iterable[dict[str, Any]], size: int) -> Iterable[list[dict[str, Any]]]:
    it = iter(rows)
    while batch := list(islice(it, size)):
        yield batch


def write_parquet(path: str, rows: Iterable[dict[str, Any]], schema: pa.Schema,
                  row_group_rows: int | None = None) -> int:
    """Write ``rows`` (a list or any iterable, consumed once) with the explicit ``schema`` (zstd)
    atomically, in row groups of ``row_group_rows`` (default :data:`ROW_GROUP_ROWS`) through one
    ``pyarrow.parquet.ParquetWriter``; returns the row count.

    Only one row group is held as Arrow data at a time. A file of at most ``row_group_rows`` rows
    is written as before row groups, with one ``pq.write_table`` of the whole table (one row group;
    an empty input gives a valid empty file with one empty row group); a larger one has the same
    schema and rows in several row groups, through one ``ParquetWriter``.

    Extension types in ``schema`` (the JSON tool-call ``arguments``) are built from their storage
    values (JSON text) and cast (:func:`pipeline.export.columns.storage_schema`).

    Raises:
        pyarrow.ArrowInvalid / pyarrow.ArrowTypeError: a row does not fit the schema (e.g. a
            null in a required column); nothing is written then.
    """
    size = ROW_GROUP_ROWS if row_group_rows is None else row_group_rows
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"row_group_rows must be an int >= 1, got {row_group_rows!r}")
    storage = storage_schema(schema)

    def arrow(batch: list[dict[str, Any]]) -> pa.Table:
        return pa.Table.from_pylist(batch, schema=storage).cast(schema)

    batches = iter(_batches(rows, size))
    first = next(batches, [])
    second = next(batches, None)
    if second is None:  # one row group (or none): the single-table write, as before row groups
        table = arrow(first)
        with atomic_path(path) as tmp:
            pq.write_table(table, tmp, compression=COMPRESSION, row_group_size=size)
        return table.num_rows
    n = 0
    with atomic_path(path) as tmp:
        writer = None
        try:
            for batch in itertools.chain([first, second], batches):
                table = arrow(batch)
                if writer is None:
                    writer = pq.ParquetWriter(tmp, table.schema, compression=COMPRESSION)
                writer.write_table(table, row_group_size=size)
                n += table.num_rows
        finally:
            if writer is not None:
                writer.close()
    return n


def write_table(path: str, table: pa.Table, row_group_rows: int | None = None) -> None:
    """Write an Arrow ``table`` to ``path`` as zstd Parquet in row groups of ``row_group_rows``
    (default :data:`ROW_GROUP_ROWS`), atomically."""
    size = ROW_GROUP_ROWS if row_group_rows is None else row_group_rows
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression=COMPRESSION, row_group_size=size)


def write_manifest(out_dir: str, doc: dict[str, Any]) -> str:
    """Write ``doc`` as ``<out_dir>/manifest.json`` (sorted keys, indented), atomically; returns the
    path."""
    mpath = os.path.join(out_dir, "manifest.json")
    with atomic_path(mpath) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=2, sort_keys=True, ensure_ascii=False, default=str)
        fh.write("\n")
    return mpath


#: Datasets with one rollout per row and the column holding its help mode.
HINT_MODE_COLUMNS = {"sft": "hint_mode", "dpo": "chosen_hint_mode", "steps": "hint_mode",
                     "trajectories_failed": "hint_mode"}


def hint_mode_counts(rows: Iterable[dict[str, Any]], column: str = "hint_mode") -> dict[str, int]:
    """Rows per help mode (``none`` first, then :data:`pipeline.rollout.hints.HINT_MODES` order,
    then any other value); a missing value counts as ``none``."""
    counts: dict[str, int] = {}
    for r in rows:
        m = r.get(column) or "none"
        counts[m] = counts.get(m, 0) + 1
    return in_hint_mode_order(counts)


def in_hint_mode_order(counts: dict[str, int]) -> dict[str, int]:
    """``counts`` with its keys in :data:`pipeline.rollout.hints.HINT_MODES` order (``none``
    first), other keys after them alphabetically."""
    from ..rollout.hints import HINT_MODES

    order = {m: i for i, m in enumerate(HINT_MODES)}
    return {m: counts[m] for m in sorted(counts, key=lambda m: (order.get(m, len(order)), m))}


def export_all(
    out_dir: str,
    *,
    kept: Iterable[Trajectory],
    rejects: Iterable[tuple],
    tasks: Iterable[TaskPackage],
    task_verdicts: Iterable[TaskVerdict],
    blueprints: Iterable[Blueprint],
    groups: Iterable[dict[str, Any]],
    quarantine: Iterable[QuarantineRecord],
    manifest: dict[str, Any],
    verdicts: Iterable[Verdict] = (),
    split_seed: int = 0,
    fractions: tuple[float, float, float] = (0.8, 0.1, 0.1),
    system_prompt: Callable[[TaskPackage], str] | None = None,
    source_keys: dict[str, dict[str, list[str]]] | None = None,
    holdout_blueprints: Iterable[str] = (),
    gamma: float = 1.0,
    dpo_max_pairs: int = 4,
    llamafactory: bool = True,
    card: bool = True,
) -> dict[str, str]:
    """Write the run's datasets into ``out_dir`` (created if needed); returns ``{name: path}``.

    Files (each dataset's schema and row function in its own module, registered in
    :mod:`pipeline.export.schemas`; all zstd Parquet, empty inputs give valid empty files;
    column-by-column documentation in docs/datasets.md):

    * ``sft`` (:mod:`~pipeline.export.sft`): one row per ``kept`` trajectory; ``messages`` as
      ``list<struct>``, ``tools`` as JSON, ``loss_mask`` aligned with messages (assistant
      ``True``), ``reward`` and ``reward_components`` from the matching entry of ``verdicts``
      (null if none given).
    * ``rl`` (:mod:`~pipeline.export.rl`): one row per task whose :class:`TaskVerdict` passed, in
      veRL's layout (``data_source``, ``prompt``, ``ability``, ``reward_model``, ``extra_info``,
      ``agent_name``); ``prompt`` = system (``system_prompt(task)``, default the policy) + the
      customer's first message; ``reward_model.ground_truth`` is for
      :func:`pipeline.rewards.compute_score` only.
    * ``dpo`` (:mod:`~pipeline.export.preferences`): preference pairs per task (verified vs failed
      trajectory), TRL's conversational ``prompt``/``chosen``/``rejected``, at most
      ``dpo_max_pairs`` per task.
    * ``steps`` (:mod:`~pipeline.export.steps`): one row per agent turn of every rollout (kept and
      rejected), anchor-state key and discounted return with ``gamma``.
    * ``trajectories_failed`` (:mod:`~pipeline.export.failed`): every rolled-out trajectory whose
      verdict failed (never in sft).
    * ``rejects`` (:mod:`~pipeline.export.rejects`): every ``rejects`` tuple ``(trajectory,
      reason_code, detail[, stage])`` (stage inferred from the code prefix when absent) plus every
      task whose verdict failed (``stage="verify_task"``).
    * ``tasks``, ``blueprints``, ``groups`` (the select stage's groups, plus ``split``,
      ``exported``, pass@1 / pass@k, reward mean / std, zero-variance flag; all over the task's
      unhelped rollouts, the helped ones in ``hint_mode`` / ``*_helped``:
      :func:`pipeline.export.groups.group_row`), ``quarantine``.
    * ``llamafactory/``: the train split of sft in LLaMA-Factory's sharegpt form
      (``llamafactory=True``), ``README.md`` + ``plots/*.png``: the dataset card (``card=True``).
    * ``splits/<name>/<split>.parquet``: the rows of each split of each file, for Hugging Face
      ``datasets`` (the card declares them as the configs' splits; splits and files without rows
      get none), and ``splits/index/full.parquet`` (rows per file and split):
      :func:`pipeline.export.hf.write_split_files`.
    * ``manifest``: ``manifest.json`` = the caller's ``manifest`` plus ``files`` (per file: file
      name, rows, bytes, sha256, ``splits``: per split its file, rows and sha256; ``index``) and
      ``export`` (split settings, components, gamma, compression). Written last.

    Help: every rollout row carries the help its teacher had during generation
    (``Trajectory.hint_mode``; dpo ``chosen_hint_mode`` / ``rejected_hint_mode``), and
    ``manifest.json`` ``files.<name>.rows_by_hint_mode`` counts rows per mode (dpo: chosen side;
    ``files.dpo.rejected_by_hint_mode``: rejected side).

    Splits: :class:`pipeline.export.splits.SplitPlan` (connected components of the blueprints
    joined by shared ``source_keys``, ``{blueprint_id: {"customer": [...], "period": [...]}}``),
    with ``split_seed``/``fractions``; ``holdout_blueprints`` (and everything connected to them) go
    to the ``holdout`` split. Inputs may be the pydantic records or plain dicts of them.

    Every file is written under a temporary name and renamed when complete; a ``manifest.json``
    left from an earlier export into the same folder is removed before the first file is written,
    and the new one is written last (a folder with a manifest holds a complete export).

    Raises:
        ValueError: hidden information of a task appears in a model-visible column of any dataset
            (:func:`pipeline.export.audit.check_no_hidden_leak`), help text shown to a teacher
            appears in any column of any file (:func:`pipeline.export.audit.check_no_hint_leak`),
            a malformed reject tuple, bad ``fractions`` or ``gamma``, or an unknown holdout
            blueprint id. Nothing is written then.
    """
    from .hf import ALL, INDEX, write_split_files
    from .sharegpt import write_llamafactory
    from .tables import build_tables

    tables = build_tables(kept=kept, rejects=rejects, tasks=tasks, task_verdicts=task_verdicts,
                          blueprints=blueprints, groups=groups, quarantine=quarantine, verdicts=verdicts,
                          split_seed=split_seed, fractions=fractions, system_prompt=system_prompt,
                          source_keys=source_keys, holdout_blueprints=holdout_blueprints, gamma=gamma,
                          dpo_max_pairs=dpo_max_pairs)
    os.makedirs(out_dir, exist_ok=True)
    with contextlib.suppress(FileNotFoundError):  # a folder with a manifest is a complete export: not while writing
        os.remove(os.path.join(out_dir, "manifest.json"))
    paths: dict[str, str] = {}
    files: dict[str, dict[str, Any]] = {}
    for name, schema in tables.schemas.items():
        rows = tables.rows[name]
        path = os.path.join(out_dir, f"{name}.parquet")
        n = write_parquet(path, rows, schema)
        paths[name] = path
        files[name] = {
            "file": os.path.basename(path),
            "rows": n,
            "bytes": os.path.getsize(path),
            "sha256": sha256_file(path),
        }
        if name in HINT_MODE_COLUMNS:  # rows per help mode of their rollout (dpo: of the chosen side)
            files[name]["rows_by_hint_mode"] = hint_mode_counts(rows, HINT_MODE_COLUMNS[name])
        if name == "dpo":
            files[name]["rejected_by_hint_mode"] = hint_mode_counts(rows, "rejected_hint_mode")
    # per-split copies for Hugging Face `datasets` (the card's configs point at them): pipeline.export.hf
    layout = write_split_files(out_dir, list(tables.schemas))
    for name, splits in layout.items():
        if name in files:
            files[name]["splits"] = splits
    files[INDEX] = dict(layout[INDEX][ALL])
    sharegpt_skipped = None
    if llamafactory:
        lf, sharegpt_skipped = write_llamafactory(out_dir, tables.rows["sft"])
        paths["llamafactory"] = lf["data"]
        paths["llamafactory_dataset_info"] = lf["dataset_info"]

    doc = dict(manifest)
    doc["files"] = files
    doc["export"] = {
        **tables.splits.manifest(),
        "gamma": gamma,
        "dpo_max_pairs_per_task": dpo_max_pairs,
        "dpo_pairs_skipped": tables.dpo_skipped,
        "sharegpt_skipped": sharegpt_skipped,
        "compression": COMPRESSION,
    }
    if card:  # the card reads the manifest as it will be on disk (JSON), before the manifest is written
        from ..card import write_card

        paths.update(write_card(out_dir, manifest=json.loads(json.dumps(doc, default=str))))
    paths["manifest"] = write_manifest(out_dir, doc)
    return paths
