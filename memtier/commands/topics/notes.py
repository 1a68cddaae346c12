"""Which daily notes hold a topic (PROTOCOL §13), at the cost of the topic's days.

A topic's Dates are the days whose note (live or archived) holds one of its
Match terms as a whole word, any case, or its tag ``#topic:<slug>``. Reading,
resolving and hashing every note to find them cost seconds at 10,000 notes, on
every index command, recall and health check. Here the notes are listed once
(one ``scandir`` per folder, no read); ripgrep then names, in one pass over the
note folders, the notes with a line that may belong to the topic, and only
those are read, checked with the topic's own expressions (`TopicMatcher`, so
ripgrep's answer can only narrow the reading, never decide) and hashed.

Without ripgrep, or when it fails, every listed note is read and checked in
Python: the same notes. A note that is a link, or lies in a folder that leaves
the root, is always read the Python way (ripgrep does not follow links, and the
read is confined, PROTOCOL §3).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from memtier import store
from memtier.clock import parse_day
from memtier.errors import InputError
from memtier.formats.index import IndexEntry
from memtier.store.reading import Reading, not_plain_files
from memtier.values import Fields
from memtier.workspace import Workspace

if TYPE_CHECKING:
    from memtier.spawn import Started

_DAY_NAME = re.compile(r"^(\d{4}-\d\d-\d\d)(?:\.[0-9]+)?\.md$")
_DAY_NAMES = re.compile(r"^\d{4}-\d\d-\d\d(?:\.[0-9]+)?\.md$", re.MULTILINE)  # one a line
# A whole word (PROTOCOL §13): with a letter of an alphabet written with spaces
# (Latin, Greek, Cyrillic), a digit or "_" beside it, a term is part of a longer
# word. Scripts without spaces (CJK) border a term directly ("用qdrant迁移" names
# qdrant). A small class: the large
# negated Unicode one cost 15 ms a topic to compile, on every health-check.
WORD_EDGE = r"[0-9A-Za-z_\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff]"
RG_TIME_LIMIT_SECONDS = 60.0


class DayNote(Fields):
    """One daily note, live or archived, as read."""

    day: str
    path: str  # root-relative
    lines: tuple[str, ...]
    sha256: str


class TopicMatcher:
    """Which lines belong to a topic: a Match term as a whole word, or ``#topic:<slug>``."""

    def __init__(self, entry: IndexEntry) -> None:
        self.terms = tuple(sorted(entry.terms, key=len, reverse=True))
        self.slug = entry.slug
        terms = "|".join(re.escape(t) for t in self.terms)
        self.term_re = re.compile(rf"(?<!{WORD_EDGE})(?:{terms})(?!{WORD_EDGE})", re.IGNORECASE)
        self.tag_re = re.compile(rf"#topic:{re.escape(entry.slug)}(?![\w-])", re.IGNORECASE)

    def matches(self, text: str) -> bool:
        """A line (or a whole note: neither expression crosses a line break) that
        belongs to the topic."""
        return bool(self.term_re.search(text) or self.tag_re.search(text))

    def tagged(self, note: DayNote) -> bool:
        return any(self.tag_re.search(line) for line in note.lines)

    def literals(self) -> list[str]:
        """What every line of the topic holds, any case: a term or the tag. ripgrep
        looks for these as plain text (a note it names is only a candidate)."""
        tag = f"#topic:{self.slug}"
        if any(t.isascii() and t.lower() in tag.lower() for t in self.terms):
            return list(self.terms)  # the tag holds a term: a tagged line holds it too
        return [*self.terms, tag]


class NoteFile(NamedTuple):
    day: str
    rel: str  # root-relative
    path: str  # as listed: the folder joined with the name
    plain: bool  # a regular file in a folder that stays inside the root


class _Folder(NamedTuple):
    path: str
    shown: str  # root-relative, with a slash at the end
    inside: bool  # the folder resolves inside the root: ripgrep may search it
    names: frozenset[str]  # its notes: YYYY-MM-DD.md, YYYY-MM-DD.N.md
    odd: frozenset[str]  # those of them that are not plain files (links, folders)

    def file(self, name: str) -> NoteFile:
        plain = self.inside and name not in self.odd
        return NoteFile(name[:10], self.shown + name, os.path.join(self.path, name), plain)


def _note_folders(ws: Workspace) -> list[Path]:
    folders = [ws.episodic_dir]
    if ws.archive_dir.is_dir():
        folders += sorted(p for p in ws.archive_dir.glob("[0-9]*/[0-9]*") if p.is_dir())
    return folders


def _scandir(folder: Path) -> list[os.DirEntry[str]] | None:
    try:
        with os.scandir(folder) as found:
            return list(found)
    except OSError:
        return None


def _listed(ws: Workspace, folder: Path, inside: bool, reading: Reading | None) -> _Folder | None:
    entries = _scandir(folder) if reading is None else reading.listing(folder)
    if entries is None or (not entries and not os.path.isdir(folder)):
        return None  # no such folder: nothing for ripgrep to search either
    every = [entry.name for entry in entries]
    # One search over all the names, not a call per name (10,000 notes): a name
    # holding a line break is matched alone, as `_DAY_NAME` reads it.
    joined = "\n".join(every)
    if joined.count("\n") != len(every) - 1:  # a name holds a line break
        joined = "\n".join(n for n in every if "\n" not in n)
    wanted = set(_DAY_NAMES.findall(joined))
    wanted.update(n for n in every if "\n" in n and _DAY_NAME.match(n))
    odd = [entry.name for entry in not_plain_files(entries) if entry.name in wanted]
    return _Folder(
        str(folder), ws.relative(folder) + "/", inside, frozenset(wanted), frozenset(odd)
    )


def _in_order(notes: Iterable[DayNote | None]) -> list[DayNote]:
    return sorted((n for n in notes if n is not None), key=lambda n: (n.day, n.path))


class NoteFiles:
    """Every dated note under ``memory/episodic/`` and ``memory/archive/YYYY/MM/``,
    listed (one ``scandir`` a folder; nothing read, resolved or sorted per note);
    each is read at most once, when a topic needs it."""

    def __init__(self, ws: Workspace, reading: Reading | None = None) -> None:
        """*reading*: the listings and bytes a caller shares (health-check's)."""
        self.ws = ws
        self.rg = ripgrep()
        self.reading = reading
        # Which folders there are, and which ripgrep may search, is known before
        # they are listed: a pass starts first and runs while Python lists them.
        self._inside = {folder: ws.resolves_inside(folder) for folder in _note_folders(ws)}
        self._folders: dict[str, _Folder] | None = None
        self._read: dict[str, DayNote | None] = {}
        self._matching: dict[tuple[str, tuple[str, ...]], list[DayNote]] = {}
        self._started: dict[tuple[str, tuple[str, ...]], Started | None] = {}

    @property
    def folders(self) -> dict[str, _Folder]:
        """The note folders, listed (once), by path."""
        if self._folders is None:
            listed = (_listed(self.ws, f, i, self.reading) for f, i in self._inside.items())
            self._folders = {f.path: f for f in listed if f is not None}
        return self._folders

    def _all(self) -> Iterable[NoteFile]:
        for folder in self.folders.values():
            for name in folder.names:
                yield folder.file(name)

    def read(self, file: NoteFile) -> DayNote | None:
        if file.path not in self._read:
            self._read[file.path] = self._read_note(file)
        return self._read[file.path]

    def _read_note(self, file: NoteFile) -> DayNote | None:
        if parse_day(file.day) is None:
            return None  # 2026-02-30.md names no day
        path = Path(file.path)
        try:
            if file.plain:
                # A plain file in a folder inside the root is inside too: read
                # without resolving it again (PROTOCOL §3 is kept by the folder check).
                data = self._plain_bytes(path)
                text = store.decode_document(data, file.rel, path).text
            else:
                text = store.read_text(path, root=self.ws.root)
        except InputError:
            return None  # health-check names an unreadable note; it holds no topic
        lines = tuple(text.split("\n")[:-1] if text.endswith("\n") else text.split("\n"))
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        return DayNote(file.day, file.rel, lines, digest)

    def _plain_bytes(self, path: Path) -> bytes:
        if self.reading is None:
            return store.read_regular_bytes(path)
        data = self.reading.data(path)
        if isinstance(data, OSError):
            raise InputError(f"{path.name}: {data.strerror or data}")
        return data

    def of_days(self, days: Iterable[str]) -> list[DayNote]:
        """Every readable note of *days*, in order of day and path."""
        wanted = set(days)
        files = (
            folder.file(name)
            for folder in self.folders.values()
            for name in folder.names
            if name[:10] in wanted
        )
        return _in_order(self.read(f) for f in files)

    def matching(self, entry: IndexEntry) -> list[DayNote]:
        """The notes holding a line of *entry*'s topic, in order of day and path."""
        return self.matching_all([entry])[0]

    def matching_all(self, entries: Iterable[IndexEntry]) -> list[list[DayNote]]:
        """`matching` for each of *entries*; their ripgrep passes run side by side."""
        entries = list(entries)
        keys = [(e.slug, tuple(e.terms)) for e in entries]
        todo = {k: TopicMatcher(e) for k, e in zip(keys, entries, strict=True)}
        todo = {k: m for k, m in todo.items() if k not in self._matching}
        started = {k: self._started.pop(k, None) or self._start_rg(m) for k, m in todo.items()}
        _ = self.folders  # listed while the passes run
        for key, matcher in todo.items():
            named = self._finish_rg(started[key])
            files = self._all() if named is None else self._named(named)
            notes = (self.read(f) for f in files)
            self._matching[key] = _in_order(
                n for n in notes if n is not None and matcher.matches("\n".join(n.lines))
            )
        return [self._matching[k] for k in keys]

    def start(self, entries: Iterable[IndexEntry]) -> None:
        """Start the ripgrep passes of *entries* now, to run while the caller does
        other work (health-check's other checks); `matching` collects them."""
        for entry in entries:
            key = (entry.slug, tuple(entry.terms))
            if key not in self._matching and key not in self._started:
                self._started[key] = self._start_rg(TopicMatcher(entry))

    def close(self) -> None:
        """Stop the passes nobody collected (a check that raised)."""
        for process in self._started.values():
            if process is not None:
                process.close()
        self._started.clear()

    def _named(self, paths: set[str]) -> Iterable[NoteFile]:
        """The notes ripgrep named, and every note it cannot search (not plain)."""
        for path in paths:
            where, _, name = path.rpartition("/")
            listed = self.folders.get(where)
            if listed is not None and name in listed.names and name not in listed.odd:
                yield listed.file(name)
        for folder in self.folders.values():
            for name in folder.odd if folder.inside else folder.names:
                yield folder.file(name)

    def _start_rg(self, matcher: TopicMatcher) -> Started | None:
        searched = [str(f) for f, inside in self._inside.items() if inside and f.is_dir()]
        if self.rg is None or not searched:
            return None
        # Plain strings, any case: the whole-word rule is checked in Python on the
        # notes named (fixed strings also keep clear of ripgrep 14.1.0's faulty
        # inner-literal step, see search/scanner.py).
        patterns = [arg for text in matcher.literals() for arg in ("--regexp", text)]
        argv = [
            self.rg, "--no-config", "--no-ignore", "--hidden", "--no-messages",
            "--files-with-matches", "--null", "--ignore-case", "--fixed-strings",
            "--max-depth", "1", "--glob", "*.md", *patterns, "--", *searched,
        ]  # fmt: skip
        from memtier import spawn  # not `subprocess`: ~4 ms of every start (see there)

        try:
            return spawn.start(argv)
        except OSError:
            return None

    def _finish_rg(self, process: Started | None) -> set[str] | None:
        """The paths ripgrep named, or None when it could not answer (read them all)."""
        if process is None:
            return None
        out = process.communicate(RG_TIME_LIMIT_SECONDS)
        if out is None:
            return None  # no answer in time (it was killed): Python reads every note
        if process.returncode not in (0, 1):
            return None  # an unreadable note or folder: Python reads every one
        return {os.fsdecode(item) for item in out.split(b"\0") if item}


def ripgrep() -> str | None:
    """ripgrep as every caller finds it (`memtier.binaries`), or None."""
    from memtier.binaries import find_binary

    return find_binary("rg")
