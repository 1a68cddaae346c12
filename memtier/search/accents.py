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
