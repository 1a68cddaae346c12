"""`memtier import FORMAT SOURCE [--dry-run]`: another memory, brought in (PROTOCOL §12).

`import_source` reads the source (`reading`, no lock: it touches no memory file),
routes every item to its one home and writes it (`apply` for items, `files` for a
memtier export) one target file at a time, each batch under the workspace lock
(PROTOCOL §12 v3 "Scale"), and reports one outcome per fact (`report`).

``--dry-run`` works out the very same plan in memory and writes nothing: no
copy of the workspace is made anywhere (PROTOCOL §12 v3), so a killed dry run
leaves nothing behind; the plan it prints is what a real run does (the same
duplicate and HOT-cap refusals).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memtier.commands.transfer.importers.reading import FORMATS, read_export, read_items
from memtier.commands.transfer.importers.report import ImportResult
from memtier.errors import InputError
from memtier.workspace import Workspace

__all__ = ["FORMATS", "ImportResult", "import_source"]

Progress = Callable[[int, int], None]


def import_source(
    ws: Workspace,
    fmt: str,
    source: Path,
    *,
    text: str | None = None,
    dry_run: bool = False,
    progress: Progress | None = None,
) -> ImportResult:
    """Import *source* (or *text*, standard input) in format *fmt* into the workspace."""
    if fmt not in FORMATS:
        raise InputError(f"unknown import format '{fmt}' (one of: {', '.join(FORMATS)})")
    shown = "-" if text is not None else str(source)
    if fmt == "memtier":
        from memtier.commands.transfer.importers.files import apply_files

        files, invalid = read_export(source, text)
        outcomes, redacted = apply_files(ws, files, invalid, progress, dry_run=dry_run)
    else:
        from memtier.commands.transfer.importers.apply import apply_items

        parsed = read_items(fmt, source, text, now=ws.now)
        outcomes, redacted = apply_items(ws, parsed, progress, dry_run=dry_run)
    return ImportResult(fmt, shown, dry_run, tuple(outcomes), redacted)
