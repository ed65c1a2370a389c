"""Data for the training tests, and the fast checks of pipeline/train (no model weights).

``library_export(out)`` writes a real export of the small library domain (docs/domains.md): tasks
from the real generator, trajectories that replay each task's reference solution in a real
sandbox (a confirmation turn before the first write, a closing answer; refusals answered in text)
or drop its writes, every one judged by the real verifier, exported by the real exporter. The
library policy is short (a row is ~700 tokens against ~3,500 on airline), which keeps real training
steps on this CPU to seconds.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from pipeline.domains import get_domain
from pipeline.records import Blueprint, PolicyRule, TaskPackage, Trajectory
from pipeline.rollout.prompting import system_prompt
from pipeline.sandbox import Sandbox
from pipeline.synthesize import build_package
from pipeline.verify import verify_task, verify_trajectory

LIB = get_domain("library")
HOLDOUT_KIND = "refuse_renew_overdue"


def blueprint(kind: str) -> Blueprint:
    return Blueprint(blueprint_id=f"library-{kind}", domain="library", intent=kind, action_signature=[f"{kind}(...)"],
                     required_tools=[], read_tools=["find_member", "get_loan"], initial_state_requirements={},
                     business_constraints=[PolicyRule(rule_id="R1", text="rule")], success_condition="state matches",
                     failure_modes=[], source_log_ids=[f"log-{kind}"], n_logs=1, n_success=1, task_kind=kind,
                     skills=LIB.skills_for_kind(kind))


def trajectory(task: TaskPackage, idx: int, calls: list[dict[str, Any]], refuse: bool) -> Trajectory:
    """An agent that makes ``calls`` in order (asking to confirm before the first write), then
    answers (a refusal says why)."""
    sb = Sandbox(LIB, task.hidden.initial_state)
    msgs: list[dict[str, Any]] = [{"role": "system", "content": system_prompt(task.visible.policy, task.visible.tools)},
                                  {"role": "user", "content": task.visible.instruction}]
    users = list(task.visible.user_messages)
    log, confirmed = [], False
    for i, c in enumerate(calls):
        if LIB.tools[c["name"]].writes and not confirmed:
            msgs.append({"role": "assistant", "content": f"I can do that ({c['name']} on {c['arguments']}). Shall I proceed?"})
            msgs.append({"role": "user", "content": users.pop(0) if users else "Yes."})
            confirmed = True
        res = sb.call(c["name"], c["arguments"])
        msgs.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{i}", "type": "function", "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}}]})
        msgs.append({"role": "tool", "tool_call_id": f"call_{i}", "name": c["name"], "content": res.content})
        log.append({"step": i, "name": c["name"], "arguments": json.dumps(c["arguments"]), "valid_json": True,
                    "error": res.error_code})
    final = ("I'm sorry, the library policy does not allow renewing this loan, so I cannot do that." if refuse
             else "Done. Is there anything else I can help with?")
    msgs.append({"role": "assistant", "content": final + " " * idx})
    return Trajectory(trajectory_id=f"{task.task_id}-r{idx}", task_id=task.task_id, blueprint_id=task.blueprint_id,
                      sample_index=idx, model="constructed", backend="replay", messages=msgs, tools=task.visible.tools,
                      tool_calls=log, final_state_hash=sb.state_hash(), finish_reason="agent_stop",
                      n_turns=sum(m["role"] == "assistant" for m in msgs), prompt_tokens=100,
                      completion_tokens=40 + idx, seed=idx)


def library_run(tasks_per_bp: int = 3, k: int = 3) -> dict[str, list]:
    """Per kind a blueprint, ``tasks_per_bp`` tasks and ``k`` rollouts each: ``k - 1`` replays of the
    reference, one without its write calls (fails on action tasks)."""
    bps, tasks, tverd, trajs, verdicts = [], [], [], [], []
    for j, kind in enumerate(LIB.task_kinds):
        bp = blueprint(kind)
        bps.append(bp)
        for i in range(tasks_per_bp):
            t = build_package(bp, LIB, i, j)
            tasks.append(t)
            tverd.append(verify_task(t, LIB))
            ref = [c.model_dump() for c in t.hidden.reference_solution]
            for s in range(k):
                calls = ref if s < k - 1 else [c for c in ref if not LIB.tools[c["name"]].writes]
                tr = trajectory(t, s, calls, refuse=t.expected_outcome == "refusal")
                trajs.append(tr)
                verdicts.append(verify_trajectory(tr, t, LIB))
    return {"blueprints": bps, "tasks": tasks, "task_verdicts": tverd, "trajectories": trajs, "verdicts": verdicts}


def library_export(out: str | Path, cap: int = 2, holdout: tuple[str, ...] = (f"library-{HOLDOUT_KIND}",),
                   run: dict | None = None) -> dict[str, Any]:
    """Export :func:`library_run` into ``out`` (blueprint splits, ``holdout`` held out); returns the run."""
    from pipeline.export import export_all
    from pipeline.select import select

    run = run or library_run()
    sel = select(run["trajectories"], run["verdicts"], cap=cap)
    export_all(str(out), kept=sel.kept, rejects=sel.rejected, tasks=run["tasks"], task_verdicts=run["task_verdicts"],
               blueprints=run["blueprints"], groups=sel.groups, quarantine=[],
               manifest={"config": {"seed": 0, "max_turns": 5, "max_new_tokens": 48, "prompt_style": "compact"},
                         "model": "constructed", "seed": 0},
               verdicts=run["verdicts"], system_prompt=lambda t: system_prompt(t.visible.policy, t.visible.tools),
               holdout_blueprints=list(holdout), source_keys={b.blueprint_id: {} for b in run["blueprints"]})
    return run


@pytest.fixture(scope="module")
def lib_out(tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("lib")
    run = library_export(out)
    return out, run


# ------------------------------------------------------------------ fast checks (no weights)
def test_constructed_library_rollouts_verify_and_split(lib_out):
    out, run = lib_out
    assert all(v.passed for v in run["task_verdicts"])
    passed = sum(v.passed for v in run["verdicts"])
    assert passed >= len(run["tasks"]) * 2  # every reference replay verifies
    sft = pq.read_table(out / "sft.parquet").to_pylist()
    splits = {r["split"] for r in sft}
    assert "train" in splits and "holdout" in splits
    assert {r["blueprint_id"] for r in sft if r["split"] == "holdout"} == {f"library-{HOLDOUT_KIND}"}


def test_train_rows_are_the_train_split_only(lib_out):
    pytest.importorskip("datasets")
    from pipeline.train.sft import load_train_rows

    out, _ = lib_out
    sft = pq.read_table(out / "sft.parquet").to_pylist()
    ds = load_train_rows(out)
    assert len(ds) == sum(r["split"] == "train" for r in sft) > 0
    assert ds.column_names == ["messages", "tools"]
    calls = [tc for row in ds for m in row["messages"] if m["role"] == "assistant" for tc in (m["tool_calls"] or [])]
    assert calls and all(isinstance(tc["function"]["arguments"], dict) for tc in calls)  # objects, as templates expect
    assert len(load_train_rows(out, max_rows=2)) == 2


def test_no_train_rows_is_a_clear_error(tmp_path):
    pytest.importorskip("datasets")
    from pipeline.train import NoTrainRows
    from pipeline.train.sft import load_train_rows

    run = library_run(tasks_per_bp=1, k=1)
    for v in run["verdicts"]:
        v.passed = False
    library_export(tmp_path, run=run)
    with pytest.raises(NoTrainRows, match="no train rows"):
        load_train_rows(tmp_path)


def test_eval_tasks_are_rebuilt_whole_from_the_export(lib_out):
    from pipeline.train.evaluate import load_split_tasks

    out, run = lib_out
    rl = pq.read_table(out / "rl.parquet").to_pylist()
    for split in ("train", "holdout"):
        got = load_split_tasks(out, split)
        want = [t for t in run["tasks"] if t.task_id in {r["task_id"] for r in rl if r["split"] == split}]
        assert got and [t.model_dump() for t in got] == [t.model_dump() for t in want]
    assert len(load_split_tasks(out, "train", limit=1)) == len({t.blueprint_id for t in load_split_tasks(out, "train")})
    # without tasks.parquet the task comes from the rl row's ground truth (same verifier inputs)
    (out / "tasks.parquet").rename(out / "tasks.parquet.bak")
    try:
        gt_tasks = load_split_tasks(out, "holdout")
    finally:
        (out / "tasks.parquet.bak").rename(out / "tasks.parquet")
    full = load_split_tasks(out, "holdout")
    assert [(t.task_id, t.hidden.expected_state_hash, t.hidden.initial_state) for t in gt_tasks] == \
           [(t.task_id, t.hidden.expected_state_hash, t.hidden.initial_state) for t in full]


def test_pass_at_k_scores_per_blueprint_and_overall():
    from pipeline.train.evaluate import score_rollouts

    run = library_run(tasks_per_bp=2, k=3)
    tasks = run["tasks"][:4]  # 2 blueprints x 2 tasks
    ids = {t.task_id for t in tasks}
    trajs = [t for t in run["trajectories"] if t.task_id in ids]
    verdicts = [v for v in run["verdicts"] if v.task_id in ids]
    # force known pass counts: task 0: 3/3, task 1: 0/3, task 2: 1/3, task 3: 2/3
    want = [3, 0, 1, 2]
    for t, c in zip(tasks, want):
        vs = [v for v in verdicts if v.task_id == t.task_id]
        for i, v in enumerate(vs):
            v.passed = i < c
    res = score_rollouts(tasks, trajs, verdicts, k=3)
    p1 = [r["pass_at_1"] for r in res["per_task"]]
    assert p1 == [1.0, 0.0, round(1 / 3, 4), round(2 / 3, 4)]
    assert [r["pass_at_k"] for r in res["per_task"]] == [1.0, 0.0, 1.0, 1.0]  # k = n: any pass
    assert res["overall"]["pass_at_1"] == round(sum([1, 0, 1 / 3, 2 / 3]) / 4, 4)
    assert res["overall"]["rollouts"] == 12 and res["overall"]["passes"] == 6
    bp0, bp1 = tasks[0].blueprint_id, tasks[2].blueprint_id
    assert res["per_blueprint"][bp0]["pass_at_1"] == 0.5 and res["per_blueprint"][bp1]["pass_at_1"] == 0.5
    # k < n: the unbiased estimator, 1 - C(n-c, k)/C(n, k); n=3, c=1, k=2 -> 1 - 1/3
    res2 = score_rollouts(tasks, trajs, verdicts, k=2)
    assert res2["per_task"][2]["pass_at_k"] == round(1 - 1 / 3, 4)


def test_training_template_renders_what_the_harness_shows():
    """The training template (assistant-only loss) renders a row exactly as the harness prompts the
    bundled model (render_for_model + its own ChatML template), so training teaches the format the
    harness asks for."""
    from transformers import AutoTokenizer

    from pipeline.rollout.models import ModelNotFound, default_model, ensure_safetensors
    from pipeline.rollout.prompting import render_for_model
    from pipeline.trl_env import TRAINING_CHAT_TEMPLATE

    try:
        folder = ensure_safetensors(default_model())
    except ModelNotFound as exc:
        pytest.skip(str(exc))
    tok = AutoTokenizer.from_pretrained(folder)
    run = library_run(tasks_per_bp=1, k=1)
    msgs = run["trajectories"][0].messages
    harness = tok.apply_chat_template(render_for_model(msgs), tokenize=False)
    trained = tok.apply_chat_template(msgs, tokenize=False, chat_template=TRAINING_CHAT_TEMPLATE)
    assert trained == harness


@pytest.mark.parametrize("args, message", [
    (["train", "--data", "no-such-dir", "--out", "m"], "no sft.parquet"),
    (["eval", "--data", ".", "--split", "nope"], "--split must be one of"),
    (["improve", "--n-holdout", "2"], "at least 3"),
    (["improve", "--hints", "bogus"], "rollout.hints"),
    (["improve", "--train-from", "nowhere"], "--train-from"),
    (["improve", "--method", "qlora"], "--method must be one of"),
])
def test_cli_refuses_bad_options_before_running_anything(args, message, tmp_path):
    from typer.testing import CliRunner

    from pipeline.cli import app

    r = CliRunner().invoke(app, args + (["--out", str(tmp_path / "o")] if args[0] == "improve" else []))
    assert r.exit_code == 2, r.output
    assert message in " ".join(r.output.split()), r.output
    assert not (tmp_path / "o").exists()
