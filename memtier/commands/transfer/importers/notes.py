"""The day notes an import adds to (PROTOCOL §2, §7, §12): one chunk, one lock, one write.

A line (or a daily note's block) already standing in that note, or in the day's
archived copies, is a duplicate, so a second import adds nothing — also after the
TTL moved the note to the archive.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from memtier import store
from memtier.commands.transfer.importers.report import DUPLICATE, Outcome, imported, skipped
from memtier.formats.episodic import (
    contains_lines,
    item_paragraph,
    joined_all,
    new_note,
    place_before_closure,
)
from memtier.formats.routing import UNROUTED
from memtier.workspace import Workspace

if TYPE_CHECKING:
    from memtier.commands.transfer.importers.planned import Planned


def _bullet(text: str) -> str:
    """``- text``, without doubling a markdown bullet the text already has (PROTOCOL §3)."""
    for marker in ("- ", "* ", "+ "):
        if text.startswith(marker):
            text = text[len(marker) :].lstrip()
            break
    return f"- {text}"


class DayNotes:
    """Day notes, each chunk of an import read afresh under the lock and written once."""

    def __init__(self, ws: Workspace, redacted: dict[str, int], *, dry_run: bool = False) -> None:
        self.ws = ws
        self.redacted = redacted
        self.dry_run = dry_run
        self.pending: dict[date, str] = {}  # dry run: what earlier chunks would have added

    def _archived(self, day: date) -> list[Path]:
        """The archived copies of *day*'s note (``D.md``, ``D.1.md`` …; PROTOCOL §7)."""
        folder = self.ws.archive_dir / f"{day.year:04d}" / f"{day.month:02d}"
        if not folder.is_dir() or folder.is_symlink():
            return []
        stem = day.isoformat()
        return sorted(
            p
            for p in folder.glob(f"{stem}*.md")
            if p.is_file() and not p.is_symlink() and p.name.split(".")[0] == stem
        )

    def apply(self, day: date, chunk: list[Planned]) -> list[Outcome]:
        if self.dry_run:
            return self._apply(day, chunk)
        with store.workspace_lock(self.ws.lock_file):
            return self._apply(day, chunk)

    def _apply(self, day: date, chunk: list[Planned]) -> list[Outcome]:
        from memtier.commands.rotation import read_note, write_note

        doc = read_note(self.ws, day)
        seen = (doc.text if doc else "") + self.pending.get(day, "")
        for archived in self._archived(day):
            seen += store.read_text(archived, root=self.ws.root)
        lines = {line.strip() for line in seen.split("\n")}
        added: list[str] = []
        home = self.ws.relative(self.ws.episodic_note(day))
        outcomes = []
        for entry in chunk:
            if entry.clean is None:
                outcomes.append(skipped(entry.ref, entry.problem or "invalid", None, entry.label))
            else:
                outcomes.append(self._add(entry, entry.clean, home, seen, lines, added))
        if not added:
            return outcomes
        # PROTOCOL §2 (v4): an imported body never runs into the lines around it.
        addition = joined_all(added)
        if self.dry_run:
            self.pending[day] = self.pending.get(day, "") + addition
            return outcomes
        if doc is None:
            # PROTOCOL §2 (v2): a note memtier creates starts with `# D` and is closed.
            text = new_note(day, addition, updated=self.ws.today)
        else:
            text, _how = place_before_closure(doc.text, addition)
        write_note(self.ws, day, text, doc)
        return outcomes

    def _add(
        self, entry: Planned, clean: str, home: str, seen: str, lines: set[str], added: list[str]
    ) -> Outcome:
        if entry.item.block:
            block = clean.rstrip("\n") + "\n"
            if contains_lines(seen + "".join(added), block):
                return skipped(entry.ref, DUPLICATE, home, entry.label)
            added.append(block)
            return imported(entry.ref, home, entry.label)
        line = _bullet(clean)
        if line.strip() in lines:
            return skipped(entry.ref, DUPLICATE, home, entry.label)
        new = [line]
        if entry.how.kind == UNROUTED:
            new.append(item_paragraph(f"#routing-note: {entry.how.why}"))
        lines.update(n.strip() for n in new)
        added.append("".join(n + "\n" for n in new))
        return imported(entry.ref, home, entry.label)
