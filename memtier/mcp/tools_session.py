"""Tools of the session lifecycle (PROTOCOL §4, §5, §11): start, buffer, notes, close, rotate.

The conventions every tool follows are at the top of `memtier.mcp.toolkit`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from memtier.mcp.runtime import runtime_of
from memtier.mcp.shaping import check_budget, shorten, write_text
from memtier.mcp.toolkit import DEFAULT_BUDGET, MaxChars, get_call, tool, writes
from memtier.mcp.words import tool_words

if TYPE_CHECKING:
    from memtier.render import Report
    from memtier.workspace import Workspace

DayParam = Annotated[str | None, Field(description="YYYY-MM-DD")]


def write_output(
    report: Report, redacted: Mapping[str, int] | None = None, *, extra: tuple[str, ...] = ()
) -> str:
    """What a write did, in the CLI's words, shortened: never the input echoed whole."""
    from memtier.render import redaction_notices

    lines = [*report.worded_lines(tool_words), *extra, *redaction_notices(redacted or {})]
    return write_text(lines)


def _buffer_output(result: Any) -> str:
    extra: tuple[str, ...] = ()
    if result.oversized:
        extra = ("warning: " + result.oversize_warning("memory_rotate", "memory_session_end"),)
    return write_output(result, result.redacted, extra=extra)


def _session_start(ws: Workspace, max_chars: int) -> str:
    from memtier.commands.base_context import fit_context
    from memtier.commands.session_start import session_start

    check_budget(max_chars)
    result = session_start(ws).copy_with(max_chars=max_chars)
    head = [f"session-start: {shorten(action)}" for action in result.actions]
    head += [f"warning: {shorten(message)}" for message in result.warnings]
    health = result.health_line(report="memory_health")
    fitted = fit_context(head, result.context_parts(), ["", health], max_chars, get_call)
    return "\n".join(fitted.lines)


def memory_session_start(
    max_chars: MaxChars = DEFAULT_BUDGET,
    *,
    ctx: Context,
) -> CallToolResult:
    """Call first in every session: recovers a crash, returns the base context (key
    facts, the task in flight, the last Open: items)."""
    rt = runtime_of(ctx)
    return rt.call("memory_session_start", lambda ws: _session_start(ws, max_chars), max_chars)


def memory_note(
    text: str,
    to: Literal["buffer", "today"] = "buffer",
    date: DayParam = None,
    *,
    ctx: Context,
) -> CallToolResult:
    """Before you answer, write down a finding or decision of the task (to='today': an
    event in the day's note). Lasting facts: memory_remember."""
    rt = runtime_of(ctx)

    def body(ws: Workspace) -> str:
        from memtier.commands import episodic_writes, lifecycle
        from memtier.errors import InputError
        from memtier.surface import parse_date_option

        if to == "buffer":
            if date is not None:
                raise InputError("date applies only with to='today'")
            return _buffer_output(lifecycle.buffer_note(ws, text))
        day = parse_date_option(date, ws)
        result = episodic_writes.episodic_append(ws, text, day)
        return write_output(result, result.redacted)

    return rt.call("memory_note", body)


def memory_task(
    action: Literal["add", "done"],
    task: Annotated[str | int, Field(description="Text; for done also its number.")],
    *,
    ctx: Context,
) -> CallToolResult:
    """Keep the active tasks true: add one as you start it, mark it done when finished."""
    rt = runtime_of(ctx)

    def body(ws: Workspace) -> str:
        from memtier.commands import lifecycle

        if action == "add":
            return _buffer_output(lifecycle.buffer_task(ws, str(task)))
        return _buffer_output(lifecycle.buffer_done(ws, str(task)))

    return rt.call("memory_task", body)


def memory_close_day(
    decisions: str | None = None,
    signal: Annotated[str | None, Field(description="What was learned.")] = None,
    open: Annotated[str | None, Field(description="What is left, or 'none'.")] = None,
    date: DayParam = None,
    replace: Annotated[bool, Field(description="Write the block as given, not merged.")] = False,
    drop: Annotated[str | None, Field(description="Only remove this Open: item.")] = None,
    *,
    ctx: Context,
) -> CallToolResult:
    """After memory_session_end, close the day's note (merged with its block; the next
    session reads its Open: items first). drop: remove one settled Open: item."""
    rt = runtime_of(ctx)

    def body(ws: Workspace) -> str:
        from memtier.commands import episodic_writes
        from memtier.errors import InputError
        from memtier.surface import parse_date_option

        day = parse_date_option(date, ws)
        given = {"decisions": decisions, "signal": signal, "open": open}
        if drop is not None:
            if any(v is not None for v in given.values()) or replace:
                raise InputError("drop goes alone (with date at most)")
            dropped = episodic_writes.episodic_drop(ws, drop, day)
            return write_output(dropped, dropped.redacted)
        missing = [name for name, value in given.items() if value is None]
        if missing:
            raise InputError(f"missing {', '.join(missing)} (or give drop alone)")
        assert decisions is not None and signal is not None and open is not None
        result = episodic_writes.episodic_close(ws, decisions, signal, open, day, replace=replace)
        return write_output(result, result.redacted)

    return rt.call("memory_close_day", body)


def memory_rotate(*, ctx: Context) -> CallToolResult:
    """Move the buffer into today's note when a write says it is oversized."""
    rt = runtime_of(ctx)

    def body(ws: Workspace) -> str:
        from memtier.commands.rotation import rotate_buffer

        return write_output(rotate_buffer(ws))

    return rt.call("memory_rotate", body)


def memory_session_end(*, ctx: Context) -> CallToolResult:
    """Call when the session is over: the buffer goes into today's note."""
    rt = runtime_of(ctx)

    def body(ws: Workspace) -> str:
        from memtier.commands.rotation import session_end

        return write_output(session_end(ws))

    return rt.call("memory_session_end", body)


@cache
def tools() -> list[Any]:
    """This family's tools for the SDK, built once per process."""
    return [
        tool(memory_session_start, "Start a session", writes(idempotent=True)),
        tool(memory_note, "Write a note", writes()),
        tool(memory_task, "Add or finish a task", writes()),
        tool(memory_close_day, "Close the day", writes()),  # additive: it merges (§11 v3)
        tool(memory_rotate, "Rotate the buffer", writes()),
        tool(memory_session_end, "End the session", writes()),  # additive, as memory_rotate (§11)
    ]
