"""A search hit: one ranked section, its excerpt, its JSON and its human view.

The excerpt is the section's matching lines with ``--context`` lines around
them (at most `MAX_EXCERPT_LINES`, blank edges trimmed), so a hit shows a few
lines, not a whole day; a line longer than `MAX_LINE_CHARS` is cut to a window
around its first match. The human view is shaped like ripgrep's output:
``path:start-end  TIER  score N`` then the excerpt, each line numbered, ``12:``
for a line with a match (matched text highlighted on a terminal) and ``13-``
for a context line, as ``rg -n -C`` prints them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from memtier.render import paint
from memtier.search.sections import Section
from memtier.search.tokens import Term

MAX_EXCERPT_LINES = 12
MAX_LINE_CHARS = 400  # a longer line is cut to a window around its first match

# A match as the ranking uses it: line, byte column, text, term, weight.
Scored = tuple[int, int, str, str, float]


@dataclass(frozen=True)
class Hit:
    """One ranked section."""

    path: str
    tier: str
    line_start: int
    line_end: int
    score: float
    excerpt: str
    excerpt_start: int
    matched_terms: tuple[str, ...]
    match_lines: dict[int, tuple[tuple[int, int], ...]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "tier": self.tier,
            # PROTOCOL §9 names a hit's "line": its first matching line.
            "line": min(self.match_lines, default=self.line_start),
            "line_start": self.line_start,
            "line_end": self.line_end,
            "score": round(self.score, 4),
            "excerpt": self.excerpt,
            "matched_terms": list(self.matched_terms),
        }


def _shorten(line: str, spans: list[tuple[int, int]]) -> str:
    """A window of a very long line around its first match (no highlighting there)."""
    start = 0
    if spans:
        column = min(spans)[0]
        start = len(line.encode("utf-8")[: column - 1].decode("utf-8", "ignore"))
    begin = max(0, start - MAX_LINE_CHARS // 4)
    end = begin + MAX_LINE_CHARS
    return ("…" if begin else "") + line[begin:end] + ("…" if end < len(line) else "")


def make_hit(
    rel: str,
    tier: str,
    lines: list[str],
    section: Section,
    matches: list[Scored],
    score: float,
    context: int,
    terms: tuple[Term, ...],
    regex: bool,
) -> Hit:
    """The hit for *section*; matched terms in query order (a regex: sorted)."""
    matched_lines = sorted({m[0] for m in matches})
    first = max(1, matched_lines[0] - context)
    last = min(len(lines), matched_lines[-1] + context)
    last = min(last, first + MAX_EXCERPT_LINES - 1)
    while first < last and not lines[first - 1].strip():
        first += 1
    while last > first and not lines[last - 1].strip():
        last -= 1
    spans: dict[int, list[tuple[int, int]]] = {}
    for line, column, text, _, _ in matches:
        spans.setdefault(line, []).append((column, len(text.encode("utf-8"))))
    if regex:
        names = sorted({m[3] for m in matches})
    else:
        present = {m[3] for m in matches}
        names = [t.shown() for t in terms if t.text in present]
    shown: list[str] = []
    for number in range(first, last + 1):
        content = lines[number - 1]
        if len(content) > MAX_LINE_CHARS:
            content = _shorten(content, spans.get(number, []))
            if number in spans:
                spans[number] = []  # columns no longer fit the shortened line
        shown.append(content)
    shown = _without_secrets(shown, first, spans)
    return Hit(
        path=rel,
        tier=tier,
        line_start=section.start,
        line_end=section.end,
        score=score,
        excerpt="\n".join(shown),
        excerpt_start=first,
        matched_terms=tuple(names),
        match_lines={line: tuple(sorted(s)) for line, s in spans.items()},
    )


def _without_secrets(
    shown: list[str], first: int, spans: dict[int, list[tuple[int, int]]]
) -> list[str]:
    """The excerpt with every credential replaced (PROTOCOL §3 v2: search output never
    prints one, also one a person pasted into a file; health-check fails on that file).

    The window is redacted whole, so a key block across lines is caught; a line that
    changed loses its highlight spans, whose columns no longer fit it."""
    from memtier.secrets import redact

    window = "\n".join(shown)
    cleaned = redact(window).text
    if cleaned == window:
        return shown
    lines = cleaned.split("\n")
    if len(lines) != len(shown):
        lines = [redact(line).text for line in shown]
    for offset, (before, after) in enumerate(zip(shown, lines, strict=True)):
        if before != after:
            spans[first + offset] = []
    return lines


def _highlight(line: str, spans: tuple[tuple[int, int], ...], colour: bool) -> str:
    if not colour or not spans:
        return line
    data = line.encode("utf-8")
    out: list[bytes] = []
    cursor = 0
    for column, width in spans:
        start = column - 1
        if start < cursor or start + width > len(data):
            continue
        out.append(data[cursor:start])
        piece = data[start : start + width].decode("utf-8", "replace")
        out.append(paint(piece, "red", True).encode("utf-8"))
        cursor = start + width
    out.append(data[cursor:])
    return b"".join(out).decode("utf-8", "replace")


def hit_lines(hit: Hit, colour: bool) -> Iterator[str]:
    span = (
        f"{hit.line_start}"
        if hit.line_start == hit.line_end
        else (f"{hit.line_start}-{hit.line_end}")
    )
    from memtier.workspace import printable_name

    where = paint(f"{printable_name(hit.path)}:{span}", "cyan", colour)
    yield f"{where}  {hit.tier.upper()}  score {hit.score:.2f}"
    for offset, line in enumerate(hit.excerpt.split("\n")):
        number = hit.excerpt_start + offset
        spans = hit.match_lines.get(number)
        mark = ":" if spans is not None else "-"
        label = paint(f"{number}{mark}", "green" if spans is not None else "dim", colour)
        yield f"{label}{_highlight(line, spans or (), colour)}"
