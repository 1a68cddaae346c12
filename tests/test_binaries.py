"""`find_binary`: explicit choice, then beside the running Python, then PATH."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from memtier.binaries import find_binary


def _program(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


@pytest.mark.parametrize("name", ["rg", "memtier"])
def test_beside_python_then_path_then_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    fake_python = tmp_path / "venv" / "bin" / "python"
    fake_python.parent.mkdir(parents=True)
    fake_python.write_text("")
    monkeypatch.setattr(sys, "executable", str(fake_python))
    on_path = _program(tmp_path / "path" / name)
    monkeypatch.setenv("PATH", str(on_path.parent))
    beside = _program(fake_python.parent / name)
    assert find_binary(name) == str(beside)
    beside.unlink()
    assert find_binary(name) == str(on_path)
    on_path.unlink()
    assert find_binary(name) is None


def test_a_file_that_cannot_run_is_not_a_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_python = tmp_path / "bin" / "python"
    fake_python.parent.mkdir()
    fake_python.write_text("")
    (tmp_path / "bin" / "rg").write_text("not executable")
    monkeypatch.setattr(sys, "executable", str(fake_python))
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert find_binary("rg") is None


def test_an_override_is_the_only_candidate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    chosen = _program(tmp_path / "tools" / "my-rg")
    monkeypatch.setenv("PATH", str(chosen.parent))
    assert find_binary("rg", str(chosen)) == str(chosen)
    assert find_binary("rg", "my-rg") == str(chosen)
    assert find_binary("rg", str(tmp_path / "missing")) is None
