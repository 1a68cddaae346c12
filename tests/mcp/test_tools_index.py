"""memory_index and memory_flush: topics kept without a shell (PROTOCOL §11 v4, §13)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.mcp.conftest import NEEDS_SDK, sdk_client, text_of

pytestmark = [pytest.mark.anyio, NEEDS_SDK]


async def test_index_add_set_show_in_tool_terms(server: Any, root: Path) -> None:
    (root / "memory/episodic/2026-11-28.md").write_text(
        "# 2026-11-28\n\n- qdrant shard 3 copied to host b\n"
    )
    async with sdk_client(server) as client:
        empty = await client.call_tool("memory_index", {})
        assert text_of(empty) == (
            "no topic index yet; add a topic: memory_index(action='add', slug, category)"
        )
        added = await client.call_tool(
            "memory_index",
            {"action": "add", "slug": "qdrant-move", "category": "projects", "match": ["qdrant"]},
        )
        assert text_of(added).split("\n") == [
            "qdrant-move: added",
            "- qdrant-move [active] 1 date(s); no generation",
        ]
        twice = await client.call_tool(
            "memory_index", {"action": "add", "slug": "qdrant-move", "category": "projects"}
        )
        assert twice.is_error
        assert "memory_index(action='set', slug, match or status)" in text_of(twice)
        changed = await client.call_tool(
            "memory_index", {"action": "set", "slug": "qdrant-move", "status": "paused"}
        )
        assert "[paused]" in text_of(changed)
        shown = text_of(await client.call_tool("memory_index", {"action": "show"}))
        assert "- **qdrant-move**" in shown and "Status: paused" in shown
        assert "2026-11-28" in shown
        for arguments, wanted in (
            ({"action": "add", "slug": "x"}, "needs category"),
            ({"action": "set", "slug": "qdrant-move"}, "needs match or status"),
            ({"action": "set"}, "needs slug"),
            ({"action": "add", "slug": "Bad Slug", "category": "projects"}, "slug must be"),
            ({"action": "set", "slug": "nope", "status": "paused"}, "no topic 'nope'"),
        ):
            refused = await client.call_tool("memory_index", arguments)
            text = text_of(refused)
            assert refused.is_error and wanted in text, (arguments, text)
            assert " --" not in text and "memtier " not in text.removeprefix("memtier: "), text
    index = (root / "memory/INDEX.md").read_text()
    assert "Match: qdrant" in index and "Status: paused" in index


async def test_flush_closes_the_day_rebuilds_and_names_the_due_topics(
    server: Any, root: Path
) -> None:
    (root / "memory/episodic/2026-11-29.md").write_text("# 2026-11-29\n\n- qdrant copied\n")
    async with sdk_client(server) as client:
        await client.call_tool(
            "memory_index", {"action": "add", "slug": "qdrant", "category": "projects"}
        )
        flushed = await client.call_tool("memory_flush", {})
        assert not flushed.is_error, text_of(flushed)
        assert text_of(flushed).startswith("Daily flush for 2026-11-29: closed 2026-11-29.md")
        again = await client.call_tool("memory_flush", {})
        assert text_of(again).startswith("Daily flush for 2026-11-29: nothing to do")
        for text in (text_of(flushed), text_of(again)):
            assert "memtier " not in text and " --" not in text
    note = (root / "memory/episodic/2026-11-29.md").read_text()
    assert note.rstrip("\n").endswith("Open: none")


async def test_recall_takes_all_and_it_changes_nothing(server: Any, root: Path) -> None:
    """Issue 36: `all` is accepted and changes nothing (PROTOCOL §13 v4: recall reads
    archived notes whether asked or not)."""
    (root / "memory/episodic/2026-11-28.md").write_text("# 2026-11-28\n\n- qdrant copied\n")
    async with sdk_client(server) as client:
        await client.call_tool(
            "memory_index", {"action": "add", "slug": "qdrant", "category": "projects"}
        )
        plain = await client.call_tool("memory_recall", {"text": "the qdrant move"})
        everything = await client.call_tool(
            "memory_recall", {"text": "the qdrant move", "all": True}
        )
    assert not everything.is_error
    assert text_of(plain).startswith("topic: qdrant ")
    assert text_of(everything) == text_of(plain)
