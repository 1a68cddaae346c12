"""One retry for a query that found nothing: its words within one typo (PROTOCOL §9 `search`).

A word of four letters or more is looked for again as every word one edit away
(a letter dropped, added, changed, or two neighbours swapped), with the short
endings a term may carry: one scan of all the tier files with that pattern. Each query word is then
replaced by the word the scan saw most often among those it matched (ties:
alphabetical), and the search runs once more with the corrected words; the
report says ``no exact match; showing results for …``. A word with no such
neighbour stays as it was; if no word changed, there is no retry.

The pattern anchors each word at an ASCII word start, as `tokens.scan_pattern`
does, and takes the rest of the word whole: a Unicode ``\b`` sends ripgrep to its
slow engine, and this scan reads every tier file exactly when the query found
nothing (measured at 10,000 notes: 0.8 s for one word, 6 s for three, against
0.07 s). A variant whose first letter is the added or changed one starts with an
ASCII letter after an ASCII word start, or with a non-ASCII character where no
ASCII word boundary is; `corrections` keeps only texts that are whole words.
"""

from __future__ import annotations

import re
from collections import Counter

from memtier.search.tokens import Term, at_word_starts, escape, normalise, stem

MIN_LENGTH = 4
_WORD_RE = re.compile(r"\w+")


def fuzzy_pattern(terms: tuple[Term, ...]) -> str | None:
    """Every word one edit away from a term (from a word start to the word's end),
    or None if no term fits."""
    ascii_start: set[str] = set()  # variants that begin with an ASCII letter
    other_start: set[str] = set()  # variants that begin with a non-ASCII character
    for term in terms:
        if not _fits(term):
            continue
        text = term.text
        for i in range(len(text) + 1):
            head, tail = escape(text[:i]), escape(text[i:])
            rest = escape(text[i + 1 :]) if i < len(text) else None
            # a letter added (before text[i]) or changed (text[i])
            slotted = [tail] if rest is None else [tail, rest]
            for after in slotted:
                if i:
                    _file(rf"{head}\w{after}", text[0], ascii_start, other_start)
                else:
                    ascii_start.add(f"{ASCII_LETTER}{after}")
                    other_start.add(f"{NON_ASCII}{after}")
            if rest is not None:  # a letter dropped
                _file(f"{head}{rest}", text[0] if i else text[1], ascii_start, other_start)
            if i + 1 < len(text):
                swapped = text[:i] + text[i + 1] + text[i] + text[i + 2 :]
                _file(escape(swapped), swapped[0], ascii_start, other_start)
    if not ascii_start and not other_start:
        return None
    return "|".join(at_word_starts(sorted(ascii_start), sorted(other_start), r"\w*"))


# The first letter of a variant, when it is the added or changed one.
ASCII_LETTER = "[a-z0-9_]"
NON_ASCII = r"[^\x00-\x7f]"


def _file(variant: str, first: str, ascii_start: set[str], other_start: set[str]) -> None:
    (ascii_start if first.isascii() else other_start).add(variant)


def _fits(term: Term) -> bool:
    return not term.cjk and term.text.isalpha() and len(term.text) >= MIN_LENGTH


def within_one_edit(a: str, b: str) -> bool:
    """True when *b* is *a* with one letter added, dropped, changed, or two swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        if len(diff) == 1:
            return True
        return (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]]
            and (a[diff[1]] == b[diff[0]])
        )
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def corrections(seen: Counter[str], terms: tuple[Term, ...]) -> dict[str, str]:
    """For each term that fits, the word one edit away the scan saw most often."""
    words = Counter[str]()
    for text, n in seen.items():
        if not _WORD_RE.fullmatch(text):
            continue  # a variant begun by a dash or a symbol, not a word
        words[stem(normalise(text))] += n  # compared as query terms are: stemmed
    fixed: dict[str, str] = {}
    for term in terms:
        if not _fits(term):
            continue
        near = [(-n, w) for w, n in words.items() if within_one_edit(term.text, w)]
        if near:
            fixed[term.text] = min(near)[1]
    return fixed
