"""The learnings loop: SCRATCH entries, recurrence, candidates, promotion (PROTOCOL §2, §9).

A SCRATCH entry is one line ``- YYYY-MM-DD <text>`` in ``.learnings/ERRORS.md``,
``LEARNINGS.md`` or ``FEATURE_REQUESTS.md``. Only lines starting with ``- ``
are lessons; headings and prose around them are not. Two lines are "the same
lesson" when their normalised texts (`normalise_lesson`) are equal.

- `learn` appends an entry. A lesson has one home: a lesson already standing in
  *another* SCRATCH file is refused; a repeat in the same file is how a
  recurrence is counted, so it is allowed.
- `memtier.commands.review.find_candidates` lists lines flagged ``[PROMOTE-CANDIDATE]``.
- `promote` copies an approved lesson into a WARM file, its one home.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memtier import store
from memtier.errors import InputError, RefusedError
from memtier.faults import checkpoint
from memtier.workspace import SCRATCH_FILES, Workspace

CANDIDATE_FLAG = "[PROMOTE-CANDIDATE]"
PIN_FLAG = "#pinned"
LEARN_KINDS: dict[str, str] = {
    "error": "ERRORS.md",
    "learning": "LEARNINGS.md",
    "feature": "FEATURE_REQUESTS.md",
}
_HEADINGS: dict[str, str] = {
    "ERRORS.md": "# Errors",
    "LEARNINGS.md": "# Learnings",
    "FEATURE_REQUESTS.md": "# Feature requests",
}

# What a lesson line starts with: an optional "- ", then an optional date or ISO
# timestamp (seconds, fraction and offset optional) followed by whitespace.
_PREFIX = re.compile(
    r"\s*(?:-(?:\s+|$))?"
    r"(?:\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(?:Z|[+-]\d\d:?\d\d)?)?(?:\s+|$))?"
)
_FLAGS = (CANDIDATE_FLAG.lower(), PIN_FLAG)


def _strip_flags(text: str, lowered: str) -> str:
    """*text* without trailing flags, matched on its lowercased twin *lowered*."""
    end = len(lowered.rstrip())
    found = True
    while found:
        found = False
        for flag in _FLAGS:
            if lowered.endswith(flag, 0, end):
                end = len(lowered[: end - len(flag)].rstrip())
                found = True
    return text[:end]


def normalise_lesson(line: str) -> str:
    """The text two lines must share to count as the same lesson (PROTOCOL §2).

    Drops a leading ``- ``, a leading date or timestamp, trailing
    ``[PROMOTE-CANDIDATE]`` and ``#pinned`` (in any order, any case),
    lowercases and collapses runs of whitespace.
    """
    prefix = _PREFIX.match(line)
    lowered = line[prefix.end() if prefix else 0 :].lower()
    return " ".join(_strip_flags(lowered, lowered).split())


def is_lesson_line(line: str) -> bool:
    """A lesson line starts with ``- ``; headings and prose are not lessons."""
    return line.startswith("- ")


def is_candidate_line(line: str) -> bool:
    """``[PROMOTE-CANDIDATE]`` at the end of the line (a trailing ``#pinned`` allowed)."""
    text = line.rstrip()
    if text.endswith(PIN_FLAG):
        text = text[: -len(PIN_FLAG)].rstrip()
    return text.endswith(CANDIDATE_FLAG)


def lesson_text(line: str) -> str:
    """The lesson as a person wrote it: no ``- ``, no leading date, no trailing flags."""
    prefix = _PREFIX.match(line)
    text = line[prefix.end() if prefix else 0 :]
    return _strip_flags(text, text.lower()).strip()


def remove_candidate_flag(line: str) -> str:
    """*line* without its ``[PROMOTE-CANDIDATE]`` flag (a trailing ``#pinned`` kept)."""
    text = line.rstrip()
    pinned = text.endswith(PIN_FLAG)
    if pinned:
        text = text[: -len(PIN_FLAG)].rstrip()
    if text.endswith(CANDIDATE_FLAG):
        text = text[: -len(CANDIDATE_FLAG)].rstrip()
    return f"{text} {PIN_FLAG}" if pinned else text


@dataclass(frozen=True)
class LessonLine:
    """One lesson line of a SCRATCH file."""

    path: Path
    number: int  # 1-based
    text: str
    normalised: str


def lesson_lines(path: Path, text: str) -> Iterator[LessonLine]:
    for number, line in enumerate(text.split("\n"), start=1):
        if is_lesson_line(line):
            normalised = normalise_lesson(line)
            if normalised:
                yield LessonLine(path, number, line, normalised)


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
# learn


@dataclass(frozen=True)
class LearnResult:
    file: str
    line: int
    entry: str
    occurrences: int
    redacted: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "entry": self.entry,
            "occurrences": self.occurrences,
            "redacted": dict(self.redacted),
        }

    def text_lines(self) -> Iterable[str]:
        yield f"added to {self.file}:{self.line}: {self.entry}"
        if self.occurrences > 1:
            yield f"  seen {self.occurrences} times in {self.file}"


def learn(ws: Workspace, kind: str, text: str, pin: bool = False) -> LearnResult:
    """Append ``- YYYY-MM-DD <text>`` to the SCRATCH file for *kind* (PROTOCOL §9)."""
    from memtier.formats.text import fold_line, without_bullet

    if kind not in LEARN_KINDS:
        raise InputError(f"learn: unknown kind '{kind}' (expected error, learning or feature)")
    # A SCRATCH entry is one line, written with its own bullet (PROTOCOL §3 v2).
    redaction = fold_line(text)
    body = without_bullet(redaction.text)
    if pin and not body.endswith(PIN_FLAG):
        body = f"{body} {PIN_FLAG}"
    entry = f"- {ws.today.isoformat()} {body}"
    normalised = normalise_lesson(entry)
    if not normalised:
        raise InputError("learn: the lesson text is empty")
    name = LEARN_KINDS[kind]
    target = ws.learnings_dir / name
    with store.workspace_lock(ws.lock_file):
        # PROTOCOL §9: one home per lesson; the other SCRATCH files are checked under the lock.
        for other in ws.scratch_files:
            if other.name == name or not other.is_file():
                continue
            for found in lesson_lines(other, read_scratch(ws, other)):
                if found.normalised == normalised:
                    raise RefusedError(
                        f"this lesson already stands in {ws.relative(other)}:{found.number}; "
                        "a lesson has one home: add it there to count a recurrence"
                    )
        if target.exists() or target.is_symlink():
            doc = store.read_document(target, root=ws.root)
        else:
            store.make_dirs(ws.learnings_dir, root=ws.root)
            doc = store.Document(text=_HEADINGS[name] + "\n\n")
        current = doc.text
        if current and not current.endswith("\n"):
            current += "\n"
        new_text = current + entry + "\n"
        checkpoint("learn.before-write")
        store.write_text(target, new_text, root=ws.root, like=doc)
        checkpoint("learn.written")
    lines = new_text.split("\n")
    line_number = len(lines) - 1
    occurrences = sum(1 for f in lesson_lines(target, new_text) if f.normalised == normalised)
    return LearnResult(
        ws.relative(target), line_number, entry, occurrences, dict(redaction.redacted)
    )


# ---------------------------------------------------------------------------
# promote

_LAST_VERIFIED = re.compile(r"^(> )?last_verified:")
_TOPIC_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\.md$")
_FALLBACK_TAGS = ("fixes", "workflow", "memory")


@dataclass(frozen=True)
class PromoteResult:
    applied: bool
    lesson: str
    source: str
    source_line: int
    target: str
    created: bool
    already_present: bool
    flag_removed: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "applied": self.applied,
            "lesson": self.lesson,
            "source": {"file": self.source, "line": self.source_line},
            "target": self.target,
            "created": self.created,
            "already_present": self.already_present,
            "flag_removed": self.flag_removed,
        }

    def text_lines(self) -> Iterable[str]:
        verb = "Promoted" if self.applied else "Would promote"
        yield f"{verb}: {self.lesson}"
        yield f"  from {self.source}:{self.source_line}"
        where = " (new file)" if self.created else ""
        if self.already_present:
            where = " (already there; only last_verified is refreshed)"
        yield f"  to   {self.target}{where}"
        if self.flag_removed:
            yield f"  flag {CANDIDATE_FLAG} {'removed' if self.applied else 'to be removed'}"
        if not self.applied:
            yield "Nothing changed. Run again with --yes to apply."


def _same_lesson(line: str, normalised: str, wanted: str) -> bool:
    """*wanted* comes redacted (PROTOCOL §3 v2); a line a person wrote may still hold
    the secret, so it is compared redacted too when *wanted* has a placeholder."""
    if normalised == wanted:
        return True
    if "[redacted:" not in wanted:
        return False
    from memtier.secrets import redact

    return normalise_lesson(redact(line).text) == wanted


def _find_source(ws: Workspace, wanted: str) -> LessonLine:
    lessons: list[LessonLine] = []
    for path in scratch_paths(ws):
        lessons.extend(
            f
            for f in lesson_lines(path, read_scratch(ws, path))
            if _same_lesson(f.text, f.normalised, wanted)
        )
    if not lessons:
        raise InputError("no lesson in .learnings/ matches that text (see memtier candidates)")
    flagged = [f for f in lessons if is_candidate_line(f.text)]
    return (flagged or lessons)[0]


def _check_target(ws: Workspace, target: Path) -> bool:
    """Confine --to to a WARM file; True when it is a new procedural file to create."""
    real = store.confine(ws.root, target)
    root = store.confine(ws.root, ws.root)
    rel = real.relative_to(root)
    parts = rel.parts
    warm = len(parts) == 3 and parts[0] == "memory" and parts[1] in ("semantic", "procedural")
    if not warm or not _TOPIC_NAME.match(parts[-1]):
        raise InputError(
            f"--to {rel.as_posix()}: must be a WARM file, memory/semantic/<name>.md "
            "or memory/procedural/<topic>.md"
        )
    if real.is_dir():
        raise InputError(f"--to {rel.as_posix()}: is a directory, expected a file")
    if real.exists():
        return False
    if parts[1] == "semantic":
        raise InputError(
            f"--to {rel.as_posix()}: no such file; only a new memory/procedural/<topic>.md "
            "may be created"
        )
    return True


def _new_procedural(ws: Workspace, path: Path) -> str:
    topic = path.stem
    words = re.split(r"[-_.\s]+", topic)
    tags = [w for w in words if ws.config.in_vocabulary(w)]
    if not tags:
        tags = [t for t in _FALLBACK_TAGS if ws.config.in_vocabulary(t)][:1]
    title = " ".join(words).strip().capitalize() or topic
    tags_line = "#tags: " + ", ".join(tags) if tags else "#tags:"
    return f"# {title}\n{tags_line}\n> last_verified: {ws.today.isoformat()}\n\n"


def _refresh_verified(text: str, today: str) -> str:
    lines = text.split("\n")
    for index, line in enumerate(lines):
        match = _LAST_VERIFIED.match(line)
        if match:
            lines[index] = f"{match.group(1) or ''}last_verified: {today}"
            return "\n".join(lines)
    # No last_verified line: put one under the title and tags lines.
    at = 2 if len(lines) > 1 and lines[1].startswith("#tags:") else min(1, len(lines))
    lines.insert(at, f"> last_verified: {today}")
    return "\n".join(lines)


def _owner_conflict(ws: Workspace, target: Path, wanted: str) -> tuple[bool, str | None]:
    """(already in target, "file:line" of another WARM file holding the same fact)."""
    in_target = False
    real_target = store.confine(ws.root, target)
    for path in ws.warm_files():
        text = store.read_text(path, root=ws.root)
        for number, line in enumerate(text.split("\n"), start=1):
            if not _same_lesson(line, normalise_lesson(line), wanted):
                continue
            if store.confine(ws.root, path) == real_target:
                in_target = True
            else:
                return in_target, f"{ws.relative(path)}:{number}"
    return in_target, None


def promote(ws: Workspace, text: str, to: Path, yes: bool = False) -> PromoteResult:
    """Copy an approved lesson into a WARM file (PROTOCOL §9); a plan unless *yes*."""
    from memtier.formats.text import fold_line, without_bullet
    from memtier.secrets import redact

    wanted = normalise_lesson(without_bullet(fold_line(text).text))
    if not wanted:
        raise InputError("promote: the lesson text is empty")
    with store.workspace_lock(ws.lock_file):
        source = _find_source(ws, wanted)
        create = _check_target(ws, to)
        present, elsewhere = _owner_conflict(ws, to, wanted)
        if elsewhere is not None:
            # PROTOCOL §1: one home per fact, never two.
            raise RefusedError(
                f"this fact already stands in {elsewhere}; a fact has one home "
                "(update it there instead)"
            )
        lesson = redact(lesson_text(source.text)).text
        flagged = is_candidate_line(source.text)
        result = PromoteResult(
            applied=yes,
            lesson=lesson,
            source=ws.relative(source.path),
            source_line=source.number,
            target=ws.relative(store.confine(ws.root, to)),
            created=create,
            already_present=present,
            flag_removed=flagged,
        )
        if not yes:
            return result
        target = store.confine(ws.root, to)
        if create:
            doc = store.Document(text=_new_procedural(ws, target))
        else:
            doc = store.read_document(target, root=ws.root)
        body = _refresh_verified(doc.text, ws.today.isoformat())
        if not present:
            if body and not body.endswith("\n"):
                body += "\n"
            body += f"- {lesson}\n"
        checkpoint("promote.before-target")
        store.write_text(target, body, root=ws.root, like=doc)
        checkpoint("promote.target-written")
        if flagged:
            # Re-read the source under the lock; the line number was found under it too.
            src_doc = store.read_document(source.path, root=ws.root)
            lines = src_doc.text.split("\n")
            index = source.number - 1
            if index < len(lines) and lines[index] == source.text:
                lines[index] = remove_candidate_flag(lines[index])
                store.write_text(source.path, "\n".join(lines), root=ws.root, like=src_doc)
            checkpoint("promote.flag-removed")
    return result
