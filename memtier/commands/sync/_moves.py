"""An archive move on one host against an edit on another (PROTOCOL §14 with §7).

TTL archival moves a note (or a learnings file) into ``memory/archive/``
byte for byte; git finds the move by comparing contents. When the host that
archived had also changed the file (under half its lines kept), git sees a
deletion on that side against a change on the other: a modify/delete conflict
that stops the merge. The move is memtier's own, though, and its name says
where the file went (§7: ``<stem>.md`` or ``<stem>.<k>.md`` in the archive), so
`settle_archive_moves` settles it the way a detected move would have been: the
edit follows the file into the archive, merged by the file's own driver, and
the live path stays gone. The archive wins because the move is one-way: the
host that kept the file would move it at its next archive run anyway.

Everything happens in git's object store (a temporary index of its own), like
the merge-tree it completes: a crash changes no file of the memory.
"""

from __future__ import annotations

import os
from difflib import SequenceMatcher
from pathlib import Path

from memtier.gitrun import Git
from memtier.workspace import HOST_LOCAL_FOLDERS, Workspace

_OURS, _THEIRS = "2", "3"


def conflicted_stages(entries: list[str]) -> dict[str, dict[str, str]]:
    """``merge-tree -z`` conflict entries (``<mode> <oid> <stage>\\t<path>``):
    path → {stage: blob}."""
    found: dict[str, dict[str, str]] = {}
    for entry in entries:
        info, tab, path = entry.partition("\t")
        parts = info.split()
        if tab and len(parts) == 3:
            found.setdefault(path, {})[parts[2]] = parts[1]
    return found


def _sources(ws: Workspace) -> dict[str, tuple[str, str]]:
    """Where a file moved into the archive came from: live folder → (archive folder
    to look in, its driver)."""
    archive = ws.relative(ws.archive_dir) + "/"
    return {
        ws.relative(ws.episodic_dir) + "/": (archive, "note"),
        ws.relative(ws.learnings_dir) + "/": (ws.relative(ws.learnings_archive_dir) + "/", "lines"),
    }


def _archived_as(git: Git, commit: str, folder: str, stem: str, skip: str | None) -> list[str]:
    """The paths under *folder* in *commit* named ``<stem>.md`` or ``<stem>.<k>.md``."""
    listed = git.run("ls-tree", "-r", "--name-only", "-z", commit, "--", folder).out
    found = []
    for path in filter(None, listed.split("\0")):
        if skip is not None and path.startswith(skip):
            continue
        name = path.rsplit("/", 1)[-1]
        if not (name.startswith(stem) and name.endswith(".md")):
            continue
        middle = name[len(stem) : -len(".md")]
        if middle == "" or (middle[:1] == "." and middle[1:].isdigit()):
            found.append(path)
    return found


def _blob(git: Git, oid: str) -> str:
    return git.run("cat-file", "blob", oid).out


def settle_archive_moves(
    ws: Workspace,
    git: Git,
    tree: str,
    stages: dict[str, dict[str, str]],
    sides: dict[str, str],
) -> tuple[str, list[str]]:
    """The merged *tree* with each modify/delete of a file the other side archived
    settled (the edit merged into the archived file); and the paths left in conflict.

    *stages* are merge-tree's conflicts; *sides* the commits of stage 2 and 3.
    """
    from memtier.commands.sync.driver import merge_of

    sources = _sources(ws)
    learnings_archive = ws.relative(ws.learnings_archive_dir) + "/"
    edits: dict[str, str | None] = {}  # path → new blob, None: remove
    unsettled: list[str] = []
    for path, found in sorted(stages.items()):
        live = path.rsplit("/", 1)[0] + "/"
        kept = [s for s in (_OURS, _THEIRS) if s in found]
        if live not in sources or set(found) != {"1", *kept} or len(kept) != 1:
            unsettled.append(path)
            continue
        folder, kind = sources[live]
        changed = kept[0]
        moved = _THEIRS if changed == _OURS else _OURS
        stem = path.rsplit("/", 1)[-1][: -len(".md")] if path.endswith(".md") else ""
        skip = learnings_archive if kind == "note" else None
        there = set(_archived_as(git, sides[moved], folder, stem, skip)) if stem else set()
        there -= set(_archived_as(git, sides[changed], folder, stem, skip)) if there else set()
        if not there:
            unsettled.append(path)
            continue
        base, edited = _blob(git, found["1"]), _blob(git, found[changed])
        archived = {p: _blob(git, f"{tree}:{p}") for p in sorted(there)}
        # Several new names of that stem (rare): the one closest to the base.
        target = max(archived, key=lambda p: SequenceMatcher(None, base, archived[p]).ratio())
        ours, theirs = (
            (edited, archived[target]) if changed == _OURS else (archived[target], edited)
        )
        merged = merge_of(kind)(base, ours, theirs).text
        edits[target] = git.run("hash-object", "-w", "--stdin", stdin=merged).out.strip()
        edits[path] = None
    if not edits:
        return tree, unsettled
    return edited_tree(ws, git, tree, edits), unsettled


def keep_ours_whole(
    ws: Workspace, git: Git, tree: str, stages: dict[str, dict[str, str]], conflicts_dir: Path
) -> str:
    """The merged *tree* with each path still in conflict as ours left it (§14 v4: a
    file no driver can merge takes ours), theirs recorded for a conflict block
    (not for a host-local file an older memtier tracked: ours, quietly)."""
    from memtier.commands.sync.driver import record_conflict
    from memtier.formats.merge import Conflict

    def text(found: dict[str, str], stage: str) -> tuple[str, ...]:
        return tuple(_blob(git, found[stage]).splitlines()) if stage in found else ()

    edits: dict[str, str | None] = {}
    for path, found in sorted(stages.items()):
        edits[path] = found.get(_OURS)
        if path.startswith(HOST_LOCAL_FOLDERS):
            continue
        conflict = Conflict(0, text(found, _OURS), text(found, _THEIRS), text(found, "1"))
        record_conflict(conflicts_dir, path, conflict, whole=True)
    return edited_tree(ws, git, tree, edits)


def edited_tree(ws: Workspace, git: Git, tree: str, edits: dict[str, str | None]) -> str:
    """*tree* with *edits* applied, written through an index of its own."""
    index = ws.sync_git_dir / "memtier-moves.index"
    env = {"GIT_INDEX_FILE": str(index)}
    try:
        git.run("read-tree", tree, extra_env=env)
        for path, blob in edits.items():
            if blob is None:
                git.run("update-index", "--force-remove", "--", path, extra_env=env)
            else:
                git.run(
                    "update-index", "--add", "--cacheinfo", f"100644,{blob},{path}", extra_env=env
                )
        return git.run("write-tree", extra_env=env).out.strip()
    finally:
        if index.exists():
            os.unlink(index)  # git's own scratch file in the sync repository
