"""The second worker's head start on a fresh checkout (tests/rewrite_ahead.py)."""

from __future__ import annotations

import marshal
from pathlib import Path
from types import CodeType, SimpleNamespace

import pytest

from tests.rewrite_ahead import is_second_worker, rewrite_from_the_end


def _names(code: CodeType) -> set[str]:
    """Every name the code and the code nested in it uses."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, CodeType):
            names |= _names(const)
    return names


def test_missing_rewrites_are_written_and_kept_ones_left(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    (tmp_path / "deep").mkdir()
    for path in (tmp_path / "test_a.py", tmp_path / "deep" / "test_b.py"):
        path.write_text("def test_it():\n    assert [1] == [2]\n", encoding="utf-8")
    (tmp_path / "helper.py").write_text("X = 1\n", encoding="utf-8")

    assert rewrite_from_the_end(request.config, tmp_path) == 2
    kept = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.pyc"))
    assert len(kept) == 2 and all("-pytest-" in p for p in kept), kept
    assert not any("helper" in p for p in kept)
    # What was kept is the rewritten module, as pytest would import it: its
    # assertion explains itself through pytest's helpers.
    pyc = next((tmp_path / "deep").rglob("*.pyc")).read_bytes()
    code = marshal.loads(pyc[16:])
    assert any(name.startswith("@py") for name in _names(code)), _names(code)

    assert rewrite_from_the_end(request.config, tmp_path) == 0  # kept: nothing to do


def test_without_pytest_rewriting_it_does_nothing(tmp_path: Path) -> None:
    (tmp_path / "test_a.py").write_text("def test_it():\n    assert 1\n", encoding="utf-8")
    config = SimpleNamespace(stash={})
    assert rewrite_from_the_end(config, tmp_path) == 0  # type: ignore[arg-type]
    assert not list(tmp_path.rglob("*.pyc"))


def test_only_the_second_worker_goes_ahead() -> None:
    def config(worker: object) -> pytest.Config:
        return SimpleNamespace(workerinput=worker)  # type: ignore[return-value]

    assert is_second_worker(config({"workerid": "gw1"}))
    assert not is_second_worker(config({"workerid": "gw0"}))
    assert not is_second_worker(config(None))
    assert not is_second_worker(SimpleNamespace())  # type: ignore[arg-type]
