"""`memtier sync init REMOTE`: the memory's own repository (PROTOCOL §14).

The repository lives at ``memory/.sync/git`` with the workspace root as its work
tree, so a workspace that is itself inside another repository is not disturbed.
It tracks ``MEMORY.md``, ``memory/``, ``.learnings/`` and ``.gitattributes``; the
host-local files (the working buffer and its ``.pending``/``.lock``, the workspace
lock, the search log, temporary files, ``memory/.sync/``, the shims in
``memory/scripts/``) are excluded in the repository's own ``info/exclude``, so
they are never tracked.

The merge drivers live in the repository's config, which git never clones; a
``.gitattributes`` that names an undefined driver makes git fall back silently
to its text merge, so `missing_drivers` is checked before every sync.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memtier import store
from memtier.errors import InputError, RefusedError, Term
from memtier.gitrun import REMOTE_TIMEOUT, Git
from memtier.results import Result, fixed
from memtier.workspace import LAYOUT_FOLDERS, Workspace

DEFAULT_BRANCH = "main"
REMOTE_NAME = "origin"
DRIVERS: tuple[str, ...] = ("note", "fact", "lines", "index", "text", "generation")
ATTRIBUTES = """\
# memtier sync (PROTOCOL §14): merges that understand these files.
# The drivers are set by `memtier sync init` in the memory's repository config.
# Every tracked file has one (§14 v4); the ones below `*` take precedence.
* merge=memtier-text
/MEMORY.md merge=memtier-fact
/memory/semantic/*.md merge=memtier-fact
/memory/procedural/*.md merge=memtier-fact
/memory/episodic/*.md merge=memtier-note
/memory/archive/**/*.md merge=memtier-note
/memory/archive/learnings/** merge=memtier-lines
/memory/archive/retired.md merge=memtier-lines
/.learnings/* merge=memtier-lines
/memory/INDEX.md merge=memtier-index
/memory/consolidated/* merge=memtier-generation
"""
# Tracked: the three tiers' homes and the attributes; never the host-local files.
EXCLUDE = """\
# memtier sync (PROTOCOL §14): only the memory is tracked, never host-local files
/*
!/MEMORY.md
!/memory/
!/.learnings/
!/.gitattributes
/memory/working-buffer.md
/memory/working-buffer.md.pending
/memory/working-buffer.md.lock
/memory/.memtier.lock
/memory/.searches.jsonl
/memory/.sync/
/memory/scripts/
.*.memtier-tmp
"""
HOST_LOCAL: tuple[str, ...] = (
    "memory/working-buffer.md",
    "memory/working-buffer.md.pending",
    "memory/working-buffer.md.lock",
    "memory/.memtier.lock",
    "memory/.searches.jsonl",
)


def repository(ws: Workspace, env: Mapping[str, str]) -> Git:
    return Git(ws.sync_git_dir, ws.root, env)


def is_set_up(ws: Workspace) -> bool:
    return (ws.sync_git_dir / "HEAD").is_file()


def driver_config(prefix: str) -> dict[str, str]:
    """The config keys of the drivers: ``PREFIX merge-driver KIND %O %A %B %P``."""
    keys: dict[str, str] = {}
    for kind in DRIVERS:
        keys[f"merge.memtier-{kind}.name"] = f"memtier {kind} merge (PROTOCOL §14)"
        keys[f"merge.memtier-{kind}.driver"] = f"{prefix} merge-driver {kind} %O %A %B %P"
    keys["merge.memtier-ours.name"] = "keep ours; memtier rebuilds it"
    keys["merge.memtier-ours.driver"] = "true"
    return keys


def missing_drivers(git: Git) -> list[str]:
    """The drivers `.gitattributes` names that the repository's config lacks."""
    found = git.run("config", "--get-regexp", r"^merge\.memtier-.*\.driver$", check=False)
    have = {line.split(" ", 1)[0].split(".")[1] for line in found.out.splitlines() if line}
    return [f"memtier-{k}" for k in (*DRIVERS, "ours") if f"memtier-{k}" not in have]


@dataclass(frozen=True)
class SyncInitReport(Result):
    remote: str
    branch: str
    host: str
    adopted: bool  # the remote's memory was taken as it is (a new host)
    merged: bool  # a remote memory was merged into this one
    notices: tuple[str, ...] = field(default=())

    JSON_CONSTANT = fixed(ok=True)
    JSON_OMIT = frozenset({"notices"})

    def text_lines(self) -> list[str]:
        how = (
            "took the remote's memory"
            if self.adopted
            else "merged the remote's memory"
            if self.merged
            else "ready"
        )
        return [f"sync set up: {self.remote} ({self.branch}), host {self.host}; {how}"]


def _write_host_id(ws: Workspace) -> str:
    current = ws.host_id
    if current:
        return current
    host = os.urandom(4).hex()
    store.write_text(ws.sync_dir / "host-id", host + "\n", root=ws.root)
    return host


def configure(ws: Workspace, git: Git, prefix: str, host: str) -> None:
    """Drivers, identity and excludes of this host's repository (repeatable)."""
    for key, value in driver_config(prefix).items():
        git.run("config", key, value)
    git.run("config", "core.bare", "false")
    # The work tree is always given (GIT_WORK_TREE): a workspace that moves keeps working.
    git.run("config", "--unset-all", "core.worktree", check=False)
    git.run("config", "core.autocrlf", "false")
    git.run("config", "core.quotePath", "false")
    # git's own housekeeping stays on, in the foreground: no background gc holds
    # the repository while the next sync starts.
    git.run("config", "gc.autoDetach", "false")
    git.run("config", "user.name", f"memtier {host}")
    git.run("config", "user.email", f"memtier-{host}@localhost")
    store.make_dirs(ws.sync_git_dir / "info", root=ws.root)
    store.write_text(ws.sync_git_dir / "info" / "exclude", EXCLUDE, root=ws.root)


def init_sync(
    root: Path,
    remote: str,
    *,
    env: Mapping[str, str],
    driver_prefix: str,
    branch: str = DEFAULT_BRANCH,
    ws_factory: Any,
) -> SyncInitReport:
    """Set up sync in *root*: a workspace, or an empty folder a remote memory fills."""
    from memtier.commands.sync_git import (
        commit_all,
        merge_remote,
        refuse_open_rotation,
        sync_lock,
    )
    from memtier.workspace import is_workspace

    if not remote.strip():
        raise InputError("sync init needs a REMOTE (a path or URL git accepts)")
    was_workspace = is_workspace(root)
    try:
        local = (root / remote).exists()
    except (OSError, ValueError):  # a name too long for a path, a NUL byte: not a local path
        local = False
    if local:  # a local path: absolute, wherever git runs from
        remote = str((root / remote).resolve())
    store.make_dirs(root / "memory" / ".sync", root=root)
    ws: Workspace = ws_factory(root)
    git = repository(ws, env)
    git.version()
    with sync_lock(ws):
        if not is_set_up(ws):
            git.run("init", "-q", f"--initial-branch={branch}")
        # The host id salts snapshot ids from now on: never while a rotation is
        # open, and under the workspace lock, so no rotation runs meanwhile.
        with store.workspace_lock(ws.lock_file):
            refuse_open_rotation(ws)
            host = _write_host_id(ws)
        configure(ws, git, driver_prefix, host)
        has_remote = git.run("remote", "get-url", REMOTE_NAME, check=False).ok
        git.run("remote", "set-url" if has_remote else "add", REMOTE_NAME, remote)
        fetched = git.run("fetch", "-q", REMOTE_NAME, timeout=REMOTE_TIMEOUT, check=False)
        if not fetched.ok:
            raise RefusedError(f"the remote could not be reached: {_last(fetched.err)}")
        remote_ref = f"refs/remotes/{REMOTE_NAME}/{branch}"
        remote_has = git.resolve(remote_ref) is not None
        if not remote_has and not was_workspace:
            raise RefusedError(
                (
                    f"{remote} holds no memory yet and this folder is not a workspace: run ",
                    Term("init"),
                    " here first (or ",
                    Term("sync_init"),
                    " on the host that has the memory)",
                )
            )
        adopted = merged = False
        if remote_has and not was_workspace:
            git.run("checkout", "-q", "-f", "-B", branch, remote_ref)
            for folder in LAYOUT_FOLDERS:  # git keeps no empty folder
                store.make_dirs(root / folder, root=root)
            write_attributes(root)  # committed by the next sync
            adopted = True
        else:
            ws = ws_factory(root)
            write_attributes(root)
            git.run("symbolic-ref", "HEAD", f"refs/heads/{branch}")
            commit_all(ws, git, "memtier sync init")
            if remote_has:
                merge_remote(ws, git, remote_ref, unrelated=True)
                merged = True
            git.run("push", "-q", REMOTE_NAME, f"HEAD:refs/heads/{branch}", timeout=REMOTE_TIMEOUT)
        git.run("config", f"branch.{branch}.remote", REMOTE_NAME)
        git.run("config", f"branch.{branch}.merge", f"refs/heads/{branch}")
    return SyncInitReport(remote, branch, host, adopted, merged)


def write_attributes(root: Path) -> bool:
    """`ATTRIBUTES` into ``.gitattributes``; one an older memtier wrote gets the lines it
    lacks (a new driver), appended. A file of a person's own is left alone."""
    path = root / ".gitattributes"
    if not path.exists():
        store.write_text(path, ATTRIBUTES, root=root)
        return True
    text = store.read_text(path, root=root)
    if not text.startswith(ATTRIBUTES.split("\n", 1)[0]):
        return False
    # A later line wins in git's attributes: ours come first whole, then the lines
    # a person added (an older memtier's driver lines give way to the new ones).
    ours = set(ATTRIBUTES.splitlines())
    kept = [
        line
        for line in text.splitlines()
        if line not in ours and " merge=memtier-" not in line and not line.startswith("#")
    ]
    body = ATTRIBUTES + "".join(line + "\n" for line in kept)
    if body == text:
        return False
    store.write_text(path, body, root=root)
    return True


def _last(err: str) -> str:
    lines = [line for line in err.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "no answer"


def default_prefix(executable: str) -> str:
    """How git calls the drivers: this very Python, so a venv's memtier is the one."""
    return f"{shlex.quote(executable)} -m memtier"
