"""Sections: the unit a search hit points at (PROTOCOL §9 `search`).

A file is cut into blocks of consecutive non-blank lines; a markdown heading
always starts a new block. A block longer than `MAX_BLOCK_LINES` that is a
list is cut again at each top-level list item, so one fact in a long WARM list
or one event in a busy day is a hit of its own rather than the whole list.
Each section remembers the heading it sits under, whose words count for it too.

Also here: the ``#tags:`` line (PROTOCOL §2) and inline ``#tag`` words, which
`search --tag` filters on.
"""

from __future__ import annotations

import re

from memtier.formats.tags import is_tag_line, parse_tag_line
from memtier.values import NamedTuple

HEADING_RE = re.compile(r"^ {0,3}#{1,6}(?:\s|$)")
_ITEM_RE = re.compile(r"^(?:[-*+]|\d{1,9}[.)])\s")
_INLINE_TAG_RE = re.compile(r"(?<![\w#&/])#([^\W\d_][\w-]*)")
MAX_BLOCK_LINES = 4  # v3: 6 before; neighbours are grouped into one hit anyway (`group`)


class Section(NamedTuple):
    """Lines *start*..*end* (1-based, inclusive) and the heading line above them."""

    start: int
    end: int
    heading: int | None = None


def is_heading(line: str) -> bool:
    return bool(HEADING_RE.match(line))


def _blocks(lines: list[str]) -> list[tuple[int, int]]:
    blocks: list[tuple[int, int]] = []
    start: int | None = None
    for index, line in enumerate(lines):
        if not line.strip():
            if start is not None:
                blocks.append((start, index - 1))
                start = None
            continue
        if start is None:
            start = index
        elif is_heading(line):
            blocks.append((start, index - 1))
            start = index
    if start is not None:
        blocks.append((start, len(lines) - 1))
    return blocks


def _split_list(lines: list[str], start: int, end: int) -> list[tuple[int, int]]:
    """Cut a long block at its top-level list items (a heading line stays with the first)."""
    if end - start + 1 <= MAX_BLOCK_LINES:
        return [(start, end)]
    cuts = [i for i in range(start + 1, end + 1) if _ITEM_RE.match(lines[i])]
    if not cuts:
        return [(start, end)]
    pieces: list[tuple[int, int]] = []
    first = start
    for cut in cuts:
        if cut == start + 1 and is_heading(lines[start]):
            continue  # a heading keeps its first item
        pieces.append((first, cut - 1))
        first = cut
    pieces.append((first, end))
    return pieces


def split_sections(lines: list[str]) -> list[Section]:
    """The sections of a file given as its lines (without newline characters)."""
    sections: list[Section] = []
    heading: int | None = None
    for start, end in _blocks(lines):
        if is_heading(lines[start]):
            heading = start + 1
        for a, b in _split_list(lines, start, end):
            sections.append(Section(start=a + 1, end=b + 1, heading=heading))
    return sections


def tag_line_tags(line: str) -> list[str]:
    """The tokens of a ``#tags:`` line (`memtier.formats.tags`); [] if not one."""
    return list(parse_tag_line(line) or ())


def inline_tags(text: str) -> set[str]:
    """Inline ``#tag`` words in *text* (lowercased); the ``#tags:`` line is not one."""
    found: set[str] = set()
    for line in text.splitlines():
        if is_tag_line(line):
            continue
        found.update(m.group(1).lower() for m in _INLINE_TAG_RE.finditer(line))
    return found
