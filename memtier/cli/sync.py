"""Commands of sync: `sync`, `sync init`, `merge-driver` (PROTOCOL §14).

The face gives the core its environment (git needs PATH, HOME, ssh's agent) and
the command git calls the drivers with; the core never reads either itself.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from memtier.cli import invocation
from memtier.cli._app import app, command, group
from memtier.cli.invocation import explicit_root, resolve_moment, show

sync_app = group(
    "sync", "Share this memory with other machines through git (PROTOCOL §14).", runs_alone=True
)


@sync_app.callback(invoke_without_command=True)
def sync_command(
    ctx: typer.Context,
    no_push: Annotated[
        bool, typer.Option("--no-push", help="Commit and merge here, do not push.")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Say what a sync would do; change nothing.")
    ] = False,
) -> int:
    """Commit, fetch, merge with the memory's own drivers, push (PROTOCOL §14).

    Exit 0 in sync, 1 a conflict or a refusal, 2 usage, 3 the remote could not be
    reached (the work stays committed locally). A conflict never leaves a marker:
    it becomes a block of today's note with an Open: item.
    """
    if ctx.invoked_subcommand is not None:
        return 0
    return invocation.sync(no_push, dry_run)


@command(sync_app, "init")
def sync_init_command(
    remote: Annotated[
        str, typer.Argument(help="The shared repository: a path or any URL git accepts.")
    ],
    branch: Annotated[str, typer.Option("--branch", help="The branch to share.")] = "main",
) -> int:
    """Set up sync: the memory's own repository at memory/.sync/.git/repo, the merge
    drivers, a host id. In a folder that is not yet a workspace, takes the remote's
    memory as it is (a second host's set-up is this one command)."""
    from memtier.commands.sync.setup import default_prefix, init_sync
    from memtier.workspace import Workspace

    moment = resolve_moment()
    root = Path(explicit_root() or Path.cwd()).expanduser().absolute()
    report = init_sync(
        root,
        remote,
        env=dict(os.environ),
        driver_prefix=default_prefix(sys.executable),
        branch=branch,
        ws_factory=lambda r: Workspace.open(r, moment),
    )
    return show(report)


@command(app, "merge-driver")
def merge_driver_command(
    kind: Annotated[str, typer.Argument(help="note, fact, lines, index, text or generation.")],
    base: Annotated[str, typer.Argument(help="%O: the common ancestor's version.")],
    ours: Annotated[str, typer.Argument(help="%A: ours; the result is written here.")],
    theirs: Annotated[str, typer.Argument(help="%B: theirs.")],
    path: Annotated[str, typer.Argument(help="%P: the file's path in the repository.")] = "",
) -> int:
    """The merge driver git calls (set by sync init); never leaves a conflict marker."""
    from memtier.cli import invocation

    return invocation.merge_driver(kind, base, ours, theirs, path)
