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

from dataclasses import dataclass

CLOSURE_FIELDS: tuple[str, ...] = ("Updated:", "Decisions:", "Signal:", "Open:")
CLOSURE_LINES = len(CLOSURE_FIELDS)


@dataclass(frozen=True)
class ClosureBlock:
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
    for line, name in zip(lines[-CLOSURE_LINES:], CLOSURE_FIELDS, strict=True):
        if not line.startswith(name):
            return f"expected a line starting with '{name}', found {line[:40]!r}"
        if not line[len(name) :].strip():
            return f"'{name}' has no text"
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


def insert_before_closure(note: str, addition: str) -> str:
    """*addition* before a valid final closure block (kept byte for byte), else at the end."""
    addition = _ensure_newline(addition)
    closed = _raw_closure(note)
    if closed is None:
        return _ensure_newline(note) + addition
    head, block = closed
    return head + addition + block


def replace_closure(note: str, block: ClosureBlock) -> str:
    """*block* in place of a valid final closure block, or appended after the text."""
    closed = _raw_closure(note)
    head = closed[0] if closed is not None else _ensure_newline(note)
    return head + block.render()


def contains_lines(note: str, chunk: str) -> bool:
    """True when *chunk* (whole lines) stands verbatim in *note*, starting at a line start.

    This is the "already stands verbatim" test of PROTOCOL §4 step 4 and §5 step 4.
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
        return _ensure_newline(note) + addition, "appended"
    before, block, after = found
    return before + after + addition + block, "rebuilt"
