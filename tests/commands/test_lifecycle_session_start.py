"""session-start's decision tree (PROTOCOL §4 steps 1–7), case by case, fixed clock."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from memtier.commands.session_start import RECOVERED_MARKER, session_start
from memtier.formats.buffer import Buffer, active_task_lines, parse_buffer
from memtier.formats.episodic import (
    closure_problem,
    nested_body,
    rotation_heading,
    rotation_id,
    split_closure,
)
from memtier.workspace import Workspace
from tests.conftest import NOW, NOW_TEXT, CliRunner, new_workspace

CREATED = "2026-11-30T07:00:00+01:00"
RECENT = (NOW - timedelta(minutes=30)).isoformat()
STALE = (NOW - timedelta(hours=3)).isoformat()
BLOCK = "Updated: 2026-11-30\nDecisions: a\nSignal: b\nOpen: none\n"
ACTIVE = "## Active Task:\n- migrate qdrant\n\n## Notes\n- apt is slow\n"
NO_TASKS = "## Active Task:\n\n## Notes\n- apt is slow\n"


def buffer_text(last_active: str, body: str) -> str:
    return Buffer(CREATED, last_active, body).render()


def marker(text: str) -> str:
    """The `[RECOVERED: STALE]` heading for buffer *text* (PROTOCOL §4 v2: with its id;
    §2 v4: headed `### HH:MM` like every block memtier writes into a note)."""
    last = parse_buffer(text).last_active
    return f"### 10:00 {RECOVERED_MARKER} {last} ({rotation_id(text)})"


def nested(body: str) -> str:
    """A recovered body as the note holds it: its headings under the block's (§2 v4)."""
    return nested_body(body, 3)


TITLE = "# 2026-11-30\n\n"


def tasks_body(n: int) -> str:
    return "## Active Task:\n" + "".join(f"- task {i}\n" for i in range(n))


def _buffer(ws: Workspace) -> Buffer:
    return parse_buffer(ws.buffer.read_text())


def _is_fresh(ws: Workspace, tasks: list[str] | None = None) -> bool:
    """A fresh buffer (holding *tasks*, after a mid-session rotation, §5 step 5 v3)."""
    from memtier.commands.rotation import carried_buffer

    return ws.buffer.read_text() == carried_buffer(ws, tasks or [])


def _errors_lines(ws: Workspace) -> list[str]:
    return [x for x in ws.errors_file.read_text().split("\n") if "failed recovery" in x]


def test_fresh_workspace_only_heartbeats(ws: Workspace) -> None:
    result = session_start(ws)
    assert result.actions == ("heartbeat: last_active set to now",)
    assert _is_fresh(ws)
    assert not ws.episodic_note().exists()


def test_missing_buffer_is_created(ws: Workspace) -> None:
    ws.buffer.unlink()
    result = session_start(ws)
    assert "created memory/working-buffer.md" in result.actions
    assert _is_fresh(ws)


def test_missing_hot_is_created(ws: Workspace) -> None:
    ws.hot.unlink()
    session_start(ws)
    assert ws.hot.read_text() == (
        "# Agent Memory\n#tags: memory\nlast_verified: 2026-11-30\nlast_updated: 2026-11-30\n"
    )


def test_stale_lock_is_removed(ws: Workspace) -> None:
    ws.buffer_lock.write_text("")
    result = session_start(ws)
    assert not ws.buffer_lock.exists()
    assert any("rotation lock" in a for a in result.actions)


@pytest.mark.parametrize(
    ("pending", "reason"),
    [
        ("", "empty file"),
        (" \n\t\n", "whitespace only"),
        ("# Working buffer\n", "line 1 must be '# Working Buffer'"),
        ("# Working Buffer\ncreated: yesterday\n", "created timestamp invalid"),
        (buffer_text(RECENT, ACTIVE).replace("\n\n## Active", "\nx\n## Active", 1), None),
    ],
)
def test_pending_failed_recovery(ws: Workspace, pending: str, reason: str | None) -> None:
    reason = reason or "line 4 must be blank"
    ws.buffer.write_text(buffer_text(RECENT, ACTIVE))
    ws.buffer_pending.write_text(pending)
    result = session_start(ws)
    line = f"- 2026-11-30 working-buffer.md.pending failed recovery: {reason}"
    assert _errors_lines(ws) == [line]
    assert not ws.buffer_pending.exists()
    assert _is_fresh(ws)
    assert any(reason in w for w in result.warnings)
    # The buffer being replaced still held lines: they are kept in today's note.
    kept = f"{marker(buffer_text(RECENT, ACTIVE))}\n{nested(ACTIVE)}"
    assert kept in ws.episodic_note().read_text()


def test_pending_failed_recovery_with_a_fresh_buffer_writes_no_note(ws: Workspace) -> None:
    ws.buffer_pending.write_text("")
    session_start(ws)
    assert not ws.episodic_note().exists()
    assert _is_fresh(ws) and not ws.buffer_pending.exists()


def test_pending_valid_and_stale_is_appended(ws: Workspace) -> None:
    ws.episodic_note().write_text("# day\n" + BLOCK)
    ws.buffer_pending.write_text(buffer_text(STALE, ACTIVE))
    session_start(ws)
    note = ws.episodic_note().read_text()
    # PROTOCOL §2 (v4): the recovery's placeholder gives way to the decision there.
    merged = "Updated: 2026-11-30\nDecisions: a\nSignal: b\n"
    merged += "Open: migrate qdrant\n"
    recovered = f"{marker(buffer_text(STALE, ACTIVE))}\n{nested(ACTIVE)}"
    assert note == f"# day\n\n{recovered}\n{merged}"
    assert _is_fresh(ws) and not ws.buffer_pending.exists()


def test_pending_valid_without_tasks_is_appended(ws: Workspace) -> None:
    ws.buffer_pending.write_text(buffer_text(RECENT, NO_TASKS))
    session_start(ws)
    note = ws.episodic_note().read_text()
    assert note.startswith(f"{TITLE}{marker(buffer_text(RECENT, NO_TASKS))}\n{nested(NO_TASKS)}")
    assert closure_problem(note) is None
    assert _is_fresh(ws)


def test_pending_valid_and_active_is_restored(ws: Workspace) -> None:
    ws.buffer_pending.write_text(buffer_text(RECENT, ACTIVE))
    session_start(ws)
    assert _buffer(ws) == Buffer(CREATED, NOW_TEXT, ACTIVE)
    assert not ws.buffer_pending.exists()
    assert not ws.episodic_note().exists()


@pytest.mark.parametrize(("tasks", "rotated"), [(3, False), (4, True)])
def test_pending_oversized_by_tasks_is_rotated(ws: Workspace, tasks: int, rotated: bool) -> None:
    body = tasks_body(tasks)
    ws.buffer_pending.write_text(buffer_text(RECENT, body))
    session_start(ws)
    assert ws.episodic_note().exists() is rotated
    # A mid-session rotation keeps the active tasks in the fresh buffer (§5 step 5 v3).
    assert _is_fresh(ws, active_task_lines(body)) is rotated
    if rotated:
        head, block = split_closure(ws.episodic_note().read_text())
        heading = rotation_heading(NOW, rotation_id(buffer_text(RECENT, body)))
        assert head == TITLE + heading + nested_body(body, 3) + "\n"
        assert block is not None and block.open == "task 0; task 1; task 2; task 3"
    assert not ws.buffer_pending.exists() and not ws.buffer_lock.exists()


@pytest.mark.parametrize(("lines", "rotated"), [(80, False), (81, True)])
def test_pending_oversized_by_lines_is_rotated(ws: Workspace, lines: int, rotated: bool) -> None:
    body = tasks_body(1) + "## Notes\n"
    body += "".join(f"- note {i}\n" for i in range(lines - 4 - body.count("\n")))
    text = buffer_text(RECENT, body)
    assert text.count("\n") == lines
    ws.buffer_pending.write_text(text)
    session_start(ws)
    assert ws.episodic_note().exists() is rotated
    assert _is_fresh(ws, active_task_lines(body)) is rotated


def _rotated(text: str) -> str:
    """The block a finished rotation of buffer *text* left in a note."""
    return rotation_heading(NOW, rotation_id(text)) + parse_buffer(text).body


def test_pending_already_rotated_keeps_the_current_buffer(ws: Workspace) -> None:
    ws.episodic_note().write_text("# day\n" + _rotated(buffer_text(RECENT, ACTIVE)) + BLOCK)
    newer = Buffer("2026-11-30T09:45:00+01:00", RECENT, "## Active Task:\n- newer task\n")
    ws.buffer.write_text(newer.render())
    ws.buffer_pending.write_text(buffer_text(RECENT, ACTIVE))
    before = ws.episodic_note().read_text()
    session_start(ws)
    assert ws.episodic_note().read_text() == before
    assert _buffer(ws).active_tasks == ["newer task"]
    assert not ws.buffer_pending.exists()


def test_pending_already_rotated_but_buffer_not_reset(ws: Workspace) -> None:
    """The rotation died between its steps 4 and 5: the buffer still holds the body."""
    ws.episodic_note().write_text("# day\n" + _rotated(buffer_text(RECENT, ACTIVE)) + BLOCK)
    ws.buffer.write_text(buffer_text(RECENT, ACTIVE))
    ws.buffer_pending.write_text(buffer_text(RECENT, ACTIVE))
    session_start(ws)
    assert _is_fresh(ws)
    assert ws.episodic_note().read_text().count("- migrate qdrant") == 1


def test_stale_buffer_with_content_is_appended(ws: Workspace) -> None:
    ws.buffer.write_text(buffer_text(STALE, ACTIVE))
    result = session_start(ws)
    note = ws.episodic_note().read_text()
    assert note.startswith(f"{TITLE}{marker(buffer_text(STALE, ACTIVE))}\n{nested(ACTIVE)}")
    assert closure_problem(note) is None
    assert _is_fresh(ws)
    assert any("stale buffer" in a for a in result.actions)


def test_stale_empty_buffer_is_not_appended(ws: Workspace) -> None:
    ws.buffer.write_text(buffer_text(STALE, "## Active Task:\n"))
    session_start(ws)
    assert not ws.episodic_note().exists()
    assert _buffer(ws).last_active == NOW_TEXT


@pytest.mark.parametrize(
    ("age", "stale"), [(timedelta(hours=2), False), (timedelta(hours=2, seconds=1), True)]
)
def test_stale_threshold(ws: Workspace, age: timedelta, stale: bool) -> None:
    ws.buffer.write_text(buffer_text((NOW - age).isoformat(), ACTIVE))
    session_start(ws)
    assert ws.episodic_note().exists() is stale
    assert _buffer(ws).last_active == NOW_TEXT
    assert (_buffer(ws).body == ACTIVE) is not stale


def test_bad_buffer_header_is_left_alone_with_a_warning(ws: Workspace) -> None:
    ws.buffer.write_text("# Working buffer\nbroken\n")
    result = session_start(ws)
    assert ws.buffer.read_text() == "# Working buffer\nbroken\n"
    assert result.warnings and "line 1 must be" in result.warnings[0]
    assert result.health_ok is False


def test_learnings_context_is_the_last_20_lines(ws: Workspace) -> None:
    ws.errors_file.write_text("".join(f"- 2026-11-30 error {i}\n" for i in range(30)))
    text = session_start(ws).learnings["ERRORS.md"]
    assert text.split("\n")[0] == "- 2026-11-30 error 10"
    assert text.count("\n") == 20


def test_deterministic(tmp_path: Path, snapshot: Callable[[Path], dict[str, bytes]]) -> None:
    """Same files + same now: the same files afterwards, the same output."""
    results = []
    for name in ("a", "b"):
        folder = new_workspace(tmp_path / name)
        ws = Workspace.open(folder, NOW)
        ws.buffer.write_text(buffer_text(STALE, ACTIVE))
        ws.buffer_pending.write_text(buffer_text(RECENT, tasks_body(5)))
        results.append(session_start(ws).to_json())
    assert results[0] == results[1]
    assert snapshot(tmp_path / "a") == snapshot(tmp_path / "b")


@pytest.mark.parametrize("name", ["working-buffer.md", "working-buffer.md.pending"])
def test_buffer_or_pending_that_is_a_folder_refuses(cli: CliRunner, root: Path, name: str) -> None:
    """v1 exited 0 with a warning and the agent carried on with no buffer."""
    path = root / "memory" / name
    if path.exists():
        path.unlink()
    path.mkdir()
    result = cli("session-start", "--root", str(root), "--now", NOW_TEXT)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == (
        f"memtier: error: memory/{name} is a folder, not a file: move it aside, "
        "then run memtier session-start again\n"
    )


def test_after_an_absence_the_verdict_names_staleness_not_integrity(ws: Workspace) -> None:
    """PROTOCOL §6 (v4): back after 31 days, every WARM file is stale; the last line says
    so apart from integrity, and tells to verify each file when used, not to stop."""
    later = Workspace.open(ws.root, NOW + timedelta(days=31))
    result = session_start(later)
    assert not result.health_ok and set(result.health_failed) == {"warm.fresh"}
    line = list(result.text_lines())[-1]
    assert line.startswith("health-check: ✅ integrity checks passed; 5 WARM files not verified")
    assert "verify each when you use its facts" in line and "failed" not in line
    # An integrity failure besides: named first, as a reason to stop; staleness after it.
    infra = later.root / "memory" / "semantic" / "infrastructure.md"
    lines = infra.read_text().split("\n")
    infra.write_text("\n".join([lines[0], "#tags: not-in-the-vocabulary", *lines[2:]]))
    line = list(session_start(later).text_lines())[-1]
    assert line.startswith("health-check: ❌ integrity check(s) failed (tags)")
    assert "fix them before relying on memory" in line and "5 WARM files" in line
    assert "warm.fresh" not in line.split(":", 2)[1]
