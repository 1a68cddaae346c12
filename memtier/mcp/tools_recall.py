"""Reading tools (PROTOCOL §6, §9, §10 `get`, §11): search, get, health, overview.

Each is bounded by ``max_chars`` and, when cut, says how to get the rest (a
smaller search limit, the memory_get call with the next line range) in both
channels. The conventions every tool follows are at the top of
`memtier.mcp.toolkit`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from memtier.mcp.runtime import ToolRuntime, runtime_of
from memtier.mcp.shaping import bound_lines, check_budget
from memtier.mcp.toolkit import DEFAULT_BUDGET, LineNo, MaxChars, get_call, read_only, tool
from memtier.mcp.words import tool_words
from memtier.workspace import TIERS

if TYPE_CHECKING:
    from memtier.search import SearchReport, SearchRequest
    from memtier.workspace import Workspace

if TYPE_CHECKING:
    Tier = str
else:  # the one tier table (workspace.TIERS) gives the schema its enum
    Tier = Literal[TIERS]


@dataclass(frozen=True)
class GetSpec:
    """What memory_get was asked for."""

    rt: ToolRuntime
    path: str | None
    first: int | None
    last: int | None
    day: str | None

    def resolve(self, ws: Workspace) -> Path:
        return self.rt.resolve(ws, self.path or "")


def _search_text(report: SearchReport) -> list[str]:
    if not report.hits:
        searched = ", ".join(t.upper() for t in report.tiers)
        lines = [f"no matches for {report.query!r} in {searched}"]
        if "archive" not in report.tiers:
            lines.append("hint: add 'archive' to tiers to search the archive too")
        return lines
    return list(report.text_lines())


def _search(ws: Workspace, request: SearchRequest, max_chars: int) -> str:
    check_budget(max_chars)
    report = search_warm(ws, request)
    shown = len(report.hits)
    # What the command line says on stderr (hits for a corrected word, a file
    # skipped) the model reads first.
    warned = [f"warning: {w}" for w in report.warnings]

    def sized(count: int) -> tuple[list[str], int]:
        part = report.copy_with(hits=report.hits[:count])
        lines = [*warned, *_search_text(part)]
        return lines, sum(len(line) + 1 for line in lines)

    # Fewer whole results rather than a result cut in the middle (PROTOCOL §11 v3).
    lines, size = sized(shown)
    while shown > 1 and size > max_chars - 250:
        shown -= 1
        lines, size = sized(shown)
    more = None
    if shown < len(report.hits):
        more = f"memory_search with limit={shown} or narrower tiers/tags; memory_get a result"
        lines.append(
            f"[cut at {max_chars} characters: {shown} of {len(report.hits)} shown; {more}]"
        )
    return bound_lines(lines, max_chars, more).text


def search_warm(ws: Workspace, request: SearchRequest) -> SearchReport:
    """A search as the tool server runs it: read-only (no search log, §11 v3), with
    the ripgrep the request names (the surface's choice, as on the CLI)."""
    from memtier.search import search

    return search(ws, request.copy_with(log=False))


def _get(ws: Workspace, spec: GetSpec, max_chars: int) -> str:
    from memtier.commands.facts.get import split_range
    from memtier.commands.facts.remember import get_lines
    from memtier.surface import parse_date_option

    check_budget(max_chars)
    day = parse_date_option(spec.day, ws) if spec.day is not None else None
    given = str(spec.resolve(ws)) if spec.path else ""
    result = get_lines(ws, given, from_line=spec.first, to_line=spec.last, date=day)
    numbered = list(result.text_lines())[: len(result.lines)]
    last = spec.last or result.total
    next_from: int | None = None
    if result.truncated and result.next:  # the core's own line bound
        next_from = split_range(result.next)[1]

    def more(shown: int) -> str:
        nonlocal next_from
        next_from = result.start + shown
        return get_call(result.path, next_from, last)

    bounded = bound_lines(numbered, max_chars, more)
    text = bounded.text
    call = get_call(result.path, next_from, last) if next_from is not None else None
    if not bounded.truncated and call is not None:
        text += f"\ntruncated; next: {call}"
    return text


def _health(ws: Workspace, verbose: bool, max_chars: int) -> str:
    from memtier.health.report import run_health_check

    check_budget(max_chars)
    report = run_health_check(ws)
    # PROTOCOL §6 (v4): each failure with its one fix, worded as a tool call.
    lines = list(report.text_lines(verbose=verbose, words=tool_words))
    more = "memory_health(verbose=false), or a larger max_chars"
    return bound_lines(lines, max_chars, more).text


def _overview(ws: Workspace, max_chars: int) -> str:
    from memtier.commands.recurrence import find_candidates
    from memtier.commands.stats import collect_stats
    from memtier.commands.tags import collect_tags
    from memtier.search.log import recent_searches

    check_budget(max_chars)
    candidates = find_candidates(ws)
    zero = recent_searches(ws, limit=10, zero=True)
    lines = ["===== Files per tier =====", *collect_stats(ws).text_lines()]
    lines += ["", "===== Tags =====", *collect_tags(ws).text_lines()]
    lines += ["", "===== Searches that found nothing (what memory lacks) ====="]
    lines += list(zero.text_lines())
    lines += ["", "===== Promotion candidates ====="]
    lines += [f"{c.file}:{c.line}: {c.entry}" for c in candidates.candidates]
    lines.append(
        "promote one with memory_promote(lesson, file)"
        if candidates.candidates
        else "No promotion candidates"
    )
    more = f"memory_overview(max_chars={max_chars * 2})"
    return bound_lines(lines, max_chars, more).text


def memory_search(
    query: str,
    tiers: Annotated[list[Tier], Field(description="Default: all but archive.")] = [],  # noqa: B006 - pydantic copies defaults
    tags: list[str] = [],  # noqa: B006
    limit: Annotated[int, Field(ge=1, le=200)] = 10,
    regex: bool = False,
    max_chars: MaxChars = DEFAULT_BUDGET,
    *,
    ctx: Context,
) -> CallToolResult:
    """Search memory before you answer from it: the best sections, with path:line."""
    rt = runtime_of(ctx)
    face = rt.surface()
    # The one builder both faces use (memtier.surface): the query cleaned, the scanner
    # chosen ($MEMTIER_RG on both faces).
    request, _warnings = face.search_request(
        query, tiers=tiers, tags=tags, limit=limit, regex=regex
    )
    return rt.call("memory_search", lambda ws: _search(ws, request, max_chars), max_chars, face)


def memory_get(
    path: Annotated[str | None, Field(description="e.g. MEMORY.md")] = None,
    from_line: LineNo | None = None,
    to_line: LineNo | None = None,
    date: Annotated[str | None, Field(description="YYYY-MM-DD: its note")] = None,
    max_chars: MaxChars = DEFAULT_BUDGET,
    *,
    ctx: Context,
) -> CallToolResult:
    """Read numbered lines of a memory file or a day's note (after a search or a cut)."""
    rt = runtime_of(ctx)
    spec = GetSpec(rt, path, from_line, to_line, date)
    return rt.call("memory_get", lambda ws: _get(ws, spec, max_chars), max_chars)


def memory_health(
    verbose: bool = False,
    max_chars: MaxChars = DEFAULT_BUDGET,
    *,
    ctx: Context,
) -> CallToolResult:
    """Each failed check with its one fix. An integrity failure: stop relying on memory
    until fixed; a stale WARM file: verify it when you use its facts."""
    rt = runtime_of(ctx)
    return rt.call("memory_health", lambda ws: _health(ws, verbose, max_chars), max_chars)


def memory_overview(
    max_chars: MaxChars = DEFAULT_BUDGET,
    *,
    ctx: Context,
) -> CallToolResult:
    """At a quiet moment: tiers, tags, searches that found nothing, lessons to promote."""
    rt = runtime_of(ctx)
    return rt.call("memory_overview", lambda ws: _overview(ws, max_chars), max_chars)


@cache
def tools() -> list[Any]:
    """This family's tools for the SDK, built once per process."""
    return [
        tool(memory_search, "Search memory", read_only()),
        tool(memory_get, "Read lines", read_only()),
        tool(memory_health, "Check memory health", read_only()),
        tool(memory_overview, "Memory overview", read_only()),
    ]
