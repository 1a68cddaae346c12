"""Recurrence (PROTOCOL §8 step 7): a lesson seen ``recurrence_threshold`` times.

A normalised lesson line (`memtier.formats.lessons.normalise_lesson`) that
occurs that often across ERRORS.md and LEARNINGS.md gets `` [PROMOTE-CANDIDATE]``
on its first occurrence, once. The weekly review runs it over every lesson;
`learn` runs it as soon as a lesson is added, so a lesson that reaches the
threshold is flagged at once rather than at the next Monday. `find_candidates`
lists the flagged lines, numbered, which `promote` accepts in place of a text.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from memtier import store
from memtier.errors import InputError
from memtier.formats.lessons import (
    CANDIDATE_FLAG,
    is_candidate_line,
    is_promoted_line,
    lesson_text,
    normalise_lesson,
)
from memtier.results import Record, Result, fixed
from memtier.store import checkpoint
from memtier.values import Fields
from memtier.workspace import SCRATCH_FILES, Workspace

# The two SCRATCH files whose lessons recur (PROTOCOL §8 step 7).
RECURRENCE_FILES: tuple[str, ...] = ("ERRORS.md", "LEARNINGS.md")


class Flagged(Record, Fields):
    """A lesson that reached the threshold and was flagged on its first line."""

    file: str
    line: int
    lesson: str  # normalised (PROTOCOL §2), the key recurrence counts by
    count: int
    text: str = ""  # the lesson as its first line words it, case kept (weekly review's signal)

    JSON_OMIT = frozenset({"text"})


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
            if "[PROMOTE" in line and (is_candidate_line(line) or is_promoted_line(line)):
                # Flagged already, or promoted (with or without --as): never again.
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


def scratch_paths(ws: Workspace) -> list[Path]:
    """The canonical SCRATCH files first, then any other ``.learnings/*.md``, sorted."""
    found = [p for p in ws.scratch_files if p.is_file()]
    if ws.learnings_dir.is_dir():
        found.extend(
            sorted(
                p
                for p in ws.learnings_dir.glob("*.md")
                if p.name not in SCRATCH_FILES and p.is_file() and not store.is_temp_file(p)
            )
        )
    return found


def read_scratch(ws: Workspace, path: Path) -> str:
    return store.read_text(path, root=ws.root)


# ---------------------------------------------------------------------------
# candidates (what the recurrence check flagged, plus flags set by hand)


class Candidate(Record, Fields):
    file: str
    line: int
    entry: str
    lesson: str
    number: int = 0  # 1-based, in listing order: what `promote N` takes

    JSON_NAMES = fixed(entry="text")  # "text" is the text in every command's JSON


class CandidatesResult(Result, Fields):
    candidates: tuple[Candidate, ...]
    warnings: tuple[str, ...] = ()

    JSON_OMIT = frozenset({"warnings"})

    def json_extra(self) -> dict[str, Any]:
        return {"count": len(self.candidates)}

    def text_lines(self) -> Iterable[str]:
        if not self.candidates:
            yield "No promotion candidates"
            return
        for c in self.candidates:
            yield f"{c.number}. {c.file}:{c.line}: {c.entry}"
        yield (
            f"{len(self.candidates)} candidate(s); promote one by its number with "
            "memtier promote N --to FILE [--as ADVICE] --yes"
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
                rel = ws.relative(path)
                found.append(Candidate(rel, number, line, lesson_text(line), len(found) + 1))
    return CandidatesResult(tuple(found), tuple(warnings))
