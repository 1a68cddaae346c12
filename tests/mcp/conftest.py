"""Fixtures for the tool server: an in-process server on a fixed clock, and a client call."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import Client  # noqa: E402
from mcp_types import CallToolResult  # noqa: E402

from memtier.mcp.runtime import ToolRuntime  # noqa: E402
from memtier.mcp.server import build_server  # noqa: E402
from tests.conftest import NOW_TEXT  # noqa: E402

Call = Callable[..., Awaitable[CallToolResult]]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def server(root: Path) -> Any:
    return build_server(ToolRuntime(root=str(root), now=NOW_TEXT))


def text_of(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


async def call_tool(server: Any, name: str, **arguments: Any) -> CallToolResult:
    async with Client(server, raise_exceptions=True) as client:
        return await client.call_tool(name, arguments)
