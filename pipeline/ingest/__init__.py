"""Ingest: business log files -> validated :class:`~pipeline.records.LogRecord` + quarantine.

Readers (one per log format) turn raw input into candidate dicts in the canonical format
(``schemas/conversation.schema.json``); every candidate is validated with jsonschema; an invalid
one becomes a :class:`~pipeline.records.QuarantineRecord` with a reason code, the validation error
and the raw text, so that ``records in = records ok + records quarantined``.

Formats:

* ``canonical``: JSONL, one ``{"id", "messages", "tools"?, "metadata"?}`` object per line.
* ``taubench``: the tau-bench recorded-run JSON list (``task_id``, ``trial``, ``reward``,
  ``info.task``, ``traj``), as in ``shared/data/tau-bench/logs/airline-gpt4o-trajectories.json``.
* ``otel_genai``, ``openai_chat``, ``sharegpt``: OpenTelemetry GenAI traces, OpenAI Chat
  Completions call logs, ShareGPT with function calls (:mod:`pipeline.ingest.readers`).
* ``transcript``: JSONL of flattened transcripts ``{"messages_display": "user: ...\\nassistant:
  ...\\ntool: ..."}`` (tool names hidden; inferred from the results, see
  :mod:`pipeline.ingest.transcripts`), as in ``shared/data/tau-bench/logs/retail-transcripts.jsonl``.

Domain routing (:mod:`pipeline.ingest.routing`): every valid record is assigned the registered
domain that owns it, judged from its tool names and argument shapes (``metadata.domain``, with
``metadata.domain_source``); a record no domain owns (e.g. an office assistant's calendar and email
tools) is quarantined with ``INGEST_NO_DOMAIN`` naming its unknown tools, a record several domains
own with ``INGEST_DOMAIN_AMBIGUOUS``. No format is stamped with a default domain.
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

from .routing import INGEST_DOMAIN_AMBIGUOUS, INGEST_NO_DOMAIN, registered_domains, route_all

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schemas"

# Reason codes of this stage (documented in docs/reason-codes.md)
INGEST_DECODE = "INGEST_DECODE"          # bytes are not UTF-8, or a string holds a lone surrogate
INGEST_JSON = "INGEST_JSON"              # not parseable JSON
INGEST_SCHEMA = "INGEST_SCHEMA"          # valid JSON, fails the canonical JSON Schema
INGEST_TOO_LARGE = "INGEST_TOO_LARGE"    # record over max_record_bytes
INGEST_DUPLICATE_ID = "INGEST_DUPLICATE_ID"  # id seen earlier in the same input
INGEST_EMPTY = "INGEST_EMPTY"            # blank line / empty record
# INGEST_NO_DOMAIN, INGEST_DOMAIN_AMBIGUOUS: see pipeline.ingest.routing

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


def _printable(text: str) -> str:
    """``text`` with lone UTF-16 surrogates (which have no UTF-8 form) as ``\\udXXX`` escapes, so a
    quarantine row can always be written."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _q(source: str, pos: int, code: str, error: str, raw: Any, record_id: str | None = None) -> QuarantineRecord:
    if not isinstance(raw, str):
        raw = json.dumps(raw, ensure_ascii=False, default=str)
    return QuarantineRecord(stage="ingest", source=source, position=pos,
                            record_id=None if record_id is None else _printable(record_id),
                            reason_code=code, error=_printable(error[:2000]), raw=_printable(raw))


def lone_surrogate_path(obj: Any) -> str | None:
    """Path (``messages/2/content``) of a string (value or key) in a JSON value that holds
    a lone UTF-16 surrogate (from a ``\\ud800`` escape in the JSON text: valid JSON, not valid
    Unicode, no UTF-8 form); None when there is none. Iterative, any depth."""
    stack: list[tuple[Any, str]] = [(obj, "")]
    while stack:
        o, path = stack.pop()
        if isinstance(o, str):
            try:
                o.encode("utf-8")
            except UnicodeEncodeError:
                return path or "(root)"
        elif isinstance(o, dict):
            for k, v in o.items():
                sub = f"{path}/{k}" if path else str(k)
                stack.append((k, sub))
                stack.append((v, sub))
        elif isinstance(o, list):
            stack.extend((v, f"{path}/{i}" if path else str(i)) for i, v in enumerate(o))
    return None


def detect_format(path: str | os.PathLike) -> str:
    """Guess the log format of ``path``: a format of :mod:`pipeline.ingest.readers` when its first
    JSON value is one (``otel_genai``, ``openai_chat``, ``sharegpt``), ``"taubench"`` for a JSON
    list of runs with ``traj``, ``"transcript"`` when the first JSONL object has
    ``messages_display``, else ``"canonical"``.
    Raises FileNotFoundError if the path is missing."""
    p = Path(path)
    from .readers import sniff_format  # otel_genai, openai_chat, sharegpt (pipeline/ingest/readers.py)

    sniffed = sniff_format(p)
    if sniffed:
        return sniffed
    with open(p, "rb") as fh:
        head = fh.read(4096).lstrip()
    if head.startswith(b"["):
        return "taubench"
    if head.startswith(b"{") and b'"messages_display"' in head.split(b"\n", 1)[0][:4096]:
        return "transcript"
    return "canonical"


def _extra_readers() -> dict:
    """The trace / dataset readers of :mod:`pipeline.ingest.readers` by format name."""
    from .readers import readers

    return readers()


def known_formats() -> list[str]:
    """Every name ``--format`` takes: the built-in canonical, taubench and transcript, then the
    readers' (:func:`_extra_readers`)."""
    return ["canonical", "taubench", "transcript", *_extra_readers()]


def taubench_to_canonical(run: dict[str, Any], position: int) -> dict[str, Any]:
    """Map one tau-bench recorded run to a canonical conversation dict.

    ``id`` = ``taubench-<task_id>-<trial>``; metadata keeps ``reward``, ``task_id``, ``trial``,
    the customer ``instruction`` and ``user_id`` (personal data: the anonymizer treats it), and the
    gold ``actions``. No domain is set here: tau-bench runs come from several systems (airline,
    retail), so :func:`ingest` routes each by its tools. Raises KeyError/TypeError/ValueError on a
    malformed run (the caller quarantines it).
    """
    task = (run.get("info") or {}).get("task") or {}
    rid = f"taubench-{run['task_id']}-{run.get('trial', 0)}"
    meta: dict[str, Any] = {
        "source_format": "taubench",
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


def _candidates(p: Path, fmt: str, limit: int | None, transcript_hint: str | None
                ) -> Iterator[tuple[int, Any, Any, str | None, str | None]]:
    """``(position, raw, candidate, code, error)`` for each input record of ``p`` (at most
    ``limit``): a candidate canonical dict with codes None, or candidate None with the reason code
    and message. One row per input record, whatever the format."""
    n = 0
    if fmt == "canonical":
        rows: Iterable = ((pos, raw, None if code else raw, code, err) for pos, raw, code, err in _iter_canonical(p))
    elif fmt == "taubench":
        rows = _taubench_rows(p)
    elif fmt == "transcript":
        from .transcripts import iter_transcripts

        rows = iter_transcripts(p, _iter_canonical(p), transcript_hint, guess=False)
    elif fmt in _extra_readers():
        rows = _extra_readers()[fmt].read(p)
    else:
        raise ValueError(f"unknown input format {fmt!r}; known: {', '.join(known_formats())}")
    for pos, raw, cand, code, err in rows:
        if limit is not None and n >= limit:
            break
        n += 1
        if cand is None:
            yield pos, raw, None, code or INGEST_SCHEMA, err or f"not {fmt}"
        else:
            yield pos, raw, cand, None, None


def _taubench_rows(p: Path) -> Iterator[tuple[int, Any, Any, str | None, str | None]]:
    """Rows of a tau-bench recorded-run file (a JSON list; the whole file is parsed at once: the
    format is one JSON document). A file that is not JSON, not UTF-8 or not a list is one bad row."""
    try:
        with open(p, encoding="utf-8") as fh:
            runs = json.load(fh)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        code = INGEST_DECODE if isinstance(exc, UnicodeDecodeError) else INGEST_JSON
        with open(p, "rb") as fh:
            head = fh.read(4096).decode("utf-8", "replace")
        yield 0, head, None, code, str(exc) or type(exc).__name__
        return
    if not isinstance(runs, list):  # one unusable record, accounted for like a broken file
        yield 0, json.dumps(runs, ensure_ascii=False)[:4096], None, INGEST_SCHEMA, \
            f"tau-bench format must be a JSON list of runs, got {type(runs).__name__}"
        return
    for pos, run in enumerate(runs):
        try:
            yield pos, run, taubench_to_canonical(run, pos), None, None
        except (KeyError, TypeError, AttributeError, ValueError, OverflowError) as exc:
            yield pos, run, None, INGEST_SCHEMA, f"not a tau-bench run: {exc!r}"


class IngestCounts:
    """What :func:`iter_ingest` has yielded so far: ``n_in``, ``n_ok``, ``n_quarantined``."""

    def __init__(self) -> None:
        self.n_in = self.n_ok = self.n_quarantined = 0


def iter_ingest(path: str | os.PathLike, fmt: str | None = None, limit: int | None = None,
                domain: str | None = None, route: bool = True,
                counts: IngestCounts | None = None) -> Iterator[LogRecord | QuarantineRecord]:
    """Stream of :func:`ingest`: each input record as a validated, routed
    :class:`~pipeline.records.LogRecord` or a :class:`~pipeline.records.QuarantineRecord`, one at a
    time in the reader's order (input order for the line formats; the same records and rows as
    :func:`ingest`, which collects this).

    Memory does not grow with the input beyond one small routing entry per record: routing needs
    the whole file (a record that calls only shared tools takes *the file's domain*, known once
    every record was read), so with ``route=True`` the file is read twice, the first time keeping
    only each record's first routing decision (:mod:`pipeline.ingest.routing`). (The tau-bench
    format and the stitching readers hold their file while reading it: one JSON document, or
    conversations stitched from many lines.) ``counts`` (an :class:`IngestCounts`) is updated as
    items are yielded. Errors as :func:`ingest`, raised on the first ``next()``.
    """
    from .routing import route_in_file, route_record, system_prompt_of
    from pipeline.domains.base import evidence_tools

    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"input not found: {p}")
    if not p.is_file():
        raise ValueError(f"input must be a file, not a folder: {p}")
    domains = registered_domains()
    if domain is not None and domain not in domains:
        raise ValueError(f"unknown domain {domain!r}; known domains: {', '.join(sorted(domains))}")
    fmt = fmt or detect_format(p)
    if fmt not in known_formats():
        raise ValueError(f"unknown input format {fmt!r}; known: {', '.join(known_formats())}")
    source = str(p)
    validator = conversation_validator()
    transcript_hint: str | None = None
    if fmt == "transcript":
        from .transcripts import domain_hint_from_path

        transcript_hint = domain or domain_hint_from_path(p)
    counts = counts if counts is not None else IngestCounts()

    def named_domain(rec: LogRecord) -> str | None:
        if domain is not None:
            return domain
        if fmt == "canonical":
            d = rec.metadata.get("domain")
            return d if isinstance(d, str) and d else None
        if fmt == "transcript":
            return transcript_hint
        return None

    def read() -> Iterator[tuple[int, Any, LogRecord | None, QuarantineRecord | None]]:
        """``(position, raw, record, None)`` for a valid record, ``(position, raw, None, row)``
        for a quarantined one (schema, duplicate id, unreadable), before routing."""
        seen: set[str] = set()
        for pos, raw, cand, code, err in _candidates(p, fmt, limit, transcript_hint):
            if cand is None:
                yield pos, raw, None, _q(source, pos, code or INGEST_SCHEMA, err or code or "", raw)
                continue
            rid = cand.get("id") if isinstance(cand, dict) and isinstance(cand.get("id"), str) else None
            bad = lone_surrogate_path(cand)
            if bad is not None:  # later stages write UTF-8 (JSONL, Parquet): set aside here, not crash there
                yield pos, raw, None, _q(source, pos, INGEST_DECODE, f"{_printable(bad)}: lone UTF-16 surrogate "
                                         "(a \\ud800-\\udfff escape without its pair): not valid Unicode", raw, rid)
                continue
            errors = sorted(validator.iter_errors(cand), key=lambda e: list(e.absolute_path))
            if errors:
                e = errors[0]
                where = "/".join(str(x) for x in e.absolute_path) or "(root)"
                yield pos, raw, None, _q(source, pos, INGEST_SCHEMA, f"{where}: {e.message}", raw, rid)
                continue
            if rid in seen:
                yield pos, raw, None, _q(source, pos, INGEST_DUPLICATE_ID, f"duplicate id {rid!r}", raw, rid)
                continue
            seen.add(rid)
            yield pos, raw, LogRecord.model_validate(cand), None

    file_domain: str | None = None
    file_prompts: set[str | None] = set()
    if route:  # pass 1: first routing decisions only (as pipeline.ingest.routing.route_all)
        decided: set[str] = set()
        dirty = False
        for _, _, rec, _ in read():
            if rec is None:
                continue
            rt = route_record(rec, domains, named_domain(rec))
            if rt.source in ("named", "tools"):
                decided.add(rt.domain)
                file_prompts.add(system_prompt_of(rec))
            elif rt.domain is None and rt.code == INGEST_NO_DOMAIN and evidence_tools(rec):
                dirty = True
        file_domain = next(iter(decided)) if len(decided) == 1 and not dirty else None
    for pos, raw, rec, row in read():  # pass 2 (the only pass without routing)
        counts.n_in += 1
        if rec is not None and route:
            named = named_domain(rec)
            rt = route_record(rec, domains, named)
            if rt.domain is None and file_domain is not None:
                rt = route_in_file(rec, domains, named, file_domain, file_prompts)
            if rt.domain is None:
                rec, row = None, _q(source, pos, rt.code or INGEST_NO_DOMAIN, rt.detail, raw, rec.id)
            else:
                rec.metadata["domain"] = rt.domain
                rec.metadata["domain_source"] = rt.source
        if rec is not None:
            counts.n_ok += 1
            yield rec
        else:
            counts.n_quarantined += 1
            yield row


def ingest(path: str | os.PathLike, fmt: str | None = None, limit: int | None = None,
           domain: str | None = None, route: bool = True) -> IngestResult:
    """Read ``path`` in format ``fmt`` (auto-detected if None) into validated LogRecords, each
    routed to the domain that owns it (``metadata.domain``; :mod:`pipeline.ingest.routing`).

    ``limit`` caps the number of input records read (None: all). ``domain`` names the domain of
    every record (None: each record's own ``metadata.domain`` in the canonical format, a transcript
    file named after its domain, else its tools decide); a record whose tools the named domain
    lacks is still set aside. Raises FileNotFoundError for a missing path and ValueError for an
    unknown format or an unregistered ``domain``; every bad record is quarantined instead of
    raising (``INGEST_NO_DOMAIN`` / ``INGEST_DOMAIN_AMBIGUOUS`` when no / several domains own it).
    Invariant: ``n_in == len(records) + len(quarantine)``; quarantine is in input order.
    ``route=False`` skips domain routing (records keep the metadata their reader gave them): for
    logs of a system no domain covers yet (``trajpipe domain init``). Collects
    :func:`iter_ingest` (use that to stream).
    """
    res = IngestResult()
    counts = IngestCounts()
    for item in iter_ingest(path, fmt, limit, domain, route, counts):
        (res.records if isinstance(item, LogRecord) else res.quarantine).append(item)
    res.n_in = counts.n_in
    res.quarantine.sort(key=lambda q: q.position)  # stitching readers may yield out of position order
    return res


def write_jsonl(records: Iterable[Any], path: str | os.PathLike) -> int:
    """Write pydantic records (or dicts) from any iterable as JSONL, one line each
    (:func:`pipeline.streams.jsonl_line`); returns the number written."""
    from pipeline.streams import jsonl_line  # the one serializer (spilled stage outputs use it too)

    n = 0
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        for r in records:  # any iterable, consumed once (a generator is never held whole)
            fh.write(jsonl_line(r))
            n += 1
    return n


def iter_jsonl(path: str | os.PathLike, model: type | None = None) -> Iterator[Any]:
    """Yield the objects of JSONL written by :func:`write_jsonl` one line at a time (memory: one
    record), validated into ``model`` when given; blank lines are skipped. Raises
    json.JSONDecodeError / pydantic.ValidationError on a bad line (these are trajpipe's own files)."""
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                obj = json.loads(line)
                yield model.model_validate(obj) if model else obj


def read_jsonl(path: str | os.PathLike, model: type | None = None) -> list[Any]:
    """Read JSONL written by :func:`write_jsonl` into a list (see :func:`iter_jsonl` to stream)."""
    return list(iter_jsonl(path, model))
