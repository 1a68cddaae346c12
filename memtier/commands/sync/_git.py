"""The git steps sync is made of (PROTOCOL §14): lock, commit, backup, merge.

`merge_remote` computes a merge with ``git merge-tree --write-tree``, which never
touches the work tree or the index, so a crash (kill -9) during it changes
nothing; the work tree then moves to the merged commit as a fast-forward of a
clean tree. A crash in the middle of that leaves files of the merged commit under
the old head, which the next sync commits as local changes and merges again (the
drivers are unions, so nothing is lost or repeated).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memtier import store
from memtier.errors import LockTimeout, MemtierError, RefusedError, Term
from memtier.gitrun import Git
from memtier.store import checkpoint
from memtier.workspace import Workspace

EXIT_UNREACHABLE = 3
HEAD_COMMIT = "HEAD^{commit}"
BACKUP_REFS = "refs/memtier/backup/"
BACKUP_STAMP = "%Y%m%dT%H%M%S"  # in the name of a backup ref: when it was kept
# git's message about a remote it could not reach is given whole, within reason:
# a remote's server may say anything, at any length.
_MESSAGE_LIMIT = 4000


class RemoteUnreachable(MemtierError):
    """The remote could not be reached; the work stays committed locally (exit 3)."""

    exit_code = EXIT_UNREACHABLE


class SyncConflict(RefusedError):
    """A conflict git could not settle with the drivers, or a marker remains (exit 1)."""


@contextmanager
def sync_lock(ws: Workspace) -> Iterator[None]:
    """The sync lock ``memory/.sync/sync.lock``, taken without waiting."""
    store.make_dirs(ws.sync_dir, root=ws.root)
    try:
        with store.workspace_lock(ws.sync_dir / "sync.lock", timeout=0):
            yield
    except LockTimeout:
        raise RefusedError("another sync is running in this workspace") from None


def refuse_open_rotation(ws: Workspace) -> None:
    """§14: nothing of sync runs while a rotation's ``.pending`` or ``.lock`` stands.

    Its recovery recognises the rotation by the snapshot's id, which the host id
    salts once sync is set up: `sync init` between a crash and its recovery would
    change the id and the recovery would append the buffer a second time.

    A rotation holds the workspace lock from its marker's creation to its removal
    (§5): a marker whose lock another process holds is a rotation at work, a
    passing state (§14 v4: busy, try again); one whose lock is free is a crash's
    residue, which session-start repairs."""
    markers = (ws.buffer_pending, ws.buffer_lock)
    if not any(marker.exists() for marker in markers):
        return
    try:
        with store.workspace_lock(ws.lock_file, timeout=0):
            left = [marker for marker in markers if marker.exists()]
    except LockTimeout:
        raise RefusedError("busy: a rotation is running; try again") from None
    for marker in left:
        if marker.exists():
            raise RefusedError(
                (
                    f"{ws.relative(marker)} present: a rotation is running or crashed; run ",
                    Term("session-start"),
                    " first",
                )
            )


def _trailer(ws: Workspace) -> str:
    return f"\n\nMemtier-Host: {ws.host_id or 'unknown'}\n"


def commit_all(ws: Workspace, git: Git, subject: str, *, known_clean: bool = False) -> bool:
    """Commit every change of the tracked memory; False when there was none.

    *known_clean*: a ``git status`` under the same workspace lock found no change
    (§14 v4: a sync with nothing to share stays small)."""
    if known_clean and head_of(git) is not None:
        return False
    git.run("add", "-A", "--", ".")
    clean = git.run("diff", "--cached", "--quiet", check=False).ok
    if clean and head_of(git) is not None:
        return False
    git.run("commit", "-q", "--no-verify", "--allow-empty", "-F", "-", stdin=subject + _trailer(ws))
    checkpoint("sync.committed")
    return True


def head_of(git: Git) -> str | None:
    return git.resolve(HEAD_COMMIT)


def _is_ancestor(git: Git, older: str, newer: str) -> bool:
    return git.run("merge-base", "--is-ancestor", older, newer, check=False).ok


def backup_head(ws: Workspace, git: Git) -> str | None:
    """Keep the current head as ``refs/memtier/backup/<time>-<oid>`` before it moves."""
    head = head_of(git)
    if head is None:
        return None
    ref = f"{BACKUP_REFS}{ws.now.strftime(BACKUP_STAMP)}-{head[:8]}"
    git.run("update-ref", ref, head)
    return ref


def _records(conflicts_dir: Path) -> set[Path]:
    from memtier.commands.sync.driver import RECORDS

    return {path for pattern in RECORDS for path in conflicts_dir.glob(pattern)}


def merge_remote(ws: Workspace, git: Git, remote_ref: str, *, unrelated: bool = False) -> str:
    """Bring *remote_ref* into HEAD: ``fast-forward``, ``merged`` or ``up-to-date``.

    The merge runs in git's object store only (merge-tree); the work tree moves
    once the merged commit exists. Called under the workspace lock, the tree clean.
    """
    head = head_of(git)
    theirs = git.resolve(remote_ref)
    if theirs is None:
        raise RefusedError(f"git rev-parse failed: {remote_ref} names no commit")
    if head is not None and (theirs == head or _is_ancestor(git, theirs, head)):
        return "up-to-date"
    from memtier.commands.sync._trust import check_incoming

    check_incoming(git, head, theirs, related=not unrelated)  # (v4) before anything moves
    backup_head(ws, git)
    if head is None or _is_ancestor(git, head, theirs):
        git.run("merge", "-q", "--ff-only", theirs)
        return "fast-forward"
    conflicts_dir = ws.sync_dir / "conflicts"
    store.make_dirs(conflicts_dir, root=ws.root)
    earlier = _records(conflicts_dir)
    git.version()  # merge-tree --write-tree is the one step that needs a recent git
    args = ["merge-tree", "--write-tree", "-z", "--no-messages"]
    if unrelated:
        args.append("--allow-unrelated-histories")
    result = git.run(
        *args,
        head,
        theirs,
        check=False,
        extra_env={"MEMTIER_SYNC_CONFLICTS": str(conflicts_dir)},
    )
    if result.code not in (0, 1):
        raise RefusedError(f"git merge-tree failed: {result.err.strip()[-200:]}")
    tree, *entries = result.out.split("\0")
    if result.code == 1:
        from memtier.commands.sync._moves import conflicted_stages, settle_archive_moves

        stages = conflicted_stages(entries)
        tree, left = settle_archive_moves(ws, git, tree, stages, {"2": head, "3": theirs})
        if left or not stages:
            # Nothing was merged: the records this attempt's drivers wrote go with it.
            for record in _records(conflicts_dir) - earlier:
                record.unlink()
            raise SyncConflict(
                (
                    f"git could not merge {', '.join(sorted(left)[:5]) or 'the two heads'} "
                    "(nothing was changed; settle it in one workspace with git, then run ",
                    Term("sync"),
                    ")",
                )
            )
    checkpoint("sync.merge-tree")
    message = "memtier sync: merge" + _trailer(ws)
    commit = git.run("commit-tree", tree, "-p", head, "-p", theirs, "-F", "-", stdin=message)
    checkpoint("sync.merge-committed")
    git.run("merge", "-q", "--ff-only", commit.out.strip())
    checkpoint("sync.merged")
    return "merged"


def unreachable_message(git: Git, remote: str, err: str) -> str:
    """An unreachable remote, told by its name and address and git's whole message
    (§14 v4), folded to one line and redacted: an address may carry a credential."""
    from memtier.secrets import redact_folded

    address = git.run("remote", "get-url", remote, check=False).out.strip() or "no address"
    said = " ".join(line.strip() for line in err.splitlines() if line.strip()) or "no answer"
    if len(said) > _MESSAGE_LIMIT:
        said = said[:_MESSAGE_LIMIT] + " …"
    return redact_folded(f"the remote {remote} ({address}) could not be reached: {said}").text
