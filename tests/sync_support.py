"""Several hosts sharing one bare repository, for the sync tests (PROTOCOL §14).

`hosts` builds a remote and its hosts once per test session for each number of
hosts (real `sync init` runs, as a person would) and copies them for every test,
pointing the copies at their own remote. `memtier` runs the command line in this
process: git still runs the merge drivers as real processes, and the tests that
need a second process for a lock or a kill start one themselves.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from memtier.workspace import SYNC_GIT_DIR
from tests.conftest import FolderCopy, new_workspace
from tests.reliability.reliability_support import run_in_process

NOW = "2026-12-01T09:00:00+01:00"
_BUILT: dict[str, Path] = {}  # a set-up's name → the folder holding it, built once
_HELD: dict[Path, FolderCopy] = {}  # a built folder → its tree, read once


def git(ws: Path, *args: str) -> str:
    env = {**os.environ, "GIT_DIR": str(ws / SYNC_GIT_DIR), "GIT_WORK_TREE": str(ws)}
    done = subprocess.run(
        ["git", *args], cwd=ws, env=env, capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout


def memtier(
    ws: Path, *args: str, now: str = NOW, input: str = ""
) -> subprocess.CompletedProcess[str]:
    """The memtier command line on *ws*, in this process: (exit code, stdout, stderr)."""
    argv = ["--root", str(ws), "--now", now, *args]
    code, out, err = run_in_process(*argv, input=input.encode("utf-8"))
    return subprocess.CompletedProcess(argv, code, out, err)


def ok(ws: Path, *args: str, now: str = NOW, input: str = "") -> str:
    done = memtier(ws, *args, now=now, input=input)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


def _build(folder: Path, count: int) -> None:
    """A bare remote and *count* hosts: the first set up from a workspace, the others
    from empty folders (the second host's set-up is one command)."""
    remote = folder / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    first = new_workspace(folder / "h0")
    ok(first, "sync", "init", str(remote))
    for n in range(1, count):
        (folder / f"h{n}").mkdir()
        ok(folder / f"h{n}", "sync", "init", str(remote))


def _once(key: str, build: Callable[[Path], None]) -> Path:
    """The folder *build* filled, built on first use in this test process."""
    if key not in _BUILT:
        built = Path(tempfile.mkdtemp(prefix="memtier-hosts-")).resolve()
        atexit.register(shutil.rmtree, built, True)
        build(built)
        _BUILT[key] = built
    return _BUILT[key]


def _copy(built: Path, tmp_path: Path, count: int) -> tuple[Path, list[Path]]:
    """The remote and *count* hosts of *built*, copied into *tmp_path* and pointed
    at the copied remote (git keeps the remote's path in each host's config, and
    in the record of its last fetch). Each is read once into memory (`FolderCopy`,
    modes kept) and written from there for every test."""
    made = []
    for name in ["remote.git", *(f"h{n}" for n in range(count))]:
        if built / name not in _HELD:
            _HELD[built / name] = FolderCopy.of(built / name)
        _HELD[built / name].write(tmp_path / name)
    for n in range(count):
        for name in ("config", "FETCH_HEAD"):  # the last fetch's record names it too
            named = tmp_path / f"h{n}" / SYNC_GIT_DIR / name
            if named.exists():
                text = named.read_text(encoding="utf-8")
                named.write_text(text.replace(str(built), str(tmp_path)), encoding="utf-8")
        made.append(tmp_path / f"h{n}")
    return tmp_path / "remote.git", made


def hosts(tmp_path: Path, count: int) -> tuple[Path, list[Path]]:
    """``tmp_path/remote.git`` and *count* hosts ``tmp_path/h0``…, synced once."""
    return _copy(_once(f"hosts-{count}", lambda folder: _build(folder, count)), tmp_path, count)


def _build_conflicting(folder: Path) -> None:
    _remote, (a, b) = hosts(folder, 2)
    infra = "memory/semantic/infrastructure.md"
    ok(a, "remember", "nas01 is 10.0.0.4", "--kind", "infrastructure")
    settle([a, b], rounds=1)
    ok(a, "replace", "10.0.0.4", "nas01 is 10.0.0.5", "--in", infra)
    ok(b, "replace", "10.0.0.4", "nas01 is 10.0.0.7", "--in", infra)
    ok(a, "sync")


def conflicting(tmp_path: Path) -> tuple[Path, Path]:
    """Two hosts that replaced one fact differently: A has synced its version, B's
    sync of its own is the conflict (``memory/semantic/infrastructure.md``).

    Built once per test process, as `hosts` is, and copied for each test."""
    _remote, (a, b) = _copy(_once("conflicting", _build_conflicting), tmp_path, 2)
    return a, b


def tracked(ws: Path) -> dict[str, bytes]:
    """Every tracked file of *ws* as it stands on disk."""
    names = git(ws, "ls-files", "-z").split("\0")
    return {name: (ws / name).read_bytes() for name in names if name}


def settle(spaces: list[Path], rounds: int = 3, now: str = NOW) -> list[int]:
    """Sync every host *rounds* times in turn; the exit codes of the last round.

    Hosts that all changed something need two rounds (each merges the ones before
    it and pushes; then the first ones fast-forward); one change, one round."""
    codes: list[int] = []
    for _ in range(rounds):
        codes = [memtier(ws, "sync", now=now).returncode for ws in spaces]
    return codes
