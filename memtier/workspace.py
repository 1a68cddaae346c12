"""The workspace: where it is, what time it is, and how it is configured.

Root discovery follows PROTOCOL §1: an explicit root (``--root`` or
``$MEMTIER_ROOT``, resolved by the CLI), else the nearest ancestor of the
current directory, itself included, holding both ``MEMORY.md`` and ``memory/``.
`Workspace` also names every path of the layout so that no other module spells
them out.
"""

from __future__ import annotations

import os
import stat
from datetime import date, datetime, timedelta
from pathlib import Path

from memtier.clock import today as _today
from memtier.config import Config, load_config
from memtier.errors import InputError, WorkspaceNotFound
from memtier.values import Fields, field

HOT_FILE = "MEMORY.md"
MEMORY_DIR = "memory"
LEARNINGS_DIR = ".learnings"
SCRATCH_FILES: tuple[str, ...] = ("ERRORS.md", "LEARNINGS.md", "FEATURE_REQUESTS.md")
SEMANTIC_DIR = "semantic"
PROCEDURAL_DIR = "procedural"
WARM_DIRS: tuple[str, ...] = (SEMANTIC_DIR, PROCEDURAL_DIR)
EPISODIC_DIR = "episodic"
ARCHIVE_DIR = "archive"
BUFFER_FILE = "working-buffer.md"
INDEX_FILE = "INDEX.md"  # PROTOCOL §13 (v3)
CONSOLIDATED_DIR = "consolidated"

SCRIPTS_DIR = "scripts"
# PROTOCOL §14 (v4): folders whose files are host-local, never tracked by sync
# (each host writes its own shims, naming its own memtier).
HOST_LOCAL_FOLDERS: tuple[str, ...] = (f"{MEMORY_DIR}/{SCRIPTS_DIR}/",)

# Every folder of the layout (PROTOCOL §1), parents first: what `init` creates.
LAYOUT_FOLDERS: tuple[str, ...] = (
    MEMORY_DIR,
    *(f"{MEMORY_DIR}/{name}" for name in (EPISODIC_DIR, *WARM_DIRS, ARCHIVE_DIR, SCRIPTS_DIR)),
    LEARNINGS_DIR,
)

# PROTOCOL §1: each tier and the root-relative paths it holds, in the order
# reports list them (and search ranks ties). The one tier table of memtier.
TIER_PATHS: dict[str, tuple[str, ...]] = {
    "hot": (HOT_FILE,),
    "warm": tuple(f"{MEMORY_DIR}/{name}" for name in WARM_DIRS),
    # PROTOCOL §13 (v3): the topic index and its generations, searched after WARM.
    "index": (f"{MEMORY_DIR}/{INDEX_FILE}", f"{MEMORY_DIR}/{CONSOLIDATED_DIR}"),
    "buffer": (f"{MEMORY_DIR}/{BUFFER_FILE}",),
    "scratch": (LEARNINGS_DIR,),
    "cold": (f"{MEMORY_DIR}/{EPISODIC_DIR}",),
    "archive": (f"{MEMORY_DIR}/{ARCHIVE_DIR}",),
}
TIERS: tuple[str, ...] = tuple(TIER_PATHS)
EPISODIC_PREFIX = f"{MEMORY_DIR}/{EPISODIC_DIR}/"

# PROTOCOL §1: the configuration, the one memory file that is in no tier (the topic
# index and its generations are the `index` tier, §13 v3).
CONFIG_FILE = f"{MEMORY_DIR}/memtier.toml"
CONFIG_KIND = "config"

# PROTOCOL §14: the files and folders each host keeps to itself, never tracked by
# sync nor taken from a remote (a trailing ``/``: a folder). The one list: sync's
# excludes, its check of a remote's tree and health's ``sync.local`` read it.
SYNC_DIR = f"{MEMORY_DIR}/.sync"
SYNC_HOST_LOCAL: tuple[str, ...] = (
    f"{MEMORY_DIR}/{BUFFER_FILE}",
    f"{MEMORY_DIR}/{BUFFER_FILE}.pending",
    f"{MEMORY_DIR}/{BUFFER_FILE}.lock",
    f"{MEMORY_DIR}/.memtier.lock",
    f"{MEMORY_DIR}/.searches.jsonl",
    f"{MEMORY_DIR}/{SCRIPTS_DIR}/",
    f"{SYNC_DIR}/",
)
# (v4) The memory's repository, where no checkout can write: git refuses a tracked
# path with a ``.git`` component (docs/DECISIONS.md, "Sync's trust boundary").
SYNC_GIT_DIR = f"{SYNC_DIR}/.git/repo"
# Where sync kept it before v4 (moved on the next sync).
SYNC_GIT_DIR_BEFORE_V4 = f"{SYNC_DIR}/git"


def tier_of(rel: str) -> str | None:
    """The tier a root-relative path (forward slashes) belongs to, or None.

    Only ``*.md`` files count: directly in a tier folder, except the archive,
    whose notes sit in dated subfolders.
    """
    if not rel.endswith(".md"):
        return None
    if rel.startswith(EPISODIC_PREFIX) and rel.count("/") == 2:
        return "cold"  # the common case, first: a broad query asks for every note
    parts = rel.split("/")
    if parts == [HOT_FILE]:
        return "hot"
    if len(parts) == 3 and parts[0] == MEMORY_DIR:
        if parts[1] in WARM_DIRS:
            return "warm"
        if parts[1] == EPISODIC_DIR:
            return "cold"
        if parts[1] == CONSOLIDATED_DIR:
            return "index"
    if parts == [MEMORY_DIR, INDEX_FILE]:
        return "index"
    if parts == [MEMORY_DIR, BUFFER_FILE]:
        return "buffer"
    if len(parts) == 2 and parts[0] == LEARNINGS_DIR:
        return "scratch"
    if len(parts) >= 3 and parts[0] == MEMORY_DIR and parts[1] == ARCHIVE_DIR:
        return "archive"
    return None


def memory_kind(rel: str) -> str | None:
    """What memory file a root-relative path is: its tier, ``config`` for
    ``memory/memtier.toml``, ``index`` for ``memory/INDEX.md`` and the notes of
    ``memory/consolidated/`` (PROTOCOL §1); None for any other file. The files
    `get` reads and `export` writes out (PROTOCOL §10, §12)."""
    tier = tier_of(rel)
    if tier is not None:
        return tier
    return CONFIG_KIND if rel == CONFIG_FILE else None


def in_memory_area(rel: str) -> bool:
    """True for a root-relative path that is the memory or lies in it: ``MEMORY.md``,
    anything under ``memory/`` or ``.learnings/`` (PROTOCOL §12 v3: never an
    export's ``--output``)."""
    top = rel.split("/", 1)[0]
    return rel == HOT_FILE or top in (MEMORY_DIR, LEARNINGS_DIR)


# ---------------------------------------------------------------------------
# Where a path really leads (PROTOCOL §3), found as cheaply as the system allows.
# Every read and write is confined to the root, which takes the root's real path and
# the file's. A workspace root is resolved once, when the workspace opens
# (`remember_root`, called by `Workspace.open`), not again by each confined read,
# write and lock of that command (`real_root`); each open refreshes it, so a
# long-lived process (the tool server opens the workspace for every call) follows a
# root that was moved. An existing path is looked up once by the kernel (``O_PATH``:
# nothing is opened for reading, a FIFO is not waited on) and the kernel names what it
# found (`kernel_real_path`), instead of a walk in Python that asks for every folder
# of the path; where the kernel cannot tell (no ``O_PATH``, no ``/proc``), callers walk.

FD_NAMES = "/proc/self/fd"
O_PATH = getattr(os, "O_PATH", 0)

_ROOTS: dict[str, str] = {}


def remember_root(root: Path) -> str:
    """Resolve *root* now and remember it for this process; returns its real path."""
    real = os.path.realpath(root)
    _ROOTS[os.fspath(root)] = real
    _ROOTS[real] = real
    return real


def real_root(root: Path) -> str:
    """The real path of *root*: as remembered when its workspace opened, else resolved."""
    found = _ROOTS.get(os.fspath(root))
    return found if found is not None else os.path.realpath(root)


def kernel_real_path(path: Path | str, *, folder: bool = False) -> str | None:
    """The real path of an existing *path* as the kernel names it after one lookup, or
    None when it does not exist, cannot be looked up, or the kernel cannot tell."""
    if not O_PATH or "\0" in os.fspath(path):
        return None
    flags = O_PATH | os.O_CLOEXEC | (os.O_DIRECTORY if folder else 0)
    try:
        found = os.open(path, flags)
    except OSError:
        return None
    try:
        real = os.readlink(f"{FD_NAMES}/{found}")
    except OSError:
        return None
    finally:
        os.close(found)
    if not real.startswith("/") or real.endswith(" (deleted)"):
        return None
    return real


def kernel_real_target(path: Path) -> str | None:
    """Like `kernel_real_path`, and for a path not there yet, its folder's real path
    with its name (unless the name is itself a link, which only a walk can follow)."""
    real = kernel_real_path(path)
    if real is not None or path.name in ("", ".", ".."):
        return real
    try:
        os.lstat(path)
        return None  # there but not opened (a dangling link): for a walk to follow
    except FileNotFoundError:
        pass  # not there yet: its folder and its name
    except OSError:
        return None  # a name too long, a file where a folder belongs: the walk says why
    parent = kernel_real_path(path.parent, folder=True)
    return None if parent is None else os.path.join(parent, path.name)


def inside_root(real_root: str | os.PathLike[str], real: str | os.PathLike[str]) -> bool:
    """True when *real* is *real_root* or lies under it.

    A plain comparison of the two paths as given: pass resolved paths
    (`os.path.realpath`) to judge where a symlink really leads. ``/r/ab`` is
    not inside ``/r/a``.
    """
    root_text, path_text = os.fspath(real_root), os.fspath(real)
    return path_text == root_text or path_text.startswith(root_text.rstrip(os.sep) + os.sep)


def printable_name(name: str) -> str:
    """A file name as shown in a message or a listing: one line whatever it holds.

    A line break or other control character is shown as a ``\\n``/``\\xNN``
    escape, and so is a byte that is not UTF-8 (Python keeps it as a lone
    surrogate), so output stays one line per item and any stdout can print it.
    A credential in the name is shown as its placeholder (PROTOCOL §3 v4).
    """
    if name.isprintable() and name.isascii():
        return _without_secrets(name)
    out: list[str] = []
    for ch in name:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:
            out.append(f"\\x{code - 0xDC00:02x}")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif code < 0x20 or code == 0x7F or 0xD800 <= code <= 0xDFFF or ch in "\x85\u2028\u2029":
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return _without_secrets("".join(out))


def _without_secrets(name: str) -> str:
    from memtier.secrets import redact_name  # (only its cheap test runs for most names)

    return redact_name(name)


def exists_or_link(path: str | os.PathLike[str]) -> bool:
    """True when anything stands at *path*: a file, a folder, or a symlink, even a
    broken one (which ``Path.exists`` calls missing). What a writer asks before it
    creates a file, so that it never writes through a dangling link."""
    return os.path.lexists(path)


def special_file_kind(mode: int) -> str:
    """What a file that is not a regular file or a folder is, for a message."""
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a special file"


def is_workspace(folder: Path) -> bool:
    return (folder / HOT_FILE).is_file() and (folder / MEMORY_DIR).is_dir()


def find_root(start: Path) -> Path:
    """The nearest ancestor of *start* (itself included) that is a workspace."""
    here = start.absolute()
    for folder in (here, *here.parents):
        if is_workspace(folder):
            return folder
    raise WorkspaceNotFound()


def resolve_root(explicit: str | Path | None, cwd: Path) -> Path:
    """An explicit root must hold memory/; without one, walk up from *cwd*.

    An explicit root whose MEMORY.md is gone is still that workspace: PROTOCOL §4
    step 1 (session-start recreates a missing MEMORY.md) and the `hot.header`
    check's "MEMORY.md missing" (§6) are only reachable through it.
    """
    if explicit is None or str(explicit) == "":
        return find_root(cwd)
    root = (cwd / Path(explicit).expanduser()).absolute()
    if not root.exists():
        raise InputError(f"workspace root {root} does not exist", path=root)
    if not root.is_dir():
        raise InputError(f"workspace root {root} is not a directory", path=root)
    if not (root / MEMORY_DIR).is_dir():
        raise WorkspaceNotFound()
    return root


class Workspace(Fields):
    """One workspace root, the moment the command runs at, and its configuration."""

    root: Path
    now: datetime
    config: Config = field(default_factory=Config)

    @classmethod
    def open(cls, root: Path, now: datetime) -> Workspace:
        real = remember_root(root)  # resolved once for every confined read and write (§3)
        return cls(root=root, now=now, config=load_config(root, CONFIG_FILE, real_root=real))

    @property
    def real_root(self) -> Path:
        """The root's real path, as resolved when the workspace opened."""
        return Path(real_root(self.root))

    # -- time -------------------------------------------------------------
    @property
    def today(self) -> date:
        return _today(self.now)

    @property
    def yesterday(self) -> date:
        return self.today - timedelta(days=1)

    # -- layout (PROTOCOL §1) ---------------------------------------------
    @property
    def hot(self) -> Path:
        return self.root / HOT_FILE

    @property
    def memory_dir(self) -> Path:
        return self.root / MEMORY_DIR

    @property
    def semantic_dir(self) -> Path:
        return self.memory_dir / SEMANTIC_DIR

    @property
    def procedural_dir(self) -> Path:
        return self.memory_dir / PROCEDURAL_DIR

    @property
    def episodic_dir(self) -> Path:
        return self.memory_dir / EPISODIC_DIR

    @property
    def archive_dir(self) -> Path:
        return self.memory_dir / ARCHIVE_DIR

    def archive_month(self, day: date) -> Path:
        """Where TTL archival puts the notes of *day*'s month (PROTOCOL §7)."""
        return self.archive_dir / f"{day.year:04d}" / f"{day.month:02d}"

    @property
    def learnings_archive_dir(self) -> Path:
        return self.archive_dir / "learnings"

    @property
    def scripts_dir(self) -> Path:
        return self.memory_dir / SCRIPTS_DIR

    @property
    def index_file(self) -> Path:
        """The topic index (PROTOCOL §13)."""
        return self.memory_dir / INDEX_FILE

    @property
    def consolidated_dir(self) -> Path:
        return self.memory_dir / CONSOLIDATED_DIR

    @property
    def buffer(self) -> Path:
        return self.memory_dir / BUFFER_FILE

    @property
    def buffer_lock(self) -> Path:
        """The protocol's rotation marker (PROTOCOL §5), not the workspace lock."""
        return self.memory_dir / f"{BUFFER_FILE}.lock"

    @property
    def buffer_pending(self) -> Path:
        return self.memory_dir / f"{BUFFER_FILE}.pending"

    @property
    def learnings_dir(self) -> Path:
        return self.root / LEARNINGS_DIR

    @property
    def scratch_files(self) -> tuple[Path, ...]:
        return tuple(self.learnings_dir / name for name in SCRATCH_FILES)

    @property
    def errors_file(self) -> Path:
        return self.learnings_dir / "ERRORS.md"

    @property
    def lock_file(self) -> Path:
        """The OS-level workspace lock every writer holds (PROTOCOL §3)."""
        return self.memory_dir / ".memtier.lock"

    @property
    def config_file(self) -> Path:
        return self.root / CONFIG_FILE

    # -- sync (PROTOCOL §14): host-local, never tracked -----------------------
    @property
    def sync_dir(self) -> Path:
        return self.memory_dir / ".sync"

    @property
    def sync_git_dir(self) -> Path:
        return self.root / SYNC_GIT_DIR

    @property
    def host_id(self) -> str:
        """This host's id once sync is set up (it salts snapshot ids, §14), else ""."""
        try:
            text = (self.sync_dir / "host-id").read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return ""
        return text if text.isalnum() and len(text) <= 32 else ""

    def episodic_note(self, day: date | None = None) -> Path:
        return self.episodic_dir / f"{(day or self.today).isoformat()}.md"

    def warm_files(self) -> list[Path]:
        """Every WARM file, sorted, semantic before procedural."""
        found: list[Path] = []
        for name in WARM_DIRS:
            folder = self.memory_dir / name
            if folder.is_dir():
                found.extend(sorted(p for p in folder.glob("*.md") if p.is_file()))
        return found

    def resolves_inside(self, path: Path) -> bool:
        """True when *path*, symlinks followed, stays inside the root (PROTOCOL §3)."""
        return inside_root(real_root(self.root), os.path.realpath(path))

    def relative(self, path: Path) -> str:
        """*path* relative to the root, with forward slashes, for messages and JSON;
        one printable line even for a name holding a line break (PROTOCOL §3)."""
        try:
            return printable_name(path.relative_to(self.root).as_posix())
        except ValueError:
            return printable_name(str(path))


def find_day_note(ws: Workspace, day: date) -> Path | None:
    """Where *day*'s note is now: the episodic folder, else the archive (PROTOCOL §7)."""
    live = ws.episodic_note(day)
    if os.path.lexists(live):
        return live
    folder = ws.archive_month(day)
    name = f"{day.isoformat()}.md"
    if os.path.lexists(folder / name):
        return folder / name
    if folder.is_dir():
        # A taken name in the archive stores the newcomer as <stem>.1.md (PROTOCOL §7).
        renamed = sorted(folder.glob(f"{day.isoformat()}.*.md"))
        if renamed:
            return renamed[0]
    return None


def archived_day(ws: Workspace, day: date) -> bool:
    """True when *day*'s note lives in the archive now, not in the episodic folder."""
    found = find_day_note(ws, day)
    return found is not None and found != ws.episodic_note(day)
