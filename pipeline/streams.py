"""Record sequences backed by JSONL files, so stages pass records without holding them.

A stage's records flow to the next stage as a :class:`JsonlSeq`: a read-only sequence whose
length is known and whose iteration reads its JSONL file one line at a time, validating each line
into a pydantic model. It can be iterated any number of times (each pass re-reads the file), is
accepted wherever a list of records is read (``len``, ``for``, ``bool``, ``seq[i]``, ``seq[a:b]``,
``==`` against a list), and costs memory for one record at a time plus, once ``seq[i]`` is used,
one 8-byte offset per line.

:class:`JsonlSpill` writes records to such a file as they are produced (a stage's output, built
without ever holding all of it) and hands back the :class:`JsonlSeq`. The bytes are those of
:func:`pipeline.ingest.write_jsonl` (:func:`jsonl_line` is the one serializer), so a spilled file
copied into the work folder is byte-identical to one written from a list.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import weakref
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional


def jsonl_line(record: Any) -> str:
    """One JSONL line (with its newline) for a pydantic record or a JSON-able value:
    ``json.dumps(record.model_dump(mode="json"), ensure_ascii=False) + "\\n"``."""
    obj = record.model_dump(mode="json") if hasattr(record, "model_dump") else record
    return json.dumps(obj, ensure_ascii=False) + "\n"


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


class JsonlSeq(Sequence):
    """A re-iterable, lazily read sequence of the records in a JSONL file.

    ``path``: the file (one JSON value per line; blank lines are skipped, as
    :func:`pipeline.ingest.iter_jsonl` does). ``model``: a pydantic model each line is validated
    into (None: plain JSON values). ``count``: the number of records when the writer knows it
    (else the file is scanned once, on the first ``len``). ``owned``: the file is a temporary one
    this object removes when it is garbage-collected.

    Each iteration opens the file and yields fresh objects (mutating one changes nothing stored).
    ``seq[i]`` seeks through a line-offset index built on first use (8 bytes per record);
    ``seq[a:b]`` returns a list. The file must not change while the sequence is in use.
    Raises FileNotFoundError when iterated after the file is gone, and json/pydantic errors on a
    bad line (these are trajpipe's own files)."""

    def __init__(self, path: str | os.PathLike, model: Optional[type] = None, *, count: Optional[int] = None,
                 owned: bool = False) -> None:
        self.path = Path(path)
        self.model = model
        self._count = count
        self._offsets: Optional[array] = None
        self._finalizer = weakref.finalize(self, _unlink, str(self.path)) if owned else None

    # -- reading ----------------------------------------------------------------------------
    def _parse(self, line: bytes | str) -> Any:
        obj = json.loads(line)
        return self.model.model_validate(obj) if self.model is not None else obj

    def __iter__(self) -> Iterator[Any]:
        with open(self.path, "rb") as fh:
            for line in fh:
                if line.strip():
                    yield self._parse(line)

    def __len__(self) -> int:
        if self._count is None:
            with open(self.path, "rb") as fh:
                self._count = sum(1 for line in fh if line.strip())
        return self._count

    def __bool__(self) -> bool:
        return len(self) > 0

    def offsets(self) -> array:
        """Byte offset of each record's line (``array('q')``, built once by one pass over the file)."""
        if self._offsets is None:
            offs = array("q")
            pos = 0
            with open(self.path, "rb") as fh:
                for line in fh:
                    if line.strip():
                        offs.append(pos)
                    pos += len(line)
            self._offsets = offs
            self._count = len(offs)
        return self._offsets

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return list(self)[index]
            if stop <= start:
                return []
            offs = self.offsets()  # seek to the first record: a shard reads only its own lines
            out = []
            with open(self.path, "rb") as fh:
                fh.seek(offs[start])
                for line in fh:
                    if line.strip():
                        out.append(self._parse(line))
                        if len(out) == stop - start:
                            break
            return out
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("JsonlSeq index out of range")
        offs = self.offsets()
        with open(self.path, "rb") as fh:
            fh.seek(offs[index])
            return self._parse(fh.readline())

    # -- list-like conveniences ------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if isinstance(other, (JsonlSeq, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other: Iterable[Any]) -> list:
        return list(self) + list(other)

    def __radd__(self, other: Iterable[Any]) -> list:
        return list(other) + list(self)

    def __repr__(self) -> str:
        model = self.model.__name__ if self.model is not None else "json"
        return f"JsonlSeq({str(self.path)!r}, {model}, n={self._count if self._count is not None else '?'})"

    def __reduce__(self):  # a pickled copy (a Ray worker) reads the same file but never removes it
        return (JsonlSeq, (str(self.path), self.model), {"_count": self._count})

    def __setstate__(self, state: dict) -> None:
        self._count = state.get("_count")

    def copy_to(self, dest: str | os.PathLike) -> None:
        """Copy the file's bytes to ``dest`` (what :func:`pipeline.ingest.write_jsonl` would have
        written from the same records, when this file was written by :class:`JsonlSpill`)."""
        shutil.copyfile(self.path, dest)


class JsonlSpill:
    """Writes records to a JSONL file as they come and returns them as a :class:`JsonlSeq`.

    ``path``: the file to write (None: a temporary file in ``folder``, or in the system's
    temporary folder, removed when the returned sequence is garbage-collected). ``model``: the
    record model the sequence validates lines into. Use as a context manager or call
    :meth:`close`; ``add(record)`` writes one record (pydantic model or JSON value),
    ``extend(records)`` many; ``n`` counts them. :meth:`seq` closes the file and returns the
    sequence. Memory: one record at a time."""

    def __init__(self, model: Optional[type] = None, path: str | os.PathLike | None = None,
                 folder: str | os.PathLike | None = None, prefix: str = "spill-") -> None:
        self.model = model
        self.owned = path is None
        if path is None:
            if folder is not None:
                Path(folder).mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(prefix=prefix, suffix=".jsonl", dir=folder)
            os.close(fd)
            path = name
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh: Any = open(self.path, "w", encoding="utf-8")
        self.n = 0
        self._seq: Optional[JsonlSeq] = None

    def add(self, record: Any) -> None:
        """Append one record."""
        self._fh.write(jsonl_line(record))
        self.n += 1

    def extend(self, records: Iterable[Any]) -> None:
        """Append every record of ``records``, in order."""
        for r in records:
            self.add(r)

    def close(self) -> None:
        """Flush and close the file (idempotent)."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def seq(self) -> JsonlSeq:
        """Close the file and return its records as a :class:`JsonlSeq` (the same object on
        every call)."""
        self.close()
        if self._seq is None:
            self._seq = JsonlSeq(self.path, self.model, count=self.n, owned=self.owned)
        return self._seq

    def discard(self) -> None:
        """Close and remove the file (after an error)."""
        self.close()
        _unlink(str(self.path))

    def __enter__(self) -> "JsonlSpill":
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is not None:
            self.discard()
        else:
            self.close()
        return False


def spill(records: Iterable[Any], model: Optional[type] = None, folder: str | os.PathLike | None = None,
          path: str | os.PathLike | None = None) -> JsonlSeq:
    """Write ``records`` (any iterable, consumed once) to a JSONL file and return them as a
    :class:`JsonlSeq` (see :class:`JsonlSpill` for ``model``, ``folder`` and ``path``)."""
    with JsonlSpill(model, path=path, folder=folder) as sp:
        sp.extend(records)
    return sp.seq()
