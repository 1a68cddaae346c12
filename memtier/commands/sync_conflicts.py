"""The merge drivers git calls, and the conflict blocks sync writes (PROTOCOL §14).

`run_merge_driver` is ``memtier merge-driver note|fact|lines %O %A %B %P``: it
merges the three versions (`memtier.formats.merge`), writes the result over
``%A`` and exits 0, so git never leaves a marker. A line both sides changed
differently keeps ours and is recorded as a JSON file in the conflicts folder
sync names (``memory/.sync/conflicts``); after the merge, `record_conflicts`
turns each into a block of today's note::

    ### 14:05 sync conflict (s-3f9a1c2e)
    - memory/semantic/infrastructure.md:12 changed on two hosts; ours is kept
      - ours (kept): - nas01 is 10.0.0.5
      - theirs: - nas01 is 10.0.0.7
      - base: - nas01 is 10.0.0.4

and an ``Open:`` item ``settle sync conflict s-3f9a1c2e …`` that health-check
warns about (``sync.conflicts``) until a person or agent drops it.

A generation (``memory/consolidated/*``) is never merged: it is immutable, and a
name two hosts wrote differently keeps both (§14). The ``generation`` driver
leaves one version under the name (the one whose bytes sort first, so every host
that merges the pair decides alike) and records the other (``g-….json``);
`keep_generations` writes it beside the first as ``<stem>.<k>.md``.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from memtier import store
from memtier.errors import InputError
from memtier.faults import checkpoint
from memtier.formats.episodic import (
    NONE,
    ClosureBlock,
    merge_into_note,
    new_note,
    place_before_closure,
)
from memtier.formats.merge import Merged, merge_fact, merge_lines, merge_note
from memtier.workspace import Workspace

KINDS = {"note": merge_note, "fact": merge_fact, "lines": merge_lines}
GENERATION = "generation"
# The records a merge's drivers leave in the conflicts folder: lines (s-), generations (g-).
RECORDS = ("s-*.json", "g-*.json")


def _read(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", "surrogateescape").replace("\r\n", "\n")
    except FileNotFoundError:
        return ""


def run_merge_driver(
    kind: str, base: Path, ours: Path, theirs: Path, shown: str, conflicts_dir: Path | None
) -> int:
    """Merge *ours* with *theirs* over *base* into *ours*; 0 (git: merged cleanly)."""
    if kind == GENERATION:
        return _keep_both(ours, theirs, shown, conflicts_dir)
    merge = KINDS.get(kind)
    if merge is None:
        raise InputError(
            f"unknown merge driver {kind!r} (expected note, fact, lines or {GENERATION})"
        )
    result: Merged = merge(_read(base), _read(ours), _read(theirs))
    checkpoint("sync.driver-merged")
    data = result.text.encode("utf-8", "surrogateescape")
    store.write_bytes(ours, data, root=ours.parent)
    if result.conflicts and conflicts_dir is not None and conflicts_dir.is_dir():
        for conflict in result.conflicts:
            record = {
                "path": shown,
                "line": conflict.line,
                "ours": list(conflict.ours),
                "theirs": list(conflict.theirs),
                "base": list(conflict.base),
            }
            body = json.dumps(record, ensure_ascii=False, sort_keys=True)
            sid = "s-" + hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()[:8]
            target = conflicts_dir / f"{sid}.json"
            store.write_text(target, body + "\n", root=conflicts_dir)
    return 0


def _keep_both(ours: Path, theirs: Path, shown: str, conflicts_dir: Path | None) -> int:
    """§14: a colliding generation name keeps both. The version whose bytes sort
    first stays under the name; the other is recorded (before *ours* changes, so a
    crash loses neither) for `keep_generations` to write beside it."""
    mine, other = ours.read_bytes(), theirs.read_bytes() if theirs.is_file() else b""
    if not other or other == mine:
        return 0
    if conflicts_dir is None or not conflicts_dir.is_dir():
        return 1  # nowhere to keep the other one: let git report the conflict
    kept, moved = sorted((mine, other))
    record = {"path": shown, "text": moved.decode("utf-8", "surrogateescape")}
    body = json.dumps(record, ensure_ascii=False, sort_keys=True)
    gid = "g-" + hashlib.sha256(moved).hexdigest()[:8]
    store.write_text(conflicts_dir / f"{gid}.json", body + "\n", root=conflicts_dir)
    if kept != mine:
        store.write_bytes(ours, kept, root=ours.parent)
    checkpoint("sync.driver-merged")
    return 0


def copy_name(name: str, copy: int) -> str:
    """``<stem>.<copy><suffix>`` of a file name, a copy's own number replaced:
    ``topic-gen2-2026-04-15.md`` → ``topic-gen2-2026-04-15.1.md`` (§7's way)."""
    stem, dot, suffix = name.rpartition(".")
    if not dot:
        stem, suffix = name, ""
    base, sep, number = stem.rpartition(".")
    if sep and number.isdigit():
        stem = base
    return f"{stem}.{copy}" + (f".{suffix}" if suffix else "")


def keep_generations(ws: Workspace) -> list[tuple[str, str]]:
    """Write each generation a merge set aside beside the one that kept its name,
    as ``<stem>.<k>.md`` (k the first free number); returns (name, kept as).

    Called under the workspace lock after a merge. Bytes that already stand in
    ``consolidated/`` (a rerun after a crash, a version both hosts kept) are not
    written again.
    """
    folder = ws.sync_dir / "conflicts"
    files = sorted(folder.glob("g-*.json")) if folder.is_dir() else []
    here = ws.consolidated_dir
    written: list[tuple[str, str]] = []
    for file in files:
        try:
            record = json.loads(file.read_text(encoding="utf-8"))
            name = str(record["path"])
            data = str(record["text"]).encode("utf-8", "surrogateescape")
        except (OSError, ValueError, KeyError):
            name, data = "", b""
        leaf = name.rsplit("/", 1)[-1]
        # Only a name of consolidated/ itself: the record names the place we write.
        if leaf and ws.relative(here / leaf) == name and here.is_dir():
            standing = [p for p in here.iterdir() if p.is_file() and not p.is_symlink()]
            if not any(p.stat().st_size == len(data) and p.read_bytes() == data for p in standing):
                copy = 1
                while os.path.lexists(here / copy_name(leaf, copy)):
                    copy += 1
                target = here / copy_name(leaf, copy)
                store.write_bytes(target, data, root=ws.root)
                written.append((name, ws.relative(target)))
        os.unlink(file)  # sync's own residue under memory/.sync, not a memory file
    return written


def _shown(lines: list[str]) -> str:
    return " / ".join(line.strip() for line in lines if line.strip()) or "(nothing)"


def conflict_block(ws: Workspace, sid: str, record: dict[str, object]) -> tuple[str, str]:
    """The note block of one conflict and its ``Open:`` item."""
    where = f"{record['path']}:{record['line']}"
    lines = [
        f"### {ws.now.strftime('%H:%M')} sync conflict ({sid})",
        f"- {where} changed on two hosts; ours is kept",
        f"  - ours (kept): {_shown(list(record.get('ours') or []))}",  # type: ignore[call-overload]
        f"  - theirs: {_shown(list(record.get('theirs') or []))}",  # type: ignore[call-overload]
        f"  - base: {_shown(list(record.get('base') or []))}",  # type: ignore[call-overload]
    ]
    item = f"settle sync conflict {sid} in {record['path']}"
    return "\n".join(lines) + "\n", item


def record_conflicts(ws: Workspace) -> list[str]:
    """Write each recorded conflict into today's note; returns their ids.

    Called under the workspace lock after a merge. A block whose id already stands
    in the note (a rerun after a crash) is not written again.
    """
    folder = ws.sync_dir / "conflicts"
    if not folder.is_dir():
        return []
    files = sorted(folder.glob("s-*.json"))
    if not files:
        return []
    path = ws.episodic_note()
    store.make_dirs(path.parent, root=ws.root)
    doc = store.read_document(path, root=ws.root) if path.exists() else None
    text = doc.text if doc is not None else None
    ids: list[str] = []
    for file in files:
        sid = file.stem
        try:
            record = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        block, item = conflict_block(ws, sid, record)
        closure = ClosureBlock(ws.today.isoformat(), NONE, NONE, item)
        if text is None:
            text = new_note(ws.today, block, closure)
        elif f"({sid})" not in text:
            text, _how = place_before_closure(text, block)
            text = merge_into_note(text, closure)
        ids.append(sid)
    if text is not None:
        store.write_text(path, text, root=ws.root, like=doc)
    for file in files:
        os.unlink(file)  # sync's own residue under memory/.sync, not a memory file
    return ids
