"""The typer application, the options every command shares, and the one error handler.

This package is the only place that imports typer. Each command parses its
options, builds the `Workspace` with `open_workspace`, calls one core function
and hands the result to the renderer. No protocol rule lives here.
"""

from __future__ import annotations

import copy
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import click
import typer

from memtier import __version__

if TYPE_CHECKING:
    from memtier.render import Report
    from memtier.workspace import Workspace

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
    context_settings={"help_option_names": ["-h", "--help"]},
)


@dataclass
class GlobalOptions:
    root: str | None = None
    now: str | None = None


RootOption = Annotated[
    str | None,
    typer.Option(
        "--root",
        help="Workspace root (default: $MEMTIER_ROOT, else the nearest ancestor "
        "holding MEMORY.md and memory/).",
        show_default=False,
    ),
]
NowOption = Annotated[
    str | None,
    typer.Option(
        "--now",
        help="Pretend the time is this ISO 8601 moment (default: $MEMTIER_NOW, else the clock).",
        show_default=False,
    ),
]
JsonOption = Annotated[
    bool, typer.Option("--json", help="Print one JSON object on stdout and nothing else.")
]


def _version_callback(value: bool) -> None:
    if value:
        sys.stdout.write(f"memtier {__version__}\n")
        raise typer.Exit()


@app.callback()
def _main(
    ctx: typer.Context,
    root: RootOption = None,
    now: NowOption = None,
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
    ctx.obj = GlobalOptions(root=root, now=now)


def global_options(ctx: click.Context) -> GlobalOptions:
    found = ctx.find_object(GlobalOptions)
    return found if found is not None else GlobalOptions()


def resolve_moment(ctx: click.Context, now: str | None) -> Any:
    from memtier.clock import resolve_now

    return resolve_now(now or global_options(ctx).now, os.environ.get("MEMTIER_NOW"))


def explicit_root(ctx: click.Context, root: str | None) -> str | None:
    return root or global_options(ctx).root or os.environ.get("MEMTIER_ROOT") or None


def open_workspace(ctx: click.Context, root: str | None, now: str | None) -> Workspace:
    """The workspace a command works on: root discovery, clock and configuration."""
    from memtier.workspace import Workspace, resolve_root

    moment = resolve_moment(ctx, now)
    folder = resolve_root(explicit_root(ctx, root), Path.cwd())
    return Workspace.open(folder, moment)


def user_path(ws_root: Path, given: Path) -> Path:
    """A path a person typed: as is if absolute; a relative one from the working folder
    when that lies inside the workspace, else from the workspace root (so
    ``memtier --root R atomic-write memory/x.md`` means ``R/memory/x.md`` from anywhere)."""
    given = given.expanduser()
    if given.is_absolute():
        return given
    from memtier.workspace import inside_root

    cwd = Path.cwd()
    return (cwd if inside_root(ws_root, cwd) else ws_root) / given


def show(report: Report, as_json: bool) -> None:
    from memtier.render import emit

    emit(report, as_json=as_json)


_GLOBAL_VALUE_OPTIONS = ("--root", "--now")


def command_path(args: list[str]) -> list[str]:
    """The command (and subcommand) an argument list asks for, skipping the global
    options before it; empty for --help, --version or an option typer must judge."""
    skip = False
    path: list[str] = []
    for arg in args:
        if skip:
            skip = False
        elif not path and arg in _GLOBAL_VALUE_OPTIONS:
            skip = True
        elif arg.startswith("-"):
            if path or not arg.startswith(tuple(o + "=" for o in _GLOBAL_VALUE_OPTIONS)):
                break
        else:
            path.append(arg)
            if len(path) == 2:
                break
    return path


def command_name(args: list[str]) -> str | None:
    """The top-level command an argument list asks for (see `command_path`)."""
    path = command_path(args)
    return path[0] if path else None


def _narrowed(application: typer.Typer, path: list[str]) -> typer.Typer:
    """*application* with only the command or group named by ``path[0]`` registered,
    and inside a group only the subcommand ``path[1]``, when both exist."""
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


def app_for(args: list[str]) -> typer.Typer:
    """The application with only the command *args* ask for registered.

    typer turns every registered command into a click command on each call,
    about 15 ms for the whole tree; an agent's call needs one. Top-level help,
    the version and unknown commands get the full application.
    """
    return _narrowed(app, command_path(args))


def run(argv: list[str] | None = None) -> int:
    """Run the CLI; every `MemtierError` becomes one ``memtier: error:`` line."""
    from memtier import faults
    from memtier.errors import MemtierError

    faults.enable(
        os.environ.get(faults.ENV_VAR),
        os.environ.get(faults.TRACE_ENV_VAR),
        os.environ.get(faults.TRACE_ALL_ENV_VAR),
    )
    args = sys.argv[1:] if argv is None else argv
    try:
        result = app_for(args)(args=args, prog_name="memtier", standalone_mode=False)
    except MemtierError as exc:
        _error(exc.message)
        return exc.exit_code
    except click.exceptions.NoArgsIsHelpError as exc:
        # `memtier` or `memtier buffer` alone: show the help, which is what was asked for.
        sys.stdout.write(exc.format_message() + "\n")
        return 0
    except click.UsageError as exc:
        hint = ""
        if exc.ctx is not None:
            hint = f" (see '{exc.ctx.command_path} --help')"
        _error(exc.format_message() + hint)
        return 2
    except click.ClickException as exc:
        _error(exc.format_message())
        return exc.exit_code
    except click.exceptions.Abort:
        _error("aborted")
        return 130
    except KeyboardInterrupt:
        _error("interrupted")
        return 130
    except BrokenPipeError:
        # The reader went away (``memtier search … | head``): not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    return result if isinstance(result, int) else 0


def _error(message: str) -> None:
    # A message may quote what was typed (an unknown option, a task to match):
    # it never repeats a credential (PROTOCOL §3). Loaded only when there is an error.
    from memtier.secrets import redact

    sys.stderr.write(f"memtier: error: {redact(message).text}\n")
