"""The workspace lock: the OS-level lock on ``memory/.memtier.lock`` that every
command holds for its whole read-modify-write (PROTOCOL §3). Part of
`memtier.store`, which re-exports every public name."""

from __future__ import annotations

import errno
import os
import stat
from _thread import _local
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memtier.errors import ConfinementError, LockTimeout
from memtier.store.read import OUTSIDE_MESSAGE, _display, confine
from memtier.store.write import _failed

LOCK_TIMEOUT_SECONDS = 60.0


# ---------------------------------------------------------------------------
# the workspace lock


# Not typing's: importing it costs a search 3-4 ms. Type checkers read this as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class _Lock(Protocol):
        def release(self) -> None: ...


class _FlockLock:
    """``flock`` on the lock file, polled until *timeout*: what filelock does on POSIX.

    Called directly because importing filelock costs about 20 ms (it pulls in
    logging, secrets, decimal, inspect), paid by every write an agent makes;
    the lock is interoperable with filelock's, both being ``flock`` on one file.
    """

    def __init__(self, path: Path, timeout: float) -> None:
        import fcntl
        import time

        # Never through a link, never blocking on a FIFO, only a regular file.
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        fd = os.open(path, flags, 0o644)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise OSError(errno.EINVAL, "not a regular file")
        deadline = time.monotonic() + timeout
        pause = 0.001
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise TimeoutError(str(path)) from None
                time.sleep(pause)
                pause = min(pause * 2, 0.025)
            except OSError:
                os.close(fd)
                raise
        self._fd = fd

    def release(self) -> None:
        import fcntl

        try:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        finally:
            os.close(self._fd)


class _PortableLock:
    """filelock, where the platform has no ``fcntl`` (Windows)."""

    def __init__(self, path: Path, timeout: float) -> None:
        from filelock import FileLock, Timeout

        self._lock = FileLock(str(path), timeout=timeout)
        try:
            self._lock.acquire()
        except Timeout:
            raise TimeoutError(str(path)) from None

    def release(self) -> None:
        self._lock.release()


# Per thread: {lock file: (lock, how deeply entered)}. `threading.local` is this class
# of the C module `_thread`; importing `threading` costs every search ~0.8 ms.
_held = _local()


@contextmanager
def workspace_lock(lock_path: Path, *, timeout: float = LOCK_TIMEOUT_SECONDS) -> Iterator[None]:
    """Hold the OS-level lock on *lock_path* (``memory/.memtier.lock``).

    Re-entrant within one thread, so a command that calls another core function
    (session-start calling rotate) keeps the one lock it has. Another thread (the
    tool server's workers) opens the file itself and waits as another process
    does: ``flock`` excludes two open files of one process too.
    """
    key = str(lock_path.absolute())
    held_here: dict[str, tuple[_Lock, int]] = _held.__dict__.setdefault("locks", {})
    if key in held_here:
        held, depth = held_here[key]
        held_here[key] = (held, depth + 1)
        try:
            yield
        finally:
            held_here[key] = (held, held_here[key][1] - 1)
        return
    # PROTOCOL §3 v2: the lock is memory/.memtier.lock; neither memory/ nor the
    # lock file may lead out of the workspace (a link would create a file outside).
    root = lock_path.parent.parent
    for part in (lock_path.parent, lock_path):
        if os.path.lexists(part):
            try:
                confine(root, part)
            except ConfinementError:
                shown = _display(part, root)
                raise ConfinementError(f"{shown}: {OUTSIDE_MESSAGE}", path=part) from None
    try:
        lock_path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _failed("create", str(lock_path.parent), exc) from None
    kind: type[_FlockLock | _PortableLock] = _FlockLock if os.name == "posix" else _PortableLock
    try:
        lock: _Lock = kind(lock_path, timeout)
    except TimeoutError:
        raise LockTimeout(
            f"the workspace is locked by another memtier process (waited {timeout:g} s)"
        ) from None
    except OSError as exc:
        raise _failed("lock", str(lock_path), exc) from None
    held_here[key] = (lock, 1)
    try:
        yield
    finally:
        del held_here[key]
        lock.release()
