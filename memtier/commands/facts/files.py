"""What every fact command shares (PROTOCOL §10): which file a fact may live in,
the header lines out of reach, the duplicate check across HOT and WARM, the HOT
cap, the date refresh and the retirement log.

The functions here run under the workspace lock taken by the command that
calls them (`memtier.commands.facts.remember`, `memtier.commands.facts.edits`).
"""

from __future__ import annotations

import re
from pathlib import Path

from memtier import store
from memtier.errors import InputError, Message, RefusedError, Term
from memtier.formats.fact_text import (
    HOT_HEADER_LINES,
    NEAR_DUPLICATE_THRESHOLD,
    TOPIC_RE,
    WARM_HEADER_LINES,
    fold_lines,
    is_fence,
    jaccard,
    normalise_fact,
    refresh_last_verified,
    word_set,
)
from memtier.secrets import merge_counts
from memtier.values import Fields, field
from memtier.workspace import ARCHIVE_DIR, MEMORY_DIR, Workspace, exists_or_link, tier_of

RETIRED_LOG = f"{MEMORY_DIR}/{ARCHIVE_DIR}/retired.md"
_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
RETIRED_TITLE = "# Retired facts"


class CleanFact(Fields):
    text: str
    redacted: dict[str, int] = field(default_factory=dict)


def clean_fact(raw: str, what: str | Term, *, block: bool = False, fact: bool = False) -> CleanFact:
    """Redact, fold to one line (unless *block*), redact again (PROTOCOL §3, v2).

    A leading markdown bullet is dropped so memtier's own ``- `` is not doubled.
    A *block* (a howto from stdin) keeps its lines, code fences intact; only its
    trailing spaces and the blank lines around it go. A *fact* (`remember`, and
    `replace`'s NEW) must hold a letter or a digit as people read it: ``---`` or a
    zero-width space says nothing (PROTOCOL §10, issue 19; exit 2).
    """
    from memtier.secrets import fold_line, redact, without_bullet

    if not block:
        # The one folding function (memtier.secrets.fold_line, PROTOCOL §3 v2).
        one_line = fold_line(raw)
        text = without_bullet(one_line.text).strip()
        if not text:
            raise InputError((what, ": the text is empty"))
        if fact:
            _require_word_character(text, what)
        return CleanFact(text, dict(one_line.redacted))
    first = redact(raw.replace("\0", " "))
    lines = [line.rstrip() for line in first.text.split("\n")]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    second = redact("\n".join(lines))
    if not second.text.strip():
        raise InputError((what, ": the text is empty"))
    if fact:
        _require_word_character(second.text, what)
    return CleanFact(second.text, merge_counts(first.counts, second.counts))


def _require_word_character(text: str, what: str | Term) -> None:
    """PROTOCOL §10 (issue 19): a fact holds at least one letter or digit."""
    from memtier.formats.fact_text import has_word_character

    if not has_word_character(text):
        raise InputError((what, ": the text holds no letter or digit; a fact says something"))


class DuplicateFactError(RefusedError):
    """The fact (or a near-duplicate) already stands in a HOT or WARM file (exit 1)."""

    def __init__(self, message: Message, *, file: str, line: int, existing: str, score: float):
        super().__init__(message)
        self.file = file
        self.line = line
        self.existing = existing
        self.score = score


class MatchError(RefusedError):
    """OLD matched no line, or more than one (exit 1); *matches* lists (line, text)."""

    def __init__(self, message: str, *, matches: tuple[tuple[int, str], ...] = ()):
        super().__init__(message)
        self.matches = matches


class FactFile(Fields):
    """A HOT or WARM file a fact command works on."""

    path: Path  # real path, confined
    rel: str  # relative to the root, forward slashes
    tier: str  # "hot" or "warm"

    @property
    def header_lines(self) -> int:
        # PROTOCOL §10: lines 1–4 of MEMORY.md, 1–3 of a WARM file are out of reach.
        return HOT_HEADER_LINES if self.tier == "hot" else WARM_HEADER_LINES

    @property
    def exists(self) -> bool:
        return self.path.is_file()


def real_root(ws: Workspace) -> Path:
    return store.confine(ws.root, ws.root)


def relative_to_root(ws: Workspace, real: Path) -> str:
    try:
        return real.relative_to(real_root(ws)).as_posix()
    except ValueError:
        return ws.relative(real)


def resolve_fact_file(
    ws: Workspace, given: str | Path, *, option: str | Term = Term("to")
) -> FactFile:
    """Confine *given* (relative to the root, or absolute) to MEMORY.md or a WARM file."""
    candidate = Path(given).expanduser()
    if not candidate.is_absolute():
        candidate = ws.root / candidate
    real = store.confine(ws.root, candidate)
    rel = relative_to_root(ws, real)
    tier = tier_of(rel)
    if tier == "hot":
        return FactFile(real, rel, "hot")
    if tier != "warm" or not TOPIC_RE.match(real.stem):
        raise InputError(
            (
                option,
                f" {rel}: must be MEMORY.md or a WARM file "
                "(memory/semantic/<name>.md, memory/procedural/<topic>.md)",
            )
        )
    if real.is_dir():
        raise InputError((option, f" {rel}: is a directory, expected a file"))
    if real.exists() and not real.is_file():
        raise InputError((option, f" {rel}: not a regular file"))
    return FactFile(real, rel, "warm")


def read_fact_file(ws: Workspace, target: FactFile) -> store.Document:
    """The file as it stands now (call under the lock), header checked."""
    doc = store.read_document(target.path, root=ws.root)
    lines = doc.text.split("\n")
    if target.tier == "hot":
        head = (lines + [""] * HOT_HEADER_LINES)[:HOT_HEADER_LINES]
        if not (head[2].startswith("last_verified:") and head[3].startswith("last_updated:")):
            raise InputError(
                (
                    f"{target.rel}: header invalid (lines 3–4 must be last_verified: and "
                    "last_updated:); see ",
                    Term("health-verbose"),
                )
            )
    else:
        require_warm_header(target.rel, lines)
    return doc


def require_warm_header(rel: str, lines: list[str]) -> None:
    """A malformed header is bad input: no memory file is changed (PROTOCOL §3); a
    command that writes a fact touches only the dates of a header (§10), never repairs it."""
    from memtier.formats.tags import is_tag_line

    if len(lines) < 2 or not is_tag_line(lines[1]):
        raise InputError(
            (f"{rel}: header invalid (line 2 must be #tags: …); see ", Term("health-verbose"))
        )


def refresh_dates(target: FactFile, lines: list[str], today: str, *, verified: bool) -> None:
    """PROTOCOL §10: a write refreshes last_verified (MEMORY.md: and last_updated)."""
    if target.tier == "hot":
        if verified:
            lines[2] = f"last_verified: {today}"
        lines[3] = f"last_updated: {today}"
    elif verified:
        refresh_last_verified(lines, today)


def fact_homes(ws: Workspace) -> list[tuple[Path, int]]:
    """Every HOT and WARM file with the number of its header lines."""
    homes: list[tuple[Path, int]] = []
    if ws.hot.is_file():
        homes.append((ws.hot, HOT_HEADER_LINES))
    homes.extend((p, WARM_HEADER_LINES) for p in ws.warm_files())
    return homes


def find_duplicate(
    ws: Workspace,
    text: str,
    *,
    skip: tuple[Path, int] | None = None,
    near: bool = True,
    forceable: bool = False,
) -> DuplicateFactError | None:
    """The refusal for *text* if it, or a near-duplicate, stands in HOT or WARM (§10).

    A near-duplicate shares most of its words with a line (Jaccard index ≥ 0.85),
    or (v4) restates part of one: every word of *text* is in that line. *skip* is
    (real path, line number) of a line to leave out: the one `replace` is about to
    change. *near* false (``--force``) refuses only the same fact; *forceable*:
    the refusal of a near-duplicate names ``--force`` (the caller takes it).
    """
    wanted = normalise_fact(text)
    if not wanted:
        return None
    words = word_set(wanted)
    floor = min(NEAR_DUPLICATE_THRESHOLD * len(words), len(words))
    # (restates part of it, score, file, line number, line): a restatement first,
    # then the highest overlap (PROTOCOL §10 v4).
    best: tuple[bool, float, str, int, str] | None = None
    for path, header in fact_homes(ws):
        try:
            body = store.read_text(path, root=ws.root)
        except InputError:
            continue  # health-check reports an unreadable file; it holds no fact we can see
        real = store.confine(ws.root, path)
        lines = body.split("\n")
        for index, other in enumerate(fold_lines(body)):
            if index < header or not other or (skip is not None and skip == (real, index + 1)):
                continue
            line = lines[index]
            if line.startswith("#") or is_fence(line):
                continue  # headings and fences are not facts (see fact_lines)
            number = index + 1
            restates = False
            if other == wanted:
                score = 1.0
            elif not near or other.count(" ") + 1 < floor:
                continue  # fewer words than ours and than 0.85 of them: neither rule can hold
            else:
                theirs = word_set(other)
                score = jaccard(words, theirs)
                restates = words <= theirs
            if score < NEAR_DUPLICATE_THRESHOLD and not restates:
                continue
            found = (score == 1.0 or restates, score, relative_to_root(ws, real), number)
            if best is None or found[:2] > best[:2]:
                best = (*found, line.strip())
                if score == 1.0:
                    break
        if best is not None and best[1] == 1.0:
            break
    if best is None:
        return None
    restates, score, rel, number, line = best
    return _duplicate_error(rel, number, line, score, restates, forceable)


def _duplicate_error(
    rel: str, number: int, line: str, score: float, restates: bool, forceable: bool
) -> DuplicateFactError:
    force: tuple[str | Term, ...] = ()
    if score == 1.0:
        what, how = "this fact already stands", ""
    else:
        what = "a near-duplicate stands"
        how = " (every word of it is in that line)" if restates else f" (word overlap {score:.2f})"
        if forceable:
            force = ("; to keep both, ", Term("force"))
    return DuplicateFactError(
        (
            f"{what} in {rel}:{number}{how}: {line}; a fact has one home: to change it, ",
            Term("replace", arg=rel),
            *force,
        ),
        file=rel,
        line=number,
        existing=line,
        score=score,
    )


def check_hot_cap(ws: Workspace, target: FactFile, new_text: str) -> None:
    """PROTOCOL §10: refuse a write that would make MEMORY.md longer than hot_max_lines."""
    from memtier.formats.buffer import count_lines

    if target.tier != "hot":
        return
    count, limit = count_lines(new_text), ws.config.hot_max_lines
    if count > limit:
        raise RefusedError(hot_cap_message(target.rel, count, limit))


def hot_cap_message(rel: str, count: int, limit: int) -> tuple[str | Term, ...]:
    return (
        f"{rel} would have {count} lines, over the {limit}-line limit (hot_max_lines); "
        "retire a line first (",
        Term("retire", arg=rel),
        ") or keep the fact in WARM (",
        Term("remember_warm"),
        ")",
    )


def matching_lines(lines: list[str], old: str, header: int) -> list[tuple[int, str]]:
    """(1-based number, line) of every fact line past the header holding *old*
    (case-sensitive). A heading is never a fact (issue 19): `replace` and `retire`
    do not match it, like the duplicate check does not read it."""
    return [
        (i + 1, line)
        for i, line in enumerate(lines)
        if i >= header and old in line and not is_heading(line)
    ]


def is_heading(line: str) -> bool:
    """A markdown heading (``# T``, ``## S``, up to three spaces before the marks)."""
    return _HEADING.match(line) is not None


def one_match(target: FactFile, lines: list[str], old: str) -> tuple[int, str]:
    """PROTOCOL §10: OLD must match exactly one line; the header is out of reach."""
    from memtier.secrets import redact

    # OLD read with '-' ends with the pipe's line break; no one line holds a break,
    # so breaks at its ends are not part of the text to match (PROTOCOL §3 v2).
    old = old.strip("\r\n")
    if not old.strip():
        raise InputError("OLD: the text is empty")
    found = matching_lines(lines, old, target.header_lines)
    shown = redact(old).text
    if len(found) == 1:
        return found[0]
    in_header = matching_lines(lines[: target.header_lines], old, 0)
    headings = [(i + 1, line) for i, line in enumerate(lines) if old in line and is_heading(line)]
    if not found:
        where = ""
        if in_header:
            where = f" (only header line {in_header[0][0]} does; the header is out of reach)"
        elif headings:
            where = f" (only heading line {headings[0][0]} does; a heading is not a fact)"
        raise MatchError(f"no line of {target.rel} contains '{shown}'{where}")
    listing = "; ".join(f"{n}: {redact(text.strip()).text}" for n, text in found)
    raise MatchError(
        f"'{shown}' matches {len(found)} lines of {target.rel}; give text matching exactly "
        f"one: {listing}",
        matches=tuple(found),
    )


def log_retirement(
    ws: Workspace, target: FactFile, number: int, verb: str, old: str, reason: str
) -> str:
    """Append one line to the retirement log (PROTOCOL §10); returns the line."""
    from memtier.secrets import redact, without_bullet

    log = ws.root / RETIRED_LOG
    # A credential that stood in the file is not copied into the archive, which
    # health-check does not scan (PROTOCOL §3: memtier writes no secret).
    text = redact(without_bullet(old).strip()).text
    entry = f"- {ws.today.isoformat()} {target.rel}:{number} {verb}: {text}"
    entry += f" — {reason}"
    if exists_or_link(log):
        doc = store.read_document(log, root=ws.root)
    else:
        store.make_dirs(log.parent, root=ws.root)
        doc = store.Document(text=RETIRED_TITLE + "\n\n")
    current = doc.text
    if current and not current.endswith("\n"):
        current += "\n"
    store.write_text(log, current + entry + "\n", root=ws.root, like=doc)
    return entry
