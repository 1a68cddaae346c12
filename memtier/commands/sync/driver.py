"""The merge drivers git calls during a sync (PROTOCOL §14).

`run_merge_driver` is ``memtier merge-driver note|fact|lines|generation %O %A %B
%P``: it merges the three versions (`memtier.formats.merge`), writes the result
over ``%A`` and exits 0, so git never leaves a marker. A line both sides changed
differently keeps ours and is recorded as a JSON file in the conflicts folder
sync names (``memory/.sync/conflicts``), for `memtier.commands.sync._conflicts`
to write into today's note.

A generation (``memory/consolidated/*``) is never merged: it is immutable, and a
name two hosts wrote differently keeps both (§14). The ``generation`` driver
leaves one version under the name (the one whose bytes sort first, so every host
that merges the pair decides alike) and records the other (``g-….json``).

git starts a driver once for every file both hosts changed, so this module
imports little: the store (its lock, the secrets rules) only to write a record.
``%A`` is git's own temporary file: written in place, as git reads it back only
after the driver exits 0. (v4) Git makes its three temporary files in the work
tree's top folder, the workspace; `confine` refuses (exit 2, nothing written) any
of the three that is elsewhere, not a regular file, or (``%A``) a symlink.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

from memtier.errors import InputError
from memtier.formats.merge import Merged, merge_fact, merge_lines, merge_note
from memtier.store import checkpoint

KINDS = {"note": merge_note, "fact": merge_fact, "lines": merge_lines}
GENERATION = "generation"
# The records a merge's drivers leave in the conflicts folder: lines (s-), generations (g-).
RECORDS = ("s-*.json", "g-*.json")


def _record(conflicts_dir: Path, name: str, body: str) -> None:
    from memtier import store  # durable: the record is all sync learns of the conflict

    store.write_text(conflicts_dir / name, body + "\n", root=conflicts_dir)


def _read(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", "surrogateescape").replace("\r\n", "\n")
    except FileNotFoundError:
        return ""


def confine(root: Path, base: Path, ours: Path, theirs: Path) -> None:
    """(v4) The three files must lie in the workspace *root* (symlinks followed) and be
    regular files; *ours*, which is written, no symlink. Else exit 2, nothing written."""
    from memtier.workspace import inside_root, printable_name

    real_root = os.path.realpath(root)
    for path in (base, ours, theirs):
        shown = printable_name(str(path))
        if not inside_root(real_root, os.path.realpath(path)):
            raise InputError(f"merge-driver: {shown} is outside the workspace; nothing written")
        try:
            mode = os.lstat(path).st_mode if path == ours else os.stat(path).st_mode
        except FileNotFoundError:
            if path == ours:
                raise InputError(f"merge-driver: {shown} does not exist") from None
            continue  # read as empty, as git's missing side
        except OSError as exc:
            raise InputError(f"merge-driver: {shown} cannot be read ({exc.strerror})") from None
        if not stat.S_ISREG(mode):
            raise InputError(f"merge-driver: {shown} is not a regular file; nothing written")


def run_merge_driver(
    kind: str,
    base: Path,
    ours: Path,
    theirs: Path,
    shown: str,
    conflicts_dir: Path | None,
    root: Path | None = None,
) -> int:
    """Merge *ours* with *theirs* over *base* into *ours*; 0 (git: merged cleanly).
    With a workspace *root* (the command line's), the three files are `confine`d to it."""
    if root is not None:
        confine(root, base, ours, theirs)
    if kind == GENERATION:
        return _keep_both(ours, theirs, shown, conflicts_dir)
    merge = KINDS.get(kind)
    if merge is None:
        raise InputError(
            f"unknown merge driver {kind!r} (expected note, fact, lines or {GENERATION})"
        )
    result: Merged = merge(_read(base), _read(ours), _read(theirs))
    checkpoint("sync.driver-merged")
    ours.write_bytes(result.text.encode("utf-8", "surrogateescape"))
    if result.conflicts and conflicts_dir is not None and conflicts_dir.is_dir():
        for conflict in result.conflicts:
            record = {
                "path": shown,
                "line": conflict.line,
                "ours": list(conflict.ours),
                "theirs": list(conflict.theirs),
                "base": list(conflict.base),
            }
            body = json.dumps(record, ensure_ascii=False, sort_keys=True)
            sid = "s-" + hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()[:8]
            _record(conflicts_dir, f"{sid}.json", body)
    return 0


def _keep_both(ours: Path, theirs: Path, shown: str, conflicts_dir: Path | None) -> int:
    """§14: a colliding generation name keeps both. The version whose bytes sort
    first stays under the name; the other is recorded (before *ours* changes, so a
    crash loses neither) for `keep_generations` to write beside it."""
    mine, other = ours.read_bytes(), theirs.read_bytes() if theirs.is_file() else b""
    if not other or other == mine:
        return 0
    if conflicts_dir is None or not conflicts_dir.is_dir():
        return 1  # nowhere to keep the other one: let git report the conflict
    kept, moved = sorted((mine, other))
    record = {"path": shown, "text": moved.decode("utf-8", "surrogateescape")}
    body = json.dumps(record, ensure_ascii=False, sort_keys=True)
    gid = "g-" + hashlib.sha256(moved).hexdigest()[:8]
    _record(conflicts_dir, f"{gid}.json", body)
    if kept != mine:
        ours.write_bytes(kept)
    checkpoint("sync.driver-merged")
    return 0
