"""The end-to-end Prefect flow: every registered stage (pipeline/stages.py), in order, through one
generic task wrapper.

The flow takes a :class:`pipeline.config.RunConfig` (Prefect validates it and shows it as a form
in its UI; prefect.yaml's parameters are one). Each task runs one stage through the
:class:`pipeline.runner.Runner` of this process: outputs go to the content-addressed work folder
and stay in memory for the next stage; the task returns only the stage's stats, so no record
(and nothing before anonymization) reaches Prefect's result storage. A stage whose output for
this config is already complete in the work folder is reused, so a rerun after a crash resumes.
"""
from __future__ import annotations

from typing import Any, Optional

from prefect import flow, task
from prefect.cache_policies import NO_CACHE

from pipeline.config import RunConfig

_RUNNERS: dict[str, Any] = {}


def runner_for(config: RunConfig, backend_obj: Any = None):
    """The process-wide :class:`pipeline.runner.Runner` of ``config`` (one per run id and work folder)."""
    import pipeline.stages  # noqa: F401  (registers the stages)
    from pipeline.runner import Context, Runner

    key = f"{config.run_id()}:{config.work_dir}"
    if key not in _RUNNERS:
        _RUNNERS[key] = Runner(config, Context(seed=config.seed, backend_obj=backend_obj))
    return _RUNNERS[key]


@task(name="stage", persist_result=False, cache_policy=NO_CACHE)
def stage_task(name: str, config: RunConfig) -> dict[str, Any]:
    """Run one stage (or reuse its completed output); returns ``{stage, signature, reused, seconds, stats}``."""
    res = runner_for(config).run(name, run_missing=False)
    return {"stage": name, "signature": res.signature, "reused": res.reused, "seconds": res.seconds,
            "stats": res.stats}


@flow(name="trajpipe-run", log_prints=False, persist_result=False)
def trajpipe_run(config: Optional[RunConfig] = None) -> dict[str, Any]:
    """Logs in, verified Parquet datasets out. ``config``: the run (default: every default, the
    bundled sample as input). Returns the manifest dict (also in OUT/manifest.json)."""
    from pipeline.runner import STAGES

    config = config or RunConfig()
    runner = runner_for(config)
    try:
        timeout = config.stage_timeout_minutes * 60 if config.stage_timeout_minutes else None
        for name in STAGES:
            stage_task.with_options(name=name, retries=config.stage_retries, retry_delay_seconds=[10, 60, 300],
                                    timeout_seconds=timeout)(name, config)
        return runner.results["export"].runtime["manifest"]
    finally:
        _RUNNERS.pop(f"{config.run_id()}:{config.work_dir}", None)


@flow(name="trajpipe-stage", log_prints=False, persist_result=False)
def trajpipe_stage(stage: str, config: Optional[RunConfig] = None) -> dict[str, Any]:
    """One stage over ``config.work_dir`` (its inputs: the newest complete outputs of the stages
    before it), e.g. a nightly ``rollout`` deployment on a GPU pool after a CPU deployment ran the
    stages before. Returns ``{stage, signature, reused, seconds, stats}``. Raises ValueError for an
    unknown stage, :class:`pipeline.runner.StageNotReady` when an input stage has no output."""
    from pipeline.runner import STAGES

    config = config or RunConfig()
    runner_for(config)
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}; stages: {', '.join(STAGES)}")
    try:
        return stage_task.with_options(name=stage)(stage, config)
    finally:
        _RUNNERS.pop(f"{config.run_id()}:{config.work_dir}", None)


def run_config(**overrides: Any) -> RunConfig:
    """A :class:`RunConfig` from nested section overrides, e.g.
    ``run_config(ingest={"input_path": p, "limit": 8}, rollout={"k": 2})`` (ConfigError if invalid)."""
    from pipeline.config import load_config

    return load_config(None, overrides)


if __name__ == "__main__":  # pragma: no cover
    print(trajpipe_run())
