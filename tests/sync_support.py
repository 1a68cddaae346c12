"""Several hosts sharing one bare repository, for the sync tests (PROTOCOL §14)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.conftest import new_workspace, run_memtier

NOW = "2026-12-01T09:00:00+01:00"


def git(ws: Path, *args: str) -> str:
    env = {**os.environ, "GIT_DIR": str(ws / "memory/.sync/git"), "GIT_WORK_TREE": str(ws)}
    done = subprocess.run(
        ["git", *args], cwd=ws, env=env, capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout


def memtier(
    ws: Path, *args: str, now: str = NOW, input: str = ""
) -> subprocess.CompletedProcess[str]:
    return run_memtier("--root", str(ws), "--now", now, *args, input=input)


def ok(ws: Path, *args: str, now: str = NOW, input: str = "") -> str:
    done = memtier(ws, *args, now=now, input=input)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


def hosts(tmp_path: Path, count: int) -> tuple[Path, list[Path]]:
    """A bare remote and *count* hosts: the first set up from a workspace, the others
    from empty folders (the second host's set-up is one command)."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    first = new_workspace(tmp_path / "h0")
    ok(first, "sync", "init", str(remote))
    made = [first]
    for n in range(1, count):
        folder = tmp_path / f"h{n}"
        folder.mkdir()
        ok(folder, "sync", "init", str(remote))
        made.append(folder)
    return remote, made


def tracked(ws: Path) -> dict[str, bytes]:
    """Every tracked file of *ws* as it stands on disk."""
    names = git(ws, "ls-files", "-z").split("\0")
    return {name: (ws / name).read_bytes() for name in names if name}


def settle(spaces: list[Path], rounds: int = 3, now: str = NOW) -> list[int]:
    """Sync every host *rounds* times in turn; the exit codes of the last round."""
    codes: list[int] = []
    for _ in range(rounds):
        codes = [memtier(ws, "sync", now=now).returncode for ws in spaces]
    return codes
