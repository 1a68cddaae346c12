"""Buffer rotation (PROTOCOL §5) and `session-end` (§4), plus the note writes they share.

`rotate_buffer` moves the working buffer's body into today's episodic note in
six steps, each followed by a named fault checkpoint. The ``.lock`` marker and
the ``.pending`` snapshot are the journal that `memtier.commands.session_start` (session-start)
reads after a crash. The block a rotation appends is headed with the time and
the snapshot's id (`memtier.formats.episodic.rotation_id`), and "did the append
finish?" is answered by that id alone, never by matching text (PROTOCOL §4
step 4, §5 step 4, v2): a rerun after a crash appends once, and two buffers
that hold the same lines both land. The whole sequence runs under the
workspace lock, so no other memtier process ever sees the marker of a rotation
that is running.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextlib import suppress
from datetime import date
from typing import Any

from memtier import store
from memtier.errors import InputError, MemtierError, RefusedError, Term, WriteFailed
from memtier.formats.buffer import (
    Buffer,
    add_task,
    body_has_content,
    done_tasks,
    fresh_buffer,
    parse_buffer,
)
from memtier.formats.episodic import (
    BLOCK_LEVEL,
    ROTATED,
    ClosureBlock,
    close_note,
    has_rotation_id,
    line_ids,
    nested_body,
    new_note,
    next_rotation_id,
    rotation_heading,
    snapshot_ids,
)
from memtier.results import Result, fixed
from memtier.store import checkpoint
from memtier.values import Fields
from memtier.workspace import Workspace, exists_or_link

# Each names the command that recovers as a Term: each face words it (§11 v3).
LOCK_PRESENT_MESSAGE = (
    "rotation lock file present: another rotation is running or one crashed; run ",
    Term("session-start"),
)
PENDING_PRESENT_MESSAGE = (
    "pending rotation file present: a rotation was interrupted; run ",
    Term("session-start"),
)


# ---------------------------------------------------------------------------
# shared reads and note writes


def read_buffer(ws: Workspace) -> tuple[store.Document, Buffer]:
    """The buffer as on disk and parsed; a missing file or a bad header is an input error."""
    if not ws.buffer.exists():
        raise InputError(
            (f"{ws.relative(ws.buffer)}: no such file (run ", Term("session-start"), ")"),
            path=ws.buffer,
        )
    doc = store.read_document(ws.buffer, root=ws.root)
    return doc, parse_buffer(doc.text)


def read_note(ws: Workspace, day: date) -> store.Document | None:
    path = ws.episodic_note(day)
    if not exists_or_link(path):
        return None
    return store.read_document(path, root=ws.root)


def write_note(ws: Workspace, day: date, text: str, like: store.Document | None) -> None:
    store.write_text(ws.episodic_note(day), text, root=ws.root, like=like)


def fresh_closure(
    ws: Workspace, open_tasks: Iterable[str], decisions: str = ROTATED
) -> ClosureBlock:
    """PROTOCOL §5 step 4: the block a rotation writes under a note without one."""
    tasks = "; ".join(open_tasks)
    return ClosureBlock(
        updated=ws.today.isoformat(),
        decisions=decisions,
        signal="none",
        open=tasks or "none",
    )


def add_block(
    ws: Workspace,
    rid: str,
    block: str,
    closure: ClosureBlock,
    day: date | None = None,
    done: Iterable[str] = (),
) -> str:
    """*block* (its first line names *rid*) into the note of *day* (default today),
    closure block last.

    PROTOCOL §5 step 4 (v2), shared with session-start's recoveries: a block
    with this id already in the note means a rerun, and nothing is written
    (``"already-present"``). A closed note gets the block before its closure
    block, and that block is merged with *closure* (§2 v2: the open tasks join
    ``Open:``); a block that a person's text follows is repaired the way
    ``episodic close`` repairs it (§4 v3); a note without one gets the block
    and *closure* at the end; a missing note is created with its title line
    (§2 v2). *done*: the tasks the block marks ``[done]``, which leave ``Open:``.
    """
    day = day or ws.today
    note = read_note(ws, day)
    if note is None:
        write_note(ws, day, new_note(day, block, closure), None)
        return "created"
    if has_rotation_id(note.text, rid):
        return "already-present"
    new_text, placement = close_note(note.text, closure, block, done=done)
    write_note(ws, day, new_text, note)
    return placement


# ---------------------------------------------------------------------------
# rotation


class RotateResult(Result, Fields):
    """What a rotation did to today's note and the buffer."""

    note: str
    # "created" | "inserted" | "rebuilt" | "appended" | "already-present" | "empty"
    placement: str
    lines: int
    open_tasks: tuple[str, ...] = ()
    id: str = ""  # the rotation's id (PROTOCOL §5 step 4 v2)

    @property
    def appended(self) -> bool:
        return self.placement in ("created", "inserted", "rebuilt", "appended")

    JSON_CONSTANT = fixed(rotated=True)

    def json_extra(self) -> Mapping[str, Any]:
        return {"appended": self.appended}

    def text_lines(self) -> Iterable[str]:
        if self.placement == "empty":
            yield "working buffer was empty: nothing appended; fresh buffer written"
        elif self.placement == "already-present":
            yield (
                f"rotation {self.id} already in {self.note}: not appended again; "
                "fresh buffer written"
            )
        else:
            how = {
                "created": "a new note with its closure block",
                "inserted": "before its closure block",
                "rebuilt": "rebuilt with its closure block last",
                "appended": "with a new closure block",
            }[self.placement]
            yield f"rotated working buffer: {self.lines} line(s) into {self.note} ({how})"
        if self.open_tasks:
            yield f"open tasks: {'; '.join(self.open_tasks)}"


# The marker's last word when the fresh buffer carries the active tasks (§5 step
# 5 v3), so that a session-start finishing a crashed rotation carries them too.
KEEP_TASKS = "keep-tasks"
ROTATION_LEVEL = BLOCK_LEVEL  # `### 14:05 working buffer (r-…)`, formats.episodic.rotation_heading


def rotate_buffer(ws: Workspace) -> RotateResult:
    """`memtier rotate` (PROTOCOL §5), under the workspace lock: a rotation in the
    middle of a session, so the active tasks stay in the fresh buffer (v3)."""
    with store.workspace_lock(ws.lock_file):
        return rotate_locked(ws, keep_tasks=True)


def carried_buffer(ws: Workspace, task_lines: Iterable[str]) -> str:
    """A fresh buffer that still holds *task_lines* as its active tasks (§5 step 5 v3)."""
    fresh = parse_buffer(fresh_buffer(ws.now, ws.config))
    body = fresh.body
    for line in task_lines:
        body = add_task(body, line)
    return Buffer(fresh.created, fresh.last_active, body).render()


def rotate_locked(ws: Workspace, *, keep_tasks: bool) -> RotateResult:
    """The six steps of PROTOCOL §5; the caller holds the workspace lock.

    *keep_tasks*: a mid-session rotation (``memtier rotate``, the oversized
    rotation of session-start) carries the active task lines into the fresh
    buffer; ``session-end`` does not (§5 step 5 v3).
    """
    # Step 1: a marker means a rotation crashed (a running one would hold our lock).
    if exists_or_link(ws.buffer_lock):
        raise RefusedError(LOCK_PRESENT_MESSAGE, path=ws.buffer_lock)
    # Bad input (a broken buffer header, an unreadable note) refuses before step 2,
    # so it never leaves a marker behind.
    doc, buffer = read_buffer(ws)
    note = read_note(ws, ws.today)
    rid = _rotation_id(ws, doc, line_ids(note.text) if note is not None else set())
    # Step 2. The marker names the snapshot id, which tells session-start that
    # the .pending beside it comes from a version that heads its blocks with ids.
    marker = f"{rid} {ws.now.isoformat()}{' ' + KEEP_TASKS if keep_tasks else ''}\n"
    if not store.create_exclusive(ws.buffer_lock, marker, root=ws.root):
        raise RefusedError(LOCK_PRESENT_MESSAGE, path=ws.buffer_lock)
    checkpoint("rotate.locked")
    # Step 3: the snapshot session-start recovers from if we die after this point.
    # An older .pending (its marker cleared by hand) is overwritten: buffer writes
    # are refused while one exists, so its lines are either still in this buffer
    # or stand in a note under its id.
    try:
        store.write_text(ws.buffer_pending, doc.text, root=ws.root, like=doc)
    except MemtierError:
        _take_back(ws, pending=False)
        raise
    checkpoint("rotate.pending-written")
    # Step 4.
    try:
        placement = append_body(ws, buffer, rid)
    except MemtierError:
        _take_back(ws, pending=True)
        raise
    checkpoint("rotate.note-written")
    # Step 5 (v3: a mid-session rotation keeps the work in hand).
    tasks = buffer.active_task_lines if keep_tasks else []
    store.write_text(ws.buffer, carried_buffer(ws, tasks), root=ws.root, like=doc)
    checkpoint("rotate.buffer-reset")
    # Step 6.
    store.remove_residue(ws.buffer_pending, root=ws.root)
    checkpoint("rotate.pending-removed")
    store.remove_residue(ws.buffer_lock, root=ws.root)
    checkpoint("rotate.unlocked")
    body_lines = buffer.body.count("\n") if buffer.has_content else 0
    return RotateResult(
        note=ws.relative(ws.episodic_note()),
        placement=placement,
        lines=body_lines,
        open_tasks=tuple(buffer.active_tasks),
        id=rid,
    )


def _rotation_id(ws: Workspace, doc: store.Document, known: set[str]) -> str:
    """This rotation's id (PROTOCOL §5 step 4 v2).

    A new rotation takes the first occurrence of its snapshot's id not yet in
    today's note, so a buffer identical to one rotated before (to the second)
    still lands. A rerun of a crashed rotation (its marker cleared by hand; the
    ``.pending`` it left holds this very text) takes that rotation's id again,
    so step 4 finds its block and appends nothing.
    """
    found = snapshot_ids(doc.text, known, ws.host_id)
    if found and ws.buffer_pending.is_file():
        with suppress(MemtierError):
            if store.read_document(ws.buffer_pending, root=ws.root).text == doc.text:
                return found[-1]
    return next_rotation_id(doc.text, known, ws.host_id)


def _take_back(ws: Workspace, *, pending: bool) -> None:
    """A write refused in step 3 or 4 (by the OS or as bad input) changed no memory
    file: drop our journal.

    (A refused write leaves its target untouched, PROTOCOL §3.) From step 5 on the
    note holds the body, so the journal stays for session-start to finish with.
    """
    with suppress(WriteFailed):
        if pending:
            store.remove_residue(ws.buffer_pending, root=ws.root)
        store.remove_residue(ws.buffer_lock, root=ws.root)


def append_body(ws: Workspace, buffer: Buffer, rid: str) -> str:
    """PROTOCOL §5 step 4: the buffer body, headed by time and id, into today's note."""
    if not body_has_content(buffer.body):
        return "empty"
    # The buffer's `## ` sections nest under the block's `### ` heading.
    block = rotation_heading(ws.now, rid) + nested_body(buffer.body, ROTATION_LEVEL)
    closure = fresh_closure(ws, buffer.active_tasks)
    return add_block(ws, rid, block, closure, done=done_tasks(buffer.body))


# ---------------------------------------------------------------------------
# session-end


class SessionEndResult(Result, Fields):
    rotation: RotateResult | None

    def to_json(self) -> dict[str, Any]:
        if self.rotation is None:
            return {"rotated": False, "message": "nothing to rotate"}
        return self.rotation.to_json()

    def text_lines(self) -> Iterable[str]:
        if self.rotation is None:
            yield "nothing to rotate"
        else:
            yield from self.rotation.text_lines()


def session_end(ws: Workspace) -> SessionEndResult:
    """PROTOCOL §4 (v2): rotate a buffer with any content (tasks, notes, done items)."""
    with store.workspace_lock(ws.lock_file):
        _doc, buffer = read_buffer(ws)
        if not buffer.has_content:
            return SessionEndResult(None)
        # Only session-end leaves the fresh buffer without tasks (§5 step 5 v3).
        return SessionEndResult(rotate_locked(ws, keep_tasks=False))
