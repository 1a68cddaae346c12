"""Importing a memtier export: each file back at its path, byte for byte (PROTOCOL §12).

Never overwriting: a file that already holds the same bytes is a duplicate; a
file that differs is kept and the exported one is skipped as a conflict. The one
exception is a file exactly as `init` wrote it (an untouched template, whatever
day it was written on): that is the state an empty workspace is in after `init`,
and it gives way to the exported file, so export → init → import reproduces
every file.

PROTOCOL §12 v3: every file is checked before the first one is written — its path
(a plain relative path of the layout, no name longer than the file system
allows), its content (the header checks and the HOT cap of `atomic-write`; the
config parsed and validated as memtier reads it) — and one that fails is skipped
with its reason; only then are the good ones written, each under the lock.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from memtier import store
from memtier.commands.transfer.importers.report import DUPLICATE, Outcome, imported, skipped
from memtier.errors import InputError
from memtier.formats.envelope import ExportedFile
from memtier.formats.routing import Invalid
from memtier.secrets import add_counts
from memtier.workspace import CONFIG_FILE, Workspace, exists_or_link

CONFIG_TIER = "config"
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


MAX_NAME_BYTES = 255
MAX_PATH_BYTES = 1024


def _path_problem(rel: str) -> str | None:
    if len(rel.encode("utf-8")) > MAX_PATH_BYTES:
        return f"path longer than {MAX_PATH_BYTES} bytes"
    for part in rel.split("/"):
        if len(part.encode("utf-8")) > MAX_NAME_BYTES:
            return f"a file name longer than {MAX_NAME_BYTES} bytes"
    if "\0" in rel:
        return "path holds a NUL character"
    return None


def _config_problem(text: str) -> str | None:
    """Why *text* cannot be the workspace's memtier.toml, or None."""
    from memtier.config import parse_config
    from memtier.errors import MemtierError

    try:
        config = parse_config(text, CONFIG_FILE)
    except MemtierError as exc:
        return exc.message
    except (ValueError, RecursionError) as exc:
        return f"{CONFIG_FILE}: not valid TOML ({exc})"
    if "vocabulary" in text and not config.vocabulary:
        return f"{CONFIG_FILE}: 'vocabulary' is empty (every tag would be refused)"
    return None


def _content_problem(ws: Workspace, rel: str, tier: str, text: str) -> str | None:
    from memtier.commands.atomic_write import content_problem
    from memtier.errors import MemtierError

    if tier == CONFIG_TIER:
        return _config_problem(text)
    problem = content_problem(ws, rel, text)
    # Worded for the report a person reads (a Message may name a parameter).
    return None if problem is None else MemtierError(problem).message


def _place(
    ws: Workspace, exported: ExportedFile, redacted: dict[str, int], writes: list[_Write]
) -> Outcome:
    from memtier.secrets import redact

    rel = exported.path
    problem = _path_problem(rel)
    if problem is not None:
        return skipped(rel[:120], f"invalid: {problem}")
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
    if exists_or_link(target):
        # Reads are confined like writes (PROTOCOL §3): raises for a link leading out.
        current = store.read_document(store.confine(ws.root, target), root=ws.root)
        raw = current.encode(current.text)
        if raw == data:
            return skipped(rel, DUPLICATE, rel, tier)
        if not is_untouched_template(ws, rel, current.text):
            return skipped(rel, "conflict: the file exists with other content (kept)", rel, tier)
    problem = _content_problem(ws, rel, tier, text)
    if problem is not None:
        return skipped(rel, f"refused: {problem}", rel, tier)
    writes.append(_Write(rel, target, data))
    return imported(rel, rel, tier)


@dataclass(frozen=True)
class _Write:
    rel: str
    target: Path
    data: bytes


def apply_files(
    ws: Workspace,
    files: list[ExportedFile],
    invalid: list[Invalid],
    progress: Callable[[int, int], None] | None = None,
    *,
    dry_run: bool = False,
) -> tuple[list[Outcome], dict[str, int]]:
    """Every exported file at its path; one outcome per file, invalid ones first.

    Every file is judged before the first write (module docstring); a file whose
    write still fails (the disk, a path that turned into a folder) is reported so."""
    redacted: dict[str, int] = {}
    outcomes = [skipped(i.ref[:120], i.reason) for i in invalid]
    writes: list[_Write] = []
    for exported in files:
        try:
            outcomes.append(_place(ws, exported, redacted, writes))
        except InputError as exc:
            outcomes.append(skipped(exported.path[:120], f"invalid: {exc.message}"))
    if dry_run:
        return outcomes, redacted
    failed: dict[str, str] = {}
    for done, write in enumerate(writes, start=1):
        try:
            with store.workspace_lock(ws.lock_file):
                store.write_bytes(write.target, write.data, root=ws.root)
        except InputError as exc:
            failed[write.rel] = f"invalid: {exc.message}"
        except OSError as exc:
            failed[write.rel] = f"refused: cannot be written ({exc.strerror})"
        if progress is not None:
            progress(done, len(writes))
    if failed:
        outcomes = [
            skipped(o.item, failed[o.item], o.home, o.route) if o.item in failed else o
            for o in outcomes
        ]
    return outcomes, redacted
