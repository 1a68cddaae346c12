"""Running ripgrep (`scanner`): an anonymous file for its output, read as it grows.

The file takes the fast way where the system offers it (Linux: ``memfd_create``)
and the portable way elsewhere. The program itself is started by `memtier.spawn`
and waited for by `Followed.wait`, which notices its end the moment it comes (a
process file descriptor where the system has them).

`Followed` reads that file while ripgrep still writes it: ripgrep prints each
file's block whole as soon as the file is searched, so the blocks printed so far
are taken apart while ripgrep searches the rest, and only its last blocks and
statistics are left for after its end. This shortens what follows ripgrep; it
saves no CPU, and on two cores ripgrep's threads keep both busy most of the time.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

# Not typing's: importing it costs a search 3-4 ms. Type checkers read this as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO

    from memtier.spawn import Started

__all__ = ["Followed", "anonymous_file"]


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


# Between two looks at the output while ripgrep runs; its end is told at once.
LOOK_EVERY_SECONDS = 0.01
_READ_SIZE = 1 << 20
# ripgrep's ``--heading`` output: one block per file, a blank line between blocks.
SEPARATOR = b"\n\n"


class Followed:
    """The output file *fd* of a running program, read as it grows.

    The program's copy of the file shares its offset with ours, so the file is
    read with ``pread`` at an offset of our own, never moving the program's.
    Each complete block (*SEPARATOR* after it) goes to *take*, in order, in
    lists: the blocks are exactly those that splitting the whole output at
    *SEPARATOR* gives (the split is made from the left in both cases, and what
    follows the last separator read is kept until more comes). The last block
    (ripgrep's statistics) stays for the caller (`finish`). Without *take*, the
    whole output is kept for the caller instead; with it, only whether anything but
    white space was printed (`blank`): a broad query prints megabytes, which are
    then neither joined nor copied again."""

    def __init__(self, fd: int, take: Callable[[list[bytes]], object] | None) -> None:
        self._fd = fd
        self._offset = 0
        self._parts: list[bytes] = []
        self._rest = b""
        self._take = take
        self.blank = True  # nothing but white space printed so far

    def read_new(self) -> None:
        """Read what was written since the last look; hand over the complete blocks."""
        chunks = []
        while chunk := os.pread(self._fd, _READ_SIZE, self._offset):
            self._offset += len(chunk)
            chunks.append(chunk)
        if not chunks:
            return
        if self.blank:
            self.blank = all(chunk.isspace() for chunk in chunks)
        if self._take is None:
            self._parts.extend(chunks)
            return
        blocks = (self._rest + b"".join(chunks)).split(SEPARATOR)
        self._rest = blocks.pop()
        if blocks:
            self._take(blocks)

    def wait(self, process: Started, limit: float) -> bool:
        """Read the output while *process* runs, until it ends (True; reaped) or
        *limit* seconds have passed (False; it still runs).

        One process file descriptor (Linux, `spawn.EndWatch`) tells the end the
        moment it comes, kept for the whole wait: a look costs a timed wake of ~50 us
        of CPU, and opening a descriptor at each look as much again (measured), which
        a search pays in full on two busy cores. Elsewhere `Started.ended_within`
        looks its own way."""
        from memtier.spawn import EndWatch

        deadline = time.monotonic() + limit
        with EndWatch(process.pid) as watch:
            while True:
                left = max(0.0, deadline - time.monotonic())
                step = min(LOOK_EVERY_SECONDS, left)
                ended = watch.ends_within(step)
                if ended is None:
                    ended = process.ended_within(step)
                self.read_new()
                if ended:
                    process.wait()
                    return True
                if left <= 0:
                    return False

    def finish(self) -> tuple[bytes, bytes]:
        """The whole output when no *take* was given (else nothing: the blocks were
        handed over), and what follows the last separator (not handed over)."""
        self.read_new()
        return b"".join(self._parts), self._rest
