"""Running the `git` executable for sync (PROTOCOL §14): git is the only transport.

memtier never reimplements fetch, push or merge and never handles a credential:
ssh keys and credential helpers stay git's. Every call here

- has a time limit (a remote that hangs ends as "could not be reached");
- is non-interactive: ``GIT_TERMINAL_PROMPT=0``, ssh in batch mode, no editor,
  standard input closed, so a missing credential fails instead of waiting;
- names the memory's own repository (``GIT_DIR``) and work tree (``GIT_WORK_TREE``)
  explicitly, so a workspace inside another repository is never touched;
- (v4) runs no command a repository's configuration names: hooks, fsmonitor,
  askpass, the ``ext::`` transport and a replaced upload/receive-pack are set off
  on the command line's level (`NO_COMMANDS`), which wins over every config file.

The environment comes from the caller (the face): this module never reads
``os.environ``.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path

from memtier.errors import RefusedError, Term
from memtier.values import Fields, field

# `git merge-tree --write-tree` (a merge that never touches the work tree) is 2.38.
MIN_VERSION = (2, 38)
_SYNC = Term("sync")  # each face names the command: memtier sync, memory_sync
LOCAL_TIMEOUT = 120.0
REMOTE_TIMEOUT = 120.0
_DROPPED = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_PREFIX")
# (v4) A remote is data, never code: whatever the repository's config (or one a
# remote once managed to write) says, no git process of sync runs a command it
# names. Given as GIT_CONFIG_KEY_n/VALUE_n, the command line's level: every child
# git of the same repository inherits it. What stays on is listed in DECISIONS.md.
NO_COMMANDS: tuple[tuple[str, str], ...] = (
    ("core.hooksPath", os.devnull),  # no hook at all, --no-verify or not
    ("core.fsmonitor", "false"),
    ("core.askPass", ""),  # GIT_TERMINAL_PROMPT=0 does not stop an askpass program
    ("protocol.ext.allow", "never"),  # `ext::` URLs run a command as the transport
    ("remote.origin.uploadpack", "git-upload-pack"),  # run here for a local remote
    ("remote.origin.receivepack", "git-receive-pack"),
)
# git's own housekeeping after a commit or a merge (``maintenance run --auto``, one
# more process each time) is off: sync's tidy-up runs ``gc --auto`` itself when git's
# test would find work (commands/sync/_tidy.py). A local remote's ``gc`` after it
# received a push is the remote's and stays.
OWN_HOUSEKEEPING: tuple[tuple[str, str], ...] = (("maintenance.auto", "false"),)


class GitMissing(RefusedError):
    """No usable git executable (missing, too old, or it would not run)."""


class GitTimeout(RefusedError):
    """A git call ran past its time limit and was stopped."""


class GitResult(Fields):
    code: int
    out: str
    err: str

    @property
    def ok(self) -> bool:
        return self.code == 0


def parse_version(text: str) -> tuple[int, int] | None:
    """``git version 2.39.5`` → (2, 39)."""
    match = re.search(r"(\d+)\.(\d+)", text)
    return (int(match.group(1)), int(match.group(2))) if match else None


def _environment(
    env: Mapping[str, str], git_dir: Path | None, work_tree: Path | None
) -> dict[str, str]:
    out = {k: v for k, v in env.items() if k not in _DROPPED}
    out.update(
        GIT_TERMINAL_PROMPT="0",
        GIT_EDITOR="true",
        GIT_MERGE_AUTOEDIT="no",
        GIT_PAGER="cat",
        LC_ALL="C",
        LANGUAGE="C",
    )
    out.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes -o ConnectTimeout=20")
    # After any the caller's environment gives: the later of two equal keys wins.
    try:
        count = max(int(out.get("GIT_CONFIG_COUNT", "0")), 0)
    except ValueError:
        count = 0
    for key, value in (*NO_COMMANDS, *OWN_HOUSEKEEPING):
        out[f"GIT_CONFIG_KEY_{count}"] = key
        out[f"GIT_CONFIG_VALUE_{count}"] = value
        count += 1
    out["GIT_CONFIG_COUNT"] = str(count)
    if git_dir is not None:
        out["GIT_DIR"] = str(git_dir)
    if work_tree is not None:
        out["GIT_WORK_TREE"] = str(work_tree)
    return out


# git commands that never move a ref: what `Git.resolve` remembered stays true.
_REF_NEUTRAL = frozenset(
    {"add", "cat-file", "commit-tree", "config", "diff", "for-each-ref", "hash-object", "log",
     "ls-files", "ls-remote", "ls-tree", "merge-base", "merge-tree", "rev-parse", "show",
     "status"}
)  # fmt: skip
# git commands that move the current branch only (HEAD): never a remote-tracking ref
# or one of memtier's own (`_NOT_HEAD`).
_MOVES_HEAD = frozenset({"commit", "merge"})
_NOT_HEAD = ("refs/remotes/", "refs/memtier/")


class Git(Fields):
    """The memory's repository: *git_dir*, work tree *work_tree*, run with *env*."""

    git_dir: Path
    work_tree: Path
    env: Mapping[str, str]
    executable: str = "git"
    # ref -> the object it named when last asked (None: none), until a command that
    # can move a ref runs (`resolve`)
    _refs: dict[str, str | None] = field(default_factory=dict)

    def resolve(self, ref: str) -> str | None:
        """The object id *ref* names, or None when it names none. A sync asks for
        HEAD and the remote-tracking ref several times between the commands that move
        them; each is asked of git once."""
        if ref not in self._refs:
            found = self.run("rev-parse", "-q", "--verify", ref, check=False)
            self._refs[ref] = found.out.strip() if found.ok else None
        return self._refs[ref]

    def _forget_moved(self, args: tuple[str, ...]) -> None:
        """Drop what `resolve` remembered of the refs ``git ARGS`` may move: none for
        `_REF_NEUTRAL`; the current branch (HEAD and ``refs/heads/``) for the commands
        that move only it; the one ref ``update-ref`` names; else all."""
        command = args[0] if args else ""
        if command in _REF_NEUTRAL:
            return
        if command in _MOVES_HEAD:
            for ref in [r for r in self._refs if not r.startswith(_NOT_HEAD)]:
                del self._refs[ref]
        elif command == "update-ref" and len(args) == 3 and args[1].startswith("refs/memtier/"):
            self._refs.pop(args[1], None)
        else:
            self._refs.clear()

    def remember(self, ref: str, oid: str | None) -> None:
        """What *ref* names, learnt from another command's answer (``git status``
        tells HEAD), so that `resolve` does not ask git again."""
        self._refs[ref] = oid

    def run(
        self,
        *args: str,
        timeout: float = LOCAL_TIMEOUT,
        extra_env: Mapping[str, str] | None = None,
        stdin: str | None = None,
        check: bool = True,
    ) -> GitResult:
        """Run ``git ARGS`` in the work tree; a failure raises unless not *check*."""
        self._forget_moved(args)
        env = _environment(self.env, self.git_dir, self.work_tree)
        if extra_env:
            env.update(extra_env)
        result = _call([self.executable, *args], env, self.work_tree, timeout, stdin)
        if check and not result.ok:
            detail = result.err.strip().splitlines()
            why = detail[-1] if detail else f"exit {result.code}"
            raise RefusedError(f"git {args[0]} failed: {why}")
        return result

    def version(self) -> tuple[int, int]:
        """The git version, checked against `MIN_VERSION` (a clear error otherwise)."""
        return check_version(self.env, self.executable)


def _call(
    argv: list[str], env: Mapping[str, str], cwd: Path, timeout: float, stdin: str | None
) -> GitResult:
    try:
        process = _Process(
            argv,
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="surrogateescape",
        )
    except FileNotFoundError:
        raise GitMissing(
            (
                f"git not found ({argv[0]}); ",
                _SYNC,
                f" needs git {MIN_VERSION[0]}.{MIN_VERSION[1]} or newer",
            )
        ) from None
    with process:
        try:
            out, err = process.communicate(stdin, timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()  # git only: what it started may hold the pipes
            process.wait()
            raise GitTimeout(
                f"git {argv[1]} took longer than {timeout:.0f} s and was stopped"
            ) from None
    return GitResult(process.returncode, out, err)


class _Process(subprocess.Popen[str]):
    """A git process whose end is told the moment it comes.

    ``communicate`` with a time limit, once git has closed its output, waits for its
    end by looking every 1 to 50 ms (``Popen.wait`` with a timeout); git has mostly
    not quite ended by then, and a sync of a dozen git calls slept ~1 ms after each.
    A process file descriptor (Linux) is readable the moment the process ends.
    """

    def wait(self, timeout: float | None = None) -> int:
        if timeout is None or self.returncode is not None:
            return super().wait(timeout)
        from memtier.spawn import ends_within

        ended = ends_within(self.pid, timeout)
        if ended is None:  # no process file descriptor here
            return super().wait(timeout)
        # Ended: reaped at once. Not ended: Popen says so (TimeoutExpired).
        return super().wait(None if ended else 0)


def check_version(env: Mapping[str, str], executable: str = "git") -> tuple[int, int]:
    result = _call([executable, "--version"], _environment(env, None, None), Path("/"), 30, None)
    found = parse_version(result.out)
    if not result.ok or found is None:
        raise GitMissing((f"{executable} --version did not run; ", _SYNC, " needs git"))
    if found < MIN_VERSION:
        raise GitMissing(
            (
                f"git {found[0]}.{found[1]} is too old: ",
                _SYNC,
                f" needs git {MIN_VERSION[0]}.{MIN_VERSION[1]} or newer (for merge-tree "
                "--write-tree)",
            )
        )
    return found
