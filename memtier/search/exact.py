"""A word query's exact matches in the files the ranking reads (`rank`).

The scan looks for the bare terms, which keeps it fast; here the words are
checked whole (or with a short ending), line by line, or over the whole text of a
file of ASCII text, which gives the same matches (`_ascii_file`).
"""

from __future__ import annotations

import re

from memtier.search.accents import FOLD_LINE
from memtier.search.forms import negated
from memtier.search.found import FileHits
from memtier.search.tokens import (
    Term,
    beside_cjk,
    cjk_matches,
    exactness,
    has_cjk,
    precise_re,
    term_of,
)

# Not typing's: importing it costs a search 3-4 ms. Type checkers read this as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    from memtier.search.hits import Scored

    class _Context(Protocol):
        """What of the ranking's context (`rank._Context`) the matching reads."""

        terms: tuple[Term, ...]
        regex: bool
        cjk: bool
        heads: dict[str, str]
        precise: re.Pattern[str] | None
        lowered: re.Pattern[str] | None
        whole_text: bool
        folds: bool
        read: dict[str, tuple[Term | None, str, float]]


__all__ = ["precise_matches"]


def precise_matches(lines: list[str], hits: FileHits, ctx: _Context) -> list[Scored]:
    """Matches that count: whole words (or a word plus a short ending) of the query.

    The scan looks for the bare terms, which is what keeps it fast; word
    boundaries are checked here, on the lines of the few files being ranked.
    """
    scored: list[Scored] = []
    if ctx.regex or ctx.precise is None:
        for line, column, text in hits.matches():
            scored.append((line, column, text, text.lower(), 1.0))
        return scored
    narrow = ctx.precise  # for a line of ASCII text (`precise_re`)
    lowered = ctx.lowered  # the same, with case, for the line lowercased (`lowered_re`)
    if lowered is not None and ctx.whole_text:
        whole = "\n".join(lines)
        if whole.isascii():
            return _ascii_file(whole, lowered, ctx)
    for number, text in enumerate(lines, start=1):
        plain = text.isascii()  # then a byte column is a character column
        seen = text
        finder = narrow
        if plain:
            wide = False
            if lowered is not None:
                finder = lowered
                seen = text.lower()
        else:
            wide = has_cjk(text)
            if wide:
                finder = beside_cjk(precise_re(ctx.terms).pattern)
            elif ctx.folds:
                # Its accented letters folded, one character for one: the ASCII form
                # finds the same texts at the same places (`tokens.folds_to_ascii`).
                seen = text.translate(FOLD_LINE)
            else:
                finder = precise_re(ctx.terms)
        for m in finder.finditer(seen):
            counted = _counted(m, text, ctx)
            if counted is None:
                continue
            start, found, key, exact = counted
            column = start + 1 if plain else len(text[:start].encode("utf-8")) + 1
            scored.append((number, column, found, key, exact))
        if wide and ctx.cjk:
            for start, term in cjk_matches(text, ctx.terms):
                column = len(text[:start].encode("utf-8")) + 1
                scored.append((number, column, term.text, term.text, 1.0))
    return scored


def _ascii_file(whole: str, lowered: re.Pattern[str], ctx: _Context) -> list[Scored]:
    """`precise_matches` for a file of ASCII text, given as its lines joined: the
    pattern runs once over the file, not once per line, with the same matches. The ASCII pattern
    holds no line break and no class or look-around that takes one, and a word
    boundary stands at a line break as at either end of a line (`_Context.whole_text`
    leaves out the shapes, whose forms span white space); the negation test reads the
    line break after a match as the end of its line. A byte column is a character's."""
    scored: list[Scored] = []
    number = 1
    line_start = 0
    passed = 0  # where the line count stands
    for m in lowered.finditer(whole.lower()):
        counted = _counted(m, whole, ctx)
        if counted is None:
            continue
        start, found, key, exact = counted
        breaks = whole.count("\n", passed, start)
        if breaks:
            number += breaks
            line_start = whole.rfind("\n", passed, start) + 1
        passed = start
        scored.append((number, start - line_start + 1, found, key, exact))
    return scored


def _counted(m: re.Match[str], text: str, ctx: _Context) -> tuple[int, str, str, float] | None:
    """The match *m* in *text* (or in *text* lowercased): where it starts, the text it
    found, the key it counts under and its exactness (`_read_match`). None when it
    counts for nothing here: no term's, or a CJK term's (those are counted apart,
    overlaps included), or the head of a negated auxiliary, the "won" of "won't", which
    is no form of "win" (`tokens.negated`)."""
    start, end = m.span()
    found = text[start:end]
    known = ctx.read.get(found)
    if known is None:
        known = ctx.read[found] = _read_match(found, ctx)
    term, key, exact = known
    if term is None or (not term.negation and negated(text, end)):
        return None
    return start, found, key, exact


def _read_match(found: str, ctx: _Context) -> tuple[Term | None, str, float]:
    """What a matched text counts as (`precise_matches`): its query term (None: no
    term's, or a CJK term's), the key it counts under, and its exactness. It depends on the
    text alone, and a file repeats a few texts many times: read once per search."""
    term = term_of(found, ctx.terms)
    if term is None or term.cjk:
        return None, "", 0.0
    return term, ctx.heads.get(term.text, term.text), exactness(found, term)
