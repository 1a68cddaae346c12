"""memtier's command line: a thin typer layer over the core (see `_app`).

``app`` and ``run`` are loaded on first use: importing them registers every
command, one module per area. `memtier.cli.invocation` and `memtier.cli.fast`
never import typer, so the hot commands' fast path starts without it.
"""

from __future__ import annotations

# Not from typing, whose import costs ~2 ms: type checkers read this name as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from memtier.cli._app import app, run

__all__ = ["app", "run"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'memtier.cli' has no attribute {name!r}")
    from memtier.cli import (
        _app,
        facts,
        foundation,
        health,
        lifecycle,
        maintenance,
        mcp,
        recall,
        sync,
        topics,
        transfer,
    )

    # Imported to register their commands.
    del facts, foundation, health, lifecycle, maintenance, mcp, recall, sync, topics, transfer
    return getattr(_app, name)
