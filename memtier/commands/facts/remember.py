"""Facts: `remember`, `replace`, `retire`, `verify` and `get` (PROTOCOL §10).

One home per fact (PROTOCOL §1): `remember` puts a fact in the home of its
kind, refusing a duplicate that already stands in HOT or WARM and a write that
would push MEMORY.md past its cap; `replace` and `retire` change or remove the
one line a text matches and record the old text in the retirement log;
`verify` refreshes last_verified after the facts were checked; `get` reads a
bounded range of numbered lines.

Every write takes the workspace lock, re-reads its file under it, redacts the
text and replaces the file atomically (PROTOCOL §3). `replace_fact`,
`retire_fact`, `verify_files` live in `memtier.commands.facts.edits` and
`get_lines` in `memtier.commands.facts.get`; all are importable from here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from memtier import store
from memtier.commands.facts.edits import (
    ReplaceResult,
    RetireResult,
    VerifiedFile,
    VerifyResult,
    replace_fact,
    retire_fact,
    verify_files,
)
from memtier.commands.facts.files import (
    CleanFact,
    DuplicateFactError,
    FactFile,
    MatchError,
    check_hot_cap,
    clean_fact,
    find_duplicate,
    read_fact_file,
    refresh_dates,
    resolve_fact_file,
)
from memtier.commands.facts.get import GetResult, get_lines
from memtier.errors import InputError, Term
from memtier.formats.fact_text import (
    TOPIC_RE,
    default_topic_tags,
    end_insert_index,
    fact_lines,
    is_fence,
    merge_tags_line,
    normalise_fact,
    section_insert_index,
    topic_title,
    warm_header,
)
from memtier.formats.tags import is_tag_line
from memtier.results import Result, fixed
from memtier.secrets import merge_counts
from memtier.store import checkpoint
from memtier.workspace import (
    HOT_FILE,
    MEMORY_DIR,
    PROCEDURAL_DIR,
    SEMANTIC_DIR,
    Workspace,
    find_day_note,
)

__all__ = [
    "CHECKPOINTS",
    "KIND_HOMES",
    "DuplicateFactError",
    "GetResult",
    "MatchError",
    "RememberResult",
    "ReplaceResult",
    "RetireResult",
    "VerifiedFile",
    "VerifyResult",
    "clean_fact",
    "find_day_note",
    "get_lines",
    "remember",
    "replace_fact",
    "retire_fact",
    "verify_files",
]

# PROTOCOL §10, kinds and homes.
_SEMANTIC = f"{MEMORY_DIR}/{SEMANTIC_DIR}"
_PROCEDURAL = f"{MEMORY_DIR}/{PROCEDURAL_DIR}"
KIND_HOMES: dict[str, str] = {
    "infrastructure": f"{_SEMANTIC}/infrastructure.md",
    "preference": f"{_SEMANTIC}/preferences.md",
    "project": f"{_SEMANTIC}/projects.md",
    "decision": f"{_SEMANTIC}/decisions.md",
    "lesson": f"{_PROCEDURAL}/lessons-learned.md",
    "hot": HOT_FILE,
}
EVENT_KIND = "event"
HOWTO_PREFIX = "howto:"
ROUTING_NOTE = "#routing-note: remembered without --kind or --to; move it to its one home"
CHECKPOINTS: tuple[str, ...] = ("facts.read", "facts.log-written", "facts.written")


@dataclass(frozen=True)
class RememberResult(Result):
    file: str
    line: int
    text: str
    kind: str | None
    created: bool = False
    section: str | None = None
    routing_note: bool = False
    redacted: dict[str, int] = field(default_factory=dict)

    JSON_CONSTANT = fixed(action="remember")

    def text_lines(self) -> Iterable[str]:
        return self.worded_lines(str)

    def worded_lines(self, words: Callable[[Term], str]) -> Iterable[str]:
        first = self.text.split("\n", 1)[0]
        more = self.text.count("\n")
        extra = f" (+{more} more lines)" if more else ""
        yield f"remembered in {self.file}:{self.line}: {first}{extra}"
        if self.created:
            yield f"  created {self.file}"
        if self.routing_note:
            given = f"{words(Term('kind'))} or {words(Term('to'))}"
            yield f"  no {given}: kept in today's note with a #routing-note: line"


def _check_tags(ws: Workspace, tags: Sequence[str]) -> list[str]:
    unknown = [t for t in tags if not ws.config.in_vocabulary(t)]
    if unknown:
        allowed = ", ".join(sorted(ws.config.vocabulary))
        raise InputError(
            (
                Term("tags"),
                f": not in the vocabulary: {', '.join(unknown)}; allowed: {allowed} "
                "(the vocabulary is the person's to change: ",
                Term("tags_add"),
                ")",
            )
        )
    return list(dict.fromkeys(tags))


def _parse_kind(kind: str) -> tuple[str, str | None]:
    """(normalised kind, home relative to the root or None for a day's note)."""
    lowered = kind.strip().lower()
    if lowered in KIND_HOMES:
        return lowered, KIND_HOMES[lowered]
    if lowered == EVENT_KIND:
        return lowered, None
    if lowered.startswith(HOWTO_PREFIX):
        topic = kind.strip()[len(HOWTO_PREFIX) :].strip()
        if topic.endswith(".md"):
            topic = topic[:-3]
        if not TOPIC_RE.match(topic) or any(c in topic for c in "/\\"):
            raise InputError(
                (
                    Term("kind"),
                    f" howto:{topic}: the topic must be a file name "
                    "(letters, digits, '.', '_', '-')",
                )
            )
        return f"{HOWTO_PREFIX}{topic}", f"{_PROCEDURAL}/{topic}.md"
    kinds = ", ".join([*KIND_HOMES, EVENT_KIND, "howto:<topic>"])
    raise InputError((Term("kind"), f" {kind}: unknown kind (expected one of {kinds})"))


def remember(
    ws: Workspace,
    text: str,
    *,
    kind: str | None = None,
    to: str | Path | None = None,
    section: str | None = None,
    tags: Sequence[str] = (),
    force: bool = False,
) -> RememberResult:
    """Add a fact to its one home (PROTOCOL §10); *force* keeps a near-duplicate (v4)."""
    if kind is not None and to is not None:
        raise InputError(("give ", Term("kind"), " or ", Term("to"), ", not both"))
    wanted_tags = _check_tags(ws, tags)
    section_redacted: dict[str, int] = {}
    if section is not None:
        # A heading is text written to disk and echoed back like the fact itself:
        # redacted before and after folding to one line (PROTOCOL §3 v2).
        from memtier.secrets import fold_line

        folded = fold_line(section)
        section, section_redacted = " ".join(folded.text.split()), folded.redacted
        if not section:
            raise InputError((Term("section"), ": the heading is empty"))
    name: str | None = None
    home: str | Path | None = to
    if kind is not None:
        name, home = _parse_kind(kind)
    if home is None:
        if section is not None or wanted_tags:
            raise InputError(
                (
                    Term("section"),
                    " and ",
                    Term("tags"),
                    " apply to HOT and WARM files, not a day's note",
                )
            )
        return _remember_in_note(ws, text, name, force)
    block = bool(name and name.startswith(HOWTO_PREFIX) and "\n" in text.strip())
    clean = clean_fact(text, "remember", block=block, fact=True)
    if section_redacted:
        clean = CleanFact(clean.text, merge_counts(clean.redacted, section_redacted))
    target = resolve_fact_file(ws, home, option=Term("to") if kind is None else Term("kind"))
    with store.workspace_lock(ws.lock_file):
        return _write_fact(ws, target, clean, name, section, wanted_tags, block, force)


def _new_file_text(ws: Workspace, target: FactFile, tags: list[str]) -> str:
    stem = target.path.stem
    if target.rel.startswith(_SEMANTIC + "/") and target.rel not in KIND_HOMES.values():
        raise InputError(
            f"{target.rel}: no such file; only a new memory/procedural/<topic>.md is created"
        )
    chosen = tags or default_topic_tags(stem, ws.config.vocabulary)
    return warm_header(topic_title(stem), chosen, ws.today.isoformat())


def _block_already_there(lines: list[str], header: int, block: str) -> int | None:
    """First line number when every content line of *block* already stands in *lines*."""
    have: dict[str, int] = {}
    for number, line in fact_lines(lines, header):
        have.setdefault(normalise_fact(line), number)
    wanted = [normalise_fact(b) for b in block.split("\n") if b.strip() and not is_fence(b)]
    wanted = [w for w in wanted if w]
    if wanted and all(w in have for w in wanted):
        return have[wanted[0]]
    return None


def _write_fact(
    ws: Workspace,
    target: FactFile,
    clean: CleanFact,
    kind: str | None,
    section: str | None,
    tags: list[str],
    block: bool,
    force: bool = False,
) -> RememberResult:
    from memtier.commands.facts.files import DuplicateFactError as Duplicate

    created = not target.exists
    if created:
        if target.tier == "hot":
            raise InputError(("MEMORY.md: no such file (", Term("session-start"), " creates it)"))
        doc = store.Document(text=_new_file_text(ws, target, tags))
    else:
        doc = read_fact_file(ws, target)
    checkpoint("facts.read")
    lines = doc.text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    header = target.header_lines
    if block:
        at = _block_already_there(lines, header, clean.text)
        if at is not None:
            raise Duplicate(
                (
                    f"this block already stands in {target.rel}:{at}; to change it, ",
                    Term("replace", arg=target.rel),
                ),
                file=target.rel,
                line=at,
                existing=lines[at - 1],
                score=1.0,
            )
    else:
        duplicate = find_duplicate(ws, clean.text, near=not force, forceable=True)
        if duplicate is not None:
            raise duplicate
    if tags and not created and len(lines) > 1 and is_tag_line(lines[1]):
        lines[1] = merge_tags_line(lines[1], tags)
    # Dates first: a last_verified line added under the tags moves every line below it,
    # and the line number reported must be the fact's own.
    refresh_dates(target, lines, ws.today.isoformat(), verified=True)
    new_lines = clean.text.split("\n") if block else [f"- {clean.text}"]
    at_index: int | None = None
    if section is not None:
        at_index = section_insert_index(lines, section, header)
        if at_index is None:
            end = end_insert_index(lines, header)
            heading = ["", f"## {' '.join(section.split())}"]
            lines[end:] = [*heading, *lines[end:]]
            at_index = end + len(heading)
    if at_index is None:
        at_index = end_insert_index(lines, header)
        del lines[at_index:]  # only blank lines: the fact becomes the last line
    if block and at_index > 0 and lines[at_index - 1].strip():
        new_lines = ["", *new_lines]
    lines[at_index:at_index] = new_lines
    first_line = at_index + (2 if new_lines[0] == "" else 1)
    new_text = "\n".join(lines) + "\n"
    check_hot_cap(ws, target, new_text)
    store.write_text(target.path, new_text, root=ws.root, like=doc)
    checkpoint("facts.written")
    return RememberResult(
        file=target.rel,
        line=first_line,
        text="\n".join(new_lines).strip("\n"),
        kind=kind,
        created=created,
        section=section,
        redacted=clean.redacted,
    )


def _remember_in_note(
    ws: Workspace, text: str, kind: str | None, force: bool = False
) -> RememberResult:
    """An event, or a fact without a home: today's note (PROTOCOL §1, §10)."""
    from memtier.commands.rotation import read_note, write_note
    from memtier.formats.episodic import item_paragraph, new_note, place_before_closure

    clean = clean_fact(text, "remember", fact=True)
    routed = kind is None
    addition = f"- {clean.text}\n" + (item_paragraph(ROUTING_NOTE) + "\n" if routed else "")
    day: date = ws.today
    with store.workspace_lock(ws.lock_file):
        if routed:
            # An unfiled fact is still a fact: it must not repeat one with a home.
            duplicate = find_duplicate(ws, clean.text, near=not force, forceable=True)
            if duplicate is not None:
                raise duplicate
        note = read_note(ws, day)
        checkpoint("facts.read")
        if note is None:
            # PROTOCOL §2 (v2): a note memtier creates has its title and a closure block.
            new_text = new_note(day, addition)
        else:
            new_text, _how = place_before_closure(note.text, addition)
        write_note(ws, day, new_text, note)
        checkpoint("facts.written")
    lines = new_text.split("\n")
    written = f"- {clean.text}"
    number = next((i + 1 for i in range(len(lines) - 1, -1, -1) if lines[i] == written), 0)
    return RememberResult(
        file=ws.relative(ws.episodic_note(day)),
        line=number,
        text=f"- {clean.text}",
        kind=kind,
        created=note is None,
        routing_note=routed,
        redacted=clean.redacted,
    )
