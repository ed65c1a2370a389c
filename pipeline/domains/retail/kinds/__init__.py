"""The retail task kinds, one module each (``KIND``, ``OUTCOME``, ``generate(c)``,
``DECIDING_RULES``, ``VARIANTS``, ``SKILLS``, ``REQUIREMENTS``, ``SUCCESS``), with their shared
building blocks in :mod:`.common`; run by :mod:`pipeline.domains.retail.generator`."""
