"""The package's modules as syntax trees, each read and parsed once per test process.

Several structural tests (the layout, the homes of names, the result types, the
faces' wording) walk every module of the package; parsing the same ~150 files
again in each of them cost about a second of every run. The trees are shared:
a test reads them and never changes them.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path


@cache
def tree_of(path: Path) -> ast.Module:
    """The syntax tree of the Python file at *path* (read and parsed once)."""
    return ast.parse(path.read_text(encoding="utf-8"))
