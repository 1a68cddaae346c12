"""The clock (PROTOCOL §1): an ISO 8601 override or the local system time.

The core never asks the system for the time; the CLI resolves *now* once with
`resolve_now` and passes it down. "Today" is the calendar date of *now* in
now's own UTC offset.
"""

from __future__ import annotations

import re
from datetime import date, datetime

from memtier.errors import InputError, Term

# The buffer timestamp grammar of PROTOCOL §2 (compat with the original script).
MIN_YEAR = 1900
MAX_YEAR = 9000
TIMESTAMP_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d([.,]\d+)?(Z|[+-]\d\d:\d\d)$")


def system_now() -> datetime:
    """Local wall-clock time with its UTC offset, to the second."""
    return datetime.now().astimezone().replace(microsecond=0)


def parse_now(value: str, *, source: str = "--now") -> datetime:
    """Parse an ISO 8601 override; a value without an offset is taken as local time."""
    text = value.strip()
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        parsed = _parse_other_iso_forms(text, value, source)
    # Rules subtract up to a century (TTLs) and add offsets: a moment near year 1
    # or 9999 would overflow the date arithmetic somewhere in a command.
    if not MIN_YEAR <= parsed.year <= MAX_YEAR:
        raise InputError(
            f"{source}: {parsed.year:04d} is out of range (a year from {MIN_YEAR} to {MAX_YEAR})"
        )
    if parsed.tzinfo is None:
        parsed = parsed.astimezone()
    return parsed


def _parse_other_iso_forms(text: str, value: str, source: str) -> datetime:
    """ISO 8601 forms the standard library does not read (basic format such as
    ``20261130T091500Z``, week dates such as ``2026-W49-1``), through dateutil."""
    from dateutil.parser import isoparse  # only for the rarer forms: keeps start-up lean

    try:
        if not text:
            raise ValueError(text)
        parsed: datetime = isoparse(text)
    except (ValueError, OverflowError):
        raise InputError(
            f"{source}: not an ISO 8601 date-time: {value!r} "
            "(expected e.g. 2026-11-30T09:15:00+01:00)"
        ) from None
    return parsed


def resolve_now(option: str | None, env_value: str | None) -> datetime:
    """`--now` beats ``$MEMTIER_NOW`` beats the system clock."""
    if option is not None:
        return parse_now(option, source="--now")
    if env_value:
        return parse_now(env_value, source="MEMTIER_NOW")
    return system_now()


def today(now: datetime) -> date:
    """The calendar date of *now* in its own offset."""
    return now.date()


def format_timestamp(moment: datetime) -> str:
    """Seconds precision with a ``+HH:MM`` offset, as memtier writes timestamps."""
    return moment.replace(microsecond=0).isoformat(timespec="seconds")


def parse_timestamp(text: str) -> datetime | None:
    """A buffer timestamp if it matches PROTOCOL §2's grammar and is a real moment."""
    if not TIMESTAMP_RE.match(text):
        return None
    try:
        return datetime.fromisoformat(text.replace(",", "."))
    except ValueError:
        return None


_DATE_RE = re.compile(r"^\d{4}-\d\d-\d\d$")


def require_in_range(day: date) -> date:
    """*day* if its year is one the clock accepts (`MIN_YEAR`..`MAX_YEAR`), else an
    `InputError`: a note dated 9999-12-31 or 1899 is refused wherever a date is
    given, as ``--now`` refuses such a moment (both faces go through here, and each
    words the parameter: ``--date``, ``date``)."""
    if not MIN_YEAR <= day.year <= MAX_YEAR:
        raise InputError(
            (
                Term("date"),
                f": {day.isoformat()} is out of range (a year from {MIN_YEAR} to {MAX_YEAR})",
            )
        )
    return day


def parse_day(text: str) -> date | None:
    """A ``YYYY-MM-DD`` string that names a real calendar date, else None."""
    if not _DATE_RE.match(text):
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None
