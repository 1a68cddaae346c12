"""`memtier init`: the layout of PROTOCOL §1, valid headers (§2), never overwriting."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from memtier.commands.init import init_workspace
from memtier.config import Config
from memtier.workspace import SCRATCH_FILES
from tests.conftest import NOW, NOW_TEXT, CliRunner, new_workspace

WARM = [
    "memory/semantic/infrastructure.md",
    "memory/semantic/preferences.md",
    "memory/semantic/projects.md",
    "memory/semantic/decisions.md",
    "memory/procedural/lessons-learned.md",
]


def test_fresh_workspace_has_every_file_and_folder(root: Path) -> None:
    for folder in ("memory/episodic", "memory/semantic", "memory/procedural", "memory/archive"):
        assert (root / folder).is_dir(), folder
    for name in SCRATCH_FILES:
        assert (root / ".learnings" / name).is_file()
    for rel in WARM:
        assert (root / rel).is_file(), rel
    assert (root / "memory" / "working-buffer.md").is_file()


def test_memory_md_header_is_canonical(root: Path) -> None:
    lines = (root / "MEMORY.md").read_text().split("\n")
    assert lines[0] == "# Agent Memory"
    assert lines[1] == "#tags: memory, workflow"
    assert lines[2] == "last_verified: 2026-11-30"
    assert lines[3] == "last_updated: 2026-11-30"
    assert (root / "MEMORY.md").read_text().count("\n") <= 60


def test_warm_headers_have_vocabulary_tags_and_today(root: Path) -> None:
    vocabulary = Config().vocabulary
    for rel in WARM:
        lines = (root / rel).read_text().split("\n")
        assert lines[0].startswith("# ")
        assert lines[1].startswith("#tags:")
        tags = [t for t in re.split(r"[\s,|]+", lines[1][len("#tags:") :]) if t]
        assert tags and all(t in vocabulary for t in tags), (rel, tags)
        assert lines[2] == "> last_verified: 2026-11-30"


def test_buffer_header_is_exact(root: Path) -> None:
    text = (root / "memory" / "working-buffer.md").read_text()
    assert text == (
        f"# Working Buffer\ncreated: {NOW_TEXT}\nlast_active: {NOW_TEXT}\n\n## Active Task:\n"
    )


def test_every_written_file_ends_with_newline(root: Path) -> None:
    for path in root.rglob("*"):
        if path.is_file() and path.name != ".memtier.lock":
            assert path.read_bytes().endswith(b"\n"), path


def test_tags_follow_the_configured_vocabulary(tmp_path: Path) -> None:
    config = Config(vocabulary=("memory", "docker"))
    init_workspace(tmp_path, NOW, config)
    assert (tmp_path / "MEMORY.md").read_text().split("\n")[1] == "#tags: memory"
    assert (tmp_path / WARM[0]).read_text().split("\n")[1] == "#tags:"


def test_existing_config_is_used(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "memtier.toml").write_text('vocabulary = ["workflow"]\n')
    init_workspace(tmp_path, NOW)
    assert (tmp_path / "MEMORY.md").read_text().split("\n")[1] == "#tags: workflow"
    assert (tmp_path / "memory" / "memtier.toml").read_text() == 'vocabulary = ["workflow"]\n'


def test_second_run_creates_nothing_and_changes_no_byte(
    tmp_path: Path, cli: CliRunner, snapshot: Callable[[Path], dict[str, bytes]]
) -> None:
    first = cli("init", "--root", str(tmp_path), "--now", NOW_TEXT, "--json")
    assert first.exit_code == 0
    created = json.loads(first.stdout)["created"]
    assert "MEMORY.md" in created and "memory/working-buffer.md" in created
    before = snapshot(tmp_path)
    second = cli("init", "--root", str(tmp_path), "--now", "2027-01-01T00:00:00Z", "--json")
    assert second.exit_code == 0
    assert json.loads(second.stdout)["created"] == []
    assert snapshot(tmp_path) == before
    text = cli("init", "--root", str(tmp_path)).stdout
    assert "nothing to create" in text


def test_hand_written_memory_md_is_kept(tmp_path: Path, cli: CliRunner) -> None:
    mine = b"# My own notes\r\nnot the canonical header\r\n"
    (tmp_path / "MEMORY.md").write_bytes(mine)
    result = cli("init", "--root", str(tmp_path), "--now", NOW_TEXT)
    assert result.exit_code == 0
    assert (tmp_path / "MEMORY.md").read_bytes() == mine
    assert "created MEMORY.md" not in result.stdout
    assert "created memory/working-buffer.md" in result.stdout


def test_init_honours_the_environment_then_the_current_directory(
    tmp_path: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.setenv("MEMTIER_ROOT", str(elsewhere))
    assert cli("init", cwd=here).exit_code == 0
    assert (elsewhere / "MEMORY.md").is_file()  # like every command (PROTOCOL §1)
    assert not (here / "MEMORY.md").exists()
    monkeypatch.delenv("MEMTIER_ROOT")
    assert cli("init", cwd=here).exit_code == 0
    assert (here / "MEMORY.md").is_file()


def test_init_creates_a_missing_root_folder(tmp_path: Path, cli: CliRunner) -> None:
    target = tmp_path / "a" / "b"
    assert cli("init", "--root", str(target)).exit_code == 0
    assert (target / "MEMORY.md").is_file()


def test_init_onto_a_file_is_an_error(tmp_path: Path, cli: CliRunner) -> None:
    (tmp_path / "file").write_text("x\n")
    result = cli("init", "--root", str(tmp_path / "file"))
    assert result.exit_code == 2
    assert result.stderr.startswith("memtier: error: ")
    assert "Traceback" not in result.stderr


def test_the_suites_copied_workspace_is_what_init_makes(
    tmp_path: Path, snapshot: Callable[[Path], dict[str, bytes]]
) -> None:
    """Every test's `root` is a copy of one workspace; it must equal a real init."""
    made = tmp_path / "made"
    made.mkdir()
    init_workspace(made, NOW)
    copied = new_workspace(tmp_path / "copied")
    assert snapshot(copied) == snapshot(made)

    def shape(folder: Path) -> dict[str, int]:
        return {p.relative_to(folder).as_posix(): p.stat().st_mode for p in folder.rglob("*")}

    assert shape(copied) == shape(made)
