"""Buffer rotation (PROTOCOL §5) and session-end (§4)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from memtier.commands.lifecycle import buffer_note, buffer_task
from memtier.commands.rotation import (
    LOCK_PRESENT_MESSAGE,
    carried_buffer,
    rotate_buffer,
    session_end,
)
from memtier.errors import InputError, RefusedError
from memtier.formats.buffer import parse_buffer
from memtier.formats.episodic import (
    closure_problem,
    nested_body,
    rotation_heading,
    rotation_id,
    split_closure,
)
from memtier.workspace import Workspace
from tests.conftest import NOW_TEXT, CliRunner, run_memtier

BLOCK = "Updated: 2026-11-29\nDecisions: earlier\nSignal: earlier signal\nOpen: none\n"


def _fill(ws: Workspace) -> str:
    """The block a rotation of the filled buffer appends: heading with its id, then the body."""
    buffer_task(ws, "migrate qdrant")
    buffer_task(ws, "rebuild gateway")
    buffer_note(ws, "apt mirror is slow")
    text = ws.buffer.read_text()
    # The buffer's `## ` sections nest under the block's `### ` heading (§5 step 4).
    return rotation_heading(ws.now, rotation_id(text)) + nested_body(parse_buffer(text).body, 3)


FILLED_TASKS = ("- migrate qdrant", "- rebuild gateway")


def _assert_rotated(ws: Workspace, tasks: tuple[str, ...] = FILLED_TASKS) -> None:
    """A fresh buffer; a mid-session rotation's still holds the active tasks (§5 step 5 v3)."""
    assert ws.buffer.read_text() == carried_buffer(ws, tasks)
    assert parse_buffer(ws.buffer.read_text()).active_task_lines == list(tasks)
    assert not ws.buffer_lock.exists()
    assert not ws.buffer_pending.exists()


def test_rotate_into_no_note(ws: Workspace) -> None:
    body = _fill(ws)
    result = rotate_buffer(ws)
    note = ws.episodic_note().read_text()
    # PROTOCOL §2 (v2): a note memtier creates starts with its date.
    assert note == "# 2026-11-30\n\n" + body + "\n" + (
        "Updated: 2026-11-30\nDecisions: working buffer rotated\nSignal: none\n"
        "Open: migrate qdrant; rebuild gateway\n"
    )
    assert body.startswith("### 10:00 working buffer (r-")
    assert result.placement == "created"
    assert result.open_tasks == ("migrate qdrant", "rebuild gateway")
    _assert_rotated(ws)


def test_rotate_into_note_without_closure_block(ws: Workspace) -> None:
    ws.episodic_note().write_text("# morning\n- event\n")
    body = _fill(ws)
    rotate_buffer(ws)
    note = ws.episodic_note().read_text()
    head, block = split_closure(note)
    assert head == "# morning\n- event\n\n" + body + "\n"
    assert block is not None and block.decisions == "working buffer rotated"


def test_rotate_into_closed_note_merges_the_block(ws: Workspace) -> None:
    # PROTOCOL §2 (v2): the old items stay, the moved open tasks join `Open:`.
    ws.episodic_note().write_text(
        "# morning\n" + BLOCK.replace("Open: none", "Open: renew DNS token before Friday")
    )
    body = _fill(ws)
    assert rotate_buffer(ws).placement == "inserted"
    # PROTOCOL §2 (v4): blank lines around the block; the placeholder gives way.
    assert ws.episodic_note().read_text() == "# morning\n\n" + body + "\n" + (
        "Updated: 2026-11-30\nDecisions: earlier\n"
        "Signal: earlier signal\n"
        "Open: renew DNS token before Friday; migrate qdrant; rebuild gateway\n"
    )


def test_rotate_repairs_a_block_that_text_follows(ws: Workspace) -> None:
    # PROTOCOL §4 v3, §5 step 4: a valid block a person's line follows is put back
    # last and merged; the line moves before it, nothing is lost or repeated.
    ws.episodic_note().write_text("# morning\n" + BLOCK + "late line\n")
    body = _fill(ws)
    assert rotate_buffer(ws).placement == "rebuilt"
    note = ws.episodic_note().read_text()
    assert note == "# morning\n\nlate line\n\n" + body + "\n" + (
        "Updated: 2026-11-30\nDecisions: earlier\n"
        "Signal: earlier signal\nOpen: migrate qdrant; rebuild gateway\n"
    )
    assert note.count("Updated:") == 1


def test_rotate_keeps_crlf_of_the_note(ws: Workspace) -> None:
    ws.episodic_note().write_bytes(("# morning\n" + BLOCK).replace("\n", "\r\n").encode())
    _fill(ws)
    rotate_buffer(ws)
    data = ws.episodic_note().read_bytes()
    assert data.count(b"\r\n") == data.count(b"\n")
    assert closure_problem(data.decode().replace("\r\n", "\n")) is None


def test_rotate_rerun_skips_the_block_its_crashed_run_wrote(ws: Workspace) -> None:
    # The crashed run left its .pending (this very text) and its block.
    body = _fill(ws)
    ws.buffer_pending.write_text(ws.buffer.read_text())
    ws.episodic_note().write_text("# morning\n" + body + BLOCK)
    before = ws.episodic_note().read_text()
    assert rotate_buffer(ws).placement == "already-present"
    assert ws.episodic_note().read_text() == before
    _assert_rotated(ws)


def test_an_identical_buffer_rotated_again_still_lands(ws: Workspace) -> None:
    """Same header to the second, same body (a fixed clock): a second occurrence id."""
    body = _fill(ws)
    ws.episodic_note().write_text("# morning\n" + body + BLOCK)
    result = rotate_buffer(ws)
    assert result.placement == "inserted"
    note = ws.episodic_note().read_text()
    assert note.count("- migrate qdrant\n") == 2
    assert len({line for line in note.split("\n") if line.startswith("### ")}) == 2


def test_two_buffers_with_the_same_lines_both_land(ws: Workspace) -> None:
    """The bug of v1: the second rotation of a routine said "already in" and dropped it."""
    buffer_task(ws, "check backups")
    buffer_note(ws, "backups ok")
    first = session_end(ws).rotation
    later = ws.copy_with(now=ws.now + timedelta(hours=5))
    buffer_task(later, "check backups")
    buffer_note(later, "backups ok")
    second = session_end(later).rotation
    assert first is not None and second is not None
    assert second.placement == "inserted" and second.id != first.id
    note = ws.episodic_note().read_text()
    assert note.count("- check backups\n") == 2
    assert note.count("- backups ok\n") == 2
    assert f"### 15:00 working buffer ({second.id})\n" in note
    assert closure_problem(note) is None


def test_rotate_an_empty_buffer_appends_nothing(ws: Workspace) -> None:
    assert rotate_buffer(ws).placement == "empty"
    assert not ws.episodic_note().exists()
    _assert_rotated(ws, ())


def test_rotate_refuses_when_lock_present(ws: Workspace) -> None:
    _fill(ws)
    ws.buffer_lock.write_text("")
    before = ws.buffer.read_text()
    with pytest.raises(RefusedError) as caught:
        rotate_buffer(ws)
    assert caught.value.parts == LOCK_PRESENT_MESSAGE
    assert ws.buffer.read_text() == before
    assert not ws.buffer_pending.exists()


def test_rotate_with_a_bad_header_leaves_no_marker(ws: Workspace) -> None:
    ws.buffer.write_text("garbage\n")
    with pytest.raises(InputError):
        rotate_buffer(ws)
    assert not ws.buffer_lock.exists()
    assert not ws.buffer_pending.exists()


def test_session_end(ws: Workspace) -> None:
    assert session_end(ws).rotation is None
    assert not ws.episodic_note().exists()
    buffer_note(ws, "only a note")
    # PROTOCOL §4 (v2): notes without an active task are rotated too.
    noted = session_end(ws)
    assert noted.rotation is not None and noted.rotation.appended
    assert "- only a note\n" in ws.episodic_note().read_text()
    _assert_rotated(ws, ())
    assert session_end(ws).rotation is None  # the fresh buffer is empty
    buffer_task(ws, "t")
    result = session_end(ws)
    assert result.rotation is not None and result.rotation.appended
    _assert_rotated(ws, ())  # only session-end leaves no tasks (§5 step 5 v3)


def test_cli_rotate_lock_message_and_exit_code(cli: CliRunner, root: Path) -> None:
    (root / "memory/working-buffer.md.lock").write_text("")
    result = cli("rotate", "--root", str(root), "--now", NOW_TEXT)
    assert result.exit_code == 1
    assert result.stderr == f"memtier: error: {RefusedError(LOCK_PRESENT_MESSAGE)}\n"
    assert result.stdout == ""


def test_cli_session_end_nothing_to_rotate(cli: CliRunner, root: Path) -> None:
    result = cli("session-end", "--root", str(root), "--now", NOW_TEXT)
    assert (result.exit_code, result.stdout) == (0, "nothing to rotate\n")
    data = json.loads(cli("session-end", "--json", "--root", str(root)).stdout)
    assert data == {"rotated": False, "message": "nothing to rotate"}


def test_rerun_after_crash_after_step_4(ws: Workspace) -> None:
    """A real process dies after appending; the rerun must not append again."""
    body = _fill(ws)
    env = {"MEMTIER_FAULT": "rotate.note-written"}
    crashed = run_memtier("rotate", "--root", str(ws.root), "--now", NOW_TEXT, env=env)
    assert crashed.returncode == -9
    assert ws.buffer_lock.exists() and ws.buffer_pending.exists()
    assert run_memtier("rotate", "--root", str(ws.root)).returncode == 1  # the marker refuses
    ws.buffer_lock.unlink()  # a person clears the marker by hand and reruns
    rerun = run_memtier("rotate", "--json", "--root", str(ws.root), "--now", NOW_TEXT)
    assert rerun.returncode == 0, rerun.stderr
    assert json.loads(rerun.stdout)["placement"] == "already-present"
    assert ws.episodic_note().read_text().count(body) == 1
    assert ws.episodic_note().read_text().count("\n### ") == 1
    _assert_rotated(ws)


def test_rotate_with_an_unreadable_note_leaves_no_marker(ws: Workspace) -> None:
    _fill(ws)
    ws.episodic_note().write_bytes(b"\xff\xfe not utf-8\n")
    with pytest.raises(InputError, match="not UTF-8"):
        rotate_buffer(ws)
    assert not ws.buffer_lock.exists()
    assert not ws.buffer_pending.exists()
