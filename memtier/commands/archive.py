"""TTL archival: old daily notes and stray SCRATCH files move to the archive (PROTOCOL §7).

- episodic: ``memory/episodic/YYYY-MM-DD.md`` whose *name* date is more than N days
  before today moves to ``memory/archive/YYYY/MM/``. The name rules, not the
  modification time: a note edited yesterday about a day last year is still last
  year's note. A ``.md`` name that is not a date stays where it is, with a warning.
- learnings: every ``.learnings/*.md`` except the three canonical SCRATCH files,
  older than N×24 h by modification time and with no line ending in ``#pinned``,
  moves to ``memory/archive/learnings/YYYY/MM/`` (month of its modification time).

Moves go through `store.moves.move_batches`: a single rename per file that never overwrites (a taken
name becomes ``<stem>.1.md``), so the content is byte-identical and nothing is
ever deleted. The whole pass runs under the workspace lock and re-lists the
folders under it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from memtier import store
from memtier.clock import parse_day
from memtier.errors import InputError, Term
from memtier.results import Record, Result, fixed
from memtier.store import checkpoint
from memtier.workspace import SCRATCH_FILES, Workspace

ArchiveKind = Literal["episodic", "learnings", "all"]
ARCHIVE_KINDS: tuple[str, ...] = ("episodic", "learnings", "all")
PIN_MARK = b"#pinned"


@dataclass(frozen=True)
class ArchiveMove(Record):
    """One file that moved (or, in a dry run, would move)."""

    kind: str
    source: str  # relative to the root
    destination: str  # relative to the root, the final (possibly renamed) file
    month: str  # ``YYYY/MM/`` as the compat output shows it

    @property
    def name(self) -> str:
        return self.source.rsplit("/", 1)[-1]

    @property
    def renamed(self) -> bool:
        return self.destination.rsplit("/", 1)[-1] != self.name

    JSON_NAMES = fixed(source="from", destination="to")
    JSON_OMIT = frozenset({"kind", "month"})


@dataclass(frozen=True)
class ArchiveResult(Result):
    """What an archive pass moved, left alone and warned about."""

    moved: tuple[ArchiveMove, ...] = ()
    skipped: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    days: dict[str, int] = field(default_factory=dict)
    dry_run: bool = False

    @property
    def changed(self) -> bool:
        return bool(self.moved) and not self.dry_run

    @property
    def notices(self) -> tuple[str, ...]:
        renamed = tuple(
            f"{m.name}: name taken in the archive, stored as {m.destination}"
            for m in self.moved
            if m.renamed
        )
        return (*renamed, "dry run: nothing was moved") if self.dry_run else renamed

    def moved_of(self, kind: str) -> tuple[ArchiveMove, ...]:
        return tuple(m for m in self.moved if m.kind == kind)

    def merge(self, other: ArchiveResult) -> ArchiveResult:
        return ArchiveResult(
            moved=self.moved + other.moved,
            skipped=self.skipped + other.skipped,
            warnings=self.warnings + other.warnings,
            days={**self.days, **other.days},
            dry_run=self.dry_run or other.dry_run,
        )

    def to_json(self) -> dict[str, Any]:
        values = set(self.days.values())
        return {
            "moved": [m.to_json() for m in self.moved],
            "skipped": list(self.skipped),
            "warnings": list(self.warnings),
            # One number when every kind used the same age (the usual case).
            "days": values.pop() if len(values) == 1 else None,
            "days_by_kind": dict(self.days),
            "dry_run": self.dry_run,
        }

    def _total(self, count: int, days: int) -> str:
        # A dry run moved nothing and says so (PROTOCOL §7 keeps the compat line
        # for real moves only).
        if self.dry_run:
            return f"Would archive: {count} files (> {days} days old)"
        return f"✅ Archived: {count} files (> {days} days old)"

    def text_lines(self) -> Iterable[str]:
        # PROTOCOL §7 (compat): the original scripts' lines, one summary per age.
        values = set(self.days.values())
        if len(values) <= 1:
            for move in self.moved:
                yield f"  Archive: {move.name} → {move.month}"
            yield self._total(len(self.moved), values.pop() if values else 0)
            return
        for kind, days in self.days.items():
            moves = self.moved_of(kind)
            for move in moves:
                yield f"  Archive: {move.name} → {move.month}"
            yield self._total(len(moves), days)


# ---------------------------------------------------------------------------
# planning: which files qualify


@dataclass(frozen=True)
class _Planned:
    source: str  # a plain string: pathlib per note cost more than its rename
    folder: Path
    month: str
    shown: str  # the source relative to the root
    shown_folder: str  # the destination folder relative to the root


def _check_days(days: int | None, default: int) -> int:
    chosen = default if days is None else days
    if chosen < 0:
        raise InputError((Term("days"), f" must be 0 or more, got {chosen}"))
    return chosen


def _sorted_entries(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as found:
            return sorted(found, key=lambda entry: entry.name)
    except (FileNotFoundError, NotADirectoryError):
        return []


def _plan_episodic(ws: Workspace, days: int) -> tuple[list[_Planned], list[str], list[str]]:
    planned: list[_Planned] = []
    skipped: list[str] = []
    warnings: list[str] = []
    shown_dir = ws.relative(ws.episodic_dir)
    shown_archive = ws.relative(ws.archive_dir)
    folders: dict[str, Path] = {}
    for entry in _sorted_entries(ws.episodic_dir):
        name = entry.name
        if not name.endswith(".md"):
            continue
        shown = f"{shown_dir}/{name}"
        day = parse_day(name[:-3])
        if day is not None and (ws.today - day).days <= days:
            continue  # "more than N days before today": exactly N days stays
        if not entry.is_file():
            continue
        if entry.is_symlink():
            warnings.append(f"{shown}: is a symlink; left in place")
            skipped.append(shown)
            continue
        if day is None:
            # PROTOCOL §7: the original script archived such names into a nonsense folder.
            warnings.append(f"{shown}: name is not a YYYY-MM-DD date; left in place")
            skipped.append(shown)
            continue
        month = f"{day.year:04d}/{day.month:02d}/"
        folder = folders.get(month)
        if folder is None:
            folder = folders[month] = ws.archive_dir / month  # once per month, not per note
        planned.append(_Planned(entry.path, folder, month, shown, shown_archive + "/" + month))
    return planned, skipped, warnings


def has_pin(path: Path) -> bool:
    """True when a line of *path* ends in ``#pinned`` (bytes, so any encoding works)."""
    try:
        data = path.read_bytes()
    except OSError:
        return True  # unreadable: never move what we cannot inspect
    return any(line.rstrip().endswith(PIN_MARK) for line in data.splitlines())


def _plan_learnings(ws: Workspace, days: int) -> tuple[list[_Planned], list[str], list[str]]:
    planned: list[_Planned] = []
    skipped: list[str] = []
    warnings: list[str] = []
    shown_dir = ws.relative(ws.learnings_dir)
    shown_archive = ws.relative(ws.learnings_archive_dir)
    cutoff = ws.now.timestamp() - days * 86400
    for entry in _sorted_entries(ws.learnings_dir):
        name = entry.name
        if not name.endswith(".md") or name in SCRATCH_FILES or not entry.is_file():
            continue
        shown = f"{shown_dir}/{name}"
        if entry.is_symlink():
            warnings.append(f"{shown}: is a symlink; left in place")
            skipped.append(shown)
            continue
        mtime = entry.stat().st_mtime
        # Older than N×24 h: exactly N×24 h stays.
        if mtime >= cutoff:
            continue
        path = Path(entry.path)
        if has_pin(path):
            skipped.append(shown)
            continue
        moment = datetime.fromtimestamp(mtime, tz=ws.now.tzinfo)
        month = f"{moment.year:04d}/{moment.month:02d}/"
        planned.append(
            _Planned(
                entry.path,
                ws.learnings_archive_dir / month,
                month,
                shown,
                shown_archive + "/" + month,
            )
        )
    return planned, skipped, warnings


# ---------------------------------------------------------------------------
# doing


def _run(
    ws: Workspace, kind: str, planned: list[_Planned], dry_run: bool
) -> tuple[ArchiveMove, ...]:
    names: dict[str, str] = {}
    if dry_run:
        for item in planned:
            name = os.path.basename(item.source)
            names[item.source] = store.free_destination(item.folder, name).name
    else:
        # One batch per month folder: the folder checks and fsyncs are paid once.
        batches: dict[Path, list[str]] = {}
        for item in planned:
            batches.setdefault(item.folder, []).append(item.source)
        checkpoint("archive.before-move")
        from memtier.store.moves import move_batches

        moved = move_batches(batches, root=ws.root)
        checkpoint("archive.moved")
        for folder, sources in batches.items():
            names.update(zip(sources, moved[folder], strict=True))
    return tuple(
        ArchiveMove(kind, item.shown, item.shown_folder + names[item.source], item.month)
        for item in planned
    )


def archive_episodic(
    ws: Workspace, days: int | None = None, dry_run: bool = False
) -> ArchiveResult:
    """Move daily notes older than *days* (default ``episodic_ttl_days``) to the archive."""
    return _archive_kind(ws, "episodic", _check_days(days, ws.config.episodic_ttl_days), dry_run)


def archive_learnings(
    ws: Workspace, days: int | None = None, dry_run: bool = False
) -> ArchiveResult:
    """Move stray ``.learnings/*.md`` files older than *days* to the archive."""
    return _archive_kind(ws, "learnings", _check_days(days, ws.config.learnings_ttl_days), dry_run)


def _archive_kind(ws: Workspace, kind: str, days: int, dry_run: bool) -> ArchiveResult:
    plan = _plan_episodic if kind == "episodic" else _plan_learnings
    with store.workspace_lock(ws.lock_file):
        planned, skipped, warnings = plan(ws, days)
        moves = _run(ws, kind, planned, dry_run)
    return ArchiveResult(moves, tuple(skipped), tuple(warnings), {kind: days}, dry_run)


def archive(
    ws: Workspace, kind: str = "all", days: int | None = None, dry_run: bool = False
) -> ArchiveResult:
    """`memtier archive`: episodic, learnings or both, under one workspace lock."""
    if kind not in ARCHIVE_KINDS:
        raise InputError(f"archive: unknown kind '{kind}' (expected episodic, learnings or all)")
    result = ArchiveResult(dry_run=dry_run)
    with store.workspace_lock(ws.lock_file):
        if kind in ("episodic", "all"):
            result = result.merge(archive_episodic(ws, days, dry_run))
        if kind in ("learnings", "all"):
            result = result.merge(archive_learnings(ws, days, dry_run))
    return result
