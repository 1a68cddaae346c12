"""memtier's tests.

This package is imported before any conftest or test module, in pytest's process and
in each xdist worker, and sets up two things for the whole run:

- **The bytecode cache is on**, whatever the environment says
  (`PYTHONDONTWRITEBYTECODE`), so everything imported after this can be cached: with
  the cache off, each worker recompiled and assertion-rewrote ~100 test modules on
  every run (about 4 s of CPU each), and each of the ~120 memtier processes the suite
  starts recompiled the package (about 80 ms each). The subprocesses inherit the
  variable, which only stops writing: they read the `__pycache__` files the workers
  wrote. git ignores `__pycache__/`.
- **Temporary folders live in memory** when the machine has a RAM file system
  (`/dev/shm` as tmpfs, with room to spare) and no `TMPDIR` of the person's own:
  every test makes and removes a workspace, and on a disk file system the journal,
  the directory updates and the real processes' `fsync` calls cost about 8 s of
  system CPU and 3 s of waiting per run. Real processes and kills behave the same
  there; only a power cut would not, and no test cuts the power.
"""

import os
import sys
import tempfile

sys.dont_write_bytecode = False

_RAM = "/dev/shm"
_ROOM = 2 << 30  # bytes free on the RAM file system, or the disk is used


def _ram_folder() -> str | None:
    """`/dev/shm` when it is a writable tmpfs with room to spare, else None."""
    try:
        with open("/proc/self/mounts", encoding="utf-8") as mounts:
            tmpfs = any(f.split()[1:3] == [_RAM, "tmpfs"] for f in mounts)
        room = os.statvfs(_RAM)
    except OSError:
        return None
    if not tmpfs or room.f_bavail * room.f_frsize < _ROOM or not os.access(_RAM, os.W_OK):
        return None
    return _RAM


if not os.environ.get("TMPDIR") and (_folder := _ram_folder()) is not None:
    os.environ["TMPDIR"] = _folder  # for this process and every one it starts
    tempfile.tempdir = None  # gettempdir() looks again
