"""The package's modules as syntax trees, each read and parsed once per test process.

Several structural tests (the layout, the homes of names, the result types, the
faces' wording) walk every module of the package; parsing the same ~150 files
again in each of them cost about a second of every run. The trees are shared:
a test reads them and never changes them. So are their nodes in `ast.walk`'s
order: the checks that look at every node of every module (imports, names,
strings) walked each tree again, about a second of a run in all.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path


@cache
def tree_of(path: Path) -> ast.Module:
    """The syntax tree of the Python file at *path* (read and parsed once)."""
    return ast.parse(path.read_text(encoding="utf-8"))


@cache
def nodes_of(path: Path) -> tuple[ast.AST, ...]:
    """Every node of `tree_of(path)`, in the order `ast.walk` yields them (walked once)."""
    return tuple(ast.walk(tree_of(path)))
