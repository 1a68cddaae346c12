"""`memtier mcp`: the memory served to agents over the Model Context Protocol (PROTOCOL §11).

Every tool calls the same core function as the matching CLI command, so the
workspace lock, atomic replace, redaction and confinement hold for both. The
SDK (the optional extra ``memtier[mcp]``) takes seconds to import: only
`memtier.mcp.server` and the modules it loads import it, and only the
``memtier mcp`` command imports that.
"""

from __future__ import annotations

INSTALL_HINT = (
    "memtier mcp needs the MCP SDK: pip install 'memtier[mcp]' "
    "(or run: uvx --from 'memtier[mcp]' memtier mcp)"
)
