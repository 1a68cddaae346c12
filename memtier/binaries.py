"""Where the programs memtier starts are found: ``rg`` and memtier itself.

One rule for every caller (search, the health secrets scan, the shims, the
crontab line): an explicit choice first, then the program installed beside the
running Python, then ``PATH``. "Beside the running Python" is the folder
holding ``sys.executable`` (not resolved: in a virtual environment that is its
``bin/``), where pip puts the ``rg`` of the ripgrep wheel and the ``memtier``
script of this very installation, so the pair that was installed together is
the pair that runs together.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def find_binary(name: str, override: str | None = None) -> str | None:
    """The program to run for *name*, or None when there is none.

    *override*, when given, is a path or a name looked up on ``PATH``, and is
    the only candidate: a wrong explicit choice is not silently replaced.
    """
    if override:
        return _on_path(override)
    beside = Path(sys.executable).parent / name
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return _on_path(name)


def _on_path(name: str) -> str | None:
    # shutil (with its compression modules) only when PATH is searched: the start-up
    # of a search that finds rg beside Python does without it.
    import shutil

    return shutil.which(name)
