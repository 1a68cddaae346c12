"""Work is filed under the day it was done (PROTOCOL §4 steps 4–5 v3), and a mid-session
rotation keeps the work in hand (§5 step 5 v3): the findings of issue 21, each as seen."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from memtier.commands.lifecycle import buffer_done, buffer_note, buffer_task
from memtier.commands.rotation import rotate_buffer, session_end
from memtier.commands.session_start import session_start
from memtier.formats.buffer import parse_buffer
from memtier.formats.episodic import closure_problem, rotation_id, split_closure
from memtier.health.report import run_health_check
from memtier.workspace import Workspace
from tests.conftest import run_memtier

EVENING = datetime.fromisoformat("2026-11-30T21:05:00+01:00")
MORNING = datetime.fromisoformat("2026-12-01T08:30:00+01:00")


def _evening_session(root: Path) -> str:
    """A session that died at 21:05 on 30 November (no session-end); the buffer text."""
    evening = Workspace.open(root, EVENING)
    buffer_task(evening, "upgrade grafana")
    buffer_note(evening, "grafana 11 needs the new datasource plugin")
    return evening.buffer.read_text()


def _notes(root: Path) -> dict[str, str]:
    folder = root / "memory/episodic"
    return {p.name: p.read_text() for p in sorted(folder.glob("*.md"))}


def test_a_night_crash_is_recovered_into_its_own_day(root: Path) -> None:
    """Issue 21: recovered the next morning into the morning's note; 30 Nov had no trace."""
    snapshot = _evening_session(root)
    morning = Workspace.open(root, MORNING)
    session_start(morning)
    notes = _notes(root)
    assert list(notes) == ["2026-11-30.md"]  # nothing went to 1 December
    note = notes["2026-11-30.md"]
    # PROTOCOL §2 (v4): headed like every block memtier writes (`### HH:MM …`).
    assert note.startswith(
        "# 2026-11-30\n\n### 08:30 [RECOVERED: STALE] 2026-11-30T21:05:00+01:00 (r-"
    )
    assert f"({rotation_id(snapshot)})" in note
    assert "- grafana 11 needs the new datasource plugin\n" in note
    _head, block = split_closure(note)
    assert block is not None and block.open == "upgrade grafana"
    assert block.updated == "2026-12-01"  # §2: Updated: becomes today
    assert parse_buffer(morning.buffer.read_text()).active_tasks == []
    assert run_health_check(morning).ok  # yesterday's note is checked, and closed


def test_the_days_closed_note_is_merged(root: Path) -> None:
    note = root / "memory/episodic/2026-11-30.md"
    note.write_text(
        "# 2026-11-30\n- morning work\nUpdated: 2026-11-30\nDecisions: moved qdrant\n"
        "Signal: mirror is slow\nOpen: watch tonight's backup\n"
    )
    _evening_session(root)
    session_start(Workspace.open(root, MORNING))
    text = note.read_text()
    assert text.index("- morning work") < text.index("[RECOVERED: STALE]")
    _head, block = split_closure(text)
    assert block is not None
    # PROTOCOL §2 (v4): the recovery's placeholder gives way to a real decision.
    assert block.decisions == "moved qdrant"
    assert block.open == "watch tonight's backup; upgrade grafana"


def test_an_archived_day_goes_to_today_naming_the_day(root: Path) -> None:
    archived = root / "memory/archive/2026/11/2026-11-30.md"
    archived.parent.mkdir(parents=True)
    archived.write_text("# 2026-11-30\nUpdated: 2026-11-30\nDecisions: d\nSignal: s\nOpen: none\n")
    before = archived.read_bytes()
    _evening_session(root)
    session_start(Workspace.open(root, MORNING))
    assert archived.read_bytes() == before  # the archive is never written into
    notes = _notes(root)
    assert list(notes) == ["2026-12-01.md"]
    marker = (
        "[RECOVERED: STALE] 2026-11-30T21:05:00+01:00 (work of 2026-11-30; its note is archived)"
    )
    assert marker in notes["2026-12-01.md"]
    assert closure_problem(notes["2026-12-01.md"]) is None


def test_a_day_older_than_the_ttl_goes_to_today_naming_the_day(root: Path) -> None:
    _evening_session(root)
    later = Workspace.open(root, MORNING + timedelta(days=40))
    session_start(later)
    notes = _notes(root)
    assert list(notes) == ["2027-01-10.md"]
    assert "(work of 2026-11-30; older than the notes' TTL) (r-" in notes["2027-01-10.md"]
    assert run_health_check(later).ok or {c.id for c in run_health_check(later).failed} == {
        "warm.fresh"
    }


def test_a_crash_after_the_append_recovers_into_the_same_day_once(root: Path) -> None:
    _evening_session(root)
    crashed = run_memtier(
        "session-start",
        "--root",
        str(root),
        "--now",
        MORNING.isoformat(),
        env={"MEMTIER_FAULT": "session_start.recovered-appended"},
    )
    assert crashed.returncode == -9
    session_start(Workspace.open(root, MORNING))
    notes = _notes(root)
    assert list(notes) == ["2026-11-30.md"]
    assert notes["2026-11-30.md"].count("grafana 11 needs the new datasource plugin") == 1
    assert "grafana" not in parse_buffer((root / "memory/working-buffer.md").read_text()).body


@pytest.mark.parametrize("how", ["rotate", "oversized-recovery"])
def test_a_mid_session_rotation_keeps_the_tasks_in_hand(root: Path, how: str) -> None:
    """Issue 21: after `rotate` the task list was empty and `buffer done` exited 2."""
    ws = Workspace.open(root, MORNING)
    buffer_task(ws, "upgrade grafana")
    buffer_task(ws, "renew the DNS token")
    if how == "rotate":
        rotate_buffer(ws)
    else:
        for n in range(80):
            buffer_note(ws, f"log line {n}")
        # A rotation that died after its snapshot: session-start restores the
        # oversized buffer and rotates it (§4 step 4).
        text = ws.buffer.read_text()
        ws.buffer_pending.write_text(text)
        session_start(ws)
    assert parse_buffer(ws.buffer.read_text()).active_tasks == [
        "upgrade grafana",
        "renew the DNS token",
    ]
    note = ws.episodic_note().read_text()
    assert note.rstrip("\n").endswith("Open: upgrade grafana; renew the DNS token")
    done = buffer_done(ws, "upgrade grafana")
    assert done.active_tasks == ("renew the DNS token",)
    # Rotated again at session end: the task stays once in Open: (the union), and
    # only session-end leaves the fresh buffer without tasks.
    end = session_end(ws)
    assert end.rotation is not None
    assert parse_buffer(ws.buffer.read_text()).active_tasks == []
    _head, block = split_closure(ws.episodic_note().read_text())
    # ...and the task finished since the first rotation leaves Open: (it lingered).
    assert block is not None and block.open == "renew the DNS token"
