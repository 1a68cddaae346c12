"""Running ripgrep (`scanner`): an anonymous file for its output and a wait that notices its end.

Both take the fast way where the system offers it (Linux: ``memfd_create``, a process
file descriptor) and the portable way elsewhere; `scanner` runs ripgrep through them.
"""

from __future__ import annotations

import os
import subprocess
from typing import BinaryIO

__all__ = ["anonymous_file", "exited_within"]


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


def exited_within(process: subprocess.Popen[bytes], seconds: float) -> bool:
    """Whether *process* ends within *seconds*, told the moment it does.

    ``Popen.wait(timeout=…)`` polls, sleeping up to 50 ms between looks: a search
    that ripgrep answers in 20 ms would wait for the next look. A process file
    descriptor (Linux) becomes readable when the process exits, so one ``poll``
    both waits and bounds the wait; elsewhere the polling wait is used. The
    process is not reaped here, so its pid cannot be reused before it is killed.
    """
    import select

    try:
        handle = os.pidfd_open(process.pid)
    except (AttributeError, OSError):
        try:
            process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            return False
        return True
    try:
        watch = select.poll()
        watch.register(handle, select.POLLIN)
        return bool(watch.poll(max(0, int(seconds * 1000))))
    finally:
        os.close(handle)
