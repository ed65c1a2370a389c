"""Ingest: business log files -> validated :class:`~pipeline.records.LogRecord` + quarantine.

Readers (one per log format) turn raw input into candidate dicts in the canonical format
(``schemas/conversation.schema.json``); every candidate is validated with jsonschema; an invalid
one becomes a :class:`~pipeline.records.QuarantineRecord` with a reason code, the validation error
and the raw text, so that ``records in = records ok + records quarantined``.

Formats:

* ``canonical``: JSONL, one ``{"id", "messages", "tools"?, "metadata"?}`` object per line.
* ``taubench``: the tau-bench recorded-run JSON list (``task_id``, ``trial``, ``reward``,
  ``info.task``, ``traj``), as in ``shared/data/tau-bench/logs/airline-gpt4o-trajectories.json``.
* ``transcript``: JSONL of flattened transcripts ``{"messages_display": "user: ...\\nassistant:
  ...\\ntool: ..."}`` (tool names hidden; inferred from the results, see
  :mod:`pipeline.ingest.transcripts`), as in ``shared/data/tau-bench/logs/retail-transcripts.jsonl``.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Iterator

import jsonschema

from pipeline.records import LogRecord, QuarantineRecord

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schemas"

# Reason codes of this stage (documented in docs/reason-codes.md)
INGEST_DECODE = "INGEST_DECODE"          # bytes are not UTF-8
INGEST_JSON = "INGEST_JSON"              # not parseable JSON
INGEST_SCHEMA = "INGEST_SCHEMA"          # valid JSON, fails the canonical JSON Schema
INGEST_TOO_LARGE = "INGEST_TOO_LARGE"    # record over max_record_bytes
INGEST_DUPLICATE_ID = "INGEST_DUPLICATE_ID"  # id seen earlier in the same input
INGEST_EMPTY = "INGEST_EMPTY"            # blank line / empty record

MAX_RECORD_BYTES = 8 * 1024 * 1024


@lru_cache(maxsize=1)
def conversation_validator() -> jsonschema.protocols.Validator:
    """The jsonschema validator of ``schemas/conversation.schema.json`` (Draft 2020-12)."""
    with open(SCHEMA_DIR / "conversation.schema.json", encoding="utf-8") as fh:
        schema = json.load(fh)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


@dataclass
class IngestResult:
    """Output of :func:`ingest`: ok records, quarantined ones, and ``n_in`` (records seen)."""

    records: list[LogRecord] = field(default_factory=list)
    quarantine: list[QuarantineRecord] = field(default_factory=list)
    n_in: int = 0


def _q(source: str, pos: int, code: str, error: str, raw: Any, record_id: str | None = None) -> QuarantineRecord:
    if not isinstance(raw, str):
        raw = json.dumps(raw, ensure_ascii=False, default=str)
    return QuarantineRecord(stage="ingest", source=source, position=pos, record_id=record_id,
                            reason_code=code, error=error[:2000], raw=raw)


def detect_format(path: str | os.PathLike) -> str:
    """Guess the log format of ``path``: ``"taubench"`` for a JSON list of runs with ``traj``,
    ``"transcript"`` when the first JSONL object has ``messages_display``, else ``"canonical"``.
    Raises FileNotFoundError if the path is missing."""
    p = Path(path)
    with open(p, "rb") as fh:
        head = fh.read(4096).lstrip()
    if head.startswith(b"["):
        return "taubench"
    if head.startswith(b"{") and b'"messages_display"' in head.split(b"\n", 1)[0][:4096]:
        return "transcript"
    return "canonical"


def taubench_to_canonical(run: dict[str, Any], position: int) -> dict[str, Any]:
    """Map one tau-bench recorded run to a canonical conversation dict.

    ``id`` = ``taubench-<task_id>-<trial>``; metadata keeps ``reward``, ``task_id``, ``trial``,
    the customer ``instruction`` and ``user_id`` (personal data: the anonymizer treats it), and the
    gold ``actions``. Raises KeyError/TypeError on a malformed run (the caller quarantines it).
    """
    task = (run.get("info") or {}).get("task") or {}
    rid = f"taubench-{run['task_id']}-{run.get('trial', 0)}"
    meta: dict[str, Any] = {
        "source_format": "taubench",
        "domain": "airline",
        "task_id": run["task_id"],
        "trial": run.get("trial", 0),
        "reward": float(run.get("reward", 0.0)),
    }
    if "instruction" in task:
        meta["instruction"] = task["instruction"]
    if "user_id" in task:
        meta["user_id"] = task["user_id"]
    if "actions" in task:
        meta["gold_actions"] = task["actions"]
    messages = []
    for m in run["traj"]:
        m = dict(m)
        if m.get("role") == "assistant" and not m.get("tool_calls"):
            m.pop("tool_calls", None)
        messages.append(m)
    return {"id": rid, "messages": messages, "metadata": meta}


def _iter_canonical(path: Path) -> Iterator[tuple[int, Any, str | None, str | None]]:
    """Yield ``(position, raw, error_code, error)`` per JSONL line; raw is bytes-decoded text."""
    with open(path, "rb") as fh:
        for pos, line in enumerate(fh):
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield pos, line.decode("utf-8", errors="replace"), INGEST_DECODE, str(exc)
                continue
            if not text.strip():
                # blank line: quarantined too, so nothing silently disappears
                yield pos, text, INGEST_EMPTY, "blank line"
                continue
            if len(line) > MAX_RECORD_BYTES:
                yield pos, text[:4096] + f"...[truncated, {len(line)} bytes]", INGEST_TOO_LARGE, \
                    f"record is {len(line)} bytes, limit {MAX_RECORD_BYTES}"
                continue
            try:
                yield pos, json.loads(text), None, None
            except json.JSONDecodeError as exc:
                yield pos, text, INGEST_JSON, str(exc)
            except RecursionError:
                yield pos, text[:4096], INGEST_JSON, "JSON nested too deeply to parse"


def ingest(path: str | os.PathLike, fmt: str | None = None, limit: int | None = None) -> IngestResult:
    """Read ``path`` in format ``fmt`` (auto-detected if None) into validated LogRecords.

    ``limit`` caps the number of input records read (None: all). Raises FileNotFoundError for a
    missing path and ValueError for an unknown format; every bad record is quarantined instead
    of raising. Invariant: ``n_in == len(records) + len(quarantine)``.
    """
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"input not found: {p}")
    if not p.is_file():
        raise ValueError(f"input must be a file, not a folder: {p}")
    fmt = fmt or detect_format(p)
    source = str(p)
    res = IngestResult()
    seen: set[str] = set()
    validator = conversation_validator()

    def accept(pos: int, cand: Any, raw: Any) -> None:
        errors = sorted(validator.iter_errors(cand), key=lambda e: list(e.absolute_path))
        rid = cand.get("id") if isinstance(cand, dict) and isinstance(cand.get("id"), str) else None
        if errors:
            e = errors[0]
            where = "/".join(str(x) for x in e.absolute_path) or "(root)"
            res.quarantine.append(_q(source, pos, INGEST_SCHEMA, f"{where}: {e.message}", raw, rid))
            return
        if rid in seen:
            res.quarantine.append(_q(source, pos, INGEST_DUPLICATE_ID, f"duplicate id {rid!r}", raw, rid))
            return
        seen.add(rid)
        res.records.append(LogRecord.model_validate(cand))

    if fmt == "canonical":
        for pos, raw, code, err in _iter_canonical(p):
            if limit is not None and res.n_in >= limit:
                break
            res.n_in += 1
            if code:
                res.quarantine.append(_q(source, pos, code, err or code, raw))
            else:
                accept(pos, raw, raw)
    elif fmt == "taubench":
        try:
            with open(p, encoding="utf-8") as fh:
                runs = json.load(fh)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            res.n_in = 1
            code = INGEST_DECODE if isinstance(exc, UnicodeDecodeError) else INGEST_JSON
            res.quarantine.append(_q(source, 0, code, str(exc), p.read_bytes()[:4096].decode("utf-8", "replace")))
            return res
        if not isinstance(runs, list):
            raise ValueError(f"{p}: tau-bench format must be a JSON list of runs")
        for pos, run in enumerate(runs):
            if limit is not None and res.n_in >= limit:
                break
            res.n_in += 1
            try:
                cand = taubench_to_canonical(run, pos)
            except (KeyError, TypeError, AttributeError) as exc:
                res.quarantine.append(_q(source, pos, INGEST_SCHEMA, f"not a tau-bench run: {exc!r}", run))
                continue
            accept(pos, cand, run)
    elif fmt == "transcript":
        from .transcripts import iter_transcripts

        for pos, raw, cand, code, err in iter_transcripts(p, _iter_canonical(p)):
            if limit is not None and res.n_in >= limit:
                break
            res.n_in += 1
            if cand is None:
                res.quarantine.append(_q(source, pos, code or INGEST_SCHEMA, err or "not a transcript", raw))
            else:
                accept(pos, cand, raw)
    else:
        raise ValueError(f"unknown input format {fmt!r}; known: canonical, taubench, transcript")
    return res


def write_jsonl(records: Iterable[Any], path: str | os.PathLike) -> int:
    """Write pydantic records (or dicts) as JSONL; returns the number written."""
    n = 0
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        for r in records:
            obj = r.model_dump(mode="json") if hasattr(r, "model_dump") else r
            fh.write(json.dumps(obj, ensure_ascii=False) + "\n")
            n += 1
    return n


def read_jsonl(path: str | os.PathLike, model: type | None = None) -> list[Any]:
    """Read JSONL written by :func:`write_jsonl`; validate into ``model`` when given."""
    out = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                obj = json.loads(line)
                out.append(model.model_validate(obj) if model else obj)
    return out
