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


@task(name="rollout_shard", persist_result=False, cache_policy=NO_CACHE)
def rollout_shard_task(config: RunConfig, index: int) -> int:
    """Roll out one shard of the rollout stage into the work folder (a Ray worker's unit); the
    rollout stage then finds every shard done and only merges them. Returns ``index``."""
    import pipeline.stages as st
    from pipeline.runner import STAGES, Runner

    runner = Runner(config)  # a fresh process: inputs come from the work folder
    sig, sigs = runner.plan("rollout")
    inputs = runner.gather_inputs(STAGES["rollout"], sigs)
    st.rollout_shard(inputs, config.rollout, config.seed, index, runner.folder("rollout", sig).parent / f".{sig}.partial")
    return index


def _run_stages(config: RunConfig, parallel: bool) -> dict[str, Any]:
    from pipeline.runner import STAGES

    timeout = config.stage_timeout_minutes * 60 if config.stage_timeout_minutes else None
    opts = dict(retries=config.stage_retries, retry_delay_seconds=[10, 60, 300], timeout_seconds=timeout)
    runner = runner_for(config)
    for name in STAGES:
        if name == "rollout" and parallel:
            import pipeline.stages as st

            sig, sigs = runner.plan("rollout")
            done = runner.folder("rollout", sig) / "_SUCCESS.json"
            if not done.is_file():
                shards = st.rollout_plan(runner.gather_inputs(STAGES["rollout"], sigs), config.rollout)
                futures = [rollout_shard_task.with_options(name=f"rollout-shard-{i}", **opts).submit(config, i)
                           for i in range(len(shards))]
                for f in futures:
                    f.result()
        stage_task.with_options(name=name, **opts)(name, config)
    return runner.results["export"].runtime["manifest"]


@flow(name="trajpipe-run", log_prints=False, persist_result=False)
def trajpipe_run(config: Optional[RunConfig] = None) -> dict[str, Any]:
    """Logs in, verified Parquet datasets out. ``config``: the run (default: every default, the
    bundled sample as input). Returns the manifest dict (also in OUT/manifest.json)."""
    config = config or RunConfig()
    try:
        if config.runner == "ray":
            from prefect_ray import RayTaskRunner

            from prefect.client.orchestration import get_client

            with get_client(sync_client=True) as client:  # Ray workers report to this flow's API server
                env = {"PREFECT_API_URL": str(client.api_url).rstrip("/")}
            init: dict[str, Any] = {"runtime_env": {"env_vars": env}}
            if not config.ray_address:
                init["num_cpus"] = config.ray_workers
            task_runner = RayTaskRunner(address=config.ray_address, init_kwargs=init)
            return _ray_run.with_options(task_runner=task_runner)(config)
        return _run_stages(config, parallel=False)
    finally:
        _RUNNERS.pop(f"{config.run_id()}:{config.work_dir}", None)


@flow(name="trajpipe-run-ray", log_prints=False, persist_result=False)
def _ray_run(config: RunConfig) -> dict[str, Any]:
    """The stages with Prefect's RayTaskRunner: rollout shards run in parallel on Ray workers
    (each loads the teacher once per shard); the other stages run one after another."""
    return _run_stages(config, parallel=True)


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
