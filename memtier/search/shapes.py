"""Words that ask for a shape of text rather than name it (PROTOCOL §9 `search`).

"docker01 IP" wants the line "docker01: 192.168.1.20", "what time do the backups
run" the line "nightly at 02:30", "when did Anna go hiking" the turn "I went hiking
last Friday": none says the word. Such a query term also matches its shape in the
lines the ranking reads (`tokens.Term.pattern`, `tokens.term_of`), and which
questions add such a term is decided here (`asks_for_a_time`; `tokens.asks_for_a_day`).
"""

from __future__ import annotations

import functools
import re

# A shape is matched only in the lines the ranking reads, never in the scan (whose
# document frequency stays that of the word; DECISIONS), so it is in Python's syntax
# (look-around): an IPv4 address, a time of day.
IPV4 = r"(?<![\w.])(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}(?![\w]|\.\d)"
CLOCK = r"(?<![\w:.])(?:[01]?\d|2[0-3]):[0-5]\d(?![\w:]|\.\d)"
# A day said relative to the telling (v4): "yesterday", "two weeks ago", "last Friday",
# "this past weekend". A question asking when something happened is answered by the
# line that dates it so, as by the note's own date (`asks_for_a_day`).
_UNITS = "day|days|week|weeks|weekend|weekends|month|months|year|years|night|morning|evening"
_WEEKDAY_NAMES = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
TOLD_DAY = (
    rf"\byesterday\b|\b(?:{_UNITS})\s+ago\b"
    rf"|\b(?:last|this\s+past)\s+(?:{_UNITS}|{_WEEKDAY_NAMES})\b"
)
# A day said ahead of the telling (v4): "tomorrow", "next month", "in two weeks", "this
# coming Friday". A question about a planned event is answered by the line that told
# the plan so (`asks_for_a_planned_day`).
_HOW_MANY = r"a|an|one|two|three|four|five|six|seven|a\s+few|a\s+couple\s+of|\d+"
TOLD_AHEAD = (
    rf"\btomorrow\b|\btonight\b|\bnext\s+(?:{_UNITS}|{_WEEKDAY_NAMES})\b"
    rf"|\bin\s+(?:{_HOW_MANY})\s+(?:{_UNITS})\b"
    rf"|\bthis\s+coming\s+(?:{_UNITS}|{_WEEKDAY_NAMES})\b"
)
SHAPES = {
    "ip": IPV4, "ips": IPV4, "ipv4": IPV4, "time": CLOCK, "yesterday": TOLD_DAY,
    "tomorrow": TOLD_AHEAD,
}  # fmt: skip


@functools.cache
def shape_re(word: str) -> re.Pattern[str]:
    """The compiled shape of a shape word, compiled when a query first asks for it
    (13 ms at every start, for the few queries that say "ip" or "time")."""
    return re.compile(SHAPES[word])


# "when" before a present-tense verb asks for a schedule ("when does the backup run",
# "when may I restart"), answered by a time of day as "what time" is; before a past
# one ("when did I buy", "when was it renewed") for the day of an event, which the
# note's date or a day told relative to it answers (`TOLD_DAY`, `tokens.asks_for_a_day`).
_SCHEDULE_RE = re.compile(r"\bwhen\s+(?:does|do|is|are|can|may|should|will|must)\b")


def asks_for_a_time(query: str) -> bool:
    """Whether *query* asks when something happens as a rule (`_SCHEDULE_RE`)."""
    return _SCHEDULE_RE.search(query.lower()) is not None


# "when" with a plan ("when is Jon planning to open", "when did Joanna plan to go",
# "when will", "when is Andrew going to hike") asks for the day of an event ahead of
# the telling, which a line gives as "tomorrow" or "next month" (`TOLD_AHEAD`).
_PLANNED_RE = re.compile(
    r"\bwhen\b.*\b(?:going\s+to|gonna|will|plan|plans|planned|planning|intends?|intended)\b"
)


def asks_for_a_planned_day(query: str) -> bool:
    """Whether *query* asks when a planned event is to happen (`_PLANNED_RE`)."""
    return _PLANNED_RE.search(query.lower()) is not None
