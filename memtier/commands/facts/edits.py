"""`replace`, `retire` and `verify` (PROTOCOL §10).

`replace` and `retire` touch exactly one line, the one OLD matches (a
case-sensitive substring), never a header line, and log the old text in
``memory/archive/retired.md`` *before* the file changes: a crash between the
two leaves the fact in both places, never in neither. `verify` sets
last_verified to today after a person or agent has checked a file's facts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from memtier import store
from memtier.commands.facts.files import (
    RETIRED_LOG,
    FactFile,
    clean_fact,
    find_duplicate,
    log_retirement,
    one_match,
    read_fact_file,
    refresh_dates,
    resolve_fact_file,
)
from memtier.errors import InputError, Term
from memtier.formats.fact_text import HOT_HEADER_LINES
from memtier.results import Record, Result, fixed
from memtier.secrets import merge_counts
from memtier.store import checkpoint
from memtier.workspace import Workspace

if TYPE_CHECKING:
    from memtier.secrets import Redaction


@dataclass(frozen=True)
class ReplaceResult(Result):
    file: str
    line: int
    old: str
    new: str
    reason: str
    log: str = RETIRED_LOG
    redacted: dict[str, int] = field(default_factory=dict)

    JSON_CONSTANT = fixed(action="replace")

    def text_lines(self) -> Iterable[str]:
        yield f"replaced {self.file}:{self.line}"
        yield f"  was: {self.old}"
        yield f"  now: {self.new}"
        yield f"  old text logged in {self.log}"


@dataclass(frozen=True)
class RetireResult(Result):
    file: str
    line: int
    old: str
    reason: str
    log: str = RETIRED_LOG
    redacted: dict[str, int] = field(default_factory=dict)

    JSON_CONSTANT = fixed(action="retire")

    def text_lines(self) -> Iterable[str]:
        yield f"retired {self.file}:{self.line}: {self.old}"
        yield f"  logged in {self.log} — {self.reason}"


def _line_prefix(line: str) -> str:
    """The indentation and bullet of a line, kept when its text is replaced."""
    stripped = line.lstrip()
    indent = line[: len(line) - len(stripped)]
    for bullet in ("- [ ] ", "- [x] ", "- ", "* ", "+ "):
        if stripped.startswith(bullet):
            return indent + bullet
    return indent


def _edit_one_line(
    ws: Workspace, target: FactFile, old: str
) -> tuple[store.Document, list[str], int, str]:
    if not target.exists:
        raise InputError((Term("in_file"), f" {target.rel}: no such file"))
    doc = read_fact_file(ws, target)
    checkpoint("facts.read")
    lines = doc.text.split("\n")
    number, line = one_match(target, lines, old)
    return doc, lines, number, line


def replace_fact(
    ws: Workspace, old: str, new: str, *, in_file: str | Path, reason: str | None = None
) -> ReplaceResult:
    """The one line of *in_file* holding *old* becomes *new* (PROTOCOL §10)."""
    clean = clean_fact(new, "replace NEW", fact=True)
    why = clean_fact(reason, Term("reason")) if reason is not None else None
    target = resolve_fact_file(ws, in_file, option=Term("in_file"))
    with store.workspace_lock(ws.lock_file):
        doc, lines, number, line = _edit_one_line(ws, target, old)
        duplicate = find_duplicate(ws, clean.text, skip=(target.path, number))
        if duplicate is not None:
            raise duplicate
        new_line = _line_prefix(line) + clean.text
        reason_text = why.text if why is not None else f"now: {clean.text}"
        log_retirement(ws, target, number, "replaced", line, reason_text)
        checkpoint("facts.log-written")
        lines[number - 1] = new_line
        refresh_dates(target, lines, ws.today.isoformat(), verified=True)
        store.write_text(target.path, "\n".join(lines), root=ws.root, like=doc)
        checkpoint("facts.written")
    was = _shown(line)
    redacted = merge_counts(clean.redacted, why.redacted if why else {}, was.counts)
    return ReplaceResult(
        target.rel, number, was.text, new_line.strip(), reason_text, redacted=redacted
    )


def retire_fact(ws: Workspace, old: str, *, in_file: str | Path, reason: str) -> RetireResult:
    """Remove the one line of *in_file* holding *old*; it goes to the retirement log."""
    why = clean_fact(reason, Term("reason"))
    target = resolve_fact_file(ws, in_file, option=Term("in_file"))
    with store.workspace_lock(ws.lock_file):
        doc, lines, number, line = _edit_one_line(ws, target, old)
        log_retirement(ws, target, number, "retired", line, why.text)
        checkpoint("facts.log-written")
        del lines[number - 1]
        refresh_dates(target, lines, ws.today.isoformat(), verified=False)
        store.write_text(target.path, "\n".join(lines), root=ws.root, like=doc)
        checkpoint("facts.written")
    was = _shown(line)
    redacted = merge_counts(why.redacted, was.counts)
    return RetireResult(target.rel, number, was.text, why.text, redacted=redacted)


def _shown(line: str) -> Redaction:
    """The old line as echoed: a credential that stood in it is not repeated (PROTOCOL §3)."""
    from memtier.secrets import redact

    return redact(line.strip())


# ---------------------------------------------------------------------------
# verify


@dataclass(frozen=True)
class VerifiedFile(Record):
    path: str
    previous: str | None
    verified: str


@dataclass(frozen=True)
class VerifyResult(Result):
    files: tuple[VerifiedFile, ...]
    stale: bool = False

    JSON_CONSTANT = fixed(action="verify")
    JSON_OMIT = frozenset({"stale"})

    def text_lines(self) -> Iterable[str]:
        if not self.files:
            yield "no stale WARM file" if self.stale else "nothing verified"
            return
        for f in self.files:
            was = f.previous if f.previous is not None else "no last_verified line"
            yield f"verified {f.path}: last_verified {f.verified} (was {was})"


def stale_files(ws: Workspace) -> list[Path]:
    """The WARM files health-check's warm.fresh fails (PROTOCOL §6)."""
    from memtier.health.checks import fresh_check, load
    from memtier.health.verdict import FAIL

    found: list[Path] = []
    for path in ws.warm_files():
        text, _problem = load(ws, path)
        if text is not None and fresh_check(ws, ws.relative(path), text).status == FAIL:
            found.append(path)
    return found


def verify_files(
    ws: Workspace, files: Sequence[str | Path] = (), *, stale: bool = False
) -> VerifyResult:
    """Set last_verified to today on *files* (and, with *stale*, every stale WARM file)."""
    if not files and not stale:
        raise InputError(("verify: name the files checked, or give ", Term("stale")))
    today = ws.today.isoformat()
    done: list[VerifiedFile] = []
    with store.workspace_lock(ws.lock_file):
        targets = [resolve_fact_file(ws, f, option="verify") for f in files]
        if stale:
            targets.extend(resolve_fact_file(ws, p, option="verify") for p in stale_files(ws))
        seen: set[Path] = set()
        for target in targets:
            if target.path in seen:
                continue
            seen.add(target.path)
            if not target.exists:
                raise InputError(f"{target.rel}: no such file")
            doc = read_fact_file(ws, target)
            checkpoint("facts.read")
            lines = doc.text.split("\n")
            if target.tier == "hot":
                previous: str | None = lines[2][len("last_verified:") :].strip()
                lines[2] = f"last_verified: {today}"
                lines[HOT_HEADER_LINES - 1] = f"last_updated: {today}"
            else:
                from memtier.formats.fact_text import refresh_last_verified

                previous = refresh_last_verified(lines, today)
            store.write_text(target.path, "\n".join(lines), root=ws.root, like=doc)
            checkpoint("facts.written")
            done.append(VerifiedFile(target.rel, previous, today))
    return VerifyResult(tuple(done), stale=stale)
