"""Whole numbers typed by a person or an agent, read with a bound (PROTOCOL §3 bad input).

One parser for every integer memtier takes from user input (a task number, a
line range, a candidate number, a count): ASCII digits only (``²`` or ``١`` are
not a number here), at most `MAX_DIGITS` of them, and within the caller's
bounds. Anything else is an `InputError` (exit 2) that says what was expected;
a 5,000-digit number never reaches Python's own conversion limit (exit 3).
Pure text in, a number out.
"""

from __future__ import annotations

from memtier.errors import InputError

# Far beyond any line, task or count a workspace holds; far below the digits at
# which converting a string to an int becomes slow or is refused by Python.
MAX_DIGITS = 18


def is_number(text: str) -> bool:
    """True when *text* (spaces aside) is a run of ASCII digits: a number, not text."""
    stripped = text.strip()
    return bool(stripped) and stripped.isascii() and stripped.isdigit()


def shown(text: str, limit: int = 24) -> str:
    """*text* as quoted in a message: a long run of digits is cut, never echoed whole."""
    stripped = text.strip()
    return stripped if len(stripped) <= limit else f"{stripped[:limit]}… ({len(stripped)} chars)"


def parse_int(
    text: str, what: str, *, minimum: int | None = None, maximum: int | None = None
) -> int:
    """*text* as a whole number between *minimum* and *maximum* (inclusive, when
    given); `InputError` naming *what* otherwise."""
    stripped = text.strip()
    if not is_number(stripped):
        raise InputError(f"{what}: not a whole number: {shown(stripped)!r}")
    digits = stripped.lstrip("0") or "0"
    if len(digits) > MAX_DIGITS:
        raise InputError(f"{what}: number too large ({len(digits)} digits)")
    value = int(digits)
    if minimum is not None and value < minimum:
        raise InputError(f"{what}: must be at least {minimum} (got {value})")
    if maximum is not None and value > maximum:
        raise InputError(f"{what}: must be at most {maximum} (got {value})")
    return value
