"""memtier's command line: a thin typer layer over the core (see `_app`).

Importing this package registers every command, one module per issue area;
each command imports its core lazily, inside the command, to keep start-up fast.
"""

from __future__ import annotations

from memtier.cli import facts as _facts
from memtier.cli import foundation as _foundation
from memtier.cli import health as _health
from memtier.cli import lifecycle as _lifecycle
from memtier.cli import maintenance as _maintenance
from memtier.cli import mcp as _mcp
from memtier.cli import recall as _recall
from memtier.cli import transfer as _transfer
from memtier.cli._app import app, run

__all__ = ["app", "run"]
del _facts, _foundation, _health, _lifecycle, _maintenance, _mcp, _recall, _transfer
