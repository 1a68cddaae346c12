"""Topic tools (PROTOCOL §13, §11): the index, consolidation, recall, the daily flush.

Each answers with one text within ``max_chars`` (PROTOCOL §11 v4). With
memory_index and memory_flush an agent without a shell keeps topics as the
skill says (§11 v4: every tool the skill names exists).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from memtier.formats.index import CATEGORIES, STATUSES
from memtier.mcp.runtime import runtime_of
from memtier.mcp.shaping import WRITE_MAX_CHARS as WRITE_BUDGET
from memtier.mcp.shaping import bound_lines, check_budget
from memtier.mcp.toolkit import DEFAULT_BUDGET, MaxChars, get_call, read_only, tool, writes
from memtier.mcp.tools_session import DayParam, write_output
from memtier.mcp.words import tool_words

if TYPE_CHECKING:
    from memtier.workspace import Workspace

    Category = str
    Status = str
else:  # the schema's enums come from the one index format (formats.index)
    Category = Literal[tuple(CATEGORIES)]
    Status = Literal[STATUSES]


def _recall(ws: Workspace, text: str, max_chars: int, rg: str | None) -> str:
    from memtier.commands.topics.recall import recall

    check_budget(max_chars)
    report = recall(ws, text, max_chars, rg)
    return "\n".join(report.worded_lines(tool_words))


def _consolidate(
    ws: Workspace,
    topic: str,
    plan_id: str | None,
    summary: str | None,
    confirm: bool,
    max_chars: int,
) -> str:
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
    if report.written:
        written = [p.path for p in report.plans]
        return bound_lines(lines, max_chars, f"memory_get(path='{written[-1]}')").text
    # A plan is read in full with a larger budget (it is not a file yet); its id and
    # the call that writes it are the lines the agent acts on: kept whatever is cut.
    more = f"memory_consolidate(topic='{topic}', max_chars={max_chars * 2})"
    tail = lines[-2:] if len(report.plans) == 1 else []
    room = max_chars - sum(len(line) + 1 for line in tail)
    body = bound_lines(lines[: len(lines) - len(tail)], room, more).text
    return "\n".join([body, *tail])


def memory_recall(
    text: Annotated[str, Field(description="What to recall, e.g. 'the qdrant move'.")],
    max_chars: MaxChars = DEFAULT_BUDGET,
    all: Annotated[bool, Field(description="Accepted; recall reads the archive anyway.")] = False,
    *,
    ctx: Context,
) -> CallToolResult:
    """Answer "do you remember ..." from a topic's latest generation, newer note lines
    and facts; falls back to search."""
    del all  # PROTOCOL §13 v4: recall always reads archived notes too
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
) -> CallToolResult:
    """Fold a topic's new days into its next generation, every line cited; without
    confirm it only plans."""
    rt = runtime_of(ctx)
    return rt.call(
        "memory_consolidate",
        lambda ws: _consolidate(ws, topic, plan_id, summary, confirm, max_chars),
        max_chars,
    )


def _index(
    ws: Workspace,
    action: str,
    slug: str | None,
    category: str | None,
    match: list[str],
    status: str | None,
) -> str:
    from memtier.commands.topics import index as topics
    from memtier.errors import InputError

    if action == "show":
        report = topics.index_show(ws, max_lines=SHOW_ALL)
        lines = list(report.worded_lines(tool_words))
        path = report.path
        return bound_lines(lines, DEFAULT_BUDGET, lambda shown: get_call(path, shown + 1)).text
    if slug is None:
        raise InputError(f"memory_index: action='{action}' needs slug")
    terms = topics.split_match(match)
    if action == "add":
        if category is None:
            raise InputError("memory_index: action='add' needs category")
        return write_output(topics.index_add(ws, slug, category, terms, status))
    if not terms and status is None:
        raise InputError("memory_index: action='set' needs match or status")
    return write_output(topics.index_set(ws, slug, terms, status))


SHOW_ALL = 1_000_000  # the tool bounds what it shows by characters, not lines


def memory_index(
    action: Literal["show", "add", "set"] = "show",
    slug: Annotated[str | None, Field(description="The topic, e.g. qdrant-migration.")] = None,
    category: Category | None = None,
    match: Annotated[list[str], Field(description="Words your notes contain.")] = [],  # noqa: B006 - pydantic copies defaults
    status: Status | None = None,
    *,
    ctx: Context,
) -> CallToolResult:
    """The topic index: show it, add a topic for work that spans days (ask the person
    first), or set a topic's match or status (topics are never removed)."""
    rt = runtime_of(ctx)
    return rt.call(
        "memory_index",
        lambda ws: _index(ws, action, slug, category, match, status),
        DEFAULT_BUDGET if action == "show" else WRITE_BUDGET,
    )


def memory_flush(
    date: DayParam = None,
    consolidate: Annotated[bool, Field(description="Also write due topics.")] = False,
    *,
    ctx: Context,
) -> CallToolResult:
    """The daily flush for a day (default yesterday): closes its note if open,
    rebuilds the index, lists due topics."""
    rt = runtime_of(ctx)

    def body(ws: Workspace) -> str:
        from memtier.commands.topics.flush import flush
        from memtier.surface import parse_date_option

        day = parse_date_option(date, ws) if date is not None else None
        report = flush(ws, day, consolidate)
        warned = tuple(f"warning: {w}" for w in report.warnings)
        return write_output(report, extra=warned)

    return rt.call("memory_flush", body)


@cache
def tools() -> list[Any]:
    """This family's tools for the SDK, built once per process."""
    return [
        tool(memory_index, "Topic index", writes(destructive=True, idempotent=True)),
        tool(memory_consolidate, "Consolidate a topic", writes()),
        tool(memory_recall, "Recall a topic", read_only()),
        tool(memory_flush, "Daily flush", writes(idempotent=True)),
    ]
