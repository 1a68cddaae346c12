"""TTL archival (PROTOCOL §7): ages, pins, canonical files, collisions, dry runs."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from memtier.commands.archive import archive, archive_episodic, archive_learnings
from memtier.workspace import Workspace
from tests.conftest import NOW, CliRunner

DAY = 86400
Snapshot = Callable[[Path], dict[str, bytes]]


def note(ws: Workspace, name: str, text: str = "# note\n") -> Path:
    path = ws.episodic_dir / name
    path.write_text(text, encoding="utf-8")
    return path


def stray(ws: Workspace, name: str, age_seconds: float, text: str = "- old lesson\n") -> Path:
    path = ws.learnings_dir / name
    path.write_text(text, encoding="utf-8")
    moment = NOW.timestamp() - age_seconds
    os.utime(path, (moment, moment))
    return path


def test_episodic_exactly_n_days_stays_and_n_plus_one_moves(ws: Workspace) -> None:
    kept = note(ws, "2026-10-31.md")  # 30 days before 2026-11-30
    moved = note(ws, "2026-10-30.md")  # 31 days
    result = archive_episodic(ws)
    assert kept.exists()
    assert not moved.exists()
    assert (ws.archive_dir / "2026/10/2026-10-30.md").read_text() == "# note\n"
    assert [m.to_json() for m in result.moved] == [
        {"from": "memory/episodic/2026-10-30.md", "to": "memory/archive/2026/10/2026-10-30.md"}
    ]


def test_days_option_changes_the_limit(ws: Workspace) -> None:
    kept = note(ws, "2026-11-23.md")
    moved = note(ws, "2026-11-22.md")
    archive_episodic(ws, days=7)
    assert kept.exists() and not moved.exists()
    assert (ws.archive_dir / "2026/11/2026-11-22.md").exists()


def test_name_date_rules_not_modification_time(ws: Workspace) -> None:
    old_name = note(ws, "2025-01-15.md")
    os.utime(old_name, (NOW.timestamp(), NOW.timestamp()))  # edited just now
    archive_episodic(ws)
    assert (ws.archive_dir / "2025/01/2025-01-15.md").exists()


def test_non_date_name_stays_with_a_warning(ws: Workspace) -> None:
    odd = note(ws, "ideas.md")
    bad_date = note(ws, "2026-02-30.md")
    os.utime(odd, (0, 0))
    result = archive_episodic(ws)
    assert odd.exists() and bad_date.exists()
    assert result.moved == ()
    assert len(result.warnings) == 2
    assert "memory/episodic/ideas.md" in result.warnings[1]


def test_learnings_age_by_mtime_at_the_boundary(ws: Workspace) -> None:
    kept = stray(ws, "kept.md", 30 * DAY)
    moved = stray(ws, "moved.md", 30 * DAY + 1)
    result = archive_learnings(ws)
    assert kept.exists() and not moved.exists()
    # YYYY/MM of the modification time: 2026-10-31.
    assert (ws.learnings_archive_dir / "2026/10/moved.md").exists()
    assert [m.month for m in result.moved] == ["2026/10/"]


def test_pinned_at_end_of_line_exempts_but_mid_line_does_not(ws: Workspace) -> None:
    pinned = stray(ws, "pinned.md", 90 * DAY, "- keep me #pinned  \n- other\n")
    mid = stray(ws, "mid.md", 90 * DAY, "- #pinned: not a pin\n")
    result = archive_learnings(ws)
    assert pinned.exists()
    assert not mid.exists()
    assert result.skipped == (".learnings/pinned.md",)


def test_canonical_scratch_files_never_move(ws: Workspace) -> None:
    for path in ws.scratch_files:
        os.utime(path, (0, 0))
    result = archive(ws, "all")
    assert all(p.exists() for p in ws.scratch_files)
    assert result.moved == ()


def test_name_collisions_never_overwrite(ws: Workspace) -> None:
    folder = ws.archive_dir / "2026/10"
    folder.mkdir(parents=True)
    (folder / "2026-10-01.md").write_text("first\n")
    (folder / "2026-10-01.1.md").write_text("second\n")
    note(ws, "2026-10-01.md", "third\n")
    result = archive_episodic(ws)
    assert (folder / "2026-10-01.md").read_text() == "first\n"
    assert (folder / "2026-10-01.1.md").read_text() == "second\n"
    assert (folder / "2026-10-01.2.md").read_text() == "third\n"
    assert result.moved[0].renamed


def test_content_is_byte_identical_after_the_move(ws: Workspace) -> None:
    data = b"\xef\xbb\xbf# note\r\nline \xe2\x9c\x85\r\nno final newline"
    (ws.episodic_dir / "2026-01-02.md").write_bytes(data)
    stray_path = ws.learnings_dir / "binary.md"
    stray_path.write_bytes(b"\x00\xff not utf-8")
    os.utime(stray_path, (0, 0))
    archive(ws)
    assert (ws.archive_dir / "2026/01/2026-01-02.md").read_bytes() == data
    assert (ws.learnings_archive_dir / "1970/01/binary.md").read_bytes() == b"\x00\xff not utf-8"


def test_dry_run_changes_no_byte_and_lists_the_same_moves(
    ws: Workspace, root: Path, snapshot: Snapshot
) -> None:
    note(ws, "2026-09-01.md")
    stray(ws, "old.md", 60 * DAY)
    before = snapshot(root)
    planned = archive(ws, dry_run=True)
    assert snapshot(root) == before
    done = archive(ws)
    # The same moves; the summary says they would happen, not that they did.
    shown = [line.replace("Would archive:", "✅ Archived:") for line in planned.text_lines()]
    assert shown == list(done.text_lines())
    assert list(planned.text_lines())[-1] == "Would archive: 2 files (> 30 days old)"
    assert planned.to_json()["moved"] == done.to_json()["moved"]
    assert planned.to_json()["dry_run"] is True


def test_cli_output_lines_exactly(cli: CliRunner, root: Path) -> None:
    (root / "memory/episodic/2026-09-01.md").write_text("x\n")
    (root / "memory/episodic/2026-10-15.md").write_text("x\n")
    (root / "memory/episodic/notes.md").write_text("x\n")
    result = cli("archive", "episodic", "--root", str(root), "--now", NOW.isoformat())
    assert result.exit_code == 0
    assert result.stdout == (
        "  Archive: 2026-09-01.md → 2026/09/\n"
        "  Archive: 2026-10-15.md → 2026/10/\n"
        "✅ Archived: 2 files (> 30 days old)\n"
    )
    assert "notes.md: name is not a YYYY-MM-DD date" in result.stderr


def test_cli_json_keys(cli: CliRunner, root: Path) -> None:
    (root / "memory/episodic/2026-09-01.md").write_text("x\n")
    result = cli(
        "archive",
        "--days",
        "10",
        "--dry-run",
        "--json",
        "--root",
        str(root),
        "--now",
        NOW.isoformat(),
    )
    assert result.exit_code == 0
    payload = json.loads(result.stdout)
    assert set(payload) == {"moved", "skipped", "warnings", "days", "days_by_kind", "dry_run"}
    assert payload["days"] == 10 and payload["dry_run"] is True
    assert payload["moved"] == [
        {"from": "memory/episodic/2026-09-01.md", "to": "memory/archive/2026/09/2026-09-01.md"}
    ]
    assert (root / "memory/episodic/2026-09-01.md").exists()


@pytest.mark.parametrize("args", [("sideways",), ("--days", "-1"), ("--days", "many")])
def test_cli_bad_input_is_exit_2(cli: CliRunner, root: Path, args: tuple[str, ...]) -> None:
    result = cli("archive", *args, "--root", str(root))
    assert result.exit_code == 2
    assert result.stderr.startswith("memtier: error:")


def test_kind_limits_what_moves(ws: Workspace) -> None:
    old_note = note(ws, "2026-01-01.md")
    old_stray = stray(ws, "old.md", 90 * DAY)
    archive(ws, "learnings")
    assert old_note.exists() and not old_stray.exists()


def test_store_move_files_batch_never_overwrites(tmp_path: Path) -> None:
    from memtier.batchmove import move_files

    src = tmp_path / "src"
    dest = tmp_path / "dest"
    src.mkdir()
    dest.mkdir()
    (dest / "a.md").write_text("kept\n")
    sources = []
    for name in ("a.md", "b.md"):
        (src / name).write_text(name)
        sources.append(src / name)
    moved = move_files(sources, dest, root=tmp_path)
    assert [p.name for p in moved] == ["a.1.md", "b.md"]
    assert (dest / "a.md").read_text() == "kept\n" and (dest / "a.1.md").read_text() == "a.md"
    assert not list(src.iterdir())
    assert move_files([], dest, root=tmp_path) == []
