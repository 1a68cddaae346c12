"""kill -9 during a sync's merge and push loses nothing (PROTOCOL §14, §5 crash rule).

Real processes: each sync is a memtier process killed by SIGKILL at a named
point (``$MEMTIER_FAULT``), inside a merge driver git runs, or from outside while
``git push`` waits on the remote. Afterwards plain sync rounds must bring every
host to the same tracked files, with every line written on any host there once.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from memtier.workspace import SYNC_GIT_DIR
from tests.conftest import memtier_command
from tests.reliability.test_crash_matrix import SYNC_POINTS
from tests.sync_support import NOW, hosts, memtier, ok, settle, tracked

pytestmark = pytest.mark.skipif(
    __import__("shutil").which("git") is None, reason="sync needs the git executable"
)
POINTS = SYNC_POINTS  # the matrix checks that every sync point is here


def _write_both(a: Path, b: Path) -> list[str]:
    """Lines on both hosts into the same files (so git must run the drivers)."""
    written = []
    for name, ws in (("a", a), ("b", b)):
        fact = f"service {name} listens on port 80{ord(name)}"
        ok(ws, "remember", fact, "--kind", "infrastructure")
        ok(ws, "episodic", "append", f"worked on {name}")
        ok(ws, "learn", "error", f"error on {name}")
        written += [fact, f"worked on {name}", f"error on {name}"]
    return written


def _assert_converged(spaces: list[Path], written: list[str]) -> None:
    assert settle(spaces) == [0] * len(spaces)
    trees = [tracked(ws) for ws in spaces]
    assert all(tree == trees[0] for tree in trees)
    text = b"".join(trees[0].values()).decode()
    for line in written:
        assert text.count(line) == 1, line
    assert "<<<<<<<" not in text
    note = trees[0]["memory/episodic/2026-12-01.md"].decode()
    assert note.count("Updated:") == 1


@pytest.mark.slow
@pytest.mark.parametrize("point", POINTS)
def test_kill_at_each_step_of_a_merging_sync_loses_nothing(tmp_path: Path, point: str) -> None:
    _remote, (a, b) = hosts(tmp_path, 2)
    written = _write_both(a, b)
    ok(a, "sync")
    trace = tmp_path / "trace"
    done = subprocess.run(
        [*memtier_command(), "--root", str(b), "--now", NOW, "sync"],
        env={**os.environ, "MEMTIER_FAULT": point, "MEMTIER_FAULT_TRACE": str(trace)},
        capture_output=True,
        timeout=120,
    )
    assert set(trace.read_text().split()) == {point}  # the process (or a driver) died there
    if point != "sync.driver-merged":
        assert done.returncode == -signal.SIGKILL
    _assert_converged([a, b], written)


def test_kill_during_git_push_loses_nothing(tmp_path: Path) -> None:
    remote, (a, b) = hosts(tmp_path, 2)
    written = _write_both(a, b)
    ok(a, "sync")
    started = tmp_path / "push-started"
    hook = remote / "hooks" / "pre-receive"
    hook.write_text(f"#!/bin/sh\ntouch {started}\nsleep 60\n")
    hook.chmod(0o755)
    proc = subprocess.Popen(
        [*memtier_command(), "--root", str(b), "--now", NOW, "sync"],
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not started.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.005)
    assert started.exists()
    os.killpg(proc.pid, signal.SIGKILL)  # memtier and the git push it runs
    proc.wait(timeout=30)
    hook.unlink()
    _assert_converged([a, b], written)


def test_a_stale_index_lock_left_by_a_crash_does_not_block_sync(tmp_path: Path) -> None:
    _remote, (a,) = hosts(tmp_path, 1)
    (a / SYNC_GIT_DIR / "index.lock").write_text("")
    ok(a, "remember", "the nas has four disks now", "--kind", "infrastructure")
    assert memtier(a, "sync").returncode == 0


def test_sync_init_waits_for_the_recovery_of_a_crashed_rotation(tmp_path: Path) -> None:
    """A rotation killed after its append, then the session-start recovering it killed
    after it removed the marker: only the snapshot's id, which the host id salts, says
    the append was done. `sync init` in between must not change it (§4 step 4, §14)."""
    from tests.reliability.forked import run_forked, run_here
    from tests.reliability.reliability_support import NOW_TEXT, populate, token_counts

    ws = populate(tmp_path / "ws")
    before = token_counts(ws)
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    assert run_forked(ws, NOW_TEXT, "rotate", point="rotate.note-written")[0]
    assert run_forked(ws, NOW_TEXT, "session-start", point="session_start.lock-removed")[0]
    assert (ws / "memory/working-buffer.md.pending").exists()
    early = run_here(ws, NOW_TEXT, "sync", "init", str(remote))
    salted = (ws / "memory/.sync/host-id").exists()
    assert run_here(ws, NOW_TEXT, "session-start") == 0
    assert run_here(ws, NOW_TEXT, "sync", "init", str(remote)) == 0
    assert run_here(ws, NOW_TEXT, "session-start") == 0
    assert token_counts(ws) == before  # every line once: the recovery ran exactly once
    assert not (ws / "memory/working-buffer.md.pending").exists()
    assert (early, salted) == (1, False)  # refused until the recovery had run


@pytest.mark.slow
@pytest.mark.parametrize("point", ["sync.driver-merged", "sync.merge-committed", "sync.merged"])
def test_kill_while_a_colliding_generation_is_kept_keeps_both_once(
    tmp_path: Path, point: str
) -> None:
    _remote, (a, b) = hosts(tmp_path, 2)
    ok(a, "index", "add", "qdrant", "--category", "projects", "--match", "qdrant")
    assert settle([a, b], rounds=1) == [0, 0]
    for ws, day in ((a, "2026-11-27"), (b, "2026-11-28")):
        ok(ws, "episodic", "append", f"qdrant work on {ws.name}", "--date", day)
        ok(ws, "consolidate", "qdrant")
    made = sorted(
        (ws / "memory/consolidated/qdrant-gen1-2026-12-01.md").read_bytes() for ws in (a, b)
    )
    ok(a, "sync")
    trace = tmp_path / "trace"
    subprocess.run(
        [*memtier_command(), "--root", str(b), "--now", NOW, "sync"],
        env={**os.environ, "MEMTIER_FAULT": point, "MEMTIER_FAULT_TRACE": str(trace)},
        capture_output=True,
        timeout=120,
    )
    assert set(trace.read_text().split()) == {point}
    assert settle([a, b]) == [0, 0]
    trees = [tracked(ws) for ws in (a, b)]
    assert trees[0] == trees[1]
    kept = sorted(v for k, v in trees[0].items() if k.startswith("memory/consolidated/"))
    assert kept == made  # both, each once
