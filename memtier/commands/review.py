"""The weekly review (PROTOCOL §8): deterministic maintenance, safe to run from cron.

In order, all under the workspace lock so that a live session's writes wait
for it (and it for them):

1. remove a leftover rotation marker ``memory/working-buffer.md.lock``;
2. session gate: a buffer active less than ``stale_hours`` ago defers the review;
3. size gate: an oversized buffer defers it until session-end rotation;
   (each gate appends its line to today's note and stops, exit 0)
4. health check: a failure is printed and stops the review, exit 1;
5. and 6. TTL archival of episodic notes and stray learnings files (§7);
7. recurrence: a lesson seen ``recurrence_threshold`` times or more across
   ERRORS.md and LEARNINGS.md gets `` [PROMOTE-CANDIDATE]`` on its first line;
8. today's note ends with one closure block saying what the review did.

When 5–7 changed nothing, step 8 is skipped and no byte changes (apart from a
removed marker): a no-op week leaves no trace. Promotion is never automatic.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from memtier import store
from memtier.commands.archive import ArchiveMove, ArchiveResult, archive_episodic, archive_learnings
from memtier.commands.recurrence import Flagged, flag_recurring
from memtier.commands.rotation import read_note, write_note
from memtier.errors import CheckFailed, InputError
from memtier.formats.episodic import (
    ClosureBlock,
    insert_before_closure,
    merge_into_note,
    new_note,
)
from memtier.results import Result
from memtier.store import checkpoint
from memtier.workspace import Workspace

SESSION_GATE = "Active session detected; weekly review deferred"
SIZE_GATE = "Buffer oversized; deferring weekly review until session-end rotation"
NO_CHANGES = "No meaningful changes"

DEFERRED_SESSION = "deferred-session"
DEFERRED_SIZE = "deferred-size"
HEALTH_FAILED = "health-failed"
NO_CHANGE = "no-changes"
DONE = "done"


@dataclass(frozen=True)
class ReviewResult(Result):
    status: str
    lock_removed: bool = False
    archived: ArchiveResult = field(default_factory=ArchiveResult)
    flagged: tuple[Flagged, ...] = ()
    health_failures: tuple[str, ...] = ()
    health_failed_ids: tuple[str, ...] = ()
    closure: ClosureBlock | None = None
    note: str | None = None
    # WARM files not verified for warm_max_age_days: they do not block (§8 step 4 v3).
    stale: tuple[str, ...] = ()

    @property
    def exit_code(self) -> int:
        return 1 if self.status == HEALTH_FAILED else 0

    @property
    def failure(self) -> CheckFailed | None:
        """PROTOCOL §8 step 4: a failing health check stops the review, exit 1; the
        printed failures say why, so the handler adds no line."""
        if self.status != HEALTH_FAILED:
            return None
        return CheckFailed(self.message, shown=True)

    @property
    def notices(self) -> tuple[str, ...]:
        found: list[str] = []
        if self.lock_removed:
            found.append("removed a leftover rotation marker memory/working-buffer.md.lock")
        if self.stale:
            # §8 step 4 (v3): freshness does not block the review; the person or
            # agent verifies these files (memtier verify) after checking them.
            found.append(
                f"{_plural(len(self.stale), 'WARM file')} not verified recently "
                f"(not blocking the review): {', '.join(self.stale)}"
            )
        return tuple(found)

    @property
    def message(self) -> str:
        return {
            DEFERRED_SESSION: SESSION_GATE,
            DEFERRED_SIZE: SIZE_GATE,
            HEALTH_FAILED: "Weekly review aborted: health check failed; nothing changed",
            NO_CHANGE: NO_CHANGES,
        }.get(self.status, "✅ Weekly review done")

    def _moves(self, kind: str) -> list[dict[str, Any]]:
        return [m.to_json() for m in self.archived.moved_of(kind)]

    def to_json(self) -> dict[str, Any]:
        archived = {"episodic": self._moves("episodic"), "learnings": self._moves("learnings")}
        block = self.closure
        closure = None
        if block is not None:
            closure = {
                "updated": block.updated,
                "decisions": block.decisions,
                "signal": block.signal,
                "open": block.open,
            }
        # The health check does not run when a gate defers the review.
        health = None
        if self.status not in (DEFERRED_SESSION, DEFERRED_SIZE):
            # "failed" holds check ids, as in session-start's JSON (PROTOCOL §4 step 7).
            health = {
                "ok": not self.health_failures,
                "failed": list(self.health_failed_ids),
                "messages": list(self.health_failures),
            }
        return {
            "status": self.status,
            "message": self.message,
            "lock_removed": self.lock_removed,
            "archived": archived,
            "flagged": [f.to_json() for f in self.flagged],
            "health": health,
            "closure": closure,
            "note": self.note,
        }

    def text_lines(self) -> Iterable[str]:
        if self.status == HEALTH_FAILED:
            for message in self.health_failures:
                yield f"❌ {message}"
            yield self.message
            return
        if self.status != DONE:
            yield self.message
            return
        for move in self.archived.moved:
            yield f"  Archive: {move.name} → {move.month}"
        for flag in self.flagged:
            yield f"  Flagged: {flag.file}:{flag.line} ({flag.count}×) {flag.lesson}"
        if self.closure is not None:
            yield f"{self.message}: {self.closure.decisions}"
            yield f"  Open: {self.closure.open}"


# ---------------------------------------------------------------------------
# today's note


def _write_note_line(ws: Workspace, line: str, block: ClosureBlock) -> str:
    """Append *line* to today's note before its closure block (§8 steps 2 and 3).

    A note that does not exist yet is created closed by *block*, so that the
    deferral itself never leaves today's note failing the health check.
    """
    note = read_note(ws, ws.today)
    if note is None:
        text = new_note(ws.today, line, block)
    else:
        text = insert_before_closure(note.text, line)
    checkpoint("review.before-note")
    write_note(ws, ws.today, text, note)
    checkpoint("review.note-written")
    return ws.relative(ws.episodic_note())


def _write_closure(ws: Workspace, block: ClosureBlock) -> str:
    """§8 step 8: a valid final block is merged with *block* (§2 v2: the agent's
    decisions, signal and open items stay), otherwise *block* is appended."""
    note = read_note(ws, ws.today)
    text = new_note(ws.today, "", block) if note is None else merge_into_note(note.text, block)
    checkpoint("review.before-closure")
    write_note(ws, ws.today, text, note)
    checkpoint("review.closure-written")
    return ws.relative(ws.episodic_note())


# ---------------------------------------------------------------------------
# the gates


def _gate(ws: Workspace) -> str | None:
    """DEFERRED_SESSION / DEFERRED_SIZE when a live or oversized buffer defers the review."""
    from memtier.formats.buffer import is_oversized, parse_buffer

    path = ws.buffer
    if not path.is_file():
        return None  # the health check reports a missing buffer
    try:
        text = store.read_text(path, root=ws.root)
        buffer = parse_buffer(text)
    except InputError:
        return None  # a broken buffer fails the health check in step 4
    last = buffer.last_active_at()
    # §8 step 2: "less than stale_hours ago"; a heartbeat in the future is a live
    # session. A fresh buffer (as init or session-end leaves it) is no session (v3).
    recent = last is not None and ws.now - last < timedelta(hours=ws.config.stale_hours)
    if recent and buffer.has_content:
        return DEFERRED_SESSION
    if is_oversized(text, ws.config):
        return DEFERRED_SIZE
    return None


# ---------------------------------------------------------------------------
# recurrence


# ---------------------------------------------------------------------------
# the review


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


SIGNAL_LESSON_CHARS = 60


def _shorten(text: str, limit: int = SIGNAL_LESSON_CHARS) -> str:
    """*text* cut at a word boundary within *limit* characters, marked with ``…``."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ;,") + "…"


def _summary(
    ws: Workspace,
    archived: ArchiveResult,
    flagged: tuple[Flagged, ...],
    stale: tuple[str, ...] = (),
) -> ClosureBlock:
    done: list[str] = []
    episodic: tuple[ArchiveMove, ...] = archived.moved_of("episodic")
    learnings = archived.moved_of("learnings")
    if episodic:
        done.append(f"archived {_plural(len(episodic), 'episodic note')}")
    if learnings:
        done.append(f"archived {_plural(len(learnings), 'learnings file')}")
    if flagged:
        done.append(f"flagged {_plural(len(flagged), 'promotion candidate')}")
    decisions = "weekly review performed: " + "; ".join(done)
    opened: list[str] = []
    if flagged:
        signal = f"{_plural(len(flagged), 'lesson')} recurring: " + "; ".join(
            _shorten(f.text or f.lesson) for f in flagged[:3]
        )
        opened.append("review promotion candidates (memtier candidates)")
    elif stale:
        signal = f"{_plural(len(stale), 'WARM file')} not verified for "
        signal += f"{ws.config.warm_max_age_days} days; no lesson reached the recurrence threshold"
    else:
        signal = "health check passed; no lesson reached the recurrence threshold"
    # §8 step 8 (v3): each stale file is left open, to be checked and verified.
    opened += [f"verify {path}" for path in stale]
    open_items = "; ".join(opened) or "none"
    return ClosureBlock(ws.today.isoformat(), decisions, signal, open_items)


def weekly_review(ws: Workspace) -> ReviewResult:
    """Run PROTOCOL §8 steps 1–8 on *ws* under the workspace lock."""
    from memtier.health.report import run_health_check

    with store.workspace_lock(ws.lock_file):
        # Step 1. Under the workspace lock no rotation is running: a marker is a leftover.
        lock_removed = store.remove_residue(ws.buffer_lock, root=ws.root)
        checkpoint("review.lock-removed")
        gate = _gate(ws)
        if gate is not None:
            gate_line = SESSION_GATE if gate == DEFERRED_SESSION else SIZE_GATE
            block = ClosureBlock(
                ws.today.isoformat(), "weekly review deferred", gate_line, "weekly review"
            )
            # Each deferral says when it happened, so two on one day are two lines.
            line = f"{ws.now.strftime('%H:%M')} {gate_line}"
            note = _write_note_line(ws, line, block)
            return ReviewResult(gate, lock_removed, note=note)
        report = run_health_check(ws)
        # §8 step 4 (v3): integrity blocks the review, freshness does not: after
        # an absence longer than the TTL every WARM file is stale, and blocking
        # would keep old notes live for the whole absence.
        blocking = list(report.integrity_failed)
        if blocking:
            return ReviewResult(
                HEALTH_FAILED,
                lock_removed,
                health_failures=tuple(check.message for check in blocking),
                health_failed_ids=tuple(dict.fromkeys(check.id for check in blocking)),
            )
        stale = tuple(c.path for c in report.stale if c.path)
        failures = tuple(check.message for check in report.failed)
        ids = tuple(dict.fromkeys(check.id for check in report.failed))
        archived = archive_episodic(ws).merge(archive_learnings(ws))
        flagged = flag_recurring(ws)
        if not archived.moved and not flagged:
            return ReviewResult(
                NO_CHANGE,
                lock_removed,
                archived=archived,
                health_failures=failures,
                health_failed_ids=ids,
                stale=stale,
            )
        block = _summary(ws, archived, flagged, stale)
        note = _write_closure(ws, block)
    return ReviewResult(
        DONE,
        lock_removed,
        archived,
        flagged,
        health_failures=failures,
        health_failed_ids=ids,
        closure=block,
        note=note,
        stale=stale,
    )
