"""Putting routed items into the workspace (PROTOCOL §1, §10, §12 v3).

One pass, one duplicate table, writes batched per target file:

1. every item is routed (pure) and split into its facts, each one planned for its
   home: a fact file (HOT or WARM) or a day's note;
2. the plan is applied one target file at a time, in chunks of `BATCH` facts: each
   chunk takes the workspace lock, reads its file afresh, adds what is new and
   writes the file once. The lock is never held for the whole import, so an agent's
   `buffer note` waits for one chunk at most;
3. every fact has its own outcome (an item of several facts reports each).

A fact keeps the rules `remember` keeps (one home, no duplicate or near-duplicate
of a HOT or WARM line, the HOT cap, redaction); a durable fact that carries a date
keeps it in its text, and the item's own tags are kept as ``#tag`` words. An event
dated D goes to D's note (created with ``# D`` and a closure block when missing),
before its closure block; an item that cannot be routed goes to today's note with
a ``#routing-note: <why>`` line. With ``dry_run`` the same plan is worked out in
memory and nothing is written (no copy of the memory is made anywhere).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date

from memtier.commands.transfer.importers.facts_table import FactTable
from memtier.commands.transfer.importers.notes import DayNotes
from memtier.commands.transfer.importers.planned import Planned, cleaned
from memtier.commands.transfer.importers.report import DUPLICATE, Outcome, imported, skipped
from memtier.errors import InputError, RefusedError
from memtier.formats.routing import EVENT, UNROUTED, Parsed, Route, SourceItem, route
from memtier.workspace import Workspace

Progress = Callable[[int, int], None]
_OWN_REF = re.compile(r"(line|item) \d+")
BATCH = 1000  # facts per lock hold: their text is cleaned before the lock is taken


def _tag_words(tags: tuple[str, ...], text: str) -> str:
    words = []
    for tag in tags:
        word = re.sub(r"[^\w-]+", "-", tag.strip().lower()).strip("-")
        if word and f"#{word}" not in text.lower() and f"#{word}" not in words:
            words.append(f"#{word}")
    return " ".join(words)


def _suffixed(first: str, item: SourceItem, dated: bool) -> str:
    """PROTOCOL §12 v3: the date of a durable fact and the item's tags, kept in its text."""
    extra = []
    if dated and item.day is not None and item.day.isoformat() not in first:
        extra.append(f"({item.day.isoformat()})")
    tags = _tag_words(item.tags, first)
    if tags:
        extra.append(tags)
    return " ".join([first, *extra]) if extra else first


def _home(how: Route) -> str:
    from memtier.commands.facts.remember import HOWTO_PREFIX, KIND_HOMES

    if how.kind.startswith(HOWTO_PREFIX):
        return f"memory/procedural/{how.kind[len(HOWTO_PREFIX) :]}.md"
    return KIND_HOMES[how.kind]


def plan(ws: Workspace, parsed: Parsed) -> list[Planned]:
    """Every fact of every item with its home, in source order."""
    from memtier.secrets import redact

    planned: list[Planned] = []
    for item in parsed.items:
        # A file name is user text (PROTOCOL §3); "line 12" is memtier's own words.
        ref = item.ref if _OWN_REF.fullmatch(item.ref) else redact(item.ref).text
        how = route(item)
        if how.kind in (EVENT, UNROUTED):
            day = item.day if how.kind == EVENT and item.day is not None else ws.today
            target, dated = f"note:{day.isoformat()}", False
        else:
            target, dated = _home(how), True
        if item.block:
            lines = list(item.facts)
            first = next((n for n, line in enumerate(lines) if line.strip()), 0)
            if lines:
                lines[first] = _suffixed(lines[first], item, dated)
            planned.append(Planned(len(planned), ref, item, how, tuple(lines), target))
            continue
        many = len(item.facts) > 1
        for number, fact in enumerate(item.facts, start=1):
            shown = f"{ref} #{number}" if many else ref
            text = _suffixed(fact, item, dated)
            planned.append(Planned(len(planned), shown, item, how, (text,), target))
    return planned


def _chunks(group: list[Planned]) -> list[list[Planned]]:
    return [group[at : at + BATCH] for at in range(0, len(group), BATCH)]


def apply_items(
    ws: Workspace, parsed: Parsed, progress: Progress | None = None, *, dry_run: bool = False
) -> tuple[list[Outcome], dict[str, int]]:
    """Every item of *parsed* into its home; one outcome per fact, invalid items first."""
    from memtier.commands.transfer.importers.fact_batch import FactBatch, build_table
    from memtier.secrets import redact

    redacted: dict[str, int] = {}
    outcomes = [skipped(redact(i.ref).text, i.reason) for i in parsed.invalid]
    planned = [cleaned(entry, redacted) for entry in plan(ws, parsed)]  # outside the lock
    groups: dict[str, list[Planned]] = {}
    for entry in planned:
        groups.setdefault(entry.target, []).append(entry)
    results: list[Outcome | None] = [None] * len(planned)
    table: FactTable | None = None
    notes = DayNotes(ws, redacted, dry_run=dry_run)
    done = 0
    for target, group in groups.items():
        for chunk in _chunks(group):
            if target.startswith("note:"):
                day = date.fromisoformat(target.removeprefix("note:"))
                found = notes.apply(day, chunk)
            else:
                if table is None:
                    table = build_table(ws)
                found = FactBatch(ws, target, table, redacted, dry_run=dry_run).apply(chunk)
            for entry, outcome in zip(chunk, found, strict=True):
                results[entry.index] = outcome
            done += len(chunk)
            if progress is not None:
                progress(done, len(planned))
    outcomes.extend(o for o in results if o is not None)
    return outcomes, redacted


def refusal_reason(exc: RefusedError | InputError) -> str:
    from memtier.commands.facts.remember import DuplicateFactError

    if isinstance(exc, DuplicateFactError):
        return DUPLICATE
    if isinstance(exc, RefusedError):
        return f"refused: {exc.message}"
    return f"invalid: {exc.message}"


__all__ = ["Planned", "apply_items", "imported", "plan", "refusal_reason"]
