"""The base context session-start prints, fitted to a character budget (PROTOCOL §4 step 7, §11).

An agent's context window is the scarce resource: a base context of 50k
characters pushes out the task it is for. `fit_context` lays the parts out in
the order of their use to a returning agent (MEMORY.md, the working buffer, the
last session's ``Open:`` items, today's note, then the rest) and, when the
budget runs out, gives up the least needed first (each part's ``rank``):
MEMORY.md is cut last. The part the budget ends in is cut at a line boundary
with a line saying which lines were shown and how to read the rest; the parts
ranked after it are named, each file once.
The CLI and the tool server share it; only the "how to read the rest" wording
differs (`MoreHint`).

`last_open` finds the newest closed episodic note, however many days ago it
was written (in the archive too), so an agent back after a long weekend still
sees what was left; when neither today's nor yesterday's note is shown, the
context carries that note's whole closure block (PROTOCOL §4 step 7 v3).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from datetime import date
from pathlib import Path

from memtier import store
from memtier.errors import InputError
from memtier.formats.episodic import ClosureBlock, split_closure
from memtier.results import Record, fixed
from memtier.values import Fields
from memtier.workspace import Workspace

# How many of the newest notes are read looking for a closure block: a note
# without one (a day still open) is skipped, but the search stays bounded.
OPEN_LOOKBACK_NOTES = 30

# Characters a cut part keeps for the line saying where it was cut.
CUT_LINE = 200

# (path, first line not shown, last line; None: from the start) -> the words that
# fetch those lines.
MoreHint = Callable[[str, int | None, int | None], str]


def cli_more(path: str, first: int | None, last: int | None) -> str:
    if first is None:
        return f"memtier get {path}"
    return f"memtier get {path}:{first}-{last}"


class LastOpen(Record, Fields):
    """The closure block of the newest closed note, and the day it belongs to."""

    day: str
    path: str
    open: str
    decisions: str = ""
    signal: str = ""
    updated: str = ""
    line_number: int | None = None  # where its `Updated:` line stands in the file

    JSON_NAMES = fixed(day="date")
    JSON_OMIT = frozenset({"decisions", "signal", "updated", "line_number"})

    def line(self) -> str:
        return f"last session's Open: items ({self.day}): {self.open}"

    def title(self, today: date) -> str:
        days = (today - date.fromisoformat(self.day)).days
        return f"last closed note: {self.day} ({plural(days, 'day')} ago), {self.path}"

    def block(self) -> str:
        """The whole closure block (PROTOCOL §4 step 7 v3)."""
        return ClosureBlock(self.updated, self.decisions, self.signal, self.open).render()


def plural(count: int, word: str) -> str:
    """``1 day``, ``2 days``: the count with its word, singular for one."""
    return f"{count} {word}{'' if count == 1 else 's'}"


# A note the weekly review alone closed (its every decision starts so) says
# nothing about the last session: the context looks past it (PROTOCOL §4 step 7 v3).
REVIEW_ONLY = "weekly review"


def _note_paths(ws: Workspace) -> Iterator[Path]:
    """Dated notes up to today, newest first: the episodic folder, then the archive
    (globbed only when the live notes did not answer)."""
    today = ws.today.isoformat()
    for folder, pattern in (
        (ws.episodic_dir, "????-??-??.md"),
        (ws.archive_dir, "*/*/????-??-??*.md"),
    ):
        if not folder.is_dir() or folder.is_symlink():
            continue
        paths = [p for p in folder.glob(pattern) if p.name[:10] <= today]
        yield from sorted(paths, key=lambda p: p.name, reverse=True)


def last_open(ws: Workspace) -> LastOpen | None:
    """The newest episodic note up to today that ends with a closure block of a session.

    Notes the weekly review alone closed are passed over, and the archive is
    read when the episodic folder holds nothing closer: after an absence longer
    than the notes' TTL the last session's note is there (PROTOCOL §4 step 7 v3).
    """
    review_only: LastOpen | None = None
    paths = itertools.islice(_note_paths(ws), OPEN_LOOKBACK_NOTES)
    for path in paths:
        try:
            text = store.read_text(path, root=ws.root)
        except InputError:
            continue  # unreadable or confined: health-check reports it
        _, block = split_closure(text)
        if block is None:
            continue
        found = LastOpen(
            day=path.name[:10],
            path=ws.relative(path),
            open=block.open,
            decisions=block.decisions,
            signal=block.signal,
            updated=block.updated,
            line_number=text.rstrip("\n").count("\n") - 2,
        )
        items = [item.strip() for item in block.decisions.split(";")]
        if all(item.startswith(REVIEW_ONLY) for item in items):
            review_only = review_only or found
            continue
        return found
    return review_only


class ContextPart(Fields):
    """One block of the base context: its heading, the file it shows, its text.

    *first_line* is the line number of the text's first line in that file (1 for
    a whole file, later for a tail); None when the part is not a file's lines.
    """

    title: str
    path: str
    text: str
    first_line: int | None = 1
    heading: bool = True
    rank: int = 0  # the lower, the later it is cut (ties: in the order shown)


class Cut(Record, Fields):
    """A part shown only in part (``shown`` of ``total`` lines) or left out (``shown`` 0)."""

    path: str
    shown: int
    total: int
    more: str

    JSON_NAMES = fixed(shown="shown_lines", total="total_lines")


class FittedContext(Fields):
    lines: tuple[str, ...]
    cuts: tuple[Cut, ...]

    @property
    def truncated(self) -> bool:
        return bool(self.cuts)


def _body(text: str) -> list[str]:
    return text.rstrip("\n").split("\n") if text.strip() else ["(empty)"]


def _size(lines: Iterable[str]) -> int:
    return sum(len(line) + 1 for line in lines)


def _more(part: ContextPart, shown: int, total: int, hint: MoreHint) -> str:
    if part.first_line is None:
        return hint(part.path, None, None)
    first = part.first_line + shown
    return hint(part.path, first, part.first_line + total - 1)


def fit_context(
    head: Iterable[str],
    parts: Iterable[ContextPart],
    tail: Iterable[str],
    max_chars: int | None,
    hint: MoreHint = cli_more,
) -> FittedContext:
    """*head*, the *parts* in order, *tail*; at most *max_chars* characters in all.

    The head (what session-start did) and the tail (the health verdict) are
    always shown: they are short and say whether the memory can be trusted.
    """
    head_lines, tail_lines = list(head), list(tail)
    if max_chars is None:
        body = [line for part in parts for line in _render(part, _body(part.text))]
        return FittedContext(tuple(head_lines + body + tail_lines), ())
    # Room for the line naming parts left out, should there be any.
    left = max_chars - _size(head_lines) - _size(tail_lines) - 200
    parts = list(parts)
    kept: dict[int, list[str]] = {}
    cut_at: dict[int, Cut] = {}
    for index in sorted(range(len(parts)), key=lambda i: parts[i].rank):
        part = parts[index]
        lines = _body(part.text)
        whole = _render(part, lines)
        if _size(whole) <= left:
            kept[index] = whole
            left -= _size(whole)
            continue
        shown = _lines_that_fit(part, lines, left - CUT_LINE) if left > CUT_LINE else 0
        total = len(lines)
        cut = cut_at[index] = Cut(part.path, shown, total, _more(part, shown, total, hint))
        if shown:
            more = f"[cut: {shown} of {total} lines shown; the rest: {cut.more}]"
            kept[index] = [*_render(part, lines[:shown]), more]
        left = 0  # what ranks after the part the budget ended in is left out whole
    out = [line for index in range(len(parts)) for line in kept.get(index, ())]
    cuts = tuple(cut_at[index] for index in sorted(cut_at))
    # A file two parts show (the Open: line and its day's note) is named once.
    left_out = dict.fromkeys(c.path for c in cuts if c.shown == 0)
    if left_out:
        names = ", ".join(left_out)
        out += ["", f"[not shown, over the {max_chars}-character budget: {names}]"]
    return FittedContext(tuple(head_lines + out + tail_lines), cuts)


def _render(part: ContextPart, lines: list[str]) -> list[str]:
    if not part.heading:
        return ["", *lines]
    return ["", f"===== {part.title} =====", *lines]


def _lines_that_fit(part: ContextPart, lines: list[str], room: int) -> int:
    return lines_within(lines, room, used=_size(_render(part, [])))


def lines_within(lines: Iterable[str], room: int, *, used: int = 0) -> int:
    """How many leading *lines* fit in *room* characters (each with its line break),
    *used* of them already taken: the one budget rule of the CLI and the tool server."""
    shown = 0
    for line in lines:
        used += len(line) + 1
        if used > room:
            break
        shown += 1
    return shown
