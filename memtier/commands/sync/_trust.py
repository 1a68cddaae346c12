"""Sync's trust boundary (PROTOCOL §14 v4): a remote is data, never code.

What comes in: `check_incoming` looks at a fetched tree before any of it is
checked out or merged. Every path must be one of the memory's own (``MEMORY.md``,
``memory/`` less the host-local paths, ``.learnings/``), a regular file that is not
executable (mode 100644), with a sane name. The first path that is not ends the
sync (exit 1) naming it and its commit, before a ref, a file or the index moves.

Which trees: with common history, every commit the fetch brings (``TIP --not
HEAD``), each against its first parent, which is ours or was itself checked, so
every tree between the merge base and the tip is a checked change of ours.
Without it (a second host's ``sync init``) the tip's whole tree, which is what
gets written; the remote's older history is left unjudged, so a memory
that tracked a now host-local file before v4 can still be joined. One git process
either way, whatever the number of commits (docs/DECISIONS.md says why).

What goes out: `outgoing_credential` is the ``secrets`` check on every file a push
would share, the archive included, and on their names.

Everything git prints here is parsed NUL-separated (``-z``): a name may hold any
byte but NUL and ``/``.
"""

from __future__ import annotations

import unicodedata

from memtier.errors import RefusedError
from memtier.gitrun import Git
from memtier.workspace import (
    HOT_FILE,
    LEARNINGS_DIR,
    MEMORY_DIR,
    SYNC_HOST_LOCAL,
    Workspace,
    printable_name,
)

# What memtier wrote into a tracked `.gitattributes` before v4, frozen (ATTRIBUTES
# may grow; these lines do not): a file of these lines only is memtier's own
# (`memtier.commands.sync.setup.upgrade` untracks and removes it), and a remote's
# history holding one is history, not code.
ATTRIBUTES_BEFORE_V4 = frozenset(
    {
        "",
        "# memtier sync (PROTOCOL §14): merges that understand these files.",
        "# The drivers are set by `memtier sync init` in the memory's repository config.",
        "/MEMORY.md merge=memtier-fact",
        "/memory/semantic/*.md merge=memtier-fact",
        "/memory/procedural/*.md merge=memtier-fact",
        "/memory/episodic/*.md merge=memtier-note",
        "/memory/archive/**/*.md merge=memtier-note",
        "/memory/archive/learnings/** merge=memtier-lines",
        "/memory/archive/retired.md merge=memtier-lines",
        "/.learnings/* merge=memtier-lines",
        "/memory/INDEX.md merge=memtier-ours",
        "/memory/consolidated/* merge=memtier-generation",
    }
)
REGULAR = "100644"
_KINDS = {"120000": "a symlink", "160000": "a submodule", "100755": "an executable file"}
_GITS_OWN = ".gitattributes"
_MAX_NAME = 255  # bytes: the longest file name common file systems take


def refusal(path: str, mode: str) -> str | None:
    """Why *path* (root-relative, as git names it) with *mode* may not come from a
    remote; None when it may."""
    parts = path.split("/")
    top = parts[0]
    if path != HOT_FILE and (top not in (MEMORY_DIR, LEARNINGS_DIR) or len(parts) < 2):
        return "a file of git's" if top.lower().startswith(".git") else "not part of the memory"
    folded = path.casefold()  # a case-insensitive file system writes MEMORY/… into memory/
    for local in SYNC_HOST_LOCAL:
        mine = local.casefold()
        if folded == mine.rstrip("/") or (mine.endswith("/") and folded.startswith(mine)):
            return "this host's own file"
    for n, part in enumerate(parts):
        if not _sane(part, dotted=n == 0 and part == LEARNINGS_DIR):
            return "an odd name"
    if mode != REGULAR:
        return _KINDS.get(mode, f"mode {mode}, not a regular file")
    return None


def _sane(part: str, *, dotted: bool) -> bool:
    """One path component: no dot file (``.git`` in any spelling, ``..``), no control
    or invisible character, no byte that is not UTF-8, nothing Windows would trim."""
    if not part or (part.startswith(".") and not dotted) or part[-1] in " .":
        return False
    if len(part.encode("utf-8", "surrogateescape")) > _MAX_NAME or "\\" in part:
        return False
    # Cc control, Cf format (bidi, zero-width joiners HFS+ ignores), Cs a byte not UTF-8.
    return not any(unicodedata.category(c) in ("Cc", "Cf", "Cs") for c in part)


def _changes_by_commit(git: Git, tip: str, head: str) -> list[tuple[str, str, str]]:
    """(commit, mode, path) of every path each commit of ``tip --not head`` adds or
    changes against its first parent (a root: its whole tree), oldest first."""
    out = git.run(
        "log", "-z", "--reverse", "--raw", "-r", "--root", "--no-renames", "--no-abbrev",
        "--diff-merges=first-parent", "--format=%x01%H", tip, "--not", head, "--",
    ).out  # fmt: skip
    found: list[tuple[str, str, str]] = []
    commit = ""
    tokens = out.split("\0")
    at = 0
    while at < len(tokens):
        token = tokens[at].lstrip("\n")
        at += 1
        if token.startswith("\x01"):
            commit = token[1:]
        elif token.startswith(":") and at < len(tokens):
            fields, path = token[1:].split(), tokens[at]
            at += 1
            if len(fields) == 5 and fields[4] != "D":
                found.append((commit, fields[1], path))
    return found


def _whole_tree(git: Git, tip: str) -> list[tuple[str, str, str]]:
    """(tip, mode, path) of every entry of the tip's tree."""
    out = git.run("ls-tree", "-r", "-z", "--full-tree", tip).out
    found: list[tuple[str, str, str]] = []
    for entry in filter(None, out.split("\0")):
        info, _tab, path = entry.partition("\t")
        found.append((tip, info.split(" ", 1)[0], path))
    return found


def _own_attributes(git: Git, commit: str) -> bool:
    """True when the commit's ``.gitattributes`` is one memtier wrote before v4."""
    blob = git.run("cat-file", "blob", f"{commit}:{_GITS_OWN}", check=False)
    return blob.ok and set(blob.out.splitlines()) <= ATTRIBUTES_BEFORE_V4


def check_incoming(git: Git, head: str | None, tip: str, *, related: bool = True) -> None:
    """Refuse (exit 1) a fetched commit *tip* holding anything but memory (see the
    module's docstring); *head* is this host's head (None: none yet), *related*
    False when the two may share no history (a second host joining)."""
    by_commit = head is not None and related
    entries = _changes_by_commit(git, tip, head) if by_commit and head else _whole_tree(git, tip)
    for commit, mode, path in entries:
        why = refusal(path, mode)
        if why is None or (path == _GITS_OWN and mode == REGULAR and _own_attributes(git, commit)):
            continue
        if not by_commit:  # name the commit that brought it, not only the tip
            last = git.run(
                "log", "-1", "--format=%H", tip, "--", path,
                extra_env={"GIT_LITERAL_PATHSPECS": "1"}, check=False,
            ).out.strip()  # fmt: skip
            commit = last or commit
        raise RefusedError(
            f"the remote's commit {commit[:12]} holds {printable_name(path)} ({why}): a "
            "remote shares memory files only, never code or a host's own files; nothing "
            "was changed here"
        )


def outgoing_credential(
    ws: Workspace, git: Git, remote_ref: str, outgoing: tuple[str, ...] | None = None
) -> str | None:
    """What a push would share that holds a credential, said without the credential:
    ``<path> (<rules>)``, or ``a file name in <folder>/ (<rules>)``; None when nothing.

    Every file a push would share (changed since the remote's head, or every
    tracked and new file before the first push), the archive included, and each
    one's name (§3 v4). Symlinks and special files are never read. *outgoing*: the
    files a ``git status`` already named as leaving (changed or new), when it did."""
    from memtier.secrets import detect

    if outgoing is not None and git.resolve(remote_ref) is not None:
        names = list(outgoing)
    elif git.resolve(remote_ref) is None:
        listed = git.run("ls-files", "-z", "--cached", "--others", "--exclude-standard").out
        names = listed.split("\0")
    else:
        names = git.run("diff", "--name-only", "-z", remote_ref, "--").out.split("\0")
        names += git.run("ls-files", "--others", "--exclude-standard", "-z").out.split("\0")
    for name in sorted(set(filter(None, names))):
        path = ws.root / name
        if path.is_symlink() or not path.is_file():
            continue  # gone (a deletion shares no text), or never read (§3)
        parts = name.split("/")
        for n, part in enumerate(parts):
            rules = sorted({f.rule for f in detect(part)})
            if rules:  # shown: the folders before it, never the name itself
                where = printable_name("/".join(parts[:n])) + "/" if n else "the top folder"
                return f"a name in {where} ({', '.join(rules)})"
        text = path.read_bytes().decode("utf-8", "replace")
        rules = sorted({f.rule for f in detect(text)})
        if rules:
            return f"{printable_name(name)} ({', '.join(rules)})"
    return None
