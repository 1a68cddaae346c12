"""Commands of the session lifecycle (PROTOCOL §4, §5).

`session-start`, `session-end`, `rotate`, `buffer task|note|done|show|heartbeat`
and `episodic append|close|show`. Each imports its core inside the function.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from memtier.cli._app import JsonOption, NowOption, RootOption, app, open_workspace, show

if TYPE_CHECKING:
    from memtier.commands.lifecycle import BufferResult

buffer_app = typer.Typer(
    help="The working buffer (memory/working-buffer.md): write here first, during a task.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
episodic_app = typer.Typer(
    help="Episodic notes (memory/episodic/YYYY-MM-DD.md): events and the day's closure block.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(buffer_app, name="buffer")
app.add_typer(episodic_app, name="episodic")

TextArgument = Annotated[
    str,
    typer.Argument(help="The text; line breaks are folded into spaces, secrets are redacted."),
]
DateOption = Annotated[
    str | None,
    typer.Option(
        "--date", help="Day of the note, YYYY-MM-DD (default: today).", show_default=False
    ),
]


def _report_redactions(counts: dict[str, int]) -> None:
    from memtier.render import notice

    for rule, count in sorted(counts.items()):
        notice(f"redacted {count} secret(s): {rule}")


@app.command("session-start")
def session_start_command(
    ctx: typer.Context,
    max_chars: Annotated[
        int | None,
        typer.Option(
            "--max-chars",
            help="Fit the base context in N characters, most useful first (MEMORY.md, "
            "buffer, last session's Open: items, today's note, the rest); cut parts say "
            "how to read the rest.",
            show_default=False,
            min=1,
        ),
    ] = None,
    root: RootOption = None,
    now: NowOption = None,
    as_json: JsonOption = False,
) -> None:
    """Start a session: recover the buffer, heartbeat, print the base context.

    Runs the decision tree of the protocol in order (missing files, stale rotation
    lock, interrupted rotation, stale buffer), sets last_active to now, then prints
    MEMORY.md, the working buffer, the last session's Open: items (however long
    ago), today's and yesterday's notes, the last 20 lines of each .learnings file
    and the health-check verdict. Exit 0 even when health fails.
    """
    from dataclasses import replace

    from memtier.commands.session_start import session_start
    from memtier.render import warn

    result = replace(session_start(open_workspace(ctx, root, now)), max_chars=max_chars)
    for message in result.warnings:
        warn(message)
    show(result, as_json)


@app.command("session-end")
def session_end_command(
    ctx: typer.Context,
    root: RootOption = None,
    now: NowOption = None,
    as_json: JsonOption = False,
) -> None:
    """End a session: rotate the buffer into today's note if it holds anything.

    Tasks, notes and done items all count; prints 'nothing to rotate' (exit 0)
    only for an empty buffer.
    """
    from memtier.commands.rotation import session_end

    show(session_end(open_workspace(ctx, root, now)), as_json)


@app.command("rotate")
def rotate_command(
    ctx: typer.Context,
    root: RootOption = None,
    now: NowOption = None,
    as_json: JsonOption = False,
) -> None:
    """Move the working buffer's body into today's note and start a fresh buffer.

    The note's closure block stays last (a new one is written if it has none). Exit 1
    when a rotation lock file is present: run session-start to recover first.
    """
    from memtier.commands.rotation import rotate_buffer

    show(rotate_buffer(open_workspace(ctx, root, now)), as_json)


# ---------------------------------------------------------------------------
# buffer


def _show_buffer_write(result: BufferResult, as_json: bool) -> None:
    from memtier.render import warn

    _report_redactions(result.redacted)
    if result.oversized:
        warn(
            f"working buffer is oversized ({len(result.active_tasks)} active tasks, "
            f"{result.lines} lines): rotation is due at session end (memtier session-end)"
        )
    show(result, as_json)


@buffer_app.command("task")
def buffer_task_command(
    ctx: typer.Context,
    text: TextArgument,
    root: RootOption = None,
    now: NowOption = None,
    as_json: JsonOption = False,
) -> None:
    """Add an active task line ('- TEXT') under '## Active Task:'."""
    from memtier.commands.lifecycle import buffer_task

    _show_buffer_write(buffer_task(open_workspace(ctx, root, now), text), as_json)


@buffer_app.command("note")
def buffer_note(
    ctx: typer.Context,
    text: TextArgument,
    root: RootOption = None,
    now: NowOption = None,
    as_json: JsonOption = False,
) -> None:
    """Add a line ('- TEXT') to the buffer body, after the active-task section."""
    from memtier.commands.lifecycle import buffer_note as add_note

    _show_buffer_write(add_note(open_workspace(ctx, root, now), text), as_json)


@buffer_app.command("done")
def buffer_done_command(
    ctx: typer.Context,
    task: Annotated[
        str, typer.Argument(help="The task's 1-based number, its exact text, or a unique part.")
    ],
    root: RootOption = None,
    now: NowOption = None,
    as_json: JsonOption = False,
) -> None:
    """Move an active task out of the active section, as '- [done] TEXT' in the body."""
    from memtier.commands.lifecycle import buffer_done

    _show_buffer_write(buffer_done(open_workspace(ctx, root, now), task), as_json)


@buffer_app.command("heartbeat")
def buffer_heartbeat_command(
    ctx: typer.Context,
    root: RootOption = None,
    now: NowOption = None,
    as_json: JsonOption = False,
) -> None:
    """Set the buffer's last_active to now and change nothing else."""
    from memtier.commands.lifecycle import buffer_heartbeat

    _show_buffer_write(buffer_heartbeat(open_workspace(ctx, root, now)), as_json)


@buffer_app.command("show")
def buffer_show_command(
    ctx: typer.Context,
    root: RootOption = None,
    now: NowOption = None,
    as_json: JsonOption = False,
) -> None:
    """Print the working buffer (with --json: its state, active tasks and text)."""
    from memtier.commands.lifecycle import buffer_show

    show(buffer_show(open_workspace(ctx, root, now)), as_json)


# ---------------------------------------------------------------------------
# episodic


@episodic_app.command("append")
def episodic_append_command(
    ctx: typer.Context,
    text: TextArgument,
    date: DateOption = None,
    root: RootOption = None,
    now: NowOption = None,
    as_json: JsonOption = False,
) -> None:
    """Add a line to a day's note, before its closure block if it has one."""
    from memtier.commands.lifecycle import episodic_append, parse_date_option

    ws = open_workspace(ctx, root, now)
    result = episodic_append(ws, text, parse_date_option(date, ws))
    _report_redactions(result.redacted)
    show(result, as_json)


@episodic_app.command("close")
def episodic_close_command(
    ctx: typer.Context,
    decisions: Annotated[
        str, typer.Option("--decisions", help="What was changed.", show_default=False)
    ],
    signal: Annotated[
        str, typer.Option("--signal", help="What was learned about the system.", show_default=False)
    ],
    open_items: Annotated[
        str, typer.Option("--open", help="What remains open, or 'none'.", show_default=False)
    ],
    date: DateOption = None,
    root: RootOption = None,
    now: NowOption = None,
    as_json: JsonOption = False,
) -> None:
    """Write the note's closure block (Updated/Decisions/Signal/Open), replacing a final one."""
    from memtier.commands.lifecycle import episodic_close, parse_date_option

    ws = open_workspace(ctx, root, now)
    result = episodic_close(ws, decisions, signal, open_items, parse_date_option(date, ws))
    _report_redactions(result.redacted)
    show(result, as_json)


@episodic_app.command("show")
def episodic_show_command(
    ctx: typer.Context,
    date: DateOption = None,
    root: RootOption = None,
    now: NowOption = None,
    as_json: JsonOption = False,
) -> None:
    """Print a day's note (default today), also one archival moved to memory/archive/."""
    from memtier.commands.lifecycle import episodic_show, parse_date_option
    from memtier.render import notice

    ws = open_workspace(ctx, root, now)
    result = episodic_show(ws, parse_date_option(date, ws))
    if result.archived:
        notice(f"{result.path} was archived; shown from {result.archived}")
    show(result, as_json)
