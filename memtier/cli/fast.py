"""The hot commands, and a typer-free fast path for their commonest argument shapes.

An agent calls ``buffer note``, ``episodic append``, ``learn``, ``session-start``
and ``health-check`` many times a session; importing typer and click and building
the command costs about as much as starting Python itself. The bodies of those
commands live here, and the typer commands (the one definition of the CLI, its
help and its errors) call them. `parse` recognises only plain shapes: the command
name, positional text that does not start with ``-`` (or any text after ``--``),
and the few flags below. Anything else (``-`` for stdin, ``--help``, a typo, a
missing or extra argument) returns None and goes to typer, which decides.
``tests/cli/test_fast.py`` checks every shape against typer's parse of the same
argument list.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memtier.cli.invocation import OPTION_SHAPE, guarded, open_workspace, show, split_shared

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
    import os

    from memtier.cli.invocation import invocation
    from memtier.formats.text import replace_invalid
    from memtier.render import colour_enabled
    from memtier.search import SearchRequest, find_rg, search

    query = replace_invalid(query)  # as the TEXT type does on typer's path
    ws = open_workspace()
    override = os.environ.get("MEMTIER_RG")
    rg = None if override == "none" else find_rg(override or None)
    warnings: list[str] = []
    if override and override != "none" and rg is None:
        warnings.append(f"MEMTIER_RG={override} not found; using the built-in scanner")
    request = SearchRequest(
        query=query,
        tiers=tuple(tier or ()),
        tags=tuple(tag or ()),
        limit=limit,
        regex=regex,
        context=context,
        all_tiers=all_tiers,
        rg=rg,
    )
    report = search(ws, request, colour=not invocation().as_json and colour_enabled())
    return show(report, warnings=warnings)


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
}


# ---------------------------------------------------------------------------
# the fast parse


def _words(tokens: list[str], flags: dict[str, str]) -> tuple[dict[str, Any], list[str]] | None:
    """Positional words and recognised options of *tokens*, or None for any shape
    typer must judge. *flags* maps an option to its parameter; a parameter name
    ending in ``=`` takes a value, one ending in ``+`` a value each time it is given."""
    found: dict[str, Any] = {}
    words: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token == "--":
            tail = tokens[i + 1 :]
            if "-" in tail:
                return None  # `-` means standard input: typer's command decides
            words.extend(tail)
            break
        if token.startswith("-") and token != "-" and not OPTION_SHAPE.fullmatch(token):
            words.append(token)  # '- a bullet', '--- rule': text (PROTOCOL §3 v2)
        elif token.startswith("-"):
            name, eq, value = token.partition("=")
            param = flags.get(name)
            if param is None:
                return None
            if param.endswith(("=", "+")):
                if not eq:
                    if i + 1 >= len(tokens) or tokens[i + 1].startswith("-"):
                        return None
                    i += 1
                    value = tokens[i]
                if param.endswith("+"):
                    found.setdefault(param[:-1], []).append(value)
                else:
                    found[param[:-1]] = value
            elif eq:
                return None
            else:
                found[param] = True
        else:
            words.append(token)
        i += 1
    return found, words


# command path -> (body, positional parameter names, flags, list parameter)
_SHAPES: dict[tuple[str, ...], tuple[str, tuple[str, ...], dict[str, str]]] = {
    ("buffer", "task"): ("buffer_task", ("text",), {}),
    ("buffer", "note"): ("buffer_note", ("text",), {}),
    ("buffer", "done"): ("buffer_done", ("task",), {}),
    ("buffer", "heartbeat"): ("buffer_heartbeat", (), {}),
    ("buffer", "show"): ("buffer_show", (), {}),
    ("episodic", "append"): ("episodic_append", ("text",), {"--date": "date="}),
    ("learn",): ("learn", ("kind", "text*"), {"--pin": "pin"}),
    ("session-start",): ("session_start", (), {}),
    ("health-check",): ("health_check", (), {"--verbose": "verbose", "-v": "verbose"}),
    ("search",): (
        "search",
        ("query",),
        {
            "--tier": "tier+",
            "--tag": "tag+",
            "--limit": "limit=",
            "--context": "context=",
            "--regex": "regex",
            "--all": "all_tiers",
        },
    ),
}
_DEFAULTS: dict[str, dict[str, Any]] = {
    "episodic_append": {"date": None},
    "learn": {"pin": False},
    "health_check": {"verbose": False},
    "session_start": {"max_chars": None},
    "search": {
        "tier": None,
        "tag": None,
        "limit": 10,
        "regex": False,
        "context": 1,
        "all_tiers": False,
    },
}
# Options whose value is a whole number; any other value goes to typer, which says why.
_INTEGERS = frozenset({"limit", "context"})


def parse(rest: list[str]) -> Call | None:
    """The body and its arguments for *rest* (the shared options already taken),
    or None when typer must parse it."""
    for length in (2, 1):
        shape = _SHAPES.get(tuple(rest[:length]))
        if shape is not None:
            break
    else:
        return None
    body, names, flags = shape
    parsed = _words(rest[length:], flags)
    if parsed is None:
        return None
    found, words = parsed
    for name in _INTEGERS & found.keys():
        try:
            found[name] = int(found[name])  # the conversion click's INT applies
        except ValueError:
            return None
    kwargs: dict[str, Any] = {**_DEFAULTS.get(body, {}), **found}
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


def run_fast(args: list[str]) -> int | None:
    """Run *args* without typer when `parse` knows its shape; None otherwise."""
    from memtier.errors import MemtierError

    try:
        rest, _ = split_shared(args)
    except MemtierError:
        return None  # the full CLI reports it
    call = parse(rest)
    if call is None:
        return None
    body, kwargs = call
    return guarded(args, lambda _rest: BODIES[body](**kwargs))
