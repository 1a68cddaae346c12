"""Named fault-injection points for crash tests (no effect unless switched on).

Writers call `checkpoint("<module>.<step>")` at every step boundary. The CLI
switches points on from ``$MEMTIER_FAULT`` (a comma-separated list of names);
when the running process reaches a switched-on point it kills itself with
SIGKILL, exactly as a power cut or an OOM kill would stop it. Every name passed
to `checkpoint` is recorded in `SEEN` so tests can list the points a command
went through.
"""

from __future__ import annotations

import os
import signal

_ACTIVE: frozenset[str] = frozenset()
_TRACE: str | None = None
SEEN: list[str] = []
ENV_VAR = "MEMTIER_FAULT"
TRACE_ENV_VAR = "MEMTIER_FAULT_TRACE"


def enable(names: str | None, trace: str | None = None) -> None:
    """Switch on the points named in a comma-separated string (None: none).

    *trace*, when given, is a file that a dying process appends the point's
    name to, so a test can tell that the process really reached it.
    """
    global _ACTIVE, _TRACE
    _ACTIVE = frozenset(n.strip() for n in (names or "").split(",") if n.strip())
    _TRACE = trace or None


def checkpoint(name: str) -> None:
    """Die here, by SIGKILL, if the point *name* is switched on."""
    SEEN.append(name)
    if name in _ACTIVE:
        if _TRACE:
            with open(_TRACE, "a", encoding="utf-8") as handle:
                handle.write(name + "\n")
        os.kill(os.getpid(), signal.SIGKILL)
