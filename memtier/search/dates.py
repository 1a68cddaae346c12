"""Dates in a query, and the boost they give a dated note (PROTOCOL §9 `search`).

A daily note is named by its date (``memory/episodic/2026-11-09.md``) and its
title is that date, but a question says "on 9 November", "Nov 9th",
"2026-11-09", "yesterday" or "last Monday". `parse_dates` finds such phrases,
takes them out of the words to search for, and returns the days and months
they mean, judged from *today* (the workspace clock, so ``--now`` decides what
"yesterday" is). A day or month without a year is the latest one not after
today. Each day becomes an ISO term (``2026-11-09``), which the scan finds in
the note's title; the ranking then multiplies the score of a note whose file
name holds the day by `DAY_BOOST`, its month by `MONTH_BOOST`, its year (a year
said alone) by `YEAR_BOOST`: a year matches hundreds of notes, so it only
breaks ties and is never searched for as a word.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import NamedTuple

DAY_BOOST = 3.0
MONTH_BOOST = 1.5
YEAR_BOOST = 1.05

_MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december",
)  # fmt: skip
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# "sept" before "sep": the longer abbreviation first.
_MONTH = (
    r"(?P<month>january|february|march|april|may|june|july|august|september|october|"
    r"november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
)
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_PATTERNS = (
    re.compile(r"\b(?P<year>(?:19|20)\d\d)-(?P<mon>[01]\d)-(?P<day>[0-3]\d)\b"),
    re.compile(rf"\b(?:the\s+)?{_DAY}\s+(?:of\s+)?{_MONTH}(?:,?\s+{_YEAR})?\b"),
    re.compile(rf"\b{_MONTH}\s+{_DAY}(?:,?\s+{_YEAR})?\b"),
    re.compile(rf"\b{_MONTH}(?:\s+{_YEAR})?\b"),
    re.compile(r"\b(?:the\s+)?(?P<rel>day\s+before\s+yesterday|yesterday|today)\b"),
    re.compile(r"\blast\s+(?P<weekday>monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"),
    re.compile(r"\b(?:in\s+)?(?P<lone>(?:19|20)\d\d)\b"),
)


class DateHint(NamedTuple):
    """What the query said about dates, and the query without those words."""

    rest: str
    days: frozenset[date] = frozenset()
    months: frozenset[tuple[int, int]] = frozenset()
    years: frozenset[int] = frozenset()

    def boost(self, name: str) -> float:
        """The boost of a note whose file name starts with the ISO date *name[:10]*."""
        if not (self.days or self.months or self.years) or len(name) < 10:
            return 1.0
        try:
            day = date.fromisoformat(name[:10])
        except ValueError:
            return 1.0
        if day in self.days:
            return DAY_BOOST
        if (day.year, day.month) in self.months:
            return MONTH_BOOST
        return YEAR_BOOST if day.year in self.years else 1.0

    def most(self) -> float:
        if self.days:
            return DAY_BOOST
        if self.months:
            return MONTH_BOOST
        return YEAR_BOOST if self.years else 1.0

    def terms(self) -> list[str]:
        """The ISO forms to search for: each day, and each month said without a day."""
        found = [d.isoformat() for d in sorted(self.days)]
        return found + [f"{y:04d}-{m:02d}" for y, m in sorted(self.months)]


def _month_number(name: str) -> int:
    name = name.rstrip(".")
    return next(i for i, full in enumerate(_MONTHS, start=1) if full.startswith(name[:3]))


def _latest(today: date, month: int, day: int | None) -> tuple[int, int, int] | None:
    """The latest (year, month, day) not after *today* (day None: the month)."""
    for year in (today.year, today.year - 1):
        try:
            candidate = date(year, month, day or 1)
        except ValueError:
            return None
        if candidate <= today:
            return year, month, day or 0
    return None


def parse_dates(query: str, today: date) -> DateHint:
    """The dates *query* names (see the module text); *rest* keeps the other words."""
    text = query.lower()
    days: set[date] = set()
    months: set[tuple[int, int]] = set()
    years: set[int] = set()
    for pattern in _PATTERNS:
        for m in pattern.finditer(text):
            if _take(m, today, days, months, years):
                text = text[: m.start()] + " " * (m.end() - m.start()) + text[m.end() :]
    if not (days or months or years):
        return DateHint(query)
    return DateHint(" ".join(text.split()), frozenset(days), frozenset(months), frozenset(years))


def _take(
    m: re.Match[str], today: date, days: set[date], months: set[tuple[int, int]], years: set[int]
) -> bool:
    """Record what match *m* means; False if it means no date (then it stays a word)."""
    found = m.groupdict()
    if found.get("lone"):
        years.add(int(found["lone"]))
        return True
    if found.get("rel"):
        back = {"today": 0, "yesterday": 1}.get(found["rel"], 2)
        days.add(today - timedelta(days=back))
        return True
    if found.get("weekday"):
        back = (today.weekday() - _WEEKDAYS.index(found["weekday"])) % 7 or 7
        days.add(today - timedelta(days=back))
        return True
    if found.get("mon"):
        month = int(found["mon"])
    elif found.get("month"):
        if found["month"] == "may" and not found.get("day") and not found.get("year"):
            return False  # "may" alone is far more often the verb
        month = _month_number(found["month"])
    else:
        return False
    day = int(found["day"]) if found.get("day") else None
    if found.get("year"):
        try:
            picked = date(int(found["year"]), month, day or 1)
        except ValueError:
            return False
        if day is None:
            months.add((picked.year, picked.month))
        else:
            days.add(picked)
        return True
    latest = _latest(today, month, day)
    if latest is None:
        return False
    if day is None:
        months.add(latest[:2])
    else:
        days.add(date(*latest))
    return True
