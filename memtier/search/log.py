"""The search log ``memory/.searches.jsonl`` and `memtier recent-searches`.

Every search appends one JSON line ``{"query", "tiers", "result_count",
"timestamp"}``; the log keeps at least the newest `MAX_ENTRIES`. Queries that found
nothing (``recent-searches --zero``, each query once with how often it found
nothing) show a person what memory is missing.
``search_log = false`` in ``memory/memtier.toml`` turns the log off.

A search writes little: its line is appended (``O_APPEND``, one write, no
fsync: a log line lost to a power cut is no memory lost) under the workspace
lock (PROTOCOL §3), so two searches at once never lose an entry. Only when the
log has grown past twice `MAX_ENTRIES` is it rewritten, whole and atomically,
with the newest `MAX_ENTRIES`: a crash then leaves the old log or the new one.
The query passes through secret redaction first. Writing the log is never
allowed to fail a search: a failure becomes a warning.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from memtier.clock import format_timestamp
from memtier.errors import MemtierError
from memtier.results import Record, Result
from memtier.store import checkpoint
from memtier.values import Fields, NamedTuple
from memtier.workspace import Workspace

LOG_NAME = ".searches.jsonl"
MAX_ENTRIES = 500
# A search waits this long at most for a writer to finish before giving up on logging.
LOCK_TIMEOUT_SECONDS = 5.0


def log_path(ws: Workspace) -> Path:
    return ws.memory_dir / LOG_NAME


class Logged(NamedTuple):
    """What logging a search gave: warnings, and the secrets redacted from the query."""

    warnings: tuple[str, ...] = ()
    redacted: dict[str, int] = {}  # noqa: RUF012 (a NamedTuple default, never mutated)


class LoggedSearch(Record, Fields):
    query: str
    tiers: tuple[str, ...]
    result_count: int
    timestamp: str


def _parse_line(line: str) -> LoggedSearch | None:
    try:
        raw = json.loads(line)
    except ValueError:
        return None
    if not isinstance(raw, dict):
        return None
    query, tiers = raw.get("query"), raw.get("tiers")
    count, stamp = raw.get("result_count"), raw.get("timestamp")
    if not (isinstance(query, str) and isinstance(stamp, str) and isinstance(count, int)):
        return None
    if isinstance(count, bool) or not isinstance(tiers, list):
        return None
    return LoggedSearch(query, tuple(str(t) for t in tiers), count, stamp)


def read_log(ws: Workspace) -> tuple[list[LoggedSearch], list[str]]:
    """Entries oldest first, and a warning per unreadable line or file."""
    from memtier import store

    path = log_path(ws)
    try:
        text = store.read_text_or_none(path, root=ws.root)
    except MemtierError as exc:
        return [], [f"search log unreadable: {exc.message}"]
    entries: list[LoggedSearch] = []
    bad = 0
    for line in (text or "").splitlines():
        if not line.strip():
            continue
        entry = _parse_line(line)
        if entry is None:
            bad += 1
        else:
            entries.append(entry)
    warnings = [f"{ws.relative(path)}: {bad} malformed line(s) ignored"] if bad else []
    return entries, warnings


# No entry is shorter than this (its keys alone take 60 bytes): a log smaller than
# twice the cap times this is never counted.
_MIN_ENTRY_BYTES = 64


def record_search(ws: Workspace, query: str, tiers: tuple[str, ...], result_count: int) -> Logged:
    """Append one search to the log; never raises for a failed write (it warns)."""
    from memtier import store
    from memtier.secrets import redact_folded

    # The log is printed back by recent-searches: a credential split across the
    # query's lines is caught once folded (PROTOCOL §3 v2).
    cleaned = redact_folded(query)
    entry = LoggedSearch(cleaned.text, tiers, result_count, format_timestamp(ws.now))
    line = json.dumps(entry.to_json(), ensure_ascii=False) + "\n"
    path = log_path(ws)
    try:
        # The lock also confines memory/ to the root; the log itself is never a link.
        with store.workspace_lock(ws.lock_file, timeout=LOCK_TIMEOUT_SECONDS):
            checkpoint("searchlog.before-write")
            size = _append(path, line.encode("utf-8"))
            checkpoint("searchlog.written")
            if size > 2 * MAX_ENTRIES * _MIN_ENTRY_BYTES:
                _compact(ws, path)
    except (MemtierError, OSError) as exc:
        reason = exc.message if isinstance(exc, MemtierError) else str(exc)
        return Logged(warnings=(f"search not logged: {reason}",), redacted=dict(cleaned.counts))
    return Logged(redacted=dict(cleaned.counts))


def _append(path: Path, data: bytes) -> int:
    """Append *data* as one line to the log at *path* (created when missing); the
    log's size after it. A last line left without its line break is ended first."""
    import os
    import stat

    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
    fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{path.name} is not a regular file")
        if info.st_size and os.pread(fd, 1, info.st_size - 1) != b"\n":
            data = b"\n" + data
        os.write(fd, data)
        return os.fstat(fd).st_size
    finally:
        os.close(fd)


def _compact(ws: Workspace, path: Path) -> None:
    """Past twice the cap: the newest `MAX_ENTRIES` lines, written whole (§3)."""
    from memtier import store

    text = store.read_text_or_none(path, root=ws.root) or ""
    lines = [line for line in text.split("\n") if line.strip()]
    if len(lines) > 2 * MAX_ENTRIES:
        store.write_text(path, "\n".join(lines[-MAX_ENTRIES:]) + "\n", root=ws.root)


class RecentSearches(Result, Fields):
    searches: tuple[LoggedSearch, ...]
    zero_only: bool = False
    warnings: tuple[str, ...] = ()
    # With --zero: how often each listed query found nothing (same order as *searches*).
    counts: tuple[int, ...] = ()

    def to_json(self) -> dict[str, object]:
        if not self.zero_only:
            return {"searches": [s.to_json() for s in self.searches]}
        return {
            "searches": [
                {**s.to_json(), "count": n} for s, n in zip(self.searches, self.counts, strict=True)
            ]
        }

    def text_lines(self) -> Iterable[str]:
        if not self.searches:
            yield "no searches without results" if self.zero_only else "no searches logged"
            return
        counts = self.counts or (1,) * len(self.searches)
        for s, n in zip(self.searches, counts, strict=True):
            results = "1 result" if s.result_count == 1 else f"{s.result_count} results"
            tiers = ",".join(s.tiers)
            times = f"  ({n} times)" if n > 1 else ""
            yield f"{s.timestamp}  {results:>11}  {s.query}  [{tiers}]{times}"


def recent_searches(ws: Workspace, *, limit: int = 20, zero: bool = False) -> RecentSearches:
    """The newest *limit* logged searches, newest first; only zero-result ones if *zero*."""
    from memtier.errors import InputError, Term

    if limit < 1:
        raise InputError((Term("limit"), " must be at least 1"))
    entries, warnings = read_log(ws)
    if not zero:
        return RecentSearches(tuple(reversed(entries[-limit:])), zero, tuple(warnings))
    # Each zero-hit query once, at its newest search, with how often it found nothing:
    # a query repeated twenty times is one gap in memory, not twenty.
    latest: dict[str, LoggedSearch] = {}
    counted: dict[str, int] = {}
    for entry in entries:
        if entry.result_count == 0:
            latest.pop(entry.query, None)  # re-inserted: dict order is then newest last
            latest[entry.query] = entry
            counted[entry.query] = counted.get(entry.query, 0) + 1
    newest = tuple(reversed(list(latest.values())[-limit:]))
    counts = tuple(counted[e.query] for e in newest)
    return RecentSearches(newest, zero, tuple(warnings), counts)
