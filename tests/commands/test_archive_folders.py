"""Archive month folders (PROTOCOL §7, §3): made once, confined, never through a link out.

`store.moves.move_batches` confines each parent once and makes the month folders
under it directly; these pin that a month folder that is not a plain folder
still takes the general checks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memtier.errors import ConfinementError, InputError
from memtier.store.moves import move_batches


def _sources(folder: Path, *names: str) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_text(f"{name}\n")
    return [folder / name for name in names]


def test_new_month_folders_are_made_and_filled(tmp_path: Path) -> None:
    sources = _sources(tmp_path / "src", "a.md", "b.md")
    archive = tmp_path / "archive"
    moved = move_batches(
        {archive / "2025" / "01": sources[:1], archive / "2025" / "02": sources[1:]},
        root=tmp_path,
    )
    assert moved == {archive / "2025" / "01": ["a.md"], archive / "2025" / "02": ["b.md"]}
    assert (archive / "2025" / "01" / "a.md").read_text() == "a.md\n"
    assert (archive / "2025" / "02" / "b.md").read_text() == "b.md\n"


def test_a_month_folder_linked_outside_is_refused_and_nothing_moves(
    tmp_path: Path,
) -> None:
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    outside.mkdir()
    sources = _sources(root / "src", "a.md")
    (root / "archive" / "2025").mkdir(parents=True)
    (root / "archive" / "2025" / "01").symlink_to(outside, target_is_directory=True)
    with pytest.raises(ConfinementError):
        move_batches({root / "archive" / "2025" / "01": sources}, root=root)
    assert sources[0].read_text() == "a.md\n"
    assert not list(outside.iterdir())


def test_a_month_folder_linked_inside_receives_the_files_in_its_target(tmp_path: Path) -> None:
    sources = _sources(tmp_path / "src", "a.md")
    target = tmp_path / "elsewhere"
    target.mkdir()
    (tmp_path / "archive" / "2025").mkdir(parents=True)
    (tmp_path / "archive" / "2025" / "01").symlink_to(target, target_is_directory=True)
    moved = move_batches({tmp_path / "archive" / "2025" / "01": sources}, root=tmp_path)
    assert moved[tmp_path / "archive" / "2025" / "01"] == ["a.md"]
    assert (target / "a.md").read_text() == "a.md\n"


def test_a_file_where_a_month_folder_belongs_is_an_input_error(tmp_path: Path) -> None:
    sources = _sources(tmp_path / "src", "a.md")
    (tmp_path / "archive" / "2025").mkdir(parents=True)
    (tmp_path / "archive" / "2025" / "01").write_text("not a folder\n")
    with pytest.raises(InputError, match="exists and is not a folder"):
        move_batches({tmp_path / "archive" / "2025" / "01": sources}, root=tmp_path)
    assert sources[0].read_text() == "a.md\n"


def test_an_existing_month_folder_keeps_its_files(tmp_path: Path) -> None:
    sources = _sources(tmp_path / "src", "a.md")
    month = tmp_path / "archive" / "2025" / "01"
    month.mkdir(parents=True)
    (month / "a.md").write_text("older\n")
    moved = move_batches({month: sources}, root=tmp_path)
    assert moved[month] == ["a.1.md"]
    assert (month / "a.md").read_text() == "older\n"
    assert (month / "a.1.md").read_text() == "a.md\n"
