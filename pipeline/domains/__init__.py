"""Business domains (one package per system) and their registry.

``get_domain("airline")`` returns the domain object (a :class:`pipeline.domains.base.Domain`; see
``base.py`` for the contract). Domains are registered through package entry points in the group
:data:`ENTRY_POINT_GROUP` (``trajpipe.domains``), so a company's domain is a package it installs::

    # the domain package's pyproject.toml
    [project.entry-points."trajpipe.domains"]
    office = "acme_office.domain:DOMAIN"

The domains this project ships (:data:`BUNDLED`) are declared the same way in its own
``pyproject.toml`` and are always known, also from a source tree that was not pip-installed. An
entry point is imported on first use; an object that does not meet the contract (not a
:class:`~pipeline.domains.base.Domain`) or whose ``name`` differs from its entry-point name is
refused with TypeError / ValueError. An entry point that names a bundled domain but another object
is ignored with a warning (the bundled domains cannot be replaced by accident).
"""
from __future__ import annotations

import warnings
from functools import lru_cache
from importlib import metadata
from typing import Any

#: Entry-point group of domain plug-ins: ``name = "module.path:OBJECT"``.
ENTRY_POINT_GROUP = "trajpipe.domains"

#: The domains this project ships, ``name -> "module:OBJECT"`` (also its entry points).
BUNDLED: dict[str, str] = {
    "airline": "pipeline.domains.airline:DOMAIN",
    "retail": "pipeline.domains.retail:DOMAIN",
    "library": "pipeline.domains.library:DOMAIN",
}

_LOADED: dict[str, Any] = {}


@lru_cache(maxsize=1)
def _registry() -> dict[str, str]:
    """``{name: "module:OBJECT"}`` of every registered domain: the bundled ones, then the entry
    points of :data:`ENTRY_POINT_GROUP` (a name seen twice keeps its first target)."""
    out = dict(BUNDLED)
    for ep in sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: (e.name, e.value)):
        if ep.name not in out:
            out[ep.name] = ep.value
        elif out[ep.name] != ep.value:
            warnings.warn(f"entry point {ENTRY_POINT_GROUP}:{ep.name} = {ep.value!r} ignored: the name is "
                          f"already registered as {out[ep.name]!r}", RuntimeWarning, stacklevel=2)
    return out


def registry_fingerprint() -> dict[str, str]:
    """``{name: "module:OBJECT@version"}`` of every registered domain (bundled ones: the
    project's version is in the code version already, "bundled"): part of the ingest stage's
    signature, so installing, removing or upgrading a domain package reroutes the logs instead of
    reusing a routing made without it (a fresh-clone check: after ``trajpipe domain init`` and
    ``pip install``, ingest reused its fully quarantined result)."""
    versions = {}
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        dist = getattr(ep, "dist", None)
        versions.setdefault(ep.name, getattr(dist, "version", None) or "?")
    return {name: f"{target}@{'bundled' if name in BUNDLED else versions.get(name, '?') + '#' + _tools_digest(name)}"
            for name, target in sorted(_registry().items())}


def _tools_digest(name: str) -> str:
    """A short digest of an installed domain's tool names and argument names: an editable package
    edited in place (a tool added to a scaffold by hand) keeps its version, and ingest must not
    reuse a routing made without that tool (fifteenth round of issue 11, a fresh-clone check)."""
    import hashlib
    import json

    try:
        tools = get_domain(name).tools
        shape = sorted((n, sorted((((t.schema.get("function") or {}).get("parameters") or {}).get("properties") or {})))
                       for n, t in tools.items())
    except Exception:  # noqa: BLE001 - a broken package: ingest reports it; the signature stays stable
        return "?"
    return hashlib.sha256(json.dumps(shape).encode()).hexdigest()[:12]


def reload_registry() -> None:
    """Forget the registry and the loaded domain objects (after installing a domain package in
    a running process, e.g. in a test)."""
    _registry.cache_clear()
    _LOADED.clear()


def known_domains() -> list[str]:
    """Names accepted by :func:`get_domain`, sorted."""
    return sorted(_registry())


def get_domain(name: str) -> Any:
    """The domain object registered as ``name``. ValueError listing the known domains for an
    unknown name; TypeError when the registered object is not a
    :class:`~pipeline.domains.base.Domain`; ValueError when its ``name`` is not ``name``."""
    if name in _LOADED:
        return _LOADED[name]
    target = _registry().get(name)
    if target is None:
        raise ValueError(f"unknown domain {name!r}; known domains: {', '.join(known_domains())}")
    from .base import Domain

    obj = metadata.EntryPoint(name=name, value=target, group=ENTRY_POINT_GROUP).load()
    if not isinstance(obj, Domain):
        raise TypeError(f"domain {name!r} ({target}) is a {type(obj).__name__}, not a pipeline.domains.base.Domain: "
                        f"subclass Domain (or pipeline.domains.common.ModuleDomain); see docs/domains.md")
    if obj.name != name:
        raise ValueError(f"domain registered as {name!r} ({target}) is named {obj.name!r}")
    _LOADED[name] = obj
    return obj
