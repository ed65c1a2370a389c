"""Anonymize stage: pseudonymize personal data in :class:`~pipeline.records.LogRecord` s.

Public API::

    from pipeline.anonymize import Anonymizer
    anon = Anonymizer(secret=None)          # $TRAJPIPE_SECRET or a random per-run key
    for rec in anon.anonymize(records): ... # LogRecord -> LogRecord, ids kept*
    anon.report()                           # counts per entity type / recognizer / key rule
    anon.is_real("Mia")                     # denylist predicate for the synthesizer
    anon.digests                            # HMAC digests of every replaced real value
    anon.close()                            # stops detector workers (Anonymizer(workers=N))

(*) identifiers, e-mails and secrets inside a record id are pseudonymized too.

Building blocks: :func:`~pipeline.anonymize.engine.build_analyzer` (offline presidio + spaCy
package model + business-identifier recognizers) and
:class:`~pipeline.anonymize.pseudonymizer.Pseudonymizer` (keyed, consistent, format-preserving
fakes); :class:`~pipeline.anonymize.engine.Detector` (the batched detection hot path) and
:class:`~pipeline.anonymize.engine.DetectorPool` (the same in worker processes).
Evaluation: :mod:`pipeline.anonymize.eval` (``python -m pipeline.anonymize.eval``); planted test
personas: :mod:`pipeline.anonymize.planted`. See ``docs/anonymization.md``. No Prefect in here.
"""
from __future__ import annotations

import importlib
from typing import Any

#: Public name -> the submodule that defines it. Imported on first use (PEP 562 ``__getattr__``),
#: so that ``python -m pipeline.anonymize.eval --help`` or ``.names_data`` does not load presidio
#: and spaCy first (and runpy finds no half-imported submodule in ``sys.modules``).
_EXPORTS = {"Anonymizer": "anonymizer", "AnonymizeInputError": "anonymizer", "KEY_RULES": "anonymizer",
            "SKIP_KEYS": "anonymizer", "Detector": "engine", "DetectorPool": "engine",
            "build_analyzer": "engine", "detect_patterns": "engine", "Pseudonymizer": "pseudonymizer",
            "normalize": "pseudonymizer"}

__all__ = ["Anonymizer", "AnonymizeInputError", "Pseudonymizer", "Detector", "DetectorPool",
           "build_analyzer", "detect_patterns", "normalize", "KEY_RULES", "SKIP_KEYS"]


def __getattr__(name: str) -> Any:
    """The public name ``name`` from its submodule (imported now); ``AttributeError`` otherwise."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
