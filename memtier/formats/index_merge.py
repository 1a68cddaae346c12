"""Topic entries merge as a union (PROTOCOL §13, §14 v4): pure text in and out.

`merge_index` merges three versions of ``memory/INDEX.md`` entry by entry: every
entry of either side is kept (entries are never removed); a field one side
changed takes that side; a field both changed differently keeps ours and is a
`Conflict` naming the entry and the field. Derived fields (Dates,
Consolidations, Current) are ours: sync rebuilds them from the merged notes.
An index that does not parse keeps ours whole, theirs recorded as a conflict.
"""

from __future__ import annotations

from memtier.formats.index import IndexEntry, parse_index, render_index
from memtier.formats.merge import Conflict, Merged

_FIELDS = ("category", "match", "status", "extra")


def _shown(entry: IndexEntry | None, name: str) -> str:
    if entry is None:
        return "(no entry)"
    value = getattr(entry, name)
    if name == "match":
        return ", ".join(value)
    if name == "extra":
        return " / ".join(line.strip() for line in value) or "(none)"
    return str(value)


def merge_index(base: str, ours: str, theirs: str) -> Merged:
    """The union of both sides' entries (see the module's docstring)."""
    b, o, t = parse_index(base), parse_index(ours), parse_index(theirs)
    if o.problems or t.problems:
        if ours == theirs or theirs == base:
            return Merged(ours)
        if ours == base:
            return Merged(theirs)
        whole = Conflict(
            1, tuple(ours.splitlines()), tuple(theirs.splitlines()), tuple(base.splitlines())
        )
        return Merged(ours, (whole,))
    slugs = list(dict.fromkeys([*(e.slug for e in o.entries), *(e.slug for e in t.entries)]))
    entries: list[IndexEntry] = []
    found: list[tuple[str, str, str, str, str]] = []  # slug, field, ours, theirs, base
    for slug in slugs:
        was, mine, other = b.find(slug), o.find(slug), t.find(slug)
        if mine is None or other is None:
            kept = mine or other
            assert kept is not None
            entries.append(kept)
            continue
        merged = mine
        for name in _FIELDS:
            value_o, value_t = getattr(mine, name), getattr(other, name)
            value_b = getattr(was, name) if was is not None else None
            if value_o == value_t or value_t == value_b:
                continue
            if value_o == value_b:
                merged = merged.copy_with(**{name: value_t})
            else:
                shown = (_shown(mine, name), _shown(other, name), _shown(was, name))
                found.append((slug, name, *shown))
        entries.append(merged)
    text = render_index(entries)
    lines = text.split("\n")
    conflicts = []
    for slug, name, mine_v, other_v, base_v in found:
        number = next((n + 1 for n, line in enumerate(lines) if line == f"- **{slug}**"), 0)
        label = "Match" if name == "match" else name.capitalize()
        conflicts.append(
            Conflict(
                number,
                (f"{slug} {label}: {mine_v}",),
                (f"{slug} {label}: {other_v}",),
                (f"{slug} {label}: {base_v}",),
            )
        )
    return Merged(text, tuple(conflicts))
