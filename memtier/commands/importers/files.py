"""Importing a memtier export: each file back at its path, byte for byte (PROTOCOL §12).

Never overwriting: a file that already holds the same bytes is a duplicate; a
file that differs is kept and the exported one is skipped as a conflict. The one
exception is a file exactly as `init` wrote it (an untouched template, whatever
day it was written on): that is the state an empty workspace is in after `init`,
and it gives way to the exported file, so export → init → import reproduces
every file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from memtier import store
from memtier.commands.importers.report import DUPLICATE, Outcome, imported, skipped
from memtier.errors import InputError
from memtier.formats.envelope import ExportedFile
from memtier.formats.routing import Invalid
from memtier.secrets import add_counts
from memtier.workspace import Workspace

_STAMP = re.compile(r"\d{4}-\d\d-\d\d(T\d\d:\d\d:\d\d([.,]\d+)?(Z|[+-]\d\d:\d\d)?)?")


def tier_of_path(rel: str) -> str | None:
    """The tier an exported path belongs to; ``config`` for memory/memtier.toml,
    ``index`` for memory/INDEX.md and memory/consolidated/ (PROTOCOL §12 v3)."""
    from memtier.workspace import memory_kind

    return memory_kind(rel)


def _undated(text: str) -> str:
    return _STAMP.sub("<date>", text)


@cache
def _template_names() -> frozenset[str]:
    from memtier.formats.templates import template_paths

    return frozenset(p.as_posix() for p in template_paths())


def is_untouched_template(ws: Workspace, rel: str, text: str) -> bool:
    """True when *text* is what `init` writes at *rel*, dates aside."""
    from memtier.formats.templates import render_template

    if rel not in _template_names():
        return False
    return _undated(text) == _undated(render_template(rel, ws.now, ws.config))


def _place(ws: Workspace, exported: ExportedFile, redacted: dict[str, int]) -> Outcome:
    from memtier.secrets import redact

    rel = exported.path
    tier = tier_of_path(rel)
    if tier is None:
        return skipped(rel, "invalid: not a memory file of the workspace layout")
    text = exported.text
    redaction = redact(text)
    if redaction.changed:
        add_counts(redacted, redaction.counts)
        text = redaction.text
    data = text.encode("utf-8")
    target = ws.root / rel
    if target.exists() or target.is_symlink():
        # Reads are confined like writes (PROTOCOL §3): raises for a link leading out.
        current = store.read_document(store.confine(ws.root, target), root=ws.root)
        raw = current.encode(current.text)
        if raw == data:
            return skipped(rel, DUPLICATE, rel, tier)
        if not is_untouched_template(ws, rel, current.text):
            return skipped(rel, "conflict: the file exists with other content (kept)", rel, tier)
    store.write_bytes(target, data, root=ws.root)
    return imported(rel, rel, tier)


def apply_files(
    ws: Workspace,
    files: list[ExportedFile],
    invalid: list[Invalid],
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[Outcome], dict[str, int]]:
    """Every exported file at its path; one outcome per file, invalid ones first."""
    redacted: dict[str, int] = {}
    outcomes = [skipped(i.ref, f"invalid: {i.why}") for i in invalid]
    for done, exported in enumerate(files, start=1):
        try:
            outcomes.append(_place(ws, exported, redacted))
        except InputError as exc:
            outcomes.append(skipped(exported.path, f"invalid: {exc.message}"))
        if progress is not None:
            progress(done, len(files))
    return outcomes, redacted
