"""`memtier health-check`: every invariant of PROTOCOL §6, read-only.

`run_health_check` never writes anything: it reads the workspace, runs each
check of §6 in a fixed order and returns a `HealthReport`. A required check
that fails makes the report not ``ok`` (exit 1); warnings are shown but never
change the verdict. Anything a person can get wrong on disk (a missing file, a
directory where a file belongs, a file that is not UTF-8) becomes a failure or
a warning line, never a traceback.

The human view keeps the original script's shape (compat): a heading with the
date and time, one section per group, a ``✅`` line per passing check, ``❌
<message>`` per failure, ``⚠️  <message>`` per warning, and the verdict as the
last line. A failure that has a fix names it once, on an indented line under it
(PROTOCOL §6 v4), in the words of the face that asked: the checks name the
operation (`memtier.errors.Term`), `text_lines(words=…)` words it — a command
by default, a tool call on the tool server. ``--verbose`` adds the rest of the
detail behind each failure or warning.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memtier.errors import CheckFailed, Term
from memtier.health.verdict import FAIL, PASS, STALENESS, WARN, Check
from memtier.results import Result
from memtier.values import Fields
from memtier.workspace import Workspace

if TYPE_CHECKING:
    from memtier.health.secrets_scan import SecretsScan
    from memtier.health.topics import IndexScan

HEADING = "=== Memory Health Check ({moment}) ==="
VERDICT_OK = "✅ All required checks passed"
VERDICT_FAILED = "⚠️  Some required checks failed — review above"

# Section title per group, in the order the report shows them.
SECTIONS: tuple[tuple[str, str], ...] = (
    ("confinement", "Confinement: links out of the workspace, special files"),
    ("hot", "HOT: MEMORY.md"),
    ("warm", "WARM: memory/semantic, memory/procedural"),
    ("buffer", "BUFFER: memory/working-buffer.md"),
    ("cold", "COLD: today's and yesterday's episodic notes"),
    ("scratch", "SCRATCH: .learnings/"),
    ("secrets", "Secrets: HOT, WARM, BUFFER, SCRATCH, COLD"),
    ("residue", "Leftover files"),
    ("shims", "Shims: memory/scripts/"),
    ("index", "Index: memory/INDEX.md, memory/consolidated/"),
    ("sync", "Sync: conflict markers, memory/.sync/.git/repo (PROTOCOL §14)"),
)
_MARKS = {PASS: "✅ ", FAIL: "❌ ", WARN: "⚠️  "}
_STYLES = {PASS: "green", FAIL: "red", WARN: "yellow"}


def section_of(check: Check) -> str:
    """The group a check is shown under (the ``tags`` check serves both HOT and WARM)."""
    if check.id == "tags":
        return "hot" if check.path == "MEMORY.md" else "warm"
    head = check.id.split(".", 1)[0]
    return {"episodic": "cold", "residue": "residue", "consolidation": "index"}.get(head, head)


class HealthReport(Result, Fields):
    """Every check that ran, in report order, and the moment they ran at."""

    checks: tuple[Check, ...]
    checked_at: datetime
    verbose: bool = False  # show (and put in JSON) the detail behind each line

    def with_detail(self, verbose: bool) -> HealthReport:
        return self.copy_with(verbose=verbose)

    @property
    def ok(self) -> bool:
        """True when no required check failed; warnings do not count (PROTOCOL §6)."""
        return not self.failed

    @property
    def failed(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if c.status == FAIL)

    @property
    def integrity_failed(self) -> tuple[Check, ...]:
        """The failures that are not staleness (PROTOCOL §6 v4): a reason to stop."""
        return tuple(c for c in self.failed if c.id not in STALENESS)

    @property
    def stale(self) -> tuple[Check, ...]:
        """The WARM files not verified for too long: verified when used (§6 v4)."""
        return tuple(c for c in self.failed if c.id in STALENESS)

    @property
    def warned(self) -> tuple[Check, ...]:
        """The warnings of the report (part of its output, not stderr messages)."""
        return tuple(c for c in self.checks if c.status == WARN)

    @property
    def failure(self) -> CheckFailed | None:
        """A failed required check ends the command with exit 1; the printed report
        already names it, so the handler adds no line (PROTOCOL §6)."""
        if self.ok:
            return None
        return CheckFailed(f"{len(self.failed)} required check(s) failed", shown=True)

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "checks": [c.to_json(verbose=self.verbose) for c in self.checks]}

    def text_lines(
        self,
        *,
        verbose: bool | None = None,
        colour: bool = False,
        words: Callable[[Term], str] = str,
    ) -> Iterator[str]:
        from memtier.render import paint

        if verbose is None:
            verbose = self.verbose

        moment = self.checked_at.strftime("%Y-%m-%d %H:%M")
        yield paint(HEADING.format(moment=moment), "bold", colour)
        for key, title in SECTIONS:
            shown = [c for c in self.checks if section_of(c) == key]
            if not shown:
                continue
            yield ""
            yield paint(f"--- {title} ---", "cyan", colour)
            for check in shown:
                mark = _MARKS.get(check.status, "   ")
                if check.status == PASS:
                    yield paint(mark.rstrip(), "green", colour) + " " + check.message
                else:
                    yield paint(mark + check.message, _STYLES.get(check.status, ""), colour)
                for line in check.under(verbose=verbose, words=words):
                    yield paint(f"     {line}", "dim", colour)
        yield ""
        if self.ok:
            yield paint(VERDICT_OK, "green", colour)
        else:
            yield paint(VERDICT_FAILED, "red", colour)


def run_health_check(ws: Workspace) -> HealthReport:
    """Run every check of PROTOCOL §6 on *ws*; reads only, never writes."""
    from memtier.health.secrets_scan import SecretsScan
    from memtier.health.sync import NOTE_PATTERNS

    # One ripgrep pass (when the COLD tier is large) reads every note for the
    # secrets and for the note checks, while Python imports and runs the other
    # checks; it starts first. The report keeps the section order regardless.
    with SecretsScan(ws, also=NOTE_PATTERNS) as scan:
        # Every folder is listed once and every file read once, whichever checks
        # need it (PROTOCOL §6 v4): the checks share the scan's Reading.
        reading = scan.reading
        from memtier.health.topics import IndexScan

        # The topics' passes (index.fresh) start next, before the notes are listed.
        with IndexScan(ws, reading) as topics:
            return _checks(ws, scan, topics)


def _checks(ws: Workspace, scan: SecretsScan, topics: IndexScan) -> HealthReport:
    """Every check, in report order, while the passes of *scan* and *topics* run."""
    from memtier.health import checks as hc
    from memtier.health.confinement import confinement_checks
    from memtier.health.sync import note_checks
    from memtier.health.topics import index_checks

    reading = scan.reading
    first = [
        *confinement_checks(ws, reading),
        *hc.hot_checks(ws),
        *hc.warm_checks(ws),
        *hc.buffer_checks(ws),
        *hc.episodic_checks(ws),
    ]
    scratch = hc.scratch_checks(ws)
    after = [
        *hc.residue_checks(ws, reading),
        *hc.shim_checks(ws),
        *index_checks(ws, reading, topics),
    ]
    scan.prepare()  # all that needs no answer from rg, while it still runs
    # PROTOCOL §14: one reading of every note the pass named
    unique, synced = note_checks(ws, reading, scan.named())
    before = [*first, *unique, *scratch]
    after += synced
    secrets = scan.finish()
    return HealthReport(checks=(*before, *secrets, *after), checked_at=ws.now)
