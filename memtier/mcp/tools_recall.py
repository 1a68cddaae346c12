"""Reading tools (PROTOCOL §6, §9, §10 `get`, §11): search, get, health, overview.

Each is bounded by ``max_chars`` and, when cut, says how to get the rest: a
smaller search limit, or the memory_get call with the next line range.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp_types import CallToolResult
from pydantic import Field

from memtier.mcp.hints import DEFAULT_BUDGET, MaxChars, get_call, read_only
from memtier.mcp.models import (
    BoundedOutput,
    GetOutput,
    HealthOutput,
    HealthProblem,
    SearchHit,
    SearchOutput,
)
from memtier.mcp.runtime import ToolRuntime
from memtier.mcp.shaping import bound_lines, check_budget, health_fix
from memtier.workspace import TIERS

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from memtier.render import Report
    from memtier.search import SearchReport
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
    lines = list(report.text_lines())
    return [
        "hint: add 'archive' to tiers to search the archive too"
        if line.startswith("hint: add --all")
        else line
        for line in lines
    ]


def _search(ws: Workspace, request: Any, max_chars: int) -> SearchOutput:
    from memtier.search import find_rg, search

    check_budget(max_chars)
    report = search(ws, replace(request, rg=find_rg(None)))
    shown = len(report.hits)
    lines = _search_text(report)
    # Fewer whole results rather than a result cut in the middle.
    while shown > 1 and sum(len(line) + 1 for line in lines) > max_chars - 200:
        shown -= 1
        lines = _search_text(replace(report, hits=report.hits[:shown]))
    more = None
    if shown < len(report.hits):
        more = (
            f"call memory_search with limit={shown} (or narrower tiers/tags) and read "
            "a result with memory_get"
        )
        lines.append(
            f"[cut at {max_chars} characters: {shown} of {len(report.hits)} results shown; {more}]"
        )
    bounded = bound_lines(lines, max_chars, more)
    hits = [SearchHit(**_hit_fields(hit.to_json())) for hit in report.hits[:shown]]
    return SearchOutput(
        text=bounded.text,
        data=report.to_json(),
        truncated=more is not None or bounded.truncated,
        more=more,
        total_matched=report.total_matched,
        results=hits,
    )


def _hit_fields(payload: dict[str, Any]) -> dict[str, Any]:
    keys = ("path", "tier", "line", "line_start", "line_end", "score", "excerpt")
    return {key: payload[key] for key in keys}


def _get(ws: Workspace, spec: GetSpec, max_chars: int) -> GetOutput:
    from memtier.commands.fact_get import split_range
    from memtier.commands.facts import get_lines
    from memtier.commands.lifecycle import parse_date_option

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
    if not bounded.truncated and next_from is not None:
        text += f"\ntruncated; next: {get_call(result.path, next_from, last)}"
    return GetOutput(
        text=text,
        data=result.to_json(),
        truncated=next_from is not None,
        more=get_call(result.path, next_from, last) if next_from is not None else None,
        path=result.path,
        next_from_line=next_from,
    )


def _health(ws: Workspace, verbose: bool, max_chars: int) -> HealthOutput:
    from memtier.health.report import run_health_check

    check_budget(max_chars)
    report = run_health_check(ws)
    problems = [
        HealthProblem(
            id=c.id, status=c.status, path=c.path, message=c.message, fix=health_fix(c.id, c.path)
        )
        for c in report.checks
        if c.status != "pass"
    ]
    lines = list(report.text_lines(verbose=verbose))
    if problems:
        lines += ["", "To fix:"]
        lines += [f"- {p.message} → {p.fix}" for p in problems if p.fix]
    bounded = bound_lines(lines, max_chars, "call memory_health with verbose=false")
    return HealthOutput(
        text=bounded.text,
        data=report.to_json(),
        truncated=bounded.truncated,
        more="memory_health(verbose=false)" if bounded.truncated else None,
        ok=report.ok,
        problems=problems,
    )


def _overview(ws: Workspace, max_chars: int) -> BoundedOutput:
    from memtier.commands.recurrence import find_candidates
    from memtier.commands.searchlog import recent_searches
    from memtier.commands.stats import collect_stats
    from memtier.commands.tags import collect_tags

    check_budget(max_chars)
    reports: dict[str, Report] = {
        "stats": collect_stats(ws),
        "tags": collect_tags(ws),
        "zero_hit_searches": recent_searches(ws, limit=10, zero=True),
        "candidates": find_candidates(ws),
    }
    titles = {
        "stats": "Files per tier",
        "tags": "Tags",
        "zero_hit_searches": "Searches that found nothing (what memory lacks)",
        "candidates": "Promotion candidates (memory_promote)",
    }
    lines: list[str] = []
    for key, report in reports.items():
        lines += ["", f"===== {titles[key]} =====", *report.text_lines()]
    bounded = bound_lines(lines[1:], max_chars, "memtier stats / tags / candidates in a shell")
    return BoundedOutput(
        text=bounded.text.replace(
            "memtier promote N --to FILE [--as ADVICE] --yes", "memory_promote(lesson, file)"
        ),
        data={key: report.to_json() for key, report in reports.items()},
        truncated=bounded.truncated,
        more=None,
    )


def register(server: MCPServer, rt: ToolRuntime) -> None:
    def memory_search(
        query: Annotated[str, Field(description="Words to find, or a pattern with regex=true.")],
        tiers: Annotated[
            list[Tier],
            Field(description="Tiers to search (default: all but the archive)."),
        ] = [],  # noqa: B006 - pydantic copies defaults; the schema shows []
        tags: Annotated[
            list[str], Field(description="Keep files or sections carrying any of these tags.")
        ] = [],  # noqa: B006
        limit: Annotated[int, Field(ge=1, description="At most this many results.")] = 10,
        regex: Annotated[bool, Field(description="query is a regular expression.")] = False,
        max_chars: MaxChars = DEFAULT_BUDGET,
    ) -> Annotated[CallToolResult, SearchOutput]:
        """Search memory before you answer from it: ranked, over the plain files, no index.

        Searches HOT (MEMORY.md), WARM (semantic and procedural files), the working
        buffer, .learnings and the daily notes, in that order of weight; the archive
        (old notes, retired facts) only when 'archive' is among tiers. Returns the
        best sections with path, line and excerpt; read around a result with
        memory_get(path, from_line). A search that finds nothing is logged, so that
        memory_overview can show what memory lacks.
        """
        from memtier.search import SearchRequest

        request = SearchRequest(
            query=query, tiers=tuple(tiers), tags=tuple(tags), limit=limit, regex=regex
        )
        return rt.call("memory_search", lambda ws: _search(ws, request, max_chars))

    def memory_get(
        path: Annotated[
            str | None,
            Field(
                description="A memory file relative to the workspace root, e.g. MEMORY.md "
                "(omit it to read the note of date)."
            ),
        ] = None,
        from_line: Annotated[int | None, Field(ge=1, description="First line (1-based).")] = None,
        to_line: Annotated[int | None, Field(ge=1, description="Last line, inclusive.")] = None,
        date: Annotated[
            str | None,
            Field(description="YYYY-MM-DD: that day's note, found in the archive too."),
        ] = None,
        max_chars: MaxChars = DEFAULT_BUDGET,
    ) -> Annotated[CallToolResult, GetOutput]:
        """Read lines of one memory file, with their line numbers.

        Use after memory_search or a cut memory_session_start to read a file or a
        range. Bounded: a cut result names the next call (from_line=N). Line
        numbers are what memory_replace and memory_retire quote back. Read-only.
        """
        spec = GetSpec(rt, path, from_line, to_line, date)
        return rt.call("memory_get", lambda ws: _get(ws, spec, max_chars))

    def memory_health(
        verbose: Annotated[bool, Field(description="Add the detail behind each problem.")] = False,
        max_chars: MaxChars = DEFAULT_BUDGET,
    ) -> Annotated[CallToolResult, HealthOutput]:
        """Check every memory invariant; each problem comes with the call that fixes it.

        Call when memory_session_start reports a failed health check, before
        trusting memory for a decision, and after bulk changes. ok=false means a
        required check failed: fix it before relying on memory. Reads only.
        """
        return rt.call("memory_health", lambda ws: _health(ws, verbose, max_chars))

    def memory_overview(
        max_chars: MaxChars = DEFAULT_BUDGET,
    ) -> Annotated[CallToolResult, BoundedOutput]:
        """Survey memory: files and lines per tier, tags, searches that found nothing, and
        lessons flagged for promotion.

        Use at a quiet moment to see what memory lacks (zero-hit searches: facts
        worth adding with memory_remember) and which lessons have recurred
        (memory_promote them). Reads only.
        """
        return rt.call("memory_overview", lambda ws: _overview(ws, max_chars))

    server.add_tool(memory_search, name="memory_search", annotations=read_only("Search memory"))
    server.add_tool(memory_get, name="memory_get", annotations=read_only("Read memory lines"))
    server.add_tool(memory_health, name="memory_health", annotations=read_only("Check memory"))
    server.add_tool(memory_overview, name="memory_overview", annotations=read_only("Survey memory"))
