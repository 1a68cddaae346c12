"""Copies of a HOT or WARM fact elsewhere rank below their home (PROTOCOL §10).

Split from `rank`, which calls `discount_copies` on its scored hits.
"""

from __future__ import annotations

import re

from memtier.search.group import Grouped
from memtier.search.scoring import COPY_WEIGHT

_HOME_TIERS = frozenset(("hot", "warm"))
_BULLET_RE = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\d{4}-\d\d-\d\d:?\s+)?")
MIN_COPY_CHARS = 20  # shorter lines are too common to call a copy


def _fact_text(line: str) -> str:
    return _BULLET_RE.sub("", line).strip().rstrip(".").lower()


def discount_copies(scored: list[Grouped]) -> None:
    """A fact's home is its HOT or WARM line (PROTOCOL §10): a section elsewhere whose
    matching line holds a copy of a matching home line scores at most `COPY_WEIGHT`
    of the home's section, so pasted task copies in rotated notes (short sections,
    a recency boost) never push the home down."""
    homes = _Facts()
    for score, tier, _, _, matches, lines in scored:
        if tier in _HOME_TIERS:
            for line in {m[0] for m in matches}:
                homes.add(_fact_text(lines[line - 1]), score)
    if not homes.best:
        return
    for i, (score, tier, rel, best, matches, lines) in enumerate(scored):
        if tier in _HOME_TIERS:
            continue
        caps = [homes.copied_in(lines[line - 1].lower()) for line in {m[0] for m in matches}]
        cap = max(caps, default=0.0)
        if cap:
            scored[i] = (min(score, COPY_WEIGHT * cap), tier, rel, best, matches, lines)


class _Facts:
    """The home lines a copy is looked for, by their first `MIN_COPY_CHARS` characters:
    a text holds a fact only where one of its windows of that width starts the fact,
    so a text is checked in one pass over its windows, not once per fact (a WARM file
    of 20,000 matching lines beside a thousand other hits took a minute)."""

    def __init__(self) -> None:
        self.best: dict[str, float] = {}
        self._by_head: dict[str, list[str]] = {}

    def add(self, fact: str, score: float) -> None:
        if len(fact) < MIN_COPY_CHARS:
            return
        if fact not in self.best:
            self._by_head.setdefault(fact[:MIN_COPY_CHARS], []).append(fact)
        self.best[fact] = max(score, self.best.get(fact, 0.0))

    def copied_in(self, text: str) -> float:
        """The best home score among the facts *text* holds (0 when it holds none)."""
        found = 0.0
        heads = self._by_head
        for start in range(len(text) - MIN_COPY_CHARS + 1):
            facts = heads.get(text[start : start + MIN_COPY_CHARS])
            for fact in facts or ():
                if text.startswith(fact, start):
                    found = max(found, self.best[fact])
        return found
