"""What sync makes of the records the merge drivers leave (PROTOCOL §14).

The drivers (`memtier.commands.sync.driver`) record a line both sides changed
differently as a JSON file in the conflicts folder (``memory/.sync/conflicts``);
after the merge, `record_conflicts` turns each into a block of today's note::

    ### 14:05 sync conflict (s-3f9a1c2e)
    - memory/semantic/infrastructure.md:12 changed on two hosts; ours is kept
      - ours (kept): - nas01 is 10.0.0.5
      - theirs: - nas01 is 10.0.0.7
      - base: - nas01 is 10.0.0.4

and an ``Open:`` item ``settle sync conflict s-3f9a1c2e …`` that health-check
warns about (``sync.conflicts``) until a person or agent drops it.

A generation a merge set aside (``g-….json``) is written by `keep_generations`
beside the one that kept the name, as ``<stem>.<k>.md``.
"""

from __future__ import annotations

import os

from memtier import store
from memtier.workspace import Workspace

# Every sync looks for records (a crash may have left some); json and the note's
# format are loaded only when one is there: a sync with nothing to share stays quick.


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
    if not files:
        return []
    import json

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


def _whole(heading: str, record: dict[str, object]) -> list[str]:
    """A file no driver could merge: ours stands in the file, theirs in the block."""
    theirs = [str(line) for line in record.get("theirs") or []]  # type: ignore[attr-defined]
    lines = [heading, f"- {record['path']} could not be merged on two hosts; ours is kept"]
    if not theirs:
        return [*lines, "  - theirs: (the file was removed)"]
    fence = "````" if any(line.lstrip().startswith("```") for line in theirs) else "```"
    return [
        *lines,
        "  - theirs:",
        "",
        f"    {fence}",
        *(f"    {x}" for x in theirs),
        f"    {fence}",
    ]


def conflict_block(ws: Workspace, sid: str, record: dict[str, object]) -> tuple[str, str]:
    """The note block of one conflict and its ``Open:`` item."""
    heading = f"### {ws.now.strftime('%H:%M')} sync conflict ({sid})"
    item = f"settle sync conflict {sid} in {record['path']}"
    if record.get("whole"):
        return "\n".join(_whole(heading, record)) + "\n", item
    where = f"{record['path']}:{record['line']}"
    lines = [
        heading,
        f"- {where} changed on two hosts; ours is kept",
        f"  - ours (kept): {_shown(list(record.get('ours') or []))}",  # type: ignore[call-overload]
        f"  - theirs: {_shown(list(record.get('theirs') or []))}",  # type: ignore[call-overload]
        f"  - base: {_shown(list(record.get('base') or []))}",  # type: ignore[call-overload]
    ]
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
    import json

    from memtier.formats.episodic import (
        NONE,
        ClosureBlock,
        merge_into_note,
        new_note,
        place_before_closure,
    )

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
