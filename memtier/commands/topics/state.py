"""The topic index as the notes and generation files on disk derive it (PROTOCOL §13).

Shared by the index commands and health-check's ``index.fresh``: it lives
below both, since the health engine imports no command. Reads only.

A topic's Dates are the days whose note (live or archived) holds one of its
Match terms as a whole word, any case, or the tag ``#topic:<slug>``.
``INDEX.md`` and ``consolidated/`` are never scanned for topics. Its
Consolidations and Current are the generation files on disk.
"""

from __future__ import annotations

import os
from functools import cached_property

from memtier import store
from memtier.commands.topics.notes import (
    WORD_EDGE,
    DayNote,
    NoteFiles,
    TopicMatcher,
)
from memtier.errors import InputError
from memtier.formats.consolidated import NAME_RE, GenerationError, parse_generation
from memtier.formats.index import (
    Generation,
    IndexEntry,
    ParsedIndex,
    parse_index,
    render_index,
    with_derived,
)
from memtier.store.reading import Reading
from memtier.workspace import Workspace

__all__ = [
    "WORD_EDGE",
    "DayNote",
    "IndexState",
    "NoteFiles",
    "TopicMatcher",
    "derive",
    "generations_on_disk",
    "is_due",
    "last_covered",
    "new_days",
    "read_index",
    "topic_days",
]


def topic_days(entry: IndexEntry, notes: NoteFiles) -> tuple[str, ...]:
    return tuple(sorted({n.day for n in notes.matching(entry)}))


def generations_on_disk(ws: Workspace) -> dict[str, list[Generation]]:
    """Generation files per slug, in order of N."""
    out: dict[str, list[Generation]] = {}
    folder = ws.consolidated_dir
    if not folder.is_dir():
        return out
    for path in folder.iterdir():
        named = NAME_RE.match(path.name)
        if named is None:
            continue
        gen = Generation(int(named.group("n")), named.group("day"), ws.relative(path))
        out.setdefault(named.group("slug"), []).append(gen)
    for gens in out.values():
        gens.sort(key=lambda g: (g.number, g.created, g.path))
    return out


def last_covered(ws: Workspace, current: str | None) -> str | None:
    """The newest day the current generation covers (its Covers line), or None."""
    if current is None:
        return None
    try:
        gen = parse_generation(store.read_text(ws.root / current, root=ws.root))
    except (InputError, GenerationError):
        return None
    return max(gen.covers) if gen.covers else gen.created


def new_days(ws: Workspace, entry: IndexEntry) -> tuple[str, ...]:
    """PROTOCOL §13 due rule: the Dates after the current generation, today excluded."""
    after = last_covered(ws, entry.current) or ""
    today = ws.today.isoformat()
    return tuple(d for d in entry.dates if after < d < today)


def is_due(ws: Workspace, entry: IndexEntry) -> bool:
    if entry.status == "deprecated":
        return False
    return len(new_days(ws, entry)) >= ws.config.consolidation_threshold


def derive(entry: IndexEntry, notes: NoteFiles, gens: dict[str, list[Generation]]) -> IndexEntry:
    mine = tuple(gens.get(entry.slug, ()))
    derived = entry.copy_with(
        dates=topic_days(entry, notes),
        consolidations=mine,
        current=mine[-1].path if mine else None,
    )
    return with_derived(entry, derived)


class IndexState:
    """INDEX.md as read and as a rebuild would write it."""

    def __init__(
        self,
        ws: Workspace,
        text: str | None,
        parsed: ParsedIndex,
        notes: NoteFiles,
        document: store.Document | None = None,
    ) -> None:
        self.ws = ws
        self.text = text
        self.parsed = parsed
        self.notes = notes
        self.document = document  # as read: a write refuses an edit since (§3)

    @cached_property
    def rebuilt(self) -> tuple[IndexEntry, ...]:
        gens = generations_on_disk(self.ws)
        self.notes.matching_all(self.parsed.entries)  # every topic's ripgrep pass at once
        return tuple(derive(e, self.notes, gens) for e in self.parsed.entries)

    def derived(self, entry: IndexEntry) -> IndexEntry:
        """One entry re-derived, at the cost of its own days (recall, consolidate SLUG)."""
        return derive(entry, self.notes, generations_on_disk(self.ws))

    def generations_written(self) -> None:
        """Derive again: new generation files change Consolidations and Current."""
        self.__dict__.pop("rebuilt", None)

    def rendered(self, entries: tuple[IndexEntry, ...] | None = None) -> str:
        return render_index(self.rebuilt if entries is None else entries)

    @property
    def stale(self) -> bool:
        return self.text is not None and self.text != self.rendered()


# An index of a thousand topics is about 100 KiB; one past this was not written by
# memtier (it re-renders the file) and would take minutes to parse and rebuild.
INDEX_MAX_BYTES = 1024 * 1024


def index_too_large(ws: Workspace) -> str | None:
    """Why INDEX.md is not read (larger than `INDEX_MAX_BYTES`), or None."""
    try:
        size = os.stat(ws.index_file).st_size
    except OSError:
        return None  # absent, or for the read itself to say why
    if size <= INDEX_MAX_BYTES:
        return None
    return (
        f"{ws.relative(ws.index_file)}: {size} bytes, larger than the "
        f"{INDEX_MAX_BYTES // 1024} KiB an index may hold; shorten it by hand"
    )


def read_index(ws: Workspace, reading: Reading | None = None) -> IndexState:
    """INDEX.md (absent: no entries) and the notes its Dates come from, listed: a
    note is read when a topic needs it (through *reading*, health-check's, when given).
    An index past its bound is an input error, never parsed (§13)."""
    path = ws.index_file
    too_large = index_too_large(ws)
    if too_large is not None:
        raise InputError(too_large, path=path)
    document = store.read_document(path, root=ws.root) if os.path.lexists(path) else None
    text = document.text if document is not None else None
    return IndexState(ws, text, parse_index(text or ""), NoteFiles(ws, reading), document)
