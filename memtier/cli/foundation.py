"""Commands of the foundation: `init` and `atomic-write`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from memtier.cli._app import app, command
from memtier.cli.invocation import explicit_root, open_workspace, resolve_moment, show, user_path


@command(app, "init")
def init_command(
    demo: Annotated[
        bool,
        typer.Option(
            "--demo",
            help="Install a sample memory (a home-lab agent's two weeks, newest note "
            "today) into a new workspace, to see what memtier does.",
        ),
    ] = False,
) -> int:
    """Create a workspace, or complete one: every missing file and folder, never overwriting.

    Uses --root, else $MEMTIER_ROOT, else the current directory (it does not walk
    up). Prints what it created; a second run creates nothing.
    """
    from memtier.commands.init import init_demo, init_workspace

    chosen = explicit_root()
    folder = Path.cwd() / Path(chosen).expanduser() if chosen else Path.cwd()
    make = init_demo if demo else init_workspace
    return show(make(folder, resolve_moment()))


@command(app, "atomic-write")
def atomic_write_command(
    path: Annotated[
        Path,
        typer.Argument(
            help="File to replace; must resolve inside the workspace. A relative path "
            "starts from the current folder inside the workspace, else from its root.",
            show_default=False,
        ),
    ],
) -> int:
    """Write standard input to PATH atomically (temp file, fsync, rename), secrets redacted."""
    from memtier.commands.atomic_write import atomic_write

    ws = open_workspace()
    return show(atomic_write(ws, user_path(ws.root, path), sys.stdin.buffer.read()))
