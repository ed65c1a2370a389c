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
from .anonymizer import KEY_RULES, SKIP_KEYS, AnonymizeInputError, Anonymizer
from .engine import Detector, DetectorPool, build_analyzer, detect_patterns
from .pseudonymizer import Pseudonymizer, normalize

__all__ = ["Anonymizer", "AnonymizeInputError", "Pseudonymizer", "Detector", "DetectorPool",
           "build_analyzer", "detect_patterns", "normalize", "KEY_RULES", "SKIP_KEYS"]
