"""The topic index as the notes and generation files on disk derive it (PROTOCOL §13).

Shared by the index commands and health-check's ``index.fresh``: it lives
below both, since the health engine imports no command. Reads only.

A topic's Dates are the days whose note (live or archived) holds one of its
Match terms as a whole word, any case, or the tag ``#topic:<slug>``.
``INDEX.md`` and ``consolidated/`` are never scanned for topics. Its
Consolidations and Current are the generation files on disk.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

from memtier import store
from memtier.clock import parse_day
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
from memtier.workspace import Workspace

_DAY_NAME = re.compile(r"^(\d{4}-\d\d-\d\d)(?:\.[0-9]+)?\.md$")
# A whole word (PROTOCOL §13): with a letter of an alphabet written with spaces
# (Latin, Greek, Cyrillic), a digit or "_" beside it, a term is part of a longer
# word. Scripts without spaces (CJK) border a term directly ("用qdrant迁移" names
# qdrant). A small class: the large
# negated Unicode one cost 15 ms a topic to compile, on every health-check.
WORD_EDGE = r"[0-9A-Za-z_\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff]"


@dataclass(frozen=True)
class DayNote:
    """One daily note, live or archived, as read."""

    day: str
    path: str  # root-relative
    lines: tuple[str, ...]
    sha256: str


def _note_folders(ws: Workspace) -> list[Path]:
    folders = [ws.episodic_dir]
    if ws.archive_dir.is_dir():
        folders += sorted(p for p in ws.archive_dir.glob("[0-9]*/[0-9]*") if p.is_dir())
    return folders


def _read_note(ws: Workspace, folder_inside: bool, entry: os.DirEntry[str]) -> str | None:
    """A note's text. In a folder that stays inside the root, a plain file (not a
    link) is inside too: it is read without resolving its path again (recall reads
    every note; PROTOCOL §3's confinement is what the folder check keeps)."""
    path = Path(entry.path)
    try:
        if folder_inside and entry.is_file(follow_symlinks=False):
            data = store.read_regular_bytes(path)
            return store.decode_document(data, ws.relative(path), path).text
        return store.read_text(path, root=ws.root)
    except InputError:
        return None  # health-check names an unreadable note; it holds no topic


def day_notes(ws: Workspace) -> list[DayNote]:
    """Every dated note under ``memory/episodic/`` and ``memory/archive/YYYY/MM/``."""
    notes: list[DayNote] = []
    for folder in _note_folders(ws):
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        inside = ws.resolves_inside(folder)
        for entry in entries:
            match = _DAY_NAME.match(entry.name)
            if match is None or parse_day(match.group(1)) is None:
                continue
            text = _read_note(ws, inside, entry)
            if text is None:
                continue
            lines = tuple(text.split("\n")[:-1] if text.endswith("\n") else text.split("\n"))
            digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
            notes.append(DayNote(match.group(1), ws.relative(Path(entry.path)), lines, digest))
    return sorted(notes, key=lambda n: (n.day, n.path))


class TopicMatcher:
    """Which lines belong to a topic: a Match term as a whole word, or ``#topic:<slug>``."""

    def __init__(self, entry: IndexEntry) -> None:
        terms = "|".join(re.escape(t) for t in sorted(entry.terms, key=len, reverse=True))
        self.term_re = re.compile(rf"(?<!{WORD_EDGE})(?:{terms})(?!{WORD_EDGE})", re.IGNORECASE)
        self.tag_re = re.compile(rf"#topic:{re.escape(entry.slug)}(?![\w-])", re.IGNORECASE)

    def matches(self, text: str) -> bool:
        return bool(self.term_re.search(text) or self.tag_re.search(text))

    def tagged(self, note: DayNote) -> bool:
        return any(self.tag_re.search(line) for line in note.lines)


def topic_days(entry: IndexEntry, notes: Iterable[DayNote]) -> tuple[str, ...]:
    matcher = TopicMatcher(entry)
    days = {n.day for n in notes if any(matcher.matches(line) for line in n.lines)}
    return tuple(sorted(days))


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


def derive(
    entry: IndexEntry, notes: list[DayNote], gens: dict[str, list[Generation]]
) -> IndexEntry:
    mine = tuple(gens.get(entry.slug, ()))
    derived = replace(
        entry,
        dates=topic_days(entry, notes),
        consolidations=mine,
        current=mine[-1].path if mine else None,
    )
    return with_derived(entry, derived)


@dataclass
class IndexState:
    """INDEX.md as read and as a rebuild would write it."""

    ws: Workspace
    text: str | None
    parsed: ParsedIndex
    notes: list[DayNote] = field(default_factory=list)
    document: store.Document | None = None  # as read: a write refuses an edit since (§3)

    @cached_property
    def rebuilt(self) -> tuple[IndexEntry, ...]:
        gens = generations_on_disk(self.ws)
        return tuple(derive(e, self.notes, gens) for e in self.parsed.entries)

    def rendered(self, entries: tuple[IndexEntry, ...] | None = None) -> str:
        return render_index(self.rebuilt if entries is None else entries)

    @property
    def stale(self) -> bool:
        return self.text is not None and self.text != self.rendered()


def read_index(ws: Workspace) -> IndexState:
    """INDEX.md (absent: no entries) and the notes its Dates come from."""
    path = ws.index_file
    document = store.read_document(path, root=ws.root) if os.path.lexists(path) else None
    text = document.text if document is not None else None
    return IndexState(ws, text, parse_index(text or ""), day_notes(ws), document)
