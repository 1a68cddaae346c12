"""The files of each tier (PROTOCOL §1), found without following symlinks.

Shared by both scanners, `stats` and `export`: only ``*.md`` files of the
tiers, named by `memtier.workspace.tier_of`; nothing else under the root is read
(not ``memory/scripts``, not the search log, not temporary files). Inside a tier
folder a symlink is never followed, and is named in a warning; a tier file or
folder that is itself a symlink is used only if it resolves inside the root.

The tier table and every path of the layout stay in `memtier.workspace`; this
module only walks them.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from pathlib import Path

from memtier.workspace import TIER_PATHS, TIERS, inside_root, tier_of

_ARCHIVE_REL = TIER_PATHS["archive"][0]
_ARCHIVE_PREFIX = f"{_ARCHIVE_REL}/"


def search_paths(root: Path, tiers: tuple[str, ...], warnings: list[str]) -> list[str]:
    """The existing tier paths to scan; symlinks leading out of the root are dropped."""
    real_root = os.path.realpath(root)
    chosen: list[str] = []
    for tier in TIERS:
        if tier not in tiers:
            continue
        for rel in TIER_PATHS[tier]:
            full = root / rel
            if not os.path.lexists(full):
                continue
            linked = any(os.path.islink(root / p) for p in _prefixes(rel))
            if linked:
                try:
                    real = str(full.resolve(strict=True))
                except (OSError, RuntimeError) as exc:
                    loop = isinstance(exc, RuntimeError) or exc.errno == errno.ELOOP
                    reason = "symlink loop" if loop else "broken symlink"
                    warnings.append(f"skipped {rel}: {reason}")
                    continue
                if not inside_root(real_root, real):
                    warnings.append(f"skipped {rel}: symlink pointing outside the workspace")
                    continue
            chosen.append(rel)
    return chosen


def _prefixes(rel: str) -> Iterator[str]:
    parts = rel.split("/")
    for i in range(1, len(parts) + 1):
        yield "/".join(parts[:i])


def _symlink_warning(rel: str) -> str:
    return f"skipped {rel}: symlink (never followed inside a tier folder)"


def _worth_naming(rel: str) -> bool:
    """A skipped symlink is named if it would have been searched: a tier file, or a
    folder of the archive (the one tier with subfolders)."""
    return tier_of(rel) is not None or rel.startswith(_ARCHIVE_PREFIX)


def _walk(root: Path, rel: str, warnings: list[str]) -> Iterator[str]:
    """Files under *rel* without following symlinks below it (as ripgrep does)."""
    full = root / rel
    if not os.path.isdir(full):
        yield rel
        return
    try:
        entries = sorted(os.scandir(full), key=lambda e: e.name)
    except OSError as exc:
        warnings.append(f"skipped {rel}: cannot be read ({exc.strerror})")
        return
    for entry in entries:
        child = f"{rel}/{entry.name}"
        if entry.is_symlink():
            if _worth_naming(child):
                warnings.append(_symlink_warning(child))
            continue
        if entry.is_dir(follow_symlinks=False):
            yield from _walk(root, child, warnings)
        elif entry.is_file(follow_symlinks=False):
            yield child


def symlink_warnings(root: Path, paths: list[str], warnings: list[str]) -> None:
    """Name the symlinks ripgrep will pass over silently, as the Python walk does.

    Only the flat tier folders are listed (one ``scandir`` each, no ``stat``, kept
    while the folder is unchanged: see `symlinks_in`); under the archive the
    recursive walk is left to `_walk`.
    """
    for rel in paths:
        if rel == _ARCHIVE_REL:
            for _ in _walk(root, rel, warnings):
                pass
            continue
        for name in symlinks_in(f"{root}/{rel}"):
            child = f"{rel}/{name}"
            if _worth_naming(child):
                warnings.append(_symlink_warning(child))


# A folder's listing is kept only if the folder had last changed this long before it
# was listed: a change in the same tick of the file system's clock as the one the
# listing saw would leave the folder's times as they were (git's "racy" rule).
SETTLED_NS = 2_000_000_000
_MAX_KEPT = 64
# folder path -> (its stat key when listed, the names of its symlinks, sorted)
_kept: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {}


def _folder_key(info: os.stat_result) -> tuple[int, ...]:
    return (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_ctime_ns, info.st_size)


def symlinks_in(folder: str) -> tuple[str, ...]:
    """The names of the symlinks directly in *folder* (none if it is not a readable
    folder).

    A long-running process (the tool server) lists a folder of 10,000 notes once,
    not on every search: the answer is kept with the folder's stat key (device,
    inode, modification and change times in ns, size). Adding, removing or renaming
    an entry changes the folder's modification time, and a file edited in place
    cannot become a symlink or stop being one; so while the key is the same, so are
    the symlinks. A listing is kept only once the folder had been quiet for
    `SETTLED_NS` before it was read (see there); a one-shot command pays one
    ``stat`` more. (The file system's clock is read for that comparison only; no
    memory semantics depend on it.)
    """
    import time

    try:
        before = os.stat(folder)
    except OSError:
        return ()
    key = _folder_key(before)
    kept = _kept.get(folder)
    if kept is not None and kept[0] == key:
        return kept[1]
    started = time.time_ns()
    try:
        with os.scandir(folder) as entries:
            links = tuple(sorted(e.name for e in entries if e.is_symlink()))
    except OSError:  # not a folder (a single tier file), or unreadable: nothing listed
        return ()
    if max(before.st_mtime_ns, before.st_ctime_ns) < started - SETTLED_NS:
        if len(_kept) >= _MAX_KEPT:
            _kept.clear()
        _kept[folder] = (key, links)
    else:
        _kept.pop(folder, None)
    return links


def tier_files(root: Path, tiers: tuple[str, ...], warnings: list[str]) -> Iterator[str]:
    """Every file of the chosen tiers (root-relative), as both scanners see them."""
    for rel, _ in tier_file_pairs(root, tiers, warnings):
        yield rel


def tier_file_pairs(
    root: Path, tiers: tuple[str, ...], warnings: list[str]
) -> Iterator[tuple[str, str]]:
    """`tier_files`, each with its tier."""
    for top in search_paths(root, tiers, warnings):
        for rel in _walk(root, top, warnings):
            tier = tier_of(rel)
            if tier is not None:
                yield rel, tier
