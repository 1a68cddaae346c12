"""The week of an agent that has only the tools: done by SKILL.md, no shell step (PROTOCOL
§11 v4: every tool the skill names exists, so an agent with no shell lives the protocol).

The person set the workspace up (the `root` fixture: `memtier init` on Monday 30
November 2026); from then on each sitting is one real `memtier mcp` process driven by
the SDK's stdio client, its clock the sitting's time (the server's `now` override, as a
client would start it). Monday: tasks, notes, a fact, a topic for work that will span
days (SKILL §8a), the end of the session and the day. Tuesday: the daily flush of
Monday, more work on the topic, a session ended without closing the day. Then six weeks
away, and the return: the last closure block with its date, the stale WARM files checked
and verified (SKILL §6), the topic recalled and consolidated (SKILL §8a), the day closed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.conftest import memtier_command
from tests.mcp.conftest import NEEDS_SDK, sdk_client, text_of

if TYPE_CHECKING:
    from mcp import Client

# Three server processes, about 15 s on a loaded machine: in the slow step.
pytestmark = [pytest.mark.anyio, pytest.mark.slow, NEEDS_SDK]

MONDAY = "2026-11-30T10:30:00+01:00"
TUESDAY = "2026-12-01T09:00:00+01:00"
RETURN = "2027-01-15T09:00:00+01:00"


class Sitting:
    """One server at one moment; `call` fails the test on a tool error."""

    def __init__(self, root: Path, when: str) -> None:
        command = memtier_command()
        from mcp.client.stdio import StdioServerParameters

        self.params = StdioServerParameters(
            command=command[0],
            args=[*command[1:], "mcp"],
            env={"MEMTIER_ROOT": str(root), "MEMTIER_NOW": when, "NO_COLOR": "1"},
            cwd=str(root.parent),
        )
        self.client: Client | None = None

    async def __aenter__(self) -> Sitting:
        self.client = sdk_client(self.params)
        await self.client.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.client is not None
        await self.client.__aexit__(*exc)

    async def call(self, tool: str, **arguments: Any) -> str:
        assert self.client is not None
        result = await self.client.call_tool(tool, arguments)
        assert not result.is_error, f"{tool}: {text_of(result)}"
        return text_of(result)


async def test_a_week_and_a_return_through_the_tools_alone(root: Path) -> None:
    infra = "memory/semantic/infrastructure.md"
    async with Sitting(root, MONDAY) as monday:
        start = await monday.call("memory_session_start")
        assert start.endswith("health-check: ✅ All required checks passed"), start
        await monday.call("memory_task", action="add", task="W01 move qdrant to host b")
        await monday.call("memory_note", text="W02 qdrant snapshot copied to host b")
        # §8a: the work will span days, and the person named it: a topic.
        added = await monday.call(
            "memory_index", action="add", slug="qdrant-move", category="projects", match=["qdrant"]
        )
        assert added.startswith("qdrant-move: added")
        await monday.call(
            "memory_remember", text="qdrant runs on hostb:6334", kind="infrastructure"
        )
        found = await monday.call("memory_search", query="qdrant hostb")
        assert f"{infra}:" in found
        await monday.call("memory_session_end")
        await monday.call(
            "memory_close_day",
            decisions="W03 qdrant moves to host b",
            signal="W04 snapshots copy in minutes",
            open="W05 test a qdrant restore",
        )
    async with Sitting(root, TUESDAY) as tuesday:
        start = await tuesday.call("memory_session_start")
        assert "W05 test a qdrant restore" in start  # yesterday's Open: items
        flushed = await tuesday.call("memory_flush")  # Monday, as cron would at 11:00
        assert flushed.startswith("Daily flush for 2026-11-30")
        await tuesday.call("memory_task", action="add", task="W06 restore qdrant on host b")
        await tuesday.call("memory_note", text="W07 qdrant restore took 4 minutes")
        done = await tuesday.call("memory_task", action="done", task=1)
        assert done.startswith("marked done: - [done] W06")
        await tuesday.call("memory_session_end")  # and no close: the day stays as it is
    async with Sitting(root, RETURN) as back:
        start = await back.call("memory_session_start")
        # §4 step 7 v3: after an absence, the last closed note's whole block, with its date.
        assert "===== last closed note: 2026-12-01 (45 days ago)" in start, start
        verdict = start.rstrip("\n").split("\n")[-1]
        # §6 v4: staleness apart from integrity; a stale file is verified when used.
        assert "integrity checks passed" in verdict, verdict
        assert "WARM files not verified lately" in verdict, verdict
        # SKILL §6: read the stale file, check it, then verify it.
        health = await back.call("memory_health")
        assert "memory_verify(files=[" in health
        await back.call("memory_get", path=infra)
        await back.call("memory_verify", stale=True)
        # New notes changed the topic's dates since the index was written: the warning
        # names its fix in tool terms, and the agent calls it.
        health = await back.call("memory_health")
        assert "All required checks passed" in health
        assert "INDEX.md" in health and "memory_flush" in health
        await back.call("memory_flush")
        assert (await back.call("memory_health")).endswith("All required checks passed")
        # SKILL §8a: "do you remember …" is recall; a due topic is consolidated.
        recalled = await back.call("memory_recall", text="do you remember the qdrant move")
        assert recalled.startswith("topic: qdrant-move ") and "W07" in recalled
        plan = await back.call("memory_consolidate", topic="qdrant-move")
        plan_id = re.search(r"plan id: (p-[0-9a-f]+) \(nothing written\)", plan)
        assert plan_id is not None, plan
        written = await back.call(
            "memory_consolidate",
            topic="qdrant-move",
            plan_id=plan_id.group(1),
            summary="qdrant moved to host b; the restore was tested in 4 minutes.",
            confirm=True,
        )
        assert written.startswith("wrote memory/consolidated/qdrant-move-gen1-")
        index = await back.call("memory_index")
        assert "Current: memory/consolidated/qdrant-move-gen1-" in index
        await back.call("memory_note", text="W08 back after six weeks")
        await back.call("memory_session_end")
        await back.call("memory_close_day", decisions="W09 caught up", signal="none", open="none")
        assert (await back.call("memory_health")).endswith("All required checks passed")
    # Every line stands in the note of its day, the closure blocks as written.
    monday_note = (root / "memory/episodic/2026-11-30.md").read_text()
    assert "W02 qdrant snapshot copied" in monday_note
    assert monday_note.rstrip("\n").endswith(
        "Open: W01 move qdrant to host b; W05 test a qdrant restore"
    )
    tuesday_note = (root / "memory/episodic/2026-12-01.md").read_text()
    assert "W07 qdrant restore took 4 minutes" in tuesday_note
    assert "W08 back after six weeks" in (root / "memory/episodic/2027-01-15.md").read_text()
    assert "qdrant runs on hostb:6334" in (root / infra).read_text()
    generation = next((root / "memory/consolidated").glob("qdrant-move-gen1-*.md")).read_text()
    assert "Summary-by: agent" in generation and "W03 qdrant moves to host b" in generation
