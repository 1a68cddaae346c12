"""Fixtures for the tool server: an in-process server on a fixed clock, and a client call.

The SDK is imported inside the fixtures and helpers, never while the suite is
collected: importing it costs about a second of CPU, which every test process
paid before its first test; now only a process that runs a tool-server test pays
it. `NEEDS_SDK` skips a module's tests where the SDK (``memtier[mcp]``) is missing.
"""

from __future__ import annotations

import re
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.conftest import NOW_TEXT

if TYPE_CHECKING:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp_types import CallToolResult

NEEDS_SDK = pytest.mark.skipif(find_spec("mcp") is None, reason="needs memtier[mcp]")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def _one_server() -> tuple[Any, Any]:
    """One in-process server per test process, and the runtime it serves (building
    a server makes the tools' schemas: ~35 ms, which every test paid)."""
    pytest.importorskip("mcp")
    from memtier.mcp.runtime import ToolRuntime
    from memtier.mcp.server import build_server

    runtime = ToolRuntime()
    return runtime, build_server(runtime)


@pytest.fixture
def server(root: Path, _one_server: tuple[Any, Any]) -> Any:
    """The in-process server, serving this test's workspace at the suite's fixed time:
    its runtime is set afresh for each test, as a new one would be made."""
    runtime, built = _one_server
    runtime.root, runtime.now, runtime.cwd = str(root), NOW_TEXT, Path.cwd()
    return built


def text_of(result: CallToolResult) -> str:
    """The answer: its one text block (PROTOCOL §11 v4: no structured copy beside it)."""
    assert result.structured_content is None
    return "\n".join(block.text for block in result.content if block.type == "text")


_HIT = re.compile(r"^(\S+:\d+)  [A-Z]+  score ", re.MULTILINE)


def hits_of(result: CallToolResult) -> list[str]:
    """The ``path:line`` of each result a memory_search answer shows, in order."""
    return _HIT.findall(text_of(result))


def sdk_client(target: Any, **options: Any) -> Client:
    """The SDK's client of *target* (an in-process server or a process's parameters)."""
    from mcp import Client

    return Client(target, **options)


async def call_tool(server: Any, name: str, **arguments: Any) -> CallToolResult:
    async with sdk_client(server, raise_exceptions=True) as client:
        return await client.call_tool(name, arguments)


def stdio_params(root: Path) -> StdioServerParameters:
    """A real `memtier mcp` process on *root*, at the suite's fixed time, for the SDK's
    stdio client."""
    from mcp.client.stdio import StdioServerParameters

    from tests.conftest import memtier_command

    command = memtier_command()
    return StdioServerParameters(
        command=command[0],
        args=[*command[1:], "mcp"],
        env={"MEMTIER_ROOT": str(root), "MEMTIER_NOW": NOW_TEXT, "NO_COLOR": "1"},
        cwd=str(root.parent),
    )
