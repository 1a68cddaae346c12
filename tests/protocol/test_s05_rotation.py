"""PROTOCOL §5, buffer rotation: the lock refusal, then today's note (the heading with
the snapshot's id, the merge with a closure block, a note without one)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from memtier.formats.episodic import rotation_id
from tests.conftest import NOW_TEXT, CliRunner, run_memtier
from tests.protocol.support import BUF, TODAY, closure, health, mt, note_path

# -- step 1: the lock ------------------------------------------------------------------

LOCK_REFUSAL = (
    "memtier: error: rotation lock file present: another rotation is running "
    "or one crashed; run memtier session-start\n"
)


@pytest.mark.parametrize("command", ["rotate", "session-end"])
def test_rotation_lock_refusal_exact_message(
    root: Path, cli: CliRunner, snapshot: Callable[[Path], dict[str, bytes]], command: str
) -> None:
    mt(cli, root, "buffer", "task", "t1")
    (root / (BUF + ".lock")).write_text("")
    before = snapshot(root)
    result = mt(cli, root, command)
    assert (result.exit_code, result.stderr, result.stdout) == (1, LOCK_REFUSAL, "")
    assert snapshot(root) == before


def test_rotation_lock_refusal_real_process(root: Path) -> None:
    (root / (BUF + ".lock")).write_text("")
    proc = run_memtier("--root", str(root), "--now", NOW_TEXT, "rotate")
    assert (proc.returncode, proc.stderr) == (1, LOCK_REFUSAL)


# -- step 4: today's note --------------------------------------------------------------


def test_rotation_heading_names_the_time_in_nows_offset(root: Path, cli: CliRunner) -> None:
    late = "2026-11-30T23:30:00-05:00"
    mt(cli, root, "buffer", "task", "late", now=late)
    rid = rotation_id((root / BUF).read_text())
    assert mt(cli, root, "rotate", now=late).exit_code == 0
    assert f"### 23:30 working buffer ({rid})" in note_path(root).read_text().splitlines()


def test_rotation_inserts_before_an_existing_closure_block(root: Path, cli: CliRunner) -> None:
    note = root / "memory" / "episodic" / f"{TODAY}.md"
    block = "Updated: 2026-11-30\nDecisions: kept\nSignal: kept\nOpen: kept\n"
    note.write_text("# day\nearlier\n" + block)
    mt(cli, root, "buffer", "task", "t1")
    rid = rotation_id((root / BUF).read_text())
    assert mt(cli, root, "rotate").exit_code == 0
    # §2 (v4): blank lines around the block; the placeholder gives way to `kept`.
    merged = "Updated: 2026-11-30\nDecisions: kept\nSignal: kept\n"
    merged += "Open: kept; t1\n"
    assert note.read_text() == (
        f"# day\nearlier\n\n### 10:00 working buffer ({rid})\n#### Active Task:\n- t1\n\n" + merged
    )
    # PROTOCOL §4 step 4 (v2): a later buffer with the same line is another rotation
    # (the task stayed in the buffer: a mid-session rotation keeps it, §5 step 5 v3).
    later = "2026-11-30T10:30:00+01:00"
    mt(cli, root, "buffer", "heartbeat", now=later)
    assert mt(cli, root, "rotate", now=later).exit_code == 0
    assert note.read_text().count("- t1\n") == 2
    assert note.read_text().endswith("Open: kept; t1\n")


def test_rotation_merge_none_gives_way_and_items_are_not_repeated(
    root: Path, cli: CliRunner
) -> None:
    note_path(root).write_text(
        "# day\n" + closure("working buffer rotated", "none", "none", updated="2026-11-29")
    )
    mt(cli, root, "buffer", "task", "t1")
    assert mt(cli, root, "rotate").exit_code == 0
    assert note_path(root).read_text().endswith(closure("working buffer rotated", "none", "t1"))


def test_rotation_open_is_the_union_in_order(root: Path, cli: CliRunner) -> None:
    note_path(root).write_text("# day\n" + closure("a", "b", "t2; older"))
    mt(cli, root, "buffer", "task", "t1")
    mt(cli, root, "buffer", "task", "t2")
    mt(cli, root, "rotate")
    expected = closure("a", "b", "t2; older; t1")  # §2 (v4): the placeholder gives way
    assert note_path(root).read_text().endswith(expected)


def test_rotation_leaves_an_unmergeable_tail_and_closes_after_it(
    root: Path, cli: CliRunner
) -> None:
    note_path(root).write_text("# day\nfree text\nUpdated: x\n")
    mt(cli, root, "buffer", "task", "a")
    rid = rotation_id((root / BUF).read_text())
    mt(cli, root, "rotate")
    assert note_path(root).read_text() == (
        f"# day\nfree text\nUpdated: x\n\n### 10:00 working buffer ({rid})\n#### Active Task:\n"
        "- a\n\n" + closure("working buffer rotated", "none", "a")
    )


@pytest.mark.parametrize(
    ("note", "head", "old"),
    [
        (
            "# day\nUpdated: 2026-11-30\nDecisions: a\nSignal: b\nOpen: c\nlate line\n",
            "# day\n\nlate line\n\n",
            True,
        ),
        ("# day\nUpdated: 2026-11-30\nDecisions: a\nSignal: b\nOpen: c\n\n", "# day\n\n", True),
        ("# day\nno block, no final newline", "# day\nno block, no final newline\n\n", False),
    ],
    ids=["text-after-block", "blank-after-block", "no-block"],
)
def test_rotation_into_a_note_without_a_final_block(
    root: Path, cli: CliRunner, note: str, head: str, old: bool
) -> None:
    """§5 step 4, §4 v3: a block that text follows is put back last and merged (the
    text moves before it); a note without any block gets the body and a fresh one."""
    path = root / "memory" / "episodic" / f"{TODAY}.md"
    path.write_text(note)
    mt(cli, root, "buffer", "task", "t1")
    rid = rotation_id((root / BUF).read_text())
    assert mt(cli, root, "rotate").exit_code == 0
    block = (
        "Updated: 2026-11-30\nDecisions: a\nSignal: b\nOpen: c; t1\n"
        if old
        else "Updated: 2026-11-30\nDecisions: working buffer rotated\nSignal: none\nOpen: t1\n"
    )
    assert path.read_text() == (
        head + f"### 10:00 working buffer ({rid})\n#### Active Task:\n- t1\n\n" + block
    )
    assert health(cli, root)[0] == 0
