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
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from memtier import store
from memtier.errors import InputError
from memtier.formats.episodic import (
    NONE,
    ClosureBlock,
    merge_into_note,
    new_note,
    place_before_closure,
)
from memtier.formats.merge import Merged, merge_fact, merge_lines, merge_note
from memtier.store import checkpoint
from memtier.workspace import Workspace

KINDS = {"note": merge_note, "fact": merge_fact, "lines": merge_lines}


def _read(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", "surrogateescape").replace("\r\n", "\n")
    except FileNotFoundError:
        return ""


def run_merge_driver(
    kind: str, base: Path, ours: Path, theirs: Path, shown: str, conflicts_dir: Path | None
) -> int:
    """Merge *ours* with *theirs* over *base* into *ours*; 0 (git: merged cleanly)."""
    merge = KINDS.get(kind)
    if merge is None:
        raise InputError(f"unknown merge driver {kind!r} (expected note, fact or lines)")
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
