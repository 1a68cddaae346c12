"""`memtier session-start` (PROTOCOL §4): the runtime decision tree, then the base context.

Steps 1–7 run in the protocol's order under the workspace lock. Step 4 is the
recovery of an interrupted rotation (`memtier.commands.rotation`); together with the
rotation's own journal it guarantees that, whatever moment a process died at,
every line of the buffer ends up exactly once in the buffer or in a note:

- the ``.pending`` snapshot is removed only after everything it implies is on
  disk, so a crash during recovery leaves it for the next session-start;
- "did the rotation finish its append?" is answered by the snapshot's id alone
  (v2): a block headed with that id stands in a note. Text is never matched,
  so a day that repeats yesterday's routine lines is not mistaken for it;
- lines the live buffer holds and the snapshot does not (a person's edit after
  the crash) are first written into ``.pending`` itself, so that from then on
  the snapshot is the one source and every later step is safe to repeat (v2);
- a ``[RECOVERED: STALE]`` marker carries the id of what it appends, so a crash
  between the append and the fresh buffer does not append the body twice; step
  5 journals its snapshot in ``.pending`` too, so such a crash is recovered by
  step 4 like a rotation's;
- when ``.pending`` cannot be recovered, the fresh buffer the protocol writes
  replaces the current one only after the lines that one still holds were
  appended to today's note (an interpretation: "never lose a line" wins).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta
from typing import Any

from memtier import store
from memtier.clock import format_timestamp
from memtier.commands.base_context import ContextPart, LastOpen, fit_context, last_open
from memtier.commands.rotation import (
    KEEP_TASKS,
    add_block,
    carried_buffer,
    fresh_closure,
    read_note,
    rotate_locked,
)
from memtier.errors import InputError, RefusedError, Term
from memtier.formats.buffer import (
    Buffer,
    KeptLine,
    body_has_content,
    done_tasks,
    fresh_buffer,
    header_problem,
    is_oversized,
    is_stale,
    parse_buffer,
    unsnapshotted_lines,
    with_lines,
)
from memtier.formats.episodic import (
    BLOCK_LEVEL,
    RECOVERED,
    block_heading,
    legacy_body_found,
    line_ids,
    nested_body,
    next_rotation_id,
    snapshot_ids,
)
from memtier.results import Result
from memtier.store import checkpoint
from memtier.values import Fields
from memtier.workspace import Workspace, archived_day, exists_or_link

RECOVERED_MARKER = "[RECOVERED: STALE]"
CONTEXT_SCRATCH_LINES = 20


class SessionStartResult(Result, Fields):
    """What session-start did, and the base context it prints (PROTOCOL §4 step 7)."""

    actions: tuple[str, ...]
    hot: str
    buffer: str
    episodic: dict[str, str]
    learnings: dict[str, str]
    health_ok: bool
    health_failed: tuple[str, ...]
    health_stale: int = 0  # WARM files not verified for too long (§6 v4), text only
    warnings: tuple[str, ...] = ()
    last_open: LastOpen | None = None
    # The base context's budget in characters (`--max-chars`); None: no limit.
    max_chars: int | None = None
    today: date | None = None  # the day the context was made for

    def to_json(self) -> dict[str, Any]:
        return {
            "actions": list(self.actions),
            "hot": self.hot,
            "buffer": self.buffer,
            "episodic": dict(self.episodic),
            "learnings": dict(self.learnings),
            "health": {"ok": self.health_ok, "failed": list(self.health_failed)},
        }  # the keys of PROTOCOL §4 step 7, exactly; the Open: line is in the text view

    def context_parts(self) -> list[ContextPart]:
        """The base context, most useful first: MEMORY.md, the buffer, the last
        session's Open: items, today's note, then the rest (PROTOCOL §11).

        A tight budget gives up the notes and the learnings first, then the buffer,
        then the Open: items (a line, or one closure block), MEMORY.md last.
        """
        buffer = "memory/working-buffer.md"
        parts = [
            ContextPart("MEMORY.md", "MEMORY.md", self.hot, rank=0),
            ContextPart(buffer, buffer, self.buffer, rank=2),
        ]
        last = self.last_open
        if last is not None and not self.episodic:
            # §4 step 7 (v3): after an absence, what was decided and left open, whole.
            today = self.today or date.fromisoformat(last.day)
            title = last.title(today)
            parts.append(ContextPart(title, last.path, last.block(), last.line_number, rank=1))
        elif last is not None:
            line = last.line()
            parts.append(ContextPart(line, last.path, line, None, heading=False, rank=1))
        for day, text in self.episodic.items():
            path = f"memory/episodic/{day}.md"
            parts.append(ContextPart(path, path, text, rank=3))
        for name, text in self.learnings.items():
            title = f".learnings/{name} (last {CONTEXT_SCRATCH_LINES} lines)"
            parts.append(ContextPart(title, f".learnings/{name}", text, None, rank=3))
        return parts

    def health_line(self, report: str = "memtier health-check") -> str:
        """The verdict, integrity apart from staleness (PROTOCOL §6 v4); *report* names
        the full report in the words of the face."""
        if self.health_ok:
            return "health-check: ✅ All required checks passed"
        from memtier.health.verdict import STALENESS

        integrity = [i for i in self.health_failed if i not in STALENESS]
        stale = ""
        if self.health_stale:
            files = f"{self.health_stale} WARM file{'' if self.health_stale == 1 else 's'}"
            stale = f"{files} not verified lately: verify each when you use its facts"
        if not integrity:
            return f"health-check: ✅ integrity checks passed; {stale} (see {report})"
        line = f"health-check: ❌ integrity check(s) failed ({', '.join(integrity)}): "
        line += f"fix them before relying on memory (see {report})"
        return f"{line}; {stale}" if stale else line

    def text_lines(self) -> Iterable[str]:
        head = [f"session-start: {action}" for action in self.actions]
        tail = ["", self.health_line()]
        return fit_context(head, self.context_parts(), tail, self.max_chars).lines


class _Run:
    """The mutable record of one session-start: actions done, warnings for the person."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.actions: list[str] = []
        self.warnings: list[str] = []
        # The rotation marker as step 3 found it: the id of the rotation that left
        # .pending, or None; legacy when an older memtier wrote it without an id
        # (docs/DECISIONS.md, "A .pending from an older version").
        self.marker_id: str | None = None
        self.legacy_marker = False
        # The marker says the rotation was a mid-session one: its fresh buffer
        # carries the active tasks (PROTOCOL §5 step 5 v3).
        self.keep_tasks = False

    def did(self, action: str) -> None:
        self.actions.append(action)

    def fresh_buffer(
        self,
        like: store.Document | None,
        keep: tuple[KeptLine, ...] = (),
        tasks: Iterable[str] = (),
    ) -> None:
        text = carried_buffer(self.ws, tasks)
        if keep:
            fresh = parse_buffer(text)
            text = Buffer(fresh.created, fresh.last_active, with_lines(fresh.body, keep)).render()
        store.write_text(self.ws.buffer, text, root=self.ws.root, like=like)
        checkpoint("session_start.buffer-reset")
        self.did(f"wrote a fresh {self.ws.relative(self.ws.buffer)}")


def session_start(ws: Workspace) -> SessionStartResult:
    """PROTOCOL §4 steps 1–7."""
    run = _Run(ws)
    with store.workspace_lock(ws.lock_file):
        _refuse_folders(ws)
        _ensure_hot(run)  # step 1
        _ensure_buffer(run)  # step 2
        if exists_or_link(ws.buffer_lock):  # step 3
            _read_marker(run)
            store.remove_residue(ws.buffer_lock, root=ws.root)
            checkpoint("session_start.lock-removed")
            run.did("removed a stale rotation lock (memory/working-buffer.md.lock)")
        _remove_temp_files(run)
        if ws.buffer_pending.exists():  # step 4
            _recover_pending(run)
        else:  # step 5
            _recover_stale(run)
        _heartbeat(run)  # step 6
        context = _context(run)
    ok, failed, stale = _health_verdict(ws)
    return SessionStartResult(
        actions=tuple(run.actions),
        health_ok=ok,
        health_failed=failed,
        health_stale=stale,
        warnings=tuple(dict.fromkeys(run.warnings)),
        today=ws.today,
        **context,
    )


# ---------------------------------------------------------------------------
# steps 1–3


def _refuse_folders(ws: Workspace) -> None:
    """A folder where the buffer or its snapshot belongs: the agent would carry on with
    no buffer, so session-start refuses (exit 1) and names it; nothing is changed."""
    for path in (ws.buffer, ws.buffer_pending):
        if path.is_dir():
            raise RefusedError(
                (
                    f"{ws.relative(path)} is a folder, not a file: move it aside, then run ",
                    Term("session-start"),
                    " again",
                ),
                path=path,
            )


def _read_marker(run: _Run) -> None:
    """What the rotation marker says before step 3 removes it: its id, or that an
    older memtier (no ids) wrote it. An empty or unreadable marker says neither."""
    try:
        text = store.read_text(run.ws.buffer_lock, root=run.ws.root)
    except InputError:
        return
    words = text.split()
    first = words[0] if words else ""
    if first.startswith("r-"):
        run.marker_id = first
        run.keep_tasks = words[-1] == KEEP_TASKS
    elif text.strip():
        run.legacy_marker = True


def _ensure_hot(run: _Run) -> None:
    ws = run.ws
    if exists_or_link(ws.hot):
        return
    day = ws.today.isoformat()
    header = f"# Agent Memory\n#tags: memory\nlast_verified: {day}\nlast_updated: {day}\n"
    store.write_text(ws.hot, header, root=ws.root)
    checkpoint("session_start.hot-created")
    run.did("created MEMORY.md")


def _ensure_buffer(run: _Run) -> None:
    ws = run.ws
    if exists_or_link(ws.buffer):
        return
    store.write_text(ws.buffer, fresh_buffer(ws.now, ws.config), root=ws.root)
    checkpoint("session_start.buffer-created")
    run.did(f"created {ws.relative(ws.buffer)}")


def _remove_temp_files(run: _Run) -> None:
    """Temporary files of dead writes (PROTOCOL §3): every write holds the lock we hold."""
    from memtier.errors import MemtierError
    from memtier.health.checks import temp_files

    for path in temp_files(run.ws.root):
        try:
            if store.remove_residue(path, root=run.ws.root):
                run.did(f"removed a leftover temporary file {run.ws.relative(path)}")
        except MemtierError as exc:
            run.warnings.append(f"temporary file left in place: {exc.message}")


# ---------------------------------------------------------------------------
# step 4: .pending recovery


def _failure_reason(text: str) -> str | None:
    if text == "":
        return "empty file"
    if not text.strip():
        return "whitespace only"
    return header_problem(text)


def _recover_pending(run: _Run) -> None:
    ws = run.ws
    pending_doc: store.Document | None = None
    try:
        pending_doc = store.read_document(ws.buffer_pending, root=ws.root)
        reason = _failure_reason(pending_doc.text)
    except InputError as exc:
        reason = exc.message.split(": ", 1)[-1]
    if pending_doc is None or reason is not None:
        _recovery_failed(run, reason or "unreadable")
        return
    pending = parse_buffer(pending_doc.text)
    known = _known_ids(run)
    buffer_doc, current = _read_current(run)
    extra = unsnapshotted_lines(pending.body, current.body if current is not None else "")
    if _rotation_found(run, known, pending_doc.text, pending):
        # The rotation that left .pending had finished its append (§4 step 4).
        if current is not None and _still_the_snapshot(pending, current):
            # ...but died before its fresh buffer: keeping this one would keep the
            # body twice. Lines added to it since the snapshot stay (v2), and a
            # mid-session rotation's tasks stay in hand (§5 step 5 v3).
            tasks = pending.active_task_lines if run.keep_tasks else ()
            run.fresh_buffer(buffer_doc, extra, tasks)
        _discard_pending(run, "its rotation block already stands in an episodic note")
        return
    # The id the rotation took, for the [RECOVERED: STALE] marker below.
    rid = run.marker_id or next_rotation_id(pending_doc.text, known, run.ws.host_id)
    if extra:
        # §4 step 4 (v2): the live buffer's own lines join the snapshot first, so
        # the snapshot is the single source for every step below.
        merged = Buffer(pending.created, pending.last_active, with_lines(pending.body, extra))
        store.write_text(ws.buffer_pending, merged.render(), root=ws.root, like=pending_doc)
        checkpoint("session_start.pending-merged")
        run.did(f"kept {len(extra)} line(s) the buffer held beyond working-buffer.md.pending")
        pending_doc = store.read_document(ws.buffer_pending, root=ws.root)
        pending = parse_buffer(pending_doc.text)
        rid = next_rotation_id(pending_doc.text, known, run.ws.host_id)
    if is_stale(pending, ws.now, ws.config) or not pending.active_task_lines:
        _append_recovered(run, pending, rid)
        run.fresh_buffer(buffer_doc or pending_doc)
        _discard_pending(run, "recovered into the note of its day")
        return
    store.write_text(ws.buffer, pending_doc.text, root=ws.root, like=pending_doc)
    checkpoint("session_start.buffer-restored")
    run.did(f"restored {ws.relative(ws.buffer)} from working-buffer.md.pending")
    if is_oversized(pending_doc.text, ws.config):
        # rotate_locked snapshots to .pending again and removes it when done.
        result = rotate_locked(ws, keep_tasks=True)  # mid-session (§5 step 5 v3)
        run.did(f"rotated the oversized recovered buffer into {result.note}")
        return
    _discard_pending(run, "buffer restored")


def _still_the_snapshot(pending: Buffer, current: Buffer) -> bool:
    """The buffer the snapshot was taken of, not reset yet: same ``created``, and it
    still holds every line of the snapshot (a fresh buffer has a new ``created``)."""
    if current.created != pending.created:
        return False
    missing = unsnapshotted_lines(current.body, pending.body)
    return not missing


def _recovery_failed(run: _Run, reason: str) -> None:
    ws = run.ws
    line = f"- {ws.today.isoformat()} working-buffer.md.pending failed recovery: {reason}"
    doc = None
    if ws.errors_file.exists():
        doc = store.read_document(ws.errors_file, root=ws.root)
    text = doc.text if doc is not None else ""
    # A crash after this line and before .pending goes must not log it twice.
    if line not in text.split("\n"):
        if text and not text.endswith("\n"):
            text += "\n"
        store.write_text(ws.errors_file, text + line + "\n", root=ws.root, like=doc)
        checkpoint("session_start.failure-logged")
    run.did(f"logged to {ws.relative(ws.errors_file)}: {line[2:]}")
    run.warnings.append(
        f"working-buffer.md.pending could not be recovered ({reason}); "
        "it was discarded and a fresh working buffer written"
    )
    # The fresh buffer replaces the current one; lines it still holds go to today's
    # note first (never lose a line), and .pending goes last, so that a crash
    # anywhere here repeats this path without repeating a line.
    buffer_doc, current = _read_current(run)
    if current is not None and buffer_doc is not None:
        # A rerun of this path finds the block it appended and appends nothing.
        found = snapshot_ids(buffer_doc.text, _known_ids(run), run.ws.host_id)
        rid = found[-1] if found else next_rotation_id(buffer_doc.text, set(), run.ws.host_id)
        _append_recovered(run, current, rid)
    run.fresh_buffer(buffer_doc)
    _discard_pending(run, "failed recovery")


def _discard_pending(run: _Run, why: str) -> None:
    store.remove_residue(run.ws.buffer_pending, root=run.ws.root)
    checkpoint("session_start.pending-discarded")
    run.did(f"discarded working-buffer.md.pending ({why})")


def _dated_notes(ws: Workspace) -> list[tuple[date, Any]]:
    """Every dated note, in the episodic folder and the archive, newest first."""
    from memtier.clock import parse_day

    found: list[tuple[date, Any]] = []
    for folder in (ws.episodic_dir, ws.archive_dir):
        if not folder.is_dir():
            continue
        paths = folder.glob("*.md") if folder == ws.episodic_dir else folder.glob("*/*/*.md")
        for path in paths:
            day = parse_day(path.stem)
            if day is not None and path.is_file():
                found.append((day, path))
    return sorted(found, key=lambda item: item[0], reverse=True)


def _known_ids(run: _Run) -> set[str]:
    """Every rotation id in every dated note (read only after a crash)."""
    known: set[str] = set()
    for _day, path in _dated_notes(run.ws):
        try:
            known |= line_ids(store.read_text(path, root=run.ws.root))
        except InputError as exc:
            run.warnings.append(f"not searched for the rotated buffer: {exc.message}")
    return known


def _rotation_found(run: _Run, known: set[str], text: str, pending: Buffer) -> bool:
    """Did the rotation of this snapshot finish its append? Decided by its id (§4 step 4 v2).

    The marker names the rotation's id; without one (a session-start died after
    removing it), any occurrence of the snapshot's id counts. Every dated note
    is searched: a crash may be found days later. A .pending beside a marker
    from an older memtier, whose blocks carry no id, falls back to that
    version's own test, narrowed to blocks no id heads (docs/DECISIONS.md).
    """
    if run.marker_id is not None:
        return run.marker_id in known
    if snapshot_ids(text, known, run.ws.host_id):
        return True
    if not run.legacy_marker:
        return False
    ws = run.ws
    for day, path in _dated_notes(ws):
        if not _legacy_day(ws, day, pending):
            continue
        try:
            note = store.read_text(path, root=ws.root)
        except InputError:
            continue  # already warned about by _known_ids
        if legacy_body_found(note, pending.body):
            return True
    return False


def _legacy_day(ws: Workspace, day: date, pending: Buffer) -> bool:
    """The days an older rotation of *pending* could have written to."""
    last = pending.last_active_at()
    first = last.date() if last is not None else ws.today
    return first - timedelta(days=1) <= day <= ws.today


# ---------------------------------------------------------------------------
# step 5 and the [RECOVERED: STALE] append


def _read_current(run: _Run) -> tuple[store.Document | None, Buffer | None]:
    ws = run.ws
    try:
        doc = store.read_document(ws.buffer, root=ws.root)
        return doc, parse_buffer(doc.text)
    except InputError as exc:
        run.warnings.append(f"working buffer left untouched: {exc.message}")
        return None, None


def _recover_stale(run: _Run) -> None:
    ws = run.ws
    doc, buffer = _read_current(run)
    # Judged on last_active as read before the heartbeat of step 6.
    if doc is None or buffer is None or not is_stale(buffer, ws.now, ws.config):
        return
    if not body_has_content(buffer.body):
        run.fresh_buffer(doc)
        return
    # Journaled exactly like a rotation (§5): marker with the id, snapshot in
    # .pending, append, fresh buffer, then the journal goes. A crash anywhere in
    # between is recovered by step 4, which finds the marker's id and keeps a
    # line a person adds meanwhile exactly once (v2).
    note = read_note(ws, recovery_day(ws, buffer)[0])
    rid = next_rotation_id(doc.text, line_ids(note.text) if note is not None else set(), ws.host_id)
    marked = store.create_exclusive(ws.buffer_lock, f"{rid} {ws.now.isoformat()}\n", root=ws.root)
    store.write_text(ws.buffer_pending, doc.text, root=ws.root, like=doc)
    checkpoint("session_start.stale-snapshot")
    _append_recovered(run, buffer, rid)
    run.fresh_buffer(doc)
    store.remove_residue(ws.buffer_pending, root=ws.root)
    checkpoint("session_start.pending-discarded")
    if marked:
        store.remove_residue(ws.buffer_lock, root=ws.root)
        checkpoint("session_start.lock-removed")


def recovery_day(ws: Workspace, buffer: Buffer) -> tuple[date, str]:
    """The note a recovered body goes to, and what its marker line adds (§4 step 5 v3).

    Its day is the calendar date of ``last_active`` in its own offset: work done
    at 21:05 on 4 March belongs to 4 March. When that day's note is already in
    the archive, or the day is more than ``episodic_ttl_days`` ago, the body goes
    to today's note and the marker names the day instead.
    """
    last = buffer.last_active_at()
    day = last.date() if last is not None else ws.today
    if day >= ws.today:
        return ws.today, ""
    if (ws.today - day).days > ws.config.episodic_ttl_days:
        return ws.today, f" (work of {day.isoformat()}; older than the notes' TTL)"
    if not ws.episodic_note(day).exists() and archived_day(ws, day):
        return ws.today, f" (work of {day.isoformat()}; its note is archived)"
    return day, ""


def _append_recovered(run: _Run, buffer: Buffer, rid: str) -> None:
    """The body under ``[RECOVERED: STALE] <last_active> (<id>)`` in the note of its day
    (§4 step 5 v3), or today's note naming the day."""
    ws = run.ws
    if not body_has_content(buffer.body):
        return  # §4 step 5: an empty `## Active Task:` alone is not appended
    day, why = recovery_day(ws, buffer)
    # §2 (v4): headed like a rotation block, its own headings one level below.
    what = f"{RECOVERED_MARKER} {buffer.last_active}{why}"
    block = block_heading(ws.now, what, rid) + nested_body(buffer.body, BLOCK_LEVEL)
    # A note without a closure block gets one, as a rotation gives it (§5 step 4),
    # so that session-start leaves a workspace that passes health-check.
    closure = fresh_closure(ws, buffer.active_tasks, RECOVERED)
    if add_block(ws, rid, block, closure, day, done_tasks(buffer.body)) == "already-present":
        return
    checkpoint("session_start.recovered-appended")
    run.did(f"appended the stale buffer to {ws.relative(ws.episodic_note(day))}")


# ---------------------------------------------------------------------------
# steps 6–7


def _heartbeat(run: _Run) -> None:
    ws = run.ws
    doc, buffer = _read_current(run)
    if doc is None or buffer is None:
        return
    beat = Buffer(buffer.created, format_timestamp(ws.now), buffer.body)
    store.write_text(ws.buffer, beat.render(), root=ws.root, like=doc)
    checkpoint("session_start.heartbeat")
    run.did("heartbeat: last_active set to now")


def _read_for_context(run: _Run, path: Any) -> str | None:
    if not path.exists():
        return None
    try:
        return store.read_text(path, root=run.ws.root)
    except InputError as exc:
        run.warnings.append(f"not shown: {exc.message}")
        return None


def _context(run: _Run) -> dict[str, Any]:
    ws = run.ws
    episodic: dict[str, str] = {}
    for day in (ws.today, ws.yesterday):
        text = _read_for_context(run, ws.episodic_note(day))
        if text is not None:
            episodic[day.isoformat()] = text
    learnings: dict[str, str] = {}
    for path in ws.scratch_files:
        text = _read_for_context(run, path)
        if text is not None:
            tail = text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")
            kept = tail[-CONTEXT_SCRATCH_LINES:]
            learnings[path.name] = "".join(line + "\n" for line in kept) if text else ""
    return {
        "hot": _read_for_context(run, ws.hot) or "",
        "buffer": _read_for_context(run, ws.buffer) or "",
        "episodic": episodic,
        "learnings": learnings,
        "last_open": last_open(ws),
    }


def _health_verdict(ws: Workspace) -> tuple[bool, tuple[str, ...], int]:
    """The health-check verdict of PROTOCOL §6 for the last line of the context: ok,
    the ids that failed, and how many WARM files are stale (§6 v4)."""
    from memtier.health.report import run_health_check

    report = run_health_check(ws)
    failed = tuple(dict.fromkeys(c.id for c in report.checks if c.status == "fail"))
    return bool(report.ok), failed, len(report.stale)
