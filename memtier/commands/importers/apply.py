"""Putting routed items into the workspace (PROTOCOL §1, §10, §12).

- A fact (a kind of PROTOCOL §10 other than ``event``) goes through the facts
  command's `remember`, so an import keeps every rule a person's ``memtier
  remember`` keeps: one home, no duplicate or near-duplicate, the HOT cap,
  redaction. A duplicate refusal is the skip reason ``duplicate``.
- An event dated D goes to D's note (created with ``# D`` and a closure block when
  missing), before its closure block; an item that cannot be routed goes to today's
  note followed by a ``#routing-note: <why>`` line. A line (or a daily note's block)
  already standing in that note is a duplicate, so a second import adds nothing.
  Notes are written once each, after every item of the import is placed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from memtier import store
from memtier.commands.importers.report import (
    DUPLICATE,
    Outcome,
    imported,
    skipped,
)
from memtier.errors import InputError, RefusedError
from memtier.formats.episodic import ClosureBlock, contains_lines, place_before_closure
from memtier.formats.routing import EVENT, UNROUTED, Parsed, Route, SourceItem, route
from memtier.secrets import add_counts
from memtier.workspace import Workspace

Progress = Callable[[int, int], None]


@dataclass
class _Note:
    day: date
    doc: store.Document | None
    lines: set[str]
    added: list[str] = field(default_factory=list)
    seen: str = ""  # the note's text and its archived copies, for block duplicates


def _fold(text: str, redacted: dict[str, int]) -> str:
    """One line, redacted before and after folding (PROTOCOL §3, v2), as facts are."""
    from memtier.commands.facts import clean_fact

    clean = clean_fact(text, "imported item")
    add_counts(redacted, clean.redacted)
    return clean.text


def _bullet(text: str) -> str:
    """``- text``, without doubling a markdown bullet the text already has (PROTOCOL §3)."""
    for marker in ("- ", "* ", "+ "):
        if text.startswith(marker):
            text = text[len(marker) :].lstrip()
            break
    return f"- {text}"


class DayNotes:
    """The episodic notes an import adds to, each read once and written once."""

    def __init__(self, ws: Workspace, redacted: dict[str, int]) -> None:
        self.ws = ws
        self.redacted = redacted
        self.notes: dict[date, _Note] = {}

    def _note(self, day: date) -> _Note:
        note = self.notes.get(day)
        if note is None:
            from memtier.commands.rotation import read_note

            doc = read_note(self.ws, day)
            lines = {line.strip() for line in doc.text.split("\n")} if doc else set()
            seen = doc.text if doc else ""
            for archived in self._archived(day):
                # A day the weekly review already archived still counts: a re-import
                # after the TTL adds nothing either (PROTOCOL §12).
                text = store.read_text(archived, root=self.ws.root)
                lines.update(line.strip() for line in text.split("\n"))
                seen += text
            note = self.notes[day] = _Note(day, doc, lines, seen=seen)
        return note

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

    def add(self, item: SourceItem, day: date, how: Route) -> Outcome:
        home = self.ws.relative(self.ws.episodic_note(day))
        label = f"{how.kind} ({how.why})"
        note = self._note(day)
        if item.block:
            from memtier.secrets import redact

            redaction = redact("\n".join(item.facts))
            add_counts(self.redacted, redaction.counts)
            block = redaction.text.rstrip("\n") + "\n"
            if contains_lines(self.current_text(note), block):
                return skipped(item.ref, DUPLICATE, home, label)
            note.added.append(block)
            return imported(item.ref, home, label)
        new = [_bullet(_fold(fact, self.redacted)) for fact in item.facts]
        new = [line for line in new if line.strip() not in note.lines]
        if not new:
            return skipped(item.ref, DUPLICATE, home, label)
        if how.kind == UNROUTED:
            new.append(f"#routing-note: {how.why}")
        note.lines.update(line.strip() for line in new)
        note.added.append("".join(line + "\n" for line in new))
        return imported(item.ref, home, label)

    def current_text(self, note: _Note) -> str:
        return note.seen + "".join(note.added)

    def flush(self) -> None:
        from memtier.commands.rotation import write_note

        for note in self.notes.values():
            if not note.added:
                continue
            addition = "".join(note.added)
            if note.doc is None:
                # PROTOCOL §2 (v2): a note memtier creates starts with `# D` and is closed.
                closure = ClosureBlock(self.ws.today.isoformat(), "none", "none", "none")
                text = f"# {note.day.isoformat()}\n\n{addition}{closure.render()}"
            else:
                text, _how = place_before_closure(note.doc.text, addition)
            write_note(self.ws, note.day, text, note.doc)


def _refusal(exc: RefusedError) -> str:
    from memtier.commands.facts import DuplicateFactError

    return DUPLICATE if isinstance(exc, DuplicateFactError) else f"refused: {exc.message}"


class KnownFacts:
    """The normalised text of every fact line in HOT and WARM, kept current by the import.

    A fact whose normalised text is already here is exactly what `remember` refuses as
    a duplicate (PROTOCOL §10, score 1.0); answering that from one index instead of a
    scan of every file per fact keeps a re-import of thousands of facts fast. Anything
    else, near-duplicates included, is for `remember` to judge.
    """

    def __init__(self, ws: Workspace) -> None:
        from memtier.commands.fact_files import fact_homes
        from memtier.errors import InputError
        from memtier.formats.fact_text import fact_lines, normalise_fact

        self.texts: set[str] = set()
        for path, header in fact_homes(ws):
            try:
                body = store.read_text(path, root=ws.root)
            except InputError:
                continue
            self.texts.update(
                normalise_fact(line) for _n, line in fact_lines(body.split("\n"), header)
            )

    def has(self, fact: str) -> bool:
        from memtier.commands.facts import clean_fact
        from memtier.formats.fact_text import normalise_fact

        try:
            return normalise_fact(clean_fact(fact, "fact").text) in self.texts
        except InputError:
            return False

    def add(self, text: str) -> None:
        from memtier.formats.fact_text import normalise_fact

        self.texts.add(normalise_fact(text))


def _remember_item(
    ws: Workspace, item: SourceItem, how: Route, redacted: dict[str, int], known: KnownFacts
) -> Outcome:
    from memtier.commands.facts import remember

    tags: tuple[str, ...] = ()
    if how.kind.startswith("howto:"):
        tags = tuple(t for t in item.tags if ws.config.in_vocabulary(t))
    label = f"{how.kind} ({how.why})"
    homes: list[str] = []
    reasons: list[str] = []
    for fact in item.facts:
        if known.has(fact):
            reasons.append(DUPLICATE)
            continue
        try:
            result = remember(ws, fact, kind=how.kind, tags=tags)
        except RefusedError as exc:
            reasons.append(_refusal(exc))
            continue
        except InputError as exc:
            reasons.append(f"invalid: {exc.message}")
            continue
        add_counts(redacted, dict(result.redacted))
        known.add(result.text)
        homes.append(result.file)
    if homes:
        return imported(item.ref, homes[0], label)
    reason = next((r for r in reasons if r != DUPLICATE), DUPLICATE)
    return skipped(item.ref, reason, None, label)


def apply_items(
    ws: Workspace, parsed: Parsed, progress: Progress | None = None
) -> tuple[list[Outcome], dict[str, int]]:
    """Every item of *parsed* into its home; one outcome per item, invalid ones first."""
    from memtier.secrets import redact

    redacted: dict[str, int] = {}
    outcomes = [skipped(redact(i.ref).text, f"invalid: {i.why}") for i in parsed.invalid]
    notes = DayNotes(ws, redacted)
    known: KnownFacts | None = None
    total = len(parsed.items)
    for done, item in enumerate(parsed.items, start=1):
        item = _redacted_ref(item)
        how = route(item)
        if how.kind in (EVENT, UNROUTED):
            day = item.day if how.kind == EVENT and item.day is not None else ws.today
            outcomes.append(notes.add(item, day, how))
        else:
            known = known or KnownFacts(ws)
            outcomes.append(_remember_item(ws, item, how, redacted, known))
        if progress is not None:
            progress(done, total)
    notes.flush()
    return outcomes, redacted


def _redacted_ref(item: SourceItem) -> SourceItem:
    """The item with its reference redacted: an id or a file name is user text too."""
    from dataclasses import replace

    from memtier.secrets import redact

    clean = redact(item.ref).text
    return item if clean == item.ref else replace(item, ref=clean)
