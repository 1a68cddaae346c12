"""Health checks of the topic index and its generations (PROTOCOL §13, §6 grows).

- ``index.format``: an entry that does not parse, an unknown status, a repeated slug;
- ``index.refs``: a Consolidations or Current path that does not exist;
- ``consolidation.immutable``: a generation whose Digest (or header) does not match;
- ``consolidation.chain``: a ``Previous`` that does not exist, or a gap in N;
- ``index.fresh`` (warning): a rebuild would change INDEX.md.

Nothing runs in a workspace without ``INDEX.md`` and ``consolidated/``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from memtier.errors import MemtierError, Term
from memtier.health.checks import load
from memtier.health.verdict import FAIL, PASS, WARN, Check, Fix
from memtier.store.reading import Reading
from memtier.workspace import Workspace

if TYPE_CHECKING:
    from memtier.commands.topics.state import IndexState

_REBUILD: Fix = ("fix: ", Term("index_rebuild"))
# A generation is immutable (§13): restored, never edited; a correction is the next one.
_RESTORE: Fix = ("fix: restore it from a backup or a sync peer; never edit a generation",)


def _by_hand(rel: str) -> Fix:
    return ("fix: correct it by hand (", Term("get", arg=rel), " shows it)")


class IndexScan:
    """INDEX.md read once for every ``index.*`` check, and ``index.fresh``'s ripgrep
    passes, started early so they run alongside the other checks (as the secrets
    scan's does). A context manager: leaving it stops a pass nobody collected."""

    def __init__(self, ws: Workspace, reading: Reading) -> None:
        self.state: IndexState | None = None
        if os.path.lexists(ws.index_file):
            from memtier.commands.topics.state import read_index

            try:
                self.state = read_index(ws, reading)
            except MemtierError:
                return  # index.format says why
            if not self.state.parsed.problems:
                self.state.notes.start(self.state.parsed.entries)

    def __enter__(self) -> IndexScan:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.state is not None:
            self.state.notes.close()


def index_checks(
    ws: Workspace, reading: Reading | None = None, scan: IndexScan | None = None
) -> list[Check]:
    checks: list[Check] = []
    rel = ws.relative(ws.index_file)
    if os.path.lexists(ws.index_file):
        # Imported only here: most workspaces have no index, and the module costs
        # ~3 ms to import on every health check and session start.
        from memtier.commands.topics.state import index_too_large
        from memtier.formats.index import parse_index

        too_large = index_too_large(ws)
        if too_large is not None:
            failed = Check("index.format", FAIL, rel, too_large, fix=_by_hand(rel))
            return [failed, *consolidation_checks(ws)]
        state = scan.state if scan is not None else None
        if state is not None and state.text is not None:
            parsed = state.parsed  # INDEX.md as the scan read it: read once
        else:
            text, problem = load(ws, ws.index_file)
            if text is None:
                message = f"{rel} — unreadable: {problem or 'gone'}"
                return [Check("index.format", FAIL, rel, message)]
            parsed = parse_index(text)
        for found in parsed.problems:
            message = f"{rel}:{found.line} — {found.message}"
            checks.append(Check("index.format", FAIL, rel, message, fix=_by_hand(rel)))
        if not parsed.problems:
            count = len(parsed.entries)
            checks.append(Check("index.format", PASS, rel, f"{rel} — {count} topic(s)"))
        checks += _refs(ws, rel, parsed.entries)
        if not parsed.problems:
            checks.append(_fresh(ws, rel, reading, scan))
    checks += consolidation_checks(ws)
    return checks


def _refs(ws: Workspace, rel: str, entries: tuple[object, ...]) -> list[Check]:
    missing: list[Check] = []
    for entry in entries:
        paths = [g.path for g in getattr(entry, "consolidations", ())]
        current = getattr(entry, "current", None)
        for path in dict.fromkeys([*paths, *([current] if current else [])]):
            if not (ws.root / path).is_file():
                message = f"{rel} — {getattr(entry, 'slug', '?')}: {path} does not exist"
                missing.append(Check("index.refs", FAIL, rel, message, fix=_REBUILD))
    return missing or [Check("index.refs", PASS, rel, "every generation the index names exists")]


def _fresh(ws: Workspace, rel: str, reading: Reading | None, scan: IndexScan | None) -> Check:
    from memtier.commands.topics.state import read_index

    state = scan.state if scan is not None and scan.state is not None else None
    if (state or read_index(ws, reading)).stale:
        message = f"{rel} — out of date (a rebuild would change it)"
        return Check("index.fresh", WARN, rel, message, fix=_REBUILD)
    return Check("index.fresh", PASS, rel, f"{rel} — up to date")


def consolidation_checks(ws: Workspace) -> list[Check]:
    folder = ws.consolidated_dir
    if not folder.is_dir():
        return []
    from memtier.formats.consolidated import NAME_RE, checked_generation

    checks: list[Check] = []
    chain: dict[str, dict[int, str]] = {}
    previous: dict[str, str | None] = {}
    for path in sorted(folder.iterdir()):
        if not path.name.endswith(".md"):
            continue
        rel = ws.relative(path)
        text, problem = load(ws, path)
        if text is None:
            message = f"{rel} — unreadable: {problem or 'gone'}"
            checks.append(Check("consolidation.immutable", FAIL, rel, message))
            continue
        problems, gen = checked_generation(path.name, text)
        if problems or gen is None:
            message = f"{rel} — changed after it was written: {problems[0] if problems else '?'}"
            why = "a generation is never rewritten; a correction is the next generation"
            checks.append(Check("consolidation.immutable", FAIL, rel, message, (why,), _RESTORE))
            continue
        named = NAME_RE.match(path.name)
        assert named is not None
        chain.setdefault(named.group("slug"), {})[int(named.group("n"))] = rel
        previous[rel] = gen.previous
    if not checks and chain:
        count = sum(len(v) for v in chain.values())
        checks.append(
            Check(
                "consolidation.immutable",
                PASS,
                ws.relative(folder),
                f"{count} generation(s) intact",
            )
        )
    checks += _chain(ws, chain, previous)
    return checks


def _chain(
    ws: Workspace, chain: dict[str, dict[int, str]], previous: dict[str, str | None]
) -> list[Check]:
    out: list[Check] = []
    for slug, gens in sorted(chain.items()):
        numbers = sorted(gens)
        gaps = [n for n in range(1, numbers[-1] + 1) if n not in gens]
        if gaps:
            message = f"{slug} — generation(s) {', '.join(map(str, gaps))} missing"
            out.append(Check("consolidation.chain", FAIL, gens[numbers[-1]], message, (), _RESTORE))
        for number in numbers:
            rel, prev = gens[number], previous.get(gens[number])
            if prev is not None and not (ws.root / prev).is_file():
                message = f"{rel} — Previous {prev} does not exist"
                out.append(Check("consolidation.chain", FAIL, rel, message, (), _RESTORE))
    if chain and not out:
        out.append(
            Check("consolidation.chain", PASS, ws.relative(ws.consolidated_dir), "chains complete")
        )
    return out
