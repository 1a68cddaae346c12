"""Where a path really leads, found as cheaply as the system allows (PROTOCOL §3).

Every read and write is confined to the workspace root, which takes the root's real
path and the file's. Two habits keep that cheap without weakening it:

- A workspace root is resolved once, when the workspace opens (`remember_root`, called
  by `Workspace.open`), and not again by each confined read, write and lock of that
  command (`real_root`). Each open refreshes it, so a long-lived process (the tool
  server opens the workspace for every call) follows a root that was moved.
- An existing path is looked up once by the kernel (``O_PATH``: nothing is opened for
  reading, a FIFO is not waited on) and the kernel names what it found
  (`kernel_real_path`), instead of a walk in Python that asks for every folder of the
  path. Where the kernel cannot tell (no ``O_PATH``, no ``/proc``), callers walk.

Below every other module but `errors` and `values`: the configuration, the workspace
and the store all confine their reads through it.
"""

from __future__ import annotations

import os
from pathlib import Path

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
    if real is not None or os.path.lexists(path) or path.name in ("", ".", ".."):
        return real
    parent = kernel_real_path(path.parent, folder=True)
    return None if parent is None else os.path.join(parent, path.name)
