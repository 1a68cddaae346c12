"""The hot commands, and a typer-free fast path for their commonest argument shapes.

An agent calls ``buffer note``, ``episodic append``, ``learn``, ``session-start``
and ``health-check`` many times a session; importing typer and click and building
the command costs about as much as starting Python itself. The bodies of those
commands live here, and the typer commands (the one definition of the CLI, its
help and its errors) call them and take their defaults from them. `parse` reads
the line with `memtier.cli.invocation`, as typer's path does, and recognises only plain
shapes: the command name, its text, and the options of `SHAPES`. Anything else
(``-`` for stdin, ``--help``, a typo, a missing or extra argument) goes to typer,
which decides. ``tests/cli/test_fast.py`` checks `SHAPES` against the typer app
and compares both parses on drawn argument lists.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memtier.cli.invocation import (
    STDIN_MARK,
    Argv,
    MissingValue,
    guarded,
    open_workspace,
    read_argv,
    separate,
    show,
)

if TYPE_CHECKING:
    from typing import TextIO

    from memtier.workspace import Workspace

Call = tuple[str, dict[str, Any]]


# ---------------------------------------------------------------------------
# the bodies (typer's commands call these too)


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
    from memtier.commands.lifecycle import parse_date_option

    ws = open_workspace()
    return show(append(ws, text, parse_date_option(date, ws)))


def learn(kind: str, text: list[str], pin: bool = False) -> int:
    from memtier.commands.learnings import learn as add_lesson

    return show(add_lesson(open_workspace(), kind.lower(), " ".join(text), pin))


def session_start(max_chars: int | None = None) -> int:
    from dataclasses import replace

    from memtier.commands.session_start import session_start as start

    ws = open_workspace()
    if ws.config.sync_auto:  # PROTOCOL §14: sync first, never failing the session
        auto_sync_line(ws)
    return show(replace(start(ws), max_chars=max_chars))


def auto_sync_line(ws: Workspace) -> None:
    import os

    from memtier.commands.sync import auto_sync
    from memtier.render import notice

    line = auto_sync(ws, dict(os.environ))
    if line:
        notice(line)


def health_check(verbose: bool = False) -> int:
    from memtier.health.report import run_health_check

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
    from memtier.cli.invocation import invocation, surface
    from memtier.render import colour_enabled
    from memtier.search import SearchRequest, search
    from memtier.secrets import replace_invalid

    query = replace_invalid(query)  # as the TEXT type does on typer's path
    face = surface()
    ws = face.workspace()
    scanner = face.scanner()
    request = SearchRequest(
        query=query,
        tiers=tuple(tier or ()),
        tags=tuple(tag or ()),
        limit=limit,
        regex=regex,
        context=context,
        all_tiers=all_tiers,
        rg=scanner.rg,
    )
    report = search(ws, request, colour=not invocation().as_json and colour_enabled())
    return show(report, warnings=scanner.warnings)


def merge_driver(kind: str, base: str, ours: str, theirs: str, path: str) -> int:
    """The merge driver git calls (PROTOCOL §14): once for every file both hosts
    changed, so it starts without typer like the other hot commands."""
    import os
    from pathlib import Path

    from memtier.commands.sync_driver import run_merge_driver

    given = os.environ.get("MEMTIER_SYNC_CONFLICTS")
    folder = Path(given) if given else Path.cwd() / "memory" / ".sync" / "conflicts"
    return run_merge_driver(kind, Path(base), Path(ours), Path(theirs), path, folder)


BODIES: dict[str, Callable[..., int]] = {
    "buffer_task": buffer_task,
    "buffer_note": buffer_note,
    "buffer_done": buffer_done,
    "buffer_heartbeat": buffer_heartbeat,
    "buffer_show": buffer_show,
    "episodic_append": episodic_append,
    "learn": learn,
    "session_start": session_start,
    "health_check": health_check,
    "search": search,
    "merge_driver": merge_driver,
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


def run_fast(args: list[str], read: Argv | None) -> int | None:
    """Run *args* (read as *read*) without typer when `parse` knows its shape;
    None when typer must parse it."""
    call = parse(read) if read is not None else None
    if call is None:
        return None
    body, kwargs = call
    return guarded(args, lambda _read: BODIES[body](**kwargs), read)
