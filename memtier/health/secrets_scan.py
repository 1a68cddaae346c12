"""The ``secrets`` check of PROTOCOL §6: no credential may stand in a memory file.

It scans every file health-check reads (PROTOCOL §6 v4): HOT, WARM, BUFFER, every
``.learnings/*.md``, the topic index (``memory/INDEX.md``, ``consolidated/``), the
configuration (``memory/memtier.toml``), the COLD
notes (``memory/episodic/*.md``) and the archive (``memory/archive/**/*.md``); and
the name of each of them, since a name is shown by every listing. A finding names
the rule and the line, never the credential (a name holding one is shown redacted).

COLD and the archive are the large tiers: years of daily notes. For a large set of notes the
secrets prefilter (`memtier.secrets.prefilter_pattern`, valid for Python and
ripgrep alike) runs through the ``rg`` binary, which reads the files in
parallel and names the few that hold a candidate line; only those are read and
confirmed with `memtier.secrets.detect`. Without ``rg``, or when it reports an
error, every file is scanned in Python, with the same findings.

A file that is not UTF-8, or binary, does not stop the scan: it is read with the
undecodable bytes replaced, scanned, and reported as a warning, because a
credential in a Latin-1 note is still a credential. On the rg path rg searches
the raw bytes of every note and Python reads only the flagged ones, so there
the warning appears only for a flagged note: telling whether 10,000 files are
valid UTF-8 would cost as much as reading them all in Python.
"""

from __future__ import annotations

import os
import re
from collections.abc import Generator, Iterable, Iterator, Sequence
from itertools import repeat
from pathlib import Path
from typing import TYPE_CHECKING

from memtier.errors import Term
from memtier.health.verdict import FAIL, PASS, WARN, Check, Fix
from memtier.workspace import Workspace

if TYPE_CHECKING:
    from memtier.spawn import Started
    from memtier.store.reading import Reading

# A run of the rest (an escape or a class taken whole), or a bounded repetition: one
# substitution over the 10,000 characters of the prefilter (a loop of ours per
# character cost ~2 ms before rg could start, this ~0.6 ms).
_BOUND_OR_NOT = re.compile(
    r"(?:\\.|\[\^?\]?(?:\\.|[^\]\\])*\]|[^\\\[{]|\{(?![0-9]+,[0-9]+\}))+"
    r"|\{([0-9]+),([0-9]+)\}",
    re.DOTALL,
)
# Below this many COLD notes, starting rg costs more than scanning in Python.
RG_MIN_NOTES = 200
RG_TIMEOUT_SECONDS = 120.0


def _ripgrep() -> str | None:
    """The ``rg`` next to the running Python (a venv with the ripgrep wheel), else on PATH."""
    from memtier.binaries import find_binary  # (and shutil) only when the scan may use rg

    return find_binary("rg")


def _note_names(folder: Path) -> list[str]:
    """Names of the ``*.md`` entries directly in *folder*, in directory order, not stat-ed."""
    try:
        return [name for name in os.listdir(folder) if name.endswith(".md")]
    except OSError:
        return []


def _entries(folder: Path) -> Generator[os.DirEntry[str], None, None]:
    with os.scandir(folder) as found:
        yield from found


class _Listing:
    """The COLD folder's one ``scandir``, read in two steps: far enough to count
    *most* notes (whether rg pays, told before it starts), then to its end (while
    rg runs). A folder that cannot be listed lists nothing, as in `Reading`."""

    def __init__(self, folder: Path, most: int) -> None:
        self.entries: list[os.DirEntry[str]] = []
        self.notes = 0  # the ``*.md`` entries among them, up to *most*
        self._rest: Generator[os.DirEntry[str], None, None] | None = _entries(folder)
        try:
            for entry in self._rest:
                self.entries.append(entry)
                self.notes += entry.name.endswith(".md")
                if self.notes >= most:
                    return  # the rest is read by `all`
        except OSError:
            self.entries = []
        self._rest = None  # read to its end

    def all(self) -> list[os.DirEntry[str]]:
        """Every entry (the listing read to its end)."""
        rest, self._rest = self._rest, None
        if rest is not None:
            try:
                self.entries.extend(rest)
            except OSError:
                self.entries = []
            finally:
                rest.close()
        return self.entries


def _archive_notes(folder: Path) -> list[Path]:
    """Every ``*.md`` under the archive (``YYYY/MM/``, ``learnings/``), in a stable
    order; a symlink is never followed (the confinement check reports one that leads
    out of the workspace, PROTOCOL §3)."""
    found: list[Path] = []
    for top, dirs, files in os.walk(folder):
        dirs.sort()
        notes = (Path(top) / name for name in sorted(files) if name.endswith(".md"))
        found.extend(note for note in notes if not note.is_symlink())
    return found


# A repetition bounded above this many times is opened (see `_opened`).
_LONG_BOUND = 32


def _opened(pattern: str) -> str:
    """*pattern* with every repetition bounded above `_LONG_BOUND` times left open
    (``X{3,256}`` becomes ``X{3,}``): it matches wherever *pattern* does, and more
    only where such a run is longer still, a rare text that Python's rules then
    clear. ripgrep compiles each bounded repetition into as many copies as its bound:
    the prefilter's took about a third of the 20-25 ms rg spent compiling it, at the
    start of the pass. Escaped braces and braces inside a class are left alone."""

    def opened(found: re.Match[str]) -> str:
        least, most = found.group(1, 2)
        return found.group() if most is None or int(most) <= _LONG_BOUND else f"{{{least},}}"

    return _BOUND_OR_NOT.sub(opened, pattern)


def _rg_command(rg: str, folders: list[Path], also: Sequence[str] = ()) -> list[str]:
    from memtier.secrets import prefilter_pattern

    return [
        rg,
        "--no-config",
        "--files-with-matches",
        "--null",
        "--no-ignore",
        "--hidden",
        "--follow",
        "--text",
        "--max-depth",
        "3",
        "--glob",
        "*.md",
        # Multi-line search skips ripgrep 14.1.0's faulty inner-literal step, which
        # can pass over matching lines (see search/scanner.py); a match that now runs
        # across a line break only adds a file to scan here, never drops one.
        "--multiline",
        "--regexp",
        _opened(prefilter_pattern()),
        *(arg for pattern in also for arg in ("--regexp", pattern)),
        "--",
        *(str(folder) for folder in folders),
    ]


def _decode(data: bytes) -> tuple[str, str | None]:
    """The text to scan and, when it is not clean UTF-8 text, why."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace"), "not UTF-8 text"
    if "\x00" in text:
        return text, "binary file"
    return text, None


def _scan(ws: Workspace, paths: Iterable[Path], reading: Reading | None = None) -> list[Check]:
    from memtier.secrets import detect, detect_in_name

    if reading is None:
        from memtier.store.reading import Reading

        reading = Reading()
    checks: list[Check] = []
    for path in paths:
        rel = ws.relative(path)  # shown with a credential in the name redacted
        for finding in detect_in_name(path.relative_to(ws.root).as_posix()):
            message = f"{rel} — credential found in the file name ({finding.rule})"
            rename: Fix = (f"fix: rename {rel} (the check never prints the name), then rotate it",)
            checks.append(Check("secrets", FAIL, rel, message, (), rename))
        data = reading.data(path)  # shared with the other checks: each file read once
        if isinstance(data, OSError):
            message = f"{rel} — not scanned for credentials: {data.strerror or data}"
            checks.append(Check("secrets", WARN, rel, message))
            continue
        text, oddity = _decode(data)
        if oddity is not None:
            message = f"{rel} — {oddity} (scanned for credentials anyway)"
            checks.append(Check("secrets", WARN, rel, message))
        for finding in detect(text):
            message = f"{rel}:{finding.line} — credential found ({finding.rule})"
            why = (f"line {finding.line} matches the {finding.rule} rule",)
            fix: Fix = (
                f"fix: remove the credential from {rel}:{finding.line} (the check never "
                "prints it: ",
                Term("replace", arg=rel),
                "), then rotate the credential",
            )
            checks.append(Check("secrets", FAIL, rel, message, why, fix))
    return checks


def _small_tiers(ws: Workspace) -> list[Path]:
    from memtier.health.checks import warm_paths

    learnings = [ws.learnings_dir / name for name in sorted(_note_names(ws.learnings_dir))]
    generations = [ws.consolidated_dir / n for n in sorted(_note_names(ws.consolidated_dir))]
    paths = [ws.hot, *warm_paths(ws), ws.buffer, *learnings, ws.index_file, *generations]
    paths.append(ws.config_file)  # read by every command, health-check included
    return [p for p in paths if p.is_file()]


class SecretsScan:
    """The ``secrets`` check of PROTOCOL §6, started early so rg runs alongside the rest.

    Its ripgrep pass is the one read of every COLD and archived note: *also* adds
    the patterns of the other checks that look inside notes (`named` then gives
    them the notes any of the patterns names, so each note is read once in all).
    Use as a context manager: `finish` gives the checks; leaving the block
    stops an rg that is still running (when another check raised).
    """

    def __init__(
        self, ws: Workspace, reading: Reading | None = None, also: Sequence[str] = ()
    ) -> None:
        self.ws = ws
        self.process: Started | None = None
        self._named: set[str] | None = None
        self._collected = False
        self._small: list[Path] | None = None  # `prepare`'s
        self._small_checks: list[Check] = []
        self._named_in_name: set[str] = set()
        self._listed: tuple[dict[str, tuple[str, list[str]]], int] | None = None  # `_notes`'
        # rg starts first, before anything else is imported or listed: whether there
        # are enough notes for it is told by the first entries of the COLD tier.
        listing = _Listing(ws.episodic_dir, RG_MIN_NOTES)
        self._archived: list[Path] | None = None
        many = listing.notes >= RG_MIN_NOTES
        if not many:  # a small COLD tier: the archive may make up the count
            self._archived = _archive_notes(ws.archive_dir)
            many = listing.notes + len(self._archived) >= RG_MIN_NOTES
        # A folder that is not there would be an error of rg's: no answer at all.
        folders = [f for f in (ws.episodic_dir, ws.archive_dir) if f.is_dir()]
        rg = _ripgrep() if many and folders else None
        if rg is not None:
            from memtier import spawn  # only for a large COLD tier

            try:
                self.process = spawn.start(_rg_command(rg, folders, also))
            except OSError:
                self.process = None
        if reading is None:
            from memtier.store.reading import Reading  # (the store package) while rg runs

            reading = Reading()
        self.reading = reading
        # The one listing of the COLD tier, shared: read to its end when first needed.
        reading.keep_listing(ws.episodic_dir, listing.all)

    def _notes(self) -> tuple[dict[str, tuple[str, list[str]]], int]:
        """The notes by folder (path, root-relative, names), in the order they are
        scanned, and their count: plain strings, a note's path joined only when it
        is read. Listed once, while rg runs."""
        if self._listed is None:
            ws = self.ws
            # The listing is in name order already; every name a note's is the common case.
            names = [entry.name for entry in self.reading.listing(ws.episodic_dir)]
            if not all(map(str.endswith, names, repeat(".md"))):
                names = [name for name in names if name.endswith(".md")]
            archived = self._archived
            if archived is None:
                archived = _archive_notes(ws.archive_dir)
            shown = ws.episodic_dir.relative_to(ws.root).as_posix()
            folders: dict[str, tuple[str, list[str]]] = {str(ws.episodic_dir): (shown, names)}
            for note in archived:
                where = folders.setdefault(
                    str(note.parent), (note.parent.relative_to(ws.root).as_posix(), [])
                )
                where[1].append(note.name)
            self._listed = folders, len(names) + len(archived)
        return self._listed

    @property
    def note_count(self) -> int:
        """How many COLD and archived notes the scan covers."""
        return self._notes()[1]

    def __enter__(self) -> SecretsScan:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process is not None:
            self.process.close()

    def named(self) -> set[str] | None:
        """The notes (as listed: the folder joined with the name) holding a line that
        one of the patterns matches, or None when rg did not run or could not answer
        (then every note must be read)."""
        if not self._collected:
            self._collected = True
            self._named = self._rg_candidates()
        return self._named

    def _rg_candidates(self) -> set[str] | None:
        if self.process is None:
            return None
        out = self.process.communicate(RG_TIMEOUT_SECONDS)
        if out is None:
            return None  # no answer in time: Python looks at every file
        if self.process.returncode == 1:
            return set()
        if self.process.returncode != 0:
            return None  # an error (e.g. an unreadable note): Python looks at every file
        return {os.fsdecode(item) for item in out.split(b"\0") if item}

    def prepare(self) -> None:
        """What needs no answer from rg, done while it still runs: the small tiers'
        scan (which also compiles the rules) and the test of the notes' names."""
        if self._small is not None:
            return
        from memtier.secrets import detect_in_name
        from memtier.secrets_rules import names_to_scan

        self._small = _small_tiers(self.ws)
        self._small_checks = _scan(self.ws, self._small, self.reading)
        self._named_in_name = {
            p
            for where, (shown, names) in self._notes()[0].items()
            for p, rel in ((f"{where}/{n}", f"{shown}/{n}") for n in names_to_scan(shown, names))
            if detect_in_name(rel)
        }

    def _note_paths(self) -> Iterator[str]:
        """Every COLD and archived note, as listed (the folder joined with the name)."""
        for where, (_, names) in self._notes()[0].items():
            yield from (f"{where}/{name}" for name in names)

    def finish(self) -> list[Check]:
        """One failure per credential found (never the credential), else one pass."""
        self.prepare()
        small = self._small or []
        checks = list(self._small_checks)
        found = self.named()
        if found is None:
            candidates = [Path(p) for p in self._note_paths() if os.path.isfile(p)]
            scanned = len(small) + len(candidates)
        else:
            # rg read the contents; a note it passed over is read for its name only.
            wanted = found | self._named_in_name
            candidates = [Path(p) for p in self._note_paths() if p in wanted] if wanted else []
            scanned = len(small) + self.note_count
        checks.extend(_scan(self.ws, candidates, self.reading))
        if not any(c.status == FAIL for c in checks):
            message = f"no credentials found ({scanned} files scanned)"
            checks.append(Check("secrets", PASS, None, message))
        return checks
