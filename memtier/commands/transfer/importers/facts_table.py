"""One duplicate table for a whole import (PROTOCOL §10, §12 v3 "Scale").

`remember` scans every HOT and WARM line for each new fact; an import of thousands
would do that thousands of times. The table is built once from the fact files and
kept current as the import adds lines: an exact match is one dictionary look-up,
and the near-duplicate check (word overlap ≥ 0.85, the rule of `remember`) looks
only at lines sharing one of a few of the fact's rarest words — a line that shares
none of them cannot reach the threshold (prefix filtering: overlap ≥ t·|A| means
at most |A| − ⌈t·|A|⌉ of A's words are missing from it).

Lines are compared by their core: a trailing date ``(YYYY-MM-DD)`` and ``#tag``
words, which an import adds to a fact, do not make a fact new.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass

from memtier.formats.fact_text import (
    NEAR_DUPLICATE_THRESHOLD,
    fact_lines,
    is_fence,
    normalise_fact,
    word_set,
)

_SUFFIX = re.compile(r"(\s+(\(\d{4}-\d\d-\d\d\)|#[\w-]+))+\s*$")


def core(line: str) -> str:
    """The normalised text of a fact line without the date and tags an import adds."""
    return normalise_fact(_SUFFIX.sub("", line))


@dataclass(frozen=True)
class Match:
    score: float
    file: str
    line: int
    text: str


class FactTable:
    """Every fact line of HOT and WARM, by exact text and by word."""

    def __init__(self) -> None:
        self.exact: dict[str, Match] = {}
        self.entries: list[tuple[frozenset[str], str, Match]] = []
        self.postings: dict[str, list[int]] = defaultdict(list)
        self.dead: set[int] = set()
        self.by_file: dict[str, list[int]] = defaultdict(list)
        self.texts: dict[str, str] = {}  # each file's text as the table last saw it

    def load(self, rel: str, lines: list[str], header: int) -> None:
        """Forget what *rel* held and take its *lines* (a file read afresh)."""
        for index in self.by_file.pop(rel, []):
            self.dead.add(index)
            key = self.entries[index][1]
            if self.exact.get(key) is self.entries[index][2]:
                del self.exact[key]
        for number, line in fact_lines(lines, header):
            self.add(rel, number, line)

    def add(self, rel: str, number: int, line: str) -> None:
        if is_fence(line):
            return
        key = core(line)
        if not key:
            return
        match = Match(1.0, rel, number, line.strip())
        self.exact.setdefault(key, match)
        index = len(self.entries)
        self.entries.append((word_set(key), key, match))
        self.by_file[rel].append(index)
        for word in word_set(key):
            self.postings[word].append(index)

    def has_all(self, lines: list[str]) -> bool:
        """True when every content line of a block already stands (a block duplicate)."""
        # The lines `fact_lines` keeps (no heading, no fence), as the table holds them.
        wanted = [core(b) for b in lines if b.strip() and not b.startswith("#") and not is_fence(b)]
        wanted = [w for w in wanted if w]
        return bool(wanted) and all(w in self.exact for w in wanted)

    def find(self, text: str) -> Match | None:
        """The line *text* duplicates (score 1.0) or nearly duplicates, else None."""
        key = core(text)
        if not key:
            return None
        if key in self.exact:
            return self.exact[key]
        words = word_set(key)
        need = len(words) - math.ceil(NEAR_DUPLICATE_THRESHOLD * len(words) - 1e-9) + 1
        probes = sorted(words, key=lambda w: len(self.postings.get(w, ())))[:need]
        best: Match | None = None
        seen: set[int] = set()
        for word in probes:
            for index in self.postings.get(word, ()):
                if index in seen or index in self.dead:
                    continue
                seen.add(index)
                other, _key, match = self.entries[index]
                shared = len(words & other)
                score = shared / (len(words) + len(other) - shared)
                if score >= NEAR_DUPLICATE_THRESHOLD and (best is None or score > best.score):
                    best = Match(score, match.file, match.line, match.text)
        return best
