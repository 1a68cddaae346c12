"""Pure text shaping for tool results: budgets, error lines, fixing calls (PROTOCOL §11).

No SDK import here, so these rules are tested as plain functions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

DEFAULT_MAX_CHARS = 8000
# Below this a budget cannot hold a useful answer and the line saying it was cut.
MIN_MAX_CHARS = 500
# What a channel may hold beyond the budget: the structured result's keys and
# its compact ``data`` (PROTOCOL §11 v3: "a small fixed envelope").
ENVELOPE = 600
# A write reports what it did in at most this much, its input never echoed whole.
WRITE_MAX_CHARS = 2000
ECHO_CHARS = 200  # the most of one line of the input a write's report repeats

# CLI commands a core message may name, and the tool that does the same.
_TOOL_FOR_COMMAND: tuple[tuple[str, str], ...] = (
    ("session-start", "memory_session_start"),
    ("session-end", "memory_session_end"),
    ("health-check", "memory_health"),
    ("episodic close", "memory_close_day"),
    ("episodic append", "memory_note (to='today')"),
    ("buffer note", "memory_note"),
    ("buffer task", "memory_task (action='add')"),
    ("buffer done", "memory_task (action='done')"),
    ("rotate", "memory_rotate"),
    ("remember", "memory_remember"),
    ("replace", "memory_replace"),
    ("retire", "memory_retire"),
    ("verify", "memory_verify"),
    ("get", "memory_get"),
    ("search", "memory_search"),
    ("learn", "memory_learn"),
    ("promote", "memory_promote"),
    ("stats", "memory_overview"),
    ("candidates", "memory_overview"),
    ("consolidate", "memory_consolidate"),
    ("recall", "memory_recall"),
    ("index rebuild", "memory_flush"),
    ("index add", "memory_index (action='add')"),
    ("index set", "memory_index (action='set')"),
    ("flush", "memory_flush"),
)
_COMMAND_RE = re.compile(
    r"\bmemtier (" + "|".join(re.escape(c) for c, _ in _TOOL_FOR_COMMAND) + r")\b"
)


def tool_hint(message: str) -> str | None:
    """``fix: call memory_…`` when a core message names the CLI command that fixes it."""
    found = _COMMAND_RE.search(message)
    if found is None:
        return None
    tool = dict(_TOOL_FOR_COMMAND)[found.group(1)]
    return f"fix: call {tool}"


@dataclass(frozen=True)
class Bounded:
    text: str
    truncated: bool
    shown_lines: int
    total_lines: int


def shorten(line: str, most: int = ECHO_CHARS) -> str:
    return line if len(line) <= most else line[: most - 1] + "…"


def write_text(lines: Iterable[str]) -> str:
    """A write's report: each line shortened, the whole within `WRITE_MAX_CHARS`."""
    return bound_lines([shorten(line) for line in lines], WRITE_MAX_CHARS).text


def check_budget(max_chars: int) -> int:
    from memtier.errors import InputError

    if max_chars < MIN_MAX_CHARS:
        raise InputError(f"max_chars must be at least {MIN_MAX_CHARS} (got {max_chars})")
    return max_chars


def bound_lines(
    lines: Iterable[str], max_chars: int, more: str | Callable[[int], str] | None = None
) -> Bounded:
    """The lines that fit in *max_chars*, cut at a line boundary, the cut said last.

    *more* is the call that returns the rest (or makes it from the number of
    lines shown); a line longer than the whole budget
    is shortened rather than dropped, so the answer is never empty.
    """
    all_lines = list(lines)
    if sum(len(line) + 1 for line in all_lines) <= max_chars + 1:
        return Bounded("\n".join(all_lines), False, len(all_lines), len(all_lines))
    from memtier.commands.base_context import lines_within

    room = max_chars - 200  # the cut line
    kept = all_lines[: lines_within(all_lines, room)]
    if not kept:  # a first line longer than the budget is shortened, never dropped
        kept = [all_lines[0][: max(room - 1, 0)] + "…"]
    shown = len(kept)
    cut = f"[cut at {max_chars} characters: {shown} of {len(all_lines)} lines shown"
    rest = more(shown) if callable(more) else more
    cut += f"; the rest: {rest}]" if rest else "]"
    return Bounded("\n".join([*kept, cut]), True, shown, len(all_lines))
