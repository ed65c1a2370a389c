"""Domain routing: which registered domain each ingested log belongs to (``metadata.domain``).

Every domain answers ``owns(record)`` from the record's tool names and argument shapes (its
calls, its gold actions, its declared tool list; see :func:`pipeline.domains.base.default_owns`).
Ingest routes each record that passed validation, in this order:

1. **named domain** (``explicit``: ingest's ``domain`` argument / ``trajpipe ingest --domain``,
   else the record's own ``metadata.domain`` in the canonical format, else a transcript file named
   after its domain, ``retail-transcripts.jsonl``): kept there when the record calls no domain
   tool or that domain has every tool it calls; set aside when the name is not registered or the
   domain lacks some of its tools (a name never overrides what the tools say);
2. **by tools**: the one domain that owns it; when several do (a record calling only
   ``get_user_details``, which airline and retail both have), the file's domain if it is one of
   them, else set aside as ambiguous;
3. **calls no domain tool** (only ``think``/``calculate``/the hand-off, or no tool at all) and no
   name: the file's domain - when the record has no system prompt or the system prompt of a
   record of that domain in the same file (an office assistant's tool-less chat beside airline
   runs is not airline) - else set aside.

*The file's domain* is the single domain of every record of the same input that was routed by
a named domain or by tools, when there is at least one such record and no record with
domain tools was set aside (a clean one-system export, e.g. tau-bench's airline runs, 16 of which
call no tool). Nothing is forced into a default domain: a record no domain owns is quarantined
with :data:`INGEST_NO_DOMAIN` (detail: the tools no domain has, and ``docs/domains.md``), a record
several own with :data:`INGEST_DOMAIN_AMBIGUOUS`. ``metadata.domain_source`` records how the
domain was chosen: ``"named"``, ``"tools"`` or ``"file"``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from pipeline.domains.base import ADD_DOMAIN_DOC, evidence_tools, foreign_tools

INGEST_NO_DOMAIN = "INGEST_NO_DOMAIN"
INGEST_DOMAIN_AMBIGUOUS = "INGEST_DOMAIN_AMBIGUOUS"

__all__ = ["Route", "INGEST_NO_DOMAIN", "INGEST_DOMAIN_AMBIGUOUS", "registered_domains", "owners",
           "route_record", "route_all", "route_in_file", "system_prompt_of"]


@dataclass(frozen=True)
class Route:
    """Where one record goes: ``domain`` (a registered name) and ``source`` (``"named"``,
    ``"tools"``, ``"file"``), or ``domain=None`` with a reason ``code`` and a human ``detail``.
    ``unknown_tools`` lists the record's tools no registered domain has (sorted)."""

    domain: str | None
    source: str | None = None
    code: str | None = None
    detail: str = ""
    unknown_tools: tuple[str, ...] = ()


def registered_domains() -> dict[str, Any]:
    """``{name: domain object}`` of every domain in :mod:`pipeline.domains`' registry (imports
    them). Raises whatever a broken domain package raises on import."""
    from pipeline.domains import get_domain, known_domains

    return {n: get_domain(n) for n in known_domains()}


def owners(record: Any, domains: Mapping[str, Any]) -> list[str]:
    """Names of the ``domains`` that own ``record`` (each domain's ``owns``), sorted."""
    return sorted(n for n, d in domains.items() if d.owns(record))


def _howto(names: Sequence[str]) -> str:
    if names:
        return f"to keep such logs, add a domain with these tools: {ADD_DOMAIN_DOC}"
    return (f"name the record's domain (metadata.domain / trajpipe ingest --domain), or add a domain: "
            f"{ADD_DOMAIN_DOC}")


def route_record(record: Any, domains: Mapping[str, Any], explicit: str | None = None,
                 file_domain: str | None = None) -> Route:
    """Route one record (a LogRecord or canonical dict) among ``domains`` (``{name: domain}``).

    ``explicit`` is the named domain (None: none named); ``file_domain`` the domain of the file
    the record came from (see the module doc), used only when the tools leave it open. Returns a
    :class:`Route`; never raises for a bad record (an unknown name is a set-aside, not an error).
    """
    tools = evidence_tools(record)
    known = set().union(*(set(d.tools) for d in domains.values())) if domains else set()
    unknown = tuple(sorted(t for t in tools if t not in known))
    known_list = ", ".join(sorted(domains)) or "(none)"
    if explicit is not None:
        d = domains.get(explicit)
        if d is None:
            return Route(None, code=INGEST_NO_DOMAIN, unknown_tools=unknown,
                         detail=f"named domain {explicit!r} is not registered (known: {known_list})"
                                + (f"; unknown tools: {', '.join(unknown)}" if unknown else "")
                                + f"; {_howto(unknown)}")
        if not tools or d.owns(record):
            return Route(explicit, "named")
        missing = foreign_tools(d, record)
        elsewhere = owners(record, domains)
        what = (f"does not have tool(s) {', '.join(missing)} that the record calls (or not with these arguments)"
                if missing else "does not own the record (its owns() says no)")
        return Route(None, code=INGEST_NO_DOMAIN, unknown_tools=unknown,
                     detail=f"named domain {explicit!r} {what}"
                            + (f"; owned by {', '.join(elsewhere)}: name that domain instead" if elsewhere else "")
                            + (f"; no registered domain has {', '.join(unknown)}" if unknown else "")
                            + f"; {_howto(unknown)}")
    if not tools:
        if file_domain is not None:
            return Route(file_domain, "file")
        return Route(None, code=INGEST_NO_DOMAIN,
                     detail=f"the record calls no domain tool (only shared tools or none) and names no "
                            f"domain, and its file is not a one-domain log; {_howto(())}")
    found = owners(record, domains)
    if len(found) == 1:
        return Route(found[0], "tools")
    if len(found) > 1:
        if file_domain in found:
            return Route(file_domain, "file")
        return Route(None, code=INGEST_DOMAIN_AMBIGUOUS,
                     detail=f"domains {', '.join(found)} all have the tool(s) {', '.join(tools)} the record "
                            f"calls; name its domain (metadata.domain / trajpipe ingest --domain)")
    if unknown:
        detail = (f"unknown tools: {', '.join(unknown)} (no registered domain has them; known domains: "
                  f"{known_list})")
    else:  # every tool exists somewhere, but no one domain has them all (or not with these arguments)
        parts = []
        for t in tools:
            have = sorted(n for n, d in domains.items() if t in d.tools and t not in foreign_tools(d, record))
            parts.append(f"{t} ({'/'.join(have) or 'no domain with these arguments'})")
        detail = f"no single domain has all the tools the record calls: {', '.join(parts)}"
    return Route(None, code=INGEST_NO_DOMAIN, unknown_tools=unknown, detail=f"{detail}; {_howto(unknown)}")


def route_all(records: Sequence[Any], explicit: Sequence[str | None] | str | None = None,
              domains: Mapping[str, Any] | None = None) -> list[Route]:
    """Route the records of one input file (two passes: first by name and tools, then the
    records the tools leave open with the file's domain, see the module doc).

    ``explicit`` is one named domain for every record, or one per record (None: not named);
    ``domains`` defaults to :func:`registered_domains`. Returns one :class:`Route` per record, in
    order. ValueError when a per-record ``explicit`` list has the wrong length.
    """
    domains = registered_domains() if domains is None else domains
    if explicit is None or isinstance(explicit, str):
        named: list[str | None] = [explicit] * len(records)
    else:
        named = list(explicit)
        if len(named) != len(records):
            raise ValueError(f"explicit has {len(named)} entries for {len(records)} records")
    first = [route_record(r, domains, e) for r, e in zip(records, named)]
    decided = {rt.domain for rt in first if rt.source in ("named", "tools")}
    dirty = any(rt.domain is None and rt.code == INGEST_NO_DOMAIN and evidence_tools(r)
                for rt, r in zip(first, records))
    file_domain = next(iter(decided)) if len(decided) == 1 and not dirty else None
    if file_domain is None:
        return first
    prompts = {system_prompt_of(r) for rt, r in zip(first, records) if rt.source in ("named", "tools")}
    return [rt if rt.domain is not None else route_in_file(r, domains, e, file_domain, prompts)
            for rt, r, e in zip(first, records, named)]


def route_in_file(record: Any, domains: Mapping[str, Any], explicit: str | None, file_domain: str,
                  file_prompts: set[str | None]) -> Route:
    """Second-pass routing of a record the first pass left open, in a file whose domain is
    ``file_domain``: the file's domain (:func:`route_record`) unless the record has a system
    prompt that is none of ``file_prompts`` (the system prompts of the records that file's domain
    was decided by, :func:`system_prompt_of`): "You are an office assistant ..." beside airline
    runs calls no airline tool and is not airline -> :data:`INGEST_NO_DOMAIN`."""
    own = system_prompt_of(record)
    if own is not None and own not in file_prompts:
        return Route(None, code=INGEST_NO_DOMAIN, detail=(
            f"the record calls no domain tool and its system prompt is not the one of this file's "
            f"{file_domain} records (it may come from another system); name its domain "
            f"(metadata.domain / trajpipe ingest --domain) or add a domain: {ADD_DOMAIN_DOC}"))
    return route_record(record, domains, explicit, file_domain)


def system_prompt_of(record: Any) -> str | None:
    """The record's first system message, whitespace-normalized (None without one): a record
    that calls no domain tool takes its file's domain only with no system prompt or the system
    prompt of a record the file's domain owns."""
    msgs = record.get("messages") if isinstance(record, Mapping) else getattr(record, "messages", None)
    for m in msgs or []:
        if isinstance(m, Mapping) and m.get("role") == "system":
            c = m.get("content")
            if isinstance(c, list):
                c = " ".join(str(p.get("text", "")) for p in c if isinstance(p, Mapping))
            return " ".join(str(c or "").split())
    return None
