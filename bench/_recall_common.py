"""What both recall workspaces share: the labelled question and date phrasing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

NOW = "2026-11-30T10:00:00+01:00"
TODAY = date(2026, 11, 30)


@dataclass(frozen=True)
class Question:
    """A question and the (path, line) pairs that answer it; line None: any line of the
    file. A multi-note question lists several files: any of them counts as found."""

    text: str
    answers: tuple[tuple[str, int | None], ...]
    kind: str

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(path for path, _ in self.answers)


def ask(text: str, path: str, line: int | None, kind: str) -> Question:
    return Question(text, ((path, line),), kind)


def date_phrase(day: date, style: int) -> str:
    """*day* written the way people write dates, in one of several styles."""
    month = day.strftime("%B")
    styles = (
        f"{day.day} {month} {day.year}",
        f"{month} {day.day}",
        day.isoformat(),
        f"{month[:3]} {day.day}{_ordinal(day.day)}",
        f"the {day.day}{_ordinal(day.day)} of {month}",
    )
    return styles[style % len(styles)]


def _ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def relative_days(today: date) -> list[tuple[str, date]]:
    """Relative date phrases and the day each means, seen from *today*."""
    from datetime import timedelta

    days = [("yesterday", today - timedelta(days=1))]
    days.append(("the day before yesterday", today - timedelta(days=2)))
    for offset, name in enumerate(
        ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
    ):
        back = (today.weekday() - offset) % 7 or 7
        days.append((f"last {name}", today - timedelta(days=back)))
    return days
