"""Hidden-information audit: markers planted in every hidden part of every task never reach a
model-visible column of any dataset, and the exporter refuses to write when one does."""
from __future__ import annotations

import json
import os
import sys
import uuid

import pyarrow.parquet as pq
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from export_helpers import build_run, export_run  # noqa: E402

from pipeline.export.schemas import MODEL_VISIBLE  # noqa: E402
from pipeline.records import ToolCall  # noqa: E402


def _plant(run):
    """Unique markers in the reference solution, verifier, expected state hash and generation notes."""
    markers = {}
    for t in run["tasks"]:
        m = {part: f"HIDDEN{part.upper()}{uuid.uuid4().hex}" for part in ("ref", "verifier", "notes", "hash")}
        t.hidden.reference_solution.append(ToolCall(name="think", arguments={"thought": m["ref"]}))
        t.hidden.verifier["marker"] = m["verifier"]
        t.hidden.generation_notes["marker"] = m["notes"]
        markers[t.task_id] = m
    return markers


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    run = build_run(kinds=("cancel_reservation", "send_certificate"), tasks_per_bp=2, k=3)
    markers = _plant(run)
    out = str(tmp_path_factory.mktemp("audit"))
    paths = export_run(out, run)
    return {"run": run, "markers": markers, "paths": paths, "out": out}


def test_no_marker_in_any_model_visible_column(audited):
    all_markers = [v for m in audited["markers"].values() for v in m.values()]
    hashes = [t.hidden.expected_state_hash for t in audited["run"]["tasks"]]
    n_scanned = 0
    for name, cols in MODEL_VISIBLE.items():
        table = pq.read_table(audited["paths"][name], columns=list(cols))
        assert table.num_rows > 0, name  # every audited dataset has rows to scan
        text = json.dumps(table.to_pylist())
        n_scanned += table.num_rows
        for s in all_markers + hashes:
            assert s not in text, f"{name} leaks a hidden value"
    lf = open(audited["paths"]["llamafactory"]).read()
    for s in all_markers + hashes:
        assert s not in lf
    # the markers did reach the hidden, non-training places (the audit would see them)
    tasks_text = json.dumps(pq.read_table(audited["paths"]["tasks"], columns=["hidden"]).to_pylist())
    assert all(m["ref"] in tasks_text and m["notes"] in tasks_text for m in audited["markers"].values())
    assert n_scanned > 50


@pytest.mark.parametrize("where", ["assistant", "user", "tools"])
def test_exporter_refuses_a_leak(audited, tmp_path, where):
    run = audited["run"]
    t0 = run["tasks"][0]
    marker = audited["markers"][t0.task_id]["notes"]
    trajs = [tr.model_copy(deep=True) for tr in run["trajectories"]]
    victim = next(tr for tr in trajs if tr.task_id == t0.task_id)
    if where == "assistant":
        victim.messages[-1]["content"] += f" ({marker})"
    elif where == "user":
        victim.messages[1]["content"] += f" {audited['markers'][t0.task_id]['verifier']}"
    else:
        victim.tools = victim.tools + [{"type": "function", "function": {"name": "x", "description": marker}}]
    leaky = dict(run, trajectories=trajs)
    with pytest.raises(ValueError, match="leaks into a model-visible column"):
        export_run(str(tmp_path), leaky, card=False)


def test_rl_prompt_leak_is_refused(audited, tmp_path):
    run = audited["run"]
    t0 = run["tasks"][0].model_copy(deep=True)
    t0.visible.user_messages = t0.visible.user_messages + [t0.hidden.expected_state_hash]
    tasks = [t0] + run["tasks"][1:]
    with pytest.raises(ValueError, match="column of rl"):
        export_run(str(tmp_path), dict(run, tasks=tasks, trajectories=[], verdicts=[]), card=False)


def test_reference_arguments_allowed_as_calls_refused_as_text(audited, tmp_path):
    """An agent that makes the reference's own call (same argument values) is a demonstration,
    not a leak; the same value in text the agent writes is refused."""
    from export_helpers import DOMAIN, trajectory

    run = audited["run"]
    t0 = run["tasks"][0]
    marker = audited["markers"][t0.task_id]["ref"]  # the planted think(thought=marker) reference call
    calls = [c.model_dump() for c in t0.hidden.reference_solution]
    assert calls[-1] == {"name": "think", "arguments": {"thought": marker}}
    ok = trajectory(t0, 7, calls)
    from pipeline.verify import verify_trajectory

    common = dict(run, trajectories=run["trajectories"] + [ok],
                  verdicts=run["verdicts"] + [verify_trajectory(ok, t0, DOMAIN)])
    paths = export_run(str(tmp_path / "ok"), common, cap=3, card=False)
    sft = pq.read_table(paths["sft"]).to_pylist()
    assert any(marker in json.dumps(r["messages"]) for r in sft)  # exported: it is the agent's own call
    said = ok.model_copy(deep=True)
    said.messages[-1]["content"] += f" ({marker})"
    leaky = dict(common, trajectories=run["trajectories"] + [said])
    with pytest.raises(ValueError, match="leaks into a model-visible column"):
        export_run(str(tmp_path / "bad"), leaky, cap=3, card=False)


def test_task_labels_are_not_secrets_but_hidden_values_are():
    """A task's public labels (kind, variant, ids) may appear in rl metadata: every retail kind
    exports its rl rows; a planted hidden note value is still refused."""
    import pytest

    from pipeline.domains import get_domain
    from pipeline.export import rows as R
    from pipeline.export.audit import check_no_hidden_leak, hidden_secrets
    from pipeline.records import Blueprint
    from pipeline.rollout.prompting import system_prompt
    from pipeline.synthesize import build_package

    dom = get_domain("retail")
    tasks = []
    for kind in dom.task_kinds:
        bp = Blueprint(blueprint_id=f"retail-{kind}-abc123", domain="retail", intent=kind, action_signature=[],
                       required_tools=[], read_tools=[], initial_state_requirements={}, business_constraints=[],
                       success_condition="", failure_modes=[], source_log_ids=[], n_logs=0, n_success=0,
                       task_kind=kind)
        tasks.append(build_package(bp, dom, 0, 0))
    by_id = {t.task_id: t for t in tasks}
    rl = [R.rl_row(t, "train", lambda t: system_prompt(t.visible.policy, t.visible.tools, "compact")) for t in tasks]
    for t in tasks:
        assert t.task_kind not in hidden_secrets(t)
    check_no_hidden_leak(by_id, {"rl": rl})  # no false alarm on labels
    t0 = tasks[0]
    t0.hidden.generation_notes["planted"] = "HIDDEN-MARKER-7f3a9c"
    rl[0]["extra_info"] = dict(rl[0]["extra_info"] or {}, leak="HIDDEN-MARKER-7f3a9c")
    with pytest.raises(ValueError, match="refusing to export"):
        check_no_hidden_leak(by_id, {"rl": rl})


# ---- help text (hinted rollouts, pipeline.rollout.hints) never reaches an exported column


@pytest.fixture(scope="module")
def hinted(tmp_path_factory):
    from test_hint_exports import hinted_run

    run = hinted_run()
    out = str(tmp_path_factory.mktemp("hinted_audit"))
    return {"run": run, "paths": export_run(out, run, cap=2), "out": out}


def _help_lines(run, mode):
    from pipeline.export.audit import hint_lines

    by_id = {t.task_id: t for t in run["tasks"]}
    tr = next(t for t in run["trajectories"] if t.hint_mode == mode)
    return by_id[tr.task_id], hint_lines(by_id[tr.task_id], mode)


def test_hint_lines_rule(hinted):
    """Lines of >= 20 characters not in the ordinary visible prompt: the header and every plan
    step count; short lines (</tool_call>) and lines shared with the ordinary prompt do not."""
    from pipeline.export.audit import HINT_LINE_MIN, _ordinary_text
    from pipeline.rollout.hints import HINT_HEADER, hint_text
    from export_helpers import DOMAIN

    for mode in ("plan", "example"):
        task, lines = _help_lines(hinted["run"], mode)
        text = hint_text(task, DOMAIN, mode)
        assert lines and all(len(ln) >= HINT_LINE_MIN and ln in text for ln in lines)
        assert any(ln.startswith(HINT_HEADER.strip()) for ln in lines)
        assert not any(ln in _ordinary_text(task) for ln in lines)
        assert "</tool_call>" not in lines
    task, plan = _help_lines(hinted["run"], "plan")
    assert sum(ln[0].isdigit() for ln in plan) == len(task.hidden.reference_solution) + 1  # every step
    # a help line that the ordinary prompt also has is not help (planted into the policy: dropped)
    shared = task.model_copy(deep=True)
    shared.visible.policy += "\n" + plan[-1]
    from pipeline.export.audit import hint_lines

    assert plan[-1] not in hint_lines(shared, "plan") and len(hint_lines(shared, "plan")) == len(plan) - 1
    assert hint_lines(task, "guided") == hint_lines(task, "plan") and hint_lines(task, "none") == []  # guided shows the plan


def test_clean_hinted_export_passes_and_holds_no_help_line(hinted):
    """The export of a run with plan and example rollouts is written, and (read back
    independently) no help line of any of its helped tasks is in any string of any Parquet file
    or the LLaMA-Factory file."""
    from pipeline.export import SCHEMAS
    from pipeline.export.audit import hint_lines

    run, paths = hinted["run"], hinted["paths"]
    exported = {r["trajectory_id"]: r["hint_mode"] for r in pq.read_table(paths["sft"]).to_pylist()}
    assert {"plan", "example"} <= set(exported.values())
    by_id = {t.task_id: t for t in run["tasks"]}
    lines = {ln for t in run["trajectories"] if t.hint_mode in ("plan", "example")
             for ln in hint_lines(by_id[t.task_id], t.hint_mode)}
    assert len(lines) > 10
    texts = [json.dumps(pq.read_table(paths[n]).to_pylist(), ensure_ascii=False, default=str) for n in SCHEMAS]
    texts.append(open(paths["llamafactory"], encoding="utf-8").read())
    for text in texts:
        for ln in lines:
            assert ln not in text and json.dumps(ln, ensure_ascii=False)[1:-1] not in text


@pytest.mark.parametrize("mode,where", [("plan", "assistant"), ("example", "assistant"), ("plan", "system"),
                                        ("example", "user"), ("plan", "tool")])
def test_planted_help_line_withholds_that_rollout(hinted, tmp_path, mode, where):
    """One help line planted into a kept (sft) helped rollout's messages (a teacher that echoes its
    help): that rollout is withheld from every file (EXPORT_HELP_ECHO in rejects, without its
    messages); the rest of the export is written and holds no help line."""
    from pipeline.export import SCHEMAS

    run = hinted["run"]
    task, lines = _help_lines(run, mode)
    line = next(ln for ln in lines if not ln.startswith("#"))  # a step / conversation line, not the header
    trajs = [t.model_copy(deep=True) for t in run["trajectories"]]
    sft_ids = {r["trajectory_id"] for r in pq.read_table(hinted["paths"]["sft"]).to_pylist()}
    victim = next(t for t in trajs if t.hint_mode == mode and t.trajectory_id in sft_ids)
    role = {"assistant": "assistant", "system": "system", "user": "user", "tool": "tool"}[where]
    msg = [m for m in victim.messages if m["role"] == role and m.get("content")][-1]
    msg["content"] += f"\n{line}" if where != "assistant" else f" {line} "
    paths = export_run(str(tmp_path), dict(run, trajectories=trajs), cap=2, card=False)
    tables = {n: pq.read_table(paths[n]).to_pylist() for n in SCHEMAS if n in paths}
    echo = [r for r in tables["rejects"] if r["reason_code"] == "EXPORT_HELP_ECHO"]
    assert [r["id"] for r in echo] == [victim.trajectory_id] and echo[0]["messages"] == "[]"
    for name, rows in tables.items():
        text = json.dumps(rows, ensure_ascii=False, default=str)
        assert line not in text and json.dumps(line, ensure_ascii=False)[1:-1] not in text, name
        if name != "rejects":
            assert victim.trajectory_id not in text, name
    assert len(tables["sft"]) >= len(sft_ids) - 1 and tables["sft"]  # the others are still exported


def test_help_block_under_a_wrong_label_is_refused(hinted, tmp_path):
    """A whole help block in a rollout recorded as unhelped (hint_mode none) is caught by its header."""
    from export_helpers import DOMAIN
    from pipeline.rollout.hints import hint_text

    run = hinted["run"]
    trajs = [t.model_copy(deep=True) for t in run["trajectories"]]
    victim = next(t for t in trajs if t.hint_mode == "none")
    task = next(t for t in run["tasks"] if t.task_id == victim.task_id)
    victim.messages[0]["content"] += hint_text(task, DOMAIN, "plan")
    with pytest.raises(ValueError, match="help text .* leaks into column messages of .*refusing to export"):
        export_run(str(tmp_path), dict(run, trajectories=trajs), cap=2, card=False)


def test_helped_rollout_of_an_unknown_task_is_refused(hinted, tmp_path):
    run = hinted["run"]
    helped_task = next(t.task_id for t in run["trajectories"] if t.hint_mode == "plan")
    tasks = [t for t in run["tasks"] if t.task_id != helped_task]
    with pytest.raises(ValueError, match="cannot be regenerated"):
        export_run(str(tmp_path), dict(run, tasks=tasks), cap=2, card=False)


def test_example_tool_lines_the_conversation_made_itself_are_not_a_leak(hinted):
    """An example's tool-call / tool-response body line that the rollout itself called or received
    is the conversation's own text; the same line as a labelled example line is still help."""
    from pipeline.export.audit import check_no_hint_leak

    run = hinted["run"]
    task, lines = _help_lines(run, "example")
    body = next(ln for ln in lines if ln.startswith('{"name"'))  # the example's first tool call
    call = json.loads(body)
    tr = next(t for t in run["trajectories"] if t.task_id == task.task_id and t.hint_mode == "example")
    own = tr.model_copy(deep=True)
    own.messages.insert(-1, {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_x", "type": "function", "function": {"name": call["name"],
                                                          "arguments": json.dumps(call["arguments"])}}]})
    step = {"task_id": task.task_id, "trajectory_id": own.trajectory_id, "action": f"<tool_call>\n{body}\n</tool_call>"}
    check_no_hint_leak({task.task_id: task}, [own], {"steps": [step]})  # its own call: allowed
    with pytest.raises(ValueError, match="hint_mode example"):  # without making the call: help text
        check_no_hint_leak({task.task_id: task}, [tr], {"steps": [step]})
    labelled = next(ln for ln in lines if ln.startswith("Customer:"))
    with pytest.raises(ValueError, match="hint_mode example"):
        check_no_hint_leak({task.task_id: task}, [own], {"steps": [dict(step, action=labelled)]})
