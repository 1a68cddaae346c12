"""Dates in a query, and the boost they give a dated note (PROTOCOL §9 `search`).

A daily note is named by its date (``memory/episodic/2026-11-09.md``) and its
title is that date, but a question says "on 9 November", "Nov 9th",
"2026-11-09", "yesterday" or "last Monday". `parse_dates` finds such phrases,
takes them out of the words to search for, and returns the days and months
they mean, judged from *today* (the workspace clock, so ``--now`` decides what
"yesterday" is). A day or month without a year is the latest one not after
today in a month the workspace holds dated notes of (`noted_months`), else the
latest one not after today. Each day becomes an ISO term (``2026-11-09``), which the scan finds in
the note's title; the ranking then multiplies the score of a note whose file
name holds the day by `DAY_BOOST`, the note of the day after it (which tells
what happened "yesterday") by `NEXT_DAY_BOOST`, its month by `MONTH_BOOST`, its year (a year
said alone) by `YEAR_BOOST`: a year matches hundreds of notes, so it only
breaks ties and is never searched for as a word.

German is read the same way (PROTOCOL §9 v3): ``2. März``, ``am 2. März``,
``02.03.``, ``2.3.2027``, ``gestern``, ``vorgestern``, ``letzten Montag``, the
month names with or without their umlaut (``März``, ``Maerz``, ``Marz``; Austria's
``Jänner`` and ``Feber`` too). The
query is matched in its folded form (lowercase, accents dropped), so ``März``
is ``marz``. A week ("last week", ``letzte Woche``: Monday to Sunday of the
week before this one) boosts each of its notes by `WEEK_BOOST`; its days are
searched for only when the query has no other word.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Collection
from datetime import date, timedelta

from memtier.values import NamedTuple

# The (year, month) of every dated note the workspace holds, asked for only when a
# query names a month or a day without its year (`parse_dates`).
NotedMonths = Callable[[], Collection[tuple[int, int]]]

DAY_BOOST = 3.0
# The note of the day after a day said: it tells what happened "yesterday" (v4).
NEXT_DAY_BOOST = 2.0
WEEK_BOOST = 2.0
MONTH_BOOST = 1.5
YEAR_BOOST = 1.05

_MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december",
)  # fmt: skip
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# German names in their folded form (no umlauts), each with its English one.
_GERMAN_MONTHS = {
    "januar": "january", "janner": "january", "jaenner": "january", "februar": "february",
    "feber": "february", "marz": "march", "maerz": "march",
    "mrz": "march", "mai": "may", "juni": "june", "juli": "july", "oktober": "october",
    "okt": "october", "dezember": "december", "dez": "december",
}  # fmt: skip
_GERMAN_WEEKDAYS = {
    "montag": "monday", "dienstag": "tuesday", "mittwoch": "wednesday",
    "donnerstag": "thursday", "freitag": "friday", "samstag": "saturday",
    "sonnabend": "saturday", "sonntag": "sunday",
}  # fmt: skip
# Longer names first ("sept" before "sep", "maerz" before "mar").
_MONTH = (
    r"(?P<month>january|february|march|april|may|june|july|august|september|october|"
    r"november|december|januar|jaenner|janner|februar|feber|maerz|marz|mrz|mai|juni|juli|"
    r"oktober|okt|dezember|"
    r"dez|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
)
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th|\.)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_WEEKDAY = (
    r"(?P<weekday>monday|tuesday|wednesday|thursday|friday|saturday|sunday|montag|dienstag|"
    r"mittwoch|donnerstag|freitag|samstag|sonnabend|sonntag)"
)
_NTH = r"(?P<nth>first|1st|second|2nd|third|3rd|fourth|4th|last|final)"
_ORDINALS = {
    "first": 1,
    "1st": 1,
    "second": 2,
    "2nd": 2,
    "third": 3,
    "3rd": 3,
    "fourth": 4,
    "4th": 4,
}
_COUNTS = {"two": 2, "three": 3, "2": 2, "3": 3}
# The first month of each season of the northern half of the world.
_SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
# German words that only lead into a date ("am 2. März", "vom 3.", "im März", "seit").
_INTO = r"(?:(?:am|vom|im|seit|ab|bis)\s+)?"
# The patterns are compiled on first use (`_patterns`), by a query that may name a
# date (`may_name_a_date`): compiling them cost about 3 ms of every search's start.
_SOURCES = (
    (r"\b(?P<year>(?:19|20)\d\d)-(?P<mon>[01]\d)-(?P<day>[0-3]\d)\b"),
    # A week or weekend of a month: "the first weekend of October", "last two weeks of May".
    (
        rf"\b(?:the\s+|in\s+the\s+|during\s+the\s+)?{_NTH}\s+(?:(?P<count>two|three|2|3)\s+)?"
        rf"(?P<span>weekend|week)s?\s+(?:of|in)\s+{_MONTH}(?:(?:,\s*|\s+){_YEAR})?\b"
    ),
    # German numbers: 02.03. and 2.3.2027, never inside a version or an address.
    (
        r"(?<![\w.])(?P<day>[0-3]?\d)\.(?P<mon>[01]?\d)\.(?:(?P<year>(?:19|20)\d\d)(?!\w|\.\d))?(?!\d)"
    ),
    (rf"\b{_INTO}(?:the\s+)?{_DAY}\s*(?:of\s+)?{_MONTH}(?:(?:,\s*|\s+){_YEAR})?\b"),
    (rf"\b{_MONTH}\s+{_DAY}(?:(?:,\s*|\s+){_YEAR})?\b"),
    (rf"\b{_INTO}{_MONTH}(?:\s+{_YEAR})?\b"),
    # A season of a year (v4): "summer 2022", "the fall of 2021" (northern seasons).
    (rf"\b(?P<season>spring|summer|autumn|fall|winter)\s+(?:of\s+)?{_YEAR}\b"),
    (r"\b(?:the\s+)?(?P<rel>day\s+before\s+yesterday|yesterday|today|vorgestern|gestern|heute)\b"),
    (rf"\b{_INTO}(?:last|letzten|letzter|vergangenen|vergangener)\s+{_WEEKDAY}\b"),
    (
        r"\b(?P<week>last\s+week|(?:in\s+der\s+)?(?:letzte|letzten|vergangene|vergangenen)\s+woche)\b"
    ),
    (r"\b(?:in\s+)?(?P<lone>(?:19|20)\d\d)\b"),
)
# What every pattern needs besides a digit: a month's name or short form, a relative
# day, "week", a weekday ("day", "tag" and the two German names without it).
_NEEDLES = (
    "jan", "jaen", "feb", "mar", "maerz", "mrz", "apr", "may", "mai", "jun", "jul", "aug", "sep",
    "oct", "okt", "nov", "dec", "dez", "today", "yesterday", "heute", "gestern", "week",
    "woche", "day", "tag", "mittwoch", "sonnabend",
)  # fmt: skip


@functools.cache
def _patterns() -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(source) for source in _SOURCES)


def may_name_a_date(folded: str) -> bool:
    """Whether a pattern could match *folded* (a query in `tokens.fold`'s form): it
    holds a digit (``\\d``: any decimal digit) or one of `_NEEDLES`. False means no
    pattern matches, so the query names no date."""
    return any(ch.isdecimal() for ch in folded) or any(n in folded for n in _NEEDLES)


_REL_DAYS = {"today": 0, "heute": 0, "yesterday": 1, "gestern": 1, "vorgestern": 2}


class DateHint(NamedTuple):
    """What the query said about dates, and the query without those words."""

    rest: str
    days: frozenset[date] = frozenset()
    months: frozenset[tuple[int, int]] = frozenset()
    years: frozenset[int] = frozenset()
    weeks: frozenset[date] = frozenset()  # the Monday of each week said
    # PROTOCOL §9 v4: the query with its date words kept as words (a month's name),
    # relative phrases, years and day numbers taken out.
    said: str = ""

    def words(self) -> str:
        """The query's words to search for, its date words among them (v4)."""
        return self.said or self.rest

    def boost(self, name: str) -> float:
        """The boost of a note whose file name starts with the ISO date *name[:10]*."""
        if not (self.days or self.months or self.years or self.weeks) or len(name) < 10:
            return 1.0
        try:
            day = date.fromisoformat(name[:10])
        except ValueError:
            return 1.0
        if day in self.days:
            return DAY_BOOST
        if day - timedelta(days=1) in self.days:
            return NEXT_DAY_BOOST
        if day - timedelta(days=day.weekday()) in self.weeks:
            return WEEK_BOOST
        if (day.year, day.month) in self.months:
            return MONTH_BOOST
        return YEAR_BOOST if day.year in self.years else 1.0

    def name_prefixes(self) -> tuple[str, ...]:
        """Beginnings of every file name `boost` can raise above 1: a name that starts
        with none of them is not boosted (a name that does may still not be, when its
        date is not a real one)."""
        week = {m + timedelta(days=i) for m in self.weeks for i in range(7)}
        after = {d + timedelta(days=1) for d in self.days}
        return (
            *(d.isoformat() for d in sorted(self.days | after | week)),
            *(f"{y:04d}-{m:02d}-" for y, m in sorted(self.months)),
            *(f"{y:04d}-" for y in sorted(self.years)),
        )

    def most(self) -> float:
        if self.days:
            return DAY_BOOST
        if self.weeks:
            return WEEK_BOOST
        if self.months:
            return MONTH_BOOST
        return YEAR_BOOST if self.years else 1.0

    def week_days(self) -> list[tuple[str, str]]:
        """Each day of each week said, ISO, with its week's Monday: a week is one term,
        its days forms of it (v4), as a month is one term."""
        return [
            ((monday + timedelta(days=i)).isoformat(), monday.isoformat())
            for monday in sorted(self.weeks)
            for i in range(7)
        ]

    def told_days(self, has_note: Callable[[date], bool]) -> list[tuple[str, str]]:
        """Each day said that has no note of its own (*has_note*), ISO, after the ISO
        date of the day after it: that day's note tells what happened "yesterday", so
        its title is a form of the day's term (v4), not only boosted (`NEXT_DAY_BOOST`)."""
        return [
            ((day + timedelta(days=1)).isoformat(), day.isoformat())
            for day in sorted(self.days)
            if not has_note(day)
        ]

    def terms(self, alone: bool = False) -> list[str]:
        """The ISO forms to search for: each day, and each month said without a day;
        with *alone* (the query has no other word) also each day of a week said."""
        found = [d.isoformat() for d in sorted(self.days)]
        if alone:
            week = {m + timedelta(days=i) for m in self.weeks for i in range(7)}
            found += [d.isoformat() for d in sorted(week - self.days)]
        return found + [f"{y:04d}-{m:02d}" for y, m in sorted(self.months)]


def _month_number(name: str) -> int:
    name = name.rstrip(".")
    name = _GERMAN_MONTHS.get(name, name)
    return next(i for i, full in enumerate(_MONTHS, start=1) if full.startswith(name[:3]))


def _latest(
    today: date, month: int, day: int | None, noted: NotedMonths | None = None
) -> tuple[int, int, int] | None:
    """The latest (year, month, day) not after *today* (day None: the month) whose
    month holds a dated note (*noted*); with no such note, the latest not after today."""
    years = sorted({y for y, m in noted() if m == month}, reverse=True) if noted else []
    for year in years:
        try:
            candidate = date(year, month, day or 1)
        except ValueError:
            continue
        if candidate <= today:
            return year, month, day or 0
    for year in (today.year, today.year - 1):
        try:
            candidate = date(year, month, day or 1)
        except ValueError:
            return None
        if candidate <= today:
            return year, month, day or 0
    return None


def parse_dates(query: str, today: date, noted: NotedMonths | None = None) -> DateHint:
    """The dates *query* names (see the module text); *rest* keeps the other words.

    A month or day said without its year is the latest one not after *today* in a
    month that holds a dated note (*noted*): "in June" in a workspace whose notes
    end in 2023 means June 2023, not a June of this year that no note is from."""
    from memtier.search.tokens import fold

    text = fold(query)  # one character for one: "märz" is "marz", offsets unchanged
    if not may_name_a_date(text):
        return DateHint(query)
    said = text
    days: set[date] = set()
    months: set[tuple[int, int]] = set()
    years: set[int] = set()
    weeks: set[date] = set()
    for pattern in _patterns():
        for m in pattern.finditer(text):
            if m.groupdict().get("week"):
                weeks.add(today - timedelta(days=today.weekday() + 7))
                taken = True
            elif m.groupdict().get("span"):
                taken = _take_span(m, today, weeks, months, noted)
            else:
                taken = _take(m, today, days, months, years, noted)
            if taken:
                text = _blank(text, m.start(), m.end())
                said = _said(said, m)
    if not (days or months or years or weeks):
        return DateHint(query)
    return DateHint(
        " ".join(text.split()),
        frozenset(days),
        frozenset(months),
        frozenset(years),
        frozenset(weeks),
        " ".join(said.split()),
    )


def _blank(text: str, start: int, end: int) -> str:
    return text[:start] + " " * (end - start) + text[end:]


def _said(text: str, m: re.Match[str]) -> str:
    """*text* with date match *m* reduced to the words a note's line would also say: the
    month's name (v4), and the "week" or "weekend" of a week of a month. A relative
    phrase ("yesterday", "last Monday"), a year, a day's number (as often a count or
    part of an address) and a date in figures are taken out."""
    found = m.groupdict()
    keep = [m.span(name) for name in ("month", "span", "season") if found.get(name)]
    if found.get("month") and found["month"].rstrip(".") == "may":
        keep = keep[1:]  # "may" is more often the verb
    out = _blank(text, m.start(), m.end())
    for start, end in keep:
        out = out[:start] + text[start:end] + out[end:]
    return out


def _take(
    m: re.Match[str],
    today: date,
    days: set[date],
    months: set[tuple[int, int]],
    years: set[int],
    noted: NotedMonths | None = None,
) -> bool:
    """Record what match *m* means; False if it means no date (then it stays a word)."""
    found = m.groupdict()
    if found.get("lone"):
        years.add(int(found["lone"]))
        return True
    if found.get("season"):
        # Its three months; a winter is the one that begins in December of its year.
        year = int(found["year"])
        first = _SEASONS[found["season"]]
        months.update((year + (first + i - 1) // 12, (first + i - 1) % 12 + 1) for i in range(3))
        return True
    if found.get("rel"):
        back = _REL_DAYS.get(found["rel"], 2)
        days.add(today - timedelta(days=back))
        return True
    if found.get("weekday"):
        weekday = _GERMAN_WEEKDAYS.get(found["weekday"], found["weekday"])
        back = (today.weekday() - _WEEKDAYS.index(weekday)) % 7 or 7
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
    latest = _latest(today, month, day, noted)
    if latest is None:
        return False
    if day is None:
        months.add(latest[:2])
    else:
        days.add(date(*latest))
    return True


def _take_span(
    m: re.Match[str],
    today: date,
    weeks: set[date],
    months: set[tuple[int, int]],
    noted: NotedMonths | None,
) -> bool:
    """Record the weeks of a month that match *m* names ("the second week of May"):
    the Nth week is the one (Monday to Sunday) holding the month's day 7·(N−1)+1, the
    last the one holding its last day, the Nth weekend the week of its Nth Saturday;
    "the last two weeks" are two weeks back from the last. The month counts too."""
    found = m.groupdict()
    month = _month_number(found["month"])
    if found.get("year"):
        year = int(found["year"])
    else:
        latest = _latest(today, month, None, noted)
        if latest is None:
            return False
        year = latest[0]
    first = date(year, month, 1)
    last = date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)
    count = _COUNTS.get(found.get("count") or "", 1)
    nth = _ORDINALS.get(found["nth"])
    if found["span"] == "weekend":
        saturday = first + timedelta(days=(5 - first.weekday()) % 7)
        saturdays = [saturday + timedelta(days=7 * i) for i in range(5)]
        saturdays = [day for day in saturdays if day <= last]
        anchor = saturdays[min(nth, len(saturdays)) - 1] if nth else saturdays[-1]
    else:
        anchor = first + timedelta(days=7 * (nth - 1)) if nth else last
    monday = anchor - timedelta(days=anchor.weekday())
    step = 7 if nth else -7  # "the first two weeks" go forward, "the last two" back
    weeks.update(monday + timedelta(days=step * i) for i in range(count))
    months.add((year, month))
    return True


_NOTE_NAME_RE = re.compile(r"((?:19|20)\d\d)-([01]\d)-[0-3]\d")
_YEAR_RE = re.compile(r"(?:19|20)\d\d")
_MONTH_RE = re.compile(r"[01]\d")


def noted_months(episodic: str, archive: str) -> frozenset[tuple[int, int]]:
    """The (year, month) of every dated note: the daily notes' names in *episodic*
    (``YYYY-MM-DD…``) and the ``YYYY/MM`` folders of *archive* (names only, no file
    is read; a folder that is missing holds none)."""
    found: set[tuple[int, int]] = set()
    for name in _names(episodic):
        m = _NOTE_NAME_RE.match(name)
        if m:
            found.add((int(m.group(1)), int(m.group(2))))
    for year in _names(archive):
        if _YEAR_RE.fullmatch(year):
            for month in _names(os.path.join(archive, year)):
                if _MONTH_RE.fullmatch(month) and 1 <= int(month) <= 12:
                    found.add((int(year), int(month)))
    return frozenset(found)


def _names(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []
