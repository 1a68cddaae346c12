"""Commands of the topic index (PROTOCOL §13): `index`, `consolidate`, `recall`, `flush`."""

from __future__ import annotations

from typing import Annotated

import typer

from memtier.cli import invocation
from memtier.cli._app import SHARED_OPTIONS, app, command, group
from memtier.cli._text import text_argument, text_option
from memtier.cli.invocation import open_workspace, show

index_app = group(
    "index",
    "The topic index memory/INDEX.md: show (the default), add, set, rebuild.",
    runs_alone=True,
    epilog=SHARED_OPTIONS,
)

_MATCH = typer.Option(
    "--match",
    help="A term that finds the topic in a note, whole word, any case (repeat, or "
    "separate with commas).",
    show_default=False,
)
_STATUS = typer.Option(
    "--status",
    help="active, completed, paused, abandoned or deprecated.",
    show_default=False,
)


@index_app.callback()
def index_default(ctx: typer.Context) -> None:
    """The topic index memory/INDEX.md: topics over the daily notes and their generations.

    Without a subcommand: show it.
    """
    if ctx.invoked_subcommand is None:
        raise typer.Exit(_show())


def _show(max_lines: int | None = None) -> int:
    from memtier.commands.topics.index import SHOW_MAX_LINES, index_show

    return show(index_show(open_workspace(), max_lines or SHOW_MAX_LINES))


@command(index_app, "show")
def index_show_command(
    max_lines: Annotated[
        int, typer.Option("--max-lines", help="Print at most N lines of INDEX.md.")
    ] = 200,
) -> int:
    """Print memory/INDEX.md (at most N lines, saying where to go on), and the due topics.

    --json lists each topic: Match, status, dates, Current, whether it is due.
    """
    return _show(max_lines)


@command(index_app, "add")
def index_add_command(
    slug: Annotated[str, typer.Argument(help="The topic's name: lowercase letters, digits, '-'.")],
    category: Annotated[
        str,
        typer.Option("--category", help="projects, events, decisions or preferences."),
    ],
    match: Annotated[list[str] | None, _MATCH] = None,
    status: Annotated[str | None, _STATUS] = None,
) -> int:
    """Add a topic (default Match: the slug's words) and derive its Dates from the notes."""
    from memtier.commands.topics.index import index_add, split_match

    return show(index_add(open_workspace(), slug, category, split_match(match or ()), status))


@command(index_app, "set")
def index_set_command(
    slug: Annotated[str, typer.Argument(help="The topic to change.")],
    match: Annotated[list[str] | None, _MATCH] = None,
    status: Annotated[str | None, _STATUS] = None,
) -> int:
    """Change a topic's Match terms (all of them) or its Status; entries are never removed."""
    from memtier.commands.topics.index import index_set, split_match

    return show(index_set(open_workspace(), slug, split_match(match or ()), status))


@command(index_app, "rebuild")
def index_rebuild_command(
    check: Annotated[
        bool,
        typer.Option("--check", help="Change nothing; exit 1 when a rebuild would change it."),
    ] = False,
) -> int:
    """Re-derive every topic's Dates, Consolidations and Current; Match and Status stay."""
    from memtier.commands.topics.index import index_rebuild

    return show(index_rebuild(open_workspace(), check=check))


@command(app, "consolidate")
def consolidate_command(
    slug: Annotated[
        str | None, typer.Argument(help="The topic to consolidate.", show_default=False)
    ] = None,
    due: Annotated[bool, typer.Option("--due", help="Every topic that is due.")] = False,
    plan: Annotated[
        bool, typer.Option("--plan", help="Print the generation and its plan id; write nothing.")
    ] = False,
    summary: Annotated[
        str | None, text_option("--summary", help="Your summary of the plan's sources.")
    ] = None,
    plan_id: Annotated[
        str | None,
        typer.Option(
            "--plan-id",
            help="The plan id --plan printed (needed with --summary).",
            show_default=False,
        ),
    ] = None,
) -> int:
    """Write a topic's next generation to memory/consolidated/ (extractive, immutable).

    It covers the topic's dates after its current generation, today excluded:
    the matching Decisions and Open items and note lines, each cited
    (memory/episodic/D.md:L), and what the previous generation decided that
    still stands. Notes are never changed. A summary is written only against
    the plan id of the sources it was shown (refused when one changed since).
    """
    return invocation.consolidate_topic(slug, due, plan, summary, plan_id)


@command(app, "recall")
def recall_command(
    text: Annotated[
        list[str], text_argument("What to recall, e.g. 'do you remember the qdrant move'.")
    ],
    max_chars: Annotated[
        int, typer.Option("--max-chars", help="Print at most N characters.")
    ] = 8000,
    everything: Annotated[
        bool,
        typer.Option("--all", help="Accepted, changes nothing: recall always reads the archive."),
    ] = False,
) -> int:
    """Recall a topic's story from the index: its Current generation, newer note lines, WARM facts.

    A phrase of recall_triggers ('do you remember', 'erinnerst du dich', '回忆一下', …)
    is taken off; the topic is found by slug, its words, a Match term or a close
    slug. No topic found: a search of memory, archive included. Reads only.
    """
    return invocation.recall_topic(text, max_chars, everything)


@command(app, "flush")
def flush_command(
    date: Annotated[
        str | None,
        typer.Option("--date", help="The day to flush (default: yesterday).", show_default=False),
    ] = None,
    consolidate: Annotated[
        bool, typer.Option("--consolidate", help="Also write every due topic's generation.")
    ] = False,
) -> int:
    """The daily flush: close day D's note if it is not, rebuild the index, list due topics.

    Logs one 'Daily flush: …' line in today's note only when something changed.
    """
    from memtier.commands.topics.flush import flush
    from memtier.surface import parse_date_option

    ws = open_workspace()
    day = parse_date_option(date, ws) if date is not None else None
    return show(flush(ws, day, consolidate))
