"""memtier.commands.skill: the SKILL.md shipped with memtier, shown or installed (PROTOCOL §11)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtier.commands.skill import (
    DESCRIPTION_LIMIT,
    front_matter,
    install_skill,
    show_skill,
    skill_text,
)
from memtier.errors import InputError


def test_front_matter_reads_key_value_lines_between_the_fences() -> None:
    assert front_matter("---\nname: memtier\ndescription: a: b\n---\nname: body\n") == {
        "name": "memtier",
        "description": "a: b",
    }
    assert front_matter("no fences\nname: x\n") == {}


def test_the_shipped_skill_has_a_name_and_a_short_description() -> None:
    meta = front_matter(skill_text())
    assert meta["name"] == "memtier"
    assert 0 < len(meta["description"]) <= DESCRIPTION_LIMIT


def test_install_creates_then_updates(tmp_path: Path) -> None:
    first = install_skill(tmp_path)
    target = tmp_path / "memtier" / "SKILL.md"
    assert first.created and first.installed == str(target)
    assert target.read_text(encoding="utf-8") == skill_text()
    target.write_text("old\n")
    second = install_skill(tmp_path)
    assert not second.created and list(second.text_lines()) == [f"updated {target}"]
    assert target.read_text(encoding="utf-8") == skill_text()
    assert "text" not in second.to_json()


def test_install_into_a_missing_folder_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is not a directory"):
        install_skill(tmp_path / "missing")


def test_show_carries_the_text_in_json() -> None:
    shown = show_skill().to_json()
    assert shown["installed"] is None and shown["text"] == skill_text()
