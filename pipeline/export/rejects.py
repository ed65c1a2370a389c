"""``rejects.parquet``: every trajectory not kept and every task that failed verification, with
its stage and reason code."""
from __future__ import annotations

from typing import Any

import pyarrow as pa

from ..records import TaskPackage, TaskVerdict, Trajectory
from .columns import json_text, req

SCHEMA = pa.schema(
    [
        req("kind", pa.string()),  # "trajectory" | "task"
        req("id", pa.string()),
        pa.field("task_id", pa.string()),
        pa.field("blueprint_id", pa.string()),
        req("stage", pa.string()),
        req("reason_code", pa.string()),
        pa.field("detail", pa.string()),
        pa.field("messages", pa.string()),  # JSON of the trajectory's messages; null for tasks
    ]
)


def stage_of(reason_code: str) -> str:
    """The stage a trajectory reject came from, by reason-code prefix (``SELECT_``/``DEDUPE_``);
    anything else is a trajectory-verifier code (``verify_trajectory``)."""
    if reason_code.startswith("SELECT_"):
        return "select"
    if reason_code.startswith("DEDUPE_"):
        return "dedupe"
    return "verify_trajectory"


def trajectory_reject_row(reject: tuple) -> dict[str, Any]:
    """A ``rejects.parquet`` row from ``(trajectory, reason_code, detail[, stage])``."""
    if len(reject) == 4:
        t, code, detail, stage = reject
    elif len(reject) == 3:
        t, code, detail = reject
        stage = stage_of(code)
    else:
        raise ValueError(f"a reject is (trajectory, reason_code, detail[, stage]), got {len(reject)} items")
    if isinstance(t, dict):
        t = Trajectory.model_validate(t)
    return {
        "kind": "trajectory",
        "id": t.trajectory_id,
        "task_id": t.task_id,
        "blueprint_id": t.blueprint_id,
        "stage": stage,
        "reason_code": code,
        "detail": detail,
        "messages": json_text(t.messages),
    }


def task_reject_row(v: TaskVerdict, task: TaskPackage | None) -> dict[str, Any]:
    """A ``rejects.parquet`` row for a task package that failed task verification."""
    codes = list(v.reason_codes)
    return {
        "kind": "task",
        "id": v.task_id,
        "task_id": v.task_id,
        "blueprint_id": task.blueprint_id if task else None,
        "stage": "verify_task",
        "reason_code": codes[0] if codes else "VERIFY_FAILED_UNSPECIFIED",
        "detail": json_text({"other_reason_codes": codes[1:], "details": v.details}),
        "messages": None,
    }


def help_echo_row(t: Trajectory, mode: str) -> dict[str, Any]:
    """A ``rejects.parquet`` row for a helped rollout withheld because it repeats its help text
    (``EXPORT_HELP_ECHO``; its messages are not written anywhere in the export)."""
    return {"kind": "trajectory", "id": t.trajectory_id, "task_id": t.task_id, "blueprint_id": t.blueprint_id,
            "stage": "export", "reason_code": "EXPORT_HELP_ECHO",
            "detail": f"{mode} help line repeated in the rollout's messages; withheld", "messages": "[]"}
