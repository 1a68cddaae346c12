"""`memtier.values.Fields`: frozen values as dataclasses are, without `dataclasses`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memtier.values import Fields, NamedTuple, field
from tests.conftest import new_workspace


class _Box(Fields):
    name: str
    items: list[str] = field(default_factory=list)
    size: int = 0

    def __post_init__(self) -> None:
        if self.size < 0:
            raise ValueError("size must be 0 or more")


def test_a_factory_default_is_made_anew_for_each_value() -> None:
    first, second = _Box("a"), _Box("b")
    first.items.append("x")
    assert second.items == []
    assert _Box("c", ["y"]).items == ["y"]


def test_post_init_runs_for_every_new_value_copies_included() -> None:
    with pytest.raises(ValueError, match="0 or more"):
        _Box("a", size=-1)
    with pytest.raises(ValueError, match="0 or more"):
        _Box("a").copy_with(size=-2)
    assert _Box("a").copy_with(size=3) == _Box("a", [], 3)


def test_values_are_frozen_and_compare_by_their_fields() -> None:
    box = _Box("a", size=1)
    with pytest.raises(AttributeError, match="frozen"):
        box.size = 2  # type: ignore[misc]
    assert box == _Box("a", [], 1)
    assert box != _Box("a", [], 2)
    assert repr(box) == "_Box(name='a', items=[], size=1)"
    with pytest.raises(TypeError, match="missing field 'name'"):
        _Box()  # type: ignore[call-arg]


class _Pair(NamedTuple):
    """Two numbers."""

    left: int
    right: int = 0

    def total(self) -> int:
        return self.left + self.right


def test_a_record_is_the_tuple_typing_would_make() -> None:
    pair = _Pair(1)
    assert pair == (1, 0)
    assert (pair.total(), pair._replace(right=2).total()) == (1, 3)
    assert (_Pair._fields, _Pair._field_defaults) == (("left", "right"), {"right": 0})
    assert (_Pair.__doc__, _Pair.__qualname__, _Pair.__module__) == (
        "Two numbers.",
        "_Pair",
        __name__,
    )


def test_a_record_field_without_a_default_after_one_with_is_refused() -> None:
    """As ``typing.NamedTuple`` refuses it: the defaults would shift to other fields."""
    with pytest.raises(TypeError, match="without a default follows"):

        class _Shifted(NamedTuple):
            first: int = 0
            second: int


SEARCHES = [["decisions"], ['"proxy update"'], ["--regex", "de.i", "--tag", "ops"], ["zzyzx"]]


def test_a_search_loads_no_typing(tmp_path: Path) -> None:
    """Importing `typing` cost every search 3-4 ms of CPU; the search path uses its
    names for type checkers only, and writes its records without it (`NamedTuple`)."""
    root = new_workspace(tmp_path / "ws")
    code = (
        "import sys; from memtier.__main__ import main\n"
        f"codes = [main(['--root', {str(root)!r}, 'search', *q]) for q in {SEARCHES!r}]\n"
        "sys.stderr.write(f'\\n{codes} typing loaded: {\"typing\" in sys.modules}')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.stderr.splitlines()[-1:] == ["[0, 0, 0, 0] typing loaded: False"]


HOT = [
    ["buffer", "task", "check the backup"],
    ["buffer", "note", "hello"],
    ["buffer", "done", "check the backup"],  # after the task above
    ["buffer", "heartbeat"],
    ["buffer", "show"],
    ["episodic", "append", "hello"],
    ["learn", "error", "boom"],
    ["session-start"],
    ["health-check"],
    ["search", "decisions"],
]


def _loaded_after_each(run: list[str], commands: list[list[str]]) -> list[str]:
    """Run *commands* one after the other in one fresh process (``main(run + c)``);
    after each, whether `dataclasses` or `inspect` is loaded. A loaded module stays
    loaded, so a command that loads one is caught right after it runs."""
    code = (
        "import sys; from memtier.__main__ import main\n"
        f"for c in {commands!r}:\n"
        f"    code = main([*{run!r}, *c])\n"
        "    loaded = [m for m in ('dataclasses', 'inspect') if m in sys.modules]\n"
        "    sys.stderr.write(f'\\n{c} exit {code} loaded {loaded}')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    reports = [line for line in proc.stderr.splitlines() if line.startswith("[")]
    return reports or [proc.stderr]


def test_no_hot_command_loads_dataclasses_or_inspect(tmp_path: Path) -> None:
    """`dataclasses` loads `inspect` (and ast, dis, tokenize): ~7 ms of every start."""
    root = new_workspace(tmp_path / "ws")
    reports = _loaded_after_each(["--root", str(root)], HOT)
    assert reports == [f"{c} exit 0 loaded []" for c in HOT]


TOPIC_COMMANDS = [
    ["recall", "do you remember qdrant"],
    ["consolidate", "qdrant", "--plan"],
    ["health-check"],
]


def test_no_topic_command_loads_dataclasses_or_inspect(tmp_path: Path) -> None:
    """Issue 37: the topic index, its generations and the topic commands' results
    were dataclasses; recall, a plan and a health check of a memory with a topic
    index paid the import on every start."""
    root = new_workspace(tmp_path / "ws")
    run = ["--root", str(root), "--now", "2026-11-30T10:00:00"]
    note = root / "memory" / "episodic" / "2026-11-20.md"
    note.write_text("# 2026-11-20\n\n- moved qdrant to the nas\n", encoding="utf-8")
    index_add = ["index", "add", "qdrant", "--category", "projects"]
    subprocess.run([sys.executable, "-m", "memtier", *run, *index_add], check=True)
    reports = _loaded_after_each(run, TOPIC_COMMANDS)
    assert reports == [f"{c} exit 0 loaded []" for c in TOPIC_COMMANDS]
