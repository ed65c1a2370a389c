"""trajpipe view in a real browser: headless Chromium renders the report of a real run's outputs
(tests/test_view.py:make_run), takes screenshots of the index, a passing and a failing trajectory,
and the DOM it builds (after the filter script ran) is checked: the failing step is marked, the
filters select the right rows, no hidden value appears on the dataset pages.

Needs Debian's ``chromium`` (``apt-get install -y chromium``; .ci/run installs it where apt works);
skipped with a message where it is absent. ``TRAJPIPE_VIEW_SHOTS=DIR`` keeps the screenshots.
"""
from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from test_view import REAL_ANON_REPORT, HIDDEN_SECTION, hidden_leaks, make_run

from pipeline.view import build_view


def _chromium() -> str | None:
    for name in (os.environ.get("TRAJPIPE_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


CHROMIUM = _chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium not found: `apt-get install -y chromium` (Debian) to run the "
                             "screenshot and DOM tests of trajpipe view (or set TRAJPIPE_CHROMIUM=/path/to/chrome)")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
         "--disable-dev-shm-usage", "--allow-file-access-from-files"]


def chromium(*args: str, timeout: int = 60) -> str:
    """Run headless Chromium; returns stdout (the DOM for --dump-dom)."""
    r = subprocess.run([CHROMIUM, *FLAGS, *args], capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


def dump_dom(path: Path, fragment: str = "") -> str:
    """The DOM after scripts ran (``fragment``: the URL hash the filter script reads)."""
    return chromium("--virtual-time-budget=5000", "--dump-dom", path.resolve().as_uri() + fragment)


def screenshot(path: Path, png: Path, size: str = "1400,1000") -> Path:
    chromium(f"--screenshot={png}", f"--window-size={size}", path.resolve().as_uri())
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000, png
    return png


class Elements(HTMLParser):
    """Start tags with their attributes, in document order."""

    def __init__(self, text: str):
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, {k: v or "" for k, v in attrs}))


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> dict:
    run = make_run(tmp_path_factory.mktemp("view_browser"), REAL_ANON_REPORT)
    run["view"] = build_view(run["out"])
    return run


def test_screenshots_index_passing_failing(report, tmp_path):
    folder = report["view"].folder
    keep = os.environ.get("TRAJPIPE_VIEW_SHOTS")
    shots = {"index": folder / "index.html", "passing": folder / "t" / f"{report['passing_id']}.html",
             "failing": folder / "t" / f"{report['repeat_id']}.html"}
    for name, page in shots.items():
        png = screenshot(page, tmp_path / f"{name}.png", "1400,1100")
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            shutil.copy(png, Path(keep) / f"view-{name}.png")


def test_failing_step_marked_in_the_dom(report):
    folder = report["view"].folder
    dom = dump_dom(folder / "t" / f"{report['repeat_id']}.html")
    tags = Elements(dom).tags
    failing = [a for t, a in tags if "failing" in a.get("class", "").split()]
    assert [a.get("id") for a in failing] == ["step-1"], failing
    assert "TRAJ_REPEATED_CALL" in failing[0]["data-codes"].split()
    assert any(t == "a" and a.get("href") == "#step-1" for t, a in tags)  # verdict panel links to it
    # the system prompt and the tool results are collapsed, the hidden part is marked
    assert any(t == "details" and "system" in a.get("class", "") and "open" not in a for t, a in tags)
    assert any(t == "details" and "tool" in a.get("class", "").split() and "open" not in a for t, a in tags)
    assert any(t == "section" and "hidden-part" in a.get("class", "") for t, a in tags)
    ok = Elements(dump_dom(folder / "t" / f"{report['passing_id']}.html")).tags
    assert not [a for t, a in ok if "failing" in a.get("class", "").split()]


def test_filters_in_the_browser(report):
    folder = report["view"].folder
    want = {v.trajectory_id for v in report["verdicts"] if "TRAJ_WRONG_FINAL_STATE" in v.reason_codes}
    dom = dump_dom(folder / "trajectories-0001.html", "#reason=TRAJ_WRONG_FINAL_STATE")
    dyn = dom[dom.index("data-dynamic"):]
    got = set(re.findall(r'<a href="t/([^"]+)\.html"', dyn))
    assert got == want and len(want) == 2
    assert f"{len(want)} of {len(report['trajectories'])} match" in dom
    dom = dump_dom(folder / "trajectories-0001.html", "#hinted=yes")
    dyn = dom[dom.index("data-dynamic"):]
    assert set(re.findall(r'<a href="t/([^"]+)\.html"', dyn)) == {report["helped_id"]}
    dom = dump_dom(folder / "tasks-0001.html", f"#blueprint={report['tasks'][1].blueprint_id}")
    dyn = dom[dom.index("data-dynamic"):]
    assert set(re.findall(r'<a href="task/([^"]+)\.html"', dyn)) == {report["tasks"][1].task_id}


def test_no_hidden_value_in_the_rendered_dataset_pages(report, tmp_path):
    folder = report["view"].folder
    rendered = tmp_path / "dom"
    shutil.copytree(folder, rendered)
    for page in ("index.html", "trajectories-0001.html", "tasks-0001.html", "rejects-0001.html", "anonymization.html"):
        dom = dump_dom(folder / page, "#verdict=fail" if page.startswith("traj") else "")
        assert "hidden-part" not in dom, page
        (rendered / page).write_text(dom, encoding="utf-8")  # the DOM as the browser built it
    assert hidden_leaks(rendered, report["tasks"]) == []
    # the same check sees the hidden part on a task page, where it is marked
    from pipeline.export.audit import hidden_secrets

    t = report["tasks"][0]
    dom = html.unescape(dump_dom(folder / "task" / f"{t.task_id}.html"))
    assert t.hidden.expected_state_hash in HIDDEN_SECTION.search(dom).group(0)
    assert not any(s in HIDDEN_SECTION.sub("", dom) for s in hidden_secrets(t, in_trajectories=True))
