"""The working buffer's format (PROTOCOL §2): pure functions on its text, no I/O.

``memory/working-buffer.md`` starts with an exact 4-line header::

    # Working Buffer
    created: 2026-11-30T09:15:00+01:00
    last_active: 2026-11-30T10:02:41+01:00
    <blank line>

and everything after those four lines is the *body*. Active task lines are the
lines matching ``^-\\s+\\S`` between ``## Active Task:`` and the next ``## ``
heading (or the end).

Line endings: these functions work on text whose newlines are ``\\n``. Callers
read files with `memtier.store.read_document` (which turns CRLF into ``\\n``)
and write them back with ``write_text(..., like=doc)`` (which restores CRLF), so
a buffer a person saved with CRLF endings keeps them. A lone ``\\r`` inside a
line is ordinary content.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from memtier.clock import parse_timestamp
from memtier.config import Config
from memtier.errors import InputError
from memtier.values import Fields
from memtier.workspace import BUFFER_FILE, MEMORY_DIR

BUFFER_TITLE = "# Working Buffer"
ACTIVE_HEADING = "## Active Task:"
CREATED_PREFIX = "created: "
LAST_ACTIVE_PREFIX = "last_active: "
BUFFER_NAME = BUFFER_FILE
BUFFER_TEMPLATE = f"{MEMORY_DIR}/{BUFFER_FILE}"  # the template mirrors the layout
HEADER_LINES = 4
NOTES_HEADING = "## Notes"
DONE_PREFIX = "- [done] "  # a finished task, as `buffer done` writes it (PROTOCOL §4)

_ACTIVE_LINE_RE = re.compile(r"-\s+\S")
_ACTIVE_TEXT_RE = re.compile(r"-\s+")


def _header_fields(text: str) -> list[str]:
    """The first four lines; a line past the end of the text reads as empty (like ``sed``)."""
    lines = text.split("\n", HEADER_LINES)[:HEADER_LINES]
    return lines + [""] * (HEADER_LINES - len(lines))


def header_problem(text: str) -> str | None:
    """The first problem of the 4-line header (PROTOCOL §2, §6 ``buffer.header``), or None."""
    line1, line2, line3, line4 = _header_fields(text)
    if line1 != BUFFER_TITLE:
        return f"line 1 must be '{BUFFER_TITLE}'"
    if not line2.startswith(CREATED_PREFIX):
        return "line 2 must start with 'created: '"
    if parse_timestamp(line2[len(CREATED_PREFIX) :]) is None:
        return "created timestamp invalid"
    if not line3.startswith(LAST_ACTIVE_PREFIX):
        return "line 3 must start with 'last_active: '"
    if parse_timestamp(line3[len(LAST_ACTIVE_PREFIX) :]) is None:
        return "last_active timestamp invalid"
    if line4 != "":
        return "line 4 must be blank"
    return None


def active_task_lines(text: str) -> list[str]:
    """PROTOCOL §2: lines ``^-\\s+\\S`` after ``## Active Task:`` up to the next ``## `` line."""
    found: list[str] = []
    inside = False
    for line in text.split("\n"):
        if not inside:
            inside = line.rstrip() == ACTIVE_HEADING
            continue
        if line.startswith("## "):
            break
        if is_task_line(line):
            found.append(line)
    return found


def is_task_line(line: str) -> bool:
    """True for a line of the form ``^-\\s+\\S`` (an active task inside the section)."""
    return _ACTIVE_LINE_RE.match(line) is not None


def task_text(line: str) -> str:
    """An active task line without its leading ``-`` and the whitespace after it."""
    return _ACTIVE_TEXT_RE.sub("", line, count=1)


def count_lines(text: str) -> int:
    """What ``wc -l`` prints: the number of newline characters."""
    return text.count("\n")


class Buffer(Fields):
    """A parsed working buffer: the two header timestamps (as written) and the body.

    The body is everything after the four header lines and, when not empty,
    ends with a newline (so that ``parse_buffer(b.render()) == b``).
    """

    created: str
    last_active: str
    body: str

    def __post_init__(self) -> None:
        if self.body and not self.body.endswith("\n"):
            object.__setattr__(self, "body", self.body + "\n")

    def render(self) -> str:
        """Header and body; the text ends with a newline (PROTOCOL §2)."""
        return (
            f"{BUFFER_TITLE}\n{CREATED_PREFIX}{self.created}\n"
            f"{LAST_ACTIVE_PREFIX}{self.last_active}\n\n{self.body}"
        )

    @property
    def active_task_lines(self) -> list[str]:
        return active_task_lines(self.body)

    @property
    def active_tasks(self) -> list[str]:
        return [task_text(line) for line in self.active_task_lines]

    def last_active_at(self) -> datetime | None:
        return parse_timestamp(self.last_active)

    @property
    def has_content(self) -> bool:
        """False when the body holds nothing beyond an empty ``## Active Task:`` (§4 step 5)."""
        return body_has_content(self.body)


def done_tasks(body: str) -> list[str]:
    """The tasks a buffer body marks ``- [done] …``."""
    lines = body.split("\n")
    return [line[len(DONE_PREFIX) :].strip() for line in lines if line.startswith(DONE_PREFIX)]


def body_has_content(body: str) -> bool:
    return any(line.strip() and line.rstrip() != ACTIVE_HEADING for line in body.split("\n"))


def parse_buffer(text: str) -> Buffer:
    """Split a buffer into header fields and body; a bad header is an `InputError`."""
    problem = header_problem(text)
    if problem is not None:
        raise InputError(f"{BUFFER_NAME} — {problem}")
    parts = text.split("\n", HEADER_LINES)
    body = parts[HEADER_LINES] if len(parts) > HEADER_LINES else ""
    return Buffer(
        created=parts[1][len(CREATED_PREFIX) :],
        last_active=parts[2][len(LAST_ACTIVE_PREFIX) :],
        body=body,
    )


def is_stale(buffer: Buffer, now: datetime, config: Config) -> bool:
    """PROTOCOL §2: now − last_active > stale_hours (strictly); unparsable counts as stale."""
    last = buffer.last_active_at()
    if last is None:
        return True
    return now - last > timedelta(hours=config.stale_hours)


def is_oversized(text: str, config: Config) -> bool:
    """PROTOCOL §2: more than buffer_max_active active lines or buffer_max_lines lines."""
    return (
        len(active_task_lines(text)) > config.buffer_max_active
        or count_lines(text) > config.buffer_max_lines
    )


def oversize_advice(rotate: str, end: str) -> str:
    """What to do about an oversized buffer, with each face's names for the two ways
    to rotate (``memtier rotate`` / ``memory_rotate``): one wording for both."""
    return f"rotation is due at session end ({end}), or rotate now at a natural break ({rotate})"


def oversize_warning(tasks: int, lines: int, rotate: str, end: str) -> str:
    """The warning a write to an oversized buffer carries (PROTOCOL §4 buffer)."""
    return f"working buffer is oversized ({tasks} active tasks, {lines} lines): " + oversize_advice(
        rotate, end
    )


def fresh_buffer(now: datetime, config: Config) -> str:
    """A new buffer (created = last_active = now), from the one template `init` uses."""
    from memtier.formats.templates import render_template

    return render_template(BUFFER_TEMPLATE, now, config)


# ---------------------------------------------------------------------------
# body edits (PROTOCOL §4 buffer task / note), shared by the buffer commands and recovery


def body_lines(body: str) -> list[str]:
    lines = body.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def join_lines(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def active_section(lines: list[str]) -> tuple[int, int]:
    """(index of ``## Active Task:``, index where its section ends); adds the heading if absent."""
    start = next((i for i, line in enumerate(lines) if line.rstrip() == ACTIVE_HEADING), None)
    if start is None:
        lines[:0] = [ACTIVE_HEADING, ""] if lines else [ACTIVE_HEADING]
        start = 0
    end = start + 1
    while end < len(lines) and not lines[end].startswith("## "):
        end += 1
    return start, end


def active_indexes(lines: list[str], start: int, end: int) -> list[int]:
    """Indexes of the active task lines (PROTOCOL §2) of the section [start, end)."""
    return [i for i in range(start + 1, end) if is_task_line(lines[i])]


def add_task(body: str, line: str) -> str:
    """*line* after the last active task line (or right under the heading)."""
    lines = body_lines(body)
    start, end = active_section(lines)
    tasks = active_indexes(lines, start, end)
    lines.insert(tasks[-1] + 1 if tasks else start + 1, line)
    return join_lines(lines)


def add_note(body: str, line: str) -> str:
    """*line* at the end of the body, in a section after the active one (PROTOCOL §4)."""
    lines = body_lines(body)
    _start, end = active_section(lines)
    while lines and not lines[-1].strip():
        lines.pop()
    if end >= len(lines):
        # No section follows the active one: open one, or the note would count as a task.
        lines += ["", NOTES_HEADING]
    lines.append(line)
    return join_lines(lines)


# ---------------------------------------------------------------------------
# lines a snapshot does not hold (PROTOCOL §4 step 4, v2)


def _structural(line: str) -> bool:
    """Blank lines and the section headings memtier writes itself carry no fact."""
    return not line.strip() or line.rstrip() in (ACTIVE_HEADING, NOTES_HEADING)


class KeptLine(Fields):
    """A live buffer line the snapshot lacks, and whether it was an active task."""

    line: str
    task: bool


def unsnapshotted_lines(snapshot_body: str, live_body: str) -> tuple[KeptLine, ...]:
    """Lines of *live_body* beyond those of *snapshot_body*, counted as a multiset.

    A line the live buffer holds twice and the snapshot once is one extra line,
    so a person who repeats a routine line keeps both copies.
    """
    from collections import Counter

    have = Counter(line for line in body_lines(snapshot_body) if not _structural(line))
    extra: list[str] = []
    for line in body_lines(live_body):
        if _structural(line):
            continue
        if have[line] > 0:
            have[line] -= 1
        else:
            extra.append(line)
    # An active task keeps its place as a task: say which lines were tasks.
    tasks = set(active_task_lines(live_body))
    return tuple(KeptLine(line, line in tasks) for line in extra)


def with_lines(body: str, extra: tuple[KeptLine, ...]) -> str:
    """*body* with the lines `unsnapshotted_lines` found: tasks as tasks, the rest as notes."""
    for kept in extra:
        body = add_task(body, kept.line) if kept.task else add_note(body, kept.line)
    return body
