"""Every tool the skill names exists, and everything the skill asks of an agent has a tool
or is named as the person's shell step (PROTOCOL §11 v4)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.conftest import REPO
from tests.mcp.conftest import NEEDS_SDK

pytestmark = NEEDS_SDK

SKILL = (REPO / "SKILL.md").read_text(encoding="utf-8")
TOOLS_SECTION = SKILL.split("## 9. When you have memtier as tools (MCP)")[1].split("\n## ")[0]
SUBCOMMANDS = ("buffer", "episodic", "index", "sync", "tags")
COMMAND = re.compile(rf"memtier ((?:{'|'.join(SUBCOMMANDS)}) [a-z-]+|[a-z-]+)")


@pytest.mark.anyio
async def test_every_tool_the_skill_names_exists_and_every_tool_is_named(server: Any) -> None:
    from mcp import Client

    async with Client(server) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
    named = set(re.findall(r"\bmemory_[a-z_]+", SKILL))
    assert named <= listed, named - listed
    assert listed <= set(re.findall(r"\bmemory_[a-z_]+", TOOLS_SECTION)), listed - named


def test_every_command_the_skill_gives_has_a_tool_or_is_the_persons() -> None:
    """Each `memtier …` the skill tells an agent to run is in the tool section: in the
    table beside its tool, or in the list of the person's shell steps."""
    elsewhere = SKILL.replace(TOOLS_SECTION, "")
    code = re.findall(r"`(memtier [^`]+)`", elsewhere)
    code += re.findall(r"(?:```|~~~)sh\n(.*?)(?:```|~~~)", elsewhere, flags=re.S)
    given = {c for text in code for c in COMMAND.findall(text)} - {"mcp"}  # the server itself
    covered = set(re.findall(r"`([a-z][a-z -]*?)(?: \(|`)", TOOLS_SECTION))
    missing = {
        c
        for c in given
        if not any(k in (c, c.split(" ")[0]) or k.startswith(c + " ") for k in covered)
    }
    assert not missing, sorted(missing)
