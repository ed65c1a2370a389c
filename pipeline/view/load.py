"""Read a run's outputs into one in-memory picture for the viewer.

Two kinds of folder hold a run's records, and the viewer reads whichever exist:

* the **dataset folder** written by ``trajpipe run`` / ``trajpipe export`` (Parquet: ``sft``,
  ``trajectories_failed``, ``rejects``, ``tasks``, ``blueprints``, ``groups``, ``quarantine`` and
  ``manifest.json``);
* the **work folder** of the stage commands (JSONL: ``trajectories.jsonl``, ``verdicts.jsonl``,
  ``tasks.jsonl``, ``task_verdicts.jsonl``, ``blueprints.jsonl``, ``quarantine.jsonl``,
  ``anonymize_quarantine.jsonl``, ``synth_rejects.jsonl``, ``anonymization_report.json``).

The work folder is the richer source (every rollout with its tool-call log, every verdict with
its state diff); the Parquet datasets add splits, groups and the export's rejects. When only the
datasets exist, trajectories come from ``sft`` (kept), ``trajectories_failed`` (failed) and the
``messages`` of ``rejects`` (passed but over the cap or near-duplicates).

Records stay plain dicts (the JSON shape of :mod:`pipeline.records`): loading 10,000
trajectories through pydantic would double the viewer's time for nothing.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Work-folder files the viewer reads (all optional; at least one source must exist).
WORK_FILES = ("trajectories.jsonl", "verdicts.jsonl", "tasks.jsonl", "task_verdicts.jsonl", "blueprints.jsonl",
              "quarantine.jsonl", "anonymize_quarantine.jsonl", "synth_rejects.jsonl",
              "anonymization_report.json")
#: Dataset-folder files the viewer reads (all optional).
DATASET_FILES = ("sft.parquet", "trajectories_failed.parquet", "rejects.parquet", "tasks.parquet",
                 "blueprints.parquet", "groups.parquet", "quarantine.parquet", "manifest.json")
#: Files of which at least one must exist for there to be anything to show.
CORE_FILES = ("trajectories.jsonl", "tasks.jsonl", "blueprints.jsonl", "sft.parquet", "trajectories_failed.parquet",
              "tasks.parquet", "manifest.json")


class ViewInputError(Exception):
    """A viewer input is missing or unreadable. The message names the file or folder."""


@dataclass
class RunData:
    """Everything the viewer shows, keyed for lookup.

    ``trajectories``: list of dicts with the :class:`pipeline.records.Trajectory` keys (``tool_calls``
    may be ``None`` when only the datasets exist) plus ``split`` (or None) and ``source`` (the file
    it came from); ``verdicts``: trajectory id -> :class:`~pipeline.records.Verdict` dict;
    ``tasks``: task id -> dict with ``visible`` / ``hidden`` (the hidden part, or None when not
    available), ``split``, ``verified``, ``task_reason_codes``, ``skills``, ...; ``blueprints``:
    blueprint id -> Blueprint dict; ``groups``: task id -> groups.parquet row; ``rejects``:
    rows ``{kind, id, task_id, blueprint_id, stage, reason_code, detail}``; ``quarantine``: rows
    ``{stage, source, position, record_id, reason_code, error, raw_sha256}`` (never ``raw``);
    ``anonymization``: the anonymizer's report or None; ``manifest``: manifest.json or None;
    ``read``: paths read; ``missing``: expected files not found (shown on the index page).
    """

    out: Path
    work: Path | None
    trajectories: list[dict[str, Any]] = field(default_factory=list)
    verdicts: dict[str, dict[str, Any]] = field(default_factory=dict)
    tasks: dict[str, dict[str, Any]] = field(default_factory=dict)
    blueprints: dict[str, dict[str, Any]] = field(default_factory=dict)
    groups: dict[str, dict[str, Any]] = field(default_factory=dict)
    rejects: list[dict[str, Any]] = field(default_factory=list)
    quarantine: list[dict[str, Any]] = field(default_factory=list)
    anonymization: dict[str, Any] | None = None
    manifest: dict[str, Any] | None = None
    read: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


def _jsonl(path: Path) -> list[dict[str, Any]]:
    out = []
    try:
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if line.strip():
                    out.append(json.loads(line))
    except json.JSONDecodeError as exc:
        raise ViewInputError(f"{path}: line {n} is not valid JSON ({exc.msg})") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ViewInputError(f"{path}: cannot read ({exc})") from exc
    return out


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, OSError, UnicodeDecodeError) as exc:
        raise ViewInputError(f"{path}: cannot read JSON ({exc})") from exc


def _parquet(path: Path) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    try:
        return pq.read_table(path).to_pylist()
    except Exception as exc:  # noqa: BLE001 - pyarrow raises several types for a bad file
        raise ViewInputError(f"{path}: cannot read Parquet ({type(exc).__name__}: {exc})") from exc


def _loads(value: Any, default: Any) -> Any:
    """A JSON-string column back to its object (the exporter stores free-form JSON as text)."""
    if value is None:
        return default
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return default
    return value


def _clean_messages(msgs: Any) -> list[dict[str, Any]]:
    """Parquet messages carry every key (null when absent): drop the nulls."""
    if isinstance(msgs, str):
        msgs = _loads(msgs, [])
    out = []
    for m in msgs or []:
        out.append({k: v for k, v in m.items() if v is not None})
    return out


def find_work(out: Path, work: Path | None) -> Path | None:
    """The work folder to read beside ``out``: ``work`` when given (ViewInputError if it is not a
    folder), else ``out`` itself when it holds ``trajectories.jsonl`` or ``tasks.jsonl``, else the
    ``config.work`` folder recorded in ``out/manifest.json`` by ``trajpipe export`` when it still
    exists, else None."""
    if work is not None:
        if not work.is_dir():
            raise ViewInputError(f"work folder not found: {work}")
        return work
    if (out / "trajectories.jsonl").exists() or (out / "tasks.jsonl").exists() or (out / "rollout" / "latest").exists():
        return out
    man = out / "manifest.json"
    if man.exists():
        doc = _json(man) or {}
        cfg = doc.get("config") or {}
        w = doc.get("work_dir") or cfg.get("work_dir") or cfg.get("work")
        if w:
            p = Path(w)
            if not p.is_absolute() and not p.is_dir():
                p = out / w
            if p.is_dir() and any(work_file(p, f) is not None for f in WORK_FILES):
                return p
    return None


#: work-folder file name -> the stage artifacts that hold it, newest stage layout first
#: (WORK/<stage>/<signature>/<artifact>; pipeline.runner); the quarantine shown is the pseudonymized one
_ARTIFACTS = {"task_verdicts.jsonl": ("task_verdicts_banded", "task_verdicts"),
              "quarantine.jsonl": ("quarantine_pseudonymized",)}


def work_file(wk: Path, name: str) -> Path | None:
    """Path of a work file: ``wk/name`` (a flat folder), else the newest completed output of the
    stage that writes it in the content-addressed layout (:func:`pipeline.runner.artifact_path`)."""
    if (wk / name).exists():
        return wk / name
    from pipeline.runner import artifact_path

    stem = name.rsplit(".", 1)[0]
    for art in _ARTIFACTS.get(name, (stem,)):
        try:
            p = artifact_path(wk, art)
        except KeyError:
            continue
        if p is not None:
            return p
    return None


def load_run(out: str | Path, work: str | Path | None = None) -> RunData:
    """Read a run's dataset folder ``out`` and its work folder (see :func:`find_work`).

    Returns a :class:`RunData`. Files that do not exist are listed in ``RunData.missing`` and
    the rest still loads (a run without verdicts yet shows its rollouts without verdicts).

    Raises:
        ViewInputError: ``out`` is not a folder; ``work`` was given and is not a folder; none of
            :data:`CORE_FILES` exists in either folder (the message names the files looked for);
            a file exists but cannot be parsed (the message names the file and line).
    """
    out = Path(out)
    if not out.is_dir():
        raise ViewInputError(f"output folder not found: {out}")
    wk = find_work(out, Path(work) if work is not None else None)
    present = [f for f in CORE_FILES if (out / f).exists() or (wk is not None and work_file(wk, f) is not None)]
    if not present:
        where = f"{out}" + (f" or {wk}" if wk is not None and wk != out else "")
        raise ViewInputError(f"nothing to show in {where}: none of {', '.join(CORE_FILES)} found "
                             "(pass a folder written by `trajpipe run` / `trajpipe export`, or --work WORK)")
    data = RunData(out=out, work=wk)

    def src(folder: Path | None, name: str) -> Path | None:
        if folder is None:
            return None
        p = (work_file(folder, name) if folder == wk and name in WORK_FILES else None) or folder / name
        if p.exists():
            data.read.append(str(p))
            return p
        data.missing.append(str(p))
        return None

    # ------------------------------------------------------------------ datasets (Parquet)
    p = src(out, "manifest.json")
    if p:
        data.manifest = _json(p)
    ds: dict[str, list[dict[str, Any]]] = {}
    for name in ("sft", "trajectories_failed", "rejects", "tasks", "blueprints", "groups", "quarantine"):
        p = src(out, f"{name}.parquet")
        ds[name] = _parquet(p) if p else []
    split_of_traj = {r["trajectory_id"]: r.get("split") for name in ("sft", "trajectories_failed")
                     for r in ds[name]}
    split_of_task = {r["task_id"]: r.get("split") for r in ds["tasks"]}
    split_of_task.update({r["task_id"]: r.get("split") for r in ds["groups"] if r.get("task_id") not in split_of_task})
    data.groups = {r["task_id"]: r for r in ds["groups"]}

    # ------------------------------------------------------------------ work folder (JSONL)
    w = {name: [] for name in WORK_FILES if name.endswith(".jsonl")}
    if wk is not None:
        for name in w:
            p = src(wk, name)
            if p:
                w[name] = _jsonl(p)
        p = src(wk, "anonymization_report.json")
        if p:
            data.anonymization = _json(p)
    if data.anonymization is None and data.manifest:
        data.anonymization = data.manifest.get("anonymization_report") or None

    # ------------------------------------------------------------------ blueprints
    for r in w["blueprints.jsonl"]:
        data.blueprints[r["blueprint_id"]] = r
    for r in ds["blueprints"]:
        b = data.blueprints.setdefault(r["blueprint_id"], {k: _loads(v, v) if k in (
            "initial_state_requirements", "failure_modes", "cluster") else v for k, v in r.items()})
        b.setdefault("split", r.get("split"))

    # ------------------------------------------------------------------ tasks
    tverd = {r["task_id"]: r for r in w["task_verdicts.jsonl"]}
    for r in w["tasks.jsonl"]:
        v = tverd.get(r["task_id"])
        data.tasks[r["task_id"]] = {**r, "split": split_of_task.get(r["task_id"]),
                                    "verified": v["passed"] if v else None,
                                    "task_reason_codes": v["reason_codes"] if v else []}
    for r in ds["tasks"]:
        if r["task_id"] in data.tasks:
            t = data.tasks[r["task_id"]]
            if t.get("verified") is None:
                t["verified"], t["task_reason_codes"] = r.get("task_verified"), list(r.get("task_reason_codes") or [])
            continue
        data.tasks[r["task_id"]] = {
            "task_id": r["task_id"], "blueprint_id": r.get("blueprint_id"), "domain": r.get("domain"),
            "seed": r.get("seed"), "task_kind": r.get("task_kind"), "variant": r.get("variant"),
            "expected_outcome": r.get("expected_outcome"), "skills": list(r.get("skills") or []),
            "visible": {"instruction": r.get("instruction") or "", "policy": r.get("policy") or "",
                        "tools": _loads(r.get("tools"), []), "user_messages": list(r.get("user_messages") or [])},
            "hidden": _loads(r.get("hidden"), None), "split": r.get("split"),
            "verified": r.get("task_verified"), "task_reason_codes": list(r.get("task_reason_codes") or [])}

    # ------------------------------------------------------------------ trajectories + verdicts
    for v in w["verdicts.jsonl"]:
        data.verdicts[v["trajectory_id"]] = v
    seen: set[str] = set()
    for t in w["trajectories.jsonl"]:
        t = dict(t)
        t["split"] = split_of_traj.get(t["trajectory_id"]) or split_of_task.get(t["task_id"])
        t["source"] = "trajectories.jsonl"
        data.trajectories.append(t)
        seen.add(t["trajectory_id"])
    if not seen:  # datasets only: kept (sft), failed, and rejected-after-passing (rejects.messages)
        for name in ("sft", "trajectories_failed"):
            for r in ds[name]:
                if r["trajectory_id"] in seen:
                    continue
                seen.add(r["trajectory_id"])
                data.trajectories.append(_traj_from_row(r, f"{name}.parquet"))
                if r["trajectory_id"] not in data.verdicts:
                    data.verdicts[r["trajectory_id"]] = _verdict_from_row(r, passed=name == "sft")
        for r in ds["rejects"]:
            if r.get("kind") != "trajectory" or r.get("id") in seen or not r.get("messages"):
                continue
            seen.add(r["id"])
            row = {"trajectory_id": r["id"], "task_id": r.get("task_id"), "blueprint_id": r.get("blueprint_id"),
                   "messages": r.get("messages"), "split": split_of_task.get(r.get("task_id"))}
            data.trajectories.append(_traj_from_row(row, "rejects.parquet"))
            detail = _loads(r.get("detail"), {}) if str(r.get("detail") or "").startswith("{") else {}
            codes = [r["reason_code"]] + list((detail or {}).get("other_reason_codes") or [])
            passed = r.get("stage") in ("select", "dedupe")
            data.verdicts[r["id"]] = {"trajectory_id": r["id"], "task_id": r.get("task_id"), "passed": passed,
                                      "reason_codes": [] if passed else codes,
                                      "details": (detail or {}).get("details") or {}, "violations": [],
                                      "reward_components": {}, "reward": None}
    for t in data.trajectories:  # a task the work folder lacks still gets its blueprint / split
        t.setdefault("hint_mode", "none")
        t.setdefault("recovery", False)
        t.setdefault("faults", [])

    # ------------------------------------------------------------------ rejects and quarantine
    for r in ds["rejects"]:
        data.rejects.append({k: r.get(k) for k in ("kind", "id", "task_id", "blueprint_id", "stage", "reason_code",
                                                   "detail")})
    if not ds["rejects"]:  # work folder only: the verifiers' drops
        for tid, v in tverd.items():
            if not v["passed"]:
                data.rejects.append({"kind": "task", "id": tid, "task_id": tid,
                                     "blueprint_id": (data.tasks.get(tid) or {}).get("blueprint_id"),
                                     "stage": "verify_task", "reason_code": (v["reason_codes"] or ["?"])[0],
                                     "detail": json.dumps({"other_reason_codes": v["reason_codes"][1:]})})
        bp_of = {t["trajectory_id"]: t.get("blueprint_id") for t in data.trajectories}
        for tid, v in data.verdicts.items():
            if not v.get("passed"):
                data.rejects.append({"kind": "trajectory", "id": tid, "task_id": v.get("task_id"),
                                     "blueprint_id": bp_of.get(tid), "stage": "verify_trajectory",
                                     "reason_code": (v.get("reason_codes") or ["?"])[0],
                                     "detail": json.dumps({"other_reason_codes": (v.get("reason_codes") or [])[1:]})})
    qrows = ds["quarantine"] or (w["quarantine.jsonl"] + w["anonymize_quarantine.jsonl"] + w["synth_rejects.jsonl"])
    for r in qrows:  # the raw text stays out of the viewer (pseudonymized, but not needed to triage)
        data.quarantine.append({k: r.get(k) for k in ("stage", "source", "position", "record_id", "reason_code",
                                                      "error", "raw_sha256")})
    return data


def _traj_from_row(r: dict[str, Any], source: str) -> dict[str, Any]:
    return {"trajectory_id": r["trajectory_id"], "task_id": r.get("task_id"), "blueprint_id": r.get("blueprint_id"),
            "split": r.get("split"), "messages": _clean_messages(r.get("messages")),
            "tools": _loads(r.get("tools"), []), "tool_calls": None, "faults": _loads(r.get("faults"), []) or [],
            "finish_reason": r.get("finish_reason"), "model": r.get("model"), "backend": r.get("backend"),
            "sample_index": r.get("sample_index"), "n_turns": r.get("n_turns"),
            "hint_mode": r.get("hint_mode") or "none", "recovery": bool(r.get("recovery")), "source": source}


def _verdict_from_row(r: dict[str, Any], passed: bool) -> dict[str, Any]:
    comps = {k: v for k, v in (r.get("reward_components") or {}).items() if v is not None}
    return {"trajectory_id": r["trajectory_id"], "task_id": r.get("task_id"), "passed": passed,
            "reason_codes": list(r.get("reason_codes") or []), "violations": _loads(r.get("violations"), []) or [],
            "reward": r.get("reward"), "reward_components": comps, "details": {}}
