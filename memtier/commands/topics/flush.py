"""`memtier flush [--date D] [--consolidate]`: the daily flush (PROTOCOL §13, v3).

For day D (default yesterday): D's note without a valid closure block is closed
(a ``none`` block merged in, so the day passes health-check); the index is
rebuilt; the due topics are listed, and with ``--consolidate`` written
extractively. One line ``Daily flush: …`` goes to today's note only when
something changed, so a second run changes no byte. The seed's markers
(``<!-- DAILY_FLUSH -->``, ``<!-- NATIVE_FLUSH -->``) are not written: a
marker after the closure block would break it (§2).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any

from memtier import store
from memtier.errors import Term
from memtier.results import Result, fixed
from memtier.store import checkpoint
from memtier.workspace import Workspace


@dataclass(frozen=True)
class FlushReport(Result):
    day: str
    changes: tuple[str, ...]
    due: tuple[str, ...]
    written: tuple[str, ...]
    warnings: tuple[str, ...] = ()

    JSON_NAMES = fixed(day="date")
    JSON_OMIT = frozenset({"warnings"})

    def json_extra(self) -> dict[str, Any]:
        return {"changed": bool(self.changes)}

    def text_lines(self) -> Iterable[str]:
        return self.worded_lines(str)

    def worded_lines(self, words: Callable[[Term], str]) -> Iterable[str]:
        if not self.changes:
            yield f"Daily flush for {self.day}: nothing to do"
        else:
            yield f"Daily flush for {self.day}: {'; '.join(self.changes)}"
        for path in self.written:
            yield f"  wrote {path}"
        if self.due:
            due = ", ".join(self.due)
            yield f"due for consolidation: {due} ({words(Term('consolidate_due'))})"


def flush_line(changes: Iterable[str]) -> str:
    """The line the flush leaves in today's note (no topic names: it must not match one)."""
    return "Daily flush: " + "; ".join(changes)


def flush(ws: Workspace, day: date | None = None, consolidate_due: bool = False) -> FlushReport:
    from memtier.commands.rotation import read_note, write_note
    from memtier.commands.topics.consolidate import plan_generation, write_generation
    from memtier.commands.topics.index import is_due, read_index, write_index
    from memtier.formats.episodic import (
        closure_problem,
        merge_into_note,
        new_note,
        open_closure,
        place_before_closure,
    )

    day = day or ws.yesterday
    changes: list[str] = []
    due: list[str] = []
    written: list[str] = []
    warnings: list[str] = []
    with store.workspace_lock(ws.lock_file):
        note = read_note(ws, day)
        if note is not None and closure_problem(note.text) is not None:
            write_note(ws, day, merge_into_note(note.text, open_closure(ws.today)), note)
            changes.append(f"closed {day.isoformat()}.md")
            checkpoint("flush.note-closed")
        if os.path.lexists(ws.index_file):
            state = read_index(ws)
            if state.parsed.problems:
                first = state.parsed.problems[0]
                warnings.append(f"memory/INDEX.md line {first.line}: {first.message}; not rebuilt")
            else:
                if write_index(ws, state, state.rendered()):
                    changes.append("index rebuilt")
                checkpoint("flush.index-rebuilt")
                due = [e.slug for e in state.rebuilt if is_due(ws, e)]
                if consolidate_due and due:
                    for entry in state.rebuilt:
                        if entry.slug in due:
                            plan = plan_generation(ws, entry, state.notes)
                            write_generation(ws, plan)
                            written.append(plan.path)
                    state.generations_written()
                    write_index(ws, state, state.rendered())
                    changes.append(f"{len(written)} generation(s) written")
                    due = []
        if changes:
            line = flush_line(changes)
            today = read_note(ws, ws.today)
            if today is None:
                text = new_note(ws.today, line, updated=ws.today)
            else:
                text, _where = place_before_closure(today.text, line)
            write_note(ws, ws.today, text, today)
    return FlushReport(day.isoformat(), tuple(changes), tuple(due), tuple(written), tuple(warnings))
