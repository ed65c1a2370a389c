"""What a fresh user sees of the CLI: ``--help`` at 80 and 120 columns keeps every option name whole
and shows no type for a flag."""
from __future__ import annotations

import re

import pytest
import typer
from typer.testing import CliRunner

from pipeline.cli import app


def _commands(command=None, path=()):
    """(argv path, click command) of the app and every command and sub-command under it."""
    command = command or typer.main.get_command(app)
    yield list(path), command
    for name, sub in sorted((getattr(command, "commands", None) or {}).items()):
        yield from _commands(sub, (*path, name))


def _help(path: list[str], width: int) -> str:
    res = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": str(width), "TERMINAL_WIDTH": str(width)},
                             terminal_width=width)
    assert res.exit_code == 0, res.output
    return res.output


@pytest.mark.parametrize("width", [80, 120])
def test_help_never_breaks_an_option_name(width):
    """At 80 columns 15 names of `trajpipe run --help` were broken across two lines (``--max-ret`` /
    ``ries`` style: ``--tasks-per-blue``/``print``, ``--summarize-with-`` / ``model``, and the
    ``--no-...`` halves of flags). Every name of every command must now be whole on one line."""
    checked = 0
    for path, command in _commands():
        out = _help(path, width)
        lines = out.splitlines()
        assert max(len(line) for line in lines) <= width, path
        assert "…" not in out, (path, [line for line in lines if "…" in line][:3])
        for param in command.params:
            for name in [*param.opts, *param.secondary_opts]:
                if not name.startswith("-"):
                    continue
                whole = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")
                assert any(whole.search(line) for line in lines), (path, name, width)
                checked += 1
    assert checked > 150  # run alone has 60 options


def test_help_shows_no_type_for_a_flag():
    """Typer's rich help gave every flag a ``<bool>`` type (``--gradient-checkpointing/
    --no-gradient-checkpointing  <bool>``, ``--help <bool>``), though a flag takes no value."""
    for width in (80, 120):
        for path, _ in _commands():
            out = _help(path, width)
            assert "<bool>" not in out, (path, [line for line in out.splitlines() if "<bool>" in line][:3])
    train = _help(["train"], 120)
    flag = next(line for line in train.splitlines() if "--gradient-checkpointing" in line)
    assert not re.search(r"--gradient-checkpointing\s+<", flag), flag
    assert "--no-gradient-checkpointing" in train
    assert re.search(r"--lora-r\s+<int>", train)  # options that take a value keep their type
    rollout = _help(["rollout"], 120)
    assert re.search(r"--grounded\s+With the grammar", rollout)
