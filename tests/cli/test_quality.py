"""The package stays lint-clean and type-clean: ruff and mypy --strict, as configured
in pyproject.toml, run as part of the suite so CI enforces them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO


def _tool(name: str) -> str:
    beside = Path(sys.executable).with_name(name)
    found = str(beside) if beside.exists() else shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (it comes with the 'test' extra)")
    return found


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=300)


def test_ruff_lint_is_clean() -> None:
    proc = _run(_tool("ruff"), "check", "--no-cache", ".")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format_is_clean() -> None:
    proc = _run(_tool("ruff"), "format", "--check", "--no-cache", ".")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_strict_is_clean() -> None:
    proc = _run(sys.executable, "-m", "mypy", "--no-incremental", "memtier")
    assert proc.returncode == 0, proc.stdout + proc.stderr
