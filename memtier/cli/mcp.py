"""`memtier mcp` (the tool server, PROTOCOL §11) and `memtier skill` (the agent's SKILL.md).

The MCP SDK is imported inside `mcp_command` only, after checking that it is
installed: the CLI's start-up never loads it (a test checks ``sys.modules``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memtier.cli._app import app, command
from memtier.cli.invocation import explicit_root, invocation, show


@command(app, "mcp")
def mcp_command(
    http: Annotated[
        bool,
        typer.Option(
            "--http",
            help="Serve streamable HTTP on 127.0.0.1 (loopback only) instead of stdio.",
        ),
    ] = False,
    port: Annotated[int, typer.Option("--port", help="Port for --http.", min=1, max=65535)] = 8765,
) -> int:
    """Serve the memory to agents over the Model Context Protocol (stdio by default).

    Every tool (memory_session_start, memory_search, memory_note, memory_remember,
    ...) calls the same core as the CLI, under the same lock, with the same
    redaction and confinement. Needs the optional extra: pip install 'memtier[mcp]'.
    """
    import importlib.util

    from memtier.errors import InputError
    from memtier.mcp import INSTALL_HINT
    from memtier.mcp.listen import bind_loopback

    if importlib.util.find_spec("mcp") is None:
        raise InputError(INSTALL_HINT)
    # A taken port is said before the SDK's second of imports (`memtier.mcp.listen`).
    sock = bind_loopback(port) if http else None
    from memtier.mcp.runtime import ToolRuntime
    from memtier.mcp.server import serve

    runtime = ToolRuntime(root=explicit_root(), now=invocation().now)
    _warn_without_workspace(runtime)
    serve(runtime, sock=sock)
    return 0


def _warn_without_workspace(runtime: object) -> None:
    """Say on stderr (stdout is the protocol's) when no workspace is found yet; the
    server still starts, and each tool answers with the error and its fix."""
    from memtier.errors import MemtierError
    from memtier.mcp.runtime import ToolRuntime
    from memtier.render import warn

    assert isinstance(runtime, ToolRuntime)
    try:
        runtime.workspace()
    except MemtierError as exc:
        warn(f"{exc.message}; tools will fail until it exists (memtier init, or MEMTIER_ROOT)")


@command(app, "skill")
def skill_command(
    install: Annotated[
        Path | None,
        typer.Option(
            "--install",
            help="Write DIR/memtier/SKILL.md (an agent's skills folder) instead of printing.",
            show_default=False,
            metavar="DIR",
        ),
    ] = None,
) -> int:
    """Print the agent's instructions for memtier (SKILL.md), or install them.

    --install DIR writes DIR/memtier/SKILL.md with its front matter (name,
    description), e.g. memtier skill --install ~/.claude/skills.
    """
    from memtier.commands.skill import install_skill, show_skill

    result = show_skill() if install is None else install_skill(install.expanduser())
    return show(result)
