"""TEXT arguments: one type for every command that takes text (PROTOCOL §3 v2).

A command declares its text with `text_argument` (or `text_option`), and the
dispatcher does the rest, for every such command at once:

- ``-`` alone reads the text from standard input (a pipe, several lines, megabytes);
- text that starts with ``-`` (a markdown bullet ``- nas01 runs Ubuntu``, a
  ``--- rule``, a ``-----BEGIN`` line) is text, not an option, without ``--``:
  `with_text_separated` moves every argument that is not one of the command's own
  options behind a ``--`` before click parses the line (`memtier.cli.invocation` does
  the splitting, for the fast path too), so options still work before or after
  the text, and an explicit ``--`` still works;
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

from memtier.cli.invocation import STDIN_MARK
from memtier.errors import InputError

# Text read from standard input: enough for any note, bounded so that a
# device or an endless pipe cannot exhaust memory.
MAX_STDIN_BYTES = 32 * 1024 * 1024


class TextType(click.ParamType[str]):
    """A TEXT argument or option: ``-`` means standard input."""

    name = "text"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from memtier.secrets import replace_invalid

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


def takes_text(command: Any) -> bool:
    """Whether *command* (a click command typer built) has a TEXT argument."""
    return any(
        getattr(p, "param_type_name", None) == "argument" and isinstance(p.type, TextType)
        for p in command.params
    )


def leaf_command(group: Any, path: list[str]) -> tuple[Any, Any] | None:
    """The command *path* names inside *group*, with a context to read its params;
    None for a group or an unknown name. Groups are told by their ``commands``
    table, not by their class (see `memtier.cli.invocation.option_arity`)."""
    command = group
    for name in path:
        commands = getattr(command, "commands", None)
        if commands is None:
            break
        found = commands.get(name)
        if found is None:
            return None
        command = found
    if getattr(command, "commands", None) is not None:
        return None
    return command, command.context_class(command, info_name=command.name)


def with_text_separated(command: Any, path: list[str], args: list[str]) -> list[str]:
    """*args* (the command's own, after *path*) with its text behind ``--``, so click
    takes ``- a bullet`` as text (PROTOCOL §3 v2); unchanged for a command without
    TEXT arguments."""
    from memtier.cli.invocation import option_arity, separate

    found = leaf_command(command, path) if path else None
    if found is None or not takes_text(found[0]):
        return args
    leaf, ctx = found
    options, texts = separate(args, option_arity(leaf.get_params(ctx)))
    return [*options, "--", *texts] if texts else options
