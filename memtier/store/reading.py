"""Folder listings and file bytes, each read once by one pass over the memory: a
health check (PROTOCOL §6 v4: at 10,000 notes it reads each file once) or a topic's
notes (§13).

The checks that look at many files (confinement, conflict markers and closure
blocks, secrets, the topic index, leftover files) share one `Reading`: a folder
is listed by one ``scandir``, a file's bytes are read by one ``open``, and every
check that needs them takes them from here. Paths are plain strings: a COLD tier
of 10,000 notes spent seconds building ``Path`` objects for them.

Reads only. The bytes are the file's as they are (a link is followed, as
``Path.read_bytes`` does); whether a check may read a link is the check's
decision, made from the listing's entry.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from operator import attrgetter
from pathlib import Path

# Read without blocking: a FIFO in a note's place must not stop the check.
_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_CHUNK = 1 << 16
_name = attrgetter("name")  # the sort key of a listing


class Reading:
    """Folder listings and file bytes, each taken from the disk once."""

    def __init__(self) -> None:
        self._listings: dict[str, list[os.DirEntry[str]]] = {}
        self._pending: dict[str, Callable[[], list[os.DirEntry[str]]]] = {}  # `keep_listing`'s
        self._bytes: dict[str, bytes | OSError] = {}

    def listing(self, folder: Path | str) -> list[os.DirEntry[str]]:
        """The entries of *folder*, in name order; empty when it cannot be listed."""
        key = os.fspath(folder)
        if key not in self._listings:
            pending = self._pending.pop(key, None)
            try:
                if pending is not None:
                    entries = sorted(pending(), key=_name)
                else:
                    with os.scandir(key) as found:
                        entries = sorted(found, key=_name)
            except OSError:
                entries = []
            self._listings[key] = entries
        return self._listings[key]

    def keep_listing(
        self, folder: Path | str, entries: Callable[[], list[os.DirEntry[str]]]
    ) -> None:
        """*folder*'s listing is one its caller began with ``scandir``: *entries* reads
        the rest of it and gives them all, when `listing` first needs them."""
        key = os.fspath(folder)
        if key not in self._listings:
            self._pending[key] = entries

    def data(self, path: Path | str) -> bytes | OSError:
        """The bytes of the file at *path*, or the error reading it."""
        key = os.fspath(path)
        found = self._bytes.get(key)
        if found is None:
            found = self._bytes[key] = _read(key)
        return found

    def bytes_or_none(self, path: Path | str) -> bytes | None:
        found = self.data(path)
        return None if isinstance(found, OSError) else found


def is_plain_file(entry: os.DirEntry[str]) -> bool:
    """Whether a listed entry is a plain file (not a link, folder or special file);
    False when it cannot be told (gone since the listing)."""
    try:
        return entry.is_file(follow_symlinks=False)
    except OSError:
        return False


def not_plain_files(entries: list[os.DirEntry[str]]) -> list[os.DirEntry[str]]:
    """The *entries* that are not plain files (see `is_plain_file`), in their order.

    A folder of 10,000 notes is told in one comprehension: each entry's kind comes
    from the listing, no call of ours per entry. Only when the listing did not say
    for one that is gone since is each entry asked on its own."""
    try:
        return [entry for entry in entries if not entry.is_file(follow_symlinks=False)]
    except OSError:
        return [entry for entry in entries if not is_plain_file(entry)]


def _read(path: str) -> bytes | OSError:
    try:
        fd = os.open(path, _FLAGS)
    except OSError as exc:
        return exc
    try:
        chunks = [os.read(fd, _CHUNK)]
        # A note is smaller than a chunk: one read is the common case. Anything
        # else is asked what it is first (/dev/zero would never end).
        if len(chunks[0]) in (0, _CHUNK) and not stat.S_ISREG(os.fstat(fd).st_mode):
            return OSError(0, "not a regular file", path)
        if len(chunks[0]) == _CHUNK:
            while chunk := os.read(fd, _CHUNK):
                chunks.append(chunk)
        return b"".join(chunks) if len(chunks) > 1 else chunks[0]
    except OSError as exc:
        return exc  # a folder: EISDIR, as Path.read_bytes says
    finally:
        os.close(fd)
