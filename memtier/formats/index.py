"""The topic index ``memory/INDEX.md`` (PROTOCOL §13, v3): parse and render, no I/O.

memtier writes one entry form::

    - **personal-blog**
      - Match: personal blog, next.js, vercel
      - Status: active
      - Dates: [2026-03-20, 2026-03-22]
      - Consolidations:
        - gen1 (2026-03-26): memory/consolidated/personal-blog-gen1-2026-03-26.md
      - Current: memory/consolidated/personal-blog-gen1-2026-03-26.md

and reads the seed's other forms too: ``- **slug**: [dates]`` inline, paths
relative to ``memory/`` (``consolidated/x.md``), no Match line (the slug's
words are its term), other ``- Key: value`` lines (kept as written). People
edit Match and Status; Dates, Consolidations and Current are derived.
"""

from __future__ import annotations

import re

from memtier.values import Fields

TITLE = "# Memory Index"
MARKER = "<!-- memtier-index v1: Dates, Consolidations and Current are derived by memtier -->"
# Category (the CLI's --category) → section heading, in the order INDEX.md shows them.
CATEGORIES: dict[str, str] = {
    "projects": "Projects",
    "events": "Major Events",
    "decisions": "Decisions",
    "preferences": "Preferences",
}
STATUSES: tuple[str, ...] = ("active", "completed", "paused", "abandoned", "deprecated")
SLUG_RE = re.compile(r"^[a-z0-9-]+$")
CONSOLIDATED_PREFIX = "memory/consolidated/"

_HEADING = {title.casefold(): key for key, title in CATEGORIES.items()}
_ENTRY_RE = re.compile(r"^- \*\*(?P<slug>[^*]+)\*\*(?::\s*(?P<rest>.*))?$")
_FIELD_RE = re.compile(r"^ {2}- (?P<key>[A-Za-z][A-Za-z -]*):(?P<value>.*)$")
_GEN_RE = re.compile(r"^ {4}- gen(?P<n>[0-9]+) \((?P<day>\d{4}-\d\d-\d\d)\): (?P<path>\S+)\s*$")
_DATES_RE = re.compile(r"^\[(?P<dates>[^\]]*)\]\s*$")
_DERIVED = ("dates", "consolidations", "current")


class Generation(Fields):
    number: int
    created: str  # YYYY-MM-DD
    path: str  # root-relative

    def line(self) -> str:
        return f"    - gen{self.number} ({self.created}): {self.path}"


class IndexEntry(Fields):
    slug: str
    category: str
    match: tuple[str, ...] = ()
    status: str = "active"
    dates: tuple[str, ...] = ()
    consolidations: tuple[Generation, ...] = ()
    current: str | None = None
    extra: tuple[str, ...] = ()  # other lines of the entry, as written

    @property
    def terms(self) -> tuple[str, ...]:
        """What finds the topic in a note: the Match terms, else the slug's words."""
        return self.match or (slug_words(self.slug),)

    def lines(self) -> list[str]:
        out = [f"- **{self.slug}**", f"  - Match: {', '.join(self.terms)}"]
        out.append(f"  - Status: {self.status}")
        out += self.extra
        out.append(f"  - Dates: [{', '.join(self.dates)}]")
        if self.consolidations:
            out.append("  - Consolidations:")
            out += [g.line() for g in self.consolidations]
        if self.current:
            out.append(f"  - Current: {self.current}")
        return out


class IndexProblem(Fields):
    line: int
    message: str


class ParsedIndex(Fields):
    entries: tuple[IndexEntry, ...]
    problems: tuple[IndexProblem, ...]

    def find(self, slug: str) -> IndexEntry | None:
        return next((e for e in self.entries if e.slug == slug), None)


def slug_words(slug: str) -> str:
    return " ".join(part for part in slug.split("-") if part)


def split_terms(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(t.strip() for t in text.split(",") if t.strip()))


def _path(value: str) -> str:
    """A seed path relative to ``memory/`` is read as the root-relative one."""
    value = value.strip()
    if value.startswith("consolidated/"):
        return "memory/" + value
    return value


class _Builder:
    def __init__(self) -> None:
        self.entries: list[IndexEntry] = []
        self.problems: list[IndexProblem] = []
        self.category: str | None = None
        self.current: IndexEntry | None = None
        self.in_gens = False

    def problem(self, number: int, message: str) -> None:
        self.problems.append(IndexProblem(number, message))

    def close(self) -> None:
        if self.current is not None:
            self.entries.append(self.current)
        self.current, self.in_gens = None, False

    def start(self, number: int, slug: str, rest: str | None) -> None:
        self.close()
        if self.category is None:
            self.problem(number, f"entry '{slug}' stands outside a section")
        if not SLUG_RE.match(slug):
            self.problem(number, f"slug '{slug}' is not [a-z0-9-]+")
        if any(e.slug == slug for e in self.entries):
            self.problem(number, f"slug '{slug}' is repeated")
        entry = IndexEntry(slug=slug, category=self.category or "projects")
        if rest:
            dates = _DATES_RE.match(rest.strip())
            if dates is None:  # the seed's "- **slug**: description"
                entry = entry.copy_with(extra=(f"  - Description: {rest.strip()}",))
            else:
                entry = entry.copy_with(dates=split_terms(dates.group("dates")))
        self.current = entry

    def field(self, number: int, key: str, value: str) -> None:
        entry = self.current
        assert entry is not None
        name = key.strip().casefold()
        self.in_gens = name == "consolidations"
        if name == "match":
            self.current = entry.copy_with(match=split_terms(value))
        elif name == "status":
            status = value.strip()
            if status not in STATUSES:
                self.problem(number, f"'{entry.slug}': unknown status '{status}'")
            self.current = entry.copy_with(status=status)
        elif name == "dates":
            found = _DATES_RE.match(value.strip())
            if found is None:
                self.problem(number, f"'{entry.slug}': Dates must be [YYYY-MM-DD, …]")
            else:
                self.current = entry.copy_with(dates=split_terms(found.group("dates")))
        elif name == "current":
            self.current = entry.copy_with(current=_path(value) or None)
        elif name != "consolidations":
            self.current = entry.copy_with(
                extra=(*entry.extra, f"  - {key.strip()}: {value.strip()}")
            )

    def generation(self, number: int, found: re.Match[str]) -> None:
        entry = self.current
        assert entry is not None
        gen = Generation(int(found.group("n")), found.group("day"), _path(found.group("path")))
        self.current = entry.copy_with(consolidations=(*entry.consolidations, gen))


def parse_index(text: str) -> ParsedIndex:
    """Every entry of *text*, and what does not parse (line numbers 1-based)."""
    b = _Builder()
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip()
        if not line.strip() or line == TITLE or line.startswith("<!--"):
            continue
        if line.startswith("## "):
            b.close()
            b.category = _HEADING.get(line[3:].strip().casefold())
            if b.category is None:
                b.problem(number, f"unknown section '{line[3:].strip()}'")
            continue
        entry = _ENTRY_RE.match(line)
        if entry is not None:
            b.start(number, entry.group("slug").strip(), entry.group("rest"))
            continue
        if b.current is None:
            if line.startswith("#"):
                b.problem(number, "unexpected heading")
            else:
                # Redacted before it is cut: a credential cut in two is no longer
                # recognisable (PROTOCOL §3 v4).
                from memtier.secrets import redact

                shown = redact(line).text[:40]
                b.problem(number, f"line outside an entry: {shown!r}")
            continue
        gen = _GEN_RE.match(line)
        if gen is not None and b.in_gens:
            b.generation(number, gen)
            continue
        field = _FIELD_RE.match(line)
        if field is not None:
            b.field(number, field.group("key"), field.group("value"))
            continue
        b.problem(number, f"'{b.current.slug}': line does not parse: {line[:40]!r}")
    b.close()
    return ParsedIndex(tuple(b.entries), tuple(b.problems))


def render_index(entries: tuple[IndexEntry, ...] | list[IndexEntry]) -> str:
    """INDEX.md in the one form of PROTOCOL §13: every section, entries in their order."""
    out = [TITLE, MARKER]
    for key, title in CATEGORIES.items():
        out += ["", f"## {title}"]
        for entry in entries:
            if entry.category == key:
                out += entry.lines()
    return "\n".join(out) + "\n"


def with_derived(entry: IndexEntry, derived: IndexEntry) -> IndexEntry:
    """*entry* as a person left it, with *derived*'s Dates, Consolidations and Current."""
    return entry.copy_with(**{name: getattr(derived, name) for name in _DERIVED})
