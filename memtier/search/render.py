"""The human view of a search hit, shaped like ripgrep's output.

``path:start-end  TIER  score N`` then the excerpt, each line numbered: ``12:``
for a line with a match (matched text highlighted on a terminal), ``13-`` for a
context line, as ``rg -n -C`` prints them.
"""

from __future__ import annotations

from collections.abc import Iterator

from memtier.render import paint
from memtier.search.hits import Hit


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
    where = paint(f"{hit.path}:{span}", "cyan", colour)
    yield f"{where}  {hit.tier.upper()}  score {hit.score:.2f}"
    for offset, line in enumerate(hit.excerpt.split("\n")):
        number = hit.excerpt_start + offset
        spans = hit.match_lines.get(number)
        mark = ":" if spans else "-"
        label = paint(f"{number}{mark}", "green" if spans else "dim", colour)
        yield f"{label}{_highlight(line, spans or (), colour)}"
