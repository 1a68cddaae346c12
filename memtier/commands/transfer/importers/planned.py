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
    # Redacted and (unless a block) folded to one line, before any lock is taken;
    # None with *problem* saying why when nothing is left to write.
    clean: str | None = None
    problem: str | None = None

    @property
    def label(self) -> str:
        return f"{self.how.kind} ({self.how.why})"


def cleaned(entry: Planned, redacted: dict[str, int]) -> Planned:
    """*entry* with its text redacted and folded as `remember` does (PROTOCOL §3 v2)."""
    from dataclasses import replace

    from memtier.commands.facts.remember import clean_fact
    from memtier.errors import InputError
    from memtier.secrets import add_counts

    try:
        clean = clean_fact("\n".join(entry.lines), "imported item", block=entry.item.block)
    except InputError as exc:
        return replace(entry, problem=f"invalid: {exc.message}")
    add_counts(redacted, clean.redacted)
    return replace(entry, clean=clean.text)
