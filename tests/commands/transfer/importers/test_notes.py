"""importers.notes: the day notes an import adds to (PROTOCOL §2, §7, §12)."""

from __future__ import annotations

from datetime import date

from memtier.commands.transfer.importers.notes import DayNotes
from memtier.commands.transfer.importers.planned import Planned
from memtier.formats.routing import Route, SourceItem
from memtier.workspace import Workspace

DAY = date(2026, 11, 20)


def _entry(text: str, *, kind: str = "event", block: bool = False) -> Planned:
    item = SourceItem("line 1", (text,), block=block)
    how = Route(kind, "dated" if kind == "event" else "no type, tag or date")
    return Planned(0, "line 1", item, how, (text,), f"note:{DAY}", clean=text)


def test_a_new_note_starts_with_its_date_and_is_closed(ws: Workspace) -> None:
    outcomes = DayNotes(ws, {}).apply(DAY, [_entry("* met Ann")])
    assert [o.status for o in outcomes] == ["imported"]
    text = ws.episodic_note(DAY).read_text()
    # The bullet is not doubled; the closure block is dated today (PROTOCOL §2 v2).
    assert text == (
        "# 2026-11-20\n\n- met Ann\n\n"
        "Updated: 2026-11-30\nDecisions: none\nSignal: none\nOpen: none\n"
    )


def test_a_line_already_there_or_archived_is_a_duplicate(ws: Workspace) -> None:
    notes = DayNotes(ws, {})
    notes.apply(DAY, [_entry("met Ann")])
    assert [o.reason for o in notes.apply(DAY, [_entry("met Ann")])] == ["duplicate"]
    folder = ws.archive_dir / "2026" / "11"
    folder.mkdir(parents=True)
    ws.episodic_note(DAY).rename(folder / "2026-11-20.md")
    assert [o.reason for o in notes.apply(DAY, [_entry("met Ann")])] == ["duplicate"]
    assert not ws.episodic_note(DAY).exists()


def test_an_unrouted_line_carries_its_routing_note(ws: Workspace) -> None:
    DayNotes(ws, {}).apply(DAY, [_entry("flatmate stuff", kind="unrouted")])
    text = ws.episodic_note(DAY).read_text()
    assert "- flatmate stuff\n\n  #routing-note: no type, tag or date\n\n" in text


def test_a_dry_run_remembers_what_it_would_add_and_writes_nothing(ws: Workspace) -> None:
    notes = DayNotes(ws, {}, dry_run=True)
    assert [o.status for o in notes.apply(DAY, [_entry("met Ann")])] == ["imported"]
    assert [o.reason for o in notes.apply(DAY, [_entry("met Ann")])] == ["duplicate"]
    assert not ws.episodic_note(DAY).exists()
