"""Commands of recall: `search`, `recent-searches`, `tags` and `stats` (PROTOCOL §9).

The search engine is imported inside the command: start-up time matters to an
agent that calls memtier many times a session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from memtier.cli import invocation
from memtier.cli._app import app, command
from memtier.cli._text import text_argument
from memtier.cli.invocation import open_workspace, show

if TYPE_CHECKING:
    from typing import TextIO


@command(app, "search")
def search_command(
    query: Annotated[str, text_argument("Words to find (or a pattern with --regex).")],
    tier: Annotated[
        list[str] | None,
        typer.Option(
            "--tier",
            help="Search only this tier: hot, warm, buffer, scratch, cold or archive "
            "(any case; repeat for several).",
            show_default=False,
        ),
    ] = None,
    tag: Annotated[
        list[str] | None,
        typer.Option(
            "--tag",
            help="Keep files whose #tags: line holds TAG, or sections with an inline #TAG "
            "(repeat: any of them).",
            show_default=False,
        ),
    ] = None,
    limit: Annotated[
        int, typer.Option("--limit", help="Show at most N results.")
    ] = invocation.default(invocation.search, "limit"),
    regex: Annotated[
        bool,
        typer.Option("--regex", help="QUERY is a regular expression (ripgrep syntax), per line."),
    ] = False,
    context: Annotated[
        int, typer.Option("--context", help="Lines of context around each matching line.")
    ] = invocation.default(invocation.search, "context"),
    all_tiers: Annotated[
        bool, typer.Option("--all", help="Search every tier, the archive included.")
    ] = False,
) -> int:
    """Ranked search of memory, ripgrep-fast, no index.

    Tiers in order HOT, WARM, BUFFER, SCRATCH, COLD; the archive only with --all
    or --tier archive. Each hit is a section (a heading block, paragraph or list
    item) with its path, lines, tier and score. $MEMTIER_RG names the ripgrep
    binary to use ("none": the built-in scanner).
    """
    return invocation.search(query, tier, tag, limit, regex, context, all_tiers)


@command(app, "recent-searches")
def recent_searches_command(
    limit: Annotated[int, typer.Option("--limit", help="Show the newest N searches.")] = 20,
    zero: Annotated[
        bool, typer.Option("--zero", help="Only searches that found nothing: what memory lacks.")
    ] = False,
) -> int:
    """List recent searches from the search log, newest first."""
    from memtier.search.log import recent_searches

    report = recent_searches(open_workspace(), limit=limit, zero=zero)
    return show(report)


@command(app, "tags")
def tags_command(
    add: Annotated[
        list[str] | None,
        typer.Option(
            "--add",
            help="Add this tag to the vocabulary in memory/memtier.toml, keeping the "
            "file's comments (repeat for several).",
            show_default=False,
        ),
    ] = None,
) -> int:
    """Tags on line 2 of MEMORY.md and every WARM file, counts, tokens outside the vocabulary.

    With --add, adds tags to the vocabulary instead of reporting.
    """
    from memtier.commands.tags import add_tags, collect_tags

    if add:
        return show(add_tags(open_workspace(), add))
    return show(collect_tags(open_workspace()))


@command(app, "stats")
def stats_command() -> int:
    """Files, lines and bytes per tier, buffer state, top tags, oldest and newest note."""
    from memtier.commands.stats import collect_stats

    report = collect_stats(open_workspace())

    def table(out: TextIO) -> None:
        from memtier.cli.views import stats_table

        stats_table(report, out)

    return show(report, terminal=table)
