"""The server as a real process: a whole session over stdio, and writers racing (§3, §11)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import pytest

from memtier.formats.buffer import parse_buffer
from tests.conftest import NOW_TEXT, memtier_command
from tests.mcp.conftest import NEEDS_SDK, hits_of, sdk_client, stdio_params, text_of

if TYPE_CHECKING:
    from mcp import Client

pytestmark = [pytest.mark.anyio, NEEDS_SDK]


async def _ok(client: Client, name: str, **arguments: Any) -> str:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, f"{name}: {text_of(result)}"
    return text_of(result)


async def test_a_whole_session_over_stdio(root: Path) -> None:
    async with sdk_client(stdio_params(root)) as client:
        start = await _ok(client, "memory_session_start")
        assert "===== MEMORY.md =====" in start
        await _ok(client, "memory_task", action="add", task="move backups to restic")
        await _ok(client, "memory_note", text="restic repo lives on nas01:/srv/restic")
        await _ok(client, "memory_remember", text="backups use restic", kind="decision")
        found = await client.call_tool("memory_search", {"query": "restic"})
        path, line = hits_of(found)[0].rsplit(":", 1)
        got = await _ok(client, "memory_get", path=path, from_line=int(line))
        assert "restic" in got
        await _ok(client, "memory_session_end")
        await _ok(client, "memory_close_day", decisions="restic", signal="nas is slow", open="none")
        health = await _ok(client, "memory_health")
        assert health.endswith("All required checks passed"), health
        failed = await client.call_tool("memory_get", {"path": "memory/nope.md"})
        assert failed.is_error
        assert text_of(failed).startswith("memtier: error: ")
        assert "Traceback" not in text_of(failed)
    note = (root / "memory/episodic/2026-11-30.md").read_text()
    assert "restic repo lives on nas01" in note
    assert "backups use restic" in (root / "memory/semantic/decisions.md").read_text()


WRITES = 12


async def _server_writes(root: Path, tag: str) -> None:
    async with sdk_client(stdio_params(root)) as client:
        for n in range(WRITES):
            await _ok(client, "memory_note", text=f"{tag} note {n}")


def _cli_writes(root: Path) -> None:
    for n in range(WRITES):
        subprocess.run(
            [
                *memtier_command(),
                "--root",
                str(root),
                "--now",
                NOW_TEXT,
                "buffer",
                "note",
                f"cli note {n}",
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )


@pytest.mark.slow
async def test_two_servers_and_the_cli_writing_at_once_lose_nothing(root: Path) -> None:
    async with anyio.create_task_group() as group:
        group.start_soon(_server_writes, root, "alpha")
        group.start_soon(_server_writes, root, "beta")
        group.start_soon(anyio.to_thread.run_sync, _cli_writes, root)
    body = parse_buffer((root / "memory/working-buffer.md").read_text()).body
    for tag in ("alpha", "beta", "cli"):
        for n in range(WRITES):
            assert body.count(f"- {tag} note {n}\n") == 1, (tag, n)
