"""Episodic notes and their closure block (PROTOCOL §2): pure functions, no I/O.

A note ``memory/episodic/YYYY-MM-DD.md`` is free markdown that ends with a
closure block, its last four lines, with no blank line after them::

    Updated: 2026-11-30
    Decisions: moved qdrant to host b
    Signal: apt mirror is the slow step in every rebuild
    Open: none

Each field needs non-empty text after its colon. Text added to a closed note
goes *before* the block, so the block stays last.

Line endings: like `memtier.formats.buffer`, these functions take ``\\n`` text; the
store turns a note's CRLF endings into ``\\n`` on reading and restores them on
writing (``write_text(..., like=doc)``). A missing final newline is accepted
on reading and always added on writing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date, datetime

from memtier.clock import parse_day
from memtier.values import Fields

CLOSURE_FIELDS: tuple[str, ...] = ("Updated:", "Decisions:", "Signal:", "Open:")
CLOSURE_LINES = len(CLOSURE_FIELDS)


class ClosureBlock(Fields):
    """The four closure fields, as text after ``<Field>:`` without surrounding spaces."""

    updated: str
    decisions: str
    signal: str
    open: str

    def lines(self) -> list[str]:
        return [
            f"Updated: {self.updated}",
            f"Decisions: {self.decisions}",
            f"Signal: {self.signal}",
            f"Open: {self.open}",
        ]

    def render(self) -> str:
        return "\n".join(self.lines()) + "\n"


def _content_lines(text: str) -> list[str]:
    """The note's lines; the newline that ends the last line does not start another."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def closure_problem(text: str) -> str | None:
    """Why the last four lines are not a valid closure block (PROTOCOL §2), or None."""
    lines = _content_lines(text)
    if not lines:
        return "note is empty"
    if lines[-1].strip() == "":
        return "blank line after the closure block"
    if len(lines) < CLOSURE_LINES:
        return "fewer than four lines"
    first = len(lines) - CLOSURE_LINES + 1
    for number, (line, name) in enumerate(
        zip(lines[-CLOSURE_LINES:], CLOSURE_FIELDS, strict=True), start=first
    ):
        if not line.startswith(name):
            return f"line {number}: expected '{name}', found {shorten(line)!r}"
        if not line[len(name) :].strip():
            return f"line {number}: '{name}' has no text"
    # PROTOCOL §2 (v2, compat): `Updated:` is followed by a date and nothing else.
    if parse_day(lines[-CLOSURE_LINES][len("Updated:") :].strip()) is None:
        return f"line {first}: 'Updated:' must be followed by a date YYYY-MM-DD"
    return None


def shorten(text: str, limit: int = 48) -> str:
    """*text* cut at a word boundary within *limit* characters, marked with ``…``."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut.strip():
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ;,") + "…"


def displaced_closure(text: str) -> tuple[int, str] | None:
    """(line number, text) of the first line after a valid closure block that is no
    longer last (PROTOCOL §4 v3: a person appended text after it), or None."""
    if closure_problem(text) is None:
        return None
    found = locate_closure(text)
    if found is None:
        return None
    before, block, after = found
    for offset, line in enumerate(_content_lines(after)):
        if line.strip():
            number = before.count("\n") + block.count("\n") + offset + 1
            return number, line
    return None


def _parse_block(lines: list[str]) -> ClosureBlock:
    values = [line[len(name) :].strip() for line, name in zip(lines, CLOSURE_FIELDS, strict=True)]
    return ClosureBlock(*values)


def split_closure(text: str) -> tuple[str, ClosureBlock | None]:
    """(text before the final closure block, the block), or (text, None) without one."""
    if closure_problem(text) is not None:
        return text, None
    lines = _content_lines(text)
    before = lines[:-CLOSURE_LINES]
    head = "\n".join(before) + "\n" if before else ""
    return head, _parse_block(lines[-CLOSURE_LINES:])


def _raw_closure(text: str) -> tuple[str, str] | None:
    """(text before, the block's four lines exactly as written) when the note is closed."""
    if closure_problem(text) is not None:
        return None
    lines = _content_lines(text)
    before = lines[:-CLOSURE_LINES]
    head = "\n".join(before) + "\n" if before else ""
    return head, "\n".join(lines[-CLOSURE_LINES:]) + "\n"


def _ensure_newline(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"


# ---------------------------------------------------------------------------
# a note renders as it reads (PROTOCOL §2 v4)

_LIST_ITEM_RE = re.compile(r"^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")


def _is_list_item(line: str) -> bool:
    return _LIST_ITEM_RE.match(line) is not None


def joined(head: str, addition: str) -> str:
    """*head* then *addition*, a blank line between them where a CommonMark reader
    would otherwise read them as one (PROTOCOL §2 v4).

    Two text lines side by side are one paragraph, and a line after a list item
    is part of that item; so the two parts are kept apart by one blank line
    unless one of them is empty, already ends or starts with a blank line, or
    both meet as items of one list (which stays a tight list).
    """
    head = _ensure_newline(head)
    addition = _ensure_newline(addition)
    if not head.strip() or not addition.strip():
        return head + addition
    last = _content_lines(head)[-1]
    first = addition.split("\n", 1)[0]
    if not last.strip() or not first.strip():
        return head + addition
    if _is_list_item(last) and _is_list_item(first) and not first.startswith(" "):
        return head + addition
    return head + "\n" + addition


def joined_all(parts: Iterable[str]) -> str:
    """The *parts* joined as `joined` joins two, each kept apart from its neighbours;
    linear in the whole (an import joins thousands of items into one note)."""
    out: list[str] = []
    last = ""  # the last line written so far, or "" for none or a blank one
    for part in parts:
        part = _ensure_newline(part)
        if not part:
            continue
        if not part.strip():
            out.append(part)
            last = ""
            continue
        if last:
            out.append(joined(last + "\n", part)[len(last) + 1 :])
        else:
            out.append(part)
        last = _content_lines(part)[-1].strip() and _content_lines(part)[-1]
    return "".join(out)


def item_paragraph(line: str) -> str:
    """*line* as a paragraph of the list item above it (a blank line, then indented):
    a ``#routing-note:`` stays with the bullet it explains, never runs into the
    item's text, and the item never swallows the lines after it (§2 v4)."""
    return "\n  " + line


def closed_with(head: str, block: str) -> str:
    """*head*, one blank line, then the closure *block*: in any CommonMark preview the
    block is never part of a list item or of the paragraph above it (§2 v4)."""
    head = _ensure_newline(head)
    if head.strip() and _content_lines(head)[-1].strip():
        head += "\n"
    return head + block


def insert_before_closure(note: str, addition: str) -> str:
    """*addition* before a valid final closure block (kept byte for byte), else at the end."""
    closed = _raw_closure(note)
    if closed is None:
        return joined(note, addition)
    head, block = closed
    return closed_with(joined(head, addition), block)


def replace_closure(note: str, block: ClosureBlock) -> str:
    """*block* in place of a valid final closure block, or appended after the text."""
    closed = _raw_closure(note)
    head = closed[0] if closed is not None else _ensure_newline(note)
    return closed_with(head, block.render())


def contains_lines(note: str, chunk: str) -> bool:
    """True when *chunk* (whole lines) stands verbatim in *note*, starting at a line start.

    A text test for importers; rotation and recovery never use it (they go by
    rotation ids, PROTOCOL §4 step 4 v2).
    """
    chunk = _ensure_newline(chunk)
    if not chunk:
        return True
    return ("\n" + chunk) in ("\n" + _ensure_newline(note))


def _block_at(lines: list[str], start: int) -> bool:
    chunk = lines[start : start + CLOSURE_LINES]
    return len(chunk) == CLOSURE_LINES and closure_problem("\n".join(chunk)) is None


def locate_closure(text: str) -> tuple[str, str, str] | None:
    """(text before, the last closure block as written, text after it), or None.

    Unlike `split_closure` this also finds a block that text follows, which a
    rotation must put back at the end (PROTOCOL §5 step 4, the rebuild path).
    """
    lines = _content_lines(text)
    for start in range(len(lines) - CLOSURE_LINES, -1, -1):
        if _block_at(lines, start):
            before, after = lines[:start], lines[start + CLOSURE_LINES :]
            block = lines[start : start + CLOSURE_LINES]
            return (
                "".join(line + "\n" for line in before),
                "".join(line + "\n" for line in block),
                "".join(line + "\n" for line in after),
            )
    return None


def place_before_closure(note: str, addition: str) -> tuple[str, str]:
    """Add *addition* so that a closure block stays the note's last four lines.

    Returns the new text and how it was placed (PROTOCOL §5 step 4):
    ``"inserted"`` before a final block; ``"rebuilt"`` when the note has a block
    that text follows (the terminal ``Open:`` check fails), reassembled as the
    other text + *addition* + the original block; ``"appended"`` at the end of
    a note without any block. No line is lost or repeated in any case.
    """
    addition = _ensure_newline(addition)
    if closure_problem(note) is None:
        inserted = insert_before_closure(note, addition)
        # The terminal check of PROTOCOL §5 step 4: the last line must be `Open:`.
        if _content_lines(inserted)[-1].startswith("Open:"):
            return inserted, "inserted"
    found = locate_closure(note)
    if found is None:
        return joined(note, addition), "appended"
    before, block, after = found
    return closed_with(joined_all((before, after, addition)), block), "rebuilt"


# ---------------------------------------------------------------------------
# notes memtier creates, and merged closure blocks (PROTOCOL §2 v2)

NONE = "none"
ITEM_SEPARATOR = "; "
# What memtier writes in `Decisions:` when it closes a note no one has closed:
# placeholders like `none`, which give way to real decisions (PROTOCOL §2 v4).
ROTATED = "working buffer rotated"
RECOVERED = "stale working buffer recovered"
PLACEHOLDER_DECISIONS = frozenset({ROTATED, RECOVERED})


def note_title(day: date) -> str:
    """The first line of a note memtier creates (PROTOCOL §2 v2)."""
    return f"# {day.isoformat()}\n"


def open_closure(day: date) -> ClosureBlock:
    """The block a note memtier creates ends with until the day adds to it."""
    return ClosureBlock(day.isoformat(), NONE, NONE, NONE)


def new_note(
    day: date, addition: str, block: ClosureBlock | None = None, updated: date | None = None
) -> str:
    """A note memtier creates: title, blank line, *addition*, closure block last.

    Without *block* the note is closed by ``none`` fields dated *updated* (the
    day of the write, which differs from *day* for ``--date``).
    """
    closure = block or open_closure(updated or day)
    return closed_with(note_title(day) + "\n" + _ensure_newline(addition), closure.render())


def _items(text: str) -> list[str]:
    """The items of a closure field: ``; `` separated, ``none`` and blanks left out."""
    items = (item.strip() for item in text.split(ITEM_SEPARATOR))
    return [item for item in items if item and item.casefold() != NONE]


# What may follow an item that another item extends: "watch the backup (sftp
# timeout)" extends "watch the backup", "watch the backups" does not.
_EXTENSION_START = frozenset(" \t(:,—")


def _extends(longer: str, shorter: str) -> bool:
    """True when *longer* is *shorter* with more words after it (case folded)."""
    a, b = longer.casefold(), shorter.casefold()
    return len(a) > len(b) and a.startswith(b) and a[len(b)] in _EXTENSION_START


def _merge_field(old: str, new: str) -> str:
    """The union of the items of *old* and *new*, old first (PROTOCOL §2 v2).

    An item that only adds detail to another (``watch the backup (sftp
    timeout)`` after ``watch the backup``) takes that item's place, and a shorter
    form of an item already there adds nothing: a task a rotation moved and the
    same task as the agent closes the day with are one item, not two (§4 v3).
    """
    merged: list[str] = []
    for item in [*_items(old), *_items(new)]:
        if any(item.casefold() == m.casefold() or _extends(m, item) for m in merged):
            continue
        wider = [i for i, m in enumerate(merged) if _extends(item, m)]
        if wider:
            merged[wider[0]] = item
            merged = [m for i, m in enumerate(merged) if i not in wider[1:]]
        else:
            merged.append(item)
    return ITEM_SEPARATOR.join(merged) if merged else NONE


def _without_placeholders(decisions: str) -> str:
    """*decisions* without memtier's placeholders once a real decision stands (§2 v4)."""
    items = _items(decisions)
    real = [item for item in items if item.casefold() not in PLACEHOLDER_DECISIONS]
    if not real or len(real) == len(items):
        return decisions
    return ITEM_SEPARATOR.join(real)


def merge_closure(
    old: ClosureBlock | None, new: ClosureBlock, done: Iterable[str] = ()
) -> ClosureBlock:
    """PROTOCOL §2 (v2): *new* keeps every item of *old*; ``Updated:`` is *new*'s date.

    Items are compared whole, so nothing is cut and no item is repeated; ``none``
    gives way to real text. Only ``episodic close --replace`` replaces a block.
    *done*: tasks the rotated buffer marks ``[done]``; an open item that a
    mid-session rotation moved and that is finished since leaves ``Open:``.
    """
    if old is None:
        return new
    finished = {item.casefold() for item in done}
    kept = [item for item in _items(old.open) if item.casefold() not in finished]
    return new.copy_with(
        decisions=_without_placeholders(_merge_field(old.decisions, new.decisions)),
        signal=_merge_field(old.signal, new.signal),
        open=_merge_field(ITEM_SEPARATOR.join(kept), new.open),
    )


def merge_into_note(note: str, new: ClosureBlock) -> str:
    """*note* with its final closure block merged with *new*, or *new* appended."""
    _head, old = split_closure(note)
    return replace_closure(note, merge_closure(old, new))


def last_closure(note: str) -> ClosureBlock | None:
    """The note's last closure block, final or followed by text (`locate_closure`)."""
    found = locate_closure(note)
    return None if found is None else _parse_block(_content_lines(found[1]))


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()


def open_items_named(block: ClosureBlock, wanted: str) -> list[str]:
    """The ``Open:`` items *wanted* names (PROTOCOL §14 v4, ``episodic close --drop``):
    the one equal to it, case and runs of blanks aside; else every item that holds it
    (a conflict's id names its item)."""
    items = _items(block.open)
    key = _folded(wanted)
    exact = [item for item in items if _folded(item) == key]
    return exact[:1] or [item for item in items if key and key in _folded(item)]


def without_open_item(block: ClosureBlock, item: str, updated: str) -> ClosureBlock:
    """*block* without the ``Open:`` item *item* (``none`` when it was the last one)."""
    kept = [other for other in _items(block.open) if other != item]
    return ClosureBlock(updated, block.decisions, block.signal, ITEM_SEPARATOR.join(kept) or NONE)


def close_note(
    note: str,
    block: ClosureBlock,
    addition: str = "",
    *,
    replace: bool = False,
    done: Iterable[str] = (),
) -> tuple[str, str]:
    """*note* with *addition* before its closure block, that block merged with *block*.

    The one way every writer closes a note (PROTOCOL §2 v2, §4 v3, §5 step 4):
    a final block is merged (``"inserted"``); a valid block that text follows
    (a person's line after it) is repaired: the text after it moves before it
    and the blocks merge (``"rebuilt"``); a note without one gets *block* at
    the end (``"appended"``). With *replace* (``episodic close --replace``)
    *block* is written as given. No line of the note is lost or repeated.
    """
    addition = _ensure_newline(addition)
    old: ClosureBlock | None = None
    closed = _raw_closure(note)
    if closed is not None:
        head, raw = closed
        old, placement = _parse_block(_content_lines(raw)), "inserted"
    else:
        found = locate_closure(note)
        if found is None:
            head, placement = _ensure_newline(note), "appended"
        else:
            before, raw, after = found
            # Blank lines that trailed the old block end nothing any more.
            rest = after.rstrip("\n") + "\n" if after.strip() else ""
            head, placement = joined(before, rest), "rebuilt"
            old = _parse_block(_content_lines(raw))
    final = block if replace or old is None else merge_closure(old, block, done)
    return closed_with(joined(head, addition), final.render()), placement


# ---------------------------------------------------------------------------
# rotation identity (PROTOCOL §4 step 4, §5 step 4, v2)

ROTATION_HEADING = "working buffer"
_ID_RE = re.compile(r"\((r-[0-9a-f]{8})\)\s*$")


def rotation_id(snapshot: str, occurrence: int = 1, host: str = "") -> str:
    """The id of a buffer snapshot, header included: ``r-`` and 8 hex digits.

    Two buffers with the same body differ in their header (``created``,
    ``last_active``), so their rotations get different ids; a rerun of one
    rotation after a crash computes the same id again. Two snapshots that are
    identical to the second (a fixed clock, a script) are told apart by their
    *occurrence*: the second one rotated into the same notes gets id 2.
    """
    salt = "" if occurrence == 1 else f"\0{occurrence}"
    if host:  # PROTOCOL §14: with sync on, identical snapshots of two hosts differ
        salt += f"\0host:{host}"
    import hashlib  # here: loading OpenSSL costs ~2 ms, and most calls never rotate

    digest = hashlib.sha256((snapshot + salt).encode("utf-8", "surrogatepass")).hexdigest()
    return f"r-{digest[:8]}"


def snapshot_ids(snapshot: str, known: set[str], host: str = "") -> list[str]:
    """The ids of *snapshot*'s occurrences that stand among *known*, oldest first."""
    found: list[str] = []
    for occurrence in range(1, len(known) + 2):
        rid = rotation_id(snapshot, occurrence, host)
        if rid not in known:
            break
        found.append(rid)
    return found


def next_rotation_id(snapshot: str, known: set[str], host: str = "") -> str:
    """The id a new rotation of *snapshot* takes: the first occurrence not in *known*."""
    return rotation_id(snapshot, len(snapshot_ids(snapshot, known, host)) + 1, host)


BLOCK_LEVEL = 3  # every block memtier writes into a note: `###`, its parts `####` (§2 v4)


def block_heading(now: datetime, what: str, rid: str) -> str:
    """``### HH:MM <what> (<id>)``: the one heading of every block memtier writes into a
    note (rotation, stale recovery, sync conflict; PROTOCOL §2 v4)."""
    return f"{'#' * BLOCK_LEVEL} {now.strftime('%H:%M')} {what} ({rid})\n"


def rotation_heading(now: datetime, rid: str) -> str:
    """``### 14:05 working buffer (r-3f9a1c2e)``: when a block was written, by which snapshot."""
    return block_heading(now, ROTATION_HEADING, rid)


_HEADING_RE = re.compile(r"^(#{1,6})(?=\s)")
_FENCE_RE = re.compile(r"^\s*(```|~~~)")


def _marks(line: str) -> int:
    return len(line) - len(line.lstrip("#"))


def nested_body(body: str, level: int) -> str:
    """*body* with its markdown headings moved below a heading of *level*.

    A rotated buffer's ``## Notes`` stands under ``### 14:05 working buffer``
    (level 3) and becomes ``#### Notes``, so the note's outline nests. Lines
    inside code fences are left alone (a shell comment is not a heading); no
    heading goes deeper than level 6.
    """
    lines = body.split("\n")
    fenced = False
    headings: list[int] = []
    for index, line in enumerate(lines):
        if _FENCE_RE.match(line):
            fenced = not fenced
        elif not fenced and _HEADING_RE.match(line):
            headings.append(index)
    if not headings:
        return body
    top = min(_marks(lines[i]) for i in headings)
    shift = level + 1 - top
    if shift <= 0:
        return body
    for index in headings:
        marks = _marks(lines[index])
        lines[index] = "#" * min(marks + shift, 6) + lines[index][marks:]
    return "\n".join(lines)


def line_ids(note: str) -> set[str]:
    """Every rotation id that ends a heading or ``[RECOVERED: STALE]`` line of *note*."""
    found: set[str] = set()
    if "(r-" not in note:
        return found
    for line in note.split("\n"):
        if line.startswith(("### ", "[RECOVERED: STALE]")):
            match = _ID_RE.search(line)
            if match:
                found.add(match.group(1))
    return found


def has_rotation_id(note: str, rid: str) -> bool:
    """True when a block of *note* was written by the snapshot *rid*."""
    return f"({rid})" in note and rid in line_ids(note)


def legacy_body_found(note: str, body: str) -> bool:
    """An older memtier's finished rotation of *body*: it stands whole in *note*, line
    aligned, and no id line heads it (a block this version wrote always has one).

    Used only for a ``.pending`` that an older version left (docs/DECISIONS.md).
    """
    body = _ensure_newline(body)
    if not body.strip():
        return False
    text = "\n" + _ensure_newline(note)
    start = text.find("\n" + body)
    while start != -1:
        previous = text[: start + 1].rstrip("\n").rsplit("\n", 1)[-1]
        if not _ID_RE.search(previous):
            return True
        start = text.find("\n" + body, start + 1)
    return False
