"""The weekly review (PROTOCOL §8) with a fixed clock and real files."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from memtier.commands.lifecycle import buffer_note, buffer_task
from memtier.commands.review import NO_CHANGES, SESSION_GATE, SIZE_GATE, weekly_review
from memtier.workspace import Workspace
from tests.conftest import NOW, CliRunner

Snapshot = Callable[[Path], dict[str, bytes]]
LATER = NOW + timedelta(hours=3)  # the buffer written by init at NOW is idle by then
CLOSED = "# 2026-11-30\n- morning work\nUpdated: 2026-11-30\nDecisions: a\nSignal: b\nOpen: c\n"


@pytest.fixture
def idle(root: Path) -> Workspace:
    return Workspace.open(root, LATER)


def today_note(ws: Workspace) -> Path:
    return ws.episodic_note()


def write_errors(ws: Workspace, *lines: str) -> None:
    ws.errors_file.write_text("# Errors\n" + "".join(line + "\n" for line in lines))


def test_session_gate_defers_and_notes_it(ws: Workspace) -> None:
    today_note(ws).write_text(CLOSED)
    old = ws.episodic_note(ws.today - timedelta(days=40))
    old.write_text("old\n")
    buffer_task(ws, "migrate qdrant")
    result = weekly_review(ws)  # the buffer's last_active is NOW and it holds a task
    assert result.status == "deferred-session" and result.exit_code == 0
    # The deferral line carries its time, so two deferrals are two lines.
    line = "10:00 " + SESSION_GATE
    # PROTOCOL §2 (v4): a blank line on each side keeps it its own paragraph.
    expected = CLOSED.replace("\nUpdated:", "\n\n" + line + "\n\nUpdated:", 1)
    assert today_note(ws).read_text() == expected
    assert old.exists()  # nothing else happened


def test_a_fresh_buffer_is_no_session(ws: Workspace) -> None:
    """Issue 21: ten minutes after init the review said "active session detected" and
    wrote `Open: weekly review` (PROTOCOL §8 step 2 v3: a fresh buffer is no session)."""
    old = ws.episodic_note(ws.today - timedelta(days=40))
    old.write_text("# old\n")
    soon = Workspace.open(ws.root, NOW + timedelta(minutes=10))
    result = weekly_review(soon)
    assert result.status == "done", result.message
    assert not old.exists()
    text = today_note(ws).read_text()
    assert SESSION_GATE not in text
    assert "Open: weekly review" not in text


def test_freshness_does_not_block_and_stale_files_stay_open(ws: Workspace) -> None:
    """Issue 21: after 30 days away every WARM file is stale and every review exited 1;
    PROTOCOL §8 step 4 v3: the review goes on, each stale file is left as `verify`."""
    old = ws.episodic_note(ws.today - timedelta(days=31))
    old.write_text("# old\n")
    away = Workspace.open(ws.root, NOW + timedelta(days=31))
    result = weekly_review(away)
    assert result.status == "done" and result.exit_code == 0, result.message
    assert not old.exists()
    assert result.closure is not None
    stale = [f"verify {p}" for p in result.stale]
    assert "verify memory/semantic/infrastructure.md" in stale
    assert result.closure.open == "; ".join(stale)
    assert any("not blocking" in n for n in result.notices)
    # Integrity still blocks.
    (ws.root / "MEMORY.md").write_text("broken\n")
    assert weekly_review(away).status == "health-failed"


def test_session_gate_creates_a_closed_note(ws: Workspace) -> None:
    buffer_note(ws, "a live session")
    weekly_review(ws)
    text = today_note(ws).read_text()
    assert SESSION_GATE + "\n" in text
    assert text.split("\n")[-5].startswith("Updated: 2026-11-30")


def test_size_gate_defers_when_the_buffer_is_oversized(idle: Workspace) -> None:
    with idle.buffer.open("a") as handle:
        handle.write("".join(f"- task {n}\n" for n in range(4)))
    os.utime(idle.buffer)  # a recent mtime does not matter; last_active does
    today_note(idle).write_text(CLOSED)
    result = weekly_review(idle)
    assert result.status == "deferred-size"
    assert list(result.text_lines()) == [SIZE_GATE]
    assert SIZE_GATE + "\n\nUpdated:" in today_note(idle).read_text()


def test_failing_health_check_changes_nothing(
    idle: Workspace, root: Path, snapshot: Snapshot
) -> None:
    idle.hot.write_text("# Not the header\n")
    (idle.episodic_dir / "2026-01-01.md").write_text("old\n")
    write_errors(idle, *["- 2026-11-01 same thing"] * 3)
    idle.buffer_lock.write_text("")
    before = snapshot(root)
    result = weekly_review(idle)
    assert result.exit_code == 1
    lines = list(result.text_lines())
    assert "❌ MEMORY.md header invalid" in lines
    after = snapshot(root)
    del before["memory/working-buffer.md.lock"]  # step 1 ran before the check
    assert after == before


def test_a_run_that_archives_and_flags_then_a_no_op_rerun(
    idle: Workspace, root: Path, snapshot: Snapshot
) -> None:
    (idle.episodic_dir / "2026-10-01.md").write_text("old\n")
    stray = idle.learnings_dir / "2025-notes.md"
    stray.write_text("- from last year\n")
    os.utime(stray, (0, 0))
    write_errors(
        idle,
        "- 2026-11-01 Docker  DNS breaks after restart",
        "- 2026-11-08 docker dns breaks after restart [PROMOTE-CANDIDATE]",
        "- 2026-11-15T09:00:00+01:00 docker dns breaks after restart #pinned",
        "- 2026-11-01 unrelated once",
    )
    # A hand-edited duplicate in LEARNINGS.md also counts (ERRORS + LEARNINGS).
    (idle.learnings_dir / "LEARNINGS.md").write_text(
        "# Learnings\n- 2026-11-02 apt mirror slow\n- apt MIRROR slow\n"
    )
    write_errors_extra = idle.errors_file.read_text() + "- 2026-11-20 apt mirror slow\n"
    idle.errors_file.write_text(write_errors_extra)
    result = weekly_review(idle)
    assert result.status == "done"
    assert (idle.archive_dir / "2026/10/2026-10-01.md").exists()
    assert (idle.learnings_archive_dir / "1970/01/2025-notes.md").exists()
    # The docker lesson already carries a flag: only the apt lesson is flagged, first line.
    assert [(f.file, f.line, f.count) for f in result.flagged] == [(".learnings/ERRORS.md", 6, 3)]
    assert idle.errors_file.read_text().endswith(
        "- 2026-11-20 apt mirror slow [PROMOTE-CANDIDATE]\n"
    )
    note = today_note(idle).read_text().split("\n")
    assert note[-5] == "Updated: 2026-11-30"
    assert note[-4].startswith("Decisions: weekly review performed: archived 1 episodic note")
    assert note[-2] == "Open: review promotion candidates (memtier candidates)"
    before = snapshot(root)
    again = weekly_review(idle)
    assert again.status == "no-changes"
    assert list(again.text_lines()) == [NO_CHANGES]
    assert snapshot(root) == before


def test_closure_block_is_merged_in_place_not_duplicated(idle: Workspace) -> None:
    today_note(idle).write_text(CLOSED)
    (idle.episodic_dir / "2026-10-01.md").write_text("old\n")
    weekly_review(idle)
    text = today_note(idle).read_text()
    # PROTOCOL §8 step 8 (v2): the agent's items stay, the review's join them.
    assert text == (
        "# 2026-11-30\n- morning work\n\nUpdated: 2026-11-30\n"
        "Decisions: a; weekly review performed: archived 1 episodic note\n"
        "Signal: b; health check passed; no lesson reached the recurrence threshold\n"
        "Open: c\n"
    )


@pytest.mark.parametrize(("threshold", "flagged"), [(3, False), (2, True)])
def test_recurrence_threshold(idle: Workspace, root: Path, threshold: int, flagged: bool) -> None:
    (root / "memory/memtier.toml").write_text(f"recurrence_threshold = {threshold}\n")
    ws = Workspace.open(root, LATER)
    write_errors(ws, "- 2026-11-01 Retry  the upload", "- 2026-11-02 retry the UPLOAD #pinned")
    result = weekly_review(ws)
    assert bool(result.flagged) is flagged
    if flagged:
        assert "- 2026-11-01 Retry  the upload [PROMOTE-CANDIDATE]\n" in ws.errors_file.read_text()
    else:
        assert result.status == "no-changes"


def test_flag_goes_at_the_very_end_even_after_a_pin(idle: Workspace) -> None:
    """PROTOCOL §2/§8: `[PROMOTE-CANDIDATE]` ends the line it marks."""
    write_errors(idle, "- 2026-11-01 pin me #pinned", "- 2026-11-02 pin me", "- 2026-11-03 pin me")
    weekly_review(idle)
    lines = idle.errors_file.read_text().splitlines()
    assert "- 2026-11-01 pin me #pinned [PROMOTE-CANDIDATE]" in lines
    assert sum("[PROMOTE-CANDIDATE]" in line for line in lines) == 1


def test_promoted_lesson_is_not_flagged_again(idle: Workspace) -> None:
    write_errors(idle, *["- 2026-11-01 check the tailnet ACL"] * 3)
    lessons = idle.procedural_dir / "lessons-learned.md"
    lessons.write_text(lessons.read_text() + "- Check the tailnet ACL\n")
    assert weekly_review(idle).status == "no-changes"


def test_no_op_run_only_removes_the_lock_marker(
    idle: Workspace, root: Path, snapshot: Snapshot
) -> None:
    idle.buffer_lock.write_text("")
    before = snapshot(root)
    result = weekly_review(idle)
    assert result.status == "no-changes" and result.lock_removed
    del before["memory/working-buffer.md.lock"]
    assert snapshot(root) == before


def test_cli_exit_codes_and_json(cli: CliRunner, root: Path) -> None:
    args = ("weekly-review", "--root", str(root), "--now")
    cli("buffer", "task", "in hand", "--root", str(root), "--now", NOW.isoformat())
    live = cli(*args, NOW.isoformat(), "--json")
    assert live.exit_code == 0
    payload = json.loads(live.stdout)
    assert set(payload) == {
        "status", "message", "lock_removed", "archived", "flagged", "health", "closure", "note",
    }  # fmt: skip
    assert payload["status"] == "deferred-session" and payload["health"] is None
    (root / "MEMORY.md").write_text("broken\n")
    failed = cli(*args, LATER.isoformat())
    assert failed.exit_code == 1
    assert failed.stdout.startswith("❌ MEMORY.md header invalid\n")
    as_json = cli(*args, LATER.isoformat(), "--json")
    assert as_json.exit_code == 1
    health = json.loads(as_json.stdout)["health"]
    # Check ids, as in session-start's JSON, with the messages beside them.
    assert health["ok"] is False and "hot.header" in health["failed"]
    assert "MEMORY.md header invalid" in health["messages"]
