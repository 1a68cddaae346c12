"""The tool server's `memory_sync` (PROTOCOL §11, §14): one sync round through git."""

from __future__ import annotations

import os
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from memtier.mcp.runtime import runtime_of
from memtier.mcp.toolkit import tool, writes

if TYPE_CHECKING:
    from memtier.workspace import Workspace


def memory_sync(
    push: Annotated[bool, Field(description="false: commit and merge here only.")] = True,
    *,
    ctx: Context,
) -> CallToolResult:
    """Share memory with your other machines through git: commit, merge theirs, push; a
    conflict becomes an Open: item in today's note."""
    rt = runtime_of(ctx)

    def body(ws: Workspace) -> str:
        from memtier.commands.sync.run import run_sync

        report = run_sync(ws, dict(os.environ), push=push)
        text = report.message
        if report.failure is not None and report.failure.message != text:
            text = f"{text}\n{report.failure.message}".strip()
        return text

    return rt.call("memory_sync", body)


@cache
def tools() -> list[Any]:
    """This family's tools for the SDK, built once per process."""
    # It reaches a remote: fetches from it and pushes to it (§11 v4, §14).
    return [tool(memory_sync, "Sync with your other machines", writes(open_world=True))]
