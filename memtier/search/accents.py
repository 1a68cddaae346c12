"""The accent classes of the ranking's word pattern, rewritten for Python's ``re``
(`tokens.precise_re`); the scan's pattern keeps them as they are.

An accent class (``[sšś]``, `tokens._VARIANTS`) holds a plain letter and its
accented forms: letters only, no range, no escape. For ASCII text, the pattern is
also matched with case on the text lowercased (`lowered_re`).
"""

from __future__ import annotations

import functools
import re

# An accent class holding a letter above U+00FF.
_WIDE_CLASS_RE = re.compile(r"\[([^\]\\^-]*[^\x00-\xff][^\]\\^-]*)\]")
# An accent class holding a letter that is not ASCII.
_ACCENT_CLASS_RE = re.compile(r"\[([^\]\\^-]*[^\x00-\x7f][^\]\\^-]*)\]")


def cheap_classes(pattern: str) -> str:
    """*pattern* with each accent class holding a letter above U+00FF (``[sšś]``)
    written as an alternation that matches the same characters (``(?:[s]|š{1}|ś{1})``).
    Python's compiler maps such a class over all 65,536 code points, about half a
    millisecond each: a three-word query held twenty of them, 10-25 ms of compiling
    in every search. The ``{1}`` keeps the parser from merging the letters back into
    a class; the letters up to U+00FF stay a class, which compiles cheaply."""
    return _WIDE_CLASS_RE.sub(_alternation, pattern)


def _alternation(found: re.Match[str]) -> str:
    letters = found.group(1)
    narrow = "".join(ch for ch in letters if ch <= "\xff")
    wide = [f"{ch}{{1}}" for ch in letters if ch > "\xff"]
    return "(?:" + "|".join(([f"[{narrow}]"] if narrow else []) + wide) + ")"


def ascii_classes(pattern: str) -> str:
    """*pattern* for ASCII text: each accent class reduced to its ASCII letters. No
    accented letter matches an ASCII character, even case-blind (a test checks each)."""
    return _ACCENT_CLASS_RE.sub(_ascii_class, pattern)


def _ascii_class(found: re.Match[str]) -> str:
    letters = "".join(ch for ch in found.group(1) if ch.isascii())
    return f"[{letters}]" if letters else "(?!)"  # (?!): nothing an ASCII text holds


# Accents: a query word matches its accented and unaccented forms alike (``cafe``
# finds ``Café``, ``zoë`` finds ``Zoe``): each plain letter with its accented forms,
# lowercase (both scanners ignore case). `tokens` builds the accent classes from it.
ACCENTED = {
    "a": "àáâãäåā", "c": "çćč", "e": "èéêëēě", "i": "ìíîïī", "n": "ñń", "o": "òóôõöøō",
    "u": "ùúûüū", "y": "ýÿ", "s": "šś", "z": "žźż", "l": "ł", "r": "ř",
}  # fmt: skip
# A line's accented letters, each replaced by its plain letter: one character for
# one, so every match keeps its place (`folds_exactly`). These are the letters an
# accent class takes case-blind beyond what its plain letter takes: the accented
# forms in both cases, and the Angstrom sign, which Python's ``re`` folds to "å". A
# test derives this table from ``re`` itself over every code point.
FOLD_LINE = str.maketrans(
    {ch: plain for plain, forms in ACCENTED.items() for ch in forms + forms.upper()}
    | {"\u212b": "a"}
)
_PLAIN_LETTERS = frozenset(ACCENTED) | frozenset(plain.upper() for plain in ACCENTED)


def folds_exactly(pattern: str, classes: frozenset[str]) -> bool:
    """Whether *pattern* (case-blind, its accent classes as ``[eèé…]``) finds in a
    line what `ascii_classes` of it finds in the line translated with `FOLD_LINE`,
    at the same places: then that cheap form serves every line without CJK, and the
    wide one (`cheap_classes`: 1-7 ms to compile) is never needed. *classes*: the
    pattern's classes that take a folded letter exactly when they take the letter
    itself (its accent classes, and any of no letter at all).

    It does where, outside *classes* and plain escapes (`_TYPE_ESCAPE_RE`), the
    pattern names no other class, no plain letter of an accent class (so no flag
    either: ``(?a:…)``, ``(?-i:…)``) and no letter outside ASCII:
    each class then takes a folded letter exactly when it took the letter itself;
    every other part takes neither an accented letter nor its plain letter (ASCII
    letters do not fold to each other, and an accented letter is no ASCII letter
    case-blind); and a folded letter is a word character like the letter it stands
    for, so ``\\b`` and ``\\w`` are where they were. A short word's endings
    (``e?s|ed|ing|n(?:ed|ing)``), a day's ordinal (``st|nd|rd|th``) and a shape's
    pattern name such letters: those patterns keep the wide form."""
    rest = pattern
    for accent_class in classes:
        rest = rest.replace(accent_class, "")
    rest = _TYPE_ESCAPE_RE.sub("", rest)
    return (
        not any(ch in rest for ch in "[\\") and rest.isascii() and _PLAIN_LETTERS.isdisjoint(rest)
    )


# The escapes `folds_exactly` lets through: a word boundary, a class that takes a
# letter exactly when it takes its folded letter (word, digit, space, and their
# negations), ASCII punctuation. Any other escape (``\\x65`` is "e") keeps the wide form.
_TYPE_ESCAPE_RE = re.compile(r"\\[bBwWdDsS]|\\[^\w\s]")


@functools.lru_cache(maxsize=64)
def lowered_re(narrow: re.Pattern[str]) -> re.Pattern[str] | None:
    """*narrow* (`precise_re` for ASCII text) matched with case, for ASCII text
    lowercased first: the same spans, found about twice as fast as case-blind. An
    ASCII letter matches case-blind exactly its two cases (the letters that fold
    otherwise, ``ſ`` or the Kelvin sign, are not ASCII), so this holds while every
    letter the pattern names, escapes aside, is lowercase; None when one is not."""
    if _UPPER_LETTER_RE.search(_ESCAPED_RE.sub("", narrow.pattern)):
        return None
    return re.compile(narrow.pattern, narrow.flags & ~re.IGNORECASE)


_ESCAPED_RE = re.compile(r"\\.")
_UPPER_LETTER_RE = re.compile(r"[A-Z]")
