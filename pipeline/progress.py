"""Progress bars for long stages (rich), usable from the CLI and from flows alike."""
from __future__ import annotations

import contextlib
import os
import sys
from typing import Callable, Iterator


@contextlib.contextmanager
def bar(description: str, total: int | None) -> Iterator[Callable[[int], None]]:
    """Context manager yielding ``advance(n=1)``; draws a rich progress bar on stderr.

    Disabled (a no-op) when ``TRAJPIPE_NO_PROGRESS=1``."""
    if os.environ.get("TRAJPIPE_NO_PROGRESS") == "1":
        yield lambda n=1: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=Console(file=sys.stderr), transient=False) as prog:
        tid = prog.add_task(description, total=total)
        yield lambda n=1: prog.advance(tid, n)
