"""The end-to-end Prefect flow: a table of contents over pipeline/ stages.

Each task is a thin call into the library. Task results are not persisted (records pass in
memory), so no intermediate personal data lands in Prefect's result storage.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from prefect import flow, task

from pipeline import stages


def _timed(fn):
    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        out = fn(*args, **kwargs)
        return out, round(time.perf_counter() - t0, 2)
    return wrapper


@task(name="ingest", persist_result=False)
def ingest_task(input_path: str, fmt: str | None, limit: int | None):
    return _timed(stages.ingest_stage)(input_path, fmt, limit)


@task(name="anonymize", persist_result=False)
def anonymize_task(records, secret: str | None):
    return _timed(stages.anonymize_stage)(records, secret)


@task(name="extract_blueprints", persist_result=False)
def blueprints_task(records, domain: str):
    return _timed(stages.blueprints_stage)(records, domain)


@task(name="synthesize", persist_result=False)
def synthesize_task(blueprints, n: int, seed: int, denylist):
    return _timed(stages.synthesize_stage)(blueprints, n, seed, denylist)


@task(name="verify_task", persist_result=False)
def verify_tasks_task(tasks):
    return _timed(stages.verify_tasks_stage)(tasks)


@task(name="rollout", persist_result=False)
def rollout_task(tasks, cfg: dict[str, Any]):
    return _timed(stages.rollout_stage)(tasks, **cfg)


@task(name="verify_trajectory", persist_result=False)
def verify_trajectories_task(trajs, tasks):
    return _timed(stages.verify_trajectories_stage)(trajs, tasks)


@task(name="select_dedupe", persist_result=False)
def select_task(trajs, verdicts, cap: int):
    return _timed(stages.select_stage)(trajs, verdicts, cap)


@task(name="export", persist_result=False)
def export_task(out_dir: str, bundle: dict[str, Any]):
    return _timed(stages.export_stage)(out_dir, bundle)


@flow(name="trajpipe-run", log_prints=False, persist_result=False)
def trajpipe_run(input_path: str | None = None, out_dir: str = "out", limit: int | None = None,
                 tasks_per_blueprint: int = 2, k: int = 4, cap: int = 2, backend: str = "auto",
                 model: str | None = None, seed: int = 0, max_turns: int = 8, max_new_tokens: int = 64,
                 temperature: float = 0.7, constrain: str = "grammar", fmt: str | None = None,
                 grounded: bool = True, hints: str = "guided", hint_when: str = "always",
                 domain: str = "auto", batch_size: int = 8, prompt_style: str = "compact",
                 user_sim: str = "scripted", tool_format: str = "hermes", fault_rate: float = 0.0,
                 fault_kinds: str | None = None, base_url: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                 max_concurrency: int = 8, holdout_blueprints: str | None = None,
                 split_by: str = "customer,period",
                 gamma: float = 1.0, difficulty_band: str = "0.0,1.0") -> dict[str, Any]:
    """Logs in, verified Parquet datasets out. Returns the manifest dict (also in OUT/manifest.json)."""
    input_path = input_path or str(stages.SAMPLE_INPUT)
    config = dict(input_path=input_path, out_dir=out_dir, limit=limit, tasks_per_blueprint=tasks_per_blueprint,
                  k=k, cap=cap, backend=backend, model=model, seed=seed, max_turns=max_turns,
                  max_new_tokens=max_new_tokens, temperature=temperature, constrain=constrain,
                  grounded=grounded, hints=hints, hint_when=hint_when, fmt=fmt, domain=domain, batch_size=batch_size, prompt_style=prompt_style, user_sim=user_sim,
                  tool_format=tool_format, fault_rate=fault_rate, fault_kinds=fault_kinds, base_url=base_url,
                  api_key_env=api_key_env, max_concurrency=max_concurrency,
                  holdout_blueprints=holdout_blueprints, split_by=split_by, gamma=gamma,
                  difficulty_band=difficulty_band)
    wall: dict[str, float] = {}
    ing, wall["ingest"] = ingest_task(input_path, fmt, limit)
    anon, wall["anonymize"] = anonymize_task(ing.records, None)
    bps, wall["blueprints"] = blueprints_task(anon.records, domain)
    syn, wall["synthesize"] = synthesize_task(bps, tasks_per_blueprint, seed, anon.denylist)
    tv, wall["verify_task"] = verify_tasks_task(syn.tasks)
    good = [t for t, v in zip(syn.tasks, tv) if v.passed]
    ro, wall["rollout"] = rollout_task(good, dict(backend=backend, model=model, k=k, max_turns=max_turns,
                                                  max_new_tokens=max_new_tokens, temperature=temperature,
                                                  constrain=constrain, grounded=grounded, hints=hints,
                                                  hint_when=hint_when, seed=seed, batch_size=batch_size,
                                                  prompt_style=prompt_style, user_sim=user_sim,
                                                  tool_format=tool_format, fault_rate=fault_rate,
                                                  fault_kinds=fault_kinds, base_url=base_url,
                                                  api_key_env=api_key_env, max_concurrency=max_concurrency,
                                                  failure_modes={b.blueprint_id: b.failure_modes for b in bps}))
    verdicts, wall["verify_trajectory"] = verify_trajectories_task(ro.trajectories, good)
    tv = stages.difficulty_stage(tv, verdicts, difficulty_band)  # pass-rate band over the k rollouts
    sel, wall["select_dedupe"] = select_task(ro.trajectories, verdicts, cap)
    bundle = stages.make_bundle(config=config, ingest=ing, anonymize=anon, blueprints=bps, synthesis=syn,
                                task_verdicts=tv, rollout=ro, verdicts=verdicts, selection=sel, wall=wall)
    manifest, wall["export"] = export_task(out_dir, bundle)
    return manifest


if __name__ == "__main__":  # pragma: no cover
    print(trajpipe_run())
