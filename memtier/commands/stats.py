"""`memtier stats`: the size and state of a workspace at a glance (PROTOCOL §9).

Files, lines (as ``wc -l`` counts them) and bytes per tier, the working
buffer's state (PROTOCOL §2: active tasks, stale, oversized), the most used
tags of HOT and WARM files, and the oldest and newest dated note (COLD and
archive). Read-only; symlinks are treated as `search` treats them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from memtier.results import Record, Result
from memtier.workspace import TIERS, Workspace

TOP_TAGS = 10


@dataclass(frozen=True)
class TierStats(Record):
    files: int = 0
    lines: int = 0
    bytes: int = 0


@dataclass(frozen=True)
class BufferState(Record):
    exists: bool
    valid: bool = False
    lines: int = 0
    active_tasks: int = 0
    last_active: str | None = None
    stale: bool | None = None
    oversized: bool | None = None

    def describe(self) -> str:
        if not self.exists:
            return "not found"
        if not self.valid:
            return f"{self.lines} lines, header invalid"
        states = [s for s, on in (("stale", self.stale), ("oversized", self.oversized)) if on]
        state = ", ".join(states) if states else "fresh"
        return (
            f"{self.lines} lines, {self.active_tasks} active task(s), "
            f"last active {self.last_active} ({state})"
        )


@dataclass(frozen=True)
class StatsReport(Result):
    tiers: dict[str, TierStats]
    buffer: BufferState
    top_tags: tuple[tuple[str, int], ...]
    oldest_note: str | None
    newest_note: str | None
    warnings: tuple[str, ...] = field(default_factory=tuple)

    @property
    def total(self) -> TierStats:
        return TierStats(
            files=sum(t.files for t in self.tiers.values()),
            lines=sum(t.lines for t in self.tiers.values()),
            bytes=sum(t.bytes for t in self.tiers.values()),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "tiers": {name: self.tiers[name].to_json() for name in TIERS},
            "total": self.total.to_json(),
            "buffer": self.buffer.to_json(),
            "top_tags": [{"tag": tag, "count": n} for tag, n in self.top_tags],
            "notes": {"oldest": self.oldest_note, "newest": self.newest_note},
        }

    def text_lines(self) -> Iterable[str]:
        yield f"{'tier':<8} {'files':>7} {'lines':>9} {'bytes':>12}"
        for name in TIERS:
            t = self.tiers[name]
            yield f"{name.upper():<8} {t.files:>7} {t.lines:>9} {t.bytes:>12}"
        total = self.total
        yield f"{'total':<8} {total.files:>7} {total.lines:>9} {total.bytes:>12}"
        yield ""
        yield f"buffer: {self.buffer.describe()}"
        tags = ", ".join(f"{tag} ({n})" for tag, n in self.top_tags) or "none"
        yield f"top tags: {tags}"
        if self.oldest_note is None:
            yield "notes: none"
        else:
            yield f"notes: oldest {self.oldest_note}, newest {self.newest_note}"


def _buffer_state(ws: Workspace) -> BufferState:
    from memtier import store
    from memtier.errors import InputError
    from memtier.formats import buffer as buf

    if not ws.buffer.exists():
        return BufferState(exists=False)
    if not ws.resolves_inside(ws.buffer):
        return BufferState(exists=True)  # a symlink out of the workspace: never read
    try:
        text = store.read_text(ws.buffer, root=ws.root)
    except InputError:
        return BufferState(exists=True)
    lines = buf.count_lines(text)
    try:
        parsed = buf.parse_buffer(text)
    except InputError:
        return BufferState(exists=True, lines=lines)
    return BufferState(
        exists=True,
        valid=True,
        lines=lines,
        active_tasks=len(buf.active_task_lines(text)),
        last_active=parsed.last_active,
        stale=buf.is_stale(parsed, ws.now, ws.config),
        oversized=buf.is_oversized(text, ws.config),
    )


def collect_stats(ws: Workspace) -> StatsReport:
    """Walk every tier once and gather the figures."""
    from memtier.clock import parse_day
    from memtier.commands.tags import collect_tags
    from memtier.tiers import tier_files
    from memtier.workspace import tier_of

    warnings: list[str] = []
    sums: dict[str, list[int]] = {name: [0, 0, 0] for name in TIERS}
    days: list[str] = []
    for rel in tier_files(ws.root, TIERS, warnings):
        tier = tier_of(rel) or "cold"
        try:
            data = (ws.root / rel).read_bytes()
        except OSError as exc:
            warnings.append(f"skipped {rel}: cannot be read ({exc.strerror})")
            continue
        entry = sums[tier]
        entry[0] += 1
        entry[1] += data.count(b"\n")
        entry[2] += len(data)
        if tier in ("cold", "archive"):
            day = parse_day(rel.rsplit("/", 1)[-1][:10])
            if day is not None:
                days.append(day.isoformat())
    tags = collect_tags(ws)
    warnings.extend(tags.warnings)
    return StatsReport(
        tiers={name: TierStats(*values) for name, values in sums.items()},
        buffer=_buffer_state(ws),
        top_tags=tuple(tags.counts[:TOP_TAGS]),
        oldest_note=min(days) if days else None,
        newest_note=max(days) if days else None,
        warnings=tuple(warnings),
    )
