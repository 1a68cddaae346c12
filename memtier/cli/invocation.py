"""The shared options of one call and the pieces every command uses, without typer.

One pass over a command line, shared by typer's path and the fast path:
`read_argv` takes the shared options (``--root``, ``--now``, ``--json``) out of the
argument list once, wherever they stand before a ``--``, and names the command the
rest asks for. `separate` then splits a command's own arguments into its options
and its text, given which option names the command knows and whether each takes a
value. typer's path reads that from the click command typer builds (`option_arity`);
the fast path from its table, which a test checks against the same click command.
Neither imports typer or click here: the fast path must start without them.

PROTOCOL §3 v2: an argument that starts with ``-`` but is not shaped like an option
(``- a bullet``, ``--- rule``, ``-1``) is text; ``-`` alone means standard input.

`guarded` keeps what `read_argv` read for the command being run, and
`open_workspace` and `show` then serve every command, whether typer parsed it or
the fast path did (`memtier.cli.fast`). The hot commands' bodies are here too, so
that both parsers call the same function and the typer command reads its defaults
from it (`default`). `guarded` is the one error handler for
what a command raises: every `MemtierError` becomes one ``memtier: error:`` line
and its exit code; anything else is a bug, said so in one line, exit 3.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

# Not typing's: importing it costs a search 3-4 ms. Type checkers read this as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Any, TextIO

    from memtier.render import Report
    from memtier.surface import Surface
    from memtier.workspace import Workspace

# What an option looks like (``--fast``, ``-x``, ``--date=D``).
OPTION_SHAPE = re.compile(r"--?[A-Za-z][A-Za-z0-9_-]*(?:=.*)?", re.DOTALL)
STDIN_MARK = "-"
_SHARED_VALUES = ("--root", "--now")
_SHARED_FLAG = "--json"
# A command path is at most a group and its subcommand (``buffer note``).
_PATH_DEPTH = 2


class MissingValue(ValueError):
    """A shared option that needs a value stands last (``memtier stats --root``)."""


class Argv:
    """A command line with the shared options taken out.

    ``rest`` is everything else, in order; ``path`` the command words it starts
    with (up to two, before the first option) and ``args`` what follows them.
    """

    __slots__ = ("args", "as_json", "now", "path", "rest", "root")

    def __init__(
        self,
        rest: list[str],
        root: str | None = None,
        now: str | None = None,
        as_json: bool = False,
    ) -> None:
        self.rest = rest
        self.root = root
        self.now = now
        self.as_json = as_json
        end = 0
        for arg in rest[:_PATH_DEPTH]:
            if arg.startswith("-"):
                break
            end += 1
        self.path = rest[:end]
        self.args = rest[end:]


def read_argv(args: list[str]) -> Argv:
    """*args* with ``--root``/``--now`` (``--opt V`` or ``--opt=V``) and ``--json``
    taken wherever they stand before a ``--``; the rest goes on unchanged.

    Raises `MissingValue` for ``--root`` or ``--now`` with nothing after it, or an
    empty value (``--root=``).
    """
    found: dict[str, Any] = {}
    rest: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            rest.extend(args[i:])
            break
        name, eq, value = arg.partition("=")
        if name in _SHARED_VALUES:
            if not eq:
                if i + 1 >= len(args):
                    raise MissingValue(f"Option '{name}' requires an argument.")
                i += 1
                value = args[i]
            if not value.strip():
                # ``--root=`` must not quietly mean "discover it" (nor ``--now=`` "now").
                raise MissingValue(f"Option '{name}' requires a non-empty value.")
            found[name[2:]] = value
        elif arg == _SHARED_FLAG:
            found["as_json"] = True
        else:
            rest.append(arg)
        i += 1
    return Argv(rest, **found)


def wants_json(args: list[str]) -> bool:
    """Whether --json stands before any ``--`` (for errors raised before parsing)."""
    return _SHARED_FLAG in (args[: args.index("--")] if "--" in args else args)


def is_option(arg: str) -> bool:
    """Whether *arg* is shaped like an option rather than text (PROTOCOL §3 v2)."""
    return arg != STDIN_MARK and OPTION_SHAPE.fullmatch(arg) is not None


def separate(args: list[str], arity: Mapping[str, bool]) -> tuple[list[str], list[str]]:
    """A command's own *args* as (options, texts).

    *arity* maps every option name the command knows to whether it takes a value.
    A known option keeps its value beside it; an unknown word shaped like an option
    stays an option (so the parser reports a typo as one); everything else, and all
    after a ``--``, is text.
    """
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
        elif is_option(arg):
            options.append(arg)
        else:
            texts.append(arg)
    return options, texts


def option_arity(params: Iterable[Any]) -> dict[str, bool]:
    """Every option name among a parser's *params* and whether it takes a value.

    Read from the parameter objects typer builds by what they say of themselves
    (``param_type_name``, ``opts``, ``is_flag``, ``count``), not by their class, so
    that a typer release that vendors its parser keeps working.
    """
    arity: dict[str, bool] = {}
    for param in params:
        if getattr(param, "param_type_name", None) != "option":
            continue
        takes_value = not getattr(param, "is_flag", False) and not getattr(param, "count", False)
        for name in (*param.opts, *getattr(param, "secondary_opts", ())):
            arity[name] = takes_value
    return arity


# ---------------------------------------------------------------------------
# the call being run

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
    from memtier.errors import MemtierError
    from memtier.render import fail

    _tolerant_streams()
    as_json = wants_json(args)
    if any("\0" in arg for arg in args):
        # A real command line cannot carry NUL (C strings); only a caller in-process can.
        return fail(MemtierError("an argument cannot hold a NUL byte"), as_json=as_json)
    try:
        _enable_faults()
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


def _enable_faults() -> None:
    """Switch on the crash points $MEMTIER_FAULT* names (`memtier.store.checkpoint`).

    Only when one is set or the store is loaded already (a call in the same
    process before this one): a command that writes nothing (``--help``, a usage
    error) then never loads the store, and a fresh store has none switched on.
    """
    if "memtier.store.write" not in sys.modules and not any(
        name.startswith("MEMTIER_FAULT") for name in os.environ
    ):
        return
    from memtier import store

    store.enable_faults(
        os.environ.get(store.FAULT_ENV_VAR),
        os.environ.get(store.TRACE_ENV_VAR),
        os.environ.get(store.TRACE_ALL_ENV_VAR),
    )


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


def resolve_moment() -> datetime:
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


# ---------------------------------------------------------------------------
# the hot commands' bodies: the fast path (`memtier.cli.fast`) and typer's
# commands both call these, and typer's take their defaults from them


def buffer_task(text: str) -> int:
    from memtier.commands.lifecycle import buffer_task as add_task

    return show(add_task(open_workspace(), text))


def buffer_note(text: str) -> int:
    from memtier.commands.lifecycle import buffer_note as add_note

    return show(add_note(open_workspace(), text))


def buffer_done(task: str) -> int:
    from memtier.commands.lifecycle import buffer_done as mark_done

    return show(mark_done(open_workspace(), task))


def buffer_heartbeat() -> int:
    from memtier.commands.lifecycle import buffer_heartbeat as beat

    return show(beat(open_workspace()))


def buffer_show() -> int:
    from memtier.commands.lifecycle import buffer_show as read

    return show(read(open_workspace()))


def episodic_append(text: str, date: str | None = None) -> int:
    from memtier.commands.episodic_writes import episodic_append as append
    from memtier.surface import parse_date_option

    ws = open_workspace()
    return show(append(ws, text, parse_date_option(date, ws)))


def learn(kind: str, text: list[str], pin: bool = False) -> int:
    from memtier.commands.learnings import learn as add_lesson

    return show(add_lesson(open_workspace(), kind.lower(), " ".join(text), pin))


def session_start(max_chars: int | None = None) -> int:
    from memtier.commands.session_start import session_start as start

    ws = open_workspace()
    if ws.config.sync_auto:  # PROTOCOL §14: sync first, never failing the session
        auto_sync_line(ws)
    return show(start(ws).copy_with(max_chars=max_chars))


def auto_sync_line(ws: Workspace) -> None:
    from memtier.commands.sync.run import auto_sync
    from memtier.render import notice

    line = auto_sync(ws, dict(os.environ))
    if line:
        notice(line)


def health_check(verbose: bool = False) -> int:
    from memtier.cli.collector import Uncollected
    from memtier.health.report import run_health_check

    with Uncollected():
        report = run_health_check(open_workspace()).with_detail(verbose)

    def table(out: TextIO) -> None:
        from memtier.cli.views import health_table

        health_table(report, out)

    return show(report, terminal=table)


def search(
    query: str,
    tier: list[str] | None = None,
    tag: list[str] | None = None,
    limit: int = 10,
    regex: bool = False,
    context: int = 1,
    all_tiers: bool = False,
) -> int:
    from memtier.render import colour_enabled
    from memtier.search import search

    face = surface()
    ws = face.workspace()
    request, warnings = face.search_request(
        query,
        tiers=tier or (),
        tags=tag or (),
        limit=limit,
        regex=regex,
        context=context,
        all_tiers=all_tiers,
    )
    report = search(ws, request, colour=not invocation().as_json and colour_enabled())
    return show(report, warnings=warnings)


def recall_topic(text: list[str], max_chars: int = 8000, everything: bool = False) -> int:
    """`memtier recall`: an agent's "do you remember …", asked often, without typer.
    *everything* (``--all``) is accepted and changes nothing: recall always reads the
    archive (PROTOCOL §13 v4)."""
    from memtier.commands.topics.recall import recall
    from memtier.secrets import replace_invalid

    face = surface()
    scanner = face.scanner()
    query = replace_invalid(" ".join(text))  # as the TEXT type does on typer's path
    report = recall(face.workspace(), query, max_chars, scanner.rg)
    return show(report, warnings=scanner.warnings)


def consolidate_topic(
    slug: str | None,
    due: bool = False,
    plan: bool = False,
    summary: str | None = None,
    plan_id: str | None = None,
) -> int:
    """`memtier consolidate`; its plain shapes (SLUG, --plan) start without typer."""
    from memtier.commands.topics.consolidate import consolidate

    report = consolidate(
        open_workspace(), slug, due=due, plan_only=plan, summary=summary, plan_id=plan_id
    )
    return show(report)


def merge_driver(kind: str, base: str, ours: str, theirs: str, path: str) -> int:
    """The merge driver git calls (PROTOCOL §14): once for every file both hosts
    changed, so it starts without typer like the other hot commands."""
    from memtier.commands.sync.driver import run_merge_driver
    from memtier.workspace import find_root

    given = os.environ.get("MEMTIER_SYNC_CONFLICTS")
    folder = Path(given) if given else Path.cwd() / "memory" / ".sync" / "conflicts"
    # git runs a driver in the work tree's top folder: the workspace it may touch (v4)
    root = find_root(Path.cwd())
    return run_merge_driver(kind, Path(base), Path(ours), Path(theirs), path, folder, root)


def sync(no_push: bool = False, dry_run: bool = False) -> int:
    """`memtier sync` (PROTOCOL §14): run by cron or by a session every so often,
    mostly with nothing to share (§14 v4: small), so it starts without typer."""
    from memtier.commands.sync.run import run_sync

    return show(run_sync(open_workspace(), dict(os.environ), push=not no_push, dry_run=dry_run))


def defaults(body: Callable[..., int]) -> dict[str, Any]:
    """The keyword defaults of *body*, read from the function itself (``inspect``
    would cost the fast path its import)."""
    code = body.__code__
    names = code.co_varnames[: code.co_argcount]
    values = body.__defaults__ or ()
    return dict(zip(names[len(names) - len(values) :], values, strict=True))


def default(body: Callable[..., int], name: str) -> Any:
    """The default of *body*'s parameter *name*: what its typer command declares."""
    return defaults(body)[name]
