"""Running ripgrep (`scanner`): an anonymous file for its output.

It takes the fast way where the system offers it (Linux: ``memfd_create``) and the
portable way elsewhere. The program itself is started and waited for by
`memtier.spawn`, which notices its end the moment it comes (a process file
descriptor where the system has them).
"""

from __future__ import annotations

import os
from typing import BinaryIO

__all__ = ["anonymous_file"]


def anonymous_file() -> BinaryIO:
    """An anonymous file for ripgrep's output: in memory where the system has
    ``memfd_create`` (Linux), else an unlinked temporary file. The first spares a
    search the file system and the import of `tempfile` (with `shutil`, `random`
    and the compression modules: a few ms of every start-up)."""
    try:
        return os.fdopen(os.memfd_create("memtier-rg"), "w+b")
    except (AttributeError, OSError):
        import tempfile

        return tempfile.TemporaryFile()
