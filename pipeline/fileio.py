"""Output files written whole or not at all, and file hashes (one place for both).

Every file a run writes goes through :func:`atomic_path` (or :func:`write_text_atomic`): it is
written under a temporary name in its own folder and renamed to its final name only when
complete (``os.replace``, atomic within one file system), so a crash or an exception mid-write
never leaves a partial file under a final name; the temporary file is removed on an exception.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
from typing import Iterator

#: Temporary names start with this (``.<final name>.tmp-<pid>``): hidden, and never a final name.
TMP_PREFIX = "."
TMP_MARK = ".tmp-"


#: The environment variable that moves trajpipe's cache (converted models, the names gazetteer).
CACHE_ENV = "TRAJPIPE_CACHE"


def cache_dir() -> "Path":
    """trajpipe's cache folder (created by its users, not here): ``$TRAJPIPE_CACHE``, else
    ``$XDG_CACHE_HOME/trajpipe`` (XDG Base Directory spec), else ``~/.cache/trajpipe``. Holds
    models converted from GGUF and the names-dataset gazetteer; safe to delete (rebuilt on use)."""
    from pathlib import Path

    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "trajpipe"


def sha256_file(path: str | os.PathLike) -> str:
    """Hex SHA-256 of a file's bytes. OSError when it cannot be read."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def tmp_path(path: str | os.PathLike) -> str:
    """The temporary name :func:`atomic_path` writes ``path`` under: ``.<name>.tmp-<pid>`` in the
    same folder (the same file system, so the final rename is atomic)."""
    folder, name = os.path.split(os.fspath(path))
    return os.path.join(folder, f"{TMP_PREFIX}{name}{TMP_MARK}{os.getpid()}")


def is_tmp_name(name: str) -> bool:
    """True for a temporary name of :func:`tmp_path` (a file left by an interrupted write)."""
    return name.startswith(TMP_PREFIX) and TMP_MARK in name


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[str]:
    """Context manager: yields the temporary path to write ``path``'s content to; on a normal
    exit renames it to ``path`` (replacing an older file), on an exception removes it and
    re-raises (``path`` keeps its old content, or stays absent). The caller writes the whole file
    inside the block (a writer that infers the format from the extension must be told it, e.g.
    matplotlib's ``savefig(tmp, format="png")``)."""
    tmp = tmp_path(path)
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_text_atomic(path: str | os.PathLike, text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` through :func:`atomic_path`."""
    with atomic_path(path) as tmp, open(tmp, "w", encoding=encoding) as fh:
        fh.write(text)


def yaml_problem(path: str | os.PathLike, exc: Exception) -> str:
    """A PyYAML error as ``"PATH, line L, column C: problem (context)"`` - PyYAML's own message
    names ``<unicode string>`` when the text was read first, and spans several lines."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).strip().splitlines()[0]
    where = f"{os.fspath(path)}, line {mark.line + 1}, column {mark.column + 1}" if mark else os.fspath(path)
    context = getattr(exc, "context", None)
    return f"{where}: {problem}" + (f" ({context})" if context else "")
