"""The airline task kinds, one module each (``KIND``, ``generate(fac)``, ``VARIANTS``, ``SKILLS``,
``REQUIREMENTS``, ``SUCCESS``), with their shared building blocks in :mod:`.common`; run by
:mod:`pipeline.domains.airline.generator`."""
