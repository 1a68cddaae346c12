"""The git steps sync is made of (PROTOCOL §14): lock, commit, backup, merge.

`merge_remote` computes a merge with ``git merge-tree --write-tree``, which never
touches the work tree or the index, so a crash (kill -9) during it changes
nothing; the work tree then moves to the merged commit as a fast-forward of a
clean tree. A crash in the middle of that leaves files of the merged commit under
the old head, which the next sync commits as local changes and merges again (the
drivers are unions, so nothing is lost or repeated).

Every tracked file has a driver that exits 0 (§14 v4), so a conflict merge-tree
still reports is a driver that died, and the merge runs again; what no driver
settles takes ours, theirs kept for a conflict block (`sync_moves`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memtier import store
from memtier.errors import LockTimeout, MemtierError, RefusedError, Term
from memtier.gitrun import Git
from memtier.store import FAULT_ENV_VAR, checkpoint
from memtier.workspace import HOST_LOCAL_FOLDERS, Workspace

EXIT_UNREACHABLE = 3
HEAD_COMMIT = "HEAD^{commit}"
BACKUP_REFS = "refs/memtier/backup/"
BACKUP_STAMP = "%Y%m%dT%H%M%S"  # in the name of a backup ref: when it was kept
# git's message about a remote it could not reach is given whole, within reason:
# a remote's server may say anything, at any length.
_MESSAGE_LIMIT = 4000
DRIVER_ATTEMPTS = 3  # a merge whose driver died runs again (§14 v4)


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


def commit_all(
    ws: Workspace, git: Git, subject: str, *, known_clean: bool = False, known_changed: bool = False
) -> bool:
    """Commit every change of the tracked memory; False when there was none.

    *known_clean*: a ``git status`` under the same workspace lock found no change
    (§14 v4: a sync with nothing to share stays small); *known_changed*: it found
    some, so the staged tree is not asked whether it differs. A host-local folder an older
    memtier tracked is untracked here (its files stay on disk: §14 v4, each host
    keeps its own shims)."""
    index = ws.sync_git_dir / "index"
    listed = index.read_bytes() if index.is_file() else b""
    untracked = False
    for folder in HOST_LOCAL_FOLDERS:
        if folder.encode() in listed:  # read, not asked: a sync with nothing new stays quick
            git.run("rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", folder)
            untracked = True
    if known_clean and not untracked and head_of(git) is not None:
        return False
    git.run("add", "-A", "--", ".")
    if not known_changed or head_of(git) is None:
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


def _write_witness(
    ws: Workspace, git: Git, folder: Path, head: str, theirs: str
) -> tuple[Path, dict[str, list[str]]]:
    """What each side's retirement log holds that the other's lacks, for the fact
    driver (§14 v4: a fact retired on one side stays retired): its file, and what
    it holds."""
    import json

    from memtier.commands.facts.files import RETIRED_LOG
    from memtier.commands.sync.driver import WITNESS

    def log(commit: str) -> list[str]:
        shown = git.run("show", f"{commit}:{RETIRED_LOG}", check=False)
        return shown.out.splitlines() if shown.ok else []

    ours, other = log(head), log(theirs)
    mine, seen = set(ours), set(other)
    body = {
        "ours": [x for x in ours if x not in seen],
        "theirs": [x for x in other if x not in mine],
    }
    path = folder / WITNESS
    store.write_text(path, json.dumps(body, ensure_ascii=False) + "\n", root=ws.root)
    return path, body


def _retired_stay_retired(
    ws: Workspace, git: Git, tree: str, head: str, theirs: str, gained: dict[str, list[str]]
) -> str:
    """*tree* with the fact files git merged without their driver merged by identity
    (`_retired`: a retirement on a side that left the file as it was)."""
    from memtier.commands.sync._moves import edited_tree
    from memtier.commands.sync._retired import retirement_edits

    edits = retirement_edits(git, head, theirs, gained)
    if not edits:
        return tree
    blobs: dict[str, str | None] = {
        path: git.run("hash-object", "-w", "--stdin", stdin=text).out.strip()
        for path, text in edits.items()
    }
    return edited_tree(ws, git, tree, blobs)


def _merge_tree(
    git: Git, head: str, theirs: str, folder: Path, earlier: set[Path], unrelated: bool
) -> tuple[str, dict[str, dict[str, str]]]:
    """``git merge-tree`` of *head* and *theirs*: the tree and its conflicted paths.

    Every tracked file has a driver that never fails, so a path both sides
    changed that is still in conflict means a driver died (killed, out of
    memory): the merge runs again, up to `DRIVER_ATTEMPTS` times, before anything
    is reported (§14 v4). A failed attempt's records go with it."""
    from memtier.commands.sync._moves import conflicted_stages

    git.version()  # merge-tree --write-tree is the one step that needs a recent git
    args = ["merge-tree", "--write-tree", "-z", "--no-messages"]
    if unrelated:
        args.append("--allow-unrelated-histories")
    env = {"MEMTIER_SYNC_CONFLICTS": str(folder)}
    for attempt in range(1, DRIVER_ATTEMPTS + 1):
        result = git.run(*args, head, theirs, check=False, extra_env=env)
        if result.code not in (0, 1):
            raise RefusedError(f"git merge-tree failed: {result.err.strip()[-200:]}")
        tree, *entries = result.out.split("\0")
        stages = conflicted_stages(entries) if result.code == 1 else {}
        died = any({"2", "3"} <= set(found) for found in stages.values())
        if not died or attempt == DRIVER_ATTEMPTS:
            return tree, stages
        for record in _records(folder) - earlier:
            record.unlink()
        # The retry's drivers are new processes: a crash test's one kill is spent.
        env[FAULT_ENV_VAR] = ""
    raise AssertionError("unreachable")  # pragma: no cover


def _without_host_local(ws: Workspace, git: Git, tree: str) -> str:
    """*tree* (a tree, or a commit for its tree) less the host-local folders theirs
    may still track (an older memtier's push): moving the work tree to it must never
    write another host's shims here. *tree* itself when it holds none of them."""
    from memtier.commands.sync._moves import edited_tree

    listed = git.run("ls-tree", "-r", "--name-only", "-z", tree, "--", *HOST_LOCAL_FOLDERS).out
    names = [name for name in listed.split("\0") if name]
    if not names:
        return tree
    return edited_tree(ws, git, tree, dict.fromkeys(names))


def merge_remote(
    ws: Workspace,
    git: Git,
    remote_ref: str,
    *,
    unrelated: bool = False,
    known: tuple[bool, bool] | None = None,
) -> str:
    """Bring *remote_ref* into HEAD: ``fast-forward``, ``merged`` or ``up-to-date``.

    The merge runs in git's object store only (merge-tree); the work tree moves
    once the merged commit exists. Called under the workspace lock, the tree clean.
    *known*: what a ``git status`` under the same lock told of the two commits
    (theirs is in HEAD's history, HEAD is in theirs'), so that git is not asked again.
    """
    head = head_of(git)
    theirs = git.resolve(remote_ref)
    if theirs is None:
        raise RefusedError(f"git rev-parse failed: {remote_ref} names no commit")
    if head is not None and theirs == head:
        return "up-to-date"
    if head is not None and (known[0] if known else _is_ancestor(git, theirs, head)):
        return "up-to-date"
    from memtier.commands.sync._trust import check_incoming

    check_incoming(git, head, theirs, related=not unrelated)  # (v4) before anything moves
    backup_head(ws, git)
    if head is None or (known[1] if known else _is_ancestor(git, head, theirs)):
        kept = _without_host_local(ws, git, theirs)
        if kept != theirs:  # an older memtier pushed its shims: never written here
            message = "memtier sync: host-local files untracked" + _trailer(ws)
            theirs = git.run("commit-tree", kept, "-p", theirs, "-F", "-", stdin=message).out
        git.run("merge", "-q", "--ff-only", theirs.strip())
        git.remember(HEAD_COMMIT, theirs.strip())
        return "fast-forward"
    conflicts_dir = ws.sync_dir / "conflicts"
    store.make_dirs(conflicts_dir, root=ws.root)
    earlier = _records(conflicts_dir)
    witness, gained = _write_witness(ws, git, conflicts_dir, head, theirs)
    try:
        tree, stages = _merge_tree(git, head, theirs, conflicts_dir, earlier, unrelated)
    finally:
        os.unlink(witness)  # sync's own residue under memory/.sync, not a memory file
    if gained["ours"] or gained["theirs"]:
        tree = _retired_stay_retired(ws, git, tree, head, theirs, gained)
    if stages:
        from memtier.commands.sync._moves import keep_ours_whole, settle_archive_moves

        tree, left = settle_archive_moves(ws, git, tree, stages, {"2": head, "3": theirs})
        if left:
            # §14 v4: a file no driver could merge takes ours; theirs goes into a
            # conflict block. Never a sync that stays refused.
            tree = keep_ours_whole(ws, git, tree, {p: stages[p] for p in left}, conflicts_dir)
    tree = _without_host_local(ws, git, tree)
    checkpoint("sync.merge-tree")
    message = "memtier sync: merge" + _trailer(ws)
    commit = git.run("commit-tree", tree, "-p", head, "-p", theirs, "-F", "-", stdin=message)
    checkpoint("sync.merge-committed")
    git.run("merge", "-q", "--ff-only", commit.out.strip())
    git.remember(HEAD_COMMIT, commit.out.strip())
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
