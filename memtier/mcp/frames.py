"""A guard in front of the SDK's parsing of stdio frames (PROTOCOL §11 v3).

The SDK's stdio transport parses each line as a JSON-RPC message and, when that
fails, drops it: a request nested 100,000 deep, holding a 5,000-digit integer,
or larger than memory should hold, is never answered and the client waits
forever. The guard reads the lines first (at most `MAX_FRAME` bytes each), and
puts in place of a frame the parser would drop a small request for the method
`REFUSED`, carrying the frame's id; `refuse_frames` (a server middleware)
answers it with a JSON-RPC error. A frame whose id cannot be read or is no id
MCP allows (none, ``1.5``, ``true``, the oversized number itself) is answered
with the error and ``"id": null``, as JSON-RPC 2.0 says for a request whose id
cannot be told (PROTOCOL §11 v4: a request the server cannot answer gets an
error answer, never silence).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, BinaryIO

# How the guard answers a frame that names no id it can answer to: the reason, sent
# as a JSON-RPC error with a null id (`memtier.mcp.server` gives the transport's).
Answer = Callable[[str], Awaitable[None]]

# The HTTP transport's bound on a request body, for stdio frames too.
MAX_FRAME = 4 * 1024 * 1024
REFUSED = "memtier/refused-frame"
_ID = re.compile(rb'"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,18})\s*[,}]')


def _id_at(frame: bytes) -> int | None:
    """Where the frame's top-level ``"id"`` key starts, found without parsing it."""
    depth, in_string, escaped = 0, False, False
    for index, byte in enumerate(frame[:65536]):
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:
                escaped = True
            elif byte == 0x22:
                in_string = False
            continue
        if byte == 0x22:
            if depth == 1 and frame.startswith(b'"id"', index):
                return index
            in_string = True
        elif byte in b"[{":
            depth += 1
        elif byte in b"]}":
            depth -= 1
    return None


def _frame_id(frame: bytes) -> str | int | None:
    """The top-level ``"id"`` of a frame the parser refused, read without parsing it."""
    index = _id_at(frame)
    found = None if index is None else _ID.match(frame, index)
    if found is None:
        return None
    value = json.loads(found.group(1))
    return value if isinstance(value, str | int) else None


def _why(exc: Exception, frame: bytes = b"") -> str:
    text = str(exc)
    try:
        message = json.loads(frame)
    except (ValueError, RecursionError):
        message = None
    if isinstance(message, dict) and "id" in message:
        value = message["id"]
        if isinstance(value, bool) or not isinstance(value, str | int):
            return "its id is not a string or an integer"
    if "recursion limit" in text:
        return "it is nested deeper than the parser allows"
    if "number out of range" in text:
        return "it holds a number too large to read"
    return "it is not a valid JSON-RPC message"


def refusal(frame_id: str | int, reason: str) -> str:
    message = {"jsonrpc": "2.0", "id": frame_id, "method": REFUSED, "params": {"reason": reason}}
    return json.dumps(message) + "\n"


# How long the end of the input waits for the answers still owed (a tool call in
# progress), at most: a client that closes its side after its last request still
# reads every answer (PROTOCOL §11 v4: never silence).
EOF_GRACE_SECONDS = 60.0


class GuardedLines:
    """The lines of a binary stream, as the SDK's stdio transport iterates them.

    It also keeps the ids of the requests it passed on until `answered` hears of
    their answer: at the end of the input it waits for them (`EOF_GRACE_SECONDS` at
    most), since the SDK stops the handlers still running once its input ends."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self.answer: Answer | None = None  # set once the transport's output is open
        self._owed: set[str | int] = set()
        self._settled: Any = None  # an anyio.Event while the end of input waits

    def answered(self, request_id: object) -> None:
        """A response or error for *request_id* has been sent."""
        if isinstance(request_id, str | int):
            self._owed.discard(request_id)
        if not self._owed and self._settled is not None:
            self._settled.set()

    async def _until_answered(self) -> None:
        import anyio

        if not self._owed:
            return
        self._settled = anyio.Event()
        with anyio.move_on_after(EOF_GRACE_SECONDS):
            await self._settled.wait()

    async def _readline(self, most: int) -> bytes:
        import anyio

        read = self._stream.readline
        return await anyio.to_thread.run_sync(read, most, abandon_on_cancel=True)

    async def _drain(self) -> None:
        while True:
            rest = await self._readline(MAX_FRAME)
            if not rest or rest.endswith(b"\n"):
                return

    async def __aiter__(self) -> AsyncIterator[str]:
        import mcp_types as types

        while True:
            frame = await self._readline(MAX_FRAME + 1)
            if not frame:
                await self._until_answered()
                return
            if len(frame) > MAX_FRAME and not frame.endswith(b"\n"):
                await self._drain()
                frame_id = _frame_id(frame)
                reason = f"it is larger than {MAX_FRAME} bytes"
                if frame_id is not None:
                    self._owed.add(frame_id)
                    yield refusal(frame_id, reason)
                elif self.answer is not None:
                    await self.answer(reason)
                continue
            line = frame.decode("utf-8", errors="replace")
            if not line.strip():
                continue
            try:
                message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            except Exception as exc:
                frame_id = _frame_id(frame)
                if frame_id is not None:
                    self._owed.add(frame_id)
                    yield refusal(frame_id, _why(exc))
                    continue
                if self.answer is not None:
                    await self.answer(_why(exc, frame))
                    continue
            else:
                # An id MCP does not allow (1.5, true, null) makes the parser read a
                # request as a notification, never answered: the client would wait.
                unanswered = isinstance(message, types.JSONRPCNotification)
                if unanswered and self.answer is not None and _id_at(frame) is not None:
                    await self.answer("its id is not a string or an integer")
                    continue
                if isinstance(message, types.JSONRPCRequest):
                    self._owed.add(message.id)
            yield line


def null_id_error(reason: str) -> Any:
    """The JSON-RPC error for a frame no id can be read from (its ``id`` null)."""
    from mcp_types import INVALID_REQUEST, ErrorData, JSONRPCError

    message = f"memtier: error: request refused: {reason}"
    return JSONRPCError(
        jsonrpc="2.0", id=None, error=ErrorData(code=INVALID_REQUEST, message=message)
    )


async def refuse_frames(ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
    """Server middleware: the JSON-RPC error for a frame the guard refused."""
    if ctx.method != REFUSED:
        return await call_next(ctx)
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_REQUEST

    reason = str((ctx.params or {}).get("reason", "it cannot be read"))
    raise MCPError(code=INVALID_REQUEST, message=f"memtier: error: request refused: {reason}")
