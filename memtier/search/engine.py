"""A ``--regex`` read by Python: the built-in scanner's, and where a --regex's
positions are found in the lines the ranking read (`scanner.locate`).

The pattern is compiled for a linear-time engine when there is one (RE2); the
features ripgrep refuses are refused in its words; a match is reported as
ripgrep reports it: 1-based line, 1-based byte column, never across lines, never
empty.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from types import ModuleType

from memtier.errors import InputError
from memtier.search.found import Match
from memtier.search.tokens import python_pattern, re2_pattern

__all__ = [
    "LinePattern",
    "ascii_lower",
    "byte_matches",
    "compile_pattern",
    "linear_engine",
    "matches_in",
]


# Features ripgrep's default engine refuses; the built-in scanner refuses them the
# same way, so a pattern means the same with either engine.
# (Compiled on first use, by re's own cache: only a --regex is checked.)
_UNSUPPORTED = (
    (r"\(\?<?[=!]", "look-around (look-ahead and look-behind) is not supported"),
    (r"(?<!\\)(?:\\\\)*\\[1-9]", "backreferences are not supported"),
)


def refuse_unsupported(pattern: str) -> None:
    """One refusal, in the same words, whichever engine would run the pattern."""
    for feature, reason in _UNSUPPORTED:
        if re.search(feature, pattern):
            raise InputError(f"invalid search pattern: {reason}")


# Not typing's: importing it costs a search 3-4 ms. Type checkers read this as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class FoundSpan(Protocol):
        """What the scan reads of one match, from ``re`` or from RE2 alike."""

        def start(self) -> int: ...

        def end(self) -> int: ...

        def group(self) -> str: ...

    class LinePattern(Protocol):
        """A compiled ``--regex``: ``re``'s or RE2's, which both find every match in a text."""

        def finditer(self, text: str) -> Iterator[FoundSpan]: ...

    class ByteSpan(Protocol):
        """A match RE2 found in bytes: its byte offsets."""

        def span(self) -> tuple[int, int]: ...


@functools.cache
def linear_engine() -> ModuleType | None:
    """The ``re2`` module (google-re2), imported once, or None when it is not installed."""
    try:
        import re2
    except ImportError:
        return None
    engine: ModuleType = re2
    return engine


def compile_pattern(pattern: str, *, ignore_case: bool) -> LinePattern:
    """A ``--regex`` pattern for the built-in scanner, in linear time when possible.

    google-re2 (RE2, the same family of automata as ripgrep's engine) matches in
    time linear in the text, so ``(a+)+$`` cannot hang a search; without it the
    standard ``re`` is used. Look-around and backreferences are refused by both
    paths with ripgrep's wording, since neither linear engine has them.
    """
    refuse_unsupported(pattern)
    re2 = linear_engine()
    if re2 is not None:
        pattern = re2_pattern(pattern)  # ripgrep's ASCII boundaries (ours, and a person's)
        options = re2.Options()
        options.log_errors = False  # RE2 would print its own message on stderr
        options.case_sensitive = not ignore_case
        options.posix_syntax = False
        try:
            compiled: LinePattern = re2.compile("(?m)" + pattern, options=options)
            return compiled
        except re2.error as exc:
            reason = exc.args[0] if exc.args else exc
            if isinstance(reason, bytes):
                reason = reason.decode("utf-8", "replace")
            reason = str(reason).replace("(?m)", "", 1)  # our prefix, not the person's
            raise InputError(f"invalid search pattern: {reason}") from None
    pattern = python_pattern(pattern)
    try:
        return re.compile(pattern, re.MULTILINE | (re.IGNORECASE if ignore_case else 0))
    except re.error as exc:
        raise InputError(f"invalid search pattern: {exc}") from None


def ascii_lower(text: str) -> str:
    """Lowercase ASCII letters only, as ``bytes.lower`` does on ripgrep's output."""
    return text.encode("utf-8").lower().decode("utf-8")


def matches_in(text: str, regex: LinePattern) -> list[Match]:
    found: list[Match] = []
    line_no = 1
    line_start = 0
    scanned = 0
    for m in regex.finditer(text):
        if m.start() == m.end() or "\n" in m.group():
            continue  # ripgrep never matches across lines and prints no empty match
        line_no += text.count("\n", scanned, m.start())
        scanned = m.start()
        line_start = text.rfind("\n", 0, m.start()) + 1
        column = len(text[line_start : m.start()].encode("utf-8")) + 1
        found.append((line_no, column, m.group().rstrip("\r")))
    return found


def byte_matches(data: bytes, regex: LinePattern) -> list[tuple[int, int, bytes]]:
    """`matches_in` for RE2's *regex* over UTF-8 *data*: each match's line, byte column and
    bytes. RE2 reads bytes as they are, where text costs its wrapper a conversion
    of every offset to characters and back (measured on the 50 files a broad
    --regex's ranking reads: about half the time). After an empty match RE2 moves
    on by a byte, not a character: a match that starts or ends inside a character
    can then be found, which the caller tells by its bytes not decoding."""
    # RE2's finditer reads bytes as well as text (``re``'s reads what it was compiled for).
    finditer: Callable[[bytes], Iterator[ByteSpan]] = regex.finditer  # type: ignore[assignment]
    found: list[tuple[int, int, bytes]] = []
    line_no = 1
    scanned = 0
    for m in finditer(data):
        start, end = m.span()
        text = data[start:end]
        if start == end or b"\n" in text:
            continue  # ripgrep never matches across lines and prints no empty match
        line_no += data.count(b"\n", scanned, start)
        scanned = start
        found.append((line_no, start - data.rfind(b"\n", 0, start), text.rstrip(b"\r")))
    return found
