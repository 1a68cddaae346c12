"""A checkout of memtier is never a memtier workspace (PROTOCOL §1 root discovery).

A benchmark or test run that once wrote ``MEMORY.md`` and ``memory/`` at the
repository root made every memtier command run inside a checkout find it.
"""

from __future__ import annotations

import subprocess

import pytest

from memtier.errors import WorkspaceNotFound
from memtier.workspace import find_root, is_workspace
from tests.conftest import REPO

MEMORY_PATHS = ("MEMORY.md", "memory", ".learnings")


def _tracked() -> list[str]:
    try:
        done = subprocess.run(
            ["git", "ls-files", "--", *MEMORY_PATHS],
            cwd=REPO, capture_output=True, text=True, check=True,
        )  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return done.stdout.split()


def test_no_memory_file_is_tracked_at_the_repository_root() -> None:
    assert _tracked() == []


def test_the_memory_paths_at_the_root_are_ignored() -> None:
    ignore = (REPO / ".gitignore").read_text(encoding="utf-8").splitlines()
    for name in MEMORY_PATHS:
        assert f"/{name}" in ignore or f"/{name}/" in ignore, name


def test_root_discovery_from_the_checkout_finds_nothing() -> None:
    assert not is_workspace(REPO)
    for folder in (REPO, REPO / "memtier", REPO / "tests"):
        try:
            found = find_root(folder)
        except WorkspaceNotFound:
            continue
        # An ancestor outside the checkout may be a workspace; the checkout never is.
        assert not found.is_relative_to(REPO), found
