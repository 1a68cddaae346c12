"""Commands of the health area: `health-check` and `install-scripts`."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from memtier.cli._app import JsonOption, NowOption, RootOption, app, open_workspace, show

VerboseOption = Annotated[
    bool,
    typer.Option(
        "--verbose",
        "-v",
        help="Show the detail behind each failure and warning (header lines, line numbers).",
    ),
]


@app.command("health-check")
def health_check_command(
    ctx: typer.Context,
    verbose: VerboseOption = False,
    root: RootOption = None,
    now: NowOption = None,
    as_json: JsonOption = False,
) -> None:
    """Check every memory invariant; exit 0 when all required checks pass, 1 when one fails.

    Checks the MEMORY.md header and size, tags against the vocabulary, WARM
    freshness, the working buffer's header and size, rotation residue, the
    closure blocks of today's and yesterday's notes, credentials in any
    non-archived memory file, leftover temporary files and shim versions.
    Warnings never change the exit code. Reads only: it never writes a file.
    """
    from memtier.health.report import run_health_check
    from memtier.render import colour_enabled

    ws = open_workspace(ctx, root, now)
    report = run_health_check(ws)
    if as_json:
        show(report, True)
    else:
        colour = colour_enabled(sys.stdout)
        for line in report.text_lines(verbose=verbose, colour=colour):
            sys.stdout.write(line + "\n")
    if not report.ok:
        raise typer.Exit(1)


@app.command("install-scripts")
def install_scripts_command(
    ctx: typer.Context,
    root: RootOption = None,
    now: NowOption = None,
    as_json: JsonOption = False,
) -> None:
    """Write the shell shims into memory/scripts/ (health-check.sh, atomic-write.sh, ...).

    Each shim finds its workspace from its own location, calls this memtier
    with its arguments and exits with memtier's code. Shims carry the memtier
    version; rerun after upgrading memtier. Other files in memory/scripts/ are
    never touched.
    """
    from memtier import __version__
    from memtier.commands.shims import install_scripts, installer_command

    ws = open_workspace(ctx, root, now)
    show(install_scripts(ws, fallback=installer_command(), version=__version__), as_json)
