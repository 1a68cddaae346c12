"""What a client receives is what is bounded (PROTOCOL §11 v3, v4), through the SDK's
real stdio client and a real `memtier mcp` process, on a large workspace.

An answer is paid once (v4): clients pass the content blocks, the structured content,
or both, so the sum of everything a result holds stays within max_chars + 600
characters, for every tool, reading or writing; a result holds one text block and no
structured content. The tool list, which a client sends on every turn, stays within
12,000 characters of compact JSON. The bounds are measured over stdio; the checks on
what a result says and what the tool list holds read the same server in-process,
where they are the same objects without a process to start.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.conftest import NEEDS_SDK, call_tool, sdk_client, stdio_params

pytestmark = [pytest.mark.anyio, NEEDS_SDK]

ENVELOPE = 600
TOOL_LIST_MAX = 12_000
WRITE_BUDGET = 2000  # a write has no max_chars: it reports in at most this much
SECRET = "ghp_" + "Z" * 36
INFRA = "memory/semantic/infrastructure.md"
TERMS = [f"backup term {n}" for n in range(100)]


def _large(root: Path) -> None:
    """Every tier full: a 1.5 MB WARM file, a long buffer, notes, lessons, a long HOT file
    (the WARM file does not match the searches: ranking 20,000 hits of one file is slow,
    and what is measured here is the bound, not the search)."""
    hot = root / "MEMORY.md"
    hot.write_text(hot.read_text() + "".join(f"- key fact {n} {'h' * 90}\n" for n in range(45)))
    infra = root / "memory/semantic/infrastructure.md"
    infra.write_text(
        infra.read_text() + "".join(f"- host{n} serves {'x' * 60}\n" for n in range(20_000))
    )
    buffer = root / "memory/working-buffer.md"
    buffer.write_text(
        buffer.read_text() + "".join(f"- backup finding {n} {'b' * 80}\n" for n in range(150))
    )
    for day in range(1, 30):
        (root / f"memory/episodic/2026-11-{day:02d}.md").write_text(
            f"# 2026-11-{day:02d}\n"
            + "".join(f"- backup event {n} {'e' * 70}\n" for n in range(300))
            + f"Updated: 2026-11-{day:02d}\nDecisions: {'d' * 900}\nSignal: s\nOpen: {'o' * 3000}\n"
        )
    # A topic index of 11 topics, each found on every day; one of them, backups, due
    # for consolidation with 29 days of 300 matching lines each.
    from memtier.formats.index import IndexEntry, render_index

    topics = [IndexEntry("backups", "projects", ("backup event",))]
    topics += [  # deprecated: never due, so the flush writes one generation, not 11
        IndexEntry(f"topic-{n}", "events", (f"backup event {n}",), "deprecated") for n in range(10)
    ]
    (root / "memory/INDEX.md").write_text(render_index(topics))
    errors = root / ".learnings/ERRORS.md"
    errors.write_text(
        errors.read_text() + "".join(f"- backup lesson {n} {'l' * 100}\n" for n in range(400))
    )


def passed_on(result: Any) -> int:
    """Everything a client may pass to the model: every text block and, were there
    one, the structured result as JSON."""
    blocks = sum(len(block.text) for block in result.content if block.type == "text")
    if result.structured_content is None:
        return blocks
    return blocks + len(json.dumps(result.structured_content, ensure_ascii=False))


CALLS: list[tuple[str, dict[str, Any], int]] = [
    ("memory_session_start", {"max_chars": 1000}, 1000),
    ("memory_session_start", {}, 8000),
    ("memory_search", {"query": "backup", "limit": 50}, 8000),
    ("memory_search", {"query": "backup nightly nas01", "limit": 200, "max_chars": 1000}, 1000),
    ("memory_get", {"path": "memory/semantic/infrastructure.md", "max_chars": 1000}, 1000),
    ("memory_get", {"path": "memory/semantic/infrastructure.md"}, 8000),
    ("memory_get", {"date": "2026-11-03", "max_chars": 500}, 500),
    ("memory_health", {"verbose": True, "max_chars": 1000}, 1000),
    ("memory_overview", {"max_chars": 1000}, 1000),
    ("memory_note", {"text": "n " * 1_000_000}, WRITE_BUDGET),
    ("memory_note", {"text": "t " * 200_000, "to": "today"}, WRITE_BUDGET),
    ("memory_task", {"action": "add", "task": "task " * 20_000}, WRITE_BUDGET),
    ("memory_task", {"action": "done", "task": 1}, WRITE_BUDGET),
    ("memory_learn", {"kind": "learning", "text": "lesson " * 20_000}, WRITE_BUDGET),
    ("memory_remember", {"text": "fact " * 20_000, "kind": "project"}, WRITE_BUDGET),
    (
        "memory_replace",
        {
            "old": "host7 serves",
            "new": "host7 " * 20_000,
            "file": "memory/semantic/infrastructure.md",
        },
        WRITE_BUDGET,
    ),
    (
        "memory_retire",
        {
            "old": "host8 serves",
            "file": "memory/semantic/infrastructure.md",
            "reason": "r " * 20_000,
        },
        WRITE_BUDGET,
    ),
    ("memory_verify", {"stale": True}, WRITE_BUDGET),
    (
        "memory_promote",
        {
            "lesson": "backup lesson 3",
            "file": "memory/procedural/backups.md",
            "as_text": "a " * 20_000,
        },
        WRITE_BUDGET,
    ),
    (
        "memory_close_day",
        {"decisions": "d " * 20_000, "signal": "s", "open": "o " * 20_000},
        WRITE_BUDGET,
    ),
    ("memory_session_end", {}, WRITE_BUDGET),
    ("memory_rotate", {}, WRITE_BUDGET),
    ("memory_recall", {"text": "do you remember the backup", "max_chars": 1000}, 1000),
    ("memory_consolidate", {"topic": "due", "max_chars": 1000}, 1000),
    ("memory_recall", {"text": "backup", "all": True}, 8000),
    (
        "memory_index",
        {"action": "add", "slug": "many-terms", "category": "projects", "match": TERMS},
        WRITE_BUDGET,
    ),
    ("memory_index", {"action": "set", "slug": "many-terms", "match": TERMS[::-1]}, WRITE_BUDGET),
    ("memory_index", {}, 8000),  # 11 topics, each dated every day
    ("memory_flush", {"date": "2026-11-03", "consolidate": True}, WRITE_BUDGET),
    ("memory_sync", {"push": False}, WRITE_BUDGET),
    # errors are bounded too, and never echo a value
    ("memory_note", {"text": [SECRET]}, WRITE_BUDGET),
    ("memory_get", {"path": "memory/nope.md"}, WRITE_BUDGET),
]


@pytest.mark.slow  # a real stdio server over a large workspace: about a minute when loaded
async def test_every_tool_answers_once_within_the_budget(root: Path) -> None:
    _large(root)
    largest: dict[str, int] = {}
    async with sdk_client(stdio_params(root)) as client:
        listed = (await client.list_tools()).tools
        for name, arguments, budget in CALLS:
            result = await client.call_tool(name, arguments)
            assert result.structured_content is None, name  # one channel (§11 v4)
            assert [block.type for block in result.content] == ["text"], name
            size = passed_on(result)
            assert size <= budget + ENVELOPE, (name, arguments.keys(), size)
            if result.is_error:
                assert SECRET not in result.content[0].text
            largest[name] = max(largest.get(name, 0), size)
    assert set(largest) == {tool.name for tool in listed}  # every tool was measured
    print("\nlargest answer per tool (characters a client may pass on):")
    for name, size in sorted(largest.items()):
        print(f"  {name:22} {size:6}")


async def test_a_cut_result_says_how_to_get_the_rest(root: Path, server: Any) -> None:
    _large(root)
    for name, arguments, more in (
        ("memory_session_start", {"max_chars": 1000}, "memory_get(path='MEMORY.md', from_line="),
        (
            "memory_search",
            {"query": "backup", "limit": 50, "max_chars": 1000},
            "memory_search with limit=",
        ),
        (
            "memory_get",
            {"path": "memory/semantic/infrastructure.md", "max_chars": 1000},
            "memory_get(path='memory/semantic/infrastructure.md', from_line=",
        ),
    ):
        result = await call_tool(server, name, **arguments)
        assert result.structured_content is None, name
        text = result.content[0].text
        assert len(text) <= 1000 and more in text, (name, text[-300:])


async def test_the_tool_list_fits_in_twelve_thousand_characters(server: Any) -> None:
    """Compact JSON, as the list crosses the wire (the SDK writes no spaces)."""
    async with sdk_client(server) as client:
        tools = (await client.list_tools()).tools
    serialized = json.dumps(
        [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools],
        separators=(",", ":"),
        ensure_ascii=False,
    )
    assert len(tools) == 21
    assert len(serialized) <= TOOL_LIST_MAX, len(serialized)
