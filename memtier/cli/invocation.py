"""The shared options of one call and the pieces every command uses, without typer.

`memtier.cli.argv` reads the argument list once; `guarded` keeps what it read for
the command being run, and `open_workspace` and `show` then serve every command,
whether typer parsed it or the fast path did (`memtier.cli.fast`). `guarded` is
the one error handler for what a command raises: every `MemtierError` becomes one
``memtier: error:`` line and its exit code; anything else is a bug, said so in one
line, exit 3.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from memtier.cli.argv import Argv, MissingValue, read_argv, wants_json

if TYPE_CHECKING:
    from memtier.render import Report
    from memtier.surface import Surface
    from memtier.workspace import Workspace

BUG_ENV_VAR = "MEMTIER_TRACEBACK"

_current = Argv([])


def invocation() -> Argv:
    """The shared options of the command being run."""
    return _current


def guarded(args: list[str], call: Callable[[Argv], int], argv: Argv | None = None) -> int:
    """Run ``call(argv)`` with *args* read once (or *argv*, already read from them);
    turn what it raises into one line and an exit code (the caller adds its parser's
    own errors).

    The named crash points of the fault-injection harness are switched on here,
    for every path into a command.
    """
    global _current
    from memtier import faults
    from memtier.errors import MemtierError
    from memtier.render import fail

    _tolerant_streams()
    as_json = wants_json(args)
    if any("\0" in arg for arg in args):
        # A real command line cannot carry NUL (C strings); only a caller in-process can.
        return fail(MemtierError("an argument cannot hold a NUL byte"), as_json=as_json)
    try:
        faults.enable(
            os.environ.get(faults.ENV_VAR),
            os.environ.get(faults.TRACE_ENV_VAR),
            os.environ.get(faults.TRACE_ALL_ENV_VAR),
        )
        if argv is None:
            try:
                argv = read_argv(args)
            except MissingValue as exc:
                from memtier.errors import InputError

                raise InputError(str(exc)) from None
        _current = argv
        return call(argv)
    except MemtierError as exc:
        return fail(exc, as_json=as_json)
    except KeyboardInterrupt:
        sys.stderr.write("memtier: error: interrupted\n")
        return 130
    except BrokenPipeError:
        # The reader went away (``memtier search … | head``): not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except Exception as exc:  # the last resort: a bug, said so in one line
        return _bug(exc, as_json)
    finally:
        _current = Argv([])


def _tolerant_streams() -> None:
    """A file name that is not UTF-8 (``$'\\xff'.md``) must not crash a strict-UTF-8
    stdout (``PYTHONIOENCODING=utf-8:strict``, a C locale): such bytes are printed
    as ``\\xff`` escapes instead."""
    from contextlib import suppress

    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with suppress(ValueError, OSError):
                reconfigure(errors="backslashreplace")


def _bug(exc: Exception, as_json: bool) -> int:
    """An exception nothing expected: one line saying it is a bug and how to report it,
    exit 3 (the traceback only with $MEMTIER_TRACEBACK set)."""
    from memtier import __version__
    from memtier.errors import EXIT_BUG, MemtierError
    from memtier.render import fail

    if os.environ.get(BUG_ENV_VAR):
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    error = MemtierError(
        f"unexpected error ({detail}); this is a bug in memtier {__version__}: please "
        f"report it with the command you ran (set {BUG_ENV_VAR}=1 to see the traceback)"
    )
    error.exit_code = EXIT_BUG
    return fail(error, as_json=as_json)


def surface() -> Surface:
    """The adapter for the command being run: its --root and --now, this process's
    working folder and environment (`memtier.surface`)."""
    from memtier.surface import Surface

    return Surface.of_process(_current.root, _current.now)


def resolve_moment() -> Any:
    return surface().moment()


def explicit_root() -> str | None:
    """The root a person named: --root, else $MEMTIER_ROOT (None: discover it)."""
    return surface().explicit_root()


def open_workspace() -> Workspace:
    """The workspace a command works on: root discovery, clock and configuration."""
    return surface().workspace()


def user_path(ws_root: Path, given: Path) -> Path:
    """A path a person typed (see `memtier.surface.Surface.user_path`)."""
    return surface().user_path(ws_root, given)


def show(
    report: Report,
    *,
    warnings: Iterable[str] = (),
    terminal: Callable[[TextIO], None] | None = None,
    body: bool = True,
) -> int:
    """`memtier.render.show` with this invocation's --json; returns the exit code."""
    from memtier import render

    return render.show(
        report, as_json=_current.as_json, warnings=warnings, terminal=terminal, body=body
    )
