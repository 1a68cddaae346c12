"""The findings of "nothing lost" (PROTOCOL v2), each as it was seen: exit 0 and a line gone.

Each test failed before rotation identity, merged closure blocks and kept edits.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from memtier.commands.episodic_writes import episodic_append, episodic_close
from memtier.commands.lifecycle import buffer_note, buffer_task
from memtier.commands.review import SESSION_GATE, weekly_review
from memtier.commands.rotation import rotate_buffer, session_end
from memtier.commands.session_start import session_start
from memtier.formats.buffer import Buffer, parse_buffer
from memtier.formats.episodic import closure_problem, rotation_heading, rotation_id
from memtier.health.report import run_health_check
from memtier.workspace import Workspace
from tests.conftest import NOW, CliRunner, run_memtier

DAY1 = NOW
DAY2 = NOW + timedelta(days=1)


def _at(ws: Workspace, when: datetime) -> Workspace:
    return Workspace.open(ws.root, when)


def _killed_at(ws: Workspace, point: str, command: str, now: str = NOW.isoformat()) -> None:
    """A real memtier process killed by SIGKILL at the fault point *point*."""
    crashed = run_memtier(
        command, "--root", str(ws.root), "--now", now, env={"MEMTIER_FAULT": point}
    )
    assert crashed.returncode == -9, crashed.stderr


def _routine(ws: Workspace) -> None:
    buffer_task(ws, "check backups")
    buffer_note(ws, "backups ok")


def _all_notes(ws: Workspace) -> str:
    return "".join(p.read_text() for p in sorted(ws.episodic_dir.glob("*.md")))


def test_day_two_crash_after_the_snapshot_keeps_day_two(ws: Workspace) -> None:
    """v1 discarded day 2's .pending because its text "already stood" in day 1's note."""
    session_start(_at(ws, DAY1))
    _routine(_at(ws, DAY1))
    session_end(_at(ws, DAY1))
    day2 = _at(ws, DAY2)
    session_start(day2)
    _routine(day2)
    now2 = DAY2.isoformat()
    _killed_at(ws, "rotate.pending-written", "rotate", now=now2)
    started = session_start(day2)
    assert not any("already stands" in action for action in started.actions)
    session_end(day2)
    notes = _all_notes(ws)
    assert notes.count("- check backups\n") == 2
    assert notes.count("- backups ok\n") == 2
    assert ws.episodic_note(DAY2.date()).read_text().count("- check backups\n") == 1
    assert run_health_check(day2).ok


@pytest.mark.parametrize("command", ["session-end", "rotate"])
def test_a_rerun_after_the_append_lands_once(ws: Workspace, command: str) -> None:
    _routine(ws)
    _killed_at(ws, "rotate.note-written", command)
    session_start(ws)
    note = ws.episodic_note().read_text()
    assert note.count("- check backups\n") == 1
    # A mid-session rotation keeps its tasks in hand, also when session-start
    # finishes it (§5 step 5 v3); session-end's leaves none.
    tasks = parse_buffer(ws.buffer.read_text()).active_tasks
    assert tasks == (["check backups"] if command == "rotate" else [])
    assert "backups ok" not in ws.buffer.read_text()


def test_weekly_review_keeps_what_episodic_close_wrote(ws: Workspace) -> None:
    episodic_append(ws, "renewed the certificate")
    episodic_close(
        ws, "moved qdrant to host b", "apt mirror is slow", "renew DNS token before Friday"
    )
    (ws.episodic_dir / "2026-10-01.md").write_text("# old\n")
    idle = Workspace.open(ws.root, NOW + timedelta(hours=3))
    assert weekly_review(idle).status == "done"
    lines = idle.episodic_note().read_text().rstrip("\n").split("\n")
    assert lines[-3].startswith("Decisions: moved qdrant to host b; weekly review performed")
    assert lines[-2].startswith("Signal: apt mirror is slow; ")
    assert lines[-1] == "Open: renew DNS token before Friday"


def test_weekly_review_signal_keeps_case_and_whole_words(ws: Workspace) -> None:
    lesson = (
        "Retry the Matrix upload after a backoff when the server says (http 429) within a minute"
    )
    ws.errors_file.write_text("# Errors\n" + f"- 2026-11-20 {lesson}\n" * 3)
    idle = Workspace.open(ws.root, NOW + timedelta(hours=3))
    result = weekly_review(idle)
    assert result.closure is not None
    signal = result.closure.signal
    assert "Retry the Matrix upload" in signal
    assert signal.endswith("…")
    shown = signal.split(": ", 1)[1].rstrip("…")
    assert lesson.startswith(shown) and lesson[len(shown)] == " "


def test_rotate_into_a_closed_note_keeps_open_and_adds_the_moved_tasks(ws: Workspace) -> None:
    episodic_close(ws, "d", "s", "renew DNS token before Friday")
    buffer_task(ws, "migrate qdrant")
    rotate_buffer(ws)
    last = ws.episodic_note().read_text().rstrip("\n").split("\n")[-1]
    assert last == "Open: renew DNS token before Friday; migrate qdrant"


def _crash_rotation(ws: Workspace) -> str:
    """A rotation that died right after its snapshot; returns the snapshot."""
    _killed_at(ws, "rotate.pending-written", "rotate", now=ws.now.isoformat())
    return ws.buffer_pending.read_text()


def _person_adds(ws: Workspace, line: str, *, task: bool = False) -> None:
    """A person edits the buffer by hand (no memtier), after the crash."""
    text = ws.buffer.read_text()
    if task:
        text = text.replace("## Active Task:\n", f"## Active Task:\n{line}\n", 1)
    else:
        text += ("" if "## Notes" in text else "\n## Notes\n") + f"{line}\n"
    ws.buffer.write_text(text)


def test_pending_restore_keeps_a_line_a_person_added(ws: Workspace) -> None:
    buffer_task(ws, "migrate qdrant")
    _crash_rotation(ws)
    _person_adds(ws, "- remember the firewall rule")
    _person_adds(ws, "- call the ISP", task=True)
    later = Workspace.open(ws.root, NOW + timedelta(minutes=10))
    session_start(later)
    buffer = parse_buffer(later.buffer.read_text())
    assert buffer.active_tasks == ["migrate qdrant", "call the ISP"]
    assert buffer.body.count("- remember the firewall rule\n") == 1
    assert not later.buffer_pending.exists()
    session_end(later)
    note = later.episodic_note().read_text()
    for line in ("- migrate qdrant", "- call the ISP", "- remember the firewall rule"):
        assert note.count(line + "\n") == 1


def test_pending_stale_path_keeps_a_line_a_person_added(ws: Workspace) -> None:
    buffer_task(ws, "migrate qdrant")
    _crash_rotation(ws)
    _person_adds(ws, "- a line nobody snapshotted")
    later = Workspace.open(ws.root, NOW + timedelta(hours=5))
    session_start(later)
    note = later.episodic_note().read_text()
    assert note.count("- migrate qdrant\n") == 1
    assert note.count("- a line nobody snapshotted\n") == 1
    assert "[RECOVERED: STALE]" in note
    assert "- a line nobody snapshotted" not in later.buffer.read_text()
    assert run_health_check(later).ok


@pytest.mark.parametrize("command", ["session-end", "rotate"])
def test_a_line_a_person_added_survives_a_finished_rotation(ws: Workspace, command: str) -> None:
    """The rotation died after its append, before the fresh buffer; a person added a line."""
    buffer_task(ws, "migrate qdrant")
    _killed_at(ws, "rotate.note-written", command)
    _person_adds(ws, "- added after the crash")
    session_start(ws)
    assert ws.episodic_note().read_text().count("- migrate qdrant\n") == 1
    body = parse_buffer(ws.buffer.read_text()).body
    assert body.count("- migrate qdrant") == (1 if command == "rotate" else 0)
    assert body.count("- added after the crash\n") == 1


def test_session_end_rotates_notes_without_a_task(ws: Workspace, cli: CliRunner) -> None:
    buffer_note(ws, "apt mirror is slow")
    result = cli("session-end", "--root", str(ws.root), "--now", NOW.isoformat())
    assert result.exit_code == 0
    assert result.stdout.startswith("rotated working buffer: ")
    assert "- apt mirror is slow\n" in ws.episodic_note().read_text()
    tomorrow = Workspace.open(ws.root, DAY2 + timedelta(hours=5))
    session_start(tomorrow)
    assert not tomorrow.episodic_note().exists()  # nothing left to recover as stale


def test_first_episodic_append_keeps_the_day_healthy(ws: Workspace) -> None:
    episodic_append(ws, "deployed the gateway")
    assert ws.episodic_note().read_text().startswith("# 2026-11-30\n")
    assert run_health_check(ws).ok
    buffer_task(ws, "t")
    rotate_buffer(ws)
    assert run_health_check(ws).ok
    episodic_close(ws, "d", "s", "o")  # merged (§4 v3): the moved task stays open
    text = ws.episodic_note().read_text()
    # PROTOCOL §2 (v4): the rotation's placeholder gave way to the day's decision.
    assert text.endswith("Decisions: d\nSignal: s\nOpen: t; o\n")
    episodic_close(ws, "d", "s", "o", replace=True)
    assert ws.episodic_note().read_text().endswith("Decisions: d\nSignal: s\nOpen: o\n")


def test_updated_must_be_a_date(ws: Workspace, cli: CliRunner) -> None:
    ws.episodic_note().write_text("# day\nUpdated: x\nDecisions: a\nSignal: b\nOpen: c\n")
    result = cli("health-check", "--json", "--root", str(ws.root), "--now", NOW.isoformat())
    assert result.exit_code == 1
    failed = [c for c in json.loads(result.stdout)["checks"] if c["status"] == "fail"]
    assert [c["message"] for c in failed] == ["2026-11-30.md — closure block missing or malformed"]


def test_archive_dry_run_says_would(ws: Workspace, cli: CliRunner) -> None:
    for day in ("2026-09-01", "2026-09-02", "2026-09-03"):
        (ws.episodic_dir / f"{day}.md").write_text("x\n")
    result = cli("archive", "--dry-run", "--root", str(ws.root), "--now", NOW.isoformat())
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1] == "Would archive: 3 files (> 30 days old)"
    assert "Archived" not in result.stdout
    assert (ws.episodic_dir / "2026-09-01.md").exists()


def test_weekly_review_deferrals_carry_their_time(ws: Workspace) -> None:
    buffer_task(ws, "in hand")
    weekly_review(ws)
    weekly_review(Workspace.open(ws.root, NOW + timedelta(minutes=30)))
    text = ws.episodic_note().read_text()
    assert f"10:00 {SESSION_GATE}\n" in text
    assert f"10:30 {SESSION_GATE}\n" in text
    assert closure_problem(text) is None


@pytest.mark.parametrize("legacy", [True, False])
def test_a_pending_from_an_older_version(ws: Workspace, legacy: bool) -> None:
    """An older memtier appended the body without a heading, then died (docs/DECISIONS.md)."""
    body = "## Active Task:\n- migrate qdrant\n"
    snapshot = Buffer("2026-11-30T09:00:00+01:00", "2026-11-30T09:50:00+01:00", body).render()
    ws.episodic_note().write_text(
        "# day\n" + body + "Updated: 2026-11-30\nDecisions: a\nSignal: b\nOpen: none\n"
    )
    ws.buffer.write_text(snapshot)
    ws.buffer_pending.write_text(snapshot)
    # An older marker holds a timestamp; this version's marker starts with the id.
    ws.buffer_lock.write_text(
        "2026-11-30T09:55:00+01:00\n"
        if legacy
        else f"{rotation_id(snapshot)} 2026-11-30T09:55:00+01:00\n"
    )
    session_start(ws)
    session_end(ws)
    count = ws.episodic_note().read_text().count("- migrate qdrant\n")
    # Older marker: its own verbatim test applies, once. Newer: only ids count, so
    # a body without a heading is not this rotation and the snapshot lands.
    assert count == (1 if legacy else 2)
    assert not ws.buffer_pending.exists()


def test_rotation_blocks_are_headed_with_time_and_id(ws: Workspace) -> None:
    buffer_task(ws, "t")
    text = ws.buffer.read_text()
    result = rotate_buffer(ws)
    assert result.id == rotation_id(text)
    assert rotation_heading(NOW, result.id) in ws.episodic_note().read_text()


def test_cli_rotate_json_names_the_id(cli: CliRunner, root: Path) -> None:
    cli("buffer", "task", "t", "--root", str(root), "--now", NOW.isoformat())
    data = json.loads(cli("rotate", "--json", "--root", str(root), "--now", NOW.isoformat()).stdout)
    assert data["id"].startswith("r-") and data["placement"] == "created"


def test_a_stale_recovery_killed_after_its_append_keeps_a_later_edit(ws: Workspace) -> None:
    buffer_task(ws, "migrate qdrant")
    later = NOW + timedelta(hours=5)
    _killed_at(ws, "session_start.recovered-appended", "session-start", now=later.isoformat())
    _person_adds(ws, "- added after the crash")
    session_start(Workspace.open(ws.root, later))
    note = ws.episodic_note().read_text()
    buffer = ws.buffer.read_text()
    assert note.count("- migrate qdrant\n") == 1 and "- migrate qdrant" not in buffer
    assert (note + buffer).count("- added after the crash\n") == 1
    assert not ws.buffer_pending.exists()


def test_identical_buffers_in_one_second_both_land(ws: Workspace) -> None:
    """A fixed clock: rotate, write the same line, rotate, write it again, crash, recover."""
    for _round in range(2):
        buffer_task(ws, "check backups")
        session_end(ws)
    buffer_task(ws, "check backups")
    _killed_at(ws, "rotate.pending-written", "session-end")
    session_start(ws)
    session_end(ws)
    assert ws.episodic_note().read_text().count("- check backups\n") == 3
