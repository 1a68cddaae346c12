"""How one tool call runs: open the workspace, call the core, turn the outcome into a result.

A tool's body is a function of the `Workspace` returning an output model;
`ToolRuntime.call` gives it a workspace opened for this call (the clock read
now, the configuration read now), and turns a `MemtierError` into a tool error
carrying the CLI's one-line message and, where there is one, the call that
fixes it (PROTOCOL §11). Any other exception is a bug: the client gets one line
saying so and never a traceback.

The SDK runs each synchronous tool on a worker thread, so calls may overlap.
They need nothing of their own for that: the workspace lock
(`memtier.store.workspace_lock`) is re-entrant per thread, so a writer on one
thread waits for a writer on another as it waits for another process, and
readers read as they do beside the CLI (atomic replaces, no torn reads).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mcp_types import CallToolResult, TextContent

from memtier.mcp.shaping import tool_hint

if TYPE_CHECKING:
    from pydantic import BaseModel

    from memtier.workspace import Workspace


@dataclass
class ToolRuntime:
    """Where the server's workspace is and what time to use (``--root``/``--now`` or the env)."""

    root: str | None = None
    now: str | None = None
    cwd: Path = field(default_factory=Path.cwd)

    def workspace(self) -> Workspace:
        from memtier.clock import resolve_now
        from memtier.workspace import Workspace, resolve_root

        moment = resolve_now(self.now, os.environ.get("MEMTIER_NOW"))
        explicit = self.root or os.environ.get("MEMTIER_ROOT") or None
        return Workspace.open(resolve_root(explicit, self.cwd), moment)

    def resolve(self, ws: Workspace, given: str) -> Path:
        """A path a tool was given: relative ones are read from the workspace root."""
        path = Path(given).expanduser()
        return path if path.is_absolute() else ws.root / path

    def call(self, name: str, body: Callable[[Workspace], BaseModel]) -> CallToolResult:
        from memtier.errors import MemtierError

        try:
            output = body(self.workspace())
        except MemtierError as exc:
            return error_result(exc.message)
        except Exception as exc:  # a bug: one line, no traceback, to the client
            sys.stderr.write(f"memtier mcp: {name} failed: {type(exc).__name__}\n")
            return error_result(
                f"internal error in {name} ({type(exc).__name__}); this is a bug in "
                "memtier, please report it"
            )
        from memtier.render import escape_controls

        structured = output.model_dump(mode="json")
        # The text the model reads, escaped as the CLI prints it (control and bidi
        # characters); the structured content keeps the data as it is.
        return CallToolResult(
            content=[TextContent(type="text", text=escape_controls(structured["text"]))],
            structured_content=structured,
        )


def error_line(message: str) -> str:
    """The CLI's error line for *message*, redacted (PROTOCOL §3), then the fixing call."""
    from memtier.render import escape_controls
    from memtier.secrets import redact

    line = f"memtier: error: {escape_controls(redact(message).text)}"
    hint = tool_hint(message)
    return f"{line}\n{hint}" if hint else line


def error_result(message: str) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=error_line(message))], is_error=True
    )
