"""Every tool of PROTOCOL §11 through the SDK's in-memory client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.mcp.conftest import call_tool, text_of

mcp = pytest.importorskip("mcp")
Client = mcp.Client

pytestmark = pytest.mark.anyio

TOOLS = {
    # name: (readOnly, destructive, idempotent)
    "memory_session_start": (False, False, True),
    "memory_search": (True, False, True),
    "memory_get": (True, False, True),
    "memory_note": (False, False, False),
    "memory_task": (False, False, False),
    "memory_learn": (False, False, False),
    "memory_remember": (False, False, False),
    "memory_replace": (False, True, False),
    "memory_retire": (False, True, False),
    "memory_verify": (False, False, True),
    "memory_close_day": (False, False, False),  # §11 v3: merges, additive
    "memory_rotate": (False, False, False),
    "memory_session_end": (False, False, False),  # §11: additive, like rotate
    "memory_health": (True, False, True),
    "memory_overview": (True, False, True),
    "memory_promote": (False, False, False),
    "memory_recall": (True, False, True),  # §13
    "memory_consolidate": (False, False, False),  # §13: plans unless confirm
    "memory_sync": (False, False, False),  # §14
}


async def test_every_tool_is_listed_with_schemas_and_four_hints(server: Any) -> None:
    async with Client(server) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == set(TOOLS)
    for name, (read_only, destructive, idempotent) in TOOLS.items():
        tool = tools[name]
        hints = tool.annotations
        assert hints is not None, name
        assert hints.read_only_hint is read_only, name
        assert hints.destructive_hint is destructive, name
        assert hints.idempotent_hint is idempotent, name
        assert hints.open_world_hint is False, name
        assert tool.output_schema is not None, name
        assert "text" in tool.output_schema["properties"], name
        # For a model: what it is for and when to call it, in a sentence or two (§11 v3).
        assert tool.description and 40 < len(tool.description) < 200, name
        assert "\n" not in tool.description, name


async def test_reading_tools_take_max_chars(server: Any) -> None:
    async with Client(server) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    for name in ("memory_session_start", "memory_search", "memory_get", "memory_health"):
        assert tools[name].input_schema["properties"]["max_chars"]["default"] == 8000


async def test_instructions_and_skill_resource(server: Any) -> None:
    async with Client(server) as client:
        assert client.instructions is not None
        assert "memory_session_start" in client.instructions
        assert "memory_close_day" in client.instructions
        listed = (await client.list_resources()).resources
        assert [str(r.uri) for r in listed] == ["memtier://skill"]
        skill = await client.read_resource("memtier://skill")
    assert skill.contents[0].text.startswith("---\nname: memtier\n")


async def test_session_start_returns_context_most_useful_first(server: Any, root: Path) -> None:
    (root / "memory/episodic/2026-11-25.md").write_text(
        "# 2026-11-25\n- x\nUpdated: 2026-11-25\nDecisions: d\nSignal: s\nOpen: rebuild nas01\n"
    )
    result = await call_tool(server, "memory_session_start")
    assert not result.is_error
    data = result.structured_content
    assert data is not None
    assert data["data"]["truncated"] is False and data["data"]["health_ok"] is True
    text = data["text"]
    assert text == text_of(result)
    order = [
        text.index("===== MEMORY.md"),
        text.index("===== memory/working-buffer.md"),
        # §4 step 7 v3: no note of today or yesterday, so the last closure block, whole.
        text.index("===== last closed note: 2026-11-25 (5 days ago)"),
        text.index("Decisions: d\nSignal: s\nOpen: rebuild nas01"),
        text.index("===== .learnings/ERRORS.md"),
    ]
    assert order == sorted(order)


async def test_session_start_fits_its_budget_and_says_how_to_read_on(
    server: Any, root: Path
) -> None:
    hot = root / "MEMORY.md"
    hot.write_text(hot.read_text() + "".join(f"- fact number {n}\n" for n in range(50)))
    result = await call_tool(server, "memory_session_start", max_chars=900)
    data = result.structured_content
    assert data is not None
    assert len(data["text"]) <= 900
    assert data["data"]["truncated"] is True
    assert data["data"]["cut"][0] == "MEMORY.md"
    more = data["data"]["more"]
    assert more.startswith("memory_get(path='MEMORY.md', from_line=")
    assert more in data["text"]
    assert "health-check:" in data["text"]


async def test_note_task_close_rotate_end(server: Any, root: Path) -> None:
    async with Client(server) as client:
        added = await client.call_tool("memory_task", {"action": "add", "task": "fix backups"})
        assert added.structured_content["data"]["active_tasks"] == ["fix backups"]
        note = await client.call_tool("memory_note", {"text": "- restic needs the new key"})
        assert not note.is_error
        assert "- restic needs the new key" in (root / "memory/working-buffer.md").read_text()
        await client.call_tool("memory_task", {"action": "add", "task": "check restic"})
        done = await client.call_tool("memory_task", {"action": "done", "task": 1})
        assert done.structured_content["data"]["active_tasks"] == ["check restic"]
        today = await client.call_tool("memory_note", {"text": "nas rebooted", "to": "today"})
        assert "nas rebooted" in (root / "memory/episodic/2026-11-30.md").read_text()
        assert today.structured_content["data"]["action"] == "append"
        end = await client.call_tool("memory_session_end", {})
        assert end.structured_content["data"]["rotated"] is True
        again = await client.call_tool("memory_session_end", {})
        assert again.structured_content["text"] == "nothing to rotate"
        await client.call_tool("memory_task", {"action": "add", "task": "next"})
        rotated = await client.call_tool("memory_rotate", {})
        assert rotated.structured_content["data"]["note"] == "memory/episodic/2026-11-30.md"
        closed = await client.call_tool(
            "memory_close_day", {"decisions": "keys", "signal": "slow disk", "open": "none"}
        )
        assert not closed.is_error
        note_text = (root / "memory/episodic/2026-11-30.md").read_text()
        # Merged (§4 v3): the tasks the rotations moved stay open.
        assert note_text.rstrip("\n").endswith("Open: check restic; next")
        await client.call_tool(
            "memory_close_day",
            {"decisions": "keys", "signal": "slow disk", "open": "none", "replace": True},
        )
    note_text = (root / "memory/episodic/2026-11-30.md").read_text()
    assert note_text.rstrip("\n").endswith("Open: none")


async def test_note_redacts_and_says_so(server: Any, root: Path) -> None:
    secret = "ghp_" + "a" * 36
    result = await call_tool(server, "memory_note", text=f"token {secret}")
    assert secret not in (root / "memory/working-buffer.md").read_text()
    data = result.structured_content
    assert data is not None and data["data"]["redacted"]
    assert secret not in data["text"] and "redacted 1 secret(s)" in data["text"]


async def test_learn_and_promote(server: Any, root: Path) -> None:
    async with Client(server) as client:
        learned = await client.call_tool(
            "memory_learn", {"kind": "learning", "text": "always pin the rg version"}
        )
        assert learned.structured_content["data"]["file"] == ".learnings/LEARNINGS.md"
        plan = await client.call_tool(
            "memory_promote",
            {"lesson": "always pin the rg version", "file": "memory/procedural/tools.md"},
        )
        assert plan.structured_content["data"]["applied"] is False
        assert "confirm=true" in plan.structured_content["text"]
        assert not (root / "memory/procedural/tools.md").exists()
        done = await client.call_tool(
            "memory_promote",
            {
                "lesson": "always pin the rg version",
                "file": "memory/procedural/tools.md",
                "confirm": True,
            },
        )
        assert done.structured_content["data"]["applied"] is True
    assert "always pin the rg version" in (root / "memory/procedural/tools.md").read_text()


async def test_facts_remember_get_replace_retire_verify(server: Any, root: Path) -> None:
    infra = "memory/semantic/infrastructure.md"
    async with Client(server) as client:
        kept = await client.call_tool(
            "memory_remember", {"text": "nas01 runs Ubuntu 24.04", "kind": "infrastructure"}
        )
        assert not kept.is_error, text_of(kept)
        line = kept.structured_content["data"]["line"]
        got = await client.call_tool("memory_get", {"path": infra, "from_line": line})
        assert "nas01 runs Ubuntu 24.04" in got.structured_content["text"]
        twice = await client.call_tool(
            "memory_remember", {"text": "nas01 runs Ubuntu 24.04", "file": infra}
        )
        assert twice.is_error
        replaced = await client.call_tool(
            "memory_replace",
            {"old": "Ubuntu 24.04", "new": "nas01 runs Debian 13", "file": infra, "reason": "x"},
        )
        assert not replaced.is_error, text_of(replaced)
        retired = await client.call_tool(
            "memory_retire", {"old": "Debian 13", "file": infra, "reason": "decommissioned"}
        )
        assert not retired.is_error, text_of(retired)
        verified = await client.call_tool("memory_verify", {"files": [infra]})
        assert not verified.is_error, text_of(verified)
    assert "nas01" not in (root / infra).read_text()
    log = (root / "memory/archive/retired.md").read_text()
    assert "Ubuntu 24.04" in log and "Debian 13" in log


async def test_get_is_bounded_and_names_the_next_range(server: Any, root: Path) -> None:
    notes = root / "memory/procedural/long.md"
    notes.write_text(
        "# Long\n#tags: ops\nlast_verified: 2026-11-30\n"
        + "".join(f"- step {n} of the long runbook\n" for n in range(4, 200))
    )
    result = await call_tool(server, "memory_get", path="memory/procedural/long.md", max_chars=600)
    data = result.structured_content
    assert data is not None and data["data"]["truncated"] is True
    assert len(data["text"]) <= 600
    next_from = data["data"]["next_from_line"]
    assert f"{next_from - 1}  - step {next_from - 1} of" in data["text"]
    call = f"memory_get(path='memory/procedural/long.md', from_line={next_from}"
    assert call in data["data"]["more"] and call in data["text"]
    rest = await call_tool(
        server, "memory_get", path="memory/procedural/long.md", from_line=next_from
    )
    assert rest.structured_content is not None
    assert rest.structured_content["text"].lstrip().startswith(f"{next_from}  - step {next_from}")


async def test_get_a_day_by_date(server: Any, root: Path) -> None:
    (root / "memory/episodic/2026-11-28.md").write_text("# 2026-11-28\n- shipped\n")
    result = await call_tool(server, "memory_get", date="2026-11-28")
    assert not result.is_error and "- shipped" in text_of(result)


async def test_search_finds_and_is_bounded(server: Any, root: Path) -> None:
    infra = root / "memory/semantic/infrastructure.md"
    infra.write_text(
        infra.read_text()
        + "".join(f"\n## host{n}\n- host{n} runs the backup job {'x' * 80}\n" for n in range(12))
    )
    found = await call_tool(server, "memory_search", query="backup job", limit=12)
    assert found.structured_content is not None
    assert found.structured_content["data"]["total_matched"] == 12
    small = await call_tool(server, "memory_search", query="backup job", limit=12, max_chars=800)
    data = small.structured_content
    assert data is not None and data["data"]["truncated"] is True
    assert len(data["text"]) <= 800
    hits = data["data"]["hits"]
    assert 0 < len(hits) < 12 and data["data"]["shown"] == len(hits)  # the list is cut too
    assert f"limit={len(hits)}" in data["data"]["more"] and data["data"]["more"] in data["text"]
    assert hits[0].startswith("memory/semantic/infrastructure.md:")


async def test_search_archive_when_asked_or_nothing_live(server: Any, root: Path) -> None:
    folder = root / "memory/archive/2026/01"
    folder.mkdir(parents=True)
    (folder / "2026-01-02.md").write_text("# 2026-01-02\n- zanzibar migration\n")
    plain = await call_tool(server, "memory_search", query="zanzibar")
    assert plain.structured_content is not None
    # PROTOCOL §9 v4: no live hit, so the archive is searched too.
    assert plain.structured_content["data"]["hits"][0].startswith("memory/archive/")
    assert "searched the archive too" in plain.structured_content["text"]
    archived = await call_tool(server, "memory_search", query="zanzibar", tiers=["archive"])
    assert archived.structured_content is not None
    assert archived.structured_content["data"]["hits"][0].startswith("memory/archive/")


async def test_health_names_the_fix(server: Any, root: Path) -> None:
    prefs = root / "memory/semantic/preferences.md"
    lines = prefs.read_text().split("\n")
    lines[2] = "last_verified: 2025-01-01"
    prefs.write_text("\n".join(lines))
    result = await call_tool(server, "memory_health")
    data = result.structured_content
    assert data is not None and data["data"]["ok"] is False
    assert "warm.fresh" in data["data"]["failed"] + data["data"]["warned"]
    assert "memory_verify files=['memory/semantic/preferences.md']" in data["text"]
    assert "To fix:" in data["text"]


async def test_overview(server: Any, root: Path) -> None:
    from memtier.search import SearchRequest, search
    from memtier.workspace import Workspace
    from tests.conftest import NOW

    search(Workspace.open(root, NOW), SearchRequest(query="quokka"))  # as the CLI: logged
    async with Client(server) as client:
        await client.call_tool("memory_search", {"query": "wombat"})
        result = await client.call_tool("memory_overview", {})
    data = result.structured_content
    assert data is not None
    assert "quokka" in data["text"] and "wombat" not in data["text"]
    assert "Files per tier" in data["text"] and "memtier " not in data["text"]
    assert data["data"]["candidates"] == 0


async def test_overlapping_calls_of_one_server_lose_no_write(server: Any, root: Path) -> None:
    """The SDK runs tools on worker threads; the lock alone keeps each write whole."""
    import anyio

    from memtier.formats.buffer import parse_buffer

    async def notes(tag: str) -> None:
        async with Client(server, raise_exceptions=True) as client:
            for n in range(8):
                result = await client.call_tool("memory_note", {"text": f"{tag} note {n}"})
                assert not result.is_error, text_of(result)

    async with anyio.create_task_group() as group:
        for tag in ("alpha", "beta", "gamma"):
            group.start_soon(notes, tag)
    body = parse_buffer((root / "memory/working-buffer.md").read_text()).body
    for tag in ("alpha", "beta", "gamma"):
        for n in range(8):
            assert body.count(f"- {tag} note {n}\n") == 1, (tag, n)


async def test_a_warm_server_sees_a_change_between_two_calls(server: Any, root: Path) -> None:
    """Nothing a warm server keeps may serve a stale answer (PROTOCOL §11 v3)."""
    async with Client(server) as client:
        first = await client.call_tool("memory_search", {"query": "wallaby"})
        assert first.structured_content["data"]["hits"] == []
        infra = root / "memory/semantic/infrastructure.md"
        infra.write_text(infra.read_text() + "- the wallaby host runs backups\n")
        second = await client.call_tool("memory_search", {"query": "wallaby"})
        assert second.structured_content["data"]["hits"][0].startswith(
            "memory/semantic/infrastructure.md:"
        )
        (root / "memory/memtier.toml").write_text("hot_max_lines = 5\n")
        refused = await client.call_tool("memory_remember", {"text": "x y z", "kind": "hot"})
        assert refused.is_error and "5-line limit" in text_of(refused)


async def test_a_warm_server_searches_what_is_on_disk_now(
    server: Any, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between two searches of one server: a new note, an edit that keeps the file's
    size and modification time, a deleted note, a symlink and a configuration change
    are each seen by the second search (nothing kept serves a stale answer)."""
    import os
    import time

    from memtier import tiers

    monkeypatch.setattr(tiers, "SETTLED_NS", -(10**18))  # keep every folder listing

    async def hits(client: Any, query: str) -> list[str]:
        result = await client.call_tool("memory_search", {"query": query})
        assert not result.is_error, text_of(result)
        return list(result.structured_content["data"]["hits"])

    note = root / "memory/episodic/2026-11-20.md"
    async with Client(server) as client:
        assert await hits(client, "wombat") == []
        time.sleep(0.03)
        note.write_text("# 2026-11-20\n\n- the wombat host was patched\n")
        assert await hits(client, "wombat") == ["memory/episodic/2026-11-20.md:3"]
        # Same size, same mtime: only the change time tells (an editor that restores it).
        before = note.stat()
        note.write_text("# 2026-11-20\n\n- the koalas host was patched\n")
        os.utime(note, ns=(before.st_atime_ns, before.st_mtime_ns))
        assert note.stat().st_size == before.st_size
        assert await hits(client, "wombat") == []
        assert await hits(client, "koalas") == ["memory/episodic/2026-11-20.md:3"]
        time.sleep(0.03)
        note.unlink()
        assert await hits(client, "koalas") == []
        config = root / "memory/memtier.toml"
        config.write_text("hot_max_lines = 5\n")
        refused = await client.call_tool("memory_remember", {"text": "x y z", "kind": "hot"})
        assert refused.is_error and "5-line limit" in text_of(refused)


async def test_search_says_when_it_shows_results_for_other_words(server: Any, root: Path) -> None:
    # A typo is retried within one edit: the agent must read that the hits are for
    # the corrected word, in both channels, as the command line warns.
    (root / "memory/episodic/2026-10-01.md").write_text("# a\n\n- signed up for ceramics\n")
    result = await call_tool(server, "memory_search", query="ceramcs")
    assert result.structured_content is not None
    note = "no exact match; showing results for 'ceramic'"
    assert note in result.structured_content["text"]
    assert note in result.structured_content["data"]["warnings"]
    assert result.structured_content["data"]["hits"][0].startswith("memory/episodic/2026-10-01")
    plain = await call_tool(server, "memory_search", query="ceramics")
    assert plain.structured_content is not None
    assert plain.structured_content["data"]["warnings"] == []
