"""Every tool of PROTOCOL §11 through the SDK's in-memory client."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.conftest import NEEDS_SDK, call_tool, hits_of, sdk_client, text_of

pytestmark = [pytest.mark.anyio, NEEDS_SDK]

TOOLS = {
    # name: (readOnly, destructive, idempotent, openWorld)
    "memory_session_start": (False, False, True, False),
    "memory_search": (True, False, True, False),
    "memory_get": (True, False, True, False),
    "memory_note": (False, False, False, False),
    "memory_task": (False, False, False, False),
    "memory_learn": (False, False, False, False),
    "memory_remember": (False, False, False, False),
    "memory_replace": (False, True, False, False),
    "memory_retire": (False, True, False, False),
    "memory_verify": (False, False, True, False),
    "memory_close_day": (False, False, False, False),  # §11 v3: merges, additive
    "memory_rotate": (False, False, False, False),
    "memory_session_end": (False, False, False, False),  # §11: additive, like rotate
    "memory_health": (True, False, True, False),
    "memory_overview": (True, False, True, False),
    "memory_promote": (False, False, False, False),
    "memory_recall": (True, False, True, False),  # §13
    "memory_consolidate": (False, False, False, False),  # §13: plans unless confirm
    # §11 v4: set replaces a topic's Match terms; adding twice is refused
    "memory_index": (False, True, True, False),
    "memory_flush": (False, False, True, False),  # §13: a second run changes no byte
    "memory_sync": (False, False, False, True),  # §14: fetches from and pushes to a remote
}


async def test_every_tool_is_listed_with_schemas_and_four_hints(server: Any) -> None:
    async with sdk_client(server) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == set(TOOLS)
    for name, (read_only, destructive, idempotent, open_world) in TOOLS.items():
        tool = tools[name]
        hints = tool.annotations
        assert hints is not None, name
        assert hints.read_only_hint is read_only, name
        assert hints.destructive_hint is destructive, name
        assert hints.idempotent_hint is idempotent, name
        assert hints.open_world_hint is open_world, name
        # §11 v4: a title for people, and no output schema (the answer is its text).
        assert tool.title and len(tool.title) <= 40, name
        assert tool.output_schema is None, name
        # For a model: what it is for and when to call it, in a sentence or two (§11 v3).
        assert tool.description and 40 < len(tool.description) < 200, name
        assert "\n" not in tool.description, name


async def test_reading_tools_take_max_chars(server: Any) -> None:
    async with sdk_client(server) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    for name in ("memory_session_start", "memory_search", "memory_get", "memory_health"):
        assert tools[name].input_schema["properties"]["max_chars"]["default"] == 8000


async def test_instructions_and_skill_resource(server: Any) -> None:
    async with sdk_client(server) as client:
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
    text = text_of(result)
    assert "[cut" not in text and "[not shown" not in text
    assert text.endswith("health-check: ✅ All required checks passed")
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
    text = text_of(result)
    assert len(text) <= 900
    assert "[cut: " in text and "the rest: memory_get(path='MEMORY.md', from_line=" in text
    assert "health-check:" in text


async def test_note_task_close_rotate_end(server: Any, root: Path) -> None:
    async with sdk_client(server) as client:
        added = await client.call_tool("memory_task", {"action": "add", "task": "fix backups"})
        assert text_of(added).startswith("added active task: - fix backups (")
        note = await client.call_tool("memory_note", {"text": "- restic needs the new key"})
        assert not note.is_error
        assert "- restic needs the new key" in (root / "memory/working-buffer.md").read_text()
        await client.call_tool("memory_task", {"action": "add", "task": "check restic"})
        done = await client.call_tool("memory_task", {"action": "done", "task": 1})
        assert text_of(done).startswith("marked done: - [done] fix backups (")
        assert "1 active" in text_of(done)
        today = await client.call_tool("memory_note", {"text": "nas rebooted", "to": "today"})
        assert "nas rebooted" in (root / "memory/episodic/2026-11-30.md").read_text()
        assert text_of(today) == "appended to memory/episodic/2026-11-30.md: nas rebooted"
        end = await client.call_tool("memory_session_end", {})
        assert text_of(end).startswith("rotated working buffer: ")
        again = await client.call_tool("memory_session_end", {})
        assert text_of(again) == "nothing to rotate"
        await client.call_tool("memory_task", {"action": "add", "task": "next"})
        rotated = await client.call_tool("memory_rotate", {})
        assert "into memory/episodic/2026-11-30.md" in text_of(rotated)
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
    text = text_of(result)
    assert secret not in text and "redacted 1 secret(s)" in text


async def test_learn_and_promote(server: Any, root: Path) -> None:
    async with sdk_client(server) as client:
        learned = await client.call_tool(
            "memory_learn", {"kind": "learning", "text": "always pin the rg version"}
        )
        assert text_of(learned).startswith("added to .learnings/LEARNINGS.md:")
        plan = await client.call_tool(
            "memory_promote",
            {"lesson": "always pin the rg version", "file": "memory/procedural/tools.md"},
        )
        assert "confirm=true" in text_of(plan)
        assert not (root / "memory/procedural/tools.md").exists()
        done = await client.call_tool(
            "memory_promote",
            {
                "lesson": "always pin the rg version",
                "file": "memory/procedural/tools.md",
                "confirm": True,
            },
        )
        assert not done.is_error and "confirm=true" not in text_of(done)
    assert "always pin the rg version" in (root / "memory/procedural/tools.md").read_text()


async def test_facts_remember_get_replace_retire_verify(server: Any, root: Path) -> None:
    infra = "memory/semantic/infrastructure.md"
    async with sdk_client(server) as client:
        kept = await client.call_tool(
            "memory_remember", {"text": "nas01 runs Ubuntu 24.04", "kind": "infrastructure"}
        )
        assert not kept.is_error, text_of(kept)
        line = int(text_of(kept).split(":")[1])  # remembered in FILE:LINE: …
        got = await client.call_tool("memory_get", {"path": infra, "from_line": line})
        assert "nas01 runs Ubuntu 24.04" in text_of(got).split("\n")[0]
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
    text = text_of(result)
    assert len(text) <= 600
    found = re.search(r"memory_get\(path='memory/procedural/long.md', from_line=(\d+)", text)
    assert found is not None
    next_from = int(found.group(1))
    assert f"{next_from - 1}  - step {next_from - 1} of" in text
    rest = await call_tool(
        server, "memory_get", path="memory/procedural/long.md", from_line=next_from
    )
    assert text_of(rest).lstrip().startswith(f"{next_from}  - step {next_from}")


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
    assert len(hits_of(found)) == 12
    small = await call_tool(server, "memory_search", query="backup job", limit=12, max_chars=800)
    text = text_of(small)
    assert len(text) <= 800
    hits = hits_of(small)
    assert 0 < len(hits) < 12  # fewer whole results, not one cut in the middle
    assert f"{len(hits)} of 12 shown; memory_search with limit={len(hits)}" in text
    assert hits[0].startswith("memory/semantic/infrastructure.md:")


async def test_search_archive_when_asked_or_nothing_live(server: Any, root: Path) -> None:
    folder = root / "memory/archive/2026/01"
    folder.mkdir(parents=True)
    (folder / "2026-01-02.md").write_text("# 2026-01-02\n- zanzibar migration\n")
    plain = await call_tool(server, "memory_search", query="zanzibar")
    # PROTOCOL §9 v4: no live hit, so the archive is searched too.
    assert hits_of(plain) and hits_of(plain)[0].startswith("memory/archive/")
    assert "searched the archive too" in text_of(plain)
    archived = await call_tool(server, "memory_search", query="zanzibar", tiers=["archive"])
    assert hits_of(archived)[0].startswith("memory/archive/")


async def test_health_names_the_fix(server: Any, root: Path) -> None:
    prefs = root / "memory/semantic/preferences.md"
    lines = prefs.read_text().split("\n")
    lines[2] = "last_verified: 2025-01-01"
    prefs.write_text("\n".join(lines))
    result = await call_tool(server, "memory_health")
    text = text_of(result)
    assert "All required checks passed" not in text
    # PROTOCOL §6 (v4): one fix per failure, as a tool call, never a shell command.
    assert text.count("memory_verify(files=['memory/semantic/preferences.md'])") == 1
    assert "To fix:" not in text
    assert re.search(r"(?<![\w-])--[a-z]|\bmemtier [a-z]|then run", text) is None, text
    # The same report as the command line's, line for line, in the tool's words.
    from memtier.health.report import run_health_check
    from memtier.workspace import Workspace
    from tests.conftest import NOW

    shell = list(run_health_check(Workspace.open(root, NOW)).text_lines())
    assert len(text.split("\n")) == len(shell)
    assert "memtier verify memory/semantic/preferences.md" in "\n".join(shell)


async def test_overview(server: Any, root: Path) -> None:
    from memtier.search import SearchRequest, search
    from memtier.workspace import Workspace
    from tests.conftest import NOW

    search(Workspace.open(root, NOW), SearchRequest(query="quokka"))  # as the CLI: logged
    async with sdk_client(server) as client:
        await client.call_tool("memory_search", {"query": "wombat"})
        result = await client.call_tool("memory_overview", {})
    text = text_of(result)
    assert "quokka" in text and "wombat" not in text
    assert "Files per tier" in text and "memtier " not in text
    assert text.endswith("No promotion candidates")


async def test_overlapping_calls_of_one_server_lose_no_write(server: Any, root: Path) -> None:
    """The SDK runs tools on worker threads; the lock alone keeps each write whole."""
    import anyio

    from memtier.formats.buffer import parse_buffer

    async def notes(tag: str) -> None:
        async with sdk_client(server, raise_exceptions=True) as client:
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
    async with sdk_client(server) as client:
        first = await client.call_tool("memory_search", {"query": "wallaby"})
        assert hits_of(first) == []
        infra = root / "memory/semantic/infrastructure.md"
        infra.write_text(infra.read_text() + "- the wallaby host runs backups\n")
        second = await client.call_tool("memory_search", {"query": "wallaby"})
        assert hits_of(second)[0].startswith("memory/semantic/infrastructure.md:")
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
        return hits_of(result)

    note = root / "memory/episodic/2026-11-20.md"
    async with sdk_client(server) as client:
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
    note = "warning: no exact match; showing results for 'ceramic'"
    assert text_of(result).startswith(note)
    assert hits_of(result)[0].startswith("memory/episodic/2026-10-01")
    plain = await call_tool(server, "memory_search", query="ceramics")
    assert "warning:" not in text_of(plain)


async def test_session_start_at_a_small_budget_cuts_memory_md_last_and_names_each_file_once(
    server: Any, root: Path
) -> None:
    """PROTOCOL §11 v4 (found with real clients): at a small budget the buffer gave way
    after MEMORY.md, and the Open: line's note was named twice among the parts left out."""
    hot = root / "MEMORY.md"
    hot.write_text(hot.read_text() + "".join(f"- fact {n} about the fleet\n" for n in range(12)))
    buffer = root / "memory/working-buffer.md"
    buffer.write_text(buffer.read_text() + "".join(f"- finding {n}\n" for n in range(30)))
    (root / "memory/episodic/2026-11-30.md").write_text(
        "# 2026-11-30\n\n- today\n\nUpdated: 2026-11-30\nDecisions: d\nSignal: s\nOpen: renew\n"
    )
    whole = len(hot.read_text())
    for budget in (600, 900, whole + 700):
        text = text_of(await call_tool(server, "memory_session_start", max_chars=budget))
        assert len(text) <= budget
        named = text.split("budget: ")[1].split("]")[0].split(", ") if "[not shown" in text else []
        assert len(named) == len(set(named)), named
        memory_cut = "the rest: memory_get(path='MEMORY.md'" in text
        buffer_shown = "- finding 0" in text
        assert not (memory_cut and buffer_shown), budget  # the buffer gives way first
    assert not memory_cut and "- fact 11 about the fleet" in text  # MEMORY.md whole
    assert "memory/working-buffer.md', from_line=" in text  # the buffer cut instead


async def test_close_day_drops_one_settled_open_item(server: Any, root: Path) -> None:
    """PROTOCOL §14 (v4): the tool server settles a sync conflict's item as the CLI's
    `episodic close --drop` does, and health words that fix as this call."""
    given = {"decisions": "d", "signal": "s", "replace": True}
    items = "watch the backup; settle sync conflict s-1a2b3c4d in MEMORY.md"
    closed = await call_tool(server, "memory_close_day", open=items, **given)
    assert not closed.is_error, text_of(closed)
    note = root / "memory/episodic/2026-11-30.md"
    dropped = await call_tool(server, "memory_close_day", drop="s-1a2b3c4d")
    assert not dropped.is_error, text_of(dropped)
    assert note.read_text().rstrip("\n").rsplit("\n", 1)[1] == "Open: watch the backup"
    alone = await call_tool(server, "memory_close_day", drop="backup", decisions="x")
    assert alone.is_error and "drop goes alone" in text_of(alone)
    missing = await call_tool(server, "memory_close_day", decisions="x")
    assert missing.is_error and "missing signal, open" in text_of(missing)


def test_the_drop_fix_is_worded_by_each_face() -> None:
    from memtier.errors import Term
    from memtier.mcp.words import tool_words

    parts = (Term("close_drop", arg="s-1a2b3c4d"), Term("on_date", arg="2026-11-29"))
    shell = "".join(str(part) for part in parts)
    tool = "".join(tool_words(part) for part in parts)
    assert shell == "memtier episodic close --drop s-1a2b3c4d --date 2026-11-29"
    assert tool == "memory_close_day(drop='s-1a2b3c4d', date='2026-11-29')"


async def test_a_restated_fact_is_refused_and_force_keeps_it(server: Any, root: Path) -> None:
    """PROTOCOL §10 (v4) through the tool server: the refusal names the tool's own
    parameter, and that parameter keeps the fact."""
    first = "nas01: Synology DS920+, 192.168.1.10, four disks in SHR"
    made = await call_tool(server, "memory_remember", text=first, kind="infrastructure")
    assert not made.is_error, text_of(made)
    restated = "nas01: Synology DS920+, 192.168.1.10"
    refused = await call_tool(server, "memory_remember", text=restated, kind="infrastructure")
    assert refused.is_error
    assert "force=true" in text_of(refused) and "--force" not in text_of(refused)
    kept = await call_tool(
        server, "memory_remember", text=restated, kind="infrastructure", force=True
    )
    assert not kept.is_error, text_of(kept)
    infra = (root / "memory/semantic/infrastructure.md").read_text()
    assert infra.count("nas01: Synology DS920+") == 2
