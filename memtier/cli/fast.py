"""The entry point, and a typer-free fast path for the hot commands' commonest shapes.

An agent calls ``buffer note``, ``episodic append``, ``learn``, ``session-start``,
``health-check``, ``search``, ``recall`` and ``consolidate --plan`` many times a
session; importing typer and click and building the command costs about as much as
starting Python itself. `main` (the script's entry) runs those commands here when
their shape is plain, calling the bodies in `memtier.cli.invocation` that the typer
commands (the one definition of the CLI, its help and its errors) call too and take
their defaults from. `parse` reads the line with `memtier.cli.invocation`, as
typer's path does, and recognises only plain shapes: the command name, its text, and
the options of `SHAPES`. Anything else (``-`` for stdin, ``--help``, a typo, a
missing or extra argument) goes to typer, which decides. ``tests/cli/test_fast.py``
checks `SHAPES` against the typer app and compares both parses on drawn argument
lists.
"""

from __future__ import annotations

# typing is not imported either (2 ms): type checkers read this name as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from memtier.cli.invocation import Argv

    Call = tuple[str, dict[str, Any]]

# Nothing heavier is imported at module level: ``memtier --version`` loads this
# module and needs nothing else; `memtier.cli.invocation` (pathlib, the option
# pass) is imported by the functions that use it.


def body(name: str) -> Callable[..., int]:
    """The body *name* of `BODY_NAMES`: the function of that name in
    `memtier.cli.invocation`, looked up when it is called (so a test that replaces
    it there replaces it here too)."""
    from memtier.cli import invocation

    found: Callable[..., int] = getattr(invocation, name)
    return found


# ---------------------------------------------------------------------------
# the fast parse

# How an option of a hot command is read: a flag, one value, or a value each time.
FLAG, VALUE, MANY = "flag", "value", "many"

# command path -> (body, positional parameters, option -> (parameter, kind)). A
# positional parameter ending in ``*`` takes the remaining words. Defaults are not
# written here: they are the bodies' own (see `defaults`). `tests/cli/test_fast.py`
# checks every entry against the typer command of the same path (its options, their
# arity, its arguments and every default), so a new option there fails a test.
SHAPES: dict[tuple[str, ...], tuple[str, tuple[str, ...], dict[str, tuple[str, str]]]] = {
    ("buffer", "task"): ("buffer_task", ("text",), {}),
    ("buffer", "note"): ("buffer_note", ("text",), {}),
    ("buffer", "done"): ("buffer_done", ("task",), {}),
    ("buffer", "heartbeat"): ("buffer_heartbeat", (), {}),
    ("buffer", "show"): ("buffer_show", (), {}),
    ("episodic", "append"): ("episodic_append", ("text",), {"--date": ("date", VALUE)}),
    ("learn",): ("learn", ("kind", "text*"), {"--pin": ("pin", FLAG)}),
    ("session-start",): ("session_start", (), {}),
    ("health-check",): (
        "health_check",
        (),
        {"--verbose": ("verbose", FLAG), "-v": ("verbose", FLAG)},
    ),
    ("search",): (
        "search",
        ("query",),
        {
            "--tier": ("tier", MANY),
            "--tag": ("tag", MANY),
            "--limit": ("limit", VALUE),
            "--context": ("context", VALUE),
            "--regex": ("regex", FLAG),
            "--all": ("all_tiers", FLAG),
        },
    ),
    ("merge-driver",): ("merge_driver", ("kind", "base", "ours", "theirs", "path"), {}),
    ("sync",): ("sync", (), {"--no-push": ("no_push", FLAG), "--dry-run": ("dry_run", FLAG)}),
    ("recall",): (
        "recall_topic",
        ("text*",),
        {"--max-chars": ("max_chars", VALUE), "--all": ("everything", FLAG)},
    ),
    ("consolidate",): (
        "consolidate_topic",
        ("slug",),
        {"--due": ("due", FLAG), "--plan": ("plan", FLAG), "--plan-id": ("plan_id", VALUE)},
    ),
}

# The hot commands' bodies, by name, each once (see `body`).
BODY_NAMES: tuple[str, ...] = tuple(dict.fromkeys(shape[0] for shape in SHAPES.values()))


def parse(read: Argv) -> Call | None:
    """The body and its arguments for the command line *read*, or None when typer
    must parse it: an unknown option, ``-`` (standard input), a missing or extra
    argument, a value typer would convert or refuse."""
    for length in (2, 1):
        shape = SHAPES.get(tuple(read.rest[:length]))
        if shape is not None:
            break
    else:
        return None
    from memtier.cli.invocation import STDIN_MARK, defaults, separate

    body_name, names, flags = shape
    options, words = separate(read.rest[length:], {o: k != FLAG for o, (_, k) in flags.items()})
    if STDIN_MARK in words:
        return None  # `-` means standard input: typer's command decides
    kwargs: dict[str, Any] = defaults(body(body_name))
    given: set[str] = set()
    i = 0
    while i < len(options):
        name, eq, text = options[i].partition("=")
        i += 1
        if name not in flags:
            return None
        param, kind = flags[name]
        if kind == FLAG:
            if eq:
                return None
            kwargs[param] = True
            continue
        if not eq:
            if i >= len(options) or options[i].startswith("-"):
                return None
            text = options[i]
            i += 1
        value: Any = text
        if isinstance(kwargs[param], int) and not isinstance(kwargs[param], bool):
            try:
                value = int(text)  # the conversion click's INT applies
            except ValueError:
                return None
        if kind == MANY:
            kwargs[param] = [*(kwargs[param] if param in given else ()), value]
        else:
            kwargs[param] = value
        given.add(param)
    if names and names[-1].endswith("*"):
        fixed = names[:-1]
        if len(words) <= len(fixed):
            return None
        kwargs.update(zip(fixed, words, strict=False))
        kwargs[names[-1][:-1]] = words[len(fixed) :]
    elif len(words) == len(names):
        kwargs.update(zip(names, words, strict=True))
    else:
        return None
    return body_name, kwargs


def read_line(args: list[str]) -> Argv | None:
    """*args* read once for both paths; None when a shared option lacks its value
    (typer's path reports that)."""
    from memtier.cli.invocation import MissingValue, read_argv

    try:
        return read_argv(args)
    except MissingValue:
        return None


def main(argv: list[str] | None = None) -> int:
    """The ``memtier`` script and ``python -m memtier``: the hot commands in their
    commonest shapes run here without typer; every other call, and every shape
    `parse` does not know, goes to typer (`memtier.cli.run`)."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    if args == ["--version"]:
        # agents and shims ask for the version often; it needs nothing else
        from memtier import __version__

        sys.stdout.write(f"memtier {__version__}\n")
        return 0
    from memtier.cli.collector import Uncollected

    with Uncollected():
        read = read_line(args)  # once, for whichever path runs the command
        code = run_fast(args, read)
    if code is not None:
        return code
    from memtier.cli import run

    return run(args, read)


def run_fast(args: list[str], read: Argv | None) -> int | None:
    """Run *args* (read as *read*) without typer when `parse` knows its shape;
    None when typer must parse it."""
    global _ran
    call = parse(read) if read is not None else None
    if call is None:
        return None
    from memtier.cli.invocation import guarded

    name, kwargs = call
    _ran = name
    return guarded(args, lambda _read: body(name)(**kwargs), read)


# The body the fast path ran last in this process (`script`).
_ran: str | None = None
# The commands after which the process ends without the interpreter's teardown (`end`):
# a search, which writes nothing but its log line (with plain system calls) and its
# output, and is the command an agent waits on most.
ENDS_AT_ONCE = frozenset({"search"})


def script() -> None:
    """The ``memtier`` script and ``python -m memtier``: `main`, and after a command of
    `ENDS_AT_ONCE` the process ends at once (`end`), its collector still paused.

    `main` gives the collector back when the command is done, and its first pass
    then goes over every object the command's imports and work made (measured after
    a search of 10,000 notes: 3 ms of CPU); a process about to end has no use for
    it, so the collector is paused here too, around `main` (`Uncollected` leaves it
    off for an inner block), and only the other commands get it back before their
    exit."""
    import sys

    from memtier.cli.collector import Uncollected

    with Uncollected():
        code = main()
        if _ran in ENDS_AT_ONCE:
            end(code)
    sys.exit(code)


def end(code: int) -> None:
    """End the process with *code*: its output flushed and its exit handlers run, but
    not the interpreter's teardown, which frees every module and object one by one
    (measured after a search of 10,000 notes: 18-22 ms from the command's end to the
    process's, 3-4 ms without it; the system frees the memory at once). Where that is
    not safe the process exits the usual way: another thread still runs (the
    interpreter would wait for it), or the output cannot be flushed (the interpreter
    reports that)."""
    import sys

    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        sys.exit(code)
    import atexit
    import os

    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        sys.exit(code)
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()  # what an exit handler printed
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(code)
