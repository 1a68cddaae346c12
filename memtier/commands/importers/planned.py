"""One planned fact of an import (PROTOCOL §12 v3): what it says and where it goes."""

from __future__ import annotations

from dataclasses import dataclass

from memtier.formats.routing import Route, SourceItem


@dataclass(frozen=True)
class Planned:
    """One fact of one item, bound for one home."""

    index: int  # position in the plan (and in the outcomes)
    ref: str
    item: SourceItem
    how: Route
    lines: tuple[str, ...]  # one line, or a block's lines
    target: str  # a fact file's path, or "note:<YYYY-MM-DD>"

    @property
    def label(self) -> str:
        return f"{self.how.kind} ({self.how.why})"
