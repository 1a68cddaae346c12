"""The merge drivers git calls during a sync (PROTOCOL §14).

`run_merge_driver` is ``memtier merge-driver note|fact|lines|index|text|generation
%O %A %B %P``: it merges the three versions (`memtier.formats.merge`), writes the result
over ``%A`` and exits 0, so git never leaves a marker. A line both sides changed
differently keeps ours and is recorded as a JSON file in the conflicts folder
sync names (``memory/.sync/conflicts``), for `memtier.commands.sync._conflicts`
to write into today's note.

A generation (``memory/consolidated/*``) is never merged: it is immutable, and a
name two hosts wrote differently keeps both (§14). The ``generation`` driver
leaves one version under the name (the one whose bytes sort first, so every host
that merges the pair decides alike) and records the other (``g-….json``).

git starts a driver once for every file both hosts changed, so this module
imports little: each kind's merge when that kind runs, json and hashlib only to
read the witness or write a record, the secrets rules only to name a refused path.
``%A`` is git's own temporary file: written in place, as git reads it back only
after the driver exits 0. (v4) Git makes its three temporary files in the work
tree's top folder, the workspace; `confine` refuses (exit 2, nothing written) any
of the three that is elsewhere, not a regular file, or (``%A``) a symlink.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING

from memtier.errors import InputError
from memtier.store import checkpoint

if TYPE_CHECKING:
    from memtier.formats.fact_merge import Retirements
    from memtier.formats.merge import Conflict, Merged

# kind -> (module, function): the one merge a driver process needs is the one imported.
KINDS: dict[str, tuple[str, str]] = {
    "note": ("memtier.formats.merge", "merge_note"),
    "fact": ("memtier.formats.fact_merge", "merge_facts"),
    "lines": ("memtier.formats.merge", "merge_lines"),
    "index": ("memtier.formats.index_merge", "merge_index"),
    "text": ("memtier.formats.merge", "merge_text"),
}
GENERATION = "generation"
# The records a merge's drivers leave in the conflicts folder: lines (s-), generations (g-).
RECORDS = ("s-*.json", "g-*.json")
# What each side's retirement log gained since the sides parted, written by sync
# before a merge for the fact driver (§14 v4: retired.md is the witness).
WITNESS = "retired.json"
HOT_FILE = "MEMORY.md"


def _record(conflicts_dir: Path, name: str, body: str) -> None:
    from memtier import store  # durable: the record is all sync learns of the conflict

    store.write_text(conflicts_dir / name, body + "\n", root=conflicts_dir)


def _read(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", "surrogateescape").replace("\r\n", "\n")
    except FileNotFoundError:
        return ""


def merge_of(kind: str) -> Callable[..., Merged]:
    """The merge of *kind* (a key of `KINDS`), imported now."""
    module, name = KINDS[kind]
    found: Callable[..., Merged] = getattr(import_module(module), name)
    return found


def _refused(path: Path, why: str) -> InputError:
    from memtier.workspace import printable_name  # the secrets rules: only when refused

    return InputError(f"merge-driver: {printable_name(str(path))} {why}")


def confine(root: Path, base: Path, ours: Path, theirs: Path) -> None:
    """(v4) The three files must lie in the workspace *root* (symlinks followed) and be
    regular files; *ours*, which is written, no symlink. Else exit 2, nothing written."""
    from memtier.workspace import inside_root

    real_root = os.path.realpath(root)
    for path in (base, ours, theirs):
        if not inside_root(real_root, os.path.realpath(path)):
            raise _refused(path, "is outside the workspace; nothing written")
        try:
            mode = os.lstat(path).st_mode if path == ours else os.stat(path).st_mode
        except FileNotFoundError:
            if path == ours:
                raise _refused(path, "does not exist") from None
            continue  # read as empty, as git's missing side
        except OSError as exc:
            raise _refused(path, f"cannot be read ({exc.strerror})") from None
        if not stat.S_ISREG(mode):
            raise _refused(path, "is not a regular file; nothing written")


def fact_header_lines(path: str) -> int:
    """The lines above a fact file's facts (§10): MEMORY.md's title, note and two
    dates; a WARM file's title, tags and date."""
    return 4 if path == HOT_FILE else 3


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
    where = KINDS.get(kind)
    if where is None:
        raise InputError(
            f"unknown merge driver {kind!r} (expected {', '.join(KINDS)} or {GENERATION})"
        )
    merge = merge_of(kind)
    texts = (_read(base), _read(ours), _read(theirs))
    result: Merged
    if kind == "fact":
        ours_gone, theirs_gone = _witness(conflicts_dir, shown)
        header = fact_header_lines(shown)
        result = merge(*texts, header_lines=header, ours_gone=ours_gone, theirs_gone=theirs_gone)
    else:
        result = merge(*texts)
    checkpoint("sync.driver-merged")
    ours.write_bytes(result.text.encode("utf-8", "surrogateescape"))
    if result.conflicts and conflicts_dir is not None and conflicts_dir.is_dir():
        whole = kind == "text"
        for conflict in result.conflicts:
            record_conflict(conflicts_dir, shown, conflict, whole=whole)
    return 0


def record_conflict(conflicts_dir: Path, shown: str, conflict: Conflict, *, whole: bool) -> str:
    """One conflict as ``s-<hash>.json`` for sync to write into today's note; its id.
    *whole*: the file could not be merged and took ours; theirs is kept in the record."""
    import hashlib
    import json

    record: dict[str, object] = {
        "path": shown,
        "line": conflict.line,
        "ours": list(conflict.ours),
        "theirs": list(conflict.theirs),
        "base": list(conflict.base),
    }
    if whole:
        record["whole"] = True
    body = json.dumps(record, ensure_ascii=False, sort_keys=True)
    sid = "s-" + hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    _record(conflicts_dir, f"{sid}.json", body)
    return sid


def _witness(conflicts_dir: Path | None, shown: str) -> tuple[Retirements, Retirements]:
    """The retirements each side's log gained for *shown* (none when sync wrote none)."""
    from memtier.formats.fact_merge import Retirements, retirements

    try:
        if conflicts_dir is None:
            raise FileNotFoundError(WITNESS)
        text = (conflicts_dir / WITNESS).read_text(encoding="utf-8")
    except OSError:
        return Retirements(), Retirements()
    import json  # a witness to read: sync wrote one before this merge

    try:
        found = json.loads(text)
        ours, theirs = list(found["ours"]), list(found["theirs"])
    except (ValueError, KeyError, TypeError):
        return Retirements(), Retirements()
    return retirements(ours, shown), retirements(theirs, shown)


def _keep_both(ours: Path, theirs: Path, shown: str, conflicts_dir: Path | None) -> int:
    """§14: a colliding generation name keeps both. The version whose bytes sort
    first stays under the name; the other is recorded (before *ours* changes, so a
    crash loses neither) for `keep_generations` to write beside it."""
    mine, other = ours.read_bytes(), theirs.read_bytes() if theirs.is_file() else b""
    if not other or other == mine:
        return 0
    if conflicts_dir is None or not conflicts_dir.is_dir():
        return 1  # nowhere to keep the other one: let git report the conflict
    import hashlib
    import json

    kept, moved = sorted((mine, other))
    record = {"path": shown, "text": moved.decode("utf-8", "surrogateescape")}
    body = json.dumps(record, ensure_ascii=False, sort_keys=True)
    gid = "g-" + hashlib.sha256(moved).hexdigest()[:8]
    _record(conflicts_dir, f"{gid}.json", body)
    if kept != mine:
        ours.write_bytes(kept)
    checkpoint("sync.driver-merged")
    return 0
