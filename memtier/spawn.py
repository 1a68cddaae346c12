"""Starting a program (ripgrep) and reading what it prints, without `subprocess`.

health-check's one ripgrep pass (PROTOCOL §6 v4) is the only process it starts,
and importing `subprocess` (with `selectors` and `locale`) cost ~4 ms of CPU at
every start of it. ``os.posix_spawn`` starts the program as `subprocess` does on
Linux (the C library's vfork and exec), and `Started` keeps of ``Popen`` what
that pass needs: standard input and error on the null device, the output read
from a pipe within a time limit, the exit status, and a kill when the caller
gives up. The signals Python ignores (a closed pipe, a file too large) are the
program's defaults again, as ``Popen`` restores them. Where ``posix_spawn`` is
missing, `start` raises OSError, as for a program that cannot run.

Search starts its ripgrep here too (`memtier.search.scanner`), with the output and
errors going to files it gives (anonymous files: a broad query prints megabytes,
which a pipe would hold back while Python is busy elsewhere) and in a process
group of its own, so that a program that hangs is killed with whatever it started.
``posix_spawn`` cannot change the working folder (Python 3.11): a caller that
needs one gives *cwd*; a process running one thread enters the folder itself for
the start and comes back at once (`_entered`), else the shell changes to it before
it becomes the program (`in_folder`).
"""

from __future__ import annotations

import os

_CHUNK = 1 << 16


class EndWatch:
    """The end of the child process *pid* (not reaped here), told the moment it
    comes by one process file descriptor (Linux), kept open for as many looks as
    the caller makes (`ends_within`); close it after (or use it in a ``with``)."""

    def __init__(self, pid: int) -> None:
        import select

        self._handle: int | None = None
        self._watch: select.poll | None = None
        try:
            self._handle = os.pidfd_open(pid)
        except (AttributeError, OSError):
            return  # no such descriptor here, or the process was reaped meanwhile
        self._watch = select.poll()
        self._watch.register(self._handle, select.POLLIN)

    def ends_within(self, seconds: float) -> bool | None:
        """Whether the process ends within *seconds* (a time already past looks
        once); None where the system has no process file descriptor: the caller
        waits its own way."""
        if self._watch is None:
            return None
        return bool(self._watch.poll(int(max(0.0, seconds) * 1000) + 1))

    def close(self) -> None:
        if self._handle is not None:
            os.close(self._handle)
            self._handle = self._watch = None

    def __enter__(self) -> EndWatch:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def ends_within(pid: int, seconds: float) -> bool | None:
    """`EndWatch.ends_within` for one look at the child process *pid*."""
    with EndWatch(pid) as watch:
        return watch.ends_within(seconds)


class Started:
    """A program `start` started, its output on a pipe."""

    def __init__(self, pid: int, output: int | None) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._output: int | None = output  # the pipe's read end, until it is closed

    def communicate(self, timeout: float) -> bytes | None:
        """All the program prints, once it has ended (its exit status in
        `returncode`); None when it has not ended within *timeout* seconds: it is
        then killed."""
        import select
        import time

        if self._output is None:
            raise ValueError("no output to read: it was read already, or went to a file")
        deadline = time.monotonic() + timeout
        chunks: list[bytes] = []
        watch = select.poll()
        watch.register(self._output, select.POLLIN)
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    self.close()
                    return None
                if not watch.poll(int(left * 1000) + 1):
                    continue  # the time is checked again above
                chunk = os.read(self._output, _CHUNK)
                if not chunk:
                    break  # the program closed its output: it has ended, or is ending
                chunks.append(chunk)
        finally:
            self._close_output()
        if not self._ended_by(deadline):
            self.close()
            return None  # it closed its output but runs on past the limit
        return b"".join(chunks)

    def ended_within(self, seconds: float) -> bool:
        """Whether the program ends (and is reaped) within *seconds*, told the moment
        it does; when it does not, it still runs and is not reaped (see `close`)."""
        import time

        return self._ended_by(time.monotonic() + seconds)

    def _ended_by(self, deadline: float) -> bool:
        """Whether the program ends (and is reaped) before *deadline* (monotonic):
        told the moment it does by a process file descriptor where the system has
        them (Linux), else by looking every millisecond."""
        import time

        ended = ends_within(self.pid, deadline - time.monotonic())
        if ended is None:
            while self.poll() is None:
                if time.monotonic() >= deadline:
                    return False
                time.sleep(0.001)
            return True
        if not ended:
            return False
        self.wait()
        return True

    def poll(self) -> int | None:
        """The exit status if the program has ended, else None."""
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self) -> int:
        if self.returncode is None:
            _, status = os.waitpid(self.pid, 0)
            self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def close(self) -> None:
        """Kill the program if it still runs, and reap it (a caller that gave up)."""
        if self.poll() is None:
            import signal

            # Not reaped yet, so the pid is still the program's (a zombie at worst).
            os.kill(self.pid, signal.SIGKILL)
            self.wait()
        self._close_output()

    def _close_output(self) -> None:
        if self._output is not None:
            os.close(self._output)
            self._output = None


def start(
    argv: list[str],
    *,
    output: int | None = None,
    errors: int | None = None,
    group: bool = False,
    cwd: str | None = None,
) -> Started:
    """Start *argv* (a path, or a name looked up on ``PATH``), its input on the null
    device. Its output goes to a pipe that `Started.communicate` reads, or to the
    open file *output* (a file descriptor) when given; its errors to the null
    device, or to *errors*. With *group*, it leads a process group of its own
    (POSIX_SPAWN_SETPGROUP: standard, where setsid is not); with *cwd*, it runs in
    that folder (see `_entered` and `in_folder`). OSError when it cannot run (when
    the shell enters *cwd*: when the shell cannot, see there)."""
    # The signals' numbers from the C module that `signal` wraps, loaded with the
    # interpreter: `signal` builds its enums first (~0.7 ms of every search's start).
    # (It has no type stub; its numbers are plain ints.)
    import _signal  # type: ignore[import-not-found]

    spawn = getattr(os, "posix_spawnp", None)
    if spawn is None:
        raise OSError("os.posix_spawnp is not available here")
    # Both ends are not inherited (Python's default): only the copy on the
    # program's standard output is.
    read_end, into = os.pipe() if output is None else (None, output)
    error_action = (
        (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)
        if errors is None
        else (os.POSIX_SPAWN_DUP2, errors, 2)
    )
    here = None if cwd is None else _entered(cwd)
    if cwd is not None and here is None:
        argv = in_folder(cwd, argv)
    try:
        pid = spawn(
            argv[0],
            argv,
            os.environ,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, into, 1),
                error_action,
            ],
            setsigdef=[getattr(_signal, name) for name in _DEFAULTS if hasattr(_signal, name)],
            **({"setpgroup": 0} if group else {}),  # (None is refused: left out)
        )
    except BaseException:
        if read_end is not None:
            os.close(read_end)
        raise
    finally:
        if read_end is not None:
            os.close(into)
        if here is not None:
            os.fchdir(here)  # this process's own folder again
            os.close(here)
    return Started(pid, read_end)


def _entered(folder: str) -> int | None:
    """Change this process's folder to *folder* for the program to start in it (it
    inherits the folder at the start), returning a descriptor of the folder to come
    back to; None, with nothing changed, when the shell must change it instead
    (`in_folder`): another thread runs (it would see the folder change under it),
    or a folder cannot be opened or entered (the shell then fails as the program).

    Measured (10,000 notes): the shell's start is a process image of its own before
    ripgrep's, about 1 ms of CPU and 2-5 ms of wall time on two busy cores."""
    import sys

    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return None
    try:
        here = os.open(".", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return None
    try:
        os.chdir(folder)
    except OSError:
        os.close(here)
        return None
    return here


def in_folder(folder: str, argv: list[str]) -> list[str]:
    """*argv* run in *folder*: ``posix_spawn`` cannot change the folder before the
    program starts (Python 3.11), so the POSIX shell does it and then becomes the
    program (``exec``: same process, no shell left over).

    Measured: the shell adds about 1 ms of CPU to a start, and saves the import of
    `subprocess` (about 4 ms). Search needs the folder: ripgrep given absolute
    paths spent about 17% more CPU on 10,000 notes than in the root's folder with
    relative ones (the kernel walks each file's whole path on every open).
    A folder or program that cannot be used makes the shell exit with 126 or 127
    (and its message on the errors): the caller sees a program that failed."""
    # Absolute: `cd` then never consults $CDPATH (which would print the folder on
    # the program's output) nor reads "-" as the previous folder.
    return ["/bin/sh", "-c", 'cd -- "$0" && exec "$@"', os.path.abspath(folder), *argv]


# The signals `subprocess.Popen` puts back to their defaults in the program (Python
# ignores them).
_DEFAULTS = ("SIGPIPE", "SIGXFZ", "SIGXFSZ")
