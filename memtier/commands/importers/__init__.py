"""`memtier import FORMAT SOURCE [--dry-run]`: another memory, brought in (PROTOCOL §12).

`import_source` reads the source (`reading`), routes every item to its one home
and writes it (`apply` for items, `files` for a memtier export), all under the
workspace lock, and reports one outcome per source item (`report`).

``--dry-run`` runs the very same import against a private copy of the workspace
and throws the copy away: the plan it prints is exactly what a real run would
do (the same duplicate and HOT-cap refusals), and no byte of the workspace
changes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from memtier import store
from memtier.commands.importers.reading import FORMATS, read_export, read_items
from memtier.commands.importers.report import ImportResult, Outcome
from memtier.errors import InputError
from memtier.workspace import Workspace

__all__ = ["FORMATS", "ImportResult", "import_source"]

Progress = Callable[[int, int], None]


def _apply(
    ws: Workspace, fmt: str, source: Path, text: str | None, progress: Progress | None
) -> tuple[list[Outcome], dict[str, int]]:
    if fmt == "memtier":
        from memtier.commands.importers.files import apply_files

        files, invalid = read_export(source, text)
        with store.workspace_lock(ws.lock_file):
            return apply_files(ws, files, invalid, progress)
    from memtier.commands.importers.apply import apply_items

    parsed = read_items(fmt, source, text)
    with store.workspace_lock(ws.lock_file):
        return apply_items(ws, parsed, progress)


def _ignore_special(folder: str, names: list[str]) -> list[str]:
    """copytree skips the lock file and anything that is not a file, folder or link
    (a FIFO would block the copy)."""
    import os
    import stat

    ignored = []
    for name in names:
        try:
            mode = os.lstat(os.path.join(folder, name)).st_mode
        except OSError:
            ignored.append(name)
            continue
        special = not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode))
        if special or name == ".memtier.lock":
            ignored.append(name)
    return ignored


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
    if not dry_run:
        outcomes, redacted = _apply(ws, fmt, source, text, progress)
        return ImportResult(fmt, shown, False, tuple(outcomes), redacted)
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory(prefix="memtier-dry-run-") as scratch:
        copy = Path(scratch) / "workspace"
        with store.workspace_lock(ws.lock_file):
            shutil.copytree(ws.root, copy, symlinks=True, ignore=_ignore_special)
        shadow = replace(ws, root=copy)
        outcomes, redacted = _apply(shadow, fmt, source, text, progress)
    return ImportResult(fmt, shown, True, tuple(outcomes), redacted)
