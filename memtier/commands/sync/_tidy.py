"""Keeping the memory's repository small (PROTOCOL §14 v4 "Small and quiet").

After a sync that moved the branch (a commit, a fast-forward or a merge):

- git's own housekeeping, ``git gc --auto``, quiet and with hooks off like every
  git process of sync. Left to itself it never runs here: it counts loose
  objects, and a memory writes few but large ones. One commit that changes one
  note of two thousand writes a new tree of the episodic folder (about 90 KB);
  a few hundred rounds were tens of megabytes of loose objects long before git's
  threshold of 6,700 objects. So the loose objects' size is counted too
  (``git count-objects``): past `LOOSE_BUDGET_KIB` they are packed (``git gc``),
  where one tree differs from the last by a few bytes.
- the backup refs kept before the branch moved (``refs/memtier/backup/<time>-<oid>``)
  that are older than ``sync_keep_backups_days`` are deleted; the newest stays
  however old it is. Their age is read from their names, against the *now* the
  caller passed in: the core never reads the clock.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from memtier.commands.sync._git import BACKUP_REFS, BACKUP_STAMP
from memtier.gitrun import Git
from memtier.workspace import Workspace

LOOSE_BUDGET_KIB = 1024
# Every git process of sync runs without hooks (§14 v4); gc's own is pre-auto-gc.
_QUIET = ("-c", "core.hooksPath=/dev/null", "-c", "gc.autoDetach=false")


def tidy_repository(ws: Workspace, git: Git) -> None:
    """The housekeeping after a sync that moved the branch (see the module's docstring)."""
    prune_backups(git, ws.now, ws.config.sync_keep_backups_days)
    pack_objects(git)


def pack_objects(git: Git) -> None:
    """``git gc --auto``, or ``git gc`` once the loose objects pass the budget.
    A failed housekeeping fails nothing: the sync is done."""
    counted = git.run("count-objects", "-v", check=False)
    loose_kib = 0
    for line in counted.out.splitlines():
        name, _sep, value = line.partition(": ")
        if name == "size" and value.strip().isdigit():
            loose_kib = int(value)
    full = loose_kib > LOOSE_BUDGET_KIB
    git.run(*_QUIET, "gc", "--quiet", *(() if full else ("--auto",)), check=False)


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
