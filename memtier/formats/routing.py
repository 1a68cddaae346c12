"""What an imported item is, and where it lives in memtier (PROTOCOL §1, §12): pure.

Every parser of `memtier.formats.sources_*` turns a source into `SourceItem`s and
`Invalid` entries; `route` sends each item to its one home. The table is written
down in docs/DECISIONS.md ("Import routing"); in order:

1. the item's own type (a structured memory's ``type``, a Claude topic's ``type``,
   a brain ``kind``, an MCP ``entityType``) when it names a memtier kind;
2. its tags (and, for a bullet of an OpenClaw MEMORY.md, the words of its heading);
3. a date: a dated item that is nothing else is an event of that day;
4. otherwise it cannot be routed: today's note, with a ``#routing-note:`` line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

EVENT = "event"
UNROUTED = "unrouted"

# A source type or kind (lower case) → the memtier kind of PROTOCOL §10.
SOURCE_TYPES: dict[str, str] = {
    "user": "preference",
    "preference": "preference",
    "preferences": "preference",
    "feedback": "lesson",
    "lesson": "lesson",
    "lessons": "lesson",
    "knowledge": "lesson",
    "postmortem": "lesson",
    "project": "project",
    "projects": "project",
    "task": "project",
    "todo": "project",
    "decision": "decision",
    "decisions": "decision",
    "reference": "howto:reference",
    "howto": "howto:reference",
    "procedure": "howto:reference",
    "infrastructure": "infrastructure",
    "server": "infrastructure",
    "host": "infrastructure",
    "service": "infrastructure",
    "device": "infrastructure",
    "network": "infrastructure",
    # PROTOCOL §12 v3: a person or an organization (the MCP server's own example
    # holds the user's preferences) is a durable fact, never a diary line.
    "person": "preference",
    "people": "preference",
    "organization": "project",
    "organisation": "project",
    "company": "project",
    "doc": "howto:reference",
    "event": EVENT,
    "meeting": EVENT,
    "incident": EVENT,
}

# Tags (lower case) that name a home, tried in this order: the most specific first.
TAG_HOMES: tuple[tuple[str, frozenset[str]], ...] = (
    ("decision", frozenset({"decision", "decisions", "adr", "entscheidung"})),
    ("lesson", frozenset({"lesson", "lessons", "postmortem", "anti-patterns", "mistake", "fixes"})),
    ("preference", frozenset({"preference", "preferences", "style", "rules", "habits", "user"})),
    ("project", frozenset({"project", "projects", "tasks", "roadmap"})),
    ("howto", frozenset({"howto", "how-to", "runbook", "commands", "procedure", "checklist"})),
    (
        "infrastructure",
        frozenset(
            {"infrastructure", "infra", "homelab", "networking", "network", "docker", "server",
             "ssh", "tailscale", "tailnet", "systemd", "ubuntu", "dns", "backup", "gateway"}
        ),
    ),
    (EVENT, frozenset({"event", "events", "timeline", "journal", "log", "incident", "daily"})),
)  # fmt: skip


@dataclass(frozen=True)
class SourceItem:
    """One item of a source: what it says, and what the source said about it."""

    ref: str  # where it stands in the source, for the report ("line 12", a file name)
    facts: tuple[str, ...]  # one fact each (for an event: the lines of the day)
    kind: str | None = None  # the source's own type or kind, lower case
    tags: tuple[str, ...] = ()
    day: date | None = None
    hint: str = ""  # words that say what the item is about (a heading)
    title: str = ""
    block: bool = False  # an event kept as a block of lines (a daily note)


@dataclass(frozen=True)
class Invalid:
    """A source item that is not imported: skipped with reason ``<label>: <why>``
    (``invalid: …`` unless another label says why, such as ``expired``)."""

    ref: str
    why: str
    label: str = "invalid"

    @property
    def reason(self) -> str:
        return f"{self.label}: {self.why}" if self.why else self.label


@dataclass(frozen=True)
class Parsed:
    items: list[SourceItem] = field(default_factory=list)
    invalid: list[Invalid] = field(default_factory=list)

    def add(self, item: SourceItem | Invalid) -> None:
        """Keep *item* with the items, or with the invalid ones when it is one."""
        if isinstance(item, Invalid):
            self.invalid.append(item)
        else:
            self.items.append(item)


@dataclass(frozen=True)
class Route:
    kind: str  # a PROTOCOL §10 kind, EVENT, or UNROUTED
    why: str  # which rule chose it, for --dry-run and the routing note


def slug(text: str) -> str:
    """A file-name topic: lower case words joined by hyphens (for ``howto:<topic>``)."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return "-".join(words)[:40].strip("-") or "reference"


def _howto(item: SourceItem, tag: str | None) -> str:
    topic = next((t for t in item.tags if t.lower() != tag), "") or item.title or "reference"
    return f"howto:{slug(topic)}"


def _from_words(words: list[str], item: SourceItem, source: str) -> Route | None:
    lowered = [w.lower() for w in words]
    for kind, names in TAG_HOMES:
        for word in lowered:
            if word in names:
                chosen = _howto(item, word) if kind == "howto" else kind
                return Route(chosen, f"{source} '{word}'")
    return None


def route(item: SourceItem) -> Route:
    """The home of *item* (module docstring; DECISIONS.md "Import routing")."""
    if item.kind:
        mapped = SOURCE_TYPES.get(item.kind.lower())
        if mapped is not None:
            return Route(mapped, f"type '{item.kind}'")
    found = _from_words(list(item.tags), item, "tag")
    if found is None and item.hint:
        found = _from_words(re.findall(r"[\w-]+", item.hint), item, "heading word")
    if found is not None:
        return found
    if item.day is not None:
        return Route(EVENT, "dated, with no type or tag naming a home")
    return Route(UNROUTED, "imported item: no type, tag or date names its home")


def source_day(value: object) -> date | None:
    """The calendar date of a source timestamp: ISO 8601 text (the date as written)
    or epoch milliseconds (UTC). None when there is no usable date."""
    from datetime import UTC, datetime

    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        if not -1e15 < value < 1e15:
            return None  # past any calendar (and a 5,000-digit number is no date)
        try:
            return datetime.fromtimestamp(value / 1000, tz=UTC).date()
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if not isinstance(value, str) or not value.strip() or len(value) > 64:
        return None
    text = value.strip()
    if text.isascii() and text.isdigit():
        return source_day(int(text)) if len(text) <= 15 else None
    try:
        return datetime.fromisoformat(text.replace("z", "Z")).date()
    except ValueError:
        try:
            return date.fromisoformat(text[:10])
        except ValueError:
            return None
