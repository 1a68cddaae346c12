"""One retry for a query that found nothing: its words within one typo (PROTOCOL §9 `search`).

A word of four letters or more is looked for again as every word one edit away
(a letter dropped, added, changed, or two neighbours swapped), with the short
endings a term may carry: one scan of all the tier files with that pattern. Each query word is then
replaced by the word the scan saw most often among those it matched (ties:
alphabetical), and the search runs once more with the corrected words; the
report says ``no exact match; showing results for …``. A word with no such
neighbour stays as it was; if no word changed, there is no retry.
"""

from __future__ import annotations

from collections import Counter

from memtier.search.tokens import EXTENSION, Term, escape, normalise, stem

MIN_LENGTH = 4


def fuzzy_pattern(terms: tuple[Term, ...]) -> str | None:
    """Every word one edit away from a term (whole words), or None if no term fits."""
    variants: list[str] = []
    for term in terms:
        if not _fits(term):
            continue
        text = term.text
        for i in range(len(text) + 1):
            head, tail = escape(text[:i]), escape(text[i:])
            variants.append(rf"{head}\w{tail}")  # a letter added
            if i < len(text):
                rest = escape(text[i + 1 :])
                variants.append(f"{head}{rest}")  # a letter dropped
                variants.append(rf"{head}\w{rest}")  # a letter changed
            if i + 1 < len(text):
                swapped = text[:i] + text[i + 1] + text[i] + text[i + 2 :]
                variants.append(escape(swapped))
    if not variants:
        return None
    return rf"\b(?:{'|'.join(sorted(set(variants)))})\w{{0,{EXTENSION}}}\b"


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
        words[stem(normalise(text))] += n  # compared as query terms are: stemmed
    fixed: dict[str, str] = {}
    for term in terms:
        if not _fits(term):
            continue
        near = [(-n, w) for w, n in words.items() if within_one_edit(term.text, w)]
        if near:
            fixed[term.text] = min(near)[1]
    return fixed
