"""Maintenance commands as real processes: concurrency with a live session, crashes."""

from __future__ import annotations

import subprocess
from datetime import timedelta
from pathlib import Path

import pytest

from tests.conftest import NOW, memtier_command, run_memtier

LATER = (NOW + timedelta(hours=3)).isoformat()


def test_weekly_review_beside_concurrent_learn_loses_no_line(root: Path) -> None:
    (root / "memory/episodic/2026-09-01.md").write_text("old\n")
    errors = root / ".learnings/ERRORS.md"
    errors.write_text("# Errors\n" + "- 2026-11-01 flaky dns\n" * 3)
    base = [*memtier_command(), "--root", str(root)]
    procs = [
        subprocess.Popen(
            [*base, "learn", "error", f"lesson number {n}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for n in range(6)
    ]
    review = run_memtier("--root", str(root), "--now", LATER, "weekly-review")
    for proc in procs:
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
    assert review.returncode == 0, review.stderr
    text = errors.read_text()
    assert all(f"lesson number {n}\n" in text for n in range(6))
    assert text.count("flaky dns [PROMOTE-CANDIDATE]") == 1
    assert (root / "memory/archive/2026/09/2026-09-01.md").exists()


@pytest.mark.slow
@pytest.mark.parametrize("point", ["archive.before-move", "archive.moved", "store.moved"])
def test_archive_crash_then_rerun_moves_each_file_once(root: Path, point: str) -> None:
    names = ["2026-08-01.md", "2026-08-02.md", "2026-09-03.md"]
    for name in names:
        (root / "memory/episodic" / name).write_text(f"{name}\n")
    crashed = run_memtier(
        "archive", "--root", str(root), "--now", NOW.isoformat(), env={"MEMTIER_FAULT": point}
    )
    assert crashed.returncode == -9
    rerun = run_memtier("archive", "--root", str(root), "--now", NOW.isoformat())
    assert rerun.returncode == 0, rerun.stderr
    archived = sorted(p.name for p in (root / "memory/archive").rglob("*.md"))
    assert archived == sorted(names)
    for name in names:
        month = name[:4] + "/" + name[5:7]
        assert (root / "memory/archive" / month / name).read_text() == f"{name}\n"
    assert not list((root / "memory/episodic").glob("2026-0*.md"))


@pytest.mark.slow
@pytest.mark.parametrize(
    "point", ["archive.moved", "review.before-flag", "review.flagged", "review.before-closure"]
)
def test_weekly_review_crash_then_rerun_is_healthy(root: Path, point: str) -> None:
    (root / "memory/episodic/2026-09-01.md").write_text("old\n")
    errors = root / ".learnings/ERRORS.md"
    errors.write_text("# Errors\n" + "- 2026-11-01 flaky dns\n" * 3)
    args = ("--root", str(root), "--now", LATER, "weekly-review")
    crashed = run_memtier(*args, env={"MEMTIER_FAULT": point})
    assert crashed.returncode == -9
    rerun = run_memtier(*args)
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert errors.read_text().count("[PROMOTE-CANDIDATE]") == 1
    assert (root / "memory/archive/2026/09/2026-09-01.md").read_text() == "old\n"
    health = run_memtier("--root", str(root), "--now", LATER, "health-check")
    assert health.returncode == 0, health.stdout
