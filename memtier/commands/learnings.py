"""The learnings loop: SCRATCH entries, recurrence, candidates, promotion (PROTOCOL §2, §9).

A SCRATCH entry is one line ``- YYYY-MM-DD <text>`` in ``.learnings/ERRORS.md``,
``LEARNINGS.md`` or ``FEATURE_REQUESTS.md``. Only lines starting with ``- ``
are lessons; headings and prose around them are not. Two lines are "the same
lesson" when their normalised texts (`normalise_lesson`) are equal.

- `learn` appends an entry. A lesson has one home: a lesson already standing in
  *another* SCRATCH file is refused; a repeat in the same file is how a
  recurrence is counted, so it is allowed.
- `memtier.commands.recurrence.find_candidates` lists lines flagged ``[PROMOTE-CANDIDATE]``;
  `learn` flags a lesson as soon as it reaches the threshold
  (`memtier.commands.recurrence`).
- `promote` copies an approved lesson into a WARM file, its one home.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from memtier import store
from memtier.commands.recurrence import find_candidates, flag_recurring, read_scratch, scratch_paths
from memtier.errors import InputError, RefusedError, Term
from memtier.formats.lessons import (
    CANDIDATE_FLAG,
    PIN_FLAG,
    is_candidate_line,
    is_lesson_line,
    lesson_text,
    mark_promoted,
    normalise_lesson,
)
from memtier.results import NO_REDACTIONS, Result, fixed
from memtier.store import checkpoint
from memtier.values import Fields
from memtier.workspace import SEMANTIC_DIR, Workspace, exists_or_link, tier_of

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


class LessonLine(Fields):
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


# ---------------------------------------------------------------------------
# learn


class LearnResult(Result, Fields):
    file: str
    line: int
    entry: str
    occurrences: int
    redacted: Mapping[str, int] = NO_REDACTIONS
    flagged: str | None = None  # "file:line" flagged [PROMOTE-CANDIDATE] by this call

    JSON_NAMES = fixed(entry="text")

    def text_lines(self) -> Iterable[str]:
        return self.worded_lines(str)

    def worded_lines(self, words: Callable[[Term], str]) -> Iterable[str]:
        yield f"added to {self.file}:{self.line}: {self.entry}"
        if self.occurrences > 1:
            yield f"  seen {self.occurrences} times in {self.file}"
        if self.flagged:
            yield (
                f"  recurring: flagged {CANDIDATE_FLAG} at {self.flagged}; "
                f"for the person to decide: {words(Term('candidates'))}"
            )


def _clean_lesson(text: str) -> tuple[str, dict[str, int]]:
    """Redacted before and after folding (PROTOCOL §3, v2); a leading bullet dropped."""
    from memtier.commands.facts.files import clean_fact

    try:
        clean = clean_fact(text, "learn")
    except InputError:
        raise InputError("learn: the lesson text is empty") from None
    return clean.text, clean.redacted


def learn(ws: Workspace, kind: str, text: str, pin: bool = False) -> LearnResult:
    """Append ``- YYYY-MM-DD <text>`` to the SCRATCH file for *kind* (PROTOCOL §9).

    A lesson that reaches ``recurrence_threshold`` with this entry is flagged
    ``[PROMOTE-CANDIDATE]`` at once (PROTOCOL §8 step 7, run early).
    """
    if kind not in LEARN_KINDS:
        raise InputError(f"learn: unknown kind '{kind}' (expected error, learning or feature)")
    body, redacted = _clean_lesson(text)
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
        if exists_or_link(target):
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
        flagged = [f for f in flag_recurring(ws) if f.lesson == normalised]
    lines = new_text.split("\n")
    line_number = len(lines) - 1
    occurrences = sum(1 for f in lesson_lines(target, new_text) if f.normalised == normalised)
    where = f"{flagged[0].file}:{flagged[0].line}" if flagged else None
    return LearnResult(ws.relative(target), line_number, entry, occurrences, redacted, where)


# ---------------------------------------------------------------------------
# promote

_TOPIC_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\.md$")


class PromoteResult(Result, Fields):
    applied: bool
    lesson: str
    source: str
    source_line: int
    target: str
    created: bool
    already_present: bool
    flag_removed: bool

    JSON_OMIT = frozenset({"source", "source_line"})

    def json_extra(self) -> Mapping[str, Any]:
        return {"source": {"file": self.source, "line": self.source_line}}

    def text_lines(self) -> Iterable[str]:
        yield from self.plan_lines()
        if not self.applied:
            yield "Nothing changed. Run again with --yes to apply."

    def plan_lines(self) -> Iterable[str]:
        """What was (or would be) done, without the next step, which each face words."""
        verb = "Promoted" if self.applied else "Would promote"
        yield f"{verb}: {self.lesson}"
        yield f"  from {self.source}:{self.source_line}"
        where = " (new file)" if self.created else ""
        if self.already_present:
            where = " (already there; only last_verified is refreshed)"
        yield f"  to   {self.target}{where}"
        if self.flag_removed:
            yield f"  flag {CANDIDATE_FLAG} {'removed' if self.applied else 'to be removed'}"


def _lessons(ws: Workspace) -> list[LessonLine]:
    found: list[LessonLine] = []
    for path in scratch_paths(ws):
        found.extend(lesson_lines(path, read_scratch(ws, path)))
    return found


def _same_lesson(line: str, normalised: str, wanted: str) -> bool:
    """*wanted* comes redacted (PROTOCOL §3 v2); a line a person wrote may still hold
    the secret, so it is compared redacted too when *wanted* has a placeholder."""
    if normalised == wanted:
        return True
    if "redacted" not in wanted:  # a placeholder, as normalise_lesson spells it
        return False
    from memtier.secrets import redact

    return normalise_lesson(redact(line).text) == wanted


def _find_source(ws: Workspace, ref: str) -> LessonLine:
    """The lesson *ref* names: a candidate's number as `candidates` lists it, the
    lesson's text (normalised), or a prefix of exactly one lesson's text."""
    from memtier.commands.facts.files import MatchError
    from memtier.formats.numbers import is_number, parse_int

    if is_number(ref):
        number = parse_int(ref, "promote: candidate number")
        candidates = find_candidates(ws).candidates
        if not 1 <= number <= len(candidates):
            raise InputError(
                (
                    f"promote: no candidate number {number} (",
                    Term("candidates"),
                    f" lists {len(candidates)})",
                )
            )
        chosen = candidates[number - 1]
        path = ws.root / chosen.file
        return LessonLine(path, chosen.line, chosen.entry, normalise_lesson(chosen.entry))
    from memtier.secrets import fold_line

    wanted = normalise_lesson(fold_line(ref).text)
    if not wanted:
        raise InputError("promote: the lesson text is empty")
    lessons = _lessons(ws)
    matching = [f for f in lessons if _same_lesson(f.text, f.normalised, wanted)]
    if not matching:
        matching = [f for f in lessons if f.normalised.startswith(wanted + " ")]
        distinct = {f.normalised: f for f in matching}
        if len(distinct) > 1:
            listing = "; ".join(
                f"{ws.relative(f.path)}:{f.number}: {f.text}" for f in distinct.values()
            )
            raise MatchError(
                f"'{ref.strip()}' starts {len(distinct)} different lessons; give more of it: "
                f"{listing}",
                matches=tuple((f.number, f.text) for f in distinct.values()),
            )
    if not matching:
        raise InputError(
            ("no lesson in .learnings/ matches that text (see ", Term("candidates"), ")")
        )
    flagged = [f for f in matching if is_candidate_line(f.text)]
    return (flagged or matching)[0]


def _check_target(ws: Workspace, target: Path) -> bool:
    """Confine --to to a WARM file; True when it is a new procedural file to create."""
    real = store.confine(ws.root, target)
    root = store.confine(ws.root, ws.root)
    rel = real.relative_to(root)
    parts = rel.parts
    if tier_of(rel.as_posix()) != "warm" or not _TOPIC_NAME.match(parts[-1]):
        raise InputError(
            (
                Term("to"),
                f" {rel.as_posix()}: must be a WARM file, memory/semantic/<name>.md "
                "or memory/procedural/<topic>.md",
            )
        )
    if real.is_dir():
        raise InputError((Term("to"), f" {rel.as_posix()}: is a directory, expected a file"))
    if real.exists():
        return False
    if parts[1] == SEMANTIC_DIR:
        raise InputError(
            (
                Term("to"),
                f" {rel.as_posix()}: no such file; only a new memory/procedural/<topic>.md "
                "may be created",
            )
        )
    return True


def _new_procedural(ws: Workspace, path: Path) -> str:
    from memtier.formats.fact_text import default_topic_tags, topic_title, warm_header

    tags = default_topic_tags(path.stem, ws.config.vocabulary)
    return warm_header(topic_title(path.stem), tags, ws.today.isoformat())


def _already_in_target(ws: Workspace, target: Path, lesson: str) -> bool:
    """True when *lesson* stands in *target* already; refused when it, or a
    near-duplicate, stands anywhere else in HOT or WARM (PROTOCOL §1, §10)."""
    from memtier.commands.facts.files import find_duplicate

    duplicate = find_duplicate(ws, lesson)
    if duplicate is None:
        return False
    real_target = store.confine(ws.root, target)
    here = store.confine(ws.root, ws.root / duplicate.file) == real_target
    if here and duplicate.score == 1.0:
        return True
    raise duplicate


def promote(
    ws: Workspace, text: str, to: Path, yes: bool = False, as_text: str | None = None
) -> PromoteResult:
    """Copy an approved lesson into a WARM file (PROTOCOL §9); a plan unless *yes*.

    *text* is a candidate's number, the lesson's text or a unique prefix of it;
    *as_text* writes the lesson as the person phrased it (advice, not the raw
    error line).
    """
    from memtier.commands.facts.files import clean_fact, require_warm_header
    from memtier.formats.fact_text import refresh_last_verified
    from memtier.secrets import redact

    rewritten = clean_fact(as_text, Term("as_text")) if as_text is not None else None
    with store.workspace_lock(ws.lock_file):
        source = _find_source(ws, text)
        create = _check_target(ws, to)
        target = store.confine(ws.root, to)
        if create:
            doc = store.Document(text=_new_procedural(ws, target))
        else:
            doc = store.read_document(target, root=ws.root)
            require_warm_header(ws.relative(target), doc.text.split("\n"))
        raw = redact(lesson_text(source.text)).text
        lesson = rewritten.text if rewritten is not None else raw
        present = _already_in_target(ws, to, lesson)
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
        lines = doc.text.split("\n")
        refresh_last_verified(lines, ws.today.isoformat())
        body = "\n".join(lines)
        if not present:
            if body and not body.endswith("\n"):
                body += "\n"
            body += f"- {lesson}\n"
        checkpoint("promote.before-target")
        store.write_text(target, body, root=ws.root, like=doc)
        checkpoint("promote.target-written")
        # The source line says it was promoted, flagged or not, so the weekly review
        # never flags it again, whatever words the WARM file holds (``--as``).
        # Re-read the source under the lock; the line number was found under it too.
        src_doc = store.read_document(source.path, root=ws.root)
        lines = src_doc.text.split("\n")
        index = source.number - 1
        if index < len(lines) and lines[index] == source.text:
            marked = mark_promoted(lines[index])
            if marked != lines[index]:
                lines[index] = marked
                store.write_text(source.path, "\n".join(lines), root=ws.root, like=src_doc)
        checkpoint("promote.flag-removed")
    return result
