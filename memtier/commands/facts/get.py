"""`memtier get PATH[:FROM[-TO]] [--date D]`: numbered lines, bounded (PROTOCOL §10).

Read-only and confined like every read (PROTOCOL §3): the path must resolve
inside the workspace and be a regular file, so a FIFO never blocks the reader.
Shown lines pass through redaction: a credential that slipped into a file is
not printed back. `--date` finds a day's note where it lives now, in
``memory/episodic/`` or moved by TTL archival into ``memory/archive/YYYY/MM/``.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from memtier import store
from memtier.errors import InputError, Term
from memtier.results import Result, fixed
from memtier.workspace import Workspace, find_day_note

DEFAULT_MAX_LINES = 200
_RANGE = re.compile(r"^(?P<path>.*?):(?P<start>[0-9]+)(?:-(?P<end>[0-9]+))?$")
# PROTOCOL §10 v3: what `get` reads, named in its refusal.
MEMORY_FILES_RULE = (
    "get reads memory files only: MEMORY.md, memory/semantic|procedural/*.md, "
    "memory/episodic/*.md, memory/working-buffer.md, .learnings/*.md, memory/archive/, "
    "memory/memtier.toml, memory/INDEX.md, memory/consolidated/*.md"
)


@dataclass(frozen=True)
class GetResult(Result):
    path: str
    start: int
    end: int
    total: int
    lines: tuple[str, ...]
    truncated: bool
    next: str | None
    archived: bool = False

    JSON_NAMES = fixed(start="from", end="to", total="total_lines")
    JSON_OMIT = frozenset({"lines"})

    def json_extra(self) -> Mapping[str, Any]:
        return {"lines": [{"line": n, "text": t} for n, t in self.numbered()]}

    def numbered(self) -> Iterable[tuple[int, str]]:
        return enumerate(self.lines, start=self.start)

    def text_lines(self) -> Iterable[str]:
        width = len(str(max(self.end, 1)))
        for number, text in self.numbered():
            yield f"{number:>{width}}  {text}"
        if self.truncated and self.next:
            yield f"truncated; next: {self.next}"


def split_range(spec: str) -> tuple[str, int | None, int | None]:
    """``PATH[:FROM[-TO]]`` → (path, from, to)."""
    match = _RANGE.match(spec)
    if not match:
        return spec, None, None
    from memtier.formats.numbers import parse_int

    end = match.group("end")
    start = parse_int(match.group("start"), "FROM")
    return match.group("path"), start, parse_int(end, "TO") if end else None


def _read_regular(ws: Workspace, path: Path, shown: str) -> str:
    real = store.confine(ws.root, path)
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        raise InputError(f"{shown}: no such file") from None
    except OSError as exc:
        raise InputError(f"{shown}: cannot be read ({exc.strerror})") from None
    if stat.S_ISDIR(mode):
        raise InputError(f"{shown}: is a directory, expected a file")
    if not stat.S_ISREG(mode):
        raise InputError(f"{shown}: not a regular file")
    return store.read_text(real, root=ws.root)


def _require_memory_file(ws: Workspace, real: Path, shown: str) -> None:
    """Only the memory files of PROTOCOL §1 are read, as by every other read (§3):
    not ``.netrc``, not ``.docker/config.json``, not a script beside the memory."""
    from memtier.workspace import memory_kind

    rel = real.relative_to(os.path.realpath(ws.root)).as_posix()
    if memory_kind(rel) is None:
        raise InputError(f"{shown}: not a memory file ({MEMORY_FILES_RULE})")


def get_lines(
    ws: Workspace,
    path: str,
    *,
    from_line: int | None = None,
    to_line: int | None = None,
    date: date | None = None,
    max_lines: int = DEFAULT_MAX_LINES,
) -> GetResult:
    """Lines *from_line*..*to_line* of *path* (1-based, inclusive), at most *max_lines*."""
    from memtier.commands.facts.files import relative_to_root
    from memtier.secrets_lines import redact_lines_of

    if max_lines < 1:
        raise InputError((Term("max_lines"), ": must be at least 1"))
    if from_line is not None and from_line < 1:
        raise InputError("FROM: line numbers start at 1")
    if to_line is not None and to_line < (from_line or 1):
        raise InputError("TO: must not be before FROM")
    archived = False
    if date is not None:
        if path.strip():
            raise InputError(("give ", Term("path"), " or ", Term("date"), ", not both"))
        found = find_day_note(ws, date)
        if found is None:
            raise InputError(f"no episodic note for {date.isoformat()}, live or archived")
        archived = found != ws.episodic_note(date)
        target = found
    else:
        if not path.strip():
            raise InputError(("get: ", Term("path"), " is empty"))
        target = Path(path).expanduser()
        if not target.is_absolute():
            target = ws.root / target
    real = store.confine(ws.root, target)
    shown = relative_to_root(ws, real)
    _require_memory_file(ws, real, shown)
    text = _read_regular(ws, target, shown)
    all_lines = text.split("\n")
    if all_lines and all_lines[-1] == "":
        all_lines.pop()
    total = len(all_lines)
    start = from_line or 1
    if start > max(total, 1):
        raise InputError(f"{shown}: has {total} lines; FROM {start} is past the end")
    last = min(to_line or total, total)
    end = min(last, start + max_lines - 1)
    shown_lines = redact_lines_of(all_lines, start - 1, end - 1)[0] if end >= start else ()
    truncated = end < last
    following = None
    if truncated:
        following = f"{shown}:{end + 1}-{min(last, end + max_lines)}"
    return GetResult(shown, start, end, total, shown_lines, truncated, following, archived)
