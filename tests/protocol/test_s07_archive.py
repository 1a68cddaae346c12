"""PROTOCOL §7, TTL archival: episodic notes by their name's date, learnings by age and
pin, a move that never overwrites, the output lines, --dry-run and usage errors."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CliRunner
from tests.protocol.support import as_json, mt


def _age(path: Path, days: int) -> None:
    moment = 1_796_029_200 - days * 86_400  # 2026-11-30T09:00Z minus days
    os.utime(path, (moment, moment))


# -- episodic --------------------------------------------------------------------------


def test_archive_days_option_and_non_date_names(root: Path, cli: CliRunner) -> None:
    episodic = root / "memory" / "episodic"
    (episodic / "2026-10-01.md").write_text("x\n")
    (episodic / "2026-10-20.md").write_text("y\n")
    (episodic / "notes.md").write_text("z\n")
    result = mt(cli, root, "archive", "episodic", "--days", "45")
    assert result.stdout.splitlines() == [
        "  Archive: 2026-10-01.md → 2026/10/",
        "✅ Archived: 1 files (> 45 days old)",
    ]
    assert "notes.md" in result.stderr and (episodic / "notes.md").exists()


# -- learnings -------------------------------------------------------------------------


def test_archive_learnings_rules(root: Path, cli: CliRunner) -> None:
    learn = root / ".learnings"
    (learn / "old.md").write_text("- 2026-08-01 old\n")
    (learn / "pinned.md").write_text("- 2026-08-01 keep #pinned\n")
    (learn / "recent.md").write_text("- 2026-11-20 recent\n")
    _age(learn / "old.md", 60)
    _age(learn / "pinned.md", 60)
    _age(learn / "recent.md", 5)
    _age(learn / "ERRORS.md", 90)
    result = mt(cli, root, "archive", "learnings")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1] == "✅ Archived: 1 files (> 30 days old)"
    assert "  Archive: old.md → 2026/10/" in result.stdout.splitlines()
    moved = root / "memory" / "archive" / "learnings" / "2026" / "10" / "old.md"
    assert moved.read_text() == "- 2026-08-01 old\n"
    assert {p.name for p in learn.iterdir()} == {
        "ERRORS.md",
        "LEARNINGS.md",
        "FEATURE_REQUESTS.md",
        "pinned.md",
        "recent.md",
    }


# -- never overwrite -------------------------------------------------------------------


def test_archive_counts_past_every_taken_name(cli: CliRunner, root: Path) -> None:
    folder = root / "memory/archive/2026/10"
    folder.mkdir(parents=True)
    (folder / "2026-10-01.md").write_text("first\n")
    (folder / "2026-10-01.1.md").write_text("second\n")
    (root / "memory/episodic/2026-10-01.md").write_bytes(b"third\r\nbytes \xc3\xa9\n")
    data = as_json(mt(cli, root, "archive", "episodic", "--json"))
    assert data["moved"] == [
        {"from": "memory/episodic/2026-10-01.md", "to": "memory/archive/2026/10/2026-10-01.2.md"}
    ]
    assert (folder / "2026-10-01.md").read_text() == "first\n"
    assert (folder / "2026-10-01.1.md").read_text() == "second\n"
    assert (folder / "2026-10-01.2.md").read_bytes() == b"third\r\nbytes \xc3\xa9\n"


# -- output ----------------------------------------------------------------------------


def test_archive_output_lines_and_destinations(root: Path, cli: CliRunner) -> None:
    episodic = root / "memory" / "episodic"
    for day in ("2026-10-30", "2026-10-31", "2026-09-15"):
        (episodic / f"{day}.md").write_text(f"{day}\n")
    taken = root / "memory" / "archive" / "2026" / "09" / "2026-09-15.md"
    taken.parent.mkdir(parents=True)
    taken.write_text("already here\n")
    result = mt(cli, root, "archive", "episodic")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "  Archive: 2026-09-15.md → 2026/09/",
        "  Archive: 2026-10-30.md → 2026/10/",
        "✅ Archived: 2 files (> 30 days old)",
    ]
    assert taken.read_text() == "already here\n"
    assert (taken.parent / "2026-09-15.1.md").read_text() == "2026-09-15\n"
    assert (episodic / "2026-10-31.md").exists()  # exactly 30 days: not "more than"


def test_archive_all_with_different_ttls_prints_one_summary_per_kind(
    root: Path, cli: CliRunner
) -> None:
    (root / "memory" / "memtier.toml").write_text(
        "episodic_ttl_days = 10\nlearnings_ttl_days = 20\n"
    )
    (root / "memory" / "episodic" / "2026-11-01.md").write_text("x\n")
    stray = root / ".learnings" / "stray.md"
    stray.write_text("- 2026-10-01 stray\n")
    _age(stray, 25)
    result = mt(cli, root, "archive")
    assert result.stdout.splitlines() == [
        "  Archive: 2026-11-01.md → 2026/11/",
        "✅ Archived: 1 files (> 10 days old)",
        "  Archive: stray.md → 2026/11/",
        "✅ Archived: 1 files (> 20 days old)",
    ]


def test_archive_dry_run_moves_nothing(
    root: Path, cli: CliRunner, snapshot: Callable[[Path], dict[str, bytes]]
) -> None:
    (root / "memory" / "episodic" / "2026-01-01.md").write_text("x\n")
    before = snapshot(root)
    result = mt(cli, root, "archive", "--dry-run")
    assert "  Archive: 2026-01-01.md → 2026/01/" in result.stdout.splitlines()
    assert snapshot(root) == before


@pytest.mark.parametrize("args", [("archive", "everything"), ("archive", "--days", "-3")])
def test_archive_usage_errors(root: Path, cli: CliRunner, args: tuple[str, ...]) -> None:
    result = mt(cli, root, *args)
    assert result.exit_code == 2 and result.stderr.startswith("memtier: error:")
