"""memtier.health.confinement: layout entries that point outside or are not files
(PROTOCOL §3 v2, §6)."""

from __future__ import annotations

import os
from pathlib import Path

from memtier.health.confinement import CHECK_OUTSIDE, CHECK_SPECIAL, confinement_checks
from memtier.workspace import Workspace


def test_a_clean_workspace_has_no_confinement_lines(ws: Workspace) -> None:
    assert confinement_checks(ws) == []


def test_a_memory_file_linked_outside_fails(ws: Workspace, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("# x\n")
    ws.hot.unlink()
    ws.hot.symlink_to(outside)
    note = ws.episodic_dir / "2026-11-01.md"
    note.symlink_to(outside)
    checks = confinement_checks(ws)
    assert [(c.id, c.path, c.message) for c in checks] == [
        (CHECK_OUTSIDE, "MEMORY.md", "MEMORY.md — points outside the workspace"),
        (
            CHECK_OUTSIDE,
            "memory/episodic/2026-11-01.md",
            "memory/episodic/2026-11-01.md — points outside the workspace",
        ),
    ]


def test_a_link_that_stays_inside_is_fine(ws: Workspace) -> None:
    (ws.episodic_dir / "2026-11-01.md").write_text("# x\n")
    (ws.episodic_dir / "2026-11-02.md").symlink_to(ws.episodic_dir / "2026-11-01.md")
    assert confinement_checks(ws) == []


def test_a_fifo_where_a_note_belongs_fails_and_is_never_opened(ws: Workspace) -> None:
    os.mkfifo(ws.episodic_dir / "2026-11-03.md")
    os.mkfifo(ws.episodic_dir / "not-a-note.txt")  # not a .md entry: not a memory file
    (check,) = confinement_checks(ws)
    assert check.id == CHECK_SPECIAL and check.path == "memory/episodic/2026-11-03.md"
    assert "not a regular file" in check.message


def test_a_folder_linked_outside_fails_once_and_its_notes_are_not_listed(
    ws: Workspace, tmp_path: Path
) -> None:
    outside = tmp_path / "cold"
    outside.mkdir()
    (outside / "2026-11-01.md").symlink_to("/dev/null")
    for entry in ws.episodic_dir.iterdir():
        entry.unlink()
    ws.episodic_dir.rmdir()
    ws.episodic_dir.symlink_to(outside)
    assert [(c.id, c.path) for c in confinement_checks(ws)] == [(CHECK_OUTSIDE, "memory/episodic")]
