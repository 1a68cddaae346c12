"""The workspace: where it is, what time it is, and how it is configured.

Root discovery follows PROTOCOL §1: an explicit root (``--root`` or
``$MEMTIER_ROOT``, resolved by the CLI), else the nearest ancestor of the
current directory, itself included, holding both ``MEMORY.md`` and ``memory/``.
`Workspace` also names every path of the layout so that no other module spells
them out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path

from memtier.clock import today as _today
from memtier.config import Config, load_config
from memtier.errors import InputError, WorkspaceNotFound

HOT_FILE = "MEMORY.md"
MEMORY_DIR = "memory"
LEARNINGS_DIR = ".learnings"
SCRATCH_FILES: tuple[str, ...] = ("ERRORS.md", "LEARNINGS.md", "FEATURE_REQUESTS.md")
WARM_DIRS: tuple[str, ...] = ("semantic", "procedural")
TIERS: tuple[str, ...] = ("hot", "warm", "buffer", "scratch", "cold", "archive")


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


@dataclass(frozen=True)
class Workspace:
    """One workspace root, the moment the command runs at, and its configuration."""

    root: Path
    now: datetime
    config: Config = field(default_factory=Config)

    @classmethod
    def open(cls, root: Path, now: datetime) -> Workspace:
        return cls(root=root, now=now, config=load_config(root))

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
        return self.memory_dir / "semantic"

    @property
    def procedural_dir(self) -> Path:
        return self.memory_dir / "procedural"

    @property
    def episodic_dir(self) -> Path:
        return self.memory_dir / "episodic"

    @property
    def archive_dir(self) -> Path:
        return self.memory_dir / "archive"

    @property
    def learnings_archive_dir(self) -> Path:
        return self.archive_dir / "learnings"

    @property
    def scripts_dir(self) -> Path:
        return self.memory_dir / "scripts"

    @property
    def buffer(self) -> Path:
        return self.memory_dir / "working-buffer.md"

    @property
    def buffer_lock(self) -> Path:
        """The protocol's rotation marker (PROTOCOL §5), not the workspace lock."""
        return self.memory_dir / "working-buffer.md.lock"

    @property
    def buffer_pending(self) -> Path:
        return self.memory_dir / "working-buffer.md.pending"

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
        return self.memory_dir / "memtier.toml"

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

    def relative(self, path: Path) -> str:
        """*path* relative to the root, with forward slashes, for messages and JSON;
        one printable line even for a name holding a line break (PROTOCOL §3)."""
        from memtier.formats.text import printable_name

        try:
            return printable_name(path.relative_to(self.root).as_posix())
        except ValueError:
            return printable_name(str(path))
