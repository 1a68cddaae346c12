"""``python -m memtier``: the same entry as the ``memtier`` script
(`memtier.cli.fast.script`: `memtier.cli.fast.main`, where the fast path decides
which parser runs)."""

from __future__ import annotations

from memtier.cli.fast import main, script

__all__ = ["main"]

if __name__ == "__main__":
    script()
