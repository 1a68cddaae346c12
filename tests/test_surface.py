"""The one adapter both faces open the workspace through (memtier.surface)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtier.errors import InputError
from memtier.surface import Surface, error_line
from tests.conftest import NOW, NOW_TEXT


def test_the_face_s_own_options_beat_the_environment(root: Path, tmp_path: Path) -> None:
    other = tmp_path / "elsewhere"
    env = {"MEMTIER_ROOT": str(other), "MEMTIER_NOW": "2020-01-01T00:00:00+00:00"}
    face = Surface(root=str(root), now=NOW_TEXT, cwd=tmp_path, environ=env)
    ws = face.workspace()
    assert (ws.root, ws.now) == (root.absolute(), NOW)


def test_the_environment_names_root_and_time_when_the_face_does_not(
    root: Path, tmp_path: Path
) -> None:
    env = {"MEMTIER_ROOT": str(root), "MEMTIER_NOW": NOW_TEXT}
    ws = Surface(cwd=tmp_path, environ=env).workspace()
    assert (ws.root, ws.now) == (root.absolute(), NOW)


def test_only_the_given_environment_is_read(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMTIER_ROOT", str(root))
    assert Surface(cwd=tmp_path, environ={}).explicit_root() is None
    assert Surface.of_process().explicit_root() == str(root)


def test_a_relative_path_is_read_from_the_root_for_an_agent(root: Path) -> None:
    inside = root / "memory"
    face = Surface(cwd=inside)
    assert face.user_path(root, "semantic/x.md") == inside / "semantic/x.md"
    assert face.user_path(root, "memory/x.md", from_cwd=False) == root / "memory/x.md"
    assert Surface(cwd=Path("/")).user_path(root, "memory/x.md") == root / "memory/x.md"
    with pytest.raises(InputError):
        face.user_path(root, "a\0b")


def test_the_scanner_follows_memtier_rg(tmp_path: Path) -> None:
    assert Surface(environ={"MEMTIER_RG": "none"}).scanner().rg is None
    missing = Surface(environ={"MEMTIER_RG": str(tmp_path / "no-rg")}).scanner()
    assert missing.rg is None
    assert missing.warnings and "not found; using the built-in scanner" in missing.warnings[0]
    assert Surface(environ={}).scanner().warnings == ()


def test_an_error_line_is_one_line_and_never_repeats_a_key() -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    line = error_line(f"no task matches\n'{token}'")
    assert "\n" not in line
    assert token not in line and "[REDACTED:" in line
