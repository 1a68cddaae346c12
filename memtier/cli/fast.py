"""The entry point, and a typer-free fast path for the hot commands' commonest shapes.

An agent calls ``buffer note``, ``episodic append``, ``learn``, ``session-start``
and ``health-check`` many times a session; importing typer and click and building
the command costs about as much as starting Python itself. `main` (the script's
entry) runs those commands here when their shape is plain, calling the bodies in
`memtier.cli.invocation` that the typer commands (the one definition of the CLI,
its help and its errors) call too and take their defaults from. `parse` reads
the line with `memtier.cli.invocation`, as typer's path does, and recognises only plain
shapes: the command name, its text, and the options of `SHAPES`. Anything else
(``-`` for stdin, ``--help``, a typo, a missing or extra argument) goes to typer,
which decides. ``tests/cli/test_fast.py`` checks `SHAPES` against the typer app
and compares both parses on drawn argument lists.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memtier.cli import invocation
from memtier.cli.invocation import (
    STDIN_MARK,
    Argv,
    MissingValue,
    defaults,
    guarded,
    read_argv,
    separate,
)

Call = tuple[str, dict[str, Any]]


BODIES: dict[str, Callable[..., int]] = {
    "buffer_task": invocation.buffer_task,
    "buffer_note": invocation.buffer_note,
    "buffer_done": invocation.buffer_done,
    "buffer_heartbeat": invocation.buffer_heartbeat,
    "buffer_show": invocation.buffer_show,
    "episodic_append": invocation.episodic_append,
    "learn": invocation.learn,
    "session_start": invocation.session_start,
    "health_check": invocation.health_check,
    "search": invocation.search,
    "merge_driver": invocation.merge_driver,
}


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
}


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
    body, names, flags = shape
    options, words = separate(read.rest[length:], {o: k != FLAG for o, (_, k) in flags.items()})
    if STDIN_MARK in words:
        return None  # `-` means standard input: typer's command decides
    kwargs: dict[str, Any] = defaults(BODIES[body])
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
    return body, kwargs


def read_line(args: list[str]) -> Argv | None:
    """*args* read once for both paths; None when a shared option lacks its value
    (typer's path reports that)."""
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
    read = read_line(args)  # once, for whichever path runs the command
    code = run_fast(args, read)
    if code is not None:
        return code
    from memtier.cli import run

    return run(args, read)


def run_fast(args: list[str], read: Argv | None) -> int | None:
    """Run *args* (read as *read*) without typer when `parse` knows its shape;
    None when typer must parse it."""
    call = parse(read) if read is not None else None
    if call is None:
        return None
    body, kwargs = call
    return guarded(args, lambda _read: BODIES[body](**kwargs), read)
