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
    _TRACE = trace or None
    _TRACE_ALL = trace_all or None
    _PASSES.clear()


def checkpoint(name: str) -> None:
    """Die here, by SIGKILL, if the point *name* (or this pass of it) is switched on."""
    SEEN.append(name)
    if _TRACE_ALL:
        with open(_TRACE_ALL, "a", encoding="utf-8") as handle:
            handle.write(name + "\n")
    if not _ACTIVE:
        return
    count = _PASSES[name] = _PASSES.get(name, 0) + 1
    if name in _ACTIVE or f"{name}@{count}" in _ACTIVE:
        if _TRACE:
            with open(_TRACE, "a", encoding="utf-8") as handle:
                handle.write(name + "\n")
        os.kill(os.getpid(), signal.SIGKILL)
