"""The cyclic garbage collector paused while a command works (`Uncollected`).

Both the fast path and typer's path use it; it imports nothing at load time, so that
a hot command pays nothing for it before its work starts."""

from __future__ import annotations


class Uncollected:
    """No cyclic garbage collection inside the block, nor at the exit of the process.

    A hot command is a short process that makes next to no cyclic garbage (a search left
    ~450 such objects, a health check frees its ~10,000 by their counts), yet the
    collector's passes over what the imports and the work allocate cost it 5-10 ms of
    CPU, and the interpreter's last collections at the exit ~10 ms more. The collector
    is given back after the block (typer's path also serves the tool server for hours,
    and a caller in the same process keeps it); what is left is frozen out of the last
    collections only at the exit (`atexit`), where the system frees the memory."""

    def __enter__(self) -> None:
        import atexit
        import gc

        atexit.unregister(gc.freeze)  # once, however many blocks this process runs
        atexit.register(gc.freeze)
        self._collecting = gc.isenabled()
        gc.disable()

    def __exit__(self, *_: object) -> None:
        import gc

        if self._collecting:
            gc.enable()
