"""`memtier sync init REMOTE`: the memory's own repository (PROTOCOL §14).

The repository lives at ``memory/.sync/.git/repo`` with the workspace root as its
work tree, so a workspace that is itself inside another repository is not
disturbed, and (v4) no checkout can write into it: git refuses every tracked path
with a ``.git`` component. It tracks ``MEMORY.md``, ``memory/`` and ``.learnings/``;
the host-local files (`memtier.workspace.SYNC_HOST_LOCAL`, the shims of
``memory/scripts/`` among them) are excluded in the
repository's own ``info/exclude``, so they are never tracked.

The merge drivers live in the repository's config, which git never clones, and
(v4) the attributes naming them in its own ``info/attributes``, which no remote
can change; a driver the attributes name but the config lacks makes git fall back
silently to its text merge, so `missing_drivers` is checked before every sync.
A repository an older memtier made (at ``memory/.sync/git``, with a tracked
``.gitattributes``) is moved and upgraded by `upgrade` on the next sync.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from contextlib import suppress
from pathlib import Path
from typing import Any

from memtier import store
from memtier.commands.sync.attributes import ATTRIBUTES
from memtier.errors import InputError, RefusedError, Term
from memtier.gitrun import REMOTE_TIMEOUT, Git
from memtier.results import Result, fixed
from memtier.values import Fields
from memtier.workspace import (
    HOT_FILE,
    LAYOUT_FOLDERS,
    LEARNINGS_DIR,
    MEMORY_DIR,
    SYNC_GIT_DIR_BEFORE_V4,
    SYNC_HOST_LOCAL,
    Workspace,
)

DEFAULT_BRANCH = "main"
REMOTE_NAME = "origin"
DRIVERS: tuple[str, ...] = ("note", "fact", "lines", "index", "text", "generation")
# The one attributes text: written to the repository's own info/attributes (v4).
# Tracked: the three tiers' homes; never the host-local files.
EXCLUDE = (
    "# memtier sync (PROTOCOL §14): only the memory is tracked, never host-local files\n"
    f"/*\n!/{HOT_FILE}\n!/{MEMORY_DIR}/\n!/{LEARNINGS_DIR}/\n"
    + "".join(f"/{path}\n" for path in SYNC_HOST_LOCAL)
    + ".*.memtier-tmp\n"
)


def repository(ws: Workspace, env: Mapping[str, str]) -> Git:
    return Git(ws.sync_git_dir, ws.root, env)


def is_set_up(ws: Workspace) -> bool:
    """True once `sync init` made the repository (where v4 keeps it or before)."""
    return (ws.sync_git_dir / "HEAD").is_file() or (
        ws.root / SYNC_GIT_DIR_BEFORE_V4 / "HEAD"
    ).is_file()


def move_repository(ws: Workspace) -> None:
    """(v4) A repository at ``memory/.sync/git`` (where a checkout could write into
    it) moves to `memtier.workspace.SYNC_GIT_DIR` in one rename; a second sync
    racing this one finds it moved."""
    before = ws.root / SYNC_GIT_DIR_BEFORE_V4
    if not (before / "HEAD").is_file() or os.path.lexists(ws.sync_git_dir):
        return
    store.make_dirs(ws.sync_git_dir.parent, root=ws.root)
    with suppress(FileNotFoundError):  # the other sync moved it first
        os.rename(before, ws.sync_git_dir)


def upgrade(ws: Workspace, git: Git) -> bool:
    """(v4) The attributes in ``info/attributes`` and the current excludes; a tracked
    ``.gitattributes`` leaves the index (its removal is shared by the next commit)
    and, when memtier wrote it, the work tree. Reads two files when nothing is to do."""
    info = ws.sync_git_dir / "info"
    wanted = {"attributes": ATTRIBUTES, "exclude": EXCLUDE}
    if all(_text(ws, info / name) == text for name, text in wanted.items()):
        return False
    _write_info(ws)
    untrack_attributes(ws, git)
    _add_new_drivers(git)
    return True


def _add_new_drivers(git: Git) -> None:
    """The drivers a newer memtier's attributes name (`index`, `text` in v4), set the
    way this repository's own `note` driver is set: a host upgraded in place keeps
    syncing without running `sync init` again. A config without a memtier driver
    of its own is left for `missing_drivers` to refuse."""
    suffix = " merge-driver note %O %A %B %P"
    note = git.run("config", "--get", "merge.memtier-note.driver", check=False).out.strip()
    missing = missing_drivers(git)
    if not note.endswith(suffix) or not missing:
        return
    for key, value in driver_config(note.removesuffix(suffix)).items():
        if key.split(".")[1] in missing:
            git.run("config", key, value)


def untrack_attributes(ws: Workspace, git: Git) -> None:
    """A tracked ``.gitattributes`` (before v4) leaves the index; the file itself too
    when memtier wrote it (every line one of its own)."""
    from memtier.commands.sync._trust import ATTRIBUTES_BEFORE_V4

    git.run("rm", "-q", "--cached", "--ignore-unmatch", "--", ".gitattributes")
    path = ws.root / ".gitattributes"
    if path.is_file() and not path.is_symlink():
        lines = set(store.read_text(path, root=ws.root).splitlines())
        if lines <= ATTRIBUTES_BEFORE_V4:
            os.unlink(path)  # memtier's own file, not a memory file


def _text(ws: Workspace, path: Path) -> str:
    return store.read_text(path, root=ws.root) if path.is_file() else ""


def _write_info(ws: Workspace) -> None:
    info = ws.sync_git_dir / "info"
    store.make_dirs(info, root=ws.root)
    store.write_text(info / "attributes", ATTRIBUTES, root=ws.root)
    store.write_text(info / "exclude", EXCLUDE, root=ws.root)


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
    """The drivers the attributes name that the repository's config lacks. The
    config file memtier wrote is read first; git is asked only when that reading
    does not find every driver (git then also sees any other config it reads)."""
    wanted = [f"memtier-{k}" for k in (*DRIVERS, "ours")]
    if set(wanted) <= drivers_in_file(git.git_dir / "config"):
        return []
    found = git.run("config", "--get-regexp", r"^merge\.memtier-.*\.driver$", check=False)
    have = {line.split(" ", 1)[0].split(".")[1] for line in found.out.splitlines() if line}
    return [name for name in wanted if name not in have]


_SECTION = re.compile(r'\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]')
_DRIVER_KEY = re.compile(r"\s*driver\s*=", re.IGNORECASE)


def drivers_in_file(config: Path) -> set[str]:
    """The ``[merge "NAME"]`` sections of the git config file *config* that set a
    ``driver``; an unreadable file sets none. A line this reading does not follow
    only makes a driver look missing, and git is then asked."""
    try:
        text = config.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return set()
    found: set[str] = set()
    section: str | None = None
    for line in text.splitlines():
        header = _SECTION.match(line)
        if header:
            kind, name = header.group(1).lower(), header.group(2)
            section = name if kind == "merge" and name and "\\" not in name else None
        elif section is not None and _DRIVER_KEY.match(line):
            found.add(section)
    return found


class SyncInitReport(Result, Fields):
    remote: str
    branch: str
    host: str
    adopted: bool  # the remote's memory was taken as it is (a new host)
    merged: bool  # a remote memory was merged into this one
    notices: tuple[str, ...] = ()

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
    upgrade(ws, git)


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
    from memtier.commands.sync._git import (
        RemoteUnreachable,
        commit_all,
        merge_remote,
        refuse_open_rotation,
        sync_lock,
        unreachable_message,
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
    ws: Workspace = ws_factory(root)
    store.make_dirs(ws.sync_git_dir.parent, root=root)
    git = repository(ws, env)
    git.version()
    with sync_lock(ws):
        move_repository(ws)
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
        if not fetched.ok:  # exit 3, as for `sync`; `sync init` again once the remote answers
            raise RemoteUnreachable(unreachable_message(git, REMOTE_NAME, fetched.err))
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
            from memtier.commands.sync._trust import check_incoming

            tip = git.resolve(remote_ref) or remote_ref
            check_incoming(git, None, tip)  # (v4) before a byte of it is written
            git.run("checkout", "-q", "-f", "-B", branch, remote_ref)
            untrack_attributes(ws, git)  # one an older memtier tracked: committed next
            for folder in LAYOUT_FOLDERS:  # git keeps no empty folder
                store.make_dirs(root / folder, root=root)
            adopted = True
        else:
            ws = ws_factory(root)
            git.run("symbolic-ref", "HEAD", f"refs/heads/{branch}")
            commit_all(ws, git, "memtier sync init")
            if remote_has:
                merge_remote(ws, git, remote_ref, unrelated=True)
                merged = True
            git.run("push", "-q", REMOTE_NAME, f"HEAD:refs/heads/{branch}", timeout=REMOTE_TIMEOUT)
        git.run("config", f"branch.{branch}.remote", REMOTE_NAME)
        git.run("config", f"branch.{branch}.merge", f"refs/heads/{branch}")
    return SyncInitReport(remote, branch, host, adopted, merged)


def _last(err: str) -> str:
    lines = [line for line in err.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "no answer"


def default_prefix(executable: str) -> str:
    """How git calls the drivers: this very Python, so a venv's memtier is the one."""
    import shlex

    return f"{shlex.quote(executable)} -m memtier"
