"""Write every dataset of a run as zstd-compressed Parquet plus ``manifest.json``."""
from __future__ import annotations

import hashlib
import json
import os
from typing import Any, Callable, Iterable

import pyarrow as pa
import pyarrow.parquet as pq

from ..records import (
    Blueprint,
    QuarantineRecord,
    TaskPackage,
    TaskVerdict,
    Trajectory,
    Verdict,
    canonical_json,
)
from . import rows as R
from .schemas import SCHEMAS
from .splits import assign_split

COMPRESSION = "zstd"


def _coerce(model, items: Iterable[Any]) -> list:
    return [x if isinstance(x, model) else model.model_validate(x) for x in items]


def sha256_file(path: str) -> str:
    """Hex SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def write_parquet(path: str, rows: list[dict[str, Any]], schema: pa.Schema) -> int:
    """Write ``rows`` with the explicit ``schema`` (zstd) atomically; returns the row count.

    Raises:
        pyarrow.ArrowInvalid / pyarrow.ArrowTypeError: a row does not fit the schema (e.g. a
            null in a required column).
    """
    table = pa.Table.from_pylist(rows, schema=schema)
    tmp = path + ".tmp"
    pq.write_table(table, tmp, compression=COMPRESSION)
    os.replace(tmp, path)
    return table.num_rows


def _check_no_hidden_leak(tasks: dict[str, TaskPackage], sft: list[dict], rl: list[dict]) -> None:
    """Refuse to export if a task's expected final-state hash shows up in a model-visible column."""
    def secret(task_id: str) -> str | None:
        t = tasks.get(task_id)
        h = t.hidden.expected_state_hash if t else None
        return h if h and len(h) >= 8 else None

    for row in sft:
        h = secret(row["task_id"])
        if h and h in canonical_json([row["messages"], row["tools"]]):
            raise ValueError(f"hidden expected_state_hash of {row['task_id']} leaks into sft row {row['trajectory_id']}")
    for row in rl:
        h = secret(row["task_id"])
        if h and h in canonical_json([row["prompt"], row["tools"], row["user_messages"]]):
            raise ValueError(f"hidden expected_state_hash of {row['task_id']} leaks into the rl prompt")


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
) -> dict[str, str]:
    """Write the run's datasets into ``out_dir`` (created if needed); returns ``{name: path}``.

    Files (schemas in :mod:`pipeline.export.schemas`, all zstd Parquet, empty inputs give valid
    empty files):

    * ``sft``: one row per ``kept`` trajectory; ``messages`` as ``list<struct>``, ``tools`` as
      JSON, ``loss_mask`` aligned with messages (assistant ``True``), ``reward`` from the
      matching entry of ``verdicts`` (null if none given).
    * ``rl``: one row per task whose :class:`TaskVerdict` passed; ``prompt`` = system
      (``system_prompt(task)``, default the policy) + the customer's first message;
      ``ground_truth`` (expected state hash + verifier) and ``env_state`` (initial state) are
      JSON columns for the reward function only.
    * ``rejects``: every ``rejects`` tuple ``(trajectory, reason_code, detail[, stage])`` (stage
      inferred from the code prefix when absent) plus every task whose verdict failed
      (``stage="verify_task"``).
    * ``tasks``, ``blueprints``, ``groups`` (the select stage's groups, plus ``split`` and
      ``exported``: rows in sft), ``quarantine``.
    * ``manifest``: ``manifest.json`` = the caller's ``manifest`` plus ``files`` (per file: file
      name, rows, bytes, sha256) and ``export`` (split seed, fractions, compression).

    Splits come from :func:`assign_split` on the blueprint id with ``split_seed``/``fractions``.
    Inputs may be the pydantic records or plain dicts of them.

    Raises:
        ValueError: a task's ``expected_state_hash`` appears in a model-visible column (sft
            messages/tools, rl prompt/tools/user_messages), a malformed reject tuple, or bad
            ``fractions``.
    """
    os.makedirs(out_dir, exist_ok=True)
    kept_l = _coerce(Trajectory, kept)
    tasks_l = _coerce(TaskPackage, tasks)
    tverd_l = _coerce(TaskVerdict, task_verdicts)
    bps_l = _coerce(Blueprint, blueprints)
    quar_l = _coerce(QuarantineRecord, quarantine)
    groups_l = list(groups)
    reward = {v.trajectory_id: v.reward for v in _coerce(Verdict, verdicts)}
    tasks_by_id = {t.task_id: t for t in tasks_l}
    tverd_by_id = {v.task_id: v for v in tverd_l}
    prompt_fn = system_prompt or R.default_system_prompt

    def split(bp: str) -> str:
        return assign_split(bp, split_seed, fractions)

    sft_rows = [R.sft_row(t, split(t.blueprint_id), reward.get(t.trajectory_id)) for t in kept_l]
    rl_rows = [
        R.rl_row(t, split(t.blueprint_id), prompt_fn)
        for t in tasks_l
        if tverd_by_id.get(t.task_id) is not None and tverd_by_id[t.task_id].passed
    ]
    _check_no_hidden_leak(tasks_by_id, sft_rows, rl_rows)
    reject_rows = [R.trajectory_reject_row(r) for r in rejects]
    reject_rows += [R.task_reject_row(v, tasks_by_id.get(v.task_id)) for v in tverd_l if not v.passed]
    exported: dict[str, int] = {}
    for t in kept_l:
        exported[t.task_id] = exported.get(t.task_id, 0) + 1
    table_rows = {
        "sft": sft_rows,
        "rl": rl_rows,
        "rejects": reject_rows,
        "tasks": [R.task_row(t, tverd_by_id.get(t.task_id)) for t in tasks_l],
        "blueprints": [R.blueprint_row(b) for b in bps_l],
        "groups": [R.group_row(g, exported.get(g["task_id"], 0), split_seed, fractions) for g in groups_l],
        "quarantine": [R.quarantine_row(q) for q in quar_l],
    }

    paths: dict[str, str] = {}
    files: dict[str, dict[str, Any]] = {}
    for name, schema in SCHEMAS.items():
        path = os.path.join(out_dir, f"{name}.parquet")
        n = write_parquet(path, table_rows[name], schema)
        paths[name] = path
        files[name] = {
            "file": os.path.basename(path),
            "rows": n,
            "bytes": os.path.getsize(path),
            "sha256": sha256_file(path),
        }

    doc = dict(manifest)
    doc["files"] = files
    doc["export"] = {
        "split_seed": split_seed,
        "split_fractions": list(fractions),
        "split_group_key": "blueprint_id",
        "compression": COMPRESSION,
    }
    mpath = os.path.join(out_dir, "manifest.json")
    tmp = mpath + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=2, sort_keys=True, ensure_ascii=False, default=str)
        fh.write("\n")
    os.replace(tmp, mpath)
    paths["manifest"] = mpath
    return paths
