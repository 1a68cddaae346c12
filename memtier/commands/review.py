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

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from memtier import store
from memtier.commands.archive import ArchiveMove, ArchiveResult, archive_episodic, archive_learnings
from memtier.commands.learnings import (
    CANDIDATE_FLAG,
    is_candidate_line,
    lesson_text,
    normalise_lesson,
    read_scratch,
    scratch_paths,
)
from memtier.errors import InputError
from memtier.faults import checkpoint
from memtier.formats.episodic import (
    ClosureBlock,
    insert_before_closure,
    merge_into_note,
    new_note,
)
from memtier.workspace import Workspace

SESSION_GATE = "Active session detected; weekly review deferred"
SIZE_GATE = "Buffer oversized; deferring weekly review until session-end rotation"
NO_CHANGES = "No meaningful changes"
# The two SCRATCH files whose lessons recur (PROTOCOL §8 step 7).
RECURRENCE_FILES: tuple[str, ...] = ("ERRORS.md", "LEARNINGS.md")

DEFERRED_SESSION = "deferred-session"
DEFERRED_SIZE = "deferred-size"
HEALTH_FAILED = "health-failed"
NO_CHANGE = "no-changes"
DONE = "done"


@dataclass(frozen=True)
class Flagged:
    """A lesson that reached the threshold and was flagged on its first line."""

    file: str
    line: int
    lesson: str  # normalised (PROTOCOL §2), the key recurrence counts by
    count: int
    text: str = ""  # the lesson as its first line words it, case kept

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "lesson": self.lesson,
            "count": self.count,
            "text": self.text,
        }


@dataclass(frozen=True)
class ReviewResult:
    status: str
    lock_removed: bool = False
    archived: ArchiveResult = field(default_factory=ArchiveResult)
    flagged: tuple[Flagged, ...] = ()
    health_failures: tuple[str, ...] = ()
    health_failed_ids: tuple[str, ...] = ()
    closure: ClosureBlock | None = None
    note: str | None = None

    @property
    def exit_code(self) -> int:
        return 1 if self.status == HEALTH_FAILED else 0

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
    path = ws.episodic_note()
    if path.exists() or path.is_symlink():
        doc = store.read_document(path, root=ws.root)
        text = insert_before_closure(doc.text, line)
    else:
        doc = store.Document(text="")
        text = new_note(ws.today, line, block)
    checkpoint("review.before-note")
    store.write_text(path, text, root=ws.root, like=doc)
    checkpoint("review.note-written")
    return ws.relative(path)


def _write_closure(ws: Workspace, block: ClosureBlock) -> str:
    """§8 step 8: a valid final block is merged with *block* (§2 v2: the agent's
    decisions, signal and open items stay), otherwise *block* is appended."""
    path = ws.episodic_note()
    if path.exists() or path.is_symlink():
        doc = store.read_document(path, root=ws.root)
        text = merge_into_note(doc.text, block)
    else:
        doc = store.Document(text="")
        text = new_note(ws.today, "", block)
    checkpoint("review.before-closure")
    store.write_text(path, text, root=ws.root, like=doc)
    checkpoint("review.closure-written")
    return ws.relative(path)


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
    # §8 step 2: "less than stale_hours ago"; a heartbeat in the future is a live session.
    if last is not None and ws.now - last < timedelta(hours=ws.config.stale_hours):
        return DEFERRED_SESSION
    if is_oversized(text, ws.config):
        return DEFERRED_SIZE
    return None


# ---------------------------------------------------------------------------
# recurrence


def _promoted_lessons(ws: Workspace) -> set[str]:
    """Normalised lines of the WARM files: a lesson already promoted is not flagged again."""
    found: set[str] = set()
    for path in ws.warm_files():
        try:
            text = store.read_text(path, root=ws.root)
        except InputError:
            continue  # the health check has its own say about unreadable files
        found.update(normalise_lesson(line) for line in text.split("\n"))
    return found


def _with_flag(line: str) -> str:
    # PROTOCOL §2/§8: the flag goes at the end of the line, also after a "#pinned";
    # pins matter only for archival, which never touches ERRORS.md or LEARNINGS.md.
    return f"{line.rstrip()} {CANDIDATE_FLAG}"


def flag_recurring(ws: Workspace) -> tuple[Flagged, ...]:
    """§8 step 7; the caller holds the workspace lock."""
    docs: dict[Path, store.Document] = {}
    for name in RECURRENCE_FILES:
        path = ws.learnings_dir / name
        if path.is_file():
            docs[path] = store.read_document(path, root=ws.root)
    counts: Counter[str] = Counter()
    first: dict[str, tuple[Path, int, str]] = {}
    already: set[str] = set()
    for path, doc in docs.items():
        # A tight loop: this runs over every SCRATCH line every week.
        for number, line in enumerate(doc.text.split("\n"), start=1):
            if not line.startswith("- "):
                continue
            key = normalise_lesson(line)
            if not key:
                continue
            counts[key] += 1
            if key not in first:
                first[key] = (path, number, line)
            if "[PROMOTE-CANDIDATE]" in line and is_candidate_line(line):
                already.add(key)
    due = [
        key
        for key, count in counts.items()
        if count >= ws.config.recurrence_threshold and key not in already
    ]
    if not due:
        return ()
    promoted = _promoted_lessons(ws)
    edits: dict[Path, dict[int, str]] = {}
    flagged: list[Flagged] = []
    for key in due:
        if key in promoted:
            continue
        path, number, text = first[key]
        edits.setdefault(path, {})[number] = _with_flag(text)
        flagged.append(
            Flagged(ws.relative(path), number, key, counts[key], lesson_text(text) or key)
        )
    for path, changes in edits.items():
        doc = docs[path]
        lines = doc.text.split("\n")
        for number, new in changes.items():
            lines[number - 1] = new
        checkpoint("review.before-flag")
        store.write_text(path, "\n".join(lines), root=ws.root, like=doc)
        checkpoint("review.flagged")
    return tuple(sorted(flagged, key=lambda f: (f.file, f.line)))


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


def _summary(ws: Workspace, archived: ArchiveResult, flagged: tuple[Flagged, ...]) -> ClosureBlock:
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
    if flagged:
        signal = f"{_plural(len(flagged), 'lesson')} recurring: " + "; ".join(
            _shorten(f.text or f.lesson) for f in flagged[:3]
        )
        open_items = "review promotion candidates (memtier candidates)"
    else:
        signal = "health check passed; no lesson reached the recurrence threshold"
        open_items = "none"
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
        if not report.ok:
            return ReviewResult(
                HEALTH_FAILED,
                lock_removed,
                health_failures=tuple(check.message for check in report.failed),
                health_failed_ids=tuple(dict.fromkeys(check.id for check in report.failed)),
            )
        archived = archive_episodic(ws).merge(archive_learnings(ws))
        flagged = flag_recurring(ws)
        if not archived.moved and not flagged:
            return ReviewResult(NO_CHANGE, lock_removed, archived=archived)
        block = _summary(ws, archived, flagged)
        note = _write_closure(ws, block)
    return ReviewResult(DONE, lock_removed, archived, flagged, closure=block, note=note)


# ---------------------------------------------------------------------------
# candidates (what the recurrence check flagged, plus flags set by hand)


@dataclass(frozen=True)
class Candidate:
    file: str
    line: int
    entry: str
    lesson: str

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "entry": self.entry, "lesson": self.lesson}


@dataclass(frozen=True)
class CandidatesResult:
    candidates: tuple[Candidate, ...]
    warnings: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "count": len(self.candidates),
            "candidates": [c.to_json() for c in self.candidates],
        }

    def text_lines(self) -> Iterable[str]:
        if not self.candidates:
            yield "No promotion candidates"
            return
        for c in self.candidates:
            yield f"{c.file}:{c.line}: {c.entry}"
        yield (
            f"{len(self.candidates)} candidate(s); promote one with "
            "memtier promote TEXT --to FILE --yes"
        )


def find_candidates(ws: Workspace) -> CandidatesResult:
    """Every ``[PROMOTE-CANDIDATE]`` line of the SCRATCH files, in file order."""
    found: list[Candidate] = []
    warnings: list[str] = []
    for path in scratch_paths(ws):
        try:
            text = read_scratch(ws, path)
        except InputError as exc:
            warnings.append(exc.message)
            continue
        for number, line in enumerate(text.split("\n"), start=1):
            if is_candidate_line(line):
                found.append(Candidate(ws.relative(path), number, line, lesson_text(line)))
    return CandidatesResult(tuple(found), tuple(warnings))
