"""Progress reporting of long stages (pipeline.progress)."""
from __future__ import annotations

import time


def test_progress_off_a_terminal_writes_lines_a_log_can_show(monkeypatch, capsys):
    """A fresh user's quick start wrote nothing for an 11-minute rollout with stderr in a log (a
    rich bar off a terminal is only drawn at the end); then lines came only when a slow step
    finished (gaps of 80-160 s, the last line twice). Now a line every LOG_EVERY_S seconds while
    the stage runs, steps or not, and one at the end."""
    from pipeline import progress

    monkeypatch.delenv("TRAJPIPE_NO_PROGRESS", raising=False)
    monkeypatch.setattr(progress, "LOG_EVERY_S", 0.2)
    with progress.bar("rollout (2 tasks x k=2)", total=4) as advance:
        advance()
        time.sleep(0.7)  # a slow step: no advance, the timer still reports
        for _ in range(3):
            advance()
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[-1].startswith("rollout (2 tasks x k=2): 4/4 (100%), ")
    assert sum(line.startswith("rollout (2 tasks x k=2): 1/4 (25%), ") for line in lines) >= 2, lines
    assert sum("4/4" in line for line in lines) == 1, lines
    assert all("\\r" not in line and "━" not in line for line in lines)  # no bar drawing in a log


def test_progress_is_silent_when_switched_off(monkeypatch, capsys):
    from pipeline import progress

    monkeypatch.setenv("TRAJPIPE_NO_PROGRESS", "1")
    with progress.bar("ingest", total=3) as advance:
        advance(3)
    assert capsys.readouterr().err == ""


def test_library_progress_bars_are_off_in_a_log(monkeypatch):
    """A log got transformers' "Loading weights" bar as a long \\r-joined line: off a terminal (or
    with TRAJPIPE_NO_PROGRESS=1) the Hugging Face bars are turned off when a model loads."""
    from transformers.utils import logging as hf_logging

    from pipeline import progress

    hf_logging.enable_progress_bar()
    monkeypatch.delenv("HF_HUB_DISABLE_PROGRESS_BARS", raising=False)
    monkeypatch.setenv("TRAJPIPE_NO_PROGRESS", "1")
    try:
        progress.quiet_library_bars()
        assert not hf_logging.is_progress_bar_enabled()
        import os

        assert os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] == "1"
    finally:
        hf_logging.enable_progress_bar()
