"""memtier.store.moves: batch moves of an archive pass (PROTOCOL §7), each a rename
that never overwrites, confined like `store.move_file`."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtier.errors import ConfinementError
from memtier.store.moves import move_batches, move_files


def _files(folder: Path, *names: str) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_text(f"{name}\n")
    return [folder / name for name in names]


def test_batches_go_to_their_folders_under_free_names(tmp_path: Path) -> None:
    episodic = tmp_path / "memory" / "episodic"
    jan, feb = _files(episodic, "2026-01-05.md", "2026-02-07.md")
    archive = tmp_path / "memory" / "archive" / "2026"
    _files(archive / "01", "2026-01-05.md")  # already taken there
    moved = move_batches({archive / "01": [jan], archive / "02": [str(feb)]}, root=tmp_path)
    assert moved == {archive / "01": ["2026-01-05.1.md"], archive / "02": ["2026-02-07.md"]}
    assert not jan.exists() and not feb.exists()
    assert (archive / "01" / "2026-01-05.md").read_text() == "2026-01-05.md\n"
    assert (archive / "01" / "2026-01-05.1.md").read_text() == "2026-01-05.md\n"
    assert (archive / "02" / "2026-02-07.md").read_text() == "2026-02-07.md\n"


def test_two_sources_of_one_name_in_one_batch_both_survive(tmp_path: Path) -> None:
    (a,) = _files(tmp_path / "a", "x.md")
    (b,) = _files(tmp_path / "b", "x.md")
    (b).write_text("from b\n")
    into = tmp_path / "into"
    paths = move_files([a, b], into, root=tmp_path)
    assert [p.name for p in paths] == ["x.md", "x.1.md"]
    assert [p.read_text() for p in paths] == ["x.md\n", "from b\n"]
    assert all(p.parent == into.resolve() for p in paths)


def test_an_empty_batch_makes_no_folder(tmp_path: Path) -> None:
    assert move_batches({tmp_path / "never": []}, root=tmp_path) == {tmp_path / "never": []}
    assert not (tmp_path / "never").exists()


def test_a_source_outside_the_root_is_refused_and_stays(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (outside,) = _files(tmp_path / "outside", "x.md")
    with pytest.raises(ConfinementError):
        move_files([outside], root / "into", root=root)
    assert outside.read_text() == "x.md\n"


def test_a_destination_through_a_link_out_of_the_root_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (note,) = _files(root, "x.md")
    (tmp_path / "outside").mkdir()
    (root / "archive").symlink_to(tmp_path / "outside")
    with pytest.raises(ConfinementError):
        move_batches({root / "archive" / "2026": [note]}, root=root)
    assert note.exists() and list((tmp_path / "outside").iterdir()) == []
