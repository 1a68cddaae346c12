"""PROTOCOL §14 health: the damage plain git does, and the sync checks."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from memtier.workspace import SYNC_GIT_DIR
from tests.conftest import new_workspace
from tests.sync_support import git, hosts, memtier, ok

pytestmark = pytest.mark.skipif(
    __import__("shutil").which("git") is None, reason="needs the git executable"
)


def _checks(ws: Path) -> dict[str, list[dict[str, str]]]:
    done = memtier(ws, "health-check", "--json")
    found: dict[str, list[dict[str, str]]] = {}
    for check in json.loads(done.stdout)["checks"]:
        found.setdefault(check["id"], []).append(check)
    return found


def _plain(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def test_a_union_merge_by_hand_is_named_by_health(tmp_path: Path) -> None:
    """Two plain clones with ``merge=union`` rotate into the same day and merge: git
    says it succeeded, the note is damaged, and health names it. (Since the blank
    line before each closure block, git's union keeps one block with two ``Open:``
    lines; the case of a second block above a valid last one is the next test's.)"""
    one = new_workspace(tmp_path / "one")
    _plain(one, "init", "-q", "-b", "main")
    _plain(one, "config", "user.email", "a@example.org")
    _plain(one, "config", "user.name", "a")
    (one / ".gitattributes").write_text("*.md merge=union\n")
    _plain(one, "add", "-A")
    _plain(one, "commit", "-qm", "base")
    two = tmp_path / "two"
    _plain(tmp_path, "clone", "-q", str(one), str(two))
    _plain(two, "config", "user.email", "b@example.org")
    _plain(two, "config", "user.name", "b")
    for n, ws in enumerate((one, two)):
        ok(ws, "buffer", "task", f"task {n}", now=f"2026-12-01T1{n}:00:00+01:00")
        ok(ws, "session-end", now=f"2026-12-01T1{n}:00:00+01:00")
        _plain(ws, "add", "-A", "memory/episodic")
        _plain(ws, "commit", "-qm", f"day on {n}")
    _plain(one, "pull", "-q", "--no-rebase", str(two), "main")  # "succeeds"
    checks = _checks(one)
    failed = [c for name in ("episodic.closure", "episodic.closure.unique") for c in checks[name]]
    failed = [c for c in failed if c["status"] == "fail"]
    assert [c["path"] for c in failed] == ["memory/episodic/2026-12-01.md"]


def test_a_second_block_above_a_valid_last_one_fails_closure_unique(root: Path) -> None:
    """The last four lines are a valid block, so the compat check passes; the block
    above it is what `episodic.closure.unique` is for."""
    note = root / "memory/episodic/2026-11-30.md"
    block = "Updated: 2026-11-30\nDecisions: d\nSignal: s\nOpen: {}\n"
    note.write_text("# 2026-11-30\n\n" + block.format("one") + "\n" + block.format("two"))
    checks = _checks(root)
    assert [c["status"] for c in checks["episodic.closure"]] == ["pass"]
    (unique,) = checks["episodic.closure.unique"]
    assert unique["status"] == "fail"
    assert unique["path"] == "memory/episodic/2026-11-30.md"


def test_a_note_with_one_block_passes_closure_unique(root: Path) -> None:
    ok(root, "episodic", "append", "a line")
    assert [c["status"] for c in _checks(root)["episodic.closure.unique"]] == ["pass"]


def test_sync_checks_name_markers_drivers_tracked_buffer_and_merges(tmp_path: Path) -> None:
    _remote, (a,) = hosts(tmp_path, 1)
    ok(a, "sync")
    checks = _checks(a)
    for name in ("sync.state", "sync.markers", "sync.driver", "sync.local", "sync.stale"):
        assert [c["status"] for c in checks[name]] == ["pass"], name
    infra = a / "memory/semantic/infrastructure.md"
    infra.write_text(infra.read_text() + "<<<<<<< ours\n- x\n=======\n- y\n>>>>>>> theirs\n")
    git(a, "config", "--unset", "merge.memtier-fact.driver")
    ok(a, "session-start")
    git(a, "add", "-f", "memory/working-buffer.md")
    (a / SYNC_GIT_DIR / "MERGE_HEAD").write_text(git(a, "rev-parse", "HEAD"))
    checks = _checks(a)
    assert checks["sync.markers"][0]["status"] == "fail"
    assert checks["sync.markers"][0]["message"].startswith("memory/semantic/infrastructure.md:")
    assert "memtier-fact" in checks["sync.driver"][0]["message"]
    assert checks["sync.local"][0]["path"] == "memory/working-buffer.md"
    assert checks["sync.state"][0]["status"] == "fail"
    assert memtier(a, "health-check").returncode == 1


def test_sync_stale_warns_after_sync_warn_hours(tmp_path: Path) -> None:
    _remote, (a,) = hosts(tmp_path, 1)
    ok(a, "sync", now="2026-12-01T09:00:00+01:00")
    done = memtier(a, "health-check", "--json", now="2026-12-04T09:00:00+01:00")
    stale = [c for c in json.loads(done.stdout)["checks"] if c["id"] == "sync.stale"]
    assert stale[0]["status"] == "warn" and "72 hours" in stale[0]["message"]


def test_sync_markers_runs_without_sync_too(tmp_path: Path) -> None:
    """A marker from a hand merge (plain git, no memtier sync) harms as much (§14)."""
    root = new_workspace(tmp_path / "ws")
    assert [c["status"] for c in _checks(root)["sync.markers"]] == ["pass"]
    for rel in ("memory/semantic/infrastructure.md", ".learnings/ERRORS.md", "memory/INDEX.md"):
        path = root / rel
        old = path.read_text() if path.exists() else ""
        path.write_text(old + "<<<<<<< HEAD\n- x\n=======\n- y\n>>>>>>> theirs\n")
        (found,) = _checks(root)["sync.markers"]
        assert found["status"] == "fail" and found["message"].startswith(f"{rel}:"), found
        path.write_text(old) if old else path.unlink()
    checks = _checks(root)
    assert not [k for k in checks if k.startswith("sync.") and k != "sync.markers"]
    assert memtier(root, "health-check").returncode == 0
