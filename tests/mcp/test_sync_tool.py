"""`memory_sync` through the SDK's client (PROTOCOL §11, §14)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.mcp.conftest import NEEDS_SDK, call_tool, text_of
from tests.sync_support import hosts, ok

pytestmark = [
    pytest.mark.anyio,
    NEEDS_SDK,
    pytest.mark.skipif(__import__("shutil").which("git") is None, reason="needs git"),
]


async def test_sync_before_set_up_is_a_tool_error_in_tool_terms(server: Any) -> None:
    result = await call_tool(server, "memory_sync")
    assert result.is_error
    assert "sync is not set up" in text_of(result)


async def test_memory_sync_shares_a_fact_with_the_other_host(tmp_path: Path) -> None:
    from memtier.mcp.runtime import ToolRuntime
    from memtier.mcp.server import build_server

    _remote, (a, b) = hosts(tmp_path, 2)
    ok(a, "remember", "the build server is ci01 in rack 4", "--kind", "infrastructure")
    server = build_server(ToolRuntime(root=str(a), now="2026-12-01T09:00:00+01:00"))
    result = await call_tool(server, "memory_sync")
    assert not result.is_error, text_of(result)
    assert "in sync" in text_of(result)
    ok(b, "sync")
    assert "ci01 in rack 4" in (b / "memory/semantic/infrastructure.md").read_text()
