"""Commands of recall: `search`, `recent-searches`, `tags` and `stats` (PROTOCOL §9).

The search engine is imported inside the command: start-up time matters to an
agent that calls memtier many times a session.
"""

from __future__ import annotations

import os
from typing import Annotated

import typer

from memtier.cli._app import JsonOption, NowOption, RootOption, app, open_workspace, show


@app.command("search")
def search_command(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="Words to find (or a pattern with --regex).")],
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
    limit: Annotated[int, typer.Option("--limit", help="Show at most N results.")] = 10,
    regex: Annotated[
        bool,
        typer.Option("--regex", help="QUERY is a regular expression (ripgrep syntax), per line."),
    ] = False,
    context: Annotated[
        int, typer.Option("--context", help="Lines of context around each matching line.")
    ] = 1,
    all_tiers: Annotated[
        bool, typer.Option("--all", help="Search every tier, the archive included.")
    ] = False,
    root: RootOption = None,
    now: NowOption = None,
    as_json: JsonOption = False,
) -> None:
    """Ranked search of memory, ripgrep-fast, no index.

    Tiers in order HOT, WARM, BUFFER, SCRATCH, COLD; the archive only with --all
    or --tier archive. Each hit is a section (a heading block, paragraph or list
    item) with its path, lines, tier and score. $MEMTIER_RG names the ripgrep
    binary to use ("none": the built-in scanner).
    """
    from memtier.render import colour_enabled, notice, warn
    from memtier.search import SearchRequest, find_rg, search

    ws = open_workspace(ctx, root, now)
    override = os.environ.get("MEMTIER_RG")
    rg = None if override == "none" else find_rg(override or None)
    if override and override != "none" and rg is None:
        warn(f"MEMTIER_RG={override} not found; using the built-in scanner")
    request = SearchRequest(
        query=query,
        tiers=tuple(tier or ()),
        tags=tuple(tag or ()),
        limit=limit,
        regex=regex,
        context=context,
        all_tiers=all_tiers,
        rg=rg,
    )
    report = search(ws, request, colour=not as_json and colour_enabled())
    for message in report.warnings:
        warn(message)
    for rule, count in sorted(report.redacted.items()):
        notice(f"search log: redacted {count} secret(s): {rule}")
    show(report, as_json)


@app.command("recent-searches")
def recent_searches_command(
    ctx: typer.Context,
    limit: Annotated[int, typer.Option("--limit", help="Show the newest N searches.")] = 20,
    zero: Annotated[
        bool, typer.Option("--zero", help="Only searches that found nothing: what memory lacks.")
    ] = False,
    root: RootOption = None,
    now: NowOption = None,
    as_json: JsonOption = False,
) -> None:
    """List recent searches from the search log, newest first."""
    from memtier.commands.searchlog import recent_searches
    from memtier.render import warn

    report = recent_searches(open_workspace(ctx, root, now), limit=limit, zero=zero)
    for message in report.warnings:
        warn(message)
    show(report, as_json)


@app.command("tags")
def tags_command(
    ctx: typer.Context,
    add: Annotated[
        list[str] | None,
        typer.Option(
            "--add",
            help="Add this tag to the vocabulary in memory/memtier.toml, keeping the "
            "file's comments (repeat for several).",
            show_default=False,
        ),
    ] = None,
    root: RootOption = None,
    now: NowOption = None,
    as_json: JsonOption = False,
) -> None:
    """Tags on line 2 of MEMORY.md and every WARM file, counts, tokens outside the vocabulary.

    With --add, adds tags to the vocabulary instead of reporting.
    """
    from memtier.commands.tags import add_tags, collect_tags
    from memtier.render import warn

    if add:
        show(add_tags(open_workspace(ctx, root, now), add), as_json)
        return
    report = collect_tags(open_workspace(ctx, root, now))
    for message in report.warnings:
        warn(message)
    show(report, as_json)


@app.command("stats")
def stats_command(
    ctx: typer.Context,
    root: RootOption = None,
    now: NowOption = None,
    as_json: JsonOption = False,
) -> None:
    """Files, lines and bytes per tier, buffer state, top tags, oldest and newest note."""
    from memtier.commands.stats import collect_stats
    from memtier.render import warn

    report = collect_stats(open_workspace(ctx, root, now))
    for message in report.warnings:
        warn(message)
    show(report, as_json)
