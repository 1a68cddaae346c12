"""No lost external edits (PROTOCOL §3): memtier re-reads a file under its lock.

A person's editor does not take memtier's lock; it writes a temporary file and
renames it over the note. What memtier promises is that it never writes back
content it read *before* taking the workspace lock. These tests make that
moment observable and deterministic: the test holds the workspace lock, starts
a real ``memtier`` process, waits until that process has opened the lock file
(it is now waiting for the lock, so any read it did before locking is done),
makes the person's edit with a rename, then releases the lock. The command's
change and the person's edit must both be in the file afterwards.

What stays out of reach is documented in docs/RELIABILITY.md: a rename that
lands *while* memtier holds the lock, between its read and its own rename, is
replaced by memtier's version (no editor-side lock exists to prevent it).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from memtier import store
from tests.conftest import NOW_TEXT, memtier_command
from tests.reliability.reliability_support import (
    CANDIDATE,
    STALE,
    TODAY,
    closure,
    content_lines,
    populate,
    wait_until_open,
)

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")

NOTE = f"memory/episodic/{TODAY}.md"
BUFFER = "memory/working-buffer.md"
ERRORS = ".learnings/ERRORS.md"
DECISIONS = "memory/semantic/decisions.md"
LEARNINGS = ".learnings/LEARNINGS.md"
PROJECTS = "memory/semantic/projects.md"
RETIRED = "memory/archive/retired.md"


def editor_write(path: Path, text: str) -> None:
    """What an editor does on save: a temporary file beside the target, then rename."""
    temp = path.with_name(f".{path.name}.swp")
    temp.write_text(text)
    os.replace(temp, path)


def _before_closure(text: str, line: str) -> str:
    lines = text.splitlines(keepends=True)
    return "".join(lines[:-4]) + line + "".join(lines[-4:])


def _in_active(text: str, line: str) -> str:
    return text.replace("## Active Task:\n", "## Active Task:\n" + line, 1)


def _append(text: str, line: str) -> str:
    return text + line


@dataclass(frozen=True)
class Edit:
    name: str
    args: tuple[str, ...]
    file: str
    change: Callable[[str, str], str]
    # What must stand in the files afterwards: relative path → substrings.
    expect: dict[str, tuple[str, ...]]
    stale: bool = False
    # Files that hold the person's line: a mid-session rotation moves a task into
    # the note and keeps it in hand in the buffer (PROTOCOL §5 step 5 v3).
    copies: int = 1


EDITS = (
    Edit(
        "buffer-note",
        ("buffer", "note", "N001 agent"),
        BUFFER,
        _append,
        {BUFFER: ("- P001 by hand\n", "- N001 agent\n")},
    ),
    Edit(
        "buffer-task",
        ("buffer", "task", "N001 agent"),
        BUFFER,
        _in_active,
        {BUFFER: ("- P001 by hand\n", "- N001 agent\n")},
    ),
    Edit(
        "episodic-append",
        ("episodic", "append", "N001 agent"),
        NOTE,
        _before_closure,
        {NOTE: ("- P001 by hand\n", "N001 agent\n", "Open: none\n")},
    ),
    Edit(
        "episodic-close",
        ("episodic", "close", "--decisions", "N001", "--signal", "s", "--open", "o"),
        NOTE,
        _before_closure,
        {NOTE: ("- P001 by hand\n", "Decisions: started; N001\n")},  # merged (§4 v3)
    ),
    Edit(
        "rotate",
        ("rotate",),
        BUFFER,
        _in_active,
        {NOTE: ("- P001 by hand\n", "- task K101\n"), BUFFER: ("- P001 by hand\n",)},
        copies=2,
    ),
    Edit("session-end", ("session-end",), BUFFER, _in_active, {NOTE: ("- P001 by hand\n",)}),
    Edit(
        "session-start",
        ("session-start",),
        BUFFER,
        _append,
        {BUFFER: ("- P001 by hand\n", "last_active: 2026-11-30T10:00:00+01:00\n")},
    ),
    Edit(
        "session-start-stale",
        ("session-start",),
        BUFFER,
        _append,
        {NOTE: ("- P001 by hand\n", "[RECOVERED: STALE]")},
        stale=True,
    ),
    Edit(
        "learn",
        ("learn", "error", "N001 agent lesson"),
        ERRORS,
        _append,
        {ERRORS: ("- 2026-11-30 P001 by hand\n", "N001 agent lesson\n")},
    ),
    Edit(
        "promote",
        ("promote", CANDIDATE, "--to", DECISIONS, "--yes"),
        DECISIONS,
        _append,
        {DECISIONS: ("- P001 by hand\n", "K301")},
    ),
    Edit(
        "promote-source",
        ("promote", CANDIDATE, "--to", DECISIONS, "--yes"),
        LEARNINGS,
        _append,
        {LEARNINGS: ("- 2026-11-30 P001 by hand\n", f"{CANDIDATE} [PROMOTED]\n")},
    ),
    # PROTOCOL §10: the fact writers re-read their file under the lock too.
    Edit(
        "remember",
        ("remember", "N001 agent fact", "--kind", "decision"),
        DECISIONS,
        _append,
        {DECISIONS: ("- P001 by hand\n", "- N001 agent fact\n")},
    ),
    Edit(
        "replace",
        ("replace", "K501", "project N001 moved", "--in", PROJECTS),
        PROJECTS,
        _append,
        {PROJECTS: ("- P001 by hand\n", "- project N001 moved\n"), RETIRED: ("K501",)},
    ),
    Edit(
        "retire",
        ("retire", "K501", "--in", PROJECTS, "--reason", "done"),
        PROJECTS,
        _append,
        {PROJECTS: ("- P001 by hand\n",), RETIRED: ("K501",)},
    ),
    Edit(
        "verify",
        ("verify", PROJECTS),
        PROJECTS,
        _append,
        {PROJECTS: ("- P001 by hand\n", "- project K501")},
    ),
    Edit(
        "weekly-review-deferred",
        ("weekly-review",),
        NOTE,
        _before_closure,
        {NOTE: ("- P001 by hand\n", "Active session detected; weekly review deferred")},
    ),
    Edit(
        "weekly-review-flags",
        ("weekly-review",),
        ERRORS,
        _append,
        {ERRORS: ("- 2026-11-30 P001 by hand\n", "[PROMOTE-CANDIDATE]")},
        stale=True,
    ),
    Edit(
        "weekly-review-closure",
        ("weekly-review",),
        NOTE,
        _before_closure,
        {NOTE: ("- P001 by hand\n", "Decisions: started; weekly review performed")},
        stale=True,
    ),
)


@pytest.mark.parametrize("edit", EDITS, ids=lambda e: e.name)
def test_an_edit_made_while_memtier_waits_for_its_lock_is_kept(tmp_path: Path, edit: Edit) -> None:
    root = populate(
        tmp_path / "ws", last_active=STALE if edit.stale else "2026-11-30T09:40:00+01:00"
    )
    path = root / edit.file
    scratch = edit.file in (ERRORS, LEARNINGS)
    line = "- 2026-11-30 P001 by hand\n" if scratch else "- P001 by hand\n"
    with store.workspace_lock(root / "memory/.memtier.lock"):
        proc = subprocess.Popen(
            [*memtier_command(), *edit.args, "--root", str(root), "--now", NOW_TEXT],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        wait_until_open(proc, root / "memory/.memtier.lock")
        editor_write(path, edit.change(path.read_text(), line))
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err.decode()
    for rel, wanted in edit.expect.items():
        text = (root / rel).read_text()
        for piece in wanted:
            assert text.count(piece) >= 1, (rel, piece, text)
        assert "\n".join(content_lines(text)).count("P001") <= 1, text
    # A closure field restates moved tasks (PROTOCOL §2 v2); it is not a line of its own.
    everything = "".join("\n".join(content_lines(p.read_text())) for p in root.rglob("*.md"))
    assert everything.count("P001") == edit.copies


def test_archive_moves_the_edited_note(tmp_path: Path) -> None:
    root = populate(tmp_path / "ws")
    old = root / "memory/episodic/2026-09-01.md"
    with store.workspace_lock(root / "memory/.memtier.lock"):
        proc = subprocess.Popen(
            [*memtier_command(), "archive", "--root", str(root), "--now", NOW_TEXT],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        wait_until_open(proc, root / "memory/.memtier.lock")
        editor_write(old, old.read_text() + "- P001 by hand\n")
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err.decode()
    moved = root / "memory/archive/2026/09/2026-09-01.md"
    assert moved.read_text().endswith("- P001 by hand\n")
    assert not old.exists()
    assert closure("2026-09-01") in moved.read_text()
