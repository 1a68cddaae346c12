"""Quoted phrases in a query: ripgrep looks for the phrase, not for its words apart.

A part of the query between double quotes (``"kernel upgrade"``, also ``“…”`` and
``„…“``) holding two words or more is a phrase (DECISIONS): a file is found by it
only where its words stand together, in order, as written, with any run of spaces
or tabs between them on one line. Case and accents are folded as for every term
(``"Kernel Upgräde"`` is found by ``"kernel upgrade"``), the first word starts a
word and the last one may go on (``"kernel upgrade"`` finds ``kernel upgraded``),
as a term's pattern does (`tokens.scan_pattern`).

The phrase goes to the scan as one pattern, so ripgrep does the narrowing: the
files holding the phrase are few, and ripgrep prints little (measured against
`rg -l -i` of the phrase: bench/search). The phrase's words are still the
ranking's terms (in the form `tokens.query_terms` gives them, their optional
forms and compounds left out: the phrase says how they are written), counted in
the phrase's matched texts. Quotes around one word, or a quote left open, change
nothing: the query is read as without them.
"""

from __future__ import annotations

import re

from memtier.search.tokens import (
    Term,
    at_word_starts,
    fold,
    is_cjk,
    python_pattern,
    query_terms,
)
from memtier.values import NamedTuple

__all__ = ["Quoted", "phrase_pattern", "phrase_re", "phrase_terms", "phrase_words", "quoted"]

# An opening quote and the closing quotes it takes: straight, English, German.
# Compiled on first use, by re's own cache: only a query with a quote needs it.
_QUOTED = r'"([^"\n]*)"|“([^”“\n]*)”|„([^“”\n]*)[“”]'
_OPENING = ('"', "“", "„")
# What stands between two words of a phrase in the text: spaces or tabs, never a
# line break (ripgrep runs with --multiline; a match must stay on one line).
SEPARATOR = r"[ \t]+"


class Quoted(NamedTuple):
    """A query read for its phrases: the query without them (*rest*), and each
    phrase's words, folded (lowercase, accents folded), in order."""

    rest: str
    phrases: tuple[tuple[str, ...], ...] = ()


def quoted(query: str) -> Quoted:
    """*query*'s phrases, and the query without them; a query with none (quotes
    around one word, a quote left open) is returned exactly as it is."""
    if '"' not in query and "“" not in query and "„" not in query:
        return Quoted(query)
    phrases: list[tuple[str, ...]] = []
    kept: list[str] = []
    start = 0
    if not any(mark in query for mark in _OPENING):
        return Quoted(query)
    for match in re.finditer(_QUOTED, query):
        inside = next(group for group in match.groups() if group is not None)
        words = tuple(fold(word) for word in inside.split())
        if len(words) < 2:
            continue
        if words not in phrases:
            phrases.append(words)
        kept.append(query[start : match.start()])
        start = match.end()
    if not phrases:
        return Quoted(query)
    kept.append(query[start:])
    return Quoted(" ".join(part.strip() for part in kept if part.strip()), tuple(phrases))


def phrase_pattern(words: tuple[str, ...]) -> str:
    """The scan's pattern for the phrase *words* (`quoted`), in ripgrep's syntax
    (`tokens.python_pattern` gives Python's): each letter takes its accented forms,
    anything else stands as written; the first word is anchored where a word starts
    as a term is (`tokens.at_word_starts`), unless it starts with no letter or digit
    or with a CJK character."""
    # compound=True: a word of the phrase as written, without the optional hyphen or
    # space a long term takes between its parts.
    bodies = [Term(word, compound=True).body() for word in words]
    rest = SEPARATOR + SEPARATOR.join(bodies[1:])
    first = Term(words[0], compound=True)
    head = words[0][0]
    if not head.isalnum() or is_cjk(head):
        return bodies[0] + rest  # found anywhere, as a CJK term is
    plain = [body for body in (first.body("ascii"),) if body]
    other = [body for body in (first.body("other"),) if body]
    return "|".join(at_word_starts(plain, other, rest))


def phrase_terms(phrases: tuple[tuple[str, ...], ...]) -> tuple[Term, ...]:
    """The ranking's terms of *phrases*: each phrase's words as `query_terms` reads
    them (stopwords dropped beside other words, suffixes stemmed), without the
    optional forms and compounds it adds."""
    found: list[Term] = []
    for words in phrases:
        for term in query_terms(" ".join(words)):
            if not term.compound and term not in found:
                found.append(term)
    return tuple(found)


def phrase_re(phrases: tuple[str, ...]) -> re.Pattern[str] | None:
    """The quoted phrases' patterns (`phrase_pattern`), in Python's syntax."""
    if not phrases:
        return None
    return re.compile("|".join(python_pattern(p) for p in phrases), re.IGNORECASE)


def phrase_words(body: bytes, phrase: re.Pattern[str]) -> bytes:
    """Matched texts with each quoted phrase's match cut into its words, one per line:
    raw matched texts are counted one text a term (`pick.raw_counts`), as the
    built-in scanner counts each term of a phrase."""
    if b" " not in body and b"\t" not in body:
        return body
    lines: list[bytes] = []
    for line in body.split(b"\n"):
        if phrase.fullmatch(line.decode("utf-8", "replace")):
            lines.extend(line.split())
        else:
            lines.append(line)
    return b"\n".join(lines)
