"""Episodic writes of the session lifecycle (PROTOCOL §4): `episodic append|close|show`.

`append` and `close` take the workspace lock, re-read the day's note under it,
change it and write it back atomically: an appended line goes before the
note's closure block, and a final closure block is replaced in place. Their
text arguments are folded to one line and redacted like the buffer's
(`memtier.commands.lifecycle.clean_text`). A day that TTL archival moved is
written where it now stands, never as a second live note of that day (§14
v4); `show` finds it there too. `close --drop` (`episodic_drop`) removes one
``Open:`` item, the way a settled sync conflict leaves the day's block.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date
from pathlib import Path
from typing import Any

from memtier import store
from memtier.clock import require_in_range
from memtier.commands.lifecycle import clean_text
from memtier.errors import InputError, Term
from memtier.formats.episodic import (
    ClosureBlock,
    close_note,
    closure_problem,
    last_closure,
    new_note,
    open_items_named,
    place_before_closure,
    split_closure,
    without_open_item,
)
from memtier.results import NO_REDACTIONS, Result
from memtier.store import checkpoint
from memtier.values import Fields
from memtier.workspace import Workspace, exists_or_link


class EpisodicResult(Result, Fields):
    action: str
    date: str
    path: str
    text: str
    line: str | None = None
    closed: bool = False
    redacted: Mapping[str, int] = NO_REDACTIONS
    archived: str | None = None  # where TTL archival moved the note (show only)
    # close only: "created" | "inserted" | "rebuilt" | "appended" (formats.episodic.close_note)
    placement: str | None = None
    replaced: bool = False
    dropped: str | None = None  # drop only: the Open: item removed

    def to_json(self) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "action": self.action,
            "date": self.date,
            "path": self.path,
            "closed": self.closed,
            "redacted": dict(self.redacted),
        }
        if self.action == "show":
            payload["text"] = self.text
            payload["archived"] = self.archived
        else:
            # "line" is a line number and "text" the text, as in every command's JSON.
            payload["line"] = self._line_number()
            payload["text"] = self.line
        if self.action == "drop":
            payload["dropped"] = self.dropped
        return payload

    @property
    def notices(self) -> tuple[str, ...]:
        if self.archived:
            return (f"{self.path} was archived; shown from {self.archived}",)
        return ()

    def _line_number(self) -> int | None:
        if self.line is None:
            return None
        # The appended line is the last one holding the text (as is, or as a bullet).
        wanted = (self.line, f"- {self.line}")
        lines = self.text.split("\n")
        for number in range(len(lines), 0, -1):
            if lines[number - 1] in wanted:
                return number
        return None

    def text_lines(self) -> Iterable[str]:
        if self.action == "show":
            yield from self.text.rstrip("\n").split("\n")
        elif self.action == "append":
            yield f"appended to {self.path}: {self.line}"
        elif self.action == "drop":
            yield f"dropped from Open: in {self.path}: {self.dropped}"
            yield from self._close_lines()[-1:]
        else:
            yield from self._close_lines()

    def _close_lines(self) -> list[str]:
        how = "written as given" if self.replaced else "merged with the note's block"
        if self.placement in (None, "created", "appended"):
            how = "written"
        lines = [f"closure block {how} in {self.path}"]
        if self.placement == "rebuilt":
            lines.append("repaired: the text that followed the closure block now stands before it")
        _head, block = split_closure(self.text)
        if block is not None:
            lines.extend(f"  {line}" for line in block.lines()[1:])
        return lines


def episodic_append(ws: Workspace, raw: str, day: date | None = None) -> EpisodicResult:
    """PROTOCOL §4: one line into a day's note, before its closure block if it has one."""
    clean = clean_text(raw, "episodic append")
    day = require_in_range(day) if day else ws.today
    with store.workspace_lock(ws.lock_file):
        path, note = day_note(ws, day)
        checkpoint("episodic.read")
        if note is None:
            # PROTOCOL §2 (v2): a note memtier creates is titled and closed, so the
            # day passes health-check until `episodic close` says how it ended.
            text = new_note(day, clean.text, updated=ws.today)
        else:
            text, _placement = place_before_closure(note.text, clean.text)
        store.write_text(path, text, root=ws.root, like=note)
        checkpoint("episodic.written")
    return _episodic_result(ws, "append", day, text, clean.text, clean.redacted, path)


def episodic_close(
    ws: Workspace,
    decisions: str,
    signal: str,
    open_items: str,
    day: date | None = None,
    *,
    replace: bool = False,
) -> EpisodicResult:
    """PROTOCOL §4 (v3): write the closure block, merged with the note's own.

    Merged like every other writer's block (§2), so the open tasks a rotation
    put there stay; *replace* writes the block exactly as given (the way to drop
    an open item that is done). A block that a person's text follows is
    repaired either way: that text moves before it.
    """
    if day is not None:
        require_in_range(day)
    given = ((decisions, "decisions"), (signal, "signal"), (open_items, "open"))
    fields = [clean_text(text, Term(name)) for text, name in given]
    block = ClosureBlock(ws.today.isoformat(), *(f.text for f in fields))
    from memtier.secrets import merge_counts

    redacted = merge_counts(*(f.redacted for f in fields))
    day = day or ws.today
    with store.workspace_lock(ws.lock_file):
        path, note = day_note(ws, day)
        checkpoint("episodic.read")
        placement = "created"
        if note is None:
            text = new_note(day, "", block)
        else:
            text, placement = close_note(note.text, block, replace=replace)
        store.write_text(path, text, root=ws.root, like=note)
        checkpoint("episodic.written")
    result = _episodic_result(ws, "close", day, text, None, redacted, path)
    return result.copy_with(placement=placement, replaced=replace)


def episodic_drop(ws: Workspace, item: str, day: date | None = None) -> EpisodicResult:
    """PROTOCOL §14 (v4): remove one ``Open:`` item from a day's closure block.

    *item* names it: the item equal to it (case and blanks aside), else the one
    item that holds it (a sync conflict's id). Nothing else of the block changes
    but ``Updated:``; a block that text follows is repaired as `episodic_close`
    repairs it. No item or several: an input error that lists the items.
    """
    if day is not None:
        require_in_range(day)
    wanted = clean_text(item, Term("drop")).text
    day = day or ws.today
    with store.workspace_lock(ws.lock_file):
        path, note = day_note(ws, day)
        checkpoint("episodic.read")
        shown = ws.relative(path)
        block = last_closure(note.text) if note is not None else None
        if note is None or block is None:
            missing = "no episodic note" if note is None else "no closure block in the note"
            raise InputError(f"{shown}: {missing} for {day.isoformat()}", path=path)
        named = open_items_named(block, wanted)
        if len(named) != 1:
            how = "no open item" if not named else f"{len(named)} open items"
            raise InputError(
                f"{shown}: {how} match '{wanted}' (Open: {block.open}); name one item",
                path=path,
            )
        kept = without_open_item(block, named[0], ws.today.isoformat())
        text, placement = close_note(note.text, kept, replace=True)
        store.write_text(path, text, root=ws.root, like=note)
        checkpoint("episodic.written")
    result = _episodic_result(ws, "drop", day, text, None, {}, path)
    return result.copy_with(placement=placement, replaced=True, dropped=named[0])


def day_note(ws: Workspace, day: date) -> tuple[Path, store.Document | None]:
    """Where a write to *day*'s note goes, and the note as it stands (None: none yet).

    The live note; else the one TTL archival moved, where ``get --date`` and
    ``episodic show`` find it (§14 v4: a day already archived is appended to
    there, never begun again as a second live note of that day); else a new
    live note."""
    live = ws.episodic_note(day)
    found: Path | None = live
    if not exists_or_link(live):
        found = None
        if ws.archive_month(day).is_dir():  # a new day's note loads nothing more
            from memtier.commands.fact_get import find_day_note

            found = find_day_note(ws, day)
    if found is None:
        return live, None
    return found, store.read_document(found, root=ws.root)


def episodic_show(ws: Workspace, day: date | None = None) -> EpisodicResult:
    """A day's note; one that TTL archival moved is shown from the archive, saying so."""
    from memtier.commands.rotation import read_note

    day = day or ws.today
    note = read_note(ws, day)
    if note is None:
        from memtier.commands.fact_get import find_day_note

        shown = ws.relative(ws.episodic_note(day))
        found = find_day_note(ws, day)
        if found is None:
            raise InputError(f"{shown}: no episodic note for {day.isoformat()}")
        text = store.read_text(store.confine(ws.root, found), root=ws.root)
        result = _episodic_result(ws, "show", day, text, None, {})
        return result.copy_with(archived=ws.relative(found))
    return _episodic_result(ws, "show", day, note.text, None, {})


def _episodic_result(
    ws: Workspace,
    action: str,
    day: date,
    text: str,
    line: str | None,
    redacted: Mapping[str, int],
    path: Path | None = None,
) -> EpisodicResult:
    return EpisodicResult(
        action=action,
        date=day.isoformat(),
        path=ws.relative(path or ws.episodic_note(day)),
        text=text,
        line=line,
        closed=closure_problem(text) is None,
        redacted=redacted,
    )
