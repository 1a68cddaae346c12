"""memtier: a tiered, plain-markdown memory for a single-user AI agent.

The package is a thin typer CLI over plain core functions that take the
`Workspace` (root, *now*, configuration) and return a result. Its layers, each
importing only the ones below it (``tests/test_layout.py`` checks this, and
that no import cycle exists):

- ``cli/``: typer only: parses arguments, calls one core function, shows its result.
- ``commands/``: one module per command family (session start, rotation, review, ...).
- ``health/`` and ``search/``: the two read-only reports, with their own helpers.
- ``formats/``: the file formats, text in and text out (buffer, episodic note,
  ``#tags:`` line, the templates ``init`` writes).
- infrastructure, here at the top: `workspace` (every path and tier of the
  layout, and what counts as inside the root), `store` (every write, the lock,
  confinement), `clock`, `config`, `errors`, `render`, `secrets`, `faults` (the
  named crash points) and `binaries` (where ``rg`` and memtier are found).

The contract all of it implements is ``docs/PROTOCOL.md``; ``PROTOCOL §N`` in a
comment is its section N.
"""

from __future__ import annotations

__version__ = "0.1.0"
