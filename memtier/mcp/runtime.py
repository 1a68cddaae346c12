"""How one tool call runs: open the workspace, call the core, bound and word the outcome.

A tool's body is a function of the `Workspace` returning the text of its answer;
`ToolRuntime.call` gives it a workspace opened for this call (the clock read
now; the configuration and other parsed state kept by `WarmState` while the
files they came from are unchanged), bounds the answer (PROTOCOL §11 v4: one
text block, no structured copy, within the budget plus `ENVELOPE`), and turns a
`MemtierError` into a tool error worded in tool terms (`memtier.mcp.words`).
Any other exception is a bug: the client gets one line saying so, never a
traceback.

The SDK runs each synchronous tool on a worker thread, so calls may overlap.
They need nothing of their own for that: the workspace lock
(`memtier.store.workspace_lock`) is re-entrant per thread, so a writer on one
thread waits for a writer on another as it waits for another process, and
readers read as they do beside the CLI (atomic replaces, no torn reads).
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

from mcp_types import CallToolResult, TextContent

from memtier.mcp.shaping import ENVELOPE, WRITE_MAX_CHARS

if TYPE_CHECKING:
    from mcp.server.mcpserver import Context

    from memtier.errors import MemtierError
    from memtier.surface import Surface
    from memtier.workspace import Workspace


@dataclass
class ToolRuntime:
    """Where the server's workspace is and what time to use (``--root``/``--now`` or the env)."""

    root: str | None = None
    now: str | None = None
    cwd: Path = field(default_factory=Path.cwd)

    def surface(self) -> Surface:
        """The adapter both faces open the workspace through (`memtier.surface`):
        the server's --root and --now, its working folder, the environment now."""
        from memtier.surface import Surface

        return Surface.of_process(self.root, self.now, self.cwd)

    def workspace(self) -> Workspace:
        return self.surface().workspace()

    def resolve(self, ws: Workspace, given: str) -> Path:
        """A path a tool was given: relative ones are read from the workspace root."""
        from memtier.surface import given_path

        return given_path(ws.root, given)

    def call(
        self,
        name: str,
        body: Callable[[Workspace], str],
        budget: int = WRITE_MAX_CHARS,
        face: Surface | None = None,
    ) -> CallToolResult:
        """Run a tool's *body* on the workspace *face* opens (one surface per call: a
        tool that built its request from the surface passes that one)."""
        from memtier.errors import MemtierError

        try:
            text = body((face or self.surface()).workspace())
        except MemtierError as exc:
            return error_result(exc)
        except Exception as exc:  # a bug: one line, no traceback, to the client
            sys.stderr.write(f"memtier mcp: {name} failed: {type(exc).__name__}\n")
            return error_result(
                f"internal error in {name} ({type(exc).__name__}); this is a bug in "
                "memtier, please report it"
            )
        from memtier.render import escape_controls

        # One channel (PROTOCOL §11 v4): the text block, escaped as the CLI prints it
        # (control and bidi characters); no structured content, which some clients
        # pass on instead of the text and others beside it (docs/DECISIONS.md).
        return CallToolResult(
            content=[TextContent(type="text", text=fit_text(escape_controls(text), budget))]
        )


def runtime_of(ctx: Context) -> ToolRuntime:
    """The runtime of the server a call came to: what its lifespan gave
    (`memtier.mcp.server.build_server`), so the tools are plain functions of the
    module, shared by every server of a process."""
    return cast("ToolRuntime", ctx.request_context.lifespan_context)


@asynccontextmanager
async def serving(runtime: ToolRuntime) -> AsyncIterator[ToolRuntime]:
    """A server's lifespan: *runtime*, for as long as the server runs."""
    yield runtime


CUT_MARK = " …[cut to fit the budget]"


def fit_text(text: str, budget: int) -> str:
    """*text* within *budget* + `ENVELOPE` characters (§11 v4), the cut said.

    The tools cut their text at a line boundary within the budget; this is the
    last guard for what they cannot foresee (escaping that lengthens a line).
    """
    limit = budget + ENVELOPE
    if len(text) <= limit:
        return text
    return text[: limit - len(CUT_MARK)].rstrip() + CUT_MARK


def error_line(error: MemtierError | str) -> str:
    """The error line in tool terms, redacted (PROTOCOL §3), then the fixing call."""
    from memtier.mcp.shaping import tool_hint
    from memtier.mcp.words import fixing_call, tool_message
    from memtier.render import escape_controls
    from memtier.surface import error_line as one_line

    # One redaction and one line for both faces (memtier.surface), then escaped as
    # the CLI prints it.
    message = one_line(error if isinstance(error, str) else tool_message(error))
    if len(message) > 1000:  # an error is a line, whatever the input held
        message = message[:1000] + "…"
    line = f"memtier: error: {escape_controls(message)}"
    call = None if isinstance(error, str) else fixing_call(error)
    hint = f"fix: call {call}" if call else tool_hint(message)
    return f"{line}\n{hint}" if hint else line


def error_result(error: MemtierError | str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=error_line(error))], is_error=True)
