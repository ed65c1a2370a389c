"""Progress bars for long stages (rich), usable from the CLI and from flows alike."""
from __future__ import annotations

import contextlib
import os
import sys
import time
from typing import Callable, Iterator

#: seconds between two progress lines when stderr is no terminal (a log file, a scheduler)
LOG_EVERY_S = 30.0


def _mode() -> str:
    """How progress is shown: ``"off"`` (``TRAJPIPE_NO_PROGRESS=1``), ``"bar"`` (stderr is a
    terminal) or ``"lines"`` (a log, a scheduler's output)."""
    if os.environ.get("TRAJPIPE_NO_PROGRESS") == "1":
        return "off"
    from rich.console import Console

    return "bar" if Console(file=sys.stderr).is_terminal else "lines"


@contextlib.contextmanager
def bar(description: str, total: int | None) -> Iterator[Callable[[int], None]]:
    """Context manager yielding ``advance(n=1)``; draws a rich progress bar on stderr.

    When stderr is no terminal (a log, a nightly job's output) a bar would only show at the end,
    so plain lines are written instead: ``description: done/total (pct%), elapsed`` every
    :data:`LOG_EVERY_S` seconds while the stage runs (whether or not a step finished), and once at
    the end. Disabled (a no-op) when ``TRAJPIPE_NO_PROGRESS=1``."""
    mode = _mode()
    if mode == "off":
        yield lambda n=1: None
        return
    if mode == "lines":
        yield from _log_lines(description, total)
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=Console(file=sys.stderr), transient=False) as prog:
        tid = prog.add_task(description, total=total)
        yield lambda n=1: prog.advance(tid, n)


def _log_lines(description: str, total: int | None) -> Iterator[Callable[[int], None]]:
    """Plain progress lines on a timer (a thread), so a stage whose steps are slow (one rollout
    batch may take minutes) still shows it is alive; a last line at the end."""
    import threading

    t0 = time.monotonic()
    state = {"done": 0, "printed": None}
    lock = threading.Lock()
    stop = threading.Event()

    def emit() -> None:
        with lock:
            elapsed = int(time.monotonic() - t0)
            of = f"/{total} ({100 * state['done'] // total}%)" if total else ""
            print(f"{description}: {state['done']}{of}, {elapsed // 60}m{elapsed % 60:02d}s",
                  file=sys.stderr, flush=True)
            state["printed"] = state["done"]

    def tick() -> None:
        while not stop.wait(LOG_EVERY_S):
            emit()

    def advance(n: int = 1) -> None:
        with lock:
            state["done"] += n

    timer = threading.Thread(target=tick, name=f"progress:{description}", daemon=True)
    timer.start()
    try:
        yield advance
    finally:
        stop.set()
        timer.join(timeout=5)
        if state["printed"] != state["done"]:
            emit()  # the last line, unless the timer has just written it (None: nothing written yet)


def quiet_library_bars() -> None:
    """Turn off the progress bars of Hugging Face libraries (transformers' "Loading weights", the
    hub's download bars) where trajpipe draws none either: ``TRAJPIPE_NO_PROGRESS=1``, or stderr
    no terminal (a log would get each bar as one long ``\\r``-joined line). The GGUF conversion's
    bar (plain tqdm, once per installation: the converted model is cached) is not covered."""
    if _mode() == "bar":
        return
    os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:  # transformers is a dependency; nothing to quiet without it
        return
    hf_logging.disable_progress_bar()
