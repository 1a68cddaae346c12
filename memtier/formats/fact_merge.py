"""Facts merge by identity, not by position (PROTOCOL §14 v4): pure text in and out.

A fact is its normalised text (§10, `normalise_fact`); a fenced block (a how-to's
code) is one fact, its lines together. `merge_facts` merges the three versions
of a fact file (MEMORY.md, a WARM file) as sets of facts:

- a fact added on either side stays, once, even when both added it (under two
  sections or not);
- a fact removed on either side stays removed: gone from a side that had it in
  the base, or gone from one side while the other's retirement log gained a
  line for it since they parted (`Retirements`, the witness of §10's log);
- the order is ours; a fact only theirs has goes at the end of its section in
  ours (the section is made when ours lacks it);
- a conflict is only one fact changed differently on both sides: each side
  replaced it, and each has one new fact like it (word sets at least half
  shared). Ours is kept; the conflict shows one line each for ours, theirs, base.

The header's dates take the later of the two; another header line one side
changed takes that side.
"""

from __future__ import annotations

import re

from memtier.formats.fact_text import (
    end_insert_index,
    is_fence,
    jaccard,
    normalise_fact,
    section_insert_index,
    word_set,
)
from memtier.formats.merge import (
    Conflict,
    Merged,
    header_dates,
    lines_text,
    set_header_dates,
    text_lines,
)
from memtier.values import Fields

SIMILAR = 0.5  # a replacement shares at least half of its words with the fact it replaced
_RETIREMENT = re.compile(
    r"^- \d{4}-\d\d-\d\d (?P<file>\S+?):\d+ (?P<verb>retired|replaced): (?P<rest>.*)$"
)


class Retirements(Fields):
    """What one side's retirement log gained since the sides parted, for one file:
    the identities it retired and the ones it replaced."""

    retired: frozenset[str] = frozenset()
    replaced: frozenset[str] = frozenset()

    @property
    def gone(self) -> frozenset[str]:
        return self.retired | self.replaced


def logged_files(lines: list[str]) -> set[str]:
    """The files the retirement log *lines* name."""
    return {found.group("file") for line in lines if (found := _RETIREMENT.match(line))}


def retirements(lines: list[str], path: str) -> Retirements:
    """The identities the log *lines* (``- D <file>:<n> <verb>: <old> — <reason>``)
    name for *path*. The old text may itself hold `` — ``: every cut before the
    reason is a candidate."""
    retired: set[str] = set()
    replaced: set[str] = set()
    for line in lines:
        found = _RETIREMENT.match(line)
        if found is None or found.group("file") != path:
            continue
        parts = found.group("rest").split(" — ")
        into = retired if found.group("verb") == "retired" else replaced
        for cut in range(1, max(2, len(parts))):  # the last part is the reason
            ident = normalise_fact(" — ".join(parts[:cut]))
            if ident:
                into.add(ident)
    return Retirements(frozenset(retired), frozenset(replaced))


class _Unit(Fields):
    lines: tuple[str, ...]
    ident: str  # "" for what is no fact: blank lines, headings, rules
    section: str | None  # the folded ``## `` heading above it


def _fold_heading(line: str) -> str:
    return " ".join(line[3:].split()).lower()


def _units(lines: list[str], start: int) -> list[_Unit]:
    """The body of a fact file (lines from *start*) as facts and layout."""
    units: list[_Unit] = []
    section: str | None = None
    index = start
    while index < len(lines):
        line = lines[index]
        if is_fence(line):
            end = index + 1
            while end < len(lines) and not is_fence(lines[end]):
                end += 1
            block = tuple(lines[index : end + 1])
            units.append(_Unit(block, normalise_fact("\n".join(block)), section))
            index = end + 1
            continue
        if line.startswith("## "):
            section = _fold_heading(line)
        ident = "" if not line.strip() or line.startswith("#") else normalise_fact(line)
        units.append(_Unit((line,), ident, section))
        index += 1
    return units


def _idents(units: list[_Unit]) -> dict[str, _Unit]:
    found: dict[str, _Unit] = {}
    for unit in units:
        if unit.ident:
            found.setdefault(unit.ident, unit)
    return found


def _like(fact: str, candidates: list[str]) -> str | None:
    """The candidate most like *fact* (word sets at least `SIMILAR` shared)."""
    words = word_set(fact)
    best, score = None, SIMILAR
    for candidate in candidates:
        similar = jaccard(words, word_set(candidate))
        if similar >= score and (best is None or similar > score):
            best, score = candidate, similar
    return best


def _may_change(old: str, gone: Retirements) -> bool:
    """Whether a side may have changed *old* (not only retired it): its log says it
    replaced it, or says nothing of it (a person's hand edit)."""
    return old in gone.replaced or old not in gone.retired


def _header(base: list[str], ours: list[str], theirs: list[str], size: int) -> list[str]:
    b, o, t = base[:size], ours[:size], theirs[:size]
    out = list(o)
    for number in range(min(len(o), len(t))):
        if number < len(b) and o[number] == b[number]:
            out[number] = t[number]
    if len(o) < size <= len(t):
        out = list(t)
    latest = header_dates(o)
    for key, value in header_dates(t).items():
        latest[key] = max(value, latest.get(key, value))
    return set_header_dates(out, latest)


def _insert_at(lines: list[str], section: str | None, start: int) -> int | None:
    if section is not None:
        return section_insert_index(lines, section, start)
    first = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
    return end_insert_index(lines[:first], start)


def merge_facts(
    base: str,
    ours: str,
    theirs: str,
    *,
    header_lines: int = 3,
    ours_gone: Retirements = Retirements(),
    theirs_gone: Retirements = Retirements(),
) -> Merged:
    """The three versions of a fact file merged by identity (see the module's docstring)."""
    b, o, t = (text_lines(x) for x in (base, ours, theirs))
    size = min(header_lines, max(len(o), len(t)))
    bu, ou, tu = _units(b, size), _units(o, size), _units(t, size)
    ib, io, it = _idents(bu), _idents(ou), _idents(tu)
    removed = {x for x in ib if x not in io or x not in it}
    removed |= {x for x in it if x not in io and x not in ib and x in ours_gone.gone}
    removed |= {x for x in io if x not in it and x not in ib and x in theirs_gone.gone}
    conflicts: list[tuple[str, str, str]] = []  # (ours, theirs, base) identities
    changed = [x for x in ib if x not in io and x not in it]
    changed += sorted(
        x
        for x in ours_gone.replaced & theirs_gone.replaced
        if x not in io and x not in it and x not in ib
    )
    new_o = [x for x in io if x not in ib and x not in it and x not in removed]
    new_t = [x for x in it if x not in ib and x not in io and x not in removed]
    for old in changed:
        if not (_may_change(old, ours_gone) and _may_change(old, theirs_gone)):
            continue  # retired, not changed, on one side: no conflict
        mine, other = _like(old, new_o), _like(old, new_t)
        if mine is not None and other is not None:
            conflicts.append((mine, other, old))
            new_o.remove(mine)
            new_t.remove(other)
            removed.add(other)
    out = _header(b, o, t, size)
    written: set[str] = set()
    for unit in ou:
        if unit.ident and (unit.ident in removed or unit.ident in written):
            continue
        written.add(unit.ident)
        out.extend(unit.lines)
    for unit in tu:
        if not unit.ident or unit.ident in written or unit.ident in removed:
            continue
        written.add(unit.ident)
        at = _insert_at(out, unit.section, size)
        if at is None:  # a section ours lacks: made at the end, with theirs' heading
            heading = next(u.lines[0] for u in tu if u.lines[0].startswith("## ") and
                           _fold_heading(u.lines[0]) == unit.section)  # fmt: skip
            at = end_insert_index(out, size)
            out[at:at] = ["", heading] if at > size else [heading]
            at += 2 if at > size else 1
        out[at:at] = list(unit.lines)
    return Merged(lines_text(out), tuple(_conflict(out, c, ou, tu, bu, size) for c in conflicts))


def _conflict(
    out: list[str],
    found: tuple[str, str, str],
    ou: list[_Unit],
    tu: list[_Unit],
    bu: list[_Unit],
    size: int,
) -> Conflict:
    mine, other, old = found
    ours_line = _idents(ou)[mine].lines[0]
    theirs_line = _idents(tu)[other].lines[0]
    base_unit = _idents(bu).get(old)
    base_line = base_unit.lines[0] if base_unit is not None else f"- {old}"
    number = next((n + 1 for n in range(size, len(out)) if out[n] == ours_line), 0)
    return Conflict(number, (ours_line,), (theirs_line,), (base_line,))
