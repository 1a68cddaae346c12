"""Layout entries that are not what they seem (PROTOCOL §3 v2, §6).

A memory file or layout folder that is a symlink resolving outside the root is
never read through, so health-check fails on it with ``<file> — points outside
the workspace``; a FIFO, socket or device where a memory file belongs fails too
(it is never opened: a FIFO would block, ``/dev/zero`` would never end). Only
failures are reported: a workspace without such entries shows no section.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from memtier import store
from memtier.health.verdict import FAIL, Check
from memtier.store.reading import Reading, not_plain_files
from memtier.workspace import WARM_DIRS, Workspace, special_file_kind

CHECK_OUTSIDE = "confinement.outside"
CHECK_SPECIAL = "confinement.special"


def _fixed_entries(ws: Workspace) -> Iterator[tuple[Path, bool]]:
    """(path, is a folder) for every fixed entry of the layout."""
    yield ws.memory_dir, True
    yield ws.hot, False
    yield ws.lock_file, False
    yield ws.config_file, False
    yield ws.buffer, False
    yield ws.buffer_lock, False
    yield ws.buffer_pending, False
    yield ws.learnings_dir, True
    for path in ws.scratch_files:
        yield path, False
    for folder in _note_folders(ws):
        yield folder, True
    yield ws.archive_dir, True
    yield ws.scripts_dir, True


def _note_folders(ws: Workspace) -> list[Path]:
    """The folders whose ``.md`` files are memory files: WARM, then COLD."""
    return [*(ws.memory_dir / name for name in WARM_DIRS), ws.episodic_dir]


def _real_root(ws: Workspace) -> str:
    return os.path.realpath(ws.root).rstrip(os.sep) + os.sep


def _inside(real_root: str, path: Path | str) -> bool:
    real = os.path.realpath(path)
    return real + os.sep == real_root or real.startswith(real_root)


def _check_entry(ws: Workspace, real_root: str, path: Path, is_folder: bool) -> Check | None:
    if not os.path.lexists(path):
        return None
    if not _inside(real_root, path):
        rel = ws.relative(path)
        return Check(CHECK_OUTSIDE, FAIL, rel, f"{rel} — {store.OUTSIDE_MESSAGE}")
    if is_folder:
        return None
    return _special(ws, path)


def _special(ws: Workspace, path: Path) -> Check | None:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None  # a dangling link or no permission: the file's own check says so
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    rel = ws.relative(path)
    return Check(CHECK_SPECIAL, FAIL, rel, f"{rel} — {special_file_kind(mode)}, not a regular file")


def _folder_checks(
    ws: Workspace, real_root: str, folder: Path, reading: Reading
) -> Iterator[Check]:
    """The checks of every ``.md`` entry of *folder*, in name order.

    The folder itself is resolved once: an entry that is not a symlink lives in
    the folder's real path, so only symlinks are resolved one by one (a COLD
    tier of 10,000 notes cost 20,000 realpaths here). The entry's type comes
    from the listing; only an entry that is neither a file nor a folder is
    stat'ed, to name its kind.
    """
    if not _inside(real_root, folder):
        return
    # A plain file is fine: only the others are looked at.
    entries = [e for e in not_plain_files(reading.listing(folder)) if e.name.endswith(".md")]
    for entry in entries:
        try:
            plain = not entry.is_symlink()
            regular = plain and (
                entry.is_file(follow_symlinks=False) or entry.is_dir(follow_symlinks=False)
            )
        except OSError:
            continue  # gone since the listing
        if regular:
            continue
        path = folder / entry.name
        check = _check_entry(ws, real_root, path, False) if not plain else _special(ws, path)
        if check is not None:
            yield check


def confinement_checks(ws: Workspace, reading: Reading | None = None) -> list[Check]:
    """*reading*: the listings the other checks share (each folder listed once)."""
    reading = reading or Reading()
    real_root = _real_root(ws)
    checks: list[Check] = []
    for path, is_folder in _fixed_entries(ws):
        check = _check_entry(ws, real_root, path, is_folder)
        if check is not None:
            checks.append(check)
    for folder in _note_folders(ws):
        checks.extend(_folder_checks(ws, real_root, folder, reading))
    return checks
