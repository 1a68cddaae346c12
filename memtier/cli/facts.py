"""Fact commands: `remember`, `replace`, `retire`, `verify`, `get` (PROTOCOL §10)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memtier.cli._app import app, command
from memtier.cli._text import text_argument, text_option
from memtier.cli.invocation import open_workspace, show, user_path


def _file_option(ws_root: Path, value: str) -> Path:
    return user_path(ws_root, Path(value))


@command(app, "remember")
def remember_command(
    text: Annotated[str, text_argument("The fact.")],
    kind: Annotated[
        str | None,
        typer.Option(
            "--kind",
            help="infrastructure, preference, project, decision, lesson, hot, event or "
            "howto:<topic> (a multi-line block from stdin is kept whole).",
            show_default=False,
        ),
    ] = None,
    to: Annotated[
        str | None,
        typer.Option("--to", help="MEMORY.md or a WARM file to add it to.", show_default=False),
    ] = None,
    section: Annotated[
        str | None,
        typer.Option(
            "--section", help="Put it under '## S' (created if missing).", show_default=False
        ),
    ] = None,
    tag: Annotated[
        list[str] | None,
        typer.Option(
            "--tag",
            help="A vocabulary tag for the file's #tags: line (repeat).",
            show_default=False,
        ),
    ] = None,
    force: Annotated[
        bool,
        typer.Option("--force", help="Keep it even though a near-duplicate stands."),
    ] = False,
) -> int:
    """Add a fact to its one home, as one line '- TEXT'; refreshes last_verified.

    Refused (exit 1) when the fact, or a near-duplicate (most of its words, or all
    of them, in one line), already stands in MEMORY.md or a WARM file (use replace,
    or --force to keep both), or when MEMORY.md would pass its line limit.
    Without --kind and --to the fact goes to today's note with a #routing-note: line.
    """
    from memtier.commands.facts.remember import remember

    ws = open_workspace()
    target = _file_option(ws.root, to) if to is not None else None
    tags = tuple(tag or ())
    result = remember(ws, text, kind=kind, to=target, section=section, tags=tags, force=force)
    return show(result)


@command(app, "replace")
def replace_command(
    old: Annotated[str, text_argument("Text found in exactly one line of FILE (case-sensitive).")],
    new: Annotated[str, text_argument("The line's new text.")],
    in_file: Annotated[
        str, typer.Option("--in", help="MEMORY.md or a WARM file.", show_default=False)
    ],
    reason: Annotated[
        str | None,
        text_option("--reason", help="Why, for the retirement log."),
    ] = None,
) -> int:
    """Replace the one line holding OLD with NEW; the old line goes to memory/archive/retired.md.

    Zero or several matching lines: exit 1, listing them with their numbers. The
    header lines are out of reach. Refreshes last_verified.
    """
    from memtier.commands.facts.remember import replace_fact

    ws = open_workspace()
    result = replace_fact(ws, old, new, in_file=_file_option(ws.root, in_file), reason=reason)
    return show(result)


@command(app, "retire")
def retire_command(
    old: Annotated[str, text_argument("Text found in exactly one line of FILE (case-sensitive).")],
    in_file: Annotated[
        str, typer.Option("--in", help="MEMORY.md or a WARM file.", show_default=False)
    ],
    reason: Annotated[str, text_option("--reason", help="Why the fact no longer holds.")],
) -> int:
    """Remove the one line holding OLD; it is kept in memory/archive/retired.md with the reason.

    Nothing is deleted: search --all (or --tier archive) still finds it.
    """
    from memtier.commands.facts.remember import retire_fact

    ws = open_workspace()
    result = retire_fact(ws, old, in_file=_file_option(ws.root, in_file), reason=reason)
    return show(result)


@command(app, "verify")
def verify_command(
    files: Annotated[
        list[str] | None, typer.Argument(help="WARM files (or MEMORY.md) whose facts you checked.")
    ] = None,
    stale: Annotated[
        bool, typer.Option("--stale", help="Every WARM file health-check calls stale.")
    ] = False,
) -> int:
    """Set last_verified to today, after checking the file's facts; prints the previous dates.

    The way out when WARM files pass warm_max_age_days: check each file's facts
    (correct them with replace / retire), then verify it. Never verify blindly.
    """
    from memtier.commands.facts.remember import verify_files

    ws = open_workspace()
    paths = [_file_option(ws.root, f) for f in files or ()]
    return show(verify_files(ws, paths, stale=stale))


@command(app, "get")
def get_command(
    spec: Annotated[
        str | None,
        typer.Argument(
            metavar="PATH[:FROM[-TO]]",
            help="A file inside the workspace, optionally with a line range.",
        ),
    ] = None,
    day: Annotated[
        str | None,
        typer.Option(
            "--date", help="A day's note (YYYY-MM-DD), live or archived.", show_default=False
        ),
    ] = None,
    max_lines: Annotated[int, typer.Option("--max-lines", help="Print at most N lines.")] = 200,
) -> int:
    """Print lines of a memory file with their numbers, at most --max-lines at a time.

    When cut, the last line says 'truncated; next: PATH:N-M'. Read-only.
    """
    from memtier.commands.facts.get import split_range
    from memtier.commands.facts.remember import get_lines
    from memtier.errors import InputError
    from memtier.surface import parse_date_option

    ws = open_workspace()
    path, start, end = split_range(spec or "")
    if day is None and not path:
        raise InputError("get: give PATH or --date D")
    when = parse_date_option(day, ws) if day is not None else None
    given = str(_file_option(ws.root, path)) if path else ""
    return show(get_lines(ws, given, from_line=start, to_line=end, date=when, max_lines=max_lines))
