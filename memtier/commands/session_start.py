"""`memtier session-start` (PROTOCOL §4): the runtime decision tree, then the base context.

Steps 1–7 run in the protocol's order under the workspace lock. Step 4 is the
recovery of an interrupted rotation (`memtier.commands.rotation`); together with the
rotation's own journal it guarantees that, whatever moment a process died at,
every line of the buffer ends up exactly once in the buffer or in a note:

- the ``.pending`` snapshot is removed only after everything it implies is on
  disk, so a crash during recovery leaves it for the next session-start;
- "already stands verbatim in a note" (checked line-aligned) tells a finished
  append from an unfinished one; when the buffer still holds that very body
  (the rotation died between its steps 4 and 5) the buffer is reset, so the
  body is not kept twice;
- a ``[RECOVERED: STALE]`` append is skipped when the marker and body already
  stand in today's note, so a crash between the append and the fresh buffer
  does not append them twice;
- when ``.pending`` cannot be recovered, the fresh buffer the protocol writes
  replaces the current one only after the lines that one still holds were
  appended to today's note (an interpretation: "never lose a line" wins).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import date, timedelta
from typing import Any

from memtier import store
from memtier.clock import format_timestamp
from memtier.commands.base_context import ContextPart, LastOpen, fit_context, last_open
from memtier.commands.rotation import fresh_closure, read_note, rotate_locked, write_note
from memtier.errors import InputError
from memtier.faults import checkpoint
from memtier.formats.buffer import (
    Buffer,
    body_has_content,
    fresh_buffer,
    header_problem,
    is_oversized,
    is_stale,
    parse_buffer,
)
from memtier.formats.episodic import contains_lines, place_before_closure
from memtier.workspace import Workspace

RECOVERED_MARKER = "[RECOVERED: STALE]"
CONTEXT_SCRATCH_LINES = 20
# How many days back from today a finished rotation's note is looked for (§4 step 4).
PENDING_LOOKBACK_DAYS = 7


@dataclass(frozen=True)
class SessionStartResult:
    """What session-start did, and the base context it prints (PROTOCOL §4 step 7)."""

    actions: tuple[str, ...]
    hot: str
    buffer: str
    episodic: dict[str, str]
    learnings: dict[str, str]
    health_ok: bool
    health_failed: tuple[str, ...]
    warnings: tuple[str, ...] = ()
    last_open: LastOpen | None = None
    # The base context's budget in characters (`--max-chars`); None: no limit.
    max_chars: int | None = None

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
        session's Open: items, today's note, then the rest (PROTOCOL §11)."""
        parts = [
            ContextPart("MEMORY.md", "MEMORY.md", self.hot),
            ContextPart("memory/working-buffer.md", "memory/working-buffer.md", self.buffer),
        ]
        if self.last_open is not None:
            line = self.last_open.line()
            parts.append(ContextPart(line, self.last_open.path, line, None, heading=False))
        for day, text in self.episodic.items():
            path = f"memory/episodic/{day}.md"
            parts.append(ContextPart(path, path, text))
        for name, text in self.learnings.items():
            title = f".learnings/{name} (last {CONTEXT_SCRATCH_LINES} lines)"
            parts.append(ContextPart(title, f".learnings/{name}", text, None))
        return parts

    def health_line(self) -> str:
        if self.health_ok:
            return "health-check: ✅ All required checks passed"
        failed = ", ".join(self.health_failed)
        return f"health-check: ⚠️  Some required checks failed ({failed}) — run memtier health-check"

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

    def did(self, action: str) -> None:
        self.actions.append(action)

    def fresh_buffer(self, like: store.Document | None) -> None:
        store.write_text(
            self.ws.buffer, fresh_buffer(self.ws.now, self.ws.config), root=self.ws.root, like=like
        )
        checkpoint("session_start.buffer-reset")
        self.did(f"wrote a fresh {self.ws.relative(self.ws.buffer)}")


def session_start(ws: Workspace) -> SessionStartResult:
    """PROTOCOL §4 steps 1–7."""
    run = _Run(ws)
    with store.workspace_lock(ws.lock_file):
        _ensure_hot(run)  # step 1
        _ensure_buffer(run)  # step 2
        if ws.buffer_lock.exists() or ws.buffer_lock.is_symlink():  # step 3
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
    ok, failed = _health_verdict(ws)
    return SessionStartResult(
        actions=tuple(run.actions),
        health_ok=ok,
        health_failed=failed,
        warnings=tuple(dict.fromkeys(run.warnings)),
        **context,
    )


# ---------------------------------------------------------------------------
# steps 1–2


def _ensure_hot(run: _Run) -> None:
    ws = run.ws
    if ws.hot.exists() or ws.hot.is_symlink():
        return
    day = ws.today.isoformat()
    header = f"# Agent Memory\n#tags: memory\nlast_verified: {day}\nlast_updated: {day}\n"
    store.write_text(ws.hot, header, root=ws.root)
    checkpoint("session_start.hot-created")
    run.did("created MEMORY.md")


def _ensure_buffer(run: _Run) -> None:
    ws = run.ws
    if ws.buffer.exists() or ws.buffer.is_symlink():
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
    buffer_doc, current = _read_current(run)
    if _body_in_a_note(ws, pending, run.warnings):
        # The rotation that left .pending had finished its append (§4 step 4).
        if current is not None and current.body == pending.body:
            # ...but died before its fresh buffer: keeping this one would keep the body twice.
            run.fresh_buffer(buffer_doc)
        _discard_pending(run, "its body already stands in an episodic note")
        return
    if is_stale(pending, ws.now, ws.config) or not pending.active_task_lines:
        _append_recovered(run, pending)
        run.fresh_buffer(buffer_doc or pending_doc)
        _discard_pending(run, "recovered into today's note")
        return
    store.write_text(ws.buffer, pending_doc.text, root=ws.root, like=pending_doc)
    checkpoint("session_start.buffer-restored")
    run.did(f"restored {ws.relative(ws.buffer)} from working-buffer.md.pending")
    if is_oversized(pending_doc.text, ws.config):
        # rotate_locked snapshots to .pending again and removes it when done.
        result = rotate_locked(ws)
        run.did(f"rotated the oversized recovered buffer into {result.note}")
        return
    _discard_pending(run, "buffer restored")


def _recovery_failed(run: _Run, reason: str) -> None:
    ws = run.ws
    line = f"- {ws.today.isoformat()} working-buffer.md.pending failed recovery: {reason}"
    doc = None
    if ws.errors_file.exists():
        doc = store.read_document(ws.errors_file, root=ws.root)
    text = doc.text if doc is not None else ""
    # A crash after this line and before .pending goes must not log it twice.
    if not contains_lines(text, line):
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
    if current is not None:
        _append_recovered(run, current)
    run.fresh_buffer(buffer_doc)
    _discard_pending(run, "failed recovery")


def _discard_pending(run: _Run, why: str) -> None:
    store.remove_residue(run.ws.buffer_pending, root=run.ws.root)
    checkpoint("session_start.pending-discarded")
    run.did(f"discarded working-buffer.md.pending ({why})")


def _candidate_days(ws: Workspace, pending: Buffer) -> list[date]:
    """Notes a finished rotation of *pending* could have written to: bounded, newest first."""
    days = [ws.today, ws.yesterday]
    last = pending.last_active_at()
    if last is not None:
        first = min(last.date(), last.astimezone(ws.now.tzinfo).date())
        span = (ws.today - first).days
        if 0 <= span <= PENDING_LOOKBACK_DAYS:
            days += [ws.today - timedelta(days=n) for n in range(span + 1)]
        else:
            days += [first, first + timedelta(days=1)]
    return list(dict.fromkeys(days))


def _body_in_a_note(ws: Workspace, pending: Buffer, warnings: list[str]) -> bool:
    if not body_has_content(pending.body):
        return False
    for day in _candidate_days(ws, pending):
        try:
            note = read_note(ws, day)
        except InputError as exc:
            warnings.append(f"not searched for the rotated buffer: {exc.message}")
            continue
        if note is not None and contains_lines(note.text, pending.body):
            return True
    return False


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
    _append_recovered(run, buffer)
    run.fresh_buffer(doc)


def _append_recovered(run: _Run, buffer: Buffer) -> None:
    """The body under ``[RECOVERED: STALE] <last_active>`` in today's note, block kept last."""
    ws = run.ws
    if not body_has_content(buffer.body):
        return  # §4 step 5: an empty `## Active Task:` alone is not appended
    chunk = f"{RECOVERED_MARKER} {buffer.last_active}\n{buffer.body}"
    note = read_note(ws, ws.today)
    text = note.text if note is not None else ""
    if note is not None and contains_lines(text, chunk):
        return
    new_text, placement = place_before_closure(text, chunk)
    if placement == "appended":
        # A note without a closure block gets one, as a rotation gives it (§5 step 4),
        # so that session-start leaves a workspace that passes health-check.
        block = fresh_closure(ws, buffer.active_tasks)
        new_text += replace(block, decisions="stale working buffer recovered").render()
    write_note(ws, ws.today, new_text, note)
    checkpoint("session_start.recovered-appended")
    run.did(f"appended the stale buffer to {ws.relative(ws.episodic_note())}")


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


def _health_verdict(ws: Workspace) -> tuple[bool, tuple[str, ...]]:
    """The health-check verdict of PROTOCOL §6 for the last line of the context."""
    from memtier.health.report import run_health_check

    report = run_health_check(ws)
    failed = tuple(dict.fromkeys(c.id for c in report.checks if c.status == "fail"))
    return bool(report.ok), failed
