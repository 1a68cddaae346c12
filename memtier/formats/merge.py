"""Three-way merges that understand memory files (PROTOCOL §14): pure text in and out.

git calls ``memtier merge-driver note|fact|lines`` with three versions of a file
(base, ours, theirs); these functions compute the result. None of them ever
writes a conflict marker: what cannot be merged keeps ours and is returned as a
`Conflict` for sync to record in today's note.

- `merge_note`: an episodic note (live or archived). Blocks identified by their
  id (rotation ``(r-…)``, stale recovery, sync conflict ``(s-…)``) are a union,
  each once, in time order; each block's lines and the text before the first
  block merge three ways; the closure block is one block, last, its items merged
  as sets (an item removed on one side stays removed), ``Updated:`` the later date.
- MEMORY.md and WARM files merge by identity: `memtier.formats.fact_merge`.
- `merge_lines`: ``.learnings/*`` and the retirement log, a three-way merge of sets
  of lines.
- `merge_text`: any other tracked file, three ways; what both sides changed
  keeps ours whole, theirs in the `Conflict`.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from memtier.clock import parse_day
from memtier.values import Fields

CLOSURE_FIELDS: tuple[str, ...] = ("Updated:", "Decisions:", "Signal:", "Open:")
ITEM_SEPARATOR = "; "
NONE = "none"

# A line that opens a block with an identity: `### 14:05 working buffer (r-3f9a1c2e)`,
# `[RECOVERED: STALE] <last_active> (r-…)`, `### 14:05 sync conflict (s-…)`.
_BLOCK_ID = re.compile(r"\(([rs]-[0-9a-f]{8})\)\s*$")
_TIME = re.compile(r"(?:^### |T)(\d\d:\d\d)")
_HEADER_DATE = re.compile(r"^((?:> )?(?:last_verified|last_updated): ?)(\d{4}-\d\d-\d\d)\s*$")


class Conflict(Fields):
    """One line range both sides changed differently: ours is kept in the result."""

    line: int  # 1-based line of the result where ours stands (0: the file is empty)
    ours: tuple[str, ...]
    theirs: tuple[str, ...]
    base: tuple[str, ...]


class Merged(Fields):
    text: str
    conflicts: tuple[Conflict, ...] = ()


def text_lines(text: str) -> list[str]:
    """A file's lines, without the empty one its final newline leaves."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def lines_text(lines: list[str]) -> str:
    """*lines* as a file's text, ending with a newline (empty: empty)."""
    return "\n".join(lines) + "\n" if lines else ""


# ---------------------------------------------------------------------------
# the three-way merge of line lists


def _hunks(base: list[str], side: list[str]) -> list[tuple[int, int, list[str]]]:
    """The changes from *base* to *side*: (base start, base end, replacement lines)."""
    matcher = SequenceMatcher(None, base, side, autojunk=False)
    return [
        (i1, i2, side[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"
    ]


def _overlap(a: tuple[int, int, list[str]], b: tuple[int, int, list[str]]) -> bool:
    """Two hunks touch the same base lines, or insert at the same place."""
    if a[0] == a[1] and b[0] == b[1]:
        return a[0] == b[0]
    if a[0] == a[1]:
        return b[0] < a[0] < b[1]
    if b[0] == b[1]:
        return a[0] < b[0] < a[1]
    return a[0] < b[1] and b[0] < a[1]


def three_way(
    base: list[str],
    ours: list[str],
    theirs: list[str],
    *,
    keep_both: bool = False,
    strict: bool = False,
) -> tuple[list[str], list[Conflict]]:
    """A diff3 merge of line lists. Where both sides changed the same lines
    differently: both additions when the base had none there (unless *strict*; or
    always, with *keep_both*: ours, then theirs' lines ours lacks), else ours and a
    `Conflict`."""
    if ours == theirs or theirs == base:
        return list(ours), []
    if ours == base:
        return list(theirs), []
    changes = sorted(
        [(h, 0) for h in _hunks(base, ours)] + [(h, 1) for h in _hunks(base, theirs)],
        key=lambda item: (item[0][0], item[0][1]),
    )
    out: list[str] = []
    conflicts: list[Conflict] = []
    position = 0
    index = 0
    while index < len(changes):
        group = [changes[index]]
        start, end = changes[index][0][0], changes[index][0][1]
        index += 1
        while index < len(changes) and any(_overlap(changes[index][0], g[0]) for g in group):
            start = min(start, changes[index][0][0])
            end = max(end, changes[index][0][1])
            group.append(changes[index])
            index += 1
        out.extend(base[position:start])
        position = end
        versions = [
            _region(base, start, end, [g[0] for g in group if g[1] == side]) for side in (0, 1)
        ]
        mine, other = versions
        if not any(g[1] == 1 for g in group) or mine == other:
            out.extend(mine)
        elif not any(g[1] == 0 for g in group):
            out.extend(other)
        elif keep_both or (start == end and not strict):
            out.extend(mine)
            out.extend(line for line in other if line not in mine)
        else:
            conflicts.append(
                Conflict(len(out) + 1, tuple(mine), tuple(other), tuple(base[start:end]))
            )
            out.extend(mine)
    out.extend(base[position:])
    return out, conflicts


def _region(
    base: list[str], start: int, end: int, hunks: list[tuple[int, int, list[str]]]
) -> list[str]:
    """Base lines *start*..*end* with one side's *hunks* (all inside the range) applied."""
    out: list[str] = []
    position = start
    for h_start, h_end, replacement in sorted(hunks, key=lambda h: (h[0], h[1])):
        out.extend(base[position:h_start])
        out.extend(replacement)
        position = max(position, h_end)
    out.extend(base[position:end])
    return out


# ---------------------------------------------------------------------------
# text: a file no other driver knows


def merge_text(base: str, ours: str, theirs: str) -> Merged:
    """Three ways line by line; where both sides changed the same lines the file
    takes ours whole and the `Conflict` holds both versions (§14 v4: never a marker,
    never a merge that stays refused)."""
    b, o, t = text_lines(base), text_lines(ours), text_lines(theirs)
    merged, conflicts = three_way(b, o, t, strict=True)  # a settings file: no guessing
    if not conflicts:
        return Merged(lines_text(merged))
    return Merged(ours, (Conflict(0, tuple(o), tuple(t), tuple(b)),))


# ---------------------------------------------------------------------------
# lines: sets of lines


def merge_lines(base: str, ours: str, theirs: str) -> Merged:
    """Ours in its order, less the lines theirs removed, plus the lines only theirs added."""
    b, o, t = text_lines(base), text_lines(ours), text_lines(theirs)
    in_base, in_ours, in_theirs = set(b), set(o), set(t)
    removed = {line for line in in_base if line not in in_ours or line not in in_theirs}
    kept = [line for line in o if line not in removed]
    seen = set(kept)
    for line in t:
        if line not in seen and line not in removed:
            kept.append(line)
            seen.add(line)
    return Merged(lines_text(kept))


# ---------------------------------------------------------------------------
# the header dates of a fact file (`memtier.formats.fact_merge` merges its facts)


def header_dates(lines: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for line in lines[:4]:
        match = _HEADER_DATE.match(line)
        if match and parse_day(match.group(2)) is not None:
            found[match.group(1)] = match.group(2)
    return found


def set_header_dates(lines: list[str], dates: dict[str, str]) -> list[str]:
    out = list(lines)
    for number, line in enumerate(out[:4]):
        match = _HEADER_DATE.match(line)
        if match and match.group(1) in dates:
            out[number] = match.group(1) + dates[match.group(1)]
    return out


# ---------------------------------------------------------------------------
# notes


class _Note(Fields):
    head: list[str]  # the lines before the first block with an id
    blocks: dict[str, list[str]]  # id -> its lines, heading first
    order: list[str]
    closure: list[str] | None  # the four closure lines, when the note ends with them


def _closure_ok(lines: list[str]) -> bool:
    if len(lines) < 4:
        return False
    for line, name in zip(lines[-4:], CLOSURE_FIELDS, strict=True):
        if not line.startswith(name) or not line[len(name) :].strip():
            return False
    return parse_day(lines[-4][len("Updated:") :].strip()) is not None


def _parse_note(text: str) -> _Note:
    lines = text_lines(text)
    closure = None
    if _closure_ok(lines):
        closure, lines = lines[-4:], lines[:-4]
    head: list[str] = []
    blocks: dict[str, list[str]] = {}
    order: list[str] = []
    current: list[str] = head
    for line in lines:
        match = _BLOCK_ID.search(line) if line.startswith(("### ", "[RECOVERED")) else None
        if match:
            bid = match.group(1)
            if bid not in blocks:
                blocks[bid] = []
                order.append(bid)
            current = blocks[bid]
        current.append(line)
    return _Note(head, blocks, order, closure)


def _items(text: str) -> list[str]:
    items = (item.strip() for item in text.split(ITEM_SEPARATOR))
    return [item for item in items if item and item.casefold() != NONE]


def _merge_items(base: list[str], ours: list[str], theirs: list[str]) -> list[str]:
    removed = {i for i in base if i not in ours or i not in theirs}
    merged = [i for i in ours if i not in removed]
    merged += [i for i in theirs if i not in removed and i not in merged]
    return list(dict.fromkeys(merged))


def _merge_closure(
    base: list[str] | None, ours: list[str] | None, theirs: list[str] | None
) -> list[str] | None:
    # A side without a valid closure block changed nothing in it.
    ours, theirs = ours or base, theirs or base
    present = [c for c in (ours, theirs) if c is not None]
    if not present:
        return None
    updated = max(c[0][len("Updated:") :].strip() for c in present)
    out = [f"Updated: {updated}"]
    for number, name in enumerate(CLOSURE_FIELDS[1:], start=1):

        def field(block: list[str] | None, number: int = number, name: str = name) -> list[str]:
            return _items(block[number][len(name) :]) if block is not None else []

        items = _merge_items(field(base), field(ours), field(theirs))
        out.append(f"{name} {ITEM_SEPARATOR.join(items) if items else NONE}")
    return out


def _time_key(block: list[str]) -> str:
    match = _TIME.search(block[0]) if block else None
    return match.group(1) if match else ""


def merge_note(base: str, ours: str, theirs: str) -> Merged:
    """Blocks by id as a union in time order; other lines three ways; one closure, last."""
    b, o, t = _parse_note(base), _parse_note(ours), _parse_note(theirs)
    head, _ = three_way(b.head, o.head, t.head, keep_both=True)
    ids = list(dict.fromkeys([*o.order, *t.order]))
    blocks: dict[str, list[str]] = {}
    for bid in ids:
        merged, _ = three_way(
            b.blocks.get(bid, []),
            o.blocks.get(bid, []),
            t.blocks.get(bid, []),
            keep_both=True,
        )
        blocks[bid] = merged
    # Time order; a tie keeps ours' order (stable sort), then theirs' new blocks.
    ids.sort(key=lambda bid: _time_key(blocks[bid]))
    out = list(head)
    for bid in ids:
        out.extend(blocks[bid])
    closure = _merge_closure(b.closure, o.closure, t.closure)
    if closure is not None:
        out.extend(closure)
    return Merged(lines_text(out))
