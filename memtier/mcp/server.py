"""The tool server: instructions, the SKILL.md resource, every tool, the transports (§11).

Imported only by ``memtier mcp`` (and tests): this module pulls in the SDK.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from memtier import __version__
from memtier.mcp import tools_facts, tools_recall, tools_session, tools_sync, tools_topics
from memtier.mcp.runtime import ToolRuntime

SKILL_URI = "memtier://skill"
# Streamable HTTP listens on the loopback interface only: the memory is one
# person's, and the server has no authentication (PROTOCOL §11).
HTTP_HOST = "127.0.0.1"
DEFAULT_HTTP_PORT = 8765

INSTRUCTIONS = """\
memtier is your durable memory: plain markdown files, written only through these tools.
- Start every session with memory_session_start and read what it returns (the Open: items of \
the last session say what was left).
- Write to the buffer before you answer: memory_task for what you are doing, memory_note for \
what you found or decided. A crash loses nothing that is written.
- One home per fact: memory_search first; memory_remember a new fact, memory_replace a wrong \
one where it stands, memory_retire one that no longer holds. Never keep two copies.
- Close the day: memory_session_end, then memory_close_day (decisions, signal, open).
- When memory_health reports a failure, fix it before trusting memory. The skill \
(resource memtier://skill) has the whole protocol."""


def build_server(runtime: ToolRuntime | None = None) -> MCPServer:
    """A server whose every tool works on the workspace *runtime* finds."""
    rt = runtime or ToolRuntime()
    server: MCPServer = MCPServer(
        name="memtier",
        title="memtier memory",
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
    )

    @server.resource(
        SKILL_URI,
        name="memtier-skill",
        title="How to keep memory with memtier (SKILL.md)",
        description="The memory protocol an agent follows: when to write, where, how to close.",
        mime_type="text/markdown",
    )
    def skill() -> str:
        from memtier.commands.skill import skill_text

        return skill_text()

    del skill
    for module in (tools_session, tools_recall, tools_facts, tools_topics, tools_sync):
        module.register(server, rt)
    return server


def serve(runtime: ToolRuntime, *, http: bool = False, port: int = DEFAULT_HTTP_PORT) -> None:
    server = build_server(runtime)
    if http:
        server.run("streamable-http", host=HTTP_HOST, port=port)
    else:
        server.run("stdio")
