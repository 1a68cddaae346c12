"""One duplicate table for a whole import (PROTOCOL §10, §12 v3 "Scale").

`remember` scans every HOT and WARM line for each new fact; an import of thousands
would do that thousands of times. The table is built once from the fact files and
kept current as the import adds lines: an exact match is one dictionary look-up,
and so is most of the near-duplicate check (word overlap ≥ 0.85, the rule of
`remember`), whatever the number of lines:

A line B that nearly duplicates a fact A misses at most k = |A| − ⌈0.85·|A|⌉ of
A's words (k is 0 up to six words, 1 up to thirteen). Take R, the k words of A
with the fewest lines. Either B holds a word of R — found among those words'
lines, which are few — or B holds none of them and so every other word of A:
B is A − R plus at most one more word (a second one would take the overlap
under 0.85, for any |A|; for most sizes even one would). Each line is therefore
also kept under the sum of its words' hashes and under that sum less each one
word: B is one look-up away from A − R. A look-up only proposes lines; the
overlap is computed for each.

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


_MASK = (1 << 64) - 1


def _set_hash(words: frozenset[str]) -> int:
    """The same number for the same words, whatever their order."""
    return sum(hash(w) for w in words) & _MASK


class FactTable:
    """Every fact line of HOT and WARM, by exact text, by word and by word set."""

    def __init__(self) -> None:
        self.exact: dict[str, Match] = {}
        self.entries: list[tuple[frozenset[str], str, Match]] = []
        self.postings: dict[str, list[int]] = defaultdict(list)
        # The sum of a line's word hashes, and that sum less each of its words.
        self.by_words: dict[int, list[int]] = defaultdict(list)
        self.less_one: dict[int, list[int]] = defaultdict(list)
        self.dead: set[int] = set()
        self.by_file: dict[str, list[int]] = defaultdict(list)
        self.texts: dict[str, str] = {}  # each file's text as the table last saw it
        self.examined = 0  # lines whose overlap was computed (the cost of `find`)

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
        words = word_set(key)
        self.entries.append((words, key, match))
        self.by_file[rel].append(index)
        whole = _set_hash(words)
        self.by_words[whole].append(index)
        for word in words:
            self.postings[word].append(index)
            self.less_one[(whole - hash(word)) & _MASK].append(index)

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
        missing = len(words) - math.ceil(NEAR_DUPLICATE_THRESHOLD * len(words) - 1e-9)
        rare = sorted(words, key=lambda w: (len(self.postings.get(w, ())), w))[:missing]
        rest = _set_hash(words.difference(rare))
        candidates: set[int] = set(self.by_words.get(rest, ()))
        kept = len(words) - missing
        if kept / (len(words) + 1) >= NEAR_DUPLICATE_THRESHOLD:  # room for one more word
            candidates.update(self.less_one.get(rest, ()))
        for word in rare:
            candidates.update(self.postings.get(word, ()))
        best: Match | None = None
        for index in sorted(candidates - self.dead):  # equal overlaps: the first line wins
            self.examined += 1
            other, _key, match = self.entries[index]
            shared = len(words & other)
            score = shared / (len(words) + len(other) - shared)
            if score >= NEAR_DUPLICATE_THRESHOLD and (best is None or score > best.score):
                best = Match(score, match.file, match.line, match.text)
        return best
