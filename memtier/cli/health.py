"""Commands of the health area: `health-check` and `install-scripts`."""

from __future__ import annotations

from typing import Annotated

import typer

from memtier.cli import invocation
from memtier.cli._app import app, command
from memtier.cli.invocation import open_workspace, show

VerboseOption = Annotated[
    bool,
    typer.Option(
        "--verbose",
        "-v",
        help="Show the detail behind each failure and warning (header lines, line numbers).",
    ),
]


@command(app, "health-check")
def health_check_command(verbose: VerboseOption = False) -> int:
    """Check every memory invariant; exit 0 when all required checks pass, 1 when one fails.

    Checks the MEMORY.md header and size, tags against the vocabulary, WARM
    freshness, the working buffer's header and size, rotation residue, the
    closure blocks of today's and yesterday's notes, credentials in any
    non-archived memory file, leftover temporary files and shim versions.
    Warnings never change the exit code. Reads only: it never writes a file.
    On a terminal the checks are a table; piped, the original script's lines.
    """
    return invocation.health_check(verbose)


@command(app, "install-scripts")
def install_scripts_command() -> int:
    """Write the shell shims into memory/scripts/ (health-check.sh, atomic-write.sh, ...).

    Each shim finds its workspace from its own location, calls this memtier
    with its arguments and exits with memtier's code. Shims carry the memtier
    version; rerun after upgrading memtier. Other files in memory/scripts/ are
    never touched.
    """
    from memtier import __version__
    from memtier.commands.shims import install_scripts, installer_command

    ws = open_workspace()
    return show(install_scripts(ws, fallback=installer_command(), version=__version__))
