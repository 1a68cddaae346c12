"""The sync checks of PROTOCOL §14, and ``episodic.closure.unique``. Read-only.

``episodic.closure.unique`` runs on every live note, sync or not: an ``Updated:``
line outside the final closure block is what a ``merge=union`` (or a person's
hand merge) leaves, and the four-line ``episodic.closure`` check passes on it.
``sync.markers`` runs always too: a conflict marker from a merge by hand with
plain git harms a memory file as much as one from a sync (§14 names no
condition). The other ``sync.*`` checks run once ``memtier sync init`` has set
up the memory's repository (``memory/.sync/.git/repo``). None of them runs git: they
read the repository's files (``MERGE_HEAD``, ``config``, ``info/attributes``, the
index's path names), so health-check stays fast.
"""

from __future__ import annotations

import os
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from memtier.errors import Term
from memtier.health.verdict import FAIL, PASS, WARN, Check, Fix
from memtier.workspace import SYNC_GIT_DIR, SYNC_HOST_LOCAL, Workspace

if TYPE_CHECKING:
    from memtier.store.reading import Reading

# Opening and closing markers only: seven `=` alone is also a markdown heading rule.
_MARKER = re.compile(rb"^(<{7} |>{7} )", re.MULTILINE)
_DRIVER_NAMED = re.compile(r"\bmerge=([\w.-]+)")
_CONFLICT_ITEM = "settle sync conflict "
_CLOSURE_UPDATED = re.compile(r"Updated: \d{4}-\d\d-\d\d[ \t]*$")

# What a note holds, in its raw bytes, when one of `note_checks`' checks may find
# something in it, in ripgrep's syntax (for a multi-line search): a marker's start,
# two ``Updated:`` (`stray_closures`), an open sync conflict. A note none of them
# matches needs no reading here.
NOTE_PATTERNS = ("<<<<<<< |>>>>>>> ", "(?s-u:Updated:.*Updated:)", re.escape(_CONFLICT_ITEM))


def _read(path: Path, reading: Reading | None = None) -> bytes | None:
    """A plain file's bytes (not a link's, not a folder's), else None."""
    try:
        if not path.is_file() or path.is_symlink():
            return None
    except OSError:
        return None
    if reading is None:
        from memtier.store.reading import Reading  # health-check imports it after its rg starts

        reading = Reading()
    return reading.bytes_or_none(path)


def stray_closures(data: bytes) -> list[int]:
    """The lines of a note's ``Updated:`` lines outside its final closure block (the
    damage of a text merge); sync reads it too before it pushes (§14)."""
    if data.count(b"Updated:") < 2:  # the common case, cheap
        return []
    lines = data.decode("utf-8", "replace").rstrip("\n").split("\n")
    # A closure block's own line: the date alone after it. One line of text that
    # happens to start with the word (an appended note quoting a block, folded into
    # one line) is not a block (PROTOCOL §2: a closure block is four lines).
    return [n for n, line in enumerate(lines[:-4], start=1) if _CLOSURE_UPDATED.match(line)]


def _unique(ws: Workspace, path: str, data: bytes) -> Check | None:
    stray = stray_closures(data)
    if not stray:
        return None
    message = f"{os.path.basename(path)} — Updated: line outside the final closure block "
    message += f"(line {stray[0]})"
    day = os.path.basename(path).removesuffix(".md")
    fix: Fix = ("fix: move its items into the last block with ", Term("close_day", arg=day))
    return Check(
        "episodic.closure.unique",
        FAIL,
        ws.relative(Path(path)),
        message,
        tuple(map(str, stray)),
        fix,
    )


def _marker(ws: Workspace, path: str, data: bytes) -> Check | None:
    if b"<<<<<<< " not in data and b">>>>>>> " not in data:
        return None
    match = _MARKER.search(data)
    if match is None:
        return None
    line = data[: match.start()].count(b"\n") + 1
    rel = ws.relative(Path(path))
    fix: Fix = ("fix: keep the right lines, delete the markers, then ", Term("sync"))
    return Check("sync.markers", FAIL, rel, f"{rel}:{line} — conflict marker", (), fix)


def note_checks(
    ws: Workspace, reading: Reading | None = None, named: set[str] | None = None
) -> tuple[list[Check], list[Check]]:
    """``episodic.closure.unique`` and ``sync.markers`` in one reading of each file:
    (the closure checks, the sync checks — only ``sync.markers`` when sync is not
    set up).

    The memory files are the live tiers and the topic index; the archive is left
    out, as by the ``secrets`` check (a sync checks every file it changed itself).
    A note is read only when it is a plain file (not a link), from the listing of
    its folder; its bytes are shared with the other checks through *reading*.
    *named*: the notes (folder joined with name) a search for `NOTE_PATTERNS` over
    every note named (health-check's one ripgrep pass); only those are read. None:
    every note is read.
    """
    from memtier.store.reading import Reading, is_plain_file

    reading = reading or Reading()
    synced = (ws.sync_git_dir / "HEAD").is_file()
    unique: list[Check] = []
    markers: list[Check] = []
    standing: list[str] = []
    others = [ws.hot, *ws.warm_files(), *ws.scratch_files, ws.index_file]
    for other in others:
        data = _read(other, reading)
        if data is not None and (found := _marker(ws, str(other), data)) is not None:
            markers.append(found)
    entries = reading.listing(ws.episodic_dir)
    if named is not None:  # searched already: only these may hold something here
        entries = [entry for entry in entries if entry.path in named] if named else []
    for entry in entries:
        if not entry.name.endswith(".md") or not is_plain_file(entry):
            continue
        path = entry.path
        data = reading.bytes_or_none(path)
        if data is None:
            continue
        if (found := _marker(ws, path, data)) is not None:
            markers.append(found)
        if (found := _unique(ws, path, data)) is not None:
            unique.append(found)
        if synced:
            standing.extend(_open_conflicts(entry.name, data))
    unique = unique or [Check("episodic.closure.unique", PASS, None, "one closure block per note")]
    markers = markers or [Check("sync.markers", PASS, None, "no conflict marker in memory files")]
    if not synced:
        return unique, markers
    return unique, [
        *_state(ws),
        *markers,
        *_drivers(ws),
        *_local(ws),
        *_conflicts(standing),
        *_stale(ws),
    ]


def _drivers(ws: Workspace) -> list[Check]:
    # (v4) The attributes are the repository's own, never a tracked file.
    where = f"{SYNC_GIT_DIR}/info/attributes"
    attributes = (_read(ws.root / where) or b"").decode("utf-8", "replace")
    named = set(_DRIVER_NAMED.findall(attributes))
    config = (_read(ws.sync_git_dir / "config") or b"").decode("utf-8", "replace")
    defined = set()
    for section in re.split(r"(?m)^\s*\[", config):
        head = re.match(r'merge\s+"([^"]+)"\]', section)
        if head and re.search(r"(?m)^\s*driver\s*=", section):
            defined.add(head.group(1))
    missing = sorted(named - defined - {"text", "binary", "union"})
    fix: Fix = ("fix: ", Term("sync_init"), " (sets the drivers again)")
    if missing:
        message = (
            f"merge driver(s) named in the attributes but not configured: {', '.join(missing)}"
        )
        return [Check("sync.driver", FAIL, where, message, (), fix)]
    # §14 v4: no tracked file is left without a merge that understands it.
    rules = _attribute_rules(attributes)
    names = _tracked(_read(ws.sync_git_dir / "index") or b"")
    bare = [n for n in names if not (_driver_of(rules, n) or "").startswith("memtier-")]
    if bare:
        shown = ", ".join(bare[:5]) + (f" (+{len(bare) - 5} more)" if len(bare) > 5 else "")
        message = f"tracked without a merge driver: {shown}"
        return [Check("sync.driver", FAIL, bare[0], message, (), fix)]
    return [Check("sync.driver", PASS, where, "merge drivers configured")]


def _glob(pattern: str) -> re.Pattern[str]:
    """A gitattributes pattern as a regex over root-relative paths (a pattern with
    no inner ``/`` matches the file's name at any depth)."""
    anchored = "/" in pattern.rstrip("/")
    body, out, at = pattern.lstrip("/"), "", 0
    while at < len(body):
        if body.startswith("**/", at):
            out, at = out + "(?:.*/)?", at + 3
        elif body.startswith("**", at):
            out, at = out + ".*", at + 2
        elif body[at] == "*":
            out, at = out + "[^/]*", at + 1
        elif body[at] == "?":
            out, at = out + "[^/]", at + 1
        else:
            out, at = out + re.escape(body[at]), at + 1
    return re.compile(("^" if anchored else r"(?:^|/)") + out + "$")


def _attribute_rules(text: str) -> list[tuple[re.Pattern[str], str]]:
    rules = []
    for line in text.splitlines():
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        for part in parts[1:]:
            if part.startswith("merge="):
                rules.append((_glob(parts[0]), part[len("merge=") :]))
    return rules


def _driver_of(rules: list[tuple[re.Pattern[str], str]], name: str) -> str | None:
    found = None
    for pattern, driver in rules:  # the last matching line wins, as in git
        if pattern.search(name):
            found = driver
    return found


def _tracked(index: bytes) -> list[str]:
    """The paths a git index (version 2 or 3) lists; none for another version."""
    if index[:4] != b"DIRC" or int.from_bytes(index[4:8], "big") not in (2, 3):
        return []
    names: list[str] = []
    at = 12
    for _ in range(int.from_bytes(index[8:12], "big")):
        flags = int.from_bytes(index[at + 60 : at + 62], "big")
        start = at + 62 + (2 if flags & 0x4000 else 0)
        end = index.find(b"\0", start)
        if end < 0:
            break
        names.append(index[start:end].decode("utf-8", "replace"))
        at += (end - at + 8) // 8 * 8
    return names


def _local(ws: Workspace) -> list[Check]:
    index = _read(ws.sync_git_dir / "index") or b""
    # A file: an entry of its name (the length byte of the flags before it); a folder:
    # any entry under it.
    found = [
        n
        for n in SYNC_HOST_LOCAL
        if (
            n.encode() in index
            if n.endswith("/")
            else bytes([len(n)]) + n.encode() + b"\0" in index
        )
    ]
    # The person's act in the memory's own repository: no command of memtier does it.
    fix: Fix = (f"fix: the person untracks it in the memory's repository ({SYNC_GIT_DIR})",)
    checks = [
        Check("sync.local", FAIL, name, f"{name} — host-local file is tracked", (), fix)
        for name in found
    ]
    return checks or [Check("sync.local", PASS, None, "no host-local file tracked")]


def _state(ws: Workspace) -> list[Check]:
    busy = [
        n for n in ("MERGE_HEAD", "rebase-merge", "rebase-apply") if (ws.sync_git_dir / n).exists()
    ]
    if busy:
        message = f"a git {'merge' if busy[0] == 'MERGE_HEAD' else 'rebase'} is in progress"
        fix: Fix = (
            f"fix: the person finishes or aborts it in {SYNC_GIT_DIR}, then ",
            Term("sync"),
        )
        return [Check("sync.state", FAIL, None, message, (), fix)]
    return [Check("sync.state", PASS, None, "no merge in progress")]


def _open_conflicts(name: str, data: bytes) -> list[str]:
    """The conflict ids still listed in the ``Open:`` line that ends the note."""
    if _CONFLICT_ITEM.encode() not in data:
        return []
    last = data.decode("utf-8", "replace").rstrip("\n").rsplit("\n", 1)[-1]
    if not last.startswith("Open:"):
        return []
    return [f"{name}: {sid}" for sid in re.findall(_CONFLICT_ITEM + r"(s-[0-9a-f]{8})", last)]


def _conflicts(standing: list[str]) -> list[Check]:
    return [
        Check("sync.conflicts", WARN, None, f"sync conflict still open ({item})", (), _drop(item))
        for item in standing
    ]


def _drop(item: str) -> Fix:
    """§14 v4: the one item goes with `episodic close --drop`, the rest of the block stays."""
    name, _sep, sid = item.partition(": ")
    day = name.removesuffix(".md")
    return (
        "fix: settle it, then drop its Open: item (",
        Term("close_drop", arg=sid),
        Term("on_date", arg=day),
        ")",
    )


_SYNC: Fix = ("fix: ", Term("sync"))


def _stale(ws: Workspace) -> list[Check]:
    text = (_read(ws.sync_dir / "last-sync") or b"").decode("utf-8", "replace").strip()
    try:
        last = datetime.fromisoformat(text)
        age = ws.now - last
    except (ValueError, TypeError):
        return [Check("sync.stale", WARN, None, "never synced", (), _SYNC)]
    if age > timedelta(hours=ws.config.sync_warn_hours):
        hours = int(age.total_seconds() // 3600)
        return [Check("sync.stale", WARN, None, f"last sync {hours} hours ago", (), _SYNC)]
    return [Check("sync.stale", PASS, None, f"last sync {last.isoformat()}")]
