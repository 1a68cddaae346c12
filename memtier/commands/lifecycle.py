"""Buffer writes of the session lifecycle (PROTOCOL §4), and the text arguments
every lifecycle write shares.

`buffer task|note|done|heartbeat` each take the workspace lock, re-read the
buffer under it, change it and write it back atomically, setting
``last_active`` to now. `episodic append|close|show` live in
`memtier.commands.episodic_writes` and take their text the same way.

Text arguments are *folded to one line*: line breaks (and the spaces around
them) become a single space. A buffer line or a note line is one fact, and a
folded argument can never add a heading, a header line or a closure block of
its own, whatever it contains. Secrets are redacted before and after folding
(`memtier.secrets.fold_line`, PROTOCOL §3 v2).

Session-start and rotation live in `memtier.commands.session_start` and
`memtier.commands.rotation`; `memtier.store.write.LIFECYCLE_CHECKPOINTS` lists every
fault point of the lifecycle for crash tests.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from memtier import store
from memtier.clock import format_timestamp
from memtier.errors import InputError, RefusedError, Term
from memtier.formats.buffer import (
    DONE_PREFIX,
    Buffer,
    active_indexes,
    active_section,
    add_note,
    add_task,
    body_lines,
    count_lines,
    fresh_buffer,
    is_oversized,
    is_stale,
    join_lines,
    parse_buffer,
    task_text,
)
from memtier.results import NO_REDACTIONS, Result
from memtier.store import checkpoint
from memtier.values import Fields
from memtier.workspace import Workspace, exists_or_link

_OPEN_BOX = re.compile(r"\[ \]\s+")


# ---------------------------------------------------------------------------
# text arguments


class CleanText(Fields):
    """A text argument folded to one line, and what redaction replaced in it."""

    text: str
    redacted: Mapping[str, int] = NO_REDACTIONS


def clean_text(raw: str, what: str | Term, *, bullet: bool = False) -> CleanText:
    """The one folding function (PROTOCOL §3 v2), then: empty text is an input error.

    With *bullet* the caller writes its own ``- `` bullet, so one given by the
    text is dropped rather than doubled."""
    from memtier.secrets import fold_line, without_bullet

    folded = fold_line(raw)
    text = without_bullet(folded.text) if bullet else folded.text
    if not text:
        raise InputError((what, ": the text is empty"))
    return CleanText(text, dict(folded.redacted))


# ---------------------------------------------------------------------------
# buffer body edits (pure; add_task and add_note live in formats.buffer)


def remove_task(body: str, ref: str) -> tuple[str, str]:
    """(body without the task *ref* names — its 1-based number or its text — the task text)."""
    lines = body_lines(body)
    start, end = active_section(lines)
    indexes = active_indexes(lines, start, end)
    if not indexes:
        raise InputError("buffer done: the buffer has no active task")
    from memtier.formats.numbers import is_number, parse_int

    if is_number(ref):
        number = parse_int(ref, "buffer done: task number")
        if not 1 <= number <= len(indexes):
            raise InputError(f"buffer done: no active task number {number} (1–{len(indexes)})")
        chosen = indexes[number - 1]
    else:
        chosen = _match_task(lines, indexes, ref)
    text = task_text(lines[chosen])
    del lines[chosen]
    return join_lines(lines), text


def _match_task(lines: list[str], indexes: list[int], ref: str) -> int:
    for index in indexes:
        if task_text(lines[index]).strip() == ref:
            return index
    needle = ref.casefold()
    found = [i for i in indexes if needle in task_text(lines[i]).casefold()]
    if len(found) == 1:
        return found[0]
    if not found:
        raise InputError(f"buffer done: no active task matches {ref!r}")
    raise InputError(f"buffer done: {ref!r} matches {len(found)} active tasks; give its number")


# ---------------------------------------------------------------------------
# buffer commands


class BufferResult(Result, Fields):
    """The buffer after a command: what was done and its state."""

    action: str
    path: str
    text: str
    line: str | None
    active_tasks: tuple[str, ...]
    lines: int
    oversized: bool
    stale: bool
    last_active: str
    redacted: Mapping[str, int] = NO_REDACTIONS

    @property
    def line_number(self) -> int | None:
        """Where the written line stands in the buffer (1-based): a task is the first
        line with its text, a note or a done item the last."""
        if self.line is None:
            return None
        lines = self.text.split("\n")
        if self.line not in lines:
            return None
        if self.action == "task":
            return lines.index(self.line) + 1
        return len(lines) - lines[::-1].index(self.line)

    @property
    def warnings(self) -> tuple[str, ...]:
        if self.action == "show" or not self.oversized:
            return ()
        return (self.oversize_warning("memtier rotate", "memtier session-end"),)

    def oversize_warning(self, rotate: str, end: str) -> str:
        """One wording for both faces, each naming its own way to rotate."""
        from memtier.formats.buffer import oversize_warning

        return oversize_warning(len(self.active_tasks), self.lines, rotate, end)

    JSON_OMIT = frozenset({"text", "line"})

    def json_extra(self) -> Mapping[str, Any]:
        # "line" is a line number and "text" the text, as in every command's JSON.
        return {"line": self.line_number, "text": self.text if self.action == "show" else self.line}

    def text_lines(self) -> Iterable[str]:
        if self.action == "show":
            yield from self.text.rstrip("\n").split("\n")
            return
        done = {
            "task": "added active task",
            "note": "added note",
            "done": "marked done",
            "heartbeat": "heartbeat",
        }[self.action]
        detail = f": {self.line}" if self.line else ""
        yield f"{done}{detail} ({self.path}: {len(self.active_tasks)} active, {self.lines} lines)"


def _result(
    ws: Workspace,
    action: str,
    text: str,
    line: str | None,
    buffer: Buffer | None = None,
    **extra: Any,
) -> BufferResult:
    """The result of a buffer command; *buffer* is *text* parsed, when the caller has it."""
    if buffer is None:
        buffer = parse_buffer(text)
    return BufferResult(
        action=action,
        path=ws.relative(ws.buffer),
        text=text,
        line=line,
        active_tasks=tuple(buffer.active_tasks),
        lines=count_lines(text),
        oversized=is_oversized(text, ws.config),
        stale=is_stale(buffer, ws.now, ws.config),
        last_active=buffer.last_active,
        **extra,
    )


def _edit_buffer(
    ws: Workspace, action: str, edit: Callable[[str], tuple[str, str | None]], **extra: Any
) -> BufferResult:
    """Read-modify-write of the buffer under the workspace lock; last_active = now."""
    with store.workspace_lock(ws.lock_file):
        if ws.buffer_pending.exists():
            # Restoring .pending later would drop this write: recovery comes first.
            from memtier.commands.rotation import PENDING_PRESENT_MESSAGE

            raise RefusedError(PENDING_PRESENT_MESSAGE, path=ws.buffer_pending)
        doc = None
        if exists_or_link(ws.buffer):
            doc = store.read_document(ws.buffer, root=ws.root)
            text = doc.text
        else:
            text = fresh_buffer(ws.now, ws.config)  # rendered only when there is none
        buffer = parse_buffer(text)
        checkpoint("buffer.read")
        body, line = edit(buffer.body)
        written = Buffer(buffer.created, format_timestamp(ws.now), body)
        new = written.render()
        store.write_text(ws.buffer, new, root=ws.root, like=doc)
        checkpoint("buffer.written")
    return _result(ws, action, new, line, written, **extra)


def buffer_task(ws: Workspace, raw: str) -> BufferResult:
    clean = clean_text(raw, "buffer task", bullet=True)
    line = f"- {clean.text}"
    return _edit_buffer(
        ws, "task", lambda body: (add_task(body, line), line), redacted=clean.redacted
    )


def buffer_note(ws: Workspace, raw: str) -> BufferResult:
    clean = clean_text(raw, "buffer note", bullet=True)
    line = f"- {clean.text}"
    return _edit_buffer(
        ws, "note", lambda body: (add_note(body, line), line), redacted=clean.redacted
    )


def buffer_done(ws: Workspace, ref: str) -> BufferResult:
    clean = clean_text(ref, "buffer done", bullet=True)

    def edit(body: str) -> tuple[str, str]:
        without, text = remove_task(body, clean.text)
        # A checkbox task is done now: its empty box would contradict the mark.
        line = DONE_PREFIX + _OPEN_BOX.sub("", text, count=1)
        return add_note(without, line), line

    return _edit_buffer(ws, "done", edit, redacted=clean.redacted)


def buffer_heartbeat(ws: Workspace) -> BufferResult:
    return _edit_buffer(ws, "heartbeat", lambda body: (body, None))


def buffer_show(ws: Workspace) -> BufferResult:
    from memtier.commands.rotation import read_buffer

    doc, _buffer = read_buffer(ws)
    return _result(ws, "show", doc.text, None)
