"""Topic tools (PROTOCOL §13, §11): memory_recall and memory_consolidate.

Both return a ``text`` within ``max_chars`` and a small ``data`` object (never
a second copy of the text), so each channel stays within the budget plus a
small envelope.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from memtier.mcp.models import ToolOutput
from memtier.mcp.runtime import runtime_of
from memtier.mcp.shaping import bound_lines, check_budget
from memtier.mcp.toolkit import DEFAULT_BUDGET, MaxChars, read_only, tool, writes
from memtier.mcp.words import tool_words

if TYPE_CHECKING:
    from memtier.workspace import Workspace


def _recall(ws: Workspace, text: str, max_chars: int, rg: str | None) -> ToolOutput:
    from memtier.commands.topics.recall import recall

    check_budget(max_chars)
    report = recall(ws, text, max_chars, rg)
    data = {
        "topic": report.topic,
        "found_by": report.found_by,
        "current": report.current,
        "truncated": report.truncated,
    }
    return ToolOutput(text="\n".join(report.worded_lines(tool_words)), data=data)


def _consolidate(
    ws: Workspace,
    topic: str,
    plan_id: str | None,
    summary: str | None,
    confirm: bool,
    max_chars: int,
) -> ToolOutput:
    from memtier.commands.topics.consolidate import consolidate

    check_budget(max_chars)
    due = topic == "due"
    report = consolidate(
        ws,
        None if due else topic,
        due=due,
        plan_only=not confirm,
        summary=summary,
        plan_id=plan_id,
    )
    lines = list(report.worded_lines(tool_words))
    bounded = bound_lines(lines, max_chars, "memory_get path='<generation path>'")
    data = {
        "written": report.written,
        "plan_id": report.plans[0].plan_id if len(report.plans) == 1 else None,
        "paths": [p.path for p in report.plans][:20],
        "truncated": bounded.truncated,
    }
    return ToolOutput(text=bounded.text, data=data)


def memory_recall(
    text: Annotated[str, Field(description="What to recall, e.g. 'the qdrant move'.")],
    max_chars: MaxChars = DEFAULT_BUDGET,
    *,
    ctx: Context,
) -> Annotated[CallToolResult, ToolOutput]:
    """Answer "do you remember ..." from a topic's latest generation, newer note lines
    and facts; falls back to search."""
    rt = runtime_of(ctx)
    rg = rt.surface().scanner().rg
    return rt.call("memory_recall", lambda ws: _recall(ws, text, max_chars, rg), max_chars)


def memory_consolidate(
    topic: Annotated[str, Field(description="Topic slug, or 'due'.")],
    plan_id: Annotated[str | None, Field(description="Plan id to write against.")] = None,
    summary: Annotated[str | None, Field(description="Your summary of the plan.")] = None,
    confirm: Annotated[bool, Field(description="Write; false only plans.")] = False,
    max_chars: MaxChars = DEFAULT_BUDGET,
    *,
    ctx: Context,
) -> Annotated[CallToolResult, ToolOutput]:
    """Fold a topic's new days into its next generation, every line cited; without
    confirm it only plans."""
    rt = runtime_of(ctx)
    return rt.call(
        "memory_consolidate",
        lambda ws: _consolidate(ws, topic, plan_id, summary, confirm, max_chars),
        max_chars,
    )


@cache
def tools() -> list[Any]:
    """This family's tools for the SDK, built once per process."""
    return [
        tool(memory_recall, read_only()),
        tool(memory_consolidate, writes()),
    ]
