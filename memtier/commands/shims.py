"""`memtier install-scripts`: shell shims for agents that call scripts (PROTOCOL §9).

The original skill ran ``bash memory/scripts/health-check.sh`` and friends. The
shims keep those entry points working: each is a small POSIX ``sh`` script that
finds its workspace by walking up from its own folder (as the original scripts
did), runs memtier on it with the script's arguments, and exits with memtier's
exit code.

Which memtier: ``$MEMTIER_BIN`` if set, else ``memtier`` on ``PATH``, else the
memtier that installed the shim (its absolute path is written into the shim),
so a shim works from cron and from agents whose ``PATH`` lacks the install.

Each shim carries the version that wrote it (``# memtier-shim-version: X``);
health-check warns (``shims.version``) when it differs from the running memtier.
Reinstalling rewrites only the four shims, and only when their text changed;
every other file in ``memory/scripts/`` (``*.local.sh`` variants, notes) is left
alone.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from memtier import store
from memtier.formats.shims import SHIM_NAMES, render_shim, shim_version
from memtier.results import Result
from memtier.store import checkpoint
from memtier.workspace import Workspace


def installer_command() -> tuple[str, ...]:
    """The command line of the running memtier, written into shims as the last resort.

    The ``memtier`` program `find_binary` finds (the script next to the running
    Python in a venv or pipx, else the one on ``PATH``), else ``python -m
    memtier`` with this very interpreter.
    """
    from memtier.binaries import find_binary

    found = find_binary("memtier")
    if found:
        return (str(Path(found).absolute()),)
    return (sys.executable, "-m", "memtier")


def _executable_mode(mode: int) -> int:
    """*mode* plus execute permission wherever it grants read (what ``chmod +x`` gives)."""
    return mode | ((mode & 0o444) >> 2)


def _make_executable(path: Path) -> None:
    mode = stat.S_IMODE(path.stat().st_mode)
    if _executable_mode(mode) != mode:
        os.chmod(path, _executable_mode(mode))


def _is_current(path: Path, data: bytes) -> bool:
    try:
        if path.read_bytes() != data:
            return False
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return False
    return _executable_mode(mode) == mode


@dataclass(frozen=True)
class ShimInstall(Result):
    """What `install_scripts` wrote and what it found already current."""

    scripts_dir: str
    version: str
    written: tuple[str, ...]
    unchanged: tuple[str, ...]
    replaced: tuple[str, ...]  # existing files that were not memtier shims

    JSON_OMIT = frozenset({"replaced"})

    def text_lines(self) -> Iterator[str]:
        for rel in self.written:
            note = " (it was not a memtier shim)" if rel in self.replaced else ""
            yield f"wrote {rel}{note}"
        for rel in self.unchanged:
            yield f"unchanged {rel}"
        yield (
            f"✅ Shims for memtier {self.version} in {self.scripts_dir}/ "
            f"({len(self.written)} written, {len(self.unchanged)} unchanged)"
        )


def install_scripts(ws: Workspace, *, fallback: tuple[str, ...], version: str) -> ShimInstall:
    """Write the four shims of PROTOCOL §9 into ``memory/scripts/``, executable."""
    written: list[str] = []
    unchanged: list[str] = []
    replaced: list[str] = []
    with store.workspace_lock(ws.lock_file):
        store.make_dirs(ws.scripts_dir, root=ws.root)
        for name in SHIM_NAMES:
            path = ws.scripts_dir / name
            rel = ws.relative(path)
            data = render_shim(name, version, fallback).encode("utf-8")
            if _is_current(path, data):
                unchanged.append(rel)
                continue
            if path.is_file():
                try:
                    if shim_version(path.read_bytes()) is None:
                        replaced.append(rel)
                except OSError:
                    pass
            target = store.write_bytes(path, data, root=ws.root)
            checkpoint("shims.written")
            # Not atomic with the write; a crash here leaves a shim that
            # `bash shim.sh` still runs, and the next install sets the bit.
            _make_executable(target)
            checkpoint("shims.executable")
            written.append(rel)
    return ShimInstall(
        scripts_dir=ws.relative(ws.scripts_dir),
        version=version,
        written=tuple(written),
        unchanged=tuple(unchanged),
        replaced=tuple(replaced),
    )
