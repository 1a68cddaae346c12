"""`memtier.values.Fields`: frozen values as dataclasses are, without `dataclasses`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memtier.values import Fields, field


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


HOT = [
    ["buffer", "task", "check the backup"],
    ["buffer", "note", "hello"],
    ["buffer", "done", "check the backup"],  # after the task above (one process)
    ["buffer", "heartbeat"],
    ["buffer", "show"],
    ["episodic", "append", "hello"],
    ["learn", "error", "boom"],
    ["session-start"],
    ["health-check"],
    ["search", "decisions"],
]


@pytest.mark.parametrize("command", HOT, ids=" ".join)
def test_a_hot_command_loads_neither_dataclasses_nor_inspect(
    command: list[str], tmp_path: Path
) -> None:
    before = [HOT[0]] if command[:2] == ["buffer", "done"] else []
    # `dataclasses` loads `inspect` (and ast, dis, tokenize): ~7 ms of every start.
    root = tmp_path / "ws"
    subprocess.run(
        [sys.executable, "-m", "memtier", "init", "--root", str(root)],
        check=True,
        capture_output=True,
    )
    code = (
        "import sys; from memtier.__main__ import main; "
        f"[main(['--root', {str(root)!r}, *c]) for c in {before!r}]; "
        f"code = main(['--root', {str(root)!r}, *{command!r}]); "
        "loaded = [m for m in ('dataclasses', 'inspect') if m in sys.modules]; "
        "sys.stderr.write(f'\\nexit {code} loaded {loaded}')"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.stderr.splitlines()[-1] == "exit 0 loaded []", proc.stderr


TOPIC_COMMANDS = [
    ["recall", "do you remember qdrant"],
    ["consolidate", "qdrant", "--plan"],
    ["health-check"],
]


@pytest.mark.parametrize("command", TOPIC_COMMANDS, ids=" ".join)
def test_a_topic_command_loads_neither_dataclasses_nor_inspect(
    command: list[str], tmp_path: Path
) -> None:
    """Issue 37: the topic index, its generations and the topic commands' results
    were dataclasses; recall, a plan and a health check of a memory with a topic
    index paid the import on every start."""
    root = tmp_path / "ws"
    run = [sys.executable, "-m", "memtier", "--root", str(root), "--now", "2026-11-30T10:00:00"]
    subprocess.run([*run, "init"], check=True, capture_output=True)
    note = root / "memory" / "episodic" / "2026-11-20.md"
    note.write_text("# 2026-11-20\n\n- moved qdrant to the nas\n", encoding="utf-8")
    subprocess.run([*run, "index", "add", "qdrant", "--category", "projects"], check=True)
    code = (
        "import sys; from memtier.__main__ import main; "
        f"code = main([*{run[3:]!r}, *{command!r}]); "
        "loaded = [m for m in ('dataclasses', 'inspect') if m in sys.modules]; "
        "sys.stderr.write(f'\\nexit {code} loaded {loaded}')"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.stderr.splitlines()[-1] == "exit 0 loaded []", proc.stderr
