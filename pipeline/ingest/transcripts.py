"""Reader for flattened conversation transcripts (format name ``"transcript"``).

Input: JSONL, one ``{"messages_display": "user: ...\\nassistant: ...\\ntool: ..."}`` object per
line, as in ``shared/data/tau-bench/logs/{airline,retail}-transcripts.jsonl``. A line that
starts with ``user:`` / ``assistant:`` / ``tool:`` / ``system:`` opens a message; other lines
continue the previous one. ``assistant: None`` is a hidden tool call whose name and arguments
the transcript does not show; the ``tool:`` line(s) after it are its result.

What is inferred (documented in docs/domains.md, "Logs without tool names"): each hidden call
becomes an assistant message with one ``tool_calls`` entry, and its result a ``tool`` message
with a matching ``tool_call_id``. The tool *name* is inferred from the shape of the result, and
for writes from how it differs from the last version of the same record seen earlier in the
conversation. The shapes are domain knowledge, so the domains name the calls: the shared tools
by :func:`pipeline.domains.shared.transcript_call` (``Transfer successful`` -> the hand-off, an
empty result -> ``think``, a number -> ``calculate``), everything else by each registered
domain's :meth:`~pipeline.domains.base.Domain.transcript_call` (e.g.
:mod:`pipeline.domains.retail.transcripts`, :mod:`pipeline.domains.airline.transcripts`), which
every domain sees for every hidden call (with a :class:`~pipeline.domains.base.TranscriptContext`:
the customer's last message and the transcript's memory). When several domains name a call, a
write wins over a read (the domain saw the record change), then the first domain by name.

A ``tool:`` turn right after assistant text (the agent spoke and called in one turn) is
attached to that assistant message as its call. Anything else gets the name ``"unknown"``. Arguments that cannot be recovered (a calculation's
expression, a transfer summary) are left out; ``metadata`` counts ``inferred_tool_calls``,
``unknown_tool_calls`` and lists ``args_missing`` (names of calls with unrecovered arguments).
Inferred names are a best effort for blueprint extraction, not ground truth.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterable, Iterator

from pipeline.domains.base import NOT_JSON, TranscriptContext
from pipeline.domains.shared import transcript_call as shared_transcript_call

_TURN = re.compile(r"^(user|assistant|tool|system): ?(.*)$")


def is_transcript_line(obj: Any) -> bool:
    """True for a JSON object with a string ``messages_display`` (this reader's format)."""
    return isinstance(obj, dict) and isinstance(obj.get("messages_display"), str)


def split_turns(display: str) -> list[dict[str, Any]]:
    """``[{"role", "content"}]`` per turn of a flattened transcript (``assistant: None`` gives
    content None). Text before the first role prefix becomes a user turn."""
    messages: list[dict[str, Any]] = []
    for line in display.split("\n"):
        m = _TURN.match(line)
        if m:
            messages.append({"role": m.group(1), "content": m.group(2)})
        elif messages:
            messages[-1]["content"] += "\n" + line
        elif line.strip():
            messages.append({"role": "user", "content": line})
    for m in messages:
        if m["role"] == "assistant" and m["content"] == "None":
            m["content"] = None
    return messages


class _Inferrer:
    """Names each hidden call of one transcript from its result: the shared tools, then every
    registered domain's ``transcript_call`` (see the module docstring)."""

    def __init__(self) -> None:
        from pipeline.domains import get_domain, known_domains

        self.domains = [get_domain(n) for n in known_domains()]
        self.context = TranscriptContext()

    def name(self, result: str) -> tuple[str, dict[str, Any] | None]:
        """``(tool name, arguments or None when unrecoverable)`` for one hidden call's result
        (``("unknown", None)`` when no domain names it)."""
        text = result.strip()
        try:
            value = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            value = NOT_JSON
        shared = shared_transcript_call(text, value)
        if shared is not None:
            return shared
        named = [(d, c) for d in self.domains if (c := d.transcript_call(text, value, self.context)) is not None]
        if not named:
            return "unknown", None
        writes = [(d, c) for d, c in named if c[0] in d.write_tools]
        return (writes or named)[0][1]


def transcript_to_canonical(display: str, rid: str, domain: str | None = None,
                            guess: bool = True) -> dict[str, Any]:
    """One flattened transcript -> a canonical conversation dict (``id``, OpenAI ``messages``,
    ``metadata`` with ``source_format="transcript"``, ``domain`` and the inference counts).

    ``domain`` (the file's named domain) is written to ``metadata.domain``, and an inferred name
    that domain has no tool of (every registered domain names the calls of its own shapes) becomes
    ``"unknown"``; without it, ``guess=True`` writes the one registered domain that owns the
    inferred calls (:mod:`pipeline.ingest.routing`; ``"unknown"`` when none or several do) and
    ``guess=False`` leaves ``metadata.domain`` out (ingest then routes by the inferred tools).
    Raises ValueError when the transcript has no user or assistant turn (the caller
    quarantines it)."""
    turns = split_turns(display)
    if not any(t["role"] in ("user", "assistant") for t in turns):
        raise ValueError("transcript has no user or assistant turn")
    inf = _Inferrer()
    out: list[dict[str, Any]] = []
    n_inferred = n_unknown = 0
    missing: list[str] = []
    i = 0
    while i < len(turns):
        t = turns[i]
        if t["role"] == "user":
            inf.context.last_user_text = t["content"] or ""
        if t["role"] == "assistant" and t["content"] is None and i + 1 < len(turns) and turns[i + 1]["role"] == "tool":
            result = turns[i + 1]["content"] or ""
            name, args = inf.name(result)
            call_id = f"call_{len(out):03d}"
            if name == "unknown":
                n_unknown += 1
            else:
                n_inferred += 1
            if args is None:
                missing.append(name)
                args = {}
            out.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]})
            out.append({"role": "tool", "tool_call_id": call_id, "name": name, "content": result})
            i += 2
            continue
        if t["role"] == "tool":  # a result right after assistant text: the call was made in that turn
            result = t["content"] or ""
            name, args = inf.name(result)
            n_unknown += name == "unknown"
            n_inferred += name != "unknown"
            if args is None:
                missing.append(name)
                args = {}
            call_id = f"call_{len(out):03d}"
            call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
            if out and out[-1]["role"] == "assistant" and not out[-1].get("tool_calls"):
                out[-1]["tool_calls"] = [call]
            else:
                out.append({"role": "assistant", "content": None, "tool_calls": [call]})
            out.append({"role": "tool", "tool_call_id": call_id, "name": name, "content": result})
        else:
            out.append({"role": t["role"], "content": t["content"]})
        i += 1
    if domain:
        n_renamed = _unname_foreign(out, domain)
        n_inferred -= n_renamed
        n_unknown += n_renamed
    meta = {"source_format": "transcript", "inferred_tool_calls": n_inferred, "unknown_tool_calls": n_unknown,
            "args_missing": missing}
    if domain or guess:
        meta = {"source_format": "transcript", "domain": domain or _owner(out), **meta}
    return {"id": rid, "messages": out, "metadata": meta}


def _owner(messages: list[dict[str, Any]]) -> str:
    """The one registered domain that owns the inferred calls of ``messages``, else ``"unknown"``."""
    from pipeline.ingest.routing import owners, registered_domains

    found = owners({"messages": messages}, registered_domains())
    return found[0] if len(found) == 1 else "unknown"


def _unname_foreign(messages: list[dict[str, Any]], domain: str) -> int:
    """Rename, in place, inferred calls (and their results) to ``"unknown"`` when ``domain`` (a
    registered name; others are left alone) has no tool of that name: every domain names the calls
    of its shapes, so in an airline transcript an ``Error: user not found`` must not become
    retail's ``find_user_id_by_name_zip``. Returns the number of calls renamed."""
    from pipeline.domains import get_domain, known_domains
    from pipeline.domains.base import SHARED_TOOLS

    if domain not in known_domains():
        return 0
    tools = set(get_domain(domain).tools) | SHARED_TOOLS | {"unknown"}
    renamed: set[str] = set()
    for m in messages:
        for tc in m.get("tool_calls") or []:
            if tc["function"]["name"] not in tools:
                tc["function"]["name"] = "unknown"
                renamed.add(tc["id"])
        if m.get("role") == "tool" and m.get("tool_call_id") in renamed:
            m["name"] = "unknown"
    return len(renamed)


def domain_hint_from_path(path: str | Path) -> str | None:
    """The registered domain the file name names (e.g. ``retail-transcripts.jsonl`` -> "retail");
    None when it names none, or more than one."""
    from pipeline.domains import known_domains

    stem = Path(path).name.lower()
    named = [d for d in known_domains() if d in stem]
    return named[0] if len(named) == 1 else None


def iter_transcripts(path: str | Path, rows: Iterable[tuple[int, Any, str | None, str | None]],
                     domain: str | None = None, guess: bool = True
                     ) -> Iterator[tuple[int, Any, dict[str, Any] | None, str | None, str | None]]:
    """For each ``(position, raw, error_code, error)`` JSONL row (see
    ``pipeline.ingest._iter_canonical``), yield ``(position, raw, candidate, error_code,
    error)``: a candidate canonical dict (codes None), or None with the reason code
    (the row's own, ``INGEST_SCHEMA`` for an object without ``messages_display``,
    ``INGEST_EMPTY`` for a transcript without turns) and message. Ids are
    ``transcript-<file stem>-<position>``; ``domain`` (else the file name) sets metadata.domain;
    without either, ``guess`` as in :func:`transcript_to_canonical`."""
    hint = domain or domain_hint_from_path(path)
    stem = re.sub(r"[^a-z0-9]+", "-", Path(path).stem.lower()).strip("-")
    for pos, raw, code, err in rows:
        if code:
            yield pos, raw, None, code, err
            continue
        if not is_transcript_line(raw):
            yield pos, raw, None, "INGEST_SCHEMA", "not a transcript: expected an object with a string 'messages_display'"
            continue
        try:
            cand = transcript_to_canonical(raw["messages_display"], f"transcript-{stem}-{pos:04d}", hint, guess)
        except ValueError as exc:
            yield pos, raw, None, "INGEST_EMPTY", str(exc)
            continue
        yield pos, raw, cand, None, None
