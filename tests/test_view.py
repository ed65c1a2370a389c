"""trajpipe view: the static HTML report of a run, checked on a real run's outputs.

The run is built from the pipeline's own stages without a model
(the anonymization report is a real run's, recorded: REAL_ANON_REPORT), real airline tasks are
synthesized and task-verified, rollouts are constructed (reference replays, a read-only mutant,
one with a repeated call, one helped rollout with an injected fault; tests/export_helpers.py) and
judged by the real trajectory verifier, then the real exporter writes the Parquet datasets. The
work folder (JSONL) and the dataset folder are both written, as `trajpipe export` leaves them.

Screenshots and DOM checks in headless Chromium are in tests/test_view_browser.py.
"""
from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from export_helpers import DOMAIN, build_run, reference_calls, trajectory

from pipeline.view import ViewInputError, build_view, load_run, render_view, safe_name

HIDDEN_SECTION = re.compile(r'<section class="panel hidden-part"[^>]*>.*?</section>', re.S)


def _write_jsonl(path: Path, records) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for r in records:
            fh.write(json.dumps(r.model_dump(mode="json") if hasattr(r, "model_dump") else r) + "\n")


def make_run(root: Path, anonymization: dict | None = None) -> dict:
    """Work folder ``root/work`` + dataset folder ``root/out`` of a small real run (see module doc).
    Returns the run dict of export_helpers.build_run plus ``work``, ``out`` and the ids of the
    interesting trajectories."""
    from pipeline.export import export_all
    from pipeline.rollout.prompting import system_prompt
    from pipeline.select import select
    from pipeline.verify import verify_trajectory

    run = build_run(kinds=("cancel_reservation", "send_certificate"), tasks_per_bp=1, k=3)
    task = run["tasks"][0]
    # a rollout that repeats its first read: a violation pinned at step 1
    calls = reference_calls(task)
    rep = trajectory(task, 7, [calls[0]] + calls, tag=" repeat")
    v_rep = verify_trajectory(rep, task, DOMAIN)
    assert not v_rep.passed and any(x["code"] == "TRAJ_REPEATED_CALL" and x["step"] == 1 for x in v_rep.violations), \
        v_rep.violations
    # a helped rollout that met an injected fault (labels as the harness records them)
    helped = run["trajectories"][0].model_copy(update={
        "trajectory_id": task.task_id + "-guided-s0", "sample_index": 8, "hint_mode": "guided",
        "faults": [{"step": 1, "tool": calls[1]["name"], "kind": "timeout"}]})
    v_helped = verify_trajectory(helped, task, DOMAIN)
    run["trajectories"] += [rep, helped]
    run["verdicts"] += [v_rep, v_helped]
    work, out = root / "work", root / "out"
    work.mkdir(parents=True)
    for name, key in (("trajectories", "trajectories"), ("verdicts", "verdicts"), ("tasks", "tasks"),
                      ("task_verdicts", "task_verdicts"), ("blueprints", "blueprints")):
        _write_jsonl(work / f"{name}.jsonl", run[key])
    if anonymization is not None:
        (work / "anonymization_report.json").write_text(json.dumps(anonymization), encoding="utf-8")
    sel = select(run["trajectories"], run["verdicts"], cap=2)
    export_all(str(out), kept=sel.kept, rejects=sel.rejected, tasks=run["tasks"], task_verdicts=run["task_verdicts"],
               blueprints=run["blueprints"], groups=sel.groups, quarantine=[],
               manifest={"config": {"seed": 0, "work": str(work)}, "model": "constructed", "backend": "replay",
                         "seed": 0, "anonymization_report": anonymization or {}},
               verdicts=run["verdicts"], system_prompt=lambda t: system_prompt(t.visible.policy, t.visible.tools))
    failing = next(v.trajectory_id for v in run["verdicts"] if v.reason_codes == ["TRAJ_WRONG_FINAL_STATE"])
    return {**run, "work": work, "out": out, "repeat_id": rep.trajectory_id, "helped_id": helped.trajectory_id,
            "passing_id": run["trajectories"][0].trajectory_id, "wrong_state_id": failing}


#: The anonymizer's report of a real run (tau-bench airline logs, 152 records, presidio + the
#: project's recognizers), as written to anonymization_report.json: counts only, no values.
#: Recorded rather than recomputed so this file loads no spaCy model (and does not depend on the
#: anonymizer's work in progress); tests/test_anonymize*.py check the report itself.
REAL_ANON_REPORT = json.loads('{"by_entity": {"ADDRESS_LINE2": 101, "CITY": 101, "DATE_OF_BIRTH": 1179, "EMAIL_ADDRESS": 108, "FIRST_NAME": 1463, "LAST_FOUR": 257, "LAST_NAME": 1377, "PAYMENT_ID": 1818, "RESERVATION_ID": 2527, "STREET_ADDRESS": 101, "USER_ID": 1153, "ZIP": 101}, "detections": {"ADDRESS_LINE2": 101, "CITY": 101, "DATE_OF_BIRTH": 1179, "EMAIL_ADDRESS": 108, "FIRST_NAME": 1128, "LAST_FOUR": 257, "LAST_NAME": 1128, "PAYMENT_ID": 1802, "PERSON": 279, "RESERVATION_ID": 2495, "STREET_ADDRESS": 101, "USER_ID": 1144, "ZIP": 101}, "distinct_real_values": 730, "entities": {"ADDRESS_LINE2": 101, "CITY": 101, "DATE_OF_BIRTH": 454, "EMAIL_ADDRESS": 108, "FIRST_NAME": 432, "LAST_FOUR": 146, "LAST_NAME": 438, "PAYMENT_ID": 440, "RESERVATION_ID": 541, "STREET_ADDRESS": 101, "USER_ID": 152, "ZIP": 101}, "ner_cache_hits": 353, "person_spans_dropped": 297, "phone_spans_dropped": 0, "records": 152, "replacements": {"ADDRESS_LINE2": 101, "CITY": 101, "DATE_OF_BIRTH": 1179, "EMAIL_ADDRESS": 108, "FIRST_NAME": 1463, "LAST_FOUR": 257, "LAST_NAME": 1377, "PAYMENT_ID": 1818, "RESERVATION_ID": 2527, "STREET_ADDRESS": 101, "USER_ID": 1153, "ZIP": 101}, "residual": {"by_entity": {}, "count": 0, "enabled": true, "items": [], "real_values": 0, "records_scanned": 152}, "sources": {"DateOfBirthRecognizer": 51, "EmailRecognizer": 7, "LastFourRecognizer": 120, "NameContextRecognizer": 1, "PaymentIdRecognizer": 24, "ReservationIdContextRecognizer": 98, "ReservationIdRecognizer": 623, "SpacyRecognizer": 278, "UserIdRecognizer": 288, "derived:user_id_name": 1144, "key:address1": 101, "key:address2": 101, "key:city": 101, "key:dob": 1128, "key:email": 101, "key:first_name": 1128, "key:id": 369, "key:last_four": 137, "key:last_name": 1128, "key:payment_id": 1040, "key:reservation_id": 1314, "key:reservations": 460, "key:user_id": 856, "key:zip": 101, "key_is:payment_id": 369}, "texts_analyzed": 2524}')


@pytest.fixture(scope="module")
def anon_report() -> dict:
    return json.loads(json.dumps(REAL_ANON_REPORT))


@pytest.fixture(scope="module")
def real_run(tmp_path_factory, anon_report) -> dict:
    run = make_run(tmp_path_factory.mktemp("view_run"), anon_report)
    run["view"] = build_view(run["out"])
    return run


def _page(run: dict, rel: str) -> str:
    return (run["view"].folder / rel).read_text(encoding="utf-8")


def _found(secret: str, text: str) -> bool:
    return secret in text or json.dumps(secret, ensure_ascii=False)[1:-1] in text


def dataset_pages(folder: Path) -> list[Path]:
    """Every page of the report that is not a trajectory or task page (plus the filter data)."""
    return sorted(p for p in folder.glob("*.html")) + [folder / "assets" / "data.js"]


def hidden_leaks(folder: Path, tasks) -> list[str]:
    """``page: task`` for every hidden value of any task (pipeline.export.audit.hidden_secrets)
    found on a dataset page, and for every trajectory page where a hidden value the export would
    refuse in a trajectory shows outside the page's marked hidden-part panels."""
    from pipeline.export.audit import hidden_secrets

    leaks = []
    full = {t.task_id: hidden_secrets(t) for t in tasks}
    for p in dataset_pages(folder):
        text = html.unescape(p.read_text(encoding="utf-8"))
        leaks += [f"{p.name}: {tid}" for tid, secrets in full.items() for s in secrets if _found(s, text)]
    return leaks


def trajectory_page_leaks(folder: Path, run: dict) -> list[str]:
    from pipeline.export.audit import hidden_secrets

    by_task = {t.task_id: t for t in run["tasks"]}
    leaks = []
    for tr in run["trajectories"]:
        page = (folder / "t" / (safe_name(tr.trajectory_id) + ".html")).read_text(encoding="utf-8")
        shown = html.unescape(HIDDEN_SECTION.sub("", page))
        results = "\n".join(str(m.get("content") or "") for m in tr.messages if m.get("role") == "tool")
        for s in hidden_secrets(by_task[tr.task_id], in_trajectories=True):
            if _found(s, shown) and not _found(s, results):
                leaks.append(f"{tr.trajectory_id}: {s[:20]}...")
    return leaks


# ---------------------------------------------------------------------------------------------
def test_every_page_is_written(real_run):
    res, run = real_run["view"], real_run
    assert res.index.exists() and res.index == run["out"] / "view" / "index.html"
    assert res.pages["trajectory"] == len(run["trajectories"]) == 8
    assert res.pages["task"] == len(run["tasks"]) == 2
    for rel in ("trajectories-0001.html", "tasks-0001.html", "rejects-0001.html", "anonymization.html",
                "assets/view.css", "assets/view.js", "assets/data.js"):
        assert (res.folder / rel).stat().st_size > 200, rel
    for tr in run["trajectories"]:
        assert (res.folder / "t" / f"{tr.trajectory_id}.html").exists()
    index = _page(run, "index.html")
    for bp in run["blueprints"]:
        assert bp.blueprint_id in index
    # pass rate of the cancel blueprint: 2 replays + helped pass, the mutant and the repeat fail
    n_pass = sum(v.passed for v in run["verdicts"] if v.task_id == run["tasks"][0].task_id)
    assert n_pass == 3 and "60%" in index
    # links in every page resolve inside the report (no CDN, nothing external)
    for p in res.folder.rglob("*.html"):
        text = p.read_text(encoding="utf-8")
        assert "http://" not in text and "https://" not in text.replace("https://www.w3.org", ""), p
        for href in re.findall(r'(?:href|src)="([^"#]+)', text):
            assert (p.parent / href).resolve().exists(), (p, href)


def test_failing_step_is_marked_on_the_trajectory_page(real_run):
    page = _page(real_run, f"t/{real_run['repeat_id']}.html")
    m = re.search(r'<div class="call failing[^"]*" id="step-1" data-step="1" data-codes="([^"]*)"', page)
    assert m and "TRAJ_REPEATED_CALL" in m.group(1)
    assert 'href="#step-1"' in page  # the verdict panel links to the step
    assert len(re.findall(r'class="call failing', page)) == 1  # only that step
    assert '<span class="badge fail">fail</span>' in page
    # a passing trajectory marks nothing and says its state matched
    ok = _page(real_run, f"t/{real_run['passing_id']}.html")
    assert "failing" not in re.sub(r"\.failing|failing_", "", ok.split("<main>")[1])
    assert "Final state matches the expected state" in ok


def test_trajectory_page_shows_chat_verdict_diff_reward_faults_task(real_run):
    run = real_run
    page = _page(run, f"t/{run['wrong_state_id']}.html")
    assert '<details class="msg system"' in page and "System prompt" in page  # collapsed system prompt
    assert 'class="msg customer"' in page and 'class="msg agent' in page
    assert re.search(r'<details class="msg tool[^"]*" id="m-\d+">', page)  # collapsible tool results
    assert '{\n  "reservation_id": "' in html.unescape(page)  # pretty arguments (indented JSON)
    assert 'id="state-diff"' in page and "TRAJ_WRONG_FINAL_STATE" in page
    diff = re.search(r'<table class="grid small" id="state-diff">.*?</table>', page, re.S).group(0)
    assert diff.count("<tr>") >= 2  # header + at least one differing path
    assert 'id="reward"' in page and "outcome" in page and "format_valid" in page
    # the state diff sits inside the marked hidden part, beside the reference solution
    hidden = HIDDEN_SECTION.search(page).group(0)
    assert 'id="state-diff"' in hidden and "Reference solution" in hidden and "never in a prompt or a dataset" in hidden
    task = run["tasks"][0] if run["tasks"][0].task_id in run["wrong_state_id"] else run["tasks"][1]
    assert task.visible.instruction in html.unescape(HIDDEN_SECTION.sub("", page))
    helped = _page(run, f"t/{run['helped_id']}.html")
    assert 'id="faults"' in helped and "timeout" in helped and "hint_mode <b>guided</b>" in helped


def test_no_hidden_value_on_dataset_pages(real_run):
    from pipeline.export.audit import hidden_secrets

    folder = real_run["view"].folder
    assert hidden_leaks(folder, real_run["tasks"]) == []
    assert trajectory_page_leaks(folder, real_run) == []
    for p in dataset_pages(folder):
        assert "hidden-part" not in p.read_text(encoding="utf-8") or p.suffix == ".css", p
    # the checks can fail: the task pages do show the hidden part (marked), and the finder sees it
    for t in real_run["tasks"]:
        page = html.unescape((folder / "task" / f"{t.task_id}.html").read_text(encoding="utf-8"))
        hidden = HIDDEN_SECTION.search(page).group(0)
        assert any(_found(s, hidden) for s in hidden_secrets(t)), t.task_id
        assert not any(_found(s, HIDDEN_SECTION.sub("", page)) for s in hidden_secrets(t, in_trajectories=True))


def test_leak_check_catches_a_planted_hidden_value(real_run, tmp_path):
    """A hidden value planted on a dataset page is reported (the leak test is not vacuous)."""
    import shutil

    folder = tmp_path / "view"
    shutil.copytree(real_run["view"].folder, folder)
    t = real_run["tasks"][0]
    idx = folder / "index.html"
    idx.write_text(idx.read_text(encoding="utf-8") + t.hidden.expected_state_hash, encoding="utf-8")
    assert hidden_leaks(folder, real_run["tasks"]) == [f"index.html: {t.task_id}"]


def test_filters_and_data(real_run):
    run = real_run
    lst = _page(run, "trajectories-0001.html")
    for f in ("split", "blueprint", "skill", "reason", "hinted", "recovery", "verdict"):
        assert f'data-filter="{f}"' in lst
    assert "<option>TRAJ_REPEATED_CALL</option>" in lst and "<option>TRAJ_WRONG_FINAL_STATE</option>" in lst
    for s in run["tasks"][0].skills:
        assert f"<option>{s}</option>" in lst
    blob = json.loads(re.match(r"window\.TRAJPIPE_DATA = (.*);\n$", _page(run, "assets/data.js"), re.S).group(1))
    cols = blob["trajectories"]["cols"]
    rows = [dict(zip(cols, r)) for r in blob["trajectories"]["rows"]]
    assert len(rows) == len(run["trajectories"])
    by_id = {r["id"]: r for r in rows}
    assert by_id[run["helped_id"]]["hint_mode"] == "guided" and by_id[run["helped_id"]]["faults"] == 1
    assert by_id[run["repeat_id"]]["passed"] is False and "TRAJ_REPEATED_CALL" in by_id[run["repeat_id"]]["codes"]
    assert {r["split"] for r in rows} <= {"train", "validation", "test", "holdout"} and all(r["split"] for r in rows)
    index = _page(run, "index.html")
    assert 'href="trajectories-0001.html#reason=TRAJ_REPEATED_CALL"' in index


def test_rejects_and_anonymization_pages(real_run, anon_report):
    rej = _page(real_run, "rejects-0001.html")
    assert "TRAJ_REPEATED_CALL" in rej and "TRAJ_WRONG_FINAL_STATE" in rej and "verify_trajectory" in rej
    assert "state_diff" not in rej  # the verifier's expected state stays on trajectory pages
    anon = _page(real_run, "anonymization.html")
    for ent, n in anon_report["by_entity"].items():
        assert f"<td>{ent}</td><td>{n}</td>" in anon
    for src in anon_report["sources"]:
        assert html.escape(src) in anon
    assert "records scanned" in anon or "output records scanned" in anon


def test_anonymization_page_never_shows_values(tmp_path):
    report = {"records": 2, "by_entity": {"PERSON": 3}, "sources": {"SpacyRecognizer": 3},
              "residual": {"enabled": True, "records_scanned": 2, "count": 1, "real_values": 1,
                           "by_entity": {"PERSON": 1},
                           "items": [{"record_id": "log-17", "entity": "PERSON", "recognizer": "SpacyRecognizer",
                                      "value": "Jonathan Realname", "text": "Jonathan Realname called"}]}}
    run = make_run(tmp_path / "r", report)
    res = build_view(run["out"])
    page = (res.folder / "anonymization.html").read_text(encoding="utf-8")
    assert "log-17" in page and "PERSON (SpacyRecognizer)" in page
    assert "Realname" not in page
    assert not any("Realname" in p.read_text(encoding="utf-8") for p in res.folder.rglob("*.*") if p.suffix != ".png")


def test_partial_outputs_render_what_exists(tmp_path):
    """A work folder with rollouts but no verdicts yet (and no datasets) still renders."""
    run = build_run(kinds=("cancel_reservation",), tasks_per_bp=1, k=2)
    work = tmp_path / "w"
    work.mkdir()
    _write_jsonl(work / "tasks.jsonl", run["tasks"])
    _write_jsonl(work / "trajectories.jsonl", run["trajectories"])
    res = build_view(work)
    assert res.pages["trajectory"] == 2
    page = (res.folder / "t" / f"{run['trajectories'][0].trajectory_id}.html").read_text(encoding="utf-8")
    assert "No verdict yet" in page and "no verdict" in page
    index = (res.folder / "index.html").read_text(encoding="utf-8")
    assert "verdicts.jsonl" in index  # listed as not found


def test_datasets_only(real_run, tmp_path):
    """Only the Parquet datasets (no work folder): trajectories from sft, trajectories_failed and the
    rejects' messages, violations still pinned at their step."""
    import shutil

    out = tmp_path / "out"
    shutil.copytree(real_run["out"], out, ignore=shutil.ignore_patterns("view"))
    man = json.loads((out / "manifest.json").read_text())
    man["config"]["work"] = str(tmp_path / "work-gone")  # the recorded work folder no longer exists
    (out / "manifest.json").write_text(json.dumps(man))
    data = load_run(out)
    assert data.work is None
    assert {t["trajectory_id"] for t in data.trajectories} == {t.trajectory_id for t in real_run["trajectories"]}
    assert {t["source"] for t in data.trajectories} >= {"sft.parquet", "trajectories_failed.parquet"}
    res = render_view(data, tmp_path / "v")
    page = (res.folder / "t" / f"{real_run['repeat_id']}.html").read_text(encoding="utf-8")
    assert re.search(r'class="call failing[^"]*" id="step-1"', page)
    assert hidden_leaks(res.folder, real_run["tasks"]) == []


def test_missing_and_bad_inputs_name_the_file(tmp_path):
    with pytest.raises(ViewInputError, match="output folder not found: .*nope"):
        load_run(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ViewInputError, match=r"nothing to show in .*empty.*trajectories\.jsonl.*sft\.parquet"):
        load_run(tmp_path / "empty")
    with pytest.raises(ViewInputError, match="work folder not found: .*gone"):
        load_run(tmp_path / "empty", tmp_path / "gone")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "trajectories.jsonl").write_text('{"trajectory_id": "x"\n', encoding="utf-8")
    with pytest.raises(ViewInputError, match=r"trajectories\.jsonl: line 1 is not valid JSON"):
        load_run(bad)
    (bad / "trajectories.jsonl").write_text("", encoding="utf-8")
    (bad / "sft.parquet").write_bytes(b"not parquet")
    with pytest.raises(ViewInputError, match=r"sft\.parquet: cannot read Parquet"):
        load_run(bad)


def test_cli_view(real_run, tmp_path):
    from typer.testing import CliRunner

    from pipeline.cli import app

    r = CliRunner().invoke(app, ["view", str(real_run["out"]), "--dest", str(tmp_path / "v")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "v" / "index.html").exists() and "8 trajectory" in r.output.replace("\n", " ")
    r = CliRunner().invoke(app, ["view", str(tmp_path / "missing")])
    assert r.exit_code == 2 and "output folder not found" in r.output and "missing" in r.output


def test_pagination(real_run, tmp_path):
    res = render_view(load_run(real_run["out"]), tmp_path / "v", page_size=3)
    assert res.pages["trajectories_list"] == 3 and res.pages["tasks_list"] == 1
    p2 = (tmp_path / "v" / "trajectories-0002.html").read_text(encoding="utf-8")
    assert "page 2 of 3" in p2 and 'href="trajectories-0003.html"' in p2 and p2.count('href="t/') == 3


def test_safe_name():
    assert safe_name("airline-cancel-t000-s1") == "airline-cancel-t000-s1"
    a, b = safe_name("a/b"), safe_name("a_b")
    assert a != b and "/" not in a and a.startswith("a_b-")
    assert safe_name("../x").startswith("_") or not safe_name("../x").startswith(".")


def test_view_open_without_a_browser_says_so(real_run, tmp_path, monkeypatch):
    """`trajpipe view --open` on a machine with no browser did nothing and said nothing; it now
    warns and names the page to open."""
    import webbrowser

    from typer.testing import CliRunner

    from pipeline.cli import app

    monkeypatch.setattr(webbrowser, "open", lambda *a, **k: False)  # what it returns with no browser
    r = CliRunner().invoke(app, ["view", str(real_run["out"]), "--dest", str(tmp_path / "v"), "--open"],
                           env={"COLUMNS": "300"})
    assert r.exit_code == 0, r.output
    assert "Warning: no web browser to open here; open file://" in r.output and "index.html" in r.output
