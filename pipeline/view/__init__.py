"""``trajpipe view``: a static, offline HTML report of a run's outputs (``OUT/view/``).

    >>> from pipeline.view import build_view
    >>> res = build_view("out/run1")              # reads OUT (+ its work folder), writes OUT/view/
    >>> res.index                                 # OUT/view/index.html; open it from the file system

Reading (:mod:`pipeline.view.load`) and drawing (:mod:`pipeline.view.render`, jinja2 templates in
``templates/``, CSS and a small filter script in ``static/``) are separate, so a test can load a
run once and render it into several folders.
"""
from __future__ import annotations

from pathlib import Path

from .load import RunData, ViewInputError, find_work, load_run
from .render import PAGE_SIZE, ViewResult, render_view, safe_name

__all__ = ["build_view", "load_run", "render_view", "find_work", "RunData", "ViewResult", "ViewInputError",
           "safe_name", "PAGE_SIZE"]


def build_view(out: str | Path, work: str | Path | None = None, dest: str | Path | None = None,
               page_size: int = PAGE_SIZE) -> ViewResult:
    """Load the run in ``out`` (and its work folder: ``work``, or found by :func:`find_work`) and
    write the report into ``dest`` (default ``out/view``). Returns a :class:`ViewResult`.

    Raises:
        ViewInputError: a missing folder, nothing to show, or an unreadable file (the message
            names it); see :func:`load_run`.
        OSError: the report folder cannot be written.
    """
    return render_view(load_run(out, work), dest, page_size)
