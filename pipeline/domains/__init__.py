"""Business domains (one package per system) and their registry.

``get_domain("airline")`` returns the domain object (see ``base.py`` for the contract). A
domain package registers itself by being listed in :data:`_REGISTRY` (module path of an object
named ``DOMAIN``); it is imported on first use.
"""
from __future__ import annotations

import importlib
from typing import Any

_REGISTRY: dict[str, str] = {
    "airline": "pipeline.domains.airline",
    "retail": "pipeline.domains.retail",
    "library": "pipeline.domains.library",
}


def known_domains() -> list[str]:
    """Names accepted by :func:`get_domain`, sorted."""
    return sorted(_REGISTRY)


def get_domain(name: str) -> Any:
    """The domain object registered as ``name``. ValueError listing the known domains otherwise."""
    module = _REGISTRY.get(name)
    if module is None:
        raise ValueError(f"unknown domain {name!r}; known domains: {', '.join(known_domains())}")
    return importlib.import_module(module).DOMAIN
