"""memtier: a tiered, plain-markdown memory for a single-user AI agent.

The package is a thin typer CLI (`memtier.cli`) over plain core functions that
take *now*, the workspace root and the configuration as arguments.
"""

from __future__ import annotations

__version__ = "0.1.0"
