"""`memtier atomic-write PATH`: standard input to a file, atomically (PROTOCOL §3).

The text passes through secret redaction first: memtier never puts a credential
on disk on anyone's behalf. The path must resolve inside the workspace.

A file memtier checks is refused (exit 1) when memtier would reject what it is
given (PROTOCOL §10): MEMORY.md with an invalid header or more than
``hot_max_lines`` lines, a working buffer without its 4-line header, a WARM
file without a valid ``#tags:`` line or ``last_verified`` date. Everything
else is written as given.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from memtier import store
from memtier.errors import Message, RefusedError
from memtier.results import Result, fixed
from memtier.workspace import Workspace, tier_of


@dataclass(frozen=True)
class WriteResult(Result):
    path: str
    bytes_written: int
    redacted: dict[str, int] = field(default_factory=dict)

    JSON_NAMES = fixed(bytes_written="bytes")

    def text_lines(self) -> Iterable[str]:
        yield f"wrote {self.path} ({self.bytes_written} bytes)"


def atomic_write(ws: Workspace, path: Path, data: bytes) -> WriteResult:
    """Replace *path* with *data* (UTF-8 text) under the workspace lock."""
    from memtier.secrets import redact

    target = store.confine(ws.root, path)
    shown = ws.relative(target)
    # The input's own conventions (CRLF, BOM) are kept: this writes what it is given.
    given = store.decode_document(data, "standard input")
    redaction = redact(given.text)
    problem = content_problem(ws, _relative(ws, target), redaction.text)
    if problem is not None:
        parts = (problem,) if isinstance(problem, str) else problem
        raise RefusedError((f"atomic-write {shown}: ", *parts, "; nothing was written"))
    with store.workspace_lock(ws.lock_file):
        written = store.write_text(target, redaction.text, root=ws.root, like=given)
    return WriteResult(
        path=ws.relative(written) if shown else str(written),
        bytes_written=written.stat().st_size,
        redacted=dict(redaction.counts),
    )


def _relative(ws: Workspace, real: Path) -> str:
    from memtier.commands.facts.files import relative_to_root

    return relative_to_root(ws, real)


def content_problem(ws: Workspace, rel: str, text: str) -> Message | None:
    """Why memtier would reject *text* as the file *rel*, or None (PROTOCOL §2, §6, §10)."""
    from memtier.formats.buffer import count_lines

    tier = tier_of(rel)
    if tier == "hot":
        from memtier.commands.facts.files import hot_cap_message
        from memtier.health.checks import hot_header_ok

        head = (text.split("\n", 4)[:4] + [""] * 4)[:4]
        if not hot_header_ok(head):
            return (
                "MEMORY.md header invalid (PROTOCOL §2: title, #tags:, last_verified, last_updated)"
            )
        count, limit = count_lines(text), ws.config.hot_max_lines
        if count > limit:
            return hot_cap_message(rel, count, limit)
        return _tags_problem(ws, rel, text)
    if tier == "buffer":
        from memtier.formats.buffer import header_problem

        trouble = header_problem(text)
        return None if trouble is None else f"not a working buffer: {trouble}"
    if tier == "warm":
        return _tags_problem(ws, rel, text) or _verified_problem(ws, rel, text)
    return None


def _tags_problem(ws: Workspace, rel: str, text: str) -> str | None:
    from memtier.health.checks import tags_check
    from memtier.health.verdict import FAIL

    check = tags_check(ws, rel, text)
    return check.message if check.status == FAIL else None


def _verified_problem(ws: Workspace, rel: str, text: str) -> str | None:
    from memtier.health.checks import fresh_check

    check = fresh_check(ws, rel, text)
    # A stale date is the file's age, not a broken header: only a missing or bad one is refused.
    if check.message.endswith("missing last_verified") or "not a YYYY-MM-DD date" in check.detail:
        return check.message
    return None
