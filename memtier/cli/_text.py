"""TEXT arguments: one type for every command that takes text (PROTOCOL §3 v2).

A command declares its text with `text_argument` (or `text_option`), and the
dispatcher does the rest, for every such command at once:

- ``-`` alone reads the text from standard input (a pipe, several lines, megabytes);
- text that starts with ``-`` (a markdown bullet ``- nas01 runs Ubuntu``, a
  ``--- rule``, a ``-----BEGIN`` line) is text, not an option, without ``--``:
  `separate_text` moves every argument that is not one of the command's own
  options behind a ``--`` before click parses the line, so options still work
  before or after the text, and an explicit ``--`` still works;
- bytes of an argument that are not UTF-8 become U+FFFD rather than a traceback
  (or a file that is no longer UTF-8).

A word shaped like an option (``--fast``, ``-x``) that the command does not
know stays an option, so a mistyped option is still reported as one.
"""

from __future__ import annotations

import sys
from typing import Any

import click
import typer

from memtier.cli.invocation import OPTION_SHAPE
from memtier.errors import InputError

STDIN_MARK = "-"
# Text read from standard input: enough for any note, bounded so that a
# device or an endless pipe cannot exhaust memory.
MAX_STDIN_BYTES = 32 * 1024 * 1024


class TextType(click.ParamType[str]):
    """A TEXT argument or option: ``-`` means standard input."""

    name = "text"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from memtier.formats.text import replace_invalid

        if not isinstance(value, str):
            return str(value)
        if value == STDIN_MARK:
            return read_stdin_text()
        return replace_invalid(value)


TEXT = TextType()


def text_argument(help: str) -> Any:
    """``typer.Argument`` for a TEXT parameter (one string or a list of words)."""
    return typer.Argument(help=f"{help} '-' reads it from standard input.", click_type=TEXT)


def text_option(*names: str, help: str) -> Any:
    """``typer.Option`` whose value is text (``-`` reads standard input)."""
    return typer.Option(
        *names, help=f"{help} ('-': standard input)", show_default=False, click_type=TEXT
    )


def read_stdin_text() -> str:
    """Standard input as text; bytes that are not UTF-8 become U+FFFD."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        return str(sys.stdin.read(MAX_STDIN_BYTES))
    data: bytes = stream.read(MAX_STDIN_BYTES + 1)
    if len(data) > MAX_STDIN_BYTES:
        raise InputError(f"standard input: more than {MAX_STDIN_BYTES // (1024 * 1024)} MB of text")
    return data.decode("utf-8", "replace")


def takes_text(command: click.Command) -> bool:
    return any(
        isinstance(p, click.Argument) and isinstance(p.type, TextType) for p in command.params
    )


def _option_arity(command: click.Command, ctx: click.Context) -> dict[str, bool]:
    """Every option name of *command* (help included) and whether it takes a value."""
    arity: dict[str, bool] = {}
    for param in command.get_params(ctx):
        if isinstance(param, click.Option):
            takes_value = not param.is_flag and not param.count
            for name in (*param.opts, *param.secondary_opts):
                arity[name] = takes_value
    return arity


def separate_text(command: click.Command, ctx: click.Context, args: list[str]) -> list[str]:
    """*args* (the command's own, after its name) with the text behind ``--``."""
    arity = _option_arity(command, ctx)
    options: list[str] = []
    texts: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--":
            texts.extend(args[index:])
            break
        name = arg.split("=", 1)[0] if arg.startswith("--") else arg
        if name in arity:
            options.append(arg)
            if arity[name] and name == arg and index < len(args):
                options.append(args[index])
                index += 1
        elif arg != STDIN_MARK and OPTION_SHAPE.fullmatch(arg):
            options.append(arg)  # unknown: click reports it as an option
        else:
            texts.append(arg)
    return [*options, "--", *texts] if texts else options


def leaf_command(
    group: click.Command, path: list[str]
) -> tuple[click.Command, click.Context] | None:
    """The click command *path* names inside *group*, with a context to read its params."""
    command = group
    for name in path:
        if not isinstance(command, click.Group):
            break
        found = command.commands.get(name)
        if found is None:
            return None
        command = found
    if isinstance(command, click.Group):
        return None
    return command, click.Context(command, info_name=command.name)
