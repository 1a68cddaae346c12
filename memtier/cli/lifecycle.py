"""Commands of the session lifecycle (PROTOCOL §4, §5).

`session-start`, `session-end`, `rotate`, `buffer task|note|done|show|heartbeat`
and `episodic append|close|show`. Each imports its core inside the function.
"""

from __future__ import annotations

from typing import Annotated

import typer

from memtier.cli import invocation
from memtier.cli._app import app, command, group
from memtier.cli._text import text_argument, text_option
from memtier.cli.invocation import open_workspace, show

buffer_app = group(
    "buffer", "The working buffer (memory/working-buffer.md): write here first, during a task."
)
episodic_app = group(
    "episodic",
    "Episodic notes (memory/episodic/YYYY-MM-DD.md): events and the day's closure block.",
)

TextArgument = Annotated[
    str,
    text_argument("The text; line breaks are folded into spaces, secrets are redacted."),
]
DateOption = Annotated[
    str | None,
    typer.Option(
        "--date", help="Day of the note, YYYY-MM-DD (default: today).", show_default=False
    ),
]


@command(app, "session-start")
def session_start_command(
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
) -> int:
    """Start a session: recover the buffer, heartbeat, print the base context.

    Runs the decision tree of the protocol in order (missing files, stale rotation
    lock, interrupted rotation, stale buffer: filed under the day it was last
    active), sets last_active to now, then prints MEMORY.md, the working buffer,
    the last session's Open: items (after an absence: its whole closure block, with
    its date), today's and yesterday's notes, the last 20 lines of each .learnings
    file and the health-check verdict. Exit 0 even when health fails.
    """
    return invocation.session_start(max_chars)


@command(app, "session-end")
def session_end_command() -> int:
    """End a session: rotate the buffer into today's note if it holds anything.

    Tasks, notes and done items all count; prints 'nothing to rotate' (exit 0)
    only for an empty buffer.
    """
    from memtier.commands.rotation import session_end

    ws = open_workspace()
    code = show(session_end(ws))
    if ws.config.sync_auto:  # PROTOCOL §14: after rotating, never failing the session
        invocation.auto_sync_line(ws)
    return code


@command(app, "rotate")
def rotate_command() -> int:
    """Move the working buffer's body into today's note and start a fresh buffer.

    The note's closure block stays last (a new one is written if it has none). Exit 1
    when a rotation lock file is present: run session-start to recover first.
    """
    from memtier.commands.rotation import rotate_buffer

    return show(rotate_buffer(open_workspace()))


# ---------------------------------------------------------------------------
# buffer


@command(buffer_app, "task")
def buffer_task_command(
    text: TextArgument,
) -> int:
    """Add an active task line ('- TEXT') under '## Active Task:'."""
    return invocation.buffer_task(text)


@command(buffer_app, "note")
def buffer_note(
    text: TextArgument,
) -> int:
    """Add a line ('- TEXT') to the buffer body, after the active-task section."""
    return invocation.buffer_note(text)


@command(buffer_app, "done")
def buffer_done_command(
    task: Annotated[
        str, text_argument("The task's 1-based number, its exact text, or a unique part.")
    ],
) -> int:
    """Move an active task out of the active section, as '- [done] TEXT' in the body."""
    return invocation.buffer_done(task)


@command(buffer_app, "heartbeat")
def buffer_heartbeat_command() -> int:
    """Set the buffer's last_active to now and change nothing else."""
    return invocation.buffer_heartbeat()


@command(buffer_app, "show")
def buffer_show_command() -> int:
    """Print the working buffer (with --json: its state, active tasks and text)."""
    return invocation.buffer_show()


# ---------------------------------------------------------------------------
# episodic


@command(episodic_app, "append")
def episodic_append_command(
    text: TextArgument,
    date: DateOption = None,
) -> int:
    """Add a line to a day's note, before its closure block if it has one."""
    return invocation.episodic_append(text, date)


@command(episodic_app, "close")
def episodic_close_command(
    decisions: Annotated[
        str | None, text_option("--decisions", help="What was changed (needed without --drop).")
    ] = None,
    signal: Annotated[
        str | None,
        text_option("--signal", help="What was learned about the system (needed without --drop)."),
    ] = None,
    open_items: Annotated[
        str | None,
        text_option("--open", help="What remains open, or 'none' (needed without --drop)."),
    ] = None,
    date: DateOption = None,
    replace: Annotated[
        bool,
        typer.Option(
            "--replace",
            help="Write the block exactly as given instead of merging (drops open items "
            "that are done).",
        ),
    ] = False,
    drop: Annotated[
        str | None,
        text_option(
            "--drop",
            help="Remove one item from the block's Open: line and change nothing else (the "
            "item equal to this text, else the one item holding it, such as a sync "
            "conflict's s- id); alone, without the other options.",
        ),
    ] = None,
) -> int:
    """Close a day's note: its closure block (Updated/Decisions/Signal/Open), merged.

    Run after session-end: the open tasks the rotation moved stay in Open:, and
    your items join them (an item that adds detail to one replaces it). Text a
    person wrote after the block is moved before it. With --drop ITEM: one open
    item goes (a settled sync conflict), the rest of the block stays.
    """
    from memtier.errors import InputError
    from memtier.surface import parse_date_option

    given = {"--decisions": decisions, "--signal": signal, "--open": open_items}
    if drop is not None:
        extra = [name for name, value in given.items() if value is not None]
        if replace:
            extra.append("--replace")
        if extra:
            raise InputError(f"--drop goes alone: not with {', '.join(extra)}")
        from memtier.commands.episodic_writes import episodic_drop

        ws = open_workspace()
        return show(episodic_drop(ws, drop, parse_date_option(date, ws)))
    missing = [name for name, value in given.items() if value is None]
    if missing:
        raise InputError(f"missing option {', '.join(missing)} (or --drop ITEM)")
    from memtier.commands.episodic_writes import episodic_close

    ws = open_workspace()
    day = parse_date_option(date, ws)
    assert decisions is not None and signal is not None and open_items is not None
    result = episodic_close(ws, decisions, signal, open_items, day, replace=replace)
    return show(result)


@command(episodic_app, "show")
def episodic_show_command(
    date: DateOption = None,
) -> int:
    """Print a day's note (default today), also one archival moved to memory/archive/."""
    from memtier.commands.episodic_writes import episodic_show
    from memtier.surface import parse_date_option

    ws = open_workspace()
    return show(episodic_show(ws, parse_date_option(date, ws)))
