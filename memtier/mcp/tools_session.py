"""Tools of the session lifecycle (PROTOCOL §4, §5, §11): start, buffer, notes, close, rotate."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Literal

from mcp_types import CallToolResult
from pydantic import Field

from memtier.mcp.hints import DEFAULT_BUDGET, MaxChars, get_call, writes
from memtier.mcp.models import BufferOutput, CutPart, SessionStartOutput, WriteOutput
from memtier.mcp.shaping import check_budget

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from memtier.commands.lifecycle import BufferResult
    from memtier.mcp.runtime import ToolRuntime
    from memtier.render import Report
    from memtier.workspace import Workspace

DayParam = Annotated[str | None, Field(description="Day of the note, YYYY-MM-DD (default: today).")]


def report_text(report: Report) -> str:
    return "\n".join(report.text_lines())


def write_output(report: Report, redacted: Mapping[str, int] | None = None) -> WriteOutput:
    from memtier.render import redaction_notices

    lines = [*report.text_lines(), *redaction_notices(redacted or {})]
    return WriteOutput(text="\n".join(lines), data=report.to_json(), redacted=dict(redacted or {}))


def _buffer_output(result: BufferResult) -> BufferOutput:
    base = write_output(result, result.redacted)
    text = base.text
    if result.oversized:
        text += "\nwarning: " + result.oversize_warning("memory_rotate", "memory_session_end")
    return BufferOutput(
        text=text,
        data=base.data,
        redacted=base.redacted,
        active_tasks=list(result.active_tasks),
        oversized=result.oversized,
    )


def _session_start(ws: Workspace, max_chars: int) -> SessionStartOutput:
    from memtier.commands.base_context import fit_context
    from memtier.commands.session_start import session_start

    check_budget(max_chars)
    result = replace(session_start(ws), max_chars=max_chars)
    head = [f"session-start: {action}" for action in result.actions]
    head += [f"warning: {message}" for message in result.warnings]
    health = result.health_line().replace("run memtier health-check", "call memory_health")
    fitted = fit_context(head, result.context_parts(), ["", health], max_chars, get_call)
    cuts = [CutPart(**cut.to_json()) for cut in fitted.cuts]
    return SessionStartOutput(
        text="\n".join(fitted.lines),
        data=result.to_json(),
        truncated=fitted.truncated,
        more=cuts[0].more if cuts else None,
        actions=list(result.actions),
        health_ok=result.health_ok,
        health_failed=list(result.health_failed),
        last_open=result.last_open.open if result.last_open else None,
        cut=cuts,
    )


def register(server: MCPServer, rt: ToolRuntime) -> None:
    def memory_session_start(
        max_chars: MaxChars = DEFAULT_BUDGET,
    ) -> Annotated[CallToolResult, SessionStartOutput]:
        """Start a session: call this first, before anything else, every session.

        Recovers what a crash or a stale session left (an interrupted rotation, a
        buffer idle for hours), marks the buffer active, and returns the base
        context within max_chars, most useful first: MEMORY.md (the key facts),
        the working buffer (the task in flight), the last session's Open: items
        (also when that was days ago), today's note, then yesterday's note and the
        recent .learnings lines, then the health verdict. A part cut for the budget
        says which memory_get call reads the rest. Safe to call again.
        """
        return rt.call("memory_session_start", lambda ws: _session_start(ws, max_chars))

    def memory_note(
        text: Annotated[
            str, Field(description="The note; line breaks are folded, secrets redacted.")
        ],
        to: Annotated[
            Literal["buffer", "today"],
            Field(description="'buffer' (default): the working buffer; 'today': a day's note."),
        ] = "buffer",
        date: DayParam = None,
    ) -> Annotated[CallToolResult, WriteOutput]:
        """Write down what you just learned or decided, before you answer.

        to='buffer' (the default) adds a line to the working buffer: the place for
        anything of the current task (a finding, a decision, a command that
        worked). to='today' appends an event to a day's episodic note (date
        defaults to today), before its closure block. Facts meant to last go to
        memory_remember instead.
        """

        def body(ws: Workspace) -> BufferOutput | WriteOutput:
            from memtier.commands import episodic_writes, lifecycle
            from memtier.errors import InputError

            if to == "buffer":
                if date is not None:
                    raise InputError("date applies only with to='today'")
                return _buffer_output(lifecycle.buffer_note(ws, text))
            day = lifecycle.parse_date_option(date, ws)
            result = episodic_writes.episodic_append(ws, text, day)
            return write_output(result, result.redacted)

        return rt.call("memory_note", body)

    def memory_task(
        action: Annotated[
            Literal["add", "done"],
            Field(description="'add' a new active task, or mark one 'done'."),
        ],
        task: Annotated[
            str | int,
            Field(
                description="The task text (add); for done: its text, a unique part, or its number."
            ),
        ],
    ) -> Annotated[CallToolResult, BufferOutput]:
        """Add an active task to the working buffer, or mark one done.

        Keep the buffer's '## Active Task:' list true: add a task when you start
        it, mark it done when it is finished (it moves to the body as
        '- [done] ...'). Returns the active tasks after the change.
        """

        def body(ws: Workspace) -> BufferOutput:
            from memtier.commands import lifecycle

            if action == "add":
                return _buffer_output(lifecycle.buffer_task(ws, str(task)))
            return _buffer_output(lifecycle.buffer_done(ws, str(task)))

        return rt.call("memory_task", body)

    def memory_close_day(
        decisions: Annotated[str, Field(description="What was changed or decided today.")],
        signal: Annotated[str, Field(description="What was learned about the system.")],
        open: Annotated[str, Field(description="What remains open, or 'none'.")],
        date: DayParam = None,
        replace: Annotated[
            bool,
            Field(description="Write the block exactly as given instead of merging it."),
        ] = False,
    ) -> Annotated[CallToolResult, WriteOutput]:
        """Close a day: its note's closure block (Updated, Decisions, Signal, Open), merged.

        Call at the end of a day's work, after memory_session_end. Merged with
        the block the note has: the open tasks the rotation moved stay in Open:,
        and yours join them. replace=true writes the block as given (to drop an
        open item that is done). The next session reads this Open: line.
        """

        def body(ws: Workspace) -> WriteOutput:
            from memtier.commands import episodic_writes, lifecycle

            day = lifecycle.parse_date_option(date, ws)
            result = episodic_writes.episodic_close(
                ws, decisions, signal, open, day, replace=replace
            )
            return write_output(result, result.redacted)

        return rt.call("memory_close_day", body)

    def memory_rotate() -> Annotated[CallToolResult, WriteOutput]:
        """Move the working buffer's body into today's note now and start a fresh buffer.

        Use when the buffer is oversized mid-session (a write told you so); at the
        end of a session call memory_session_end instead.
        """

        def body(ws: Workspace) -> WriteOutput:
            from memtier.commands.rotation import rotate_buffer

            return write_output(rotate_buffer(ws))

        return rt.call("memory_rotate", body)

    def memory_session_end() -> Annotated[CallToolResult, WriteOutput]:
        """End a session: rotate the buffer into today's note when it holds anything.

        Call when the task or the session is over. Says 'nothing to rotate' when the
        buffer is empty. Then close the day with memory_close_day.
        """

        def body(ws: Workspace) -> WriteOutput:
            from memtier.commands.rotation import session_end

            return write_output(session_end(ws))

        return rt.call("memory_session_end", body)

    server.add_tool(
        memory_session_start,
        name="memory_session_start",
        annotations=writes("Start a session", idempotent=True),
    )
    server.add_tool(memory_note, name="memory_note", annotations=writes("Write a note"))
    server.add_tool(memory_task, name="memory_task", annotations=writes("Add or finish a task"))
    server.add_tool(
        memory_close_day,
        name="memory_close_day",
        annotations=writes("Close the day"),  # additive: it merges (§11 v3)
    )
    server.add_tool(memory_rotate, name="memory_rotate", annotations=writes("Rotate the buffer"))
    server.add_tool(
        memory_session_end,
        name="memory_session_end",
        annotations=writes("End the session"),  # additive, as memory_rotate (§11)
    )
