"""Keeping the memory's repository small (PROTOCOL §14 v4 "Small and quiet").

After a sync that moved the branch (a commit, a fast-forward or a merge):

- git's own housekeeping, ``git gc --auto``, quiet and with hooks off like every
  git process of sync. Left to itself it never runs here: it counts loose
  objects, and a memory writes few but large ones. One commit that changes one
  note of two thousand writes a new tree of the episodic folder (about 90 KB);
  a few hundred rounds were tens of megabytes of loose objects long before git's
  threshold of 6,700 objects. So the loose objects' size is counted too (what
  ``git count-objects`` calls their size): past `LOOSE_BUDGET_KIB` they are
  packed (``git gc``), where one tree differs from the last by a few bytes.
  Both are read from the object folder, not asked of git: ``gc --auto`` starts
  only when git's own test, by its default thresholds (`gc_due`), finds work.
  Nearly every sync finds none, and two git processes are spared.
- the backup refs kept before the branch moved (``refs/memtier/backup/<time>-<oid>``)
  that are older than ``sync_keep_backups_days`` are deleted; the newest stays
  however old it is. Their age is read from their names, against the *now* the
  caller passed in: the core never reads the clock.
"""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from pathlib import Path

from memtier.commands.sync._git import BACKUP_REFS, BACKUP_STAMP
from memtier.gitrun import Git
from memtier.workspace import Workspace

LOOSE_BUDGET_KIB = 1024
# git's defaults for `gc --auto` (git-gc(1)): it finds work when the fan-out folder
# objects/17 holds more than gc.auto / 256 loose objects (git's sample of the
# whole, object names being evenly spread), or more than gc.autoPackLimit packs
# stand that no .keep file holds.
GIT_GC_AUTO = 6700
GIT_GC_AUTO_PACK_LIMIT = 50
_SAMPLE = "17"
_HEX = frozenset("0123456789abcdef")
_FAN_OUT = frozenset(f"{n:02x}" for n in range(256))
_NAME_LENGTHS = (38, 62)  # a loose object's file name: SHA-1 or SHA-256, less two digits
# Every git process of sync runs without hooks (§14 v4); gc's own is pre-auto-gc.
_QUIET = ("-c", "core.hooksPath=/dev/null", "-c", "gc.autoDetach=false")


def tidy_repository(ws: Workspace, git: Git) -> None:
    """The housekeeping after a sync that moved the branch (see the module's docstring)."""
    prune_backups(git, ws.now, ws.config.sync_keep_backups_days)
    pack_objects(git)


def pack_objects(git: Git) -> None:
    """``git gc`` once the loose objects pass the budget, else ``git gc --auto`` when
    git would find work (`gc_due`); no git process otherwise. A failed housekeeping
    fails nothing: the sync is done."""
    objects = git.git_dir / "objects"
    if loose_kib(objects) > LOOSE_BUDGET_KIB:
        git.run(*_QUIET, "gc", "--quiet", check=False)
    elif gc_due(objects):
        git.run(*_QUIET, "gc", "--quiet", "--auto", check=False)


def _loose_names(folder: Path) -> list[os.DirEntry[str]]:
    """The loose objects of one fan-out folder (none when it is missing)."""
    try:
        with os.scandir(folder) as entries:
            return [e for e in entries if len(e.name) in _NAME_LENGTHS and _HEX.issuperset(e.name)]
    except OSError:
        return []


def loose_kib(objects: Path) -> int:
    """The room the loose objects under *objects* take on disk, in KiB (what ``git
    count-objects -v`` reports as ``size``: allocated blocks, not file lengths)."""
    total = 0
    # The fan-out folders that stand (of 256 that may), from one listing: a memory's
    # repository of a few hundred objects since its last packing has a few dozen.
    try:
        with os.scandir(objects) as listed:
            folders = [e.path for e in listed if e.name in _FAN_OUT and e.is_dir()]
    except OSError:
        return 0
    for folder in folders:
        for entry in _loose_names(Path(folder)):
            try:
                total += entry.stat(follow_symlinks=False).st_blocks * 512
            except OSError:
                continue  # packed and pruned meanwhile
    return total // 1024


def gc_due(objects: Path) -> bool:
    """Whether ``git gc --auto`` would find work, by git's own test with its default
    thresholds: more than ``GIT_GC_AUTO / 256`` (rounded up) loose objects in
    ``objects/17``, or more than `GIT_GC_AUTO_PACK_LIMIT` packs not kept. A
    repository whose configuration lowers them is packed by the size budget, or
    when the defaults are reached."""
    if len(_loose_names(objects / _SAMPLE)) > -(-GIT_GC_AUTO // 256):
        return True
    try:
        names = set(os.listdir(objects / "pack"))
    except OSError:
        return False
    packs = [
        name
        for name in names
        if name.endswith(".idx")
        and name.removesuffix(".idx") + ".pack" in names
        and name.removesuffix(".idx") + ".keep" not in names
    ]
    return len(packs) > GIT_GC_AUTO_PACK_LIMIT


def stale_backups(names: list[str], now: datetime, keep_days: int) -> list[str]:
    """The backup refs among *names* (full ref names) to delete: older than
    *keep_days* before *now*, never the newest. A name that carries no time is
    not one memtier made, and is left alone."""
    dated: list[tuple[datetime, str]] = []
    for name in names:
        stamp = name.removeprefix(BACKUP_REFS).split("-", 1)[0]
        try:
            dated.append((datetime.strptime(stamp, BACKUP_STAMP), name))
        except ValueError:
            continue
    dated.sort()
    # The names carry the local time of the now that made them, without an offset.
    cutoff = now.replace(tzinfo=None) - timedelta(days=keep_days)
    return [name for when, name in dated[:-1] if when < cutoff]


def prune_backups(git: Git, now: datetime, keep_days: int) -> list[str]:
    """Delete the stale backup refs (`stale_backups`); the names deleted."""
    listed = git.run("for-each-ref", "--format=%(refname)", BACKUP_REFS, check=False)
    stale = stale_backups([n for n in listed.out.splitlines() if n], now, keep_days)
    if stale:
        git.run("update-ref", "--stdin", stdin="".join(f"delete {name}\n" for name in stale))
    return stale
