"""memtier commands run in this process or in a forked child that dies mid-way.

A forked child is a real process with real files, started without Python's
start-up cost, so a test can kill hundreds of them: at a named fault point
(`memtier.store.checkpoint`) or, from outside, at a random moment.
"""

from __future__ import annotations

import io
import os
import signal
import time
from contextlib import redirect_stderr, redirect_stdout, suppress
from pathlib import Path


def run_here(root: Path, now: str, *args: str) -> int:
    """The memtier command line in this process; its exit code (output dropped)."""
    from memtier.cli import run

    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        return run([*args, "--root", str(root), "--now", now])


def _child(root: Path, now: str, args: tuple[str, ...], point: str | None) -> None:
    """The forked side: never returns into the test runner."""
    code = 70
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        from memtier.store import write as faults

        # The CLI switches fault points on from the environment when it starts.
        os.environ.pop(faults.TRACE_ALL_ENV_VAR, None)
        if point is None:
            os.environ.pop(faults.FAULT_ENV_VAR, None)
        else:
            os.environ[faults.FAULT_ENV_VAR] = point
        code = run_here(root, now, *args)
    finally:
        os._exit(code)


def run_forked(
    root: Path, now: str, *args: str, point: str | None = None, kill_after: float | None = None
) -> tuple[bool, int]:
    """Run a command in a child process: (killed by SIGKILL, exit code or -9).

    *point* switches on a fault point, so the child kills itself there;
    *kill_after* seconds kills it from outside, wherever it is by then.
    """
    pid = os.fork()
    if pid == 0:
        _child(root, now, args, point)
    if kill_after is not None:
        time.sleep(kill_after)
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    _pid, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return os.WTERMSIG(status) == signal.SIGKILL, -os.WTERMSIG(status)
    return False, os.WEXITSTATUS(status)
