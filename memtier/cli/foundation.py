"""Commands of the foundation: `init` and `atomic-write`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from memtier.cli._app import (
    JsonOption,
    NowOption,
    RootOption,
    app,
    global_options,
    open_workspace,
    resolve_moment,
    show,
    user_path,
)


@app.command("init")
def init_command(
    ctx: typer.Context,
    root: RootOption = None,
    now: NowOption = None,
    demo: Annotated[
        bool,
        typer.Option(
            "--demo",
            help="Install a sample memory (a home-lab agent's two weeks, newest note "
            "today) into a new workspace, to see what memtier does.",
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Create a workspace, or complete one: every missing file and folder, never overwriting.

    Uses --root or the current directory (it does not walk up, and it ignores
    $MEMTIER_ROOT). Prints what it created; a second run creates nothing.
    """
    from memtier.commands.init import init_demo, init_workspace

    chosen = root or global_options(ctx).root
    folder = Path.cwd() / Path(chosen).expanduser() if chosen else Path.cwd()
    make = init_demo if demo else init_workspace
    show(make(folder, resolve_moment(ctx, now)), as_json)


@app.command("atomic-write")
def atomic_write_command(
    ctx: typer.Context,
    path: Annotated[
        Path,
        typer.Argument(
            help="File to replace; must resolve inside the workspace. A relative path "
            "starts from the current folder inside the workspace, else from its root."
        ),
    ],
    root: RootOption = None,
    now: NowOption = None,
    as_json: JsonOption = False,
) -> None:
    """Write standard input to PATH atomically (temp file, fsync, rename), secrets redacted."""
    from memtier.commands.atomic_write import atomic_write
    from memtier.render import notice

    ws = open_workspace(ctx, root, now)
    result = atomic_write(ws, user_path(ws.root, path), sys.stdin.buffer.read())
    for rule, count in sorted(result.redacted.items()):
        notice(f"redacted {count} secret(s): {rule}")
    show(result, as_json)
