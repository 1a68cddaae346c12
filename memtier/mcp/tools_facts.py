"""Tools that keep lasting knowledge (PROTOCOL §9 learn/promote, §10 facts, §11).

One home per fact: memory_remember refuses a fact that already stands
somewhere, memory_replace corrects it where it stands, memory_retire takes it
out with a trace in the retirement log. The conventions every tool follows are
at the top of `memtier.mcp.toolkit`.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from memtier.mcp.runtime import runtime_of
from memtier.mcp.shaping import write_text
from memtier.mcp.toolkit import tool, writes
from memtier.mcp.tools_session import write_output

if TYPE_CHECKING:
    from memtier.workspace import Workspace

FileParam = Annotated[str, Field(description="MEMORY.md or a WARM file.")]
OldParam = Annotated[str, Field(description="Text of exactly one line.")]


def memory_learn(
    kind: Literal["error", "learning", "feature"],
    text: str,
    pin: Annotated[bool, Field(description="Never archive.")] = False,
    *,
    ctx: Context,
) -> CallToolResult:
    """Record a mistake and its fix, a lesson, or a feature request, as it happens."""
    rt = runtime_of(ctx)

    def body(ws: Workspace) -> str:
        from memtier.commands.learnings import learn

        result = learn(ws, kind, text, pin)
        return write_output(result, result.redacted)

    return rt.call("memory_learn", body)


def memory_remember(
    text: str,
    kind: Annotated[
        str | None,
        Field(
            description="infrastructure, preference, project, decision, lesson, "
            "howto:<topic>, hot, event"
        ),
    ] = None,
    file: Annotated[str | None, Field(description="Instead of kind.")] = None,
    section: Annotated[str | None, Field(description="A ## heading.")] = None,
    tags: list[str] = [],  # noqa: B006 - pydantic copies defaults
    force: Annotated[bool, Field(description="Keep a near-duplicate it refused.")] = False,
    *,
    ctx: Context,
) -> CallToolResult:
    """Store a lasting fact in its one home (kind or file); refused, naming file:line,
    when it already stands."""
    rt = runtime_of(ctx)

    def body(ws: Workspace) -> str:
        from memtier.commands.facts.remember import remember

        to = rt.resolve(ws, file) if file is not None else None
        result = remember(
            ws, text, kind=kind, to=to, section=section, tags=tuple(tags), force=force
        )
        return write_output(result, _redacted(result))

    return rt.call("memory_remember", body)


def memory_replace(
    old: OldParam,
    new: str,
    file: FileParam,
    reason: str | None = None,
    *,
    ctx: Context,
) -> CallToolResult:
    """Correct a wrong fact where it stands (the old line is logged)."""
    rt = runtime_of(ctx)

    def body(ws: Workspace) -> str:
        from memtier.commands.facts.remember import replace_fact

        result = replace_fact(ws, old, new, in_file=rt.resolve(ws, file), reason=reason)
        return write_output(result, _redacted(result))

    return rt.call("memory_replace", body)


def memory_retire(
    old: OldParam,
    file: FileParam,
    reason: str,
    *,
    ctx: Context,
) -> CallToolResult:
    """Remove a fact that no longer holds (logged with the reason)."""
    rt = runtime_of(ctx)

    def body(ws: Workspace) -> str:
        from memtier.commands.facts.remember import retire_fact

        result = retire_fact(ws, old, in_file=rt.resolve(ws, file), reason=reason)
        return write_output(result, _redacted(result))

    return rt.call("memory_retire", body)


def memory_verify(
    files: list[str] = [],  # noqa: B006 - pydantic copies defaults
    stale: Annotated[bool, Field(description="Every stale WARM file.")] = False,
    *,
    ctx: Context,
) -> CallToolResult:
    """When you use a stale WARM file: after checking its facts, mark it verified today."""
    rt = runtime_of(ctx)

    def body(ws: Workspace) -> str:
        from memtier.commands.facts.remember import verify_files

        paths = tuple(rt.resolve(ws, name) for name in files)
        return write_output(verify_files(ws, paths, stale=stale))

    return rt.call("memory_verify", body)


def memory_promote(
    lesson: Annotated[str, Field(description="As in .learnings/.")],
    file: Annotated[str, Field(description="A WARM file.")],
    as_text: Annotated[str | None, Field(description="The advice to write instead.")] = None,
    confirm: bool = False,
    *,
    ctx: Context,
) -> CallToolResult:
    """Promote a lesson into WARM: call without confirm, show the person the plan, then
    call with confirm=true."""
    rt = runtime_of(ctx)

    def body(ws: Workspace) -> str:
        from memtier.commands.learnings import promote

        result = promote(ws, lesson, rt.resolve(ws, file), confirm, as_text=as_text)
        lines = list(result.plan_lines())
        if not result.applied:
            lines.append("Nothing changed: call memory_promote again with confirm=true.")
        return write_text(lines)

    return rt.call("memory_promote", body)


@cache
def tools() -> list[Any]:
    """This family's tools for the SDK, built once per process."""
    return [
        tool(memory_learn, "Record a lesson", writes()),
        tool(memory_remember, "Remember a fact", writes()),
        tool(memory_replace, "Correct a fact", writes(destructive=True)),
        tool(memory_retire, "Retire a fact", writes(destructive=True)),
        tool(memory_verify, "Mark files verified", writes(idempotent=True)),
        tool(memory_promote, "Promote a lesson", writes()),
    ]


def _redacted(result: object) -> dict[str, int]:
    counts = getattr(result, "redacted", None)
    return dict(counts) if isinstance(counts, dict) else {}
