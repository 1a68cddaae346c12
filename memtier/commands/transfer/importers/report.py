"""What an import did, item by item (PROTOCOL §12): the result `memtier import` shows.

Every source item ends as exactly one `Outcome`: imported (with the home it went
to) or skipped with its reason (``duplicate``, ``invalid: …``, ``conflict: …``,
``refused: …``). Item references are redacted before they are kept, since an id or
a file name from a source is user text (PROTOCOL §3).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from memtier.results import Record, Result

IMPORTED = "imported"
SKIPPED = "skipped"
DUPLICATE = "duplicate"


@dataclass(frozen=True)
class Outcome(Record):
    item: str
    status: str  # IMPORTED or SKIPPED
    home: str | None = None  # root-relative path the item went to (or would go to)
    reason: str | None = None  # why it was skipped
    route: str | None = None  # the kind it was routed as, and by which rule


def imported(item: str, home: str, route: str | None = None) -> Outcome:
    return Outcome(item=item, status=IMPORTED, home=home, route=route)


def skipped(item: str, reason: str, home: str | None = None, route: str | None = None) -> Outcome:
    return Outcome(item=item, status=SKIPPED, home=home, reason=reason, route=route)


@dataclass(frozen=True)
class ImportResult(Result):
    format: str
    source: str
    dry_run: bool
    outcomes: tuple[Outcome, ...]
    redacted: dict[str, int] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    @property
    def imported_count(self) -> int:
        return sum(1 for o in self.outcomes if o.status == IMPORTED)

    @property
    def skipped_count(self) -> int:
        return len(self.outcomes) - self.imported_count

    def reasons(self) -> dict[str, int]:
        """Skip reasons with their counts (``invalid: …`` reasons grouped as ``invalid``)."""
        found = Counter(
            (o.reason or "").split(":", 1)[0] for o in self.outcomes if o.status == SKIPPED
        )
        return dict(sorted(found.items()))

    def homes(self) -> dict[str, int]:
        found = Counter(o.home for o in self.outcomes if o.status == IMPORTED and o.home)
        return dict(sorted(found.items()))

    def json_extra(self) -> Mapping[str, Any]:
        return {
            "items": len(self.outcomes),
            "imported": self.imported_count,
            "skipped": self.skipped_count,
            "reasons": self.reasons(),
            "homes": self.homes(),
        }

    def text_lines(self) -> Iterable[str]:
        verb = "would import" if self.dry_run else "imported"
        # A dry run prints the whole plan; a real run names what it skipped and
        # sums up the rest per home (a 10,000-item import stays readable).
        for o in self.outcomes:
            if o.status == IMPORTED and self.dry_run:
                yield f"  + {o.item} → {o.home} [{o.route}]"
            elif o.status == SKIPPED:
                yield f"  - {o.item}: skipped ({o.reason})"
        for home, count in self.homes().items():
            yield f"{home}: {count} item(s)"
        reasons = ", ".join(f"{n} {r}" for r, n in self.reasons().items())
        tail = f" ({reasons})" if reasons else ""
        prefix = "dry run: nothing written; " if self.dry_run else ""
        yield (
            f"{prefix}{verb} {self.imported_count} of {len(self.outcomes)} item(s) "
            f"from {self.format}; skipped {self.skipped_count}{tail}"
        )
