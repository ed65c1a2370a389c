"""Extra ``trajpipe`` commands, one module per command group.

Each module here defines ``register(app: typer.Typer) -> None`` that adds its commands (or a
sub-app with ``app.add_typer``) to the main CLI. :func:`register_all` is called once by
:mod:`pipeline.cli`; a module that fails to import is a bug and raises (no silent skipping).
"""
from __future__ import annotations

import importlib
import pkgutil

import typer


def register_all(app: typer.Typer) -> None:
    """Import every module of this package (sorted by name) and call its ``register(app)``."""
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        mod = importlib.import_module(f"{__name__}.{info.name}")
        register = getattr(mod, "register", None)
        if register is None:
            raise RuntimeError(f"pipeline.commands.{info.name} defines no register(app)")
        register(app)
