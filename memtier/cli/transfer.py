"""Moving memory in and out: `export`, `import`, `capture` (PROTOCOL §12)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from memtier.cli._app import app, command
from memtier.cli._text import TEXT, read_stdin_text
from memtier.cli.invocation import invocation, open_workspace, show, user_path

# "More than a few hundred items": below this an import is over before a bar helps.
PROGRESS_MIN_ITEMS = 300


def _stdin_text() -> str:
    """Standard input, bounded like a source file (PROTOCOL §12 v3)."""
    from memtier import store
    from memtier.commands.transfer.importers.reading import MAX_SOURCE_BYTES, too_big

    data = sys.stdin.buffer.read(MAX_SOURCE_BYTES + 1)
    if len(data) > MAX_SOURCE_BYTES:
        raise too_big(len(data), "standard input")
    return store.decode_document(data, "standard input").text


@command(app, "export")
def export_command(
    tier: Annotated[
        list[str] | None,
        typer.Option(
            "--tier",
            help="Export only this tier (repeatable): hot, warm, buffer, scratch, cold, "
            "archive, config (memory/memtier.toml), index (memory/INDEX.md and "
            "memory/consolidated/). Default: all of them, a whole backup.",
            show_default=False,
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Write to FILE (inside the workspace, not in its memory) instead of "
            "standard output; atomically.",
        ),
    ] = None,
) -> int:
    """Print the whole memory as one JSON document, byte for byte (import it with
    `memtier import memtier FILE`): every tier, the archive, the configuration and the
    index; --tier narrows it."""
    from memtier.commands.transfer.export import export_memory

    ws = open_workspace()
    result = export_memory(ws, tier or (), user_path(ws.root, output) if output else None)
    if output is None:
        # The document is the output, with --json or without.
        sys.stdout.write(result.document)
        return show(result, body=False)
    # Written to a file: the text view is the notice alone, --json the summary.
    return show(result, body=invocation().as_json)


@contextmanager
def _progress_bar(enabled: bool) -> Iterator[Callable[[int, int], None] | None]:
    """A rich progress bar on stderr, started only once an import proves big enough."""
    if not enabled:
        yield None
        return
    state: dict[str, Any] = {}

    def advance(done: int, total: int) -> None:
        if total <= PROGRESS_MIN_ITEMS:
            return
        if "bar" not in state:
            from rich.console import Console
            from rich.progress import Progress

            bar = Progress(console=Console(stderr=True), transient=True)
            bar.start()
            state["bar"], state["task"] = bar, bar.add_task("importing", total=total)
        state["bar"].update(state["task"], completed=done)

    try:
        yield advance
    finally:
        if "bar" in state:
            state["bar"].stop()


@command(app, "import")
def import_command(
    fmt: Annotated[
        str,
        typer.Argument(
            metavar="FORMAT",
            help="memtier, indexed, structured, brain, openclaw, claude or mcp-memory.",
        ),
    ],
    source: Annotated[
        str,
        typer.Argument(
            metavar="SOURCE",
            help="The export file, JSONL file or folder to import; - reads a file format "
            "from standard input.",
        ),
    ],
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the plan; change no byte of the workspace.")
    ] = False,
) -> int:
    """Bring another memory in: every item to its one home, dates kept, redacted, never
    overwriting. Every item is imported or listed as skipped with its reason; a second
    import adds nothing.

    FORMAT and SOURCE: memtier (an export file), indexed (a folder of front-matter
    notes), structured (a folder of user/ feedback/ project/ … folders), brain (a JSONL
    store or export), openclaw (a workspace with MEMORY.md and memory/YYYY-MM-DD.md),
    claude (a Claude Code memory folder), mcp-memory (the MCP memory server's JSONL).
    A file SOURCE may be - for standard input.
    """
    from memtier.commands.transfer.importers import import_source

    ws = open_workspace()
    text = _stdin_text() if source == "-" else None
    path = Path(source).expanduser()
    with _progress_bar(not invocation().as_json and sys.stderr.isatty()) as progress:
        result = import_source(ws, fmt.lower(), path, text=text, dry_run=dry_run, progress=progress)
    return show(result)


@command(app, "capture")
def capture_command(
    text: Annotated[
        str | None,
        typer.Argument(
            metavar="[TEXT|-]",
            help="The inbound message; - or nothing reads standard input.",
            click_type=TEXT,  # PROTOCOL §3 v2: '-…' is text, '-' is stdin
        ),
    ] = None,
    channel: Annotated[
        str | None,
        typer.Option("--channel", help="Where the message came from (kept with the note)."),
    ] = None,
    explain: Annotated[
        bool, typer.Option("--explain", help="Show each part of the score.")
    ] = False,
) -> int:
    """Keep an inbound message as a buffer note tagged #captured when it earns it:
    a trigger phrase (remember this, merke dir, …) or a topic word with length or
    structure. Exit 0 whether kept or not; --explain says why.

    TEXT is the message; - or no TEXT reads it from standard input. Triggers, topics
    and thresholds are the capture_* keys of memory/memtier.toml.
    """
    from memtier.commands.transfer.capture import capture

    ws = open_workspace()
    message = read_stdin_text() if text is None else text
    return show(capture(ws, message, channel=channel, explain=explain))
