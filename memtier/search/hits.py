"""A search hit: its best line, its excerpt, its JSON and its human view.

A hit is a group of neighbouring matching lines of one file (`group`, PROTOCOL
§9 v3); its *line* is the best of them. The excerpt is that line with
``--context`` lines around it (at most `MAX_EXCERPT_LINES`, blank edges
trimmed): three lines by default, since the answer is often the line next to
the one the question's words are on. ``line_start``/``line_end`` are the span
shown. A line longer than `MAX_LINE_CHARS` is cut to a window around its first
match. The human view is shaped like ripgrep's output: ``path:line  TIER  score
N`` then the excerpt, each line numbered, ``12:`` for a line with a match
(matched text highlighted on a terminal) and ``13-`` for a context line, as
``rg -n -C`` prints them.
"""

from __future__ import annotations

from collections.abc import Iterator

from memtier.render import paint
from memtier.search.tokens import Term
from memtier.values import Fields, field

MAX_EXCERPT_LINES = 12
MAX_LINE_CHARS = 400  # a longer line is cut to a window around its first match

# A match as the ranking uses it: line, byte column, text, term, weight.
Scored = tuple[int, int, str, str, float]


class Hit(Fields):
    """One ranked hit: *line* is its best line, *line_start*..*line_end* the lines shown."""

    path: str
    tier: str
    line: int
    line_start: int
    line_end: int
    score: float
    excerpt: str
    excerpt_start: int
    matched_terms: tuple[str, ...]
    match_lines: dict[int, tuple[tuple[int, int], ...]] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        from memtier.secrets import redact_name

        return {
            "path": redact_name(self.path),  # a credential in a name is never shown (§3 v4)
            "tier": self.tier,
            # PROTOCOL §9 v3: a hit's "line" is its best line; the span is what is shown.
            "line": self.line,
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
    line: int,
    matches: list[Scored],
    score: float,
    context: int,
    terms: tuple[Term, ...],
    regex: bool,
) -> Hit:
    """The hit shown at *line*; matched terms in query order (a regex: sorted)."""
    half = min(context, (MAX_EXCERPT_LINES - 1) // 2)
    first = max(1, line - half)
    last = min(len(lines), line + half)
    while first < line and not lines[first - 1].strip():
        first += 1
    while last > line and not lines[last - 1].strip():
        last -= 1
    spans: dict[int, list[tuple[int, int]]] = {}
    for number, column, text, _, _ in matches:
        if first <= number <= last:
            spans.setdefault(number, []).append((column, len(text.encode("utf-8"))))
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
        line=line,
        line_start=first,
        line_end=last,
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
    from memtier.workspace import printable_name

    where = paint(f"{printable_name(hit.path)}:{hit.line}", "cyan", colour)
    yield f"{where}  {hit.tier.upper()}  score {hit.score:.2f}"
    for offset, line in enumerate(hit.excerpt.split("\n")):
        number = hit.excerpt_start + offset
        spans = hit.match_lines.get(number)
        mark = ":" if spans is not None else "-"
        label = paint(f"{number}{mark}", "green" if spans is not None else "dim", colour)
        yield f"{label}{_highlight(line, spans or (), colour)}"
