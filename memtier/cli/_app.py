"""The typer application, the dispatcher that takes the shared options, and the one
error handler.

This package is the only place that imports typer (and rich, in `views`).

The convention every command follows (new commands too):

- The dispatcher (`run`) takes ``--root PATH``, ``--now TIME`` and ``--json`` out of
  the argument list once, before or after the command name (up to a ``--``), into
  the `memtier.cli.invocation.Argv`; typer never sees them, so a command does not declare
  them.
- Register with ``@command(app, "name")`` (or a group: ``@command(buffer_app,
  "note")``): its help then names the shared options. Parameters are only the
  command's own.
- The body imports its core lazily, builds the workspace with `open_workspace()`,
  calls one core function and ends with ``return show(result)`` (both from
  `memtier.cli.invocation`, which never imports typer). The result
  carries its warnings, notices, redactions and failure (see `memtier.render`);
  the command prints nothing itself and never raises ``typer.Exit``.
- Errors are raised as `MemtierError`; `invocation.guarded` (printing through
  `render.fail`) is the one handler, and `run` adds click's usage errors to it. No
  protocol rule lives here.
- A hot command (one an agent calls many times a session) keeps its body in
  `memtier.cli.invocation`, and its typer command calls that body and takes its
  defaults from it (`invocation.default`); add the command to ``fast.SHAPES``
  under its body's name: ``tests/cli/test_fast.py`` checks the table against this
  app (every option, its arity, every default) and draws argument lists that both
  parses must agree on.

Example::

    @command(app, "stats")
    def stats_command() -> int:
        '''Files, lines and bytes per tier.'''
        from memtier.commands.stats import collect_stats

        return show(collect_stats(open_workspace()))
"""

from __future__ import annotations

import copy
import functools
import sys
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import click
import typer
from typer.core import TyperCommand

from memtier import __version__
from memtier.cli.invocation import Argv, guarded, invocation

F = TypeVar("F", bound=Callable[..., Any])

HELP = """memtier keeps an AI agent's memory as plain markdown files and keeps it healthy.

Tiers: HOT MEMORY.md, WARM memory/semantic + memory/procedural, COLD
memory/episodic/YYYY-MM-DD.md, BUFFER memory/working-buffer.md, SCRATCH
.learnings/*.md. Every command finds the workspace from --root, $MEMTIER_ROOT, or
the nearest ancestor holding MEMORY.md and memory/.
"""

app = typer.Typer(
    name="memtier",
    help=HELP,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    add_completion=False,
    no_args_is_help=True,
    # click already suggests a close command name; typer's own would say it twice.
    suggest_commands=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

SHARED_OPTIONS = (
    "Every command also takes --root PATH, --now TIME and --json, before or after "
    "its name (see 'memtier --help')."
)


class _PlainHelpCommand(TyperCommand):
    """A command whose help shows ``[required]`` and ``[default: 10]`` as written.

    typer escapes those brackets for rich markup whenever rich is installed, even
    with markup off; this CLI prints plain help, so the escapes are taken back.
    """

    def get_help(self, ctx: click.Context) -> str:
        return super().get_help(ctx).replace("\\[", "[")


def command(group: typer.Typer, name: str) -> Callable[[F], F]:
    """Register a command under *name* in *group*, its help naming the shared options."""

    def register(function: F) -> F:
        group.command(name, cls=_PlainHelpCommand, epilog=SHARED_OPTIONS)(function)
        return function

    return register


def group(
    name: str, help: str, *, runs_alone: bool = False, epilog: str | None = None
) -> typer.Typer:
    """A command group (``memtier buffer …``) registered under *name*. A group that
    *runs_alone* is also a command itself (``memtier sync``, ``memtier index``: its
    callback runs when no subcommand is named) instead of showing its help."""
    sub = typer.Typer(
        help=help,
        no_args_is_help=not runs_alone,
        invoke_without_command=runs_alone,
        rich_markup_mode=None,
        suggest_commands=False,
        epilog=epilog,
    )
    app.add_typer(sub, name=name)
    return sub


def _version_callback(value: bool) -> None:
    if value:
        sys.stdout.write(f"memtier {__version__}\n")
        raise typer.Exit()


@app.callback()
def _main(
    root: Annotated[
        str | None,
        typer.Option(
            "--root",
            help="Workspace root (default: $MEMTIER_ROOT, else the nearest ancestor "
            "holding MEMORY.md and memory/).",
            show_default=False,
        ),
    ] = None,
    now: Annotated[
        str | None,
        typer.Option(
            "--now",
            help="Pretend the time is this ISO 8601 moment (default: $MEMTIER_NOW, else the "
            "clock).",
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object on stdout and nothing else.")
    ] = False,
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_version_callback,
            is_eager=True,
            help="Print memtier's version and exit.",
        ),
    ] = False,
) -> None:
    # Only for the help text: the dispatcher has taken these options already.
    del root, now, as_json, version


def _narrowed(application: typer.Typer, path: list[str]) -> typer.Typer:
    """*application* with only the command or group named by ``path[0]`` registered,
    and inside a group only the subcommand ``path[1]``, when both exist.

    typer turns every registered command into a click command on each call,
    about 15 ms for the whole tree; an agent's call needs one. Top-level help,
    the version and unknown commands get the full application.
    """
    if not path:
        return application
    name = path[0]
    commands = [c for c in application.registered_commands if c.name == name]
    groups = [g for g in application.registered_groups if g.name == name]
    if not commands and not groups:
        return application  # so click can say "No such command"
    narrowed = copy.copy(application)
    narrowed.registered_commands = commands
    narrowed.registered_groups = groups
    if groups and len(path) > 1 and groups[0].typer_instance is not None:
        group = copy.copy(groups[0])
        group.typer_instance = _narrowed(groups[0].typer_instance, path[1:])
        narrowed.registered_groups = [group]
    return narrowed


def run(argv: list[str] | None = None, read: Argv | None = None) -> int:
    """Run the CLI: take the shared options, let typer parse the rest, and turn every
    error into one ``memtier: error:`` line and its exit code (see `render.fail`).
    *read* is *argv* already read by `memtier.cli.invocation.read_argv` (the fast path's
    fallback), so that it is read once."""
    args = sys.argv[1:] if argv is None else argv
    return guarded(args, _parse_and_run, read)


def prepare(read: Argv) -> tuple[click.Command, list[str]]:
    """The click command for *read*, and its arguments with any TEXT behind ``--``
    (PROTOCOL §3 v2: text starting with ``-`` is text; see `memtier.cli._text`)."""
    from memtier.cli._text import with_text_separated

    command = _command_for(_command_words(app, read.path))
    return command, [*read.path, *with_text_separated(command, read.path, read.args)]


def _command_words(application: typer.Typer, path: list[str]) -> tuple[str, ...]:
    """The words of *path* that name a command: a group and its subcommand, a
    command, or none. The rest (``remember``'s fact, ``search``'s query) is the
    caller's text and narrows nothing."""
    if not path:
        return ()
    if any(c.name == path[0] for c in application.registered_commands):
        return (path[0],)
    for group in application.registered_groups:
        if group.name == path[0] and group.typer_instance is not None:
            return (path[0], *_command_words(group.typer_instance, path[1:]))
    return ()


@functools.cache
def _command_for(words: tuple[str, ...]) -> click.Command:
    """The click command typer builds for the command *words* name, built once per
    process: a process that runs the CLI more than once (the tests, a caller
    embedding it) would otherwise pay typer's ~5 ms of building on every call.
    click makes a new context for every parse, so the command holds no state of a
    call; keyed by command words only, the cache never holds a caller's text, and it
    holds at most one entry per command of the CLI (a bound of 32 was fewer than
    the commands, so a caller going through all of them rebuilt every one)."""
    from typer.main import get_command

    return get_command(_narrowed(app, list(words)))


def _parse_and_run(read: Argv) -> int:
    from memtier.errors import InputError, MemtierError
    from memtier.render import fail

    as_json = invocation().as_json
    try:
        command, rest = prepare(read)
        result = command.main(args=rest, prog_name="memtier", standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as exc:
        # `memtier` or `memtier buffer` alone: show the help, which is what was asked for.
        sys.stdout.write(exc.format_message() + "\n")
        return 0
    except click.UsageError as exc:
        hint = ""
        if exc.ctx is not None:
            hint = f" (see '{exc.ctx.command_path} --help')"
        # click quotes what was typed with its line breaks escaped ("\\n"): restored,
        # so that a key block quoted in the message is recognised and redacted.
        message = exc.format_message().replace("\\n", "\n")
        return fail(InputError(message + hint), as_json=as_json)
    except click.exceptions.Abort:
        raise KeyboardInterrupt from None
    except click.ClickException as exc:
        error = MemtierError(exc.format_message())
        error.exit_code = exc.exit_code
        return fail(error, as_json=as_json)
    return result if isinstance(result, int) else 0
