"""Named fault-injection points for crash tests (no effect unless switched on).

Writers call `checkpoint("<module>.<step>")` at every step boundary. The CLI
switches points on from ``$MEMTIER_FAULT`` (a comma-separated list of names);
when the running process reaches a switched-on point it kills itself with
SIGKILL, exactly as a power cut or an OOM kill would stop it. Every name passed
to `checkpoint` is recorded in `SEEN` so tests can list the points a command
went through.

A name may carry an occurrence, ``store.temp-written@3``: the process then dies
the third time it passes that point, so a crash test can stop a command that
writes several files between any two of them. ``$MEMTIER_FAULT_TRACE_ALL``
names a file that every point passed is appended to (whether or not it is
switched on), so a test can list the points a real process went through.

Both trace files are confined to the system's temporary folder (where tests
keep theirs) and must be regular files if they exist: an environment variable
must not make memtier append to any file it can reach (PROTOCOL §3 confinement).
"""

from __future__ import annotations

import os
import signal

_ACTIVE: frozenset[str] = frozenset()
_TRACE: str | None = None
SEEN: list[str] = []
ENV_VAR = "MEMTIER_FAULT"
TRACE_ENV_VAR = "MEMTIER_FAULT_TRACE"
TRACE_ALL_ENV_VAR = "MEMTIER_FAULT_TRACE_ALL"
_TRACE_ALL: str | None = None
_PASSES: dict[str, int] = {}


def enable(names: str | None, trace: str | None = None, trace_all: str | None = None) -> None:
    """Switch on the points named in a comma-separated string (None: none).

    *trace*, when given, is a file that a dying process appends the point's
    name to, so a test can tell that the process really reached it.
    *trace_all* is a file that every point passed is appended to.
    """
    global _ACTIVE, _TRACE, _TRACE_ALL
    _ACTIVE = frozenset(n.strip() for n in (names or "").split(",") if n.strip())
    _TRACE = _confined(TRACE_ENV_VAR, trace) if trace else None
    _TRACE_ALL = _confined(TRACE_ALL_ENV_VAR, trace_all) if trace_all else None
    _PASSES.clear()


def _confined(variable: str, path: str) -> str:
    """*path* if it lies in the temporary folder (symlinks followed) and is a regular
    file or does not exist yet; else an `InputError` naming *variable*."""
    import stat
    import tempfile

    from memtier.errors import InputError
    from memtier.workspace import inside_root

    real = os.path.realpath(path)
    folder = os.path.realpath(tempfile.gettempdir())
    if not inside_root(folder, real) or real == folder:
        raise InputError(f"{variable}: a trace file must lie in {folder}, not {path}")
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        return real
    except OSError as exc:
        raise InputError(f"{variable}: {path}: cannot be checked ({exc.strerror})") from None
    if not stat.S_ISREG(mode):
        raise InputError(f"{variable}: {path} is not a regular file")
    return real


def checkpoint(name: str) -> None:
    """Die here, by SIGKILL, if the point *name* (or this pass of it) is switched on."""
    SEEN.append(name)
    if _TRACE_ALL:
        _append(_TRACE_ALL, name)
    if not _ACTIVE:
        return
    count = _PASSES[name] = _PASSES.get(name, 0) + 1
    if name in _ACTIVE or f"{name}@{count}" in _ACTIVE:
        if _TRACE:
            _append(_TRACE, name)
        os.kill(os.getpid(), signal.SIGKILL)


def _append(path: str, name: str) -> None:
    # Never through a link planted after the check, never blocking on a FIFO.
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags | getattr(os, "O_NONBLOCK", 0), 0o600)
    try:
        os.write(fd, (name + "\n").encode("utf-8"))
    finally:
        os.close(fd)


# -- the named points of the session lifecycle (PROTOCOL §4, §5), for crash tests
# that walk them all; kept here so that listing them imports no command.

SESSION_START_CHECKPOINTS: tuple[str, ...] = (
    "session_start.hot-created",  # step 1
    "session_start.buffer-created",  # step 2
    "session_start.lock-removed",  # step 3
    "session_start.failure-logged",  # step 4, failed recovery: ERRORS.md line written
    "session_start.pending-merged",  # step 4: live-only buffer lines written into .pending
    "session_start.pending-discarded",  # step 4: .pending removed
    "session_start.stale-snapshot",  # step 5: the stale buffer's snapshot in .pending
    "session_start.recovered-appended",  # step 4 or 5: [RECOVERED: STALE] body in the note
    "session_start.buffer-reset",  # step 4 or 5: fresh buffer written
    "session_start.buffer-restored",  # step 4: buffer restored from .pending
    "session_start.heartbeat",  # step 6
)
ROTATE_CHECKPOINTS: tuple[str, ...] = (
    "rotate.locked",  # step 2 done: the .lock marker exists
    "rotate.pending-written",  # step 3 done: the .pending snapshot is on disk
    "rotate.note-written",  # step 4 done: the body stands in today's note
    "rotate.buffer-reset",  # step 5 done: a fresh buffer replaced the old one
    "rotate.pending-removed",  # step 6, first half
    "rotate.unlocked",  # step 6 done
)
BUFFER_CHECKPOINTS: tuple[str, ...] = ("buffer.read", "buffer.written")
EPISODIC_CHECKPOINTS: tuple[str, ...] = ("episodic.read", "episodic.written")
LIFECYCLE_CHECKPOINTS: tuple[str, ...] = (
    *SESSION_START_CHECKPOINTS,
    *BUFFER_CHECKPOINTS,
    *ROTATE_CHECKPOINTS,
    *EPISODIC_CHECKPOINTS,
)
