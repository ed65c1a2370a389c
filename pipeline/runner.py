"""The stage contract, the stage registry and the content-addressed work folder.

Every pipeline stage is a :class:`Stage`: a name, the config section it reads, the artifacts it
reads and writes, and a ``run(inputs, cfg, ctx) -> StageResult`` function. A
:class:`StageResult` carries the outputs (artifact name -> records or JSON), the stage's own
stats (what the manifest's ``counts`` shows) and typed rejects (:class:`Reject`). One
:class:`Runner` runs any stage for the CLI (``trajpipe ingest``, ...), for ``trajpipe run`` and
for the Prefect flow (one generic task wrapper in flows/trajpipe_flow.py), so there is one code
path.

Work folder layout (one per run, shared by ``run`` and the stage commands)::

    WORK/<stage>/<signature>/<artifact>.jsonl|.json   stage outputs
    WORK/<stage>/<signature>/_SUCCESS.json            completion marker: stats, reject count, inputs
    WORK/<stage>/latest                               signature of the newest completed output

The signature is 16 hex digits of SHA-256 over the stage name, its config section, the run seed
(stages that use it), the signatures of the stages it reads from, stage-specific facts (the input
file's SHA-256 for ingest, a fingerprint of ``$TRAJPIPE_SECRET`` for anonymize) and the code
version (SHA-256 over pipeline/ sources). A stage whose signature already has a marker is not
run again: its outputs are read back. Outputs are written to a temporary folder and renamed
into place after the last file, so a crash never leaves a half-written stage that looks done.
Without ``$TRAJPIPE_SECRET`` the anonymize signature carries a random nonce: pseudonyms are
random per run, so nothing after anonymize is reused across runs (the manifest says
``reproducible: false``).

Nothing before anonymization goes to Prefect's result storage: stage results stay in the work
folder and in this process's memory (the Prefect tasks return only stats).
"""
from __future__ import annotations

import enum
import hashlib
import json
import os
import secrets as _secrets
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from pydantic import BaseModel

from pipeline.config import RunConfig
from pipeline.verify.reasons import REASONS

#: Every reason code a reject or quarantine record can carry (docs/reason-codes.md).
ReasonCode = enum.Enum("ReasonCode", {code: code for code in REASONS}, type=str)  # type: ignore[misc]


class Reject(BaseModel):
    """A record that left a stage without becoming output: ``stage``, ``record_id``, ``code``
    (a :data:`ReasonCode` value) and a free-text ``detail``."""

    stage: str
    record_id: str
    code: str
    detail: str = ""

    def model_post_init(self, _ctx: Any) -> None:
        if self.code not in REASONS:
            raise ValueError(f"unknown reason code {self.code!r} (pipeline/verify/reasons.py)")


@dataclass
class StageResult:
    """What one stage returns: ``outputs`` (artifact -> records or JSON data), ``stats`` (its
    counts for the manifest), ``rejects`` and ``runtime`` (in-memory objects for later stages of
    the same process, e.g. the anonymizer's denylist predicate; never written). ``signature`` and
    ``reused`` are set by the :class:`Runner`; ``seconds`` is the stage's wall time."""

    outputs: dict[str, Any]
    stats: dict[str, Any] = field(default_factory=dict)
    rejects: list[Reject] = field(default_factory=list)
    runtime: dict[str, Any] = field(default_factory=dict)
    signature: str = ""
    reused: bool = False
    seconds: float = 0.0


@dataclass
class Context:
    """Run-wide things a stage may use besides its section: the seed, a loaded teacher backend
    to reuse (tests, benchmarks), whether to draw progress bars, and ``runtime`` objects of
    earlier stages run in this process. ``scratch``: set by the runner to
    ``WORK/<stage>/.<signature>.partial/`` while a stage runs; a stage may keep finished parts
    there (rollout shards) and find them again when a crashed run is resumed with the same
    signature; it is removed once the stage's output is complete."""

    seed: int = 0
    backend_obj: Any = None
    progress: bool = True
    runtime: dict[str, Any] = field(default_factory=dict)
    scratch: Optional[Path] = None  # the running stage's folder for partial results (kept across crashes)


@dataclass(frozen=True)
class Stage:
    """One pipeline stage.

    ``section``: the :class:`RunConfig` section it receives (None: none); ``inputs``: artifact
    names it reads; ``outputs``: artifact name -> pydantic record type (written as JSONL) or None
    (written as JSON); ``run(inputs, section_cfg, ctx) -> StageResult``; ``uses_seed``: the run
    seed enters its signature; ``signature_extra(cfg) -> dict`` adds facts outside the config
    (the input file's hash); ``writes_work``: False for export (its outputs go to OUT);
    ``lazy``: its JSONL outputs, read back from the work folder, are
    :class:`pipeline.streams.JsonlSeq` (records read from the file when iterated; the stages
    before rollouts, whose outputs grow with the input logs) instead of lists."""

    name: str
    section: Optional[str]
    inputs: tuple[str, ...]
    outputs: dict[str, Optional[type]]
    run: Callable[[dict[str, Any], Any, Context], StageResult]
    uses_seed: bool = False
    signature_extra: Optional[Callable[[RunConfig], dict[str, Any]]] = None
    description: str = ""
    optional: tuple[str, ...] = ()  # inputs that may be absent (read as empty)
    lazy: bool = False  # JSONL outputs are loaded as pipeline.streams.JsonlSeq (read when iterated), not lists


STAGES: dict[str, Stage] = {}


def register(stage: Stage) -> Stage:
    """Add ``stage`` to the registry (ValueError if an artifact already has a producer)."""
    for art in stage.outputs:
        owner = producer_of(art, missing_ok=True)
        if owner is not None and owner != stage.name:
            raise ValueError(f"artifact {art!r} is already produced by stage {owner!r}")
    STAGES[stage.name] = stage
    return stage


def producer_of(artifact: str, missing_ok: bool = False) -> Optional[str]:
    """Name of the stage that writes ``artifact``."""
    for s in STAGES.values():
        if artifact in s.outputs:
            return s.name
    if missing_ok:
        return None
    raise KeyError(f"no stage produces {artifact!r}")


def upstream(stage: Stage) -> list[str]:
    """Names of the stages ``stage`` reads from, in registry order."""
    names = {producer_of(a) for a in stage.inputs}
    return [n for n in STAGES if n in names]


_CODE_VERSION: Optional[str] = None


def code_version() -> str:
    """trajpipe's version plus 12 hex digits of SHA-256 over every pipeline/*.py source (sorted
    paths), so any code change gives new stage signatures."""
    global _CODE_VERSION
    if _CODE_VERSION is None:
        from importlib import metadata

        root = Path(__file__).resolve().parent
        h = hashlib.sha256()
        for p in sorted(root.rglob("*.py")):
            h.update(str(p.relative_to(root)).encode())
            h.update(p.read_bytes())
        try:
            ver = metadata.version("trajpipe")
        except metadata.PackageNotFoundError:
            ver = "0"
        _CODE_VERSION = f"{ver}+{h.hexdigest()[:12]}"
    return _CODE_VERSION


def file_sha256(path: str | os.PathLike) -> Optional[str]:
    """SHA-256 hex digest of a file's bytes (:func:`pipeline.fileio.sha256_file`), None when it
    cannot be read."""
    from pipeline.fileio import sha256_file

    try:
        return sha256_file(path)
    except OSError:
        return None


class StageNotReady(RuntimeError):
    """A stage command whose input stage has no completed output in the work folder."""


class Runner:
    """Runs registered stages over one work folder with one :class:`RunConfig`.

    ``results`` caches every :class:`StageResult` of this process by stage name, so a whole run
    passes records in memory and reads the work folder only for stages completed earlier."""

    def __init__(self, cfg: RunConfig, ctx: Optional[Context] = None, force: bool = False) -> None:
        self.cfg = cfg
        self.work = Path(cfg.work_dir)
        self.ctx = ctx or Context(seed=cfg.seed)
        self.ctx.seed = cfg.seed
        self.ctx.runtime["runner"] = self  # export builds the manifest from every stage's stats
        self.force = force
        self.results: dict[str, StageResult] = {}
        self._extra: dict[str, Any] = {}  # signature_extra per stage, computed once per Runner

    # -- signatures -----------------------------------------------------------------------
    def section_of(self, stage: Stage) -> Any:
        return getattr(self.cfg, stage.section) if stage.section else None

    def signature(self, stage: Stage, input_sigs: dict[str, str]) -> str:
        sec = self.section_of(stage)
        payload = {"stage": stage.name, "config": sec.model_dump(mode="json") if sec is not None else None,
                   "seed": self.cfg.seed if stage.uses_seed else None, "inputs": input_sigs,
                   "extra": self.signature_extra(stage),
                   "code": code_version()}
        return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:16]

    def signature_extra(self, stage: Stage) -> Any:
        """``stage.signature_extra(cfg)``, computed once per Runner: a random part (anonymize
        without ``$TRAJPIPE_SECRET``) stays the same between planning a stage (its shards on Ray
        workers) and running it."""
        if stage.name not in self._extra:
            self._extra[stage.name] = stage.signature_extra(self.cfg) if stage.signature_extra else None
        return self._extra[stage.name]

    def scratch(self, name: str, sig: str) -> Path:
        """``WORK/<stage>/.<signature>.partial/``: finished shards of a stage while it runs."""
        return self.work / name / f".{sig}.partial"

    def latest(self, name: str) -> Optional[str]:
        """Signature of ``name``'s newest completed output in the work folder, or None."""
        p = self.work / name / "latest"
        if not p.is_file():
            return None
        sig = p.read_text().strip()
        return sig if (self.work / name / sig / "_SUCCESS.json").is_file() else None

    def folder(self, name: str, sig: str) -> Path:
        return self.work / name / sig

    # -- running --------------------------------------------------------------------------
    def input_signatures(self, stage: Stage, run_missing: bool) -> dict[str, str]:
        sigs = {}
        for up in upstream(stage):
            if up in self.results:
                sigs[up] = self.results[up].signature
                continue
            if run_missing:
                sigs[up] = self.run(up).signature
                continue
            sig = self.latest(up) or self.flat_signature(stage, up)
            if sig is None and all(a in stage.optional for a in stage.inputs if producer_of(a) == up):
                sig = "absent"
            if sig is None:
                raise StageNotReady(f"stage {stage.name!r} needs the output of {up!r}: run `trajpipe "
                                    f"{STAGE_COMMAND.get(up, up)} --work {self.work}` first")
            sigs[up] = sig
        return sigs

    def flat_files(self, stage: Stage, up: str) -> dict[str, Path]:
        """The artifacts ``stage`` reads from ``up`` that lie flat in the work folder
        (``WORK/tasks.jsonl``: files a person placed or edited by hand)."""
        out = {}
        for art in stage.inputs:
            if producer_of(art) != up:
                continue
            model = STAGES[up].outputs[art]
            p = self.work / (f"{art}.json" if model is None else f"{art}.jsonl")
            if p.is_file():
                out[art] = p
        return out

    def flat_signature(self, stage: Stage, up: str) -> Optional[str]:
        """When ``up`` has no completed output, a signature for the hand-placed flat files
        ``stage`` needs from it (``flat-`` + SHA-256 of their contents), or None if there are none.
        Content-addressed, so an edited file gives new signatures downstream."""
        files = self.flat_files(stage, up)
        if not files:
            return None
        h = hashlib.sha256()
        for art, p in sorted(files.items()):
            h.update(art.encode())
            h.update(p.read_bytes())
        return "flat-" + h.hexdigest()[:16]

    def load(self, name: str, sig: str) -> StageResult:
        """Read a completed stage's outputs and marker back from the work folder (for a ``flat-``
        signature: the flat files in the work folder's root, missing ones empty). A JSONL
        artifact comes back as a :class:`pipeline.streams.JsonlSeq` over its file (records are
        read when iterated, never all at once) for a ``lazy`` stage, else as a list; a JSON
        artifact as its parsed value."""
        from pipeline.ingest import read_jsonl
        from pipeline.streams import JsonlSeq

        stage = STAGES[name]
        records = (lambda p, model: JsonlSeq(p, model)) if stage.lazy else read_jsonl
        if sig.startswith("flat-"):
            outputs: dict[str, Any] = {}
            for art, model in stage.outputs.items():
                p = self.work / (f"{art}.json" if model is None else f"{art}.jsonl")
                if model is None:
                    outputs[art] = json.loads(p.read_text(encoding="utf-8")) if p.is_file() else None
                else:
                    outputs[art] = records(p, model) if p.is_file() else []
            return StageResult(outputs, {}, [], {}, sig, True, 0.0)
        folder = self.folder(name, sig)
        marker = json.loads((folder / "_SUCCESS.json").read_text(encoding="utf-8"))
        outputs: dict[str, Any] = {}
        for art, model in stage.outputs.items():
            if model is None:
                p = folder / f"{art}.json"
                outputs[art] = json.loads(p.read_text(encoding="utf-8")) if p.exists() else None
            else:
                p = folder / f"{art}.jsonl"
                outputs[art] = records(p, model) if p.exists() else []
        rejects = []
        rp = folder / "_rejects.jsonl"
        if rp.exists():
            rejects = read_jsonl(rp, Reject)
        return StageResult(outputs, marker.get("stats") or {}, rejects, {}, sig, True, marker.get("seconds", 0.0))

    def gather_inputs(self, stage: Stage, sigs: dict[str, str]) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for art in stage.inputs:
            up = producer_of(art)
            if sigs.get(up) == "absent":
                data[art] = None
                continue
            if up not in self.results:
                self.results[up] = self.load(up, sigs[up])
            data[art] = self.results[up].outputs.get(art)
        return data

    def run(self, name: str, run_missing: bool = True) -> StageResult:
        """Run stage ``name`` (and, with ``run_missing``, any upstream stage not done in this
        process or the work folder), or reuse its completed output. Raises
        :class:`StageNotReady` when an input stage has no output and ``run_missing`` is False."""
        if name in self.results and not self.force:
            return self.results[name]
        stage = STAGES[name]
        sigs = self.input_signatures(stage, run_missing)
        sig = self.signature(stage, sigs)
        done = self.folder(name, sig) / "_SUCCESS.json"
        if done.is_file() and not self.force:
            res = self.load(name, sig)
            self.results[name] = res
            return res
        inputs = self.gather_inputs(stage, sigs)
        self.ctx.runtime.update({k: v for r in self.results.values() for k, v in r.runtime.items()})
        scratch = self.scratch(name, sig)
        scratch.mkdir(parents=True, exist_ok=True)
        self.ctx.scratch = scratch
        t0 = time.perf_counter()
        try:
            res = stage.run(inputs, self.section_of(stage), self.ctx)
        finally:
            self.ctx.scratch = None
        res.seconds = round(time.perf_counter() - t0, 2)
        res.signature = sig
        self.save(stage, sig, sigs, res)
        self._rebind(stage, sig, res)
        shutil.rmtree(scratch, ignore_errors=True)
        self.results[name] = res
        return res

    def save(self, stage: Stage, sig: str, input_sigs: dict[str, str], res: StageResult) -> None:
        """Write outputs into a temporary folder, then rename it to WORK/<stage>/<sig> and point
        ``latest`` at it (each step atomic)."""
        from pipeline.ingest import write_jsonl
        from pipeline.streams import JsonlSeq

        final = self.folder(stage.name, sig)
        tmp = final.parent / f".{sig}.tmp-{os.getpid()}-{_secrets.token_hex(3)}"
        tmp.mkdir(parents=True, exist_ok=True)
        for art, model in stage.outputs.items():
            val = res.outputs.get(art)
            if model is None:
                (tmp / f"{art}.json").write_text(json.dumps(val, indent=1, default=str, ensure_ascii=False) + "\n",
                                                 encoding="utf-8")
            elif isinstance(val, JsonlSeq):  # a streamed output: its file already has write_jsonl's bytes
                val.copy_to(tmp / f"{art}.jsonl")
            else:  # a list or any iterable of records, written as it is read
                write_jsonl(val if val is not None else [], tmp / f"{art}.jsonl")
        if res.rejects:
            write_jsonl(res.rejects, tmp / "_rejects.jsonl")
        marker = {"stage": stage.name, "signature": sig, "inputs": input_sigs, "code": code_version(),
                  "config": (self.section_of(stage).model_dump(mode="json") if stage.section else None),
                  "stats": res.stats, "rejects": len(res.rejects), "seconds": res.seconds,
                  "finished_unix": int(time.time())}
        (tmp / "_SUCCESS.json").write_text(json.dumps(marker, indent=1, default=str) + "\n", encoding="utf-8")
        if final.exists():  # a forced rerun replaces the old output
            shutil.rmtree(final)
        os.replace(tmp, final)
        latest_tmp = final.parent / f".latest.tmp-{os.getpid()}"
        latest_tmp.write_text(sig + "\n")
        os.replace(latest_tmp, final.parent / "latest")

    def _rebind(self, stage: Stage, sig: str, res: StageResult) -> None:
        """After :meth:`save`: a streamed output (a :class:`~pipeline.streams.JsonlSeq`, e.g. over
        a file in the stage's scratch folder, which is removed next) or one given as a one-pass
        iterator is replaced by a :class:`~pipeline.streams.JsonlSeq` over its saved file, so the
        later stages of this process read it from the work folder; lists stay in memory."""
        from pipeline.streams import JsonlSeq

        folder = self.folder(stage.name, sig)
        for art, model in stage.outputs.items():
            val = res.outputs.get(art)
            if model is not None and val is not None and not isinstance(val, (list, tuple)):
                res.outputs[art] = JsonlSeq(folder / f"{art}.jsonl", model)

    def load_lineage(self) -> None:
        """Load (from their markers) the results of every stage the loaded results were built
        from, following each marker's input signatures, so a process that ran only the last
        stages (a Ray worker, a stage command) still sees every earlier stage's stats."""
        todo = [(n, r.signature) for n, r in self.results.items()]
        while todo:
            name, sig = todo.pop()
            if not sig or sig.startswith(("flat-", "absent")):
                continue
            marker = self.folder(name, sig) / "_SUCCESS.json"
            if not marker.is_file():
                continue
            for up, up_sig in (json.loads(marker.read_text(encoding="utf-8")).get("inputs") or {}).items():
                if up not in self.results and up in STAGES and up_sig and not up_sig.startswith(("flat-", "absent")):
                    if (self.folder(up, up_sig) / "_SUCCESS.json").is_file():
                        self.results[up] = self.load(up, up_sig)
                        todo.append((up, up_sig))

    def plan(self, name: str) -> tuple[str, dict[str, str]]:
        """``(signature, input signatures)`` stage ``name`` would run under, from the newest
        complete outputs of its input stages (StageNotReady if one has none); runs nothing."""
        stage = STAGES[name]
        sigs = self.input_signatures(stage, run_missing=False)
        return self.signature(stage, sigs), sigs

    def artifact_path(self, artifact: str) -> Optional[Path]:
        """Path of ``artifact``'s file in the newest completed output of its stage, else a
        hand-placed ``WORK/<artifact>.jsonl``; None if neither exists."""
        name = producer_of(artifact)
        sig = self.results[name].signature if name in self.results else self.latest(name)
        model = STAGES[name].outputs[artifact]
        fname = f"{artifact}.json" if model is None else f"{artifact}.jsonl"
        if not sig or sig.startswith("flat-"):  # a hand-placed file in the work folder's root
            p = self.work / fname
            return p if p.is_file() else None
        p = self.folder(name, sig) / fname
        return p if p.exists() else None


def artifact_path(work: str | os.PathLike, artifact: str) -> Optional[Path]:
    """Path of ``artifact`` (e.g. ``"trajectories"``) in the work folder ``work``: the newest
    completed output of the stage that writes it, or None."""
    import pipeline.stages  # noqa: F401  (registers the stages)

    return Runner(RunConfig(work_dir=str(work))).artifact_path(artifact)


#: CLI command that runs each stage (``verify`` runs both verification stages).
STAGE_COMMAND = {"verify_tasks": "verify", "verify_trajectories": "verify"}
