"""The tool server's `memory_sync` (PROTOCOL §11, §14): one sync round through git."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Annotated

from mcp_types import CallToolResult
from pydantic import Field

from memtier.mcp.hints import writes
from memtier.mcp.models import ToolOutput
from memtier.mcp.runtime import ToolRuntime

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from memtier.workspace import Workspace


def register(server: MCPServer, rt: ToolRuntime) -> None:
    def memory_sync(
        push: Annotated[bool, Field(description="false: commit and merge here only.")] = True,
    ) -> Annotated[CallToolResult, ToolOutput]:
        """Share memory with the other machines: commit, merge theirs, push (git).

        A conflict never blocks: it becomes a block and an Open: item in today's note."""

        def body(ws: Workspace) -> ToolOutput:
            from memtier.commands.sync import run_sync

            report = run_sync(ws, dict(os.environ), push=push)
            data = report.to_json()
            text = report.message
            if report.failure is not None and report.failure.message != text:
                text = f"{text}\n{report.failure.message}".strip()
            data.pop("text", None)
            return ToolOutput(text=text, data=data)

        return rt.call("memory_sync", body)

    server.add_tool(memory_sync, name="memory_sync", annotations=writes("Sync memory"))
