"""Command-line options generated from :class:`pipeline.config.RunConfig`.

:func:`config_command` turns a function ``body(cfg: RunConfig, **extra)`` into a typer command
whose options are the fields of the chosen config sections: the flag is ``--field-name`` (or the
field's ``json_schema_extra["cli"]``), the help is the field's ``description`` plus its default,
``Literal`` fields become choices, ``bool`` fields become ``--x/--no-x``. Every command also takes
``--config FILE`` (a run.yaml); an option given on the command line overrides the file, an option
not given leaves the file's value (or the default). So every option has one definition: the
pydantic field.

It also holds the one way trajpipe's commands report an error (:func:`die`, :func:`print_error`)
and a warning or note (:func:`warn`), so every message has the same prefix.
"""
from __future__ import annotations

import enum
import inspect
import typing
from pathlib import Path
from typing import Any, Callable, Literal, NoReturn, Optional

import typer
from rich.console import Console
from rich.text import Text

from pipeline.config import SECTIONS, ConfigError, RunConfig, load_config

TOP = "run"  # pseudo-section for RunConfig's own scalar fields (seed, work_dir)

#: the prefix of every error trajpipe reports, as typer/click print theirs (``Error: ...``, or an
#: "Error" panel) for a usage error such as a bad option value
ERROR_PREFIX = "Error:"

_stderr = Console(stderr=True)


def print_error(msg: str) -> None:
    """Print ``Error: msg`` on stderr (the message as is: no rich markup is read in it), as one
    line: the terminal wraps it, a log or a pipe gets it whole (no breaks at 80 columns)."""
    _stderr.print(Text.assemble((ERROR_PREFIX, "red"), " ", str(msg)), soft_wrap=True)


def die(msg: str, code: int = 2) -> NoReturn:
    """Report an error (:func:`print_error`) and exit with ``code`` (2: bad input or usage, as
    typer's usage errors; 1: the work itself failed)."""
    print_error(msg)
    raise typer.Exit(code)


def warn(msg: str, prefix: str = "Warning:") -> None:
    """Print ``Warning: msg`` (or another ``prefix``, e.g. ``Note:``) on stderr, markup-free, as
    one line (see :func:`print_error`)."""
    _stderr.print(Text.assemble((prefix, "yellow"), " ", str(msg)), soft_wrap=True)


def _fields(section: str):
    model = RunConfig if section == TOP else SECTIONS[section]
    for name, info in model.model_fields.items():
        if section == TOP and name in SECTIONS:
            continue
        yield name, info


def flag_names(section: str, name: str, info) -> list[str]:
    """The command-line flags of one config field."""
    extra = info.json_schema_extra or {}
    return list(extra.get("cli") or ["--" + name.replace("_", "-")])


def _base_type(ann: Any) -> tuple[Any, Optional[tuple[str, ...]]]:
    """(python type for typer, Literal choices or None) of a field annotation."""
    origin = typing.get_origin(ann)
    if origin is typing.Union:
        args = [a for a in typing.get_args(ann) if a is not type(None)]
        return _base_type(args[0])
    if origin is Literal:
        return str, tuple(str(a) for a in typing.get_args(ann))
    return ann, None


def config_params(sections: list[str]) -> list[tuple[str, str, str, inspect.Parameter]]:
    """(section, field, python parameter name, parameter) for every field of ``sections``."""
    out = []
    for section in sections:
        for name, info in _fields(section):
            typ, choices = _base_type(info.annotation)
            flags = flag_names(section, name, info)
            panel = "run" if section == TOP else section
            default = info.get_default(call_default_factory=True)
            # "\[" : rich (typer's help renderer) would read a bare "[default: 6]" as a markup tag and drop it
            help_text = (info.description or "") + f" \\[default: {default if default is not None else 'none'}]"
            if typ is bool:
                long = flags[0]
                opt = typer.Option(None, f"{long}/--no-{long[2:]}", help=help_text, show_default=False, rich_help_panel=panel)
            elif choices:  # a str Enum: typer shows and checks the choices
                typ = enum.Enum(f"{section}_{name}", {c: c for c in choices}, type=str)
                opt = typer.Option(None, *flags, help=help_text, show_default=False, rich_help_panel=panel)
            else:
                opt = typer.Option(None, *flags, help=help_text, show_default=False, rich_help_panel=panel)
            pname = f"{section}__{name}"
            out.append((section, name, pname,
                        inspect.Parameter(pname, inspect.Parameter.KEYWORD_ONLY, default=opt,
                                          annotation=Optional[typ])))
    return out


def overrides_from(params: list[tuple[str, str, str, inspect.Parameter]], values: dict[str, Any]) -> dict[str, Any]:
    """Nested overrides (``{"rollout": {"k": 8}}``) of the options actually given (not None)."""
    out: dict[str, Any] = {}
    for section, name, pname, _ in params:
        val = values.get(pname)
        if val is None:
            continue
        if isinstance(val, Path):
            val = str(val)
        if isinstance(val, enum.Enum):
            val = val.value
        if section == TOP:
            out[name] = val
        else:
            out.setdefault(section, {})[name] = val
    return out


CONFIG_HELP = ("A run.yaml (sections ingest, anonymize, blueprints, synthesize, verify, rollout, select, export, plus "
               "seed and work_dir; see README). Options given on the command line override it.")


def config_command(app: typer.Typer, name: str, sections: list[str], body: Callable[..., None],
                   extra: Optional[list[inspect.Parameter]] = None, help: str | None = None,
                   on_error: Callable[[str], None] | None = None) -> Callable[..., None]:
    """Register ``trajpipe NAME``: options for ``--config`` + every field of ``sections`` + the
    ``extra`` parameters (typer-annotated ``inspect.Parameter`` objects, keyword-only). On
    invocation the config is loaded and validated, then ``body(cfg, **extra_values)`` runs. A bad
    config calls ``on_error(message)`` (default: :func:`die`, exit 2)."""
    params = config_params(sections)
    cfg_param = inspect.Parameter("config_file", inspect.Parameter.KEYWORD_ONLY,
                                  default=typer.Option(None, "--config", help=CONFIG_HELP), annotation=Optional[Path])
    extra = list(extra or [])

    def command(**kwargs: Any) -> None:
        config_file = kwargs.pop("config_file", None)
        extra_values = {p.name: kwargs.pop(p.name) for p in extra}
        try:
            cfg = load_config(config_file, overrides_from(params, kwargs))
        except ConfigError as exc:
            (on_error or die)(str(exc))
            return
        body(cfg, **extra_values)

    command.__signature__ = inspect.Signature([cfg_param] + [p for *_, p in params] + extra)  # type: ignore[attr-defined]
    command.__name__ = name.replace("-", "_")
    command.__doc__ = help or body.__doc__
    app.command(name=name, help=help or body.__doc__)(command)
    return command
