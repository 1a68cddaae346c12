"""memory_recall and memory_consolidate through the SDK's client (PROTOCOL §13, §11).

In-process: their bounds over stdio are measured with every other tool's in
test_budgets, and the whole-session test in test_processes runs a real server."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.conftest import NEEDS_SDK, sdk_client, text_of
from tests.protocol.s13_support import NOW_TEXT, note

pytestmark = [pytest.mark.anyio, NEEDS_SDK]
ENVELOPE = 600


def _workspace(root: Path) -> None:
    from memtier.commands.topics.index import index_add
    from memtier.workspace import Workspace

    for day in range(1, 13):
        lines = [f"- qdrant step {day}: " + "copied shard " * 20 for _ in range(8)]
        note(root, f"2026-04-{day:02d}", *lines, closure=f"qdrant decision {day}|qdrant open {day}")
    from datetime import datetime

    index_add(Workspace.open(root, datetime.fromisoformat(NOW_TEXT)), "qdrant", "projects")


async def test_plan_then_confirm_then_recall_each_answer_bounded(root: Path, server: Any) -> None:
    _workspace(root)
    budget = 1500
    async with sdk_client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for name in ("memory_recall", "memory_consolidate", "memory_index", "memory_flush"):
            listed = tools[name].model_dump(mode="json", exclude_none=True)
            assert len(json.dumps(listed)) < 2000, name  # a small share of the tool list
        asked = {"topic": "qdrant", "max_chars": budget}
        plan = await client.call_tool("memory_consolidate", asked)
        assert not plan.is_error, text_of(plan)
        assert len(text_of(plan)) <= budget
        found = re.search(r"plan id: (p-[0-9a-f]+) \(nothing written\)", text_of(plan))
        assert found is not None, text_of(plan)
        plan_id = found.group(1)
        assert not (root / "memory" / "consolidated").exists()
        unknown = await client.call_tool(
            "memory_consolidate",
            {"topic": "qdrant", "plan_id": "p-0000", "summary": "x", "confirm": True},
        )
        assert unknown.is_error and "p-0000 is unknown" in text_of(unknown)
        assert "stale" not in text_of(unknown)
        # A plan of this topic whose source changed since is stale, and said so.
        note(root, "2026-04-05", "- qdrant step 5 was redone")
        stale = await client.call_tool(
            "memory_consolidate",
            {"topic": "qdrant", "plan_id": plan_id, "summary": "x", "confirm": True},
        )
        assert stale.is_error and f"plan {plan_id} is stale" in text_of(stale)
        plan = await client.call_tool("memory_consolidate", asked)
        found = re.search(r"plan id: (p-[0-9a-f]+) ", text_of(plan))
        assert found is not None and found.group(1) != plan_id
        done = await client.call_tool(
            "memory_consolidate",
            {"topic": "qdrant", "plan_id": found.group(1), "summary": "Moved.", "confirm": True},
        )
        assert not done.is_error, text_of(done)
        assert "qdrant-gen1" in text_of(done) and "nothing written" not in text_of(done)
        recalled = await client.call_tool(
            "memory_recall", {"text": "do you remember qdrant", "max_chars": budget}
        )
        assert len(text_of(recalled)) <= budget
        assert text_of(recalled).startswith("topic: qdrant ")
        assert "[cut at 1500 characters" in text_of(recalled)


async def test_errors_speak_in_tool_terms(server: Any, root: Path) -> None:
    """PROTOCOL §11 (v3): parameter and tool names, never CLI flags."""
    from tests.mcp.conftest import call_tool

    _workspace(root)
    for arguments, wanted in (
        ({"topic": "qdrant", "summary": "x", "confirm": True}, "plan_id"),
        ({"topic": "qdrant", "plan_id": "p-1", "summary": "x", "confirm": True}, "unknown"),
        ({"topic": "nope"}, "no topic 'nope'"),
    ):
        result = await call_tool(server, "memory_consolidate", **arguments)
        text = text_of(result)
        assert result.is_error and wanted in text, text
        assert " --" not in text and "memtier consolidate" not in text, text
