"""Tool errors carry the CLI's one-line message and the fixing call, never a traceback (§11)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from memtier.mcp.runtime import error_line
from tests.mcp.conftest import call_tool, text_of

pytestmark = pytest.mark.anyio


async def test_input_error_is_the_cli_line(server: Any) -> None:
    result = await call_tool(server, "memory_search", query="")
    assert result.is_error
    assert text_of(result) == "memtier: error: nothing to search for in '' (no words)"


async def test_refusal_names_the_tool_that_fixes_it(server: Any, root: Path) -> None:
    (root / "memory/working-buffer.md.lock").write_text("")
    result = await call_tool(server, "memory_rotate")
    assert result.is_error
    first, hint = text_of(result).split("\n")
    assert first.startswith("memtier: error: ")
    assert hint == "fix: call memory_session_start"


async def test_error_never_echoes_a_secret(server: Any) -> None:
    secret = "sk-ant-api03-" + "b" * 40
    result = await call_tool(server, "memory_task", action="done", task=f"unknown {secret}")
    assert result.is_error
    assert secret not in text_of(result)


async def test_confinement_holds_for_tools(server: Any, root: Path) -> None:
    outside = root.parent / "outside.md"
    outside.write_text("private\n")
    (root / "memory/semantic/link.md").symlink_to(outside)
    for args in ({"path": "../outside.md"}, {"path": "memory/semantic/link.md"}):
        result = await call_tool(server, "memory_get", **args)
        assert result.is_error
        assert "private" not in text_of(result)
    result = await call_tool(server, "memory_remember", text="a b c", file="../outside.md")
    assert result.is_error
    assert outside.read_text() == "private\n"


async def test_a_bug_is_one_line_without_traceback(
    server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memtier.commands.stats

    def broken(ws: object) -> None:
        raise RuntimeError("secret internals /home/x")

    monkeypatch.setattr(memtier.commands.stats, "collect_stats", broken)
    result = await call_tool(server, "memory_overview")
    assert result.is_error
    text = text_of(result)
    assert "internal error in memory_overview (RuntimeError)" in text
    assert "Traceback" not in text and "secret internals" not in text


async def test_budget_below_the_minimum_is_refused(server: Any) -> None:
    result = await call_tool(server, "memory_session_start", max_chars=10)
    assert result.is_error


async def test_no_workspace_says_how_to_make_one(tmp_path: Path) -> None:
    from memtier.mcp.runtime import ToolRuntime
    from memtier.mcp.server import build_server

    server = build_server(ToolRuntime(cwd=tmp_path))
    result = await call_tool(server, "memory_session_start")
    assert result.is_error
    assert text_of(result).startswith("memtier: error: workspace root not found")


def test_error_line_maps_cli_commands_to_tools() -> None:
    line = error_line("buffer is stale: run memtier session-start first")
    assert line.endswith("\nfix: call memory_session_start")
    assert error_line("no such file").count("\n") == 0
