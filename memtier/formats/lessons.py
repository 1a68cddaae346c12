"""Lesson lines of the SCRATCH files as text (PROTOCOL §2): flags, dates, normalisation.

Two lines are "the same lesson" when `normalise_lesson` gives the same text: the
leading ``- ``, a leading date or timestamp and the trailing flags go, and the
rest is folded as facts are (`memtier.formats.fact_text.fold_text`: lowercase,
punctuation and runs of space folded), so ``rate limit !`` and ``rate-limit``
count as one lesson (PROTOCOL §10).
"""

from __future__ import annotations

import re

from memtier.formats.fact_text import fold_text

CANDIDATE_FLAG = "[PROMOTE-CANDIDATE]"
# Left on the source line by `promote` in place of the candidate flag: the lesson
# has its WARM home (perhaps reworded with --as), so recurrence never flags it again.
PROMOTED_FLAG = "[PROMOTED]"
PIN_FLAG = "#pinned"
# What a lesson line starts with: an optional "- ", then an optional date or ISO
# timestamp (seconds, fraction and offset optional) followed by whitespace.
_PREFIX = re.compile(
    r"\s*(?:-(?:\s+|$))?"
    r"(?:\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(?:Z|[+-]\d\d:?\d\d)?)?(?:\s+|$))?"
)
_FLAGS = (CANDIDATE_FLAG.lower(), PROMOTED_FLAG.lower(), PIN_FLAG)


def _strip_flags(text: str, lowered: str) -> str:
    """*text* without trailing flags, matched on its lowercased twin *lowered*."""
    end = len(lowered.rstrip())
    found = True
    while found:
        found = False
        for flag in _FLAGS:
            if lowered.endswith(flag, 0, end):
                end = len(lowered[: end - len(flag)].rstrip())
                found = True
    return text[:end]


def normalise_lesson(line: str) -> str:
    """The text two lines must share to count as the same lesson (PROTOCOL §2).

    Drops a leading ``- ``, a leading date or timestamp, trailing
    ``[PROMOTE-CANDIDATE]``, ``[PROMOTED]`` and ``#pinned`` (in any order, any case), then
    lowercases and folds punctuation and runs of whitespace into single spaces.
    """
    prefix = _PREFIX.match(line)
    lowered = line[prefix.end() if prefix else 0 :].lower()
    return fold_text(_strip_flags(lowered, lowered))


def is_lesson_line(line: str) -> bool:
    """A lesson line starts with ``- ``; headings and prose are not lessons."""
    return line.startswith("- ")


def is_candidate_line(line: str) -> bool:
    """``[PROMOTE-CANDIDATE]`` at the end of the line (a trailing ``#pinned`` allowed)."""
    text = line.rstrip()
    if text.endswith(PIN_FLAG):
        text = text[: -len(PIN_FLAG)].rstrip()
    return text.endswith(CANDIDATE_FLAG)


def lesson_text(line: str) -> str:
    """The lesson as a person wrote it: no ``- ``, no leading date, no trailing flags."""
    prefix = _PREFIX.match(line)
    text = line[prefix.end() if prefix else 0 :]
    return _strip_flags(text, text.lower()).strip()


def remove_candidate_flag(line: str) -> str:
    """*line* without its ``[PROMOTE-CANDIDATE]`` flag (a trailing ``#pinned`` kept)."""
    text = line.rstrip()
    pinned = text.endswith(PIN_FLAG)
    if pinned:
        text = text[: -len(PIN_FLAG)].rstrip()
    if text.endswith(CANDIDATE_FLAG):
        text = text[: -len(CANDIDATE_FLAG)].rstrip()
    return f"{text} {PIN_FLAG}" if pinned else text


def is_promoted_line(line: str) -> bool:
    """True for a lesson line `promote` marked ``[PROMOTED]`` (a trailing ``#pinned`` allowed)."""
    text = line.rstrip()
    if text.endswith(PIN_FLAG):
        text = text[: -len(PIN_FLAG)].rstrip()
    return text.endswith(PROMOTED_FLAG)


def mark_promoted(line: str) -> str:
    """*line* with ``[PROMOTED]`` in place of its candidate flag (``#pinned`` kept last)."""
    if is_promoted_line(line):
        return line
    text = remove_candidate_flag(line)
    pinned = text.endswith(PIN_FLAG)
    if pinned:
        text = text[: -len(PIN_FLAG)].rstrip()
    marked = f"{text} {PROMOTED_FLAG}"
    return f"{marked} {PIN_FLAG}" if pinned else marked
