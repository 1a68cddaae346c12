"""The tool server: instructions, the SKILL.md resource, every tool, the transports (§11).

Imported only by ``memtier mcp`` (and tests): this module pulls in the SDK.
"""

from __future__ import annotations

import socket
import sys
from typing import Any

from mcp.server.mcpserver import MCPServer

from memtier import __version__
from memtier.mcp import tools_facts, tools_recall, tools_session, tools_sync, tools_topics
from memtier.mcp.arguments import ArgumentGuard
from memtier.mcp.frames import refuse_frames
from memtier.mcp.listen import HTTP_HOST
from memtier.mcp.runtime import ToolRuntime, error_result, serving

SKILL_URI = "memtier://skill"

INSTRUCTIONS = """\
memtier is your durable memory (plain markdown files). Start every session with \
memory_session_start. Before you answer, write what you do and find: memory_task, memory_note. \
One home per fact: memory_search first, then memory_remember, memory_replace or memory_retire. \
End with memory_session_end, then memory_close_day. Fix the integrity failures \
memory_health reports; a stale WARM file is verified when you use it. \
The whole protocol: resource memtier://skill."""


def build_server(runtime: ToolRuntime | None = None) -> MCPServer:
    """A server whose every tool works on the workspace *runtime* finds."""
    rt = runtime or ToolRuntime()
    tools = [
        *tools_session.tools(),
        *tools_recall.tools(),
        *tools_facts.tools(),
        *tools_topics.tools(),
        *tools_sync.tools(),
    ]
    server: MCPServer = MCPServer(
        name="memtier",
        lifespan=lambda _server: serving(rt),  # each tool reads it (`runtime_of`)
        title="memtier memory",
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
        tools=tools,
        middleware=[refuse_frames, ArgumentGuard(tools, error_result)],
    )

    @server.resource(
        SKILL_URI,
        name="memtier-skill",
        description="The memory protocol an agent follows (SKILL.md).",
        mime_type="text/markdown",
    )
    def skill() -> str:
        from memtier.commands.skill import skill_text

        return skill_text()

    del skill
    # No prompts: the SDK serves prompts/list whatever the server holds, and so
    # advertises the capability; a capability that lists nothing is not offered
    # (PROTOCOL §11 v4).
    handlers = server._lowlevel_server._request_handlers
    for method in ("prompts/list", "prompts/get"):
        handlers.pop(method, None)
    return server


def serve(runtime: ToolRuntime, *, sock: socket.socket | None = None) -> None:
    """Serve *runtime*'s workspace: on stdio, or over streamable HTTP on *sock*
    (bound by `memtier.mcp.listen.bind_loopback` before this module was imported)."""
    import anyio

    server = build_server(runtime)
    if sock is not None:
        # Where to point a client, on stderr (PROTOCOL §11 v4); the port bound, not
        # the one asked for, is the truth.
        bound = sock.getsockname()[1]
        sys.stderr.write(f"memtier mcp: serving http://{HTTP_HOST}:{bound}/mcp (loopback only)\n")
        sys.stderr.flush()
        anyio.run(_serve_http, server, sock)
    else:
        anyio.run(_serve_stdio, server)


async def _serve_stdio(server: MCPServer) -> None:
    """The SDK's stdio transport, its input read through the frame guard (`frames`)."""
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage

    from memtier.mcp.frames import GuardedLines, null_id_error

    guard = GuardedLines(sys.stdin.buffer)
    lines: Any = guard
    lowlevel = server._lowlevel_server  # what MCPServer.run_stdio_async runs
    async with stdio_server(stdin=lines) as (read_stream, write_stream):

        async def answer(reason: str) -> None:
            await write_stream.send(SessionMessage(null_id_error(reason)))

        # Set before the reader task first runs (it starts at the next checkpoint).
        guard.answer = answer
        options = lowlevel.create_initialization_options()
        await lowlevel.run(read_stream, _Answers(write_stream, guard), options)


class _Answers:
    """The transport's output, telling the frame guard of each answer it sends, so the
    end of the input waits for the answers still owed (`frames.GuardedLines`)."""

    def __init__(self, stream: Any, guard: Any) -> None:
        self._stream = stream
        self._guard = guard

    async def send(self, item: Any) -> None:
        await self._stream.send(item)
        message = getattr(item, "message", None)
        if getattr(message, "result", None) is not None or hasattr(message, "error"):
            self._guard.answered(getattr(message, "id", None))

    async def __aenter__(self) -> _Answers:
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stream.__aexit__(*exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


async def _serve_http(server: MCPServer, sock: socket.socket) -> None:
    import uvicorn

    app = server.streamable_http_app(host=HTTP_HOST)
    config = uvicorn.Config(app, log_level="warning")
    await uvicorn.Server(config).serve(sockets=[sock])
