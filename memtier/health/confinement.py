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
from memtier.workspace import WARM_DIRS, Workspace, special_file_kind

CHECK_OUTSIDE = "confinement.outside"
CHECK_SPECIAL = "confinement.special"


def _layout_entries(ws: Workspace) -> Iterator[tuple[Path, bool]]:
    """(path, is a folder) for every fixed entry of the layout, then the memory files."""
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
    folders = [ws.memory_dir / name for name in WARM_DIRS]
    folders += [ws.episodic_dir, ws.archive_dir, ws.scripts_dir]
    for folder in folders:
        yield folder, True
    for folder in (*folders[: len(WARM_DIRS)], ws.episodic_dir):
        if not _inside(ws, folder):
            continue
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            if name.endswith(".md"):
                yield folder / name, False


def _inside(ws: Workspace, path: Path) -> bool:
    real_root = os.path.realpath(ws.root)
    real = os.path.realpath(path)
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def confinement_checks(ws: Workspace) -> list[Check]:
    checks: list[Check] = []
    for path, is_folder in _layout_entries(ws):
        if not os.path.lexists(path):
            continue
        rel = ws.relative(path)
        if not _inside(ws, path):
            checks.append(Check(CHECK_OUTSIDE, FAIL, rel, f"{rel} — {store.OUTSIDE_MESSAGE}"))
            continue
        if is_folder:
            continue
        try:
            mode = os.stat(path).st_mode
        except OSError:
            continue  # a dangling link or no permission: the file's own check says so
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            kind = special_file_kind(mode)
            checks.append(Check(CHECK_SPECIAL, FAIL, rel, f"{rel} — {kind}, not a regular file"))
    return checks
