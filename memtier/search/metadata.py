"""Metadata is not content (PROTOCOL §9 v4 `search`).

Some lines say what a file or a section is, not what the memory holds. A
match there is never a hit's line; it still scores, as the file's or the
section's evidence, and a file found by its labels alone shows its first
content line and ranks below every hit with a content match (`rank`):

- a file's title (line 1, ``# Title``) and its ``#tags:`` line, and a heading
  (``##``, ``###``…): they score as before (`scoring.TITLE_WEIGHT`; a heading
  and the tags line also count for the sections under them), and the file's
  best content hit takes their score when it is higher (`group`): the label
  lifts the content lines;
- ``last_verified:``/``last_updated:`` lines and the one-value frame lines
  (``Updated: 2026-11-09``, ``created: …``), the labels of a closure block
  (``Decisions:``, ``Signal:``, ``Open:``: the label only, what follows is
  content) and the field lines of ``memory/INDEX.md`` (every list line there: an
  entry's ``**name**``, its ``Match:``, ``Status:``, ``Dates:`` lines and their
  items, all pointers to the notes that hold the content). A file all of whose
  lines are labels (``INDEX.md``) gives no hit.

`labels` returns, per line number, the kind of label and the byte column where
it ends: a match starting before that column is on the label.
"""

from __future__ import annotations

import re

from memtier.formats.tags import is_tag_line
from memtier.search.sections import is_heading
from memtier.values import NamedTuple
from memtier.workspace import INDEX_FILE, MEMORY_DIR

TITLE = "title"
TAGS = "tags"
HEADING = "heading"
FIELD = "field"

WHOLE_LINE = 1 << 30  # a label that covers its whole line, whatever its length
_INDEX = f"{MEMORY_DIR}/{INDEX_FILE}"
_FRAME_RE = re.compile(
    r"^\s*(?:>\s*)?(?:(?:last_verified|last_updated):.*"
    r"|(?:updated|created|last_active):[ \t]*\S*[ \t]*)$",
    re.IGNORECASE,
)
_CLOSURE_RE = re.compile(r"^(?:Updated|Decisions|Signal|Open):")
_INDEX_FIELD_RE = re.compile(r"^\s*[-*+]\s")


class Label(NamedTuple):
    kind: str
    end: int  # 1-based byte column just after the label


def labels(rel: str, lines: list[str]) -> dict[int, Label]:
    """The metadata of a file given as its lines, by 1-based line number."""
    found: dict[int, Label] = {}
    index = rel == _INDEX
    for number, text in enumerate(lines, start=1):
        label = _label(number, text, index)
        if label is not None:
            found[number] = label
    return found


def _label(number: int, text: str, index: bool) -> Label | None:
    if not text or text[0] not in "#>ULCODSluco -*+\t":
        return None  # the common case, a plain line, decided on its first character
    if text[0] in "-*+":
        # A list item (most lines of a note): no tags line, heading, frame or closure
        # label starts with its marker; only INDEX.md's field lines do.
        return Label(FIELD, WHOLE_LINE) if index and _INDEX_FIELD_RE.match(text) else None
    if is_tag_line(text):
        return Label(TAGS, WHOLE_LINE)
    if is_heading(text):
        return Label(TITLE if number == 1 and text.startswith("# ") else HEADING, WHOLE_LINE)
    if _FRAME_RE.match(text):
        return Label(FIELD, WHOLE_LINE)
    closure = _CLOSURE_RE.match(text)
    if closure:
        return Label(FIELD, closure.end() + 1)
    if index and _INDEX_FIELD_RE.match(text):
        return Label(FIELD, WHOLE_LINE)
    return None


def on_label(line: int, column: int, found: dict[int, Label]) -> Label | None:
    """The label a match at *line*, *column* stands on (None: the match is content)."""
    label = found.get(line)
    if label is not None and column < label.end:
        return label
    return None
