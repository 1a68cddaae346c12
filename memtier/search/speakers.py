"""Who says a line: the speaker labels of a chat written as a list (PROTOCOL §9 v4).

A chat kept in memory is usually one list item per turn, ``- Name: what was
said`` (a diary of talks, an imported conversation). The name there says who
speaks, not what is said: a query naming the person asks about that person's
own words, so a line whose speaker is named in the query is preferred as the
hit's line (`group`), and the label itself is never the line's evidence. A
turn's neighbours lend it their words when it is scored (`beside`, `rank`): a
reply answers what the turn before it asked.

A label is a list marker, then one to three words each a name and a colon (an
ASCII one with a space after it, or the full-width ``：`` of CJK text). A name is
capitalised ("Dr. Smith", "Anna-Lena") or, in a script without case (Chinese,
Japanese, Korean), at most `CASELESS_NAME` letters long ("张伟"): a longer run is
a sentence before a colon. Closure-block labels (``Decisions:``…) have no list
marker and are `metadata`'s.
"""

from __future__ import annotations

import functools
import re

# Not typing's: importing it costs a search 3-4 ms. Type checkers read this as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from memtier.search.hits import Scored
    from memtier.search.sections import Section


@functools.cache
def _speaker_re() -> re.Pattern[str]:
    """A turn's label: compiled (0.7 ms) only when a line may hold one (`speaker`)."""
    return re.compile(
        r"^\s*[-*+]\s+(?:\*\*)?([^\W\d_][\w.'’-]*(?: [^\W\d_][\w.'’-]*){0,2})(?:\*\*)?(?::\s|：)"
    )


# The longest name of a script without case: a Chinese name is two to four
# characters, a Japanese or Korean one rarely longer.
CASELESS_NAME = 4


def speaker(text: str) -> tuple[str, int] | None:
    """The speaker named by a line's label (lowercased) and the 1-based byte column
    just after the label; None when the line has no speaker label."""
    if not text or text.lstrip()[:1] not in ("-", "*", "+"):
        return None  # the common case, decided on the first character
    if ":" not in text and "：" not in text:
        return None  # a label ends with a colon (ASCII, or full-width): most lines have none
    found = _speaker_re().match(text)
    if found is None or not all(_name(word) for word in found.group(1).split()):
        return None
    return found.group(1).lower(), len(text[: found.end(1)].encode("utf-8")) + 1


def _name(word: str) -> bool:
    """Whether *word* of a label can be a name: capitalised, or a short word of a
    script without case."""
    if word[0].isupper():
        return True
    return len(word) <= CASELESS_NAME and not any(c.islower() or c.isupper() for c in word)


def turn_evidence(found: list[Scored], lines: list[str]) -> dict[int, list[tuple[str, float]]]:
    """The matches of each chat turn, by line, its speaker label left out (a label
    says who speaks, never what is said): what `beside` hands a neighbouring turn."""
    per_turn: dict[int, list[tuple[str, float]]] = {}
    for line, column, _, term, exact in found:
        label = speaker(lines[line - 1])
        if label is not None and column >= label[1]:
            per_turn.setdefault(line, []).append((term, exact))
    return per_turn


def beside(
    section: Section, lines: list[str], per_turn: dict[int, list[tuple[str, float]]]
) -> list[tuple[str, float]]:
    """The evidence of the turns just before and after a section that is one chat turn:
    a reply often holds the answer while the question's other words sit in the turn it
    answers ("They said 6")."""
    if section.start != section.end or speaker(lines[section.start - 1]) is None:
        return []
    found: list[tuple[str, float]] = []
    for number in (section.start - 1, section.start + 1):
        found.extend(per_turn.get(number, ()))
    return found
