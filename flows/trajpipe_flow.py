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

from contextlib import contextmanager, nullcontext
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


def gpu_slot_needed(config: RunConfig, stage: str) -> bool:
    """True when ``stage`` would load a GPU engine under ``config``: the rollout stage with the
    vllm backend (``auto`` where vLLM imports) and ``rollout.gpu_concurrency_limit`` set."""
    if stage != "rollout" or not config.rollout.gpu_concurrency_limit:
        return False
    from pipeline.rollout.backends import resolve_backend

    return resolve_backend(config.rollout.backend) == "vllm"


@contextmanager
def gpu_slot(config: RunConfig, stage: str):
    """Hold one slot of the Prefect global concurrency limit ``rollout.gpu_concurrency_limit``
    while the body runs, when :func:`gpu_slot_needed` (else nothing). The limit must exist
    (``prefect gcl create gpu --limit 1``): a missing one raises instead of running unlimited."""
    if not gpu_slot_needed(config, stage):
        yield
        return
    from prefect.concurrency.sync import concurrency

    with concurrency(config.rollout.gpu_concurrency_limit, occupy=1, strict=True):
        yield


def _stage_has_work(runner: Any, name: str) -> bool:
    """True when stage ``name`` is not complete and some shard of it is not finished (so running it
    loads the teacher); planning needs the stages before it complete."""
    import pipeline.stages as st
    from pipeline.runner import STAGES, StageNotReady

    try:
        sig, sigs = runner.plan(name)
    except StageNotReady:
        return True
    if (runner.folder(name, sig) / "_SUCCESS.json").is_file():
        return False
    stage = STAGES[name]
    inputs = runner.gather_inputs(stage, sigs)
    scratch = runner.scratch(name, sig)
    n = st.shard_count(name, inputs, runner.section_of(stage))
    return any(not st.shard_done(name, scratch, i) for i in range(n))


@task(name="stage", persist_result=False, cache_policy=NO_CACHE)
def stage_task(name: str, config: RunConfig) -> dict[str, Any]:
    """Run one stage (or reuse its completed output); returns ``{stage, signature, reused, seconds, stats}``.
    A rollout stage that will load a vLLM engine holds a GPU slot (:func:`gpu_slot`)."""
    runner = runner_for(config)
    held = gpu_slot(config, name) if gpu_slot_needed(config, name) and _stage_has_work(runner, name) else nullcontext()
    with held:
        res = runner.run(name, run_missing=False)
    return {"stage": name, "signature": res.signature, "reused": res.reused, "seconds": res.seconds,
            "stats": res.stats}


def run_one_shard(name: str, config: RunConfig, sig: str, index: int) -> bool:
    """Shard ``index`` of stage ``name`` (signature ``sig``, planned by the flow's process) into
    the work folder, in this process (a Ray worker): its inputs come from the work folder."""
    import pipeline.stages as st
    from pipeline.runner import STAGES, Runner

    runner = Runner(config)  # a fresh process: inputs come from the work folder
    stage = STAGES[name]
    sigs = runner.input_signatures(stage, run_missing=False)
    inputs = runner.gather_inputs(stage, sigs)
    return st.run_shard(name, inputs, runner.section_of(stage), config.seed, index, runner.scratch(name, sig))


@task(name="shard", persist_result=False, cache_policy=NO_CACHE)
def shard_task(name: str, config: RunConfig, sig: str, index: int) -> int:
    """One shard of a sharded stage (anonymize, synthesize, verify_tasks, rollout,
    verify_trajectories) written to the work folder: a Ray worker's unit; the stage then finds the
    shards done and only merges them. A rollout shard on vLLM holds a GPU slot. Returns ``index``."""
    with gpu_slot(config, name):
        run_one_shard(name, config, sig, index)
    return index


def _run_stages(config: RunConfig, parallel: bool) -> dict[str, Any]:
    import pipeline.stages as st
    from pipeline.runner import STAGES

    timeout = config.stage_timeout_minutes * 60 if config.stage_timeout_minutes else None
    opts = dict(retries=config.stage_retries, retry_delay_seconds=[10, 60, 300], timeout_seconds=timeout)
    runner = runner_for(config)
    for name in STAGES:
        stage = STAGES[name]
        if parallel and name in st.SHARDED_STAGES and st.remote_shards(name, runner.section_of(stage)):
            sig, sigs = runner.plan(name)
            if not (runner.folder(name, sig) / "_SUCCESS.json").is_file():
                inputs = runner.gather_inputs(stage, sigs)
                scratch = runner.scratch(name, sig)
                n = st.shard_count(name, inputs, runner.section_of(stage))
                futures = [shard_task.with_options(name=f"{name}-shard-{i}", **opts).submit(name, config, sig, i)
                           for i in range(n) if not st.shard_done(name, scratch, i)]
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
    """The stages with Prefect's RayTaskRunner: the shards of anonymize (its detectors),
    synthesize, verify_tasks, rollout (each shard loads the teacher) and verify_trajectories run in
    parallel on Ray workers, then each stage merges its shards in order; blueprints, select and
    export run in the flow's process."""
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
