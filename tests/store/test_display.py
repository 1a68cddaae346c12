"""How a read names a file in its messages: the path from the root, as pathlib says."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtier.store.read import _display

PATHS = ["/", ".", "a", "a/b", "/a", "/a/b", "/a/b/c.md", "/ab", "/a/bc", "../x", "//a", "//a/b"]


def _by_pathlib(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


@pytest.mark.parametrize("root", PATHS)
@pytest.mark.parametrize("path", PATHS)
def test_a_file_is_named_from_the_root_as_pathlib_names_it(path: str, root: str) -> None:
    # The string shortcut must not name "/ab" as "b" under "/a", nor lose "//".
    assert _display(Path(path), Path(root)) == _by_pathlib(Path(path), Path(root))
