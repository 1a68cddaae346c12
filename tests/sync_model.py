"""What the shared memory must hold after any writes on any host and any syncs (§14).

A reference model, pure Python, written before the merge drivers it judges. Each
host knows a set of writes; a sync makes the host and the remote know the union
of both (and the remote takes it, as a push does). What a set of writes means:

- note lines (``episodic append``): each once, in its day's note;
- closure items (a rotation's open task): open until a host closes it, then
  closed everywhere (an item closed on one side stays closed);
- facts, per file, by identity (their normalised text, §10): added by
  ``remember`` or a hand edit, removed by ``retire`` and ``replace`` (which adds
  the new text); removed on any host, removed everywhere. Two hosts that replace
  one fact differently, neither seeing the other, are a conflict: exactly one of
  the competing texts stays (the one of the host that merged), so the model asks
  for one of them and then learns which (`settle_contested`);
- retired lines: every removed fact has a line in ``retired.md``;
- learnings: each line once;
- topic entries: never removed; a field's value is the one written last on the
  host that wrote it, and when two hosts changed one field without seeing each
  other, one of the two values (the merging host keeps its own).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

Fact = tuple[str, str]  # (file, normalised text)


@dataclass
class FieldWrite:
    """One write of one field of a topic entry, and the writes of it its host had seen."""

    number: int
    value: str
    seen: frozenset[int]


@dataclass
class Knowledge:
    """What one host (or the remote) knows: the union of the writes it has seen."""

    facts_added: set[Fact] = field(default_factory=set)
    facts_removed: set[Fact] = field(default_factory=set)
    note_lines: set[tuple[str, str]] = field(default_factory=set)  # (day, text)
    open_added: set[tuple[str, str]] = field(default_factory=set)  # (day, item)
    open_closed: set[tuple[str, str]] = field(default_factory=set)
    learnings: set[str] = field(default_factory=set)
    slugs: set[str] = field(default_factory=set)
    field_writes: set[int] = field(default_factory=set)  # numbers of FieldWrite

    def union(self, other: Knowledge) -> Knowledge:
        return Knowledge(
            self.facts_added | other.facts_added,
            self.facts_removed | other.facts_removed,
            self.note_lines | other.note_lines,
            self.open_added | other.open_added,
            self.open_closed | other.open_closed,
            self.learnings | other.learnings,
            self.slugs | other.slugs,
            self.field_writes | other.field_writes,
        )

    def live_facts(self) -> set[Fact]:
        return self.facts_added - self.facts_removed

    def open_items(self) -> set[tuple[str, str]]:
        return self.open_added - self.open_closed


@dataclass
class SyncModel:
    """The model of *hosts* hosts and one remote."""

    hosts: int
    known: list[Knowledge] = field(default_factory=list)
    remote: Knowledge = field(default_factory=Knowledge)
    # fact → the fact a chain of replacements started from (its family)
    origin: dict[Fact, Fact] = field(default_factory=dict)
    retired: set[Fact] = field(default_factory=set)  # removed by retire/replace
    writes: dict[int, tuple[str, str, FieldWrite]] = field(default_factory=dict)
    counter: int = 0

    def __post_init__(self) -> None:
        if not self.known:
            self.known = [Knowledge() for _ in range(self.hosts)]

    def next_number(self) -> int:
        self.counter += 1
        return self.counter

    # -- writes ---------------------------------------------------------------

    def add_fact(self, host: int, fact: Fact) -> None:
        self.known[host].facts_added.add(fact)
        self.origin.setdefault(fact, fact)

    def remove_fact(self, host: int, fact: Fact) -> None:
        self.known[host].facts_removed.add(fact)
        self.retired.add(fact)

    def replace_fact(self, host: int, old: Fact, new: Fact) -> None:
        self.remove_fact(host, old)
        self.known[host].facts_added.add(new)
        self.origin[new] = self.origin.get(old, old)

    def append_line(self, host: int, day: str, text: str) -> None:
        self.known[host].note_lines.add((day, text))

    def open_item(self, host: int, day: str, item: str) -> None:
        self.known[host].open_added.add((day, item))

    def close_item(self, host: int, day: str, item: str) -> None:
        self.known[host].open_closed.add((day, item))

    def learn(self, host: int, text: str) -> None:
        self.known[host].learnings.add(text)

    def write_field(self, host: int, slug: str, name: str, value: str) -> None:
        mine = self.known[host]
        mine.slugs.add(slug)
        seen = frozenset(n for n in mine.field_writes if self.writes[n][:2] == (slug, name))
        number = self.next_number()
        self.writes[number] = (slug, name, FieldWrite(number, value, seen))
        mine.field_writes.add(number)

    # -- sync -----------------------------------------------------------------

    def sync(self, host: int) -> None:
        """The host merges what the remote knows, and the remote takes the result."""
        merged = self.known[host].union(self.remote)
        self.known[host] = merged
        self.remote = copy.deepcopy(merged)

    # -- what every host must hold once all have synced --------------------------

    def everything(self) -> Knowledge:
        total = self.remote
        for mine in self.known:
            total = total.union(mine)
        return total

    def contested(self) -> list[set[Fact]]:
        """Families with more than one live fact: replaced differently on two hosts."""
        families: dict[Fact, set[Fact]] = {}
        for fact in self.everything().live_facts():
            families.setdefault(self.origin.get(fact, fact), set()).add(fact)
        return [members for members in families.values() if len(members) > 1]

    def settle_contested(self, survivors: set[Fact]) -> None:
        """Learn which fact of each contested family stayed: the others were dropped."""
        for members in self.contested():
            for fact in members - survivors:
                for mine in (*self.known, self.remote):
                    mine.facts_removed.add(fact)

    def field_values(self, slug: str, name: str) -> set[str]:
        """The values a field may hold: of the writes no other write has seen."""
        total = self.everything()
        numbers = [n for n in total.field_writes if self.writes[n][:2] == (slug, name)]
        seen = set().union(*(self.writes[n][2].seen for n in numbers)) if numbers else set()
        return {self.writes[n][2].value for n in numbers if n not in seen}
