"""Which files each tier holds (PROTOCOL §1), found without following symlinks.

Shared by both scanners, `stats` and anything else that walks the memory: only
``*.md`` files of the tiers, named by `tier_of`; nothing else under the root is
read (not ``memory/scripts``, not the search log, not temporary files). Inside
a tier folder a symlink is never followed, and is named in a warning; a tier
file or folder that is itself a symlink is used only if it resolves inside the
root.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from pathlib import Path

from memtier.workspace import TIER_PATHS, TIERS, inside_root, tier_of

# The tier table and `tier_of` live in `memtier.workspace`; re-exported for the scanners.
TIER_ORDER = TIERS
__all__ = [
    "TIER_ORDER",
    "search_paths",
    "symlink_warnings",
    "tier_file_pairs",
    "tier_files",
    "tier_of",
]


def search_paths(root: Path, tiers: tuple[str, ...], warnings: list[str]) -> list[str]:
    """The existing tier paths to scan; symlinks leading out of the root are dropped."""
    real_root = os.path.realpath(root)
    chosen: list[str] = []
    for tier in TIER_ORDER:
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
    return tier_of(rel) is not None or rel.startswith("memory/archive/")


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

    Only the flat tier folders are listed (one ``scandir`` each, no ``stat``);
    under the archive the recursive walk is left to `_walk`.
    """
    for rel in paths:
        if rel == "memory/archive":
            for _ in _walk(root, rel, warnings):
                pass
            continue
        try:
            with os.scandir(root / rel) as entries:
                links = sorted(e.name for e in entries if e.is_symlink())
        except NotADirectoryError:
            continue
        except OSError:
            continue
        for name in links:
            child = f"{rel}/{name}"
            if _worth_naming(child):
                warnings.append(_symlink_warning(child))


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
