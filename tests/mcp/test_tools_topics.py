"""memory_recall and memory_consolidate through the SDK's client (PROTOCOL §13, §11).

In-process: their bounds over stdio are measured with every other tool's in
test_budgets, and the whole-session test in test_processes runs a real server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import Client

from tests.mcp.conftest import text_of
from tests.protocol.s13_support import NOW_TEXT, note

pytestmark = pytest.mark.anyio
ENVELOPE = 600


def _workspace(root: Path) -> None:
    from memtier.commands.topics.index import index_add
    from memtier.workspace import Workspace

    for day in range(1, 13):
        lines = [f"- qdrant step {day}: " + "copied shard " * 20 for _ in range(8)]
        note(root, f"2026-04-{day:02d}", *lines, closure=f"qdrant decision {day}|qdrant open {day}")
    from datetime import datetime

    index_add(Workspace.open(root, datetime.fromisoformat(NOW_TEXT)), "qdrant", "projects")


def _sizes(result: Any) -> tuple[int, int]:
    structured = json.dumps(result.structured_content, ensure_ascii=False)
    return len(text_of(result)), len(structured)


async def test_plan_then_confirm_then_recall_each_channel_bounded(root: Path, server: Any) -> None:
    _workspace(root)
    budget = 1500
    async with Client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for name in ("memory_recall", "memory_consolidate"):
            listed = tools[name].model_dump(mode="json", exclude_none=True)
            assert len(json.dumps(listed)) < 2000, name  # a small share of the tool list
        asked = {"topic": "qdrant", "max_chars": budget}
        plan = await client.call_tool("memory_consolidate", asked)
        assert not plan.is_error, text_of(plan)
        text_chars, structured_chars = _sizes(plan)
        assert text_chars <= budget and structured_chars <= budget + ENVELOPE
        data = plan.structured_content["data"]
        assert data["written"] is False and data["plan_id"].startswith("p-")
        assert not (root / "memory" / "consolidated").exists()
        stale = await client.call_tool(
            "memory_consolidate",
            {"topic": "qdrant", "plan_id": "p-0000", "summary": "x", "confirm": True},
        )
        assert stale.is_error and "stale" in text_of(stale)
        done = await client.call_tool(
            "memory_consolidate",
            {"topic": "qdrant", "plan_id": data["plan_id"], "summary": "Moved.", "confirm": True},
        )
        assert not done.is_error and done.structured_content["data"]["written"] is True
        recalled = await client.call_tool(
            "memory_recall", {"text": "do you remember qdrant", "max_chars": budget}
        )
        text_chars, structured_chars = _sizes(recalled)
        assert text_chars <= budget and structured_chars <= budget + ENVELOPE
        assert recalled.structured_content["data"]["topic"] == "qdrant"
        assert recalled.structured_content["data"]["truncated"] is True


async def test_errors_speak_in_tool_terms(server: Any, root: Path) -> None:
    """PROTOCOL §11 (v3): parameter and tool names, never CLI flags."""
    from tests.mcp.conftest import call_tool

    _workspace(root)
    for arguments, wanted in (
        ({"topic": "qdrant", "summary": "x", "confirm": True}, "plan_id"),
        ({"topic": "qdrant", "plan_id": "p-1", "summary": "x", "confirm": True}, "stale"),
        ({"topic": "nope"}, "no topic 'nope'"),
    ):
        result = await call_tool(server, "memory_consolidate", **arguments)
        text = text_of(result)
        assert result.is_error and wanted in text, text
        assert " --" not in text and "memtier consolidate" not in text, text
