"""`memtier sync`: one round of PROTOCOL §14 through git.

The steps, in order: take the sync lock without waiting (busy: refused); refuse
while a rotation's ``.pending``/``.lock`` stands or a merge driver is missing
from the repository's config; fetch *without* the workspace lock; then under it
read the work tree's state (one ``git status``, `memtier.commands.sync._state`),
refuse when the ``secrets`` check fails on what would leave, commit this host's
changes (trailer ``Memtier-Host: <id>``), fast-forward or merge (never rebase,
never force), write each conflict the drivers reported as a block of today's
note, check for markers, and push. A sync that moved the branch ends with the
repository's housekeeping (`memtier.commands.sync._tidy`). A push that is not a
fast-forward starts again from the fetch, at most `MAX_ROUNDS` times. Before
anything moves the branch the old head is kept as ``refs/memtier/backup/<time>``.

The merge is computed by ``git merge-tree --write-tree``, which never touches the
work tree or the index: a crash (kill -9) during it changes nothing. The work tree
then moves to the merged commit as a fast-forward of a clean tree; a crash in the
middle of that leaves files of the merged commit under the old head, which the
next sync commits as local changes and merges again (the drivers are unions, so
nothing is lost or repeated).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memtier import store
from memtier.commands.sync._git import (
    RemoteUnreachable,
    SyncConflict,
    commit_all,
    head_of,
    merge_remote,
    refuse_open_rotation,
    sync_lock,
    unreachable_message,
)
from memtier.errors import MemtierError, RefusedError, Term
from memtier.gitrun import REMOTE_TIMEOUT, Git
from memtier.results import Result, fixed
from memtier.store import checkpoint
from memtier.values import Fields
from memtier.workspace import Workspace

MAX_ROUNDS = 5
# The opening and closing markers only: a line of seven `=` is also a markdown heading rule.
MARKERS = ("<<<<<<< ", ">>>>>>> ")


class SyncReport(Result, Fields):
    state: str  # "in-sync", "committed-locally", "conflict", "dry-run"
    merged: tuple[str, ...] = ()  # how each round brought the remote in
    committed: int = 0
    rounds: int = 0
    conflicts: tuple[str, ...] = ()  # the s- ids recorded in today's note
    message: str = ""
    notices: tuple[str, ...] = ()
    failure: MemtierError | None = None

    JSON_NAMES = fixed(message="text")
    JSON_OMIT = frozenset({"notices", "failure"})

    def json_extra(self) -> Mapping[str, Any]:
        return {"ok": self.failure is None}

    def text_lines(self) -> list[str]:
        return [self.message] if self.message else []


def _refusals(ws: Workspace, git: Git) -> None:
    from memtier.commands.sync.setup import missing_drivers

    refuse_open_rotation(ws)
    missing = missing_drivers(git)
    if missing:
        raise RefusedError(
            (
                "merge driver(s) missing from the sync repository's config: "
                f"{', '.join(missing)} (git would fall back to a text merge; set them again: ",
                Term("sync_init"),
                ")",
            )
        )


def _refuse_credential(
    ws: Workspace, git: Git, remote_ref: str, outgoing: tuple[str, ...] | None = None
) -> None:
    """The ``secrets`` check on what leaves this host (§14 v4: every file, the archive
    included, and each file's name). *outgoing*: those files, when a ``git status``
    already told them; ``()`` is nothing to share, and no scanner is loaded."""
    if outgoing == ():
        return
    from memtier.commands.sync._trust import outgoing_credential

    found = outgoing_credential(ws, git, remote_ref, outgoing)
    if found:
        raise RefusedError(f"a credential stands in {found}; nothing is shared until it goes")


def _rebuild_index(ws: Workspace, merged: list[str]) -> bool:
    """§14: INDEX.md merges as a union of entries, then is rebuilt from the merged
    notes (§13)."""
    if not merged or merged[-1] == "up-to-date" or not ws.index_file.is_file():
        return False
    from memtier.commands.topics.index import index_rebuild

    try:
        return index_rebuild(ws).changed
    except MemtierError:
        return False  # an index that does not parse is health-check's to report


def _clear_stale_locks(ws: Workspace) -> None:
    # Under the sync lock no git of ours runs here: an index.lock is a crash's residue.
    stale = ws.sync_git_dir / "index.lock"
    if stale.exists():
        stale.unlink()


def _markers(ws: Workspace, git: Git, since: str | None) -> list[str]:
    """What stops a push in the tracked files changed since *since*: a conflict
    marker, or (v4) a note's second closure block, a text merge's damage that
    ``episodic.closure.unique`` fails (``<what> in <file>:<line>``)."""
    if since is None or since == head_of(git):
        return []  # nothing came in, nothing changed: HEAD is where it was
    from memtier.health.sync import stray_closures

    names = git.run("diff", "--name-only", "-z", since, "HEAD").out.split("\0")
    found: list[str] = []
    for name in filter(None, names):
        path = ws.root / name
        if not path.is_file() or path.is_symlink():
            continue
        data = path.read_bytes()
        text = data.decode("utf-8", "replace")
        for number, line in enumerate(text.split("\n"), start=1):
            if line.startswith(MARKERS):
                found.append(f"conflict marker in {name}:{number}")
        if name.endswith(".md") and name.startswith(("memory/episodic/", "memory/archive/")):
            found.extend(f"a second closure block in {name}:{n}" for n in stray_closures(data)[:1])
    return found


def run_sync(
    ws: Workspace, env: Mapping[str, str], *, push: bool = True, dry_run: bool = False
) -> SyncReport:
    """One sync of PROTOCOL §14 (see the module's docstring for the steps), then
    the repository's housekeeping when the branch moved (§14 v4: small)."""
    report = _sync_rounds(ws, env, push=push, dry_run=dry_run)
    moved = report.committed or any(m in ("fast-forward", "merged") for m in report.merged)
    if moved:
        from memtier.commands.sync._tidy import tidy_repository
        from memtier.commands.sync.setup import repository

        try:
            with sync_lock(ws):
                tidy_repository(ws, repository(ws, env))
        except RefusedError:
            pass  # another sync has begun: its own end tidies
    return report


def _sync_rounds(
    ws: Workspace, env: Mapping[str, str], *, push: bool = True, dry_run: bool = False
) -> SyncReport:
    from memtier.commands.sync._conflicts import keep_generations, record_conflicts
    from memtier.commands.sync._state import FETCH, fetch_news, read_branch, read_state
    from memtier.commands.sync.setup import (
        REMOTE_NAME,
        is_set_up,
        move_repository,
        repository,
        upgrade,
    )

    if not is_set_up(ws):
        raise RefusedError(
            ("sync is not set up in this workspace (set it up: ", Term("sync_init"), ")")
        )
    move_repository(ws)  # (v4) out of any checkout's reach, before git runs
    git = repository(ws, env)
    with sync_lock(ws):
        branch = read_branch(git, REMOTE_NAME)  # under the lock: no other sync moves a ref
        remote_ref = f"refs/remotes/{REMOTE_NAME}/{branch}"
        _clear_stale_locks(ws)
        upgrade(ws, git)  # (v4) attributes in info/, none tracked: two reads when done
        _refusals(ws, git)
        if dry_run:  # fetching moves only the remote-tracking ref, never the memory
            _refuse_credential(ws, git, remote_ref)
            fetched = git.run(*FETCH, REMOTE_NAME, branch, timeout=REMOTE_TIMEOUT, check=False)
            return _dry_run(git, remote_ref, reached=fetched.ok)
        merged: list[str] = []
        committed = 0
        conflicts: list[str] = []
        notices: list[str] = []
        for rounds in range(1, MAX_ROUNDS + 1):
            if rounds == 1:  # the remote asked first: fetched only when it moved
                fetched = fetch_news(git, REMOTE_NAME, branch)
            else:  # a push was refused: the remote moved since
                fetched = git.run(*FETCH, REMOTE_NAME, branch, timeout=REMOTE_TIMEOUT, check=False)
            with store.workspace_lock(ws.lock_file):
                state = read_state(git, REMOTE_NAME, branch)
                _refuse_credential(ws, git, remote_ref, state.outgoing)
                subject = f"memtier sync: {ws.host_id or 'host'}"
                now = commit_all(
                    ws, git, subject, known_clean=state.clean, known_changed=bool(state.changed)
                )
                committed += now
                if not fetched.ok:
                    return _unreachable(git, committed, rounds, fetched.err)
                before = head_of(git)
                known = None
                if state.ahead is not None and state.behind is not None:
                    # the status's counts, against the ref just fetched; a commit made
                    # now is in neither side's history but its own
                    known = (state.behind == 0, state.ahead == 0 and not now)
                if git.resolve(remote_ref) is not None:
                    merged.append(merge_remote(ws, git, remote_ref, known=known))
                recorded = record_conflicts(ws)
                conflicts.extend(recorded)
                kept = keep_generations(ws)  # before the rebuild: the index lists both
                notices.extend(
                    f"kept both versions of {name}: the other one as {copy} (§14)"
                    for name, copy in kept
                )
                rebuilt = _rebuild_index(ws, merged)
                if recorded or kept or rebuilt:
                    commit_all(ws, git, "memtier sync: conflicts recorded, index rebuilt")
                left = _markers(ws, git, before)
            if left:
                failure = SyncConflict(f"{left[0]}; not pushed")
                return SyncReport(
                    "conflict",
                    tuple(merged),
                    committed,
                    rounds,
                    tuple(conflicts),
                    failure.message,
                    tuple(notices),
                    failure=failure,
                )
            _stamp(ws)
            if not push and conflicts:
                return _done(merged, committed, rounds, conflicts, notices, pushed=False)
            if not push:
                return SyncReport(
                    "committed-locally",
                    tuple(merged),
                    committed,
                    rounds,
                    tuple(conflicts),
                    "synced locally (not pushed)",
                    tuple(notices),
                )
            theirs = git.resolve(remote_ref)
            if theirs and theirs == head_of(git):  # nothing to share: no round trip
                return _done(merged, committed, rounds, conflicts, notices)
            checkpoint("sync.before-push")
            pushed = git.run(
                "push",
                "-q",
                "--porcelain",
                REMOTE_NAME,
                f"HEAD:refs/heads/{branch}",
                timeout=REMOTE_TIMEOUT,
                check=False,
            )
            if pushed.ok:  # git moved the remote-tracking ref too
                return _done(merged, committed, rounds, conflicts, notices)
            if "rejected" not in pushed.out + pushed.err and "fetch first" not in pushed.err:
                return _unreachable(git, committed, rounds, pushed.err or pushed.out)
        moving = RefusedError(f"the remote kept moving: {MAX_ROUNDS} rounds, not pushed")
        return SyncReport(
            "conflict",
            tuple(merged),
            committed,
            MAX_ROUNDS,
            tuple(conflicts),
            moving.message,
            failure=moving,
        )


def _done(
    merged: list[str],
    committed: int,
    rounds: int,
    conflicts: list[str],
    notices: list[str],
    *,
    pushed: bool = True,
) -> SyncReport:
    how = ", ".join(dict.fromkeys(m for m in merged if m != "up-to-date")) or "nothing to merge"
    done = f"{how}; {committed} local commit(s), {rounds} round(s)"
    text = f"in sync ({done})"
    said = tuple(notices)
    if conflicts:  # §14 v4: the summary says what happened, never "in sync"
        shared = "pushed" if pushed else "not pushed"
        text = f"conflict ({len(conflicts)} recorded in today's note, {shared}; {done})"
        failure = SyncConflict(
            f"{len(conflicts)} conflict(s) recorded in today's note ({', '.join(conflicts)}); "
            "settle them, then drop the Open: item"
        )
        return SyncReport(
            "conflict",
            tuple(merged),
            committed,
            rounds,
            tuple(conflicts),
            text,
            said,
            failure=failure,
        )
    return SyncReport("in-sync", tuple(merged), committed, rounds, (), text, said)


def _unreachable(git: Git, committed: int, rounds: int, err: str) -> SyncReport:
    from memtier.commands.sync.setup import REMOTE_NAME

    failure = RemoteUnreachable(
        f"{unreachable_message(git, REMOTE_NAME, err)}; the work stays committed locally"
    )
    return SyncReport(
        "committed-locally", (), committed, rounds, (), failure.message, failure=failure
    )


def _stamp(ws: Workspace) -> None:
    store.write_text(ws.sync_dir / "last-sync", ws.now.isoformat() + "\n", root=ws.root)


def _dry_run(git: Git, remote_ref: str, *, reached: bool) -> SyncReport:
    changed = [line for line in git.run("status", "--porcelain").out.splitlines() if line]
    behind = ahead = 0
    if git.resolve(remote_ref) is not None:
        counts = git.run("rev-list", "--left-right", "--count", f"HEAD...{remote_ref}").out.split()
        ahead, behind = int(counts[0]), int(counts[1])
    text = f"would commit {len(changed)} file(s); {ahead} commit(s) to push, {behind} to merge"
    if not reached:
        text += " (the remote could not be reached: as of the last fetch)"
    return SyncReport("dry-run", message=text)


def auto_sync(ws: Workspace, env: Mapping[str, str]) -> str | None:
    """``sync_auto`` (PROTOCOL §14): one line saying how the sync went, or None when
    it is off. Never raises: a failed sync never fails the session."""
    from memtier.commands.sync.setup import is_set_up

    if not ws.config.sync_auto or not is_set_up(ws):
        return None
    try:
        report = run_sync(ws, env)
    except (MemtierError, OSError) as exc:
        return f"sync: {getattr(exc, 'message', None) or exc}"
    if report.failure is not None:
        return f"sync: {report.failure.message}"
    return f"sync: {report.message}"
