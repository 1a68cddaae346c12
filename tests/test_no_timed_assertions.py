"""No test asserts on elapsed time: a loaded machine is not a failure (issue 19 Build 9).

Speed is measured by the ``bench/`` scripts, which print figures and ratios taken
in the same run. This guard finds an ``assert`` that reads a value derived from a
clock reading (``time.perf_counter()``, ``time.monotonic()``, ``time.time()`` and
their ``_ns`` forms) in the same function.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
_TIME_NAME = re.compile(r"(?<!\w)time(?!\w)")
CLOCKS = {"perf_counter", "monotonic", "time", "perf_counter_ns", "monotonic_ns", "time_ns"}


def _is_clock(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in CLOCKS
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "time"
    )


def _clock_value(node: ast.AST, timed: set[str]) -> bool:
    """A clock reading, a name holding one, or arithmetic on them (``now - start``)."""
    if _is_clock(node):
        return True
    if isinstance(node, ast.Name):
        return node.id in timed
    if isinstance(node, ast.BinOp):
        return _clock_value(node.left, timed) or _clock_value(node.right, timed)
    if isinstance(node, ast.UnaryOp):
        return _clock_value(node.operand, timed)
    return False


def _reads_clock(node: ast.AST, timed: set[str]) -> bool:
    return any(_clock_value(sub, timed) for sub in ast.walk(node))


def timed_assertions(source: str) -> list[int]:
    """Line numbers of asserts on clock-derived values in *source*.

    A clock reading is an attribute of the name ``time``, so a source in which
    that word never stands alone has none and is not parsed (most test files)."""
    if not _TIME_NAME.search(source):
        return []
    found: list[int] = []
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        timed: set[str] = set()
        for node in ast.walk(function):
            assigns = isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign)
            if assigns and node.value and _clock_value(node.value, timed):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                timed.update(t.id for t in targets if isinstance(t, ast.Name))
        for node in ast.walk(function):
            if isinstance(node, ast.Assert) and _reads_clock(node.test, timed):
                found.append(node.lineno)
    return found


def test_the_guard_sees_a_timed_assertion() -> None:
    source = (
        "import time\n"
        "def test_x():\n"
        "    start = time.perf_counter()\n"
        "    elapsed = time.perf_counter() - start\n"
        # Spelled in two pieces, so that a grep over the suite for timed assertions
        # does not take this sample input for one (the guard reads it joined).
        "    assert "
        "elapsed < 2.0\n"
        "def test_y():\n"
        "    deadline = time.monotonic() + 30\n"
        "    assert 'x' in 'xy'\n"
    )
    assert timed_assertions(source) == [5]


def test_no_test_asserts_on_elapsed_time() -> None:
    offenders = {
        path.relative_to(TESTS).as_posix(): lines
        for path in sorted(TESTS.rglob("test_*.py"))
        if (lines := timed_assertions(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}
