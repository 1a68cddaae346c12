"""The hostile tester's repros of issue 19 about facts and secrets.

A fact disguised as another (NFD, fullwidth letters, a zero-width space, Cyrillic
look-alikes) is a duplicate; a fact without a letter or digit is refused; a
heading is never retired; a token hard-wrapped across two lines never reaches
the file in halves. Each through the CLI's entry point, and the facts through the
tool server's tools too (PROTOCOL §3, §10, §11).
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import NOW_TEXT, memtier_in_process

INFRA = "memory/semantic/infrastructure.md"
FACT = "nas01 runs Ubuntu 24.04 on the backup shelf"
# The same fact as people read it, spelled otherwise.
DISGUISES = {
    "NFD": unicodedata.normalize("NFD", "nas01 runs Ubüntu 24.04 on the backup shelf"),
    "fullwidth": "ｎａｓ０１ runs Ubuntu 24.04 on the backup shelf",
    "zero-width space": "nas01 runs Ubu\u200bntu 24.04 on the backup shelf",
    "Cyrillic look-alikes": "n\u0430s01 runs Ubuntu 24.04 \u043en th\u0435 backup sh\u0435lf",
    "bidi control": "nas01 runs \u202eUbuntu 24.04 on the backup shelf",
}
WITH_UMLAUT = "nas01 runs Ubüntu 24.04 on the backup shelf"


def _memtier(root: Path, *args: str, input: str = "") -> Any:
    return memtier_in_process("--root", str(root), "--now", NOW_TEXT, *args, input=input)


@pytest.mark.parametrize("how", list(DISGUISES))
def test_a_disguised_duplicate_is_refused(root: Path, how: str) -> None:
    original = WITH_UMLAUT if how == "NFD" else FACT
    assert _memtier(root, "remember", original, "--kind", "infrastructure").returncode == 0
    before = (root / INFRA).read_bytes()
    again = _memtier(root, "remember", DISGUISES[how], "--kind", "infrastructure")
    assert again.returncode == 1, (how, again.stdout, again.stderr)
    assert "already stands" in again.stderr
    assert (root / INFRA).read_bytes() == before


@pytest.mark.parametrize("text", ["---", "\u200b", "- \u200b\u200d", "***", "…"])
def test_a_fact_without_a_letter_or_digit_is_refused_every_time(root: Path, text: str) -> None:
    before = (root / INFRA).read_bytes()
    for _ in range(2):
        done = _memtier(root, "remember", text, "--kind", "infrastructure")
        assert done.returncode == 2, (text, done.stderr)
        assert "letter or digit" in done.stderr
    assert (root / INFRA).read_bytes() == before


def test_retire_never_removes_a_heading(root: Path) -> None:
    hot = root / "MEMORY.md"
    hot.write_text(hot.read_text(encoding="utf-8") + "\n## Always true\n\n- keep it simple\n")
    before = hot.read_bytes()
    done = _memtier(root, "retire", "## Always true", "--in", "MEMORY.md", "--reason", "x")
    assert done.returncode == 1
    assert "heading" in done.stderr
    assert hot.read_bytes() == before
    replaced = _memtier(root, "replace", "Always true", "Sometimes", "--in", "MEMORY.md")
    assert replaced.returncode == 1
    assert hot.read_bytes() == before


def test_a_wrapped_token_never_reaches_the_file_in_halves(root: Path) -> None:
    token = "gh" + "p_" + "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVb"
    text = "CI pushes with " + token[:18] + "\n" + token[18:] + " since Monday\n"
    done = _memtier(root, "remember", "-", "--kind", "infrastructure", input=text)
    assert done.returncode == 0, done.stderr
    stored = (root / INFRA).read_text(encoding="utf-8")
    assert token[:18] not in stored and token[18:] not in stored
    assert "- CI pushes with [REDACTED:GITHUB_TOKEN] since Monday" in stored
    assert "GITHUB_TOKEN" in done.stderr + done.stdout
    note = _memtier(root, "buffer", "note", "-", input=text)
    assert note.returncode == 0, note.stderr
    buffer = (root / "memory/working-buffer.md").read_text(encoding="utf-8")
    assert token[18:] not in buffer


@pytest.mark.anyio
async def test_the_tool_server_refuses_the_same(root: Path) -> None:
    pytest.importorskip("mcp")
    from memtier.mcp.runtime import ToolRuntime
    from memtier.mcp.server import build_server
    from tests.mcp.conftest import call_tool, text_of

    server = build_server(ToolRuntime(root=str(root), now=NOW_TEXT))
    first = await call_tool(server, "memory_remember", text=FACT, kind="infrastructure")
    assert not first.is_error, text_of(first)
    before = (root / INFRA).read_bytes()
    for text in DISGUISES.values():
        if text == DISGUISES["NFD"]:
            continue
        result = await call_tool(server, "memory_remember", text=text, kind="infrastructure")
        assert result.is_error and "already stands" in text_of(result), text
    empty = await call_tool(server, "memory_remember", text="---", kind="infrastructure")
    assert empty.is_error and "letter or digit" in text_of(empty)
    hot = root / "MEMORY.md"
    hot.write_text(hot.read_text(encoding="utf-8") + "\n## Always true\n")
    heading = await call_tool(
        server, "memory_retire", old="## Always true", file="MEMORY.md", reason="x"
    )
    assert heading.is_error
    assert "## Always true" in hot.read_text(encoding="utf-8")
    assert (root / INFRA).read_bytes() == before
