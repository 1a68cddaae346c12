"""Tool errors carry the CLI's one-line message and the fixing call, never a traceback (§11)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.mcp.conftest import NEEDS_SDK, call_tool, text_of

pytestmark = [pytest.mark.anyio, NEEDS_SDK]


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
    from memtier.mcp.runtime import error_line

    line = error_line("buffer is stale: run memtier session-start first")
    assert line.endswith("\nfix: call memory_session_start")
    assert error_line("no such file").count("\n") == 0


# PROTOCOL §11 v3: errors speak in tool terms, never CLI flags or shell commands.
TOOL_TERM_CASES: list[tuple[str, dict[str, Any], str]] = [
    ("memory_remember", {"text": "a b c", "kind": "nonsense"}, "kind nonsense: unknown kind"),
    ("memory_remember", {"text": "a b c", "kind": "hot", "file": "MEMORY.md"}, "give kind or file"),
    ("memory_note", {"text": "x", "to": "today", "date": "2026-02-30"}, "date: not a calendar"),
    ("memory_get", {"path": "MEMORY.md", "date": "2026-11-30"}, "give path or date, not both"),
    ("memory_get", {}, "get: path is empty"),
    ("memory_verify", {}, "or give stale=true"),
    ("memory_retire", {"old": "x", "file": "memory/semantic/nope.md", "reason": "r"}, "file "),
    ("memory_promote", {"lesson": "x", "file": "notes.md"}, "(see memory_overview)"),
]


@pytest.mark.parametrize(("tool", "arguments", "expected"), TOOL_TERM_CASES)
async def test_errors_name_parameters_not_flags(
    server: Any, tool: str, arguments: dict[str, Any], expected: str
) -> None:
    result = await call_tool(server, tool, **arguments)
    assert result.is_error
    text = text_of(result)
    assert expected in text, text
    assert "--" not in text and "memtier " not in text.removeprefix("memtier: error: "), text


async def test_a_duplicate_names_the_tool_that_corrects_it(server: Any) -> None:
    first = await call_tool(server, "memory_remember", text="nas01 runs zfs", kind="hot")
    assert not first.is_error, text_of(first)
    again = await call_tool(server, "memory_remember", text="nas01 runs zfs", kind="hot")
    text = text_of(again)
    assert "memory_replace(old, new, file='MEMORY.md')" in text and "--in" not in text


async def test_the_vocabulary_is_the_persons_to_change(server: Any) -> None:
    result = await call_tool(
        server, "memory_remember", text="a b c", kind="howto:zfs", tags=["no-such-tag"]
    )
    text = text_of(result)
    assert "tags: not in the vocabulary: no-such-tag" in text
    assert "by the person, not by a tool" in text and "tags --add" not in text


async def test_the_same_errors_keep_their_cli_words(cli: Any, root: Path) -> None:
    result = cli("--root", str(root), "remember", "a b c", "--kind", "nonsense")
    assert result.exit_code == 2
    assert "--kind nonsense: unknown kind" in result.stderr
    result = cli("--root", str(root), "verify")
    assert "give --stale" in result.stderr


async def test_search_is_read_only_in_fact(server: Any, root: Path, snapshot: Any) -> None:
    before = snapshot(root)
    for query in ("quokka", "memory"):
        assert not (await call_tool(server, "memory_search", query=query)).is_error
    assert snapshot(root) == before


def test_memtier_rg_chooses_the_scanner_of_the_tool_server_too(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One adapter for both faces (memtier.surface): $MEMTIER_RG=none is the built-in
    scanner for memory_search as for `memtier search`."""
    from memtier.mcp import tools_recall
    from memtier.mcp.runtime import ToolRuntime

    seen: list[str | None] = []
    real = tools_recall.search_warm

    def spy(ws: Any, request: Any) -> Any:
        seen.append(request.rg)
        return real(ws, request)

    monkeypatch.setattr(tools_recall, "search_warm", spy)
    monkeypatch.setenv("MEMTIER_RG", "none")
    # A call as the server makes it: the runtime is the server's lifespan value.
    call = SimpleNamespace(request_context=SimpleNamespace(lifespan_context=ToolRuntime(str(root))))
    tools_recall.memory_search(query="backup", ctx=call)  # type: ignore[arg-type]
    monkeypatch.delenv("MEMTIER_RG")
    tools_recall.memory_search(query="backup", ctx=call)  # type: ignore[arg-type]
    assert seen[0] is None and seen[1] is not None


async def test_an_unknown_tool_is_refused_in_tool_terms_and_never_echoes_a_secret(
    server: Any,
) -> None:
    """PROTOCOL §3 v2, §11 v4: the SDK's own refusal quoted the name as sent; a token
    sent as a tool name comes back redacted, the real tools named."""
    from mcp import Client

    token = "ghp_" + "Q" * 36
    async with Client(server) as client:
        for name in (token, "x" * 300 + token, "memory_nope"):
            result = await client.call_tool(name, {})
            text = text_of(result)
            assert result.is_error
            assert text.startswith("memtier: error: unknown tool '")
            assert token not in text and "Q" * 20 not in text
            assert "memory_session_start" in text and len(text) < 1000
    assert "[REDACTED:GITHUB_TOKEN]" in text_of(await call_tool(server, token))


async def test_the_server_offers_no_capability_that_lists_nothing(server: Any) -> None:
    """PROTOCOL §11 v4: no prompts, so no prompts capability; tools and the skill stay."""
    from mcp import Client

    async with Client(server) as client:
        offered = client.session.server_capabilities
        assert offered is not None
        assert offered.prompts is None
        assert offered.tools is not None and offered.resources is not None
