"""Arguments are checked strictly and refused in one line of memtier's (PROTOCOL §11 v3, §3).

Before, the SDK's lax model stored ``memory_task(task=True)`` as the task ``1``,
dropped an unknown argument without a word (``as`` for ``as_text``), and refused a
wrong type with pydantic's multi-line text quoting the value, a secret included.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.mcp.conftest import NEEDS_SDK, call_tool, text_of

pytestmark = [pytest.mark.anyio, NEEDS_SDK]

SECRET = "ghp_" + "Q" * 36


def _one_line_error(result: Any) -> str:
    assert result.is_error
    text = text_of(result)
    assert "\n" not in text and "input_value" not in text and "pydantic" not in text, text
    assert SECRET not in text and "errors.pydantic.dev" not in text
    return text


async def test_a_list_for_a_string_names_the_parameter_and_type(server: Any, root: Path) -> None:
    before = (root / "memory/working-buffer.md").read_text()
    text = _one_line_error(await call_tool(server, "memory_note", text=[SECRET]))
    assert text == "memtier: error: memory_note: text must be a string (got a list)"
    assert (root / "memory/working-buffer.md").read_text() == before


async def test_a_value_outside_the_choices_is_never_quoted(server: Any) -> None:
    text = _one_line_error(await call_tool(server, "memory_learn", kind=SECRET, text="x y z"))
    assert text == (
        "memtier: error: memory_learn: kind must be one of 'error', 'learning', 'feature' "
        "(got a string)"
    )


async def test_a_boolean_is_not_a_task(server: Any, root: Path) -> None:
    text = _one_line_error(await call_tool(server, "memory_task", action="add", task=True))
    assert "task must be a string or an integer (got a boolean)" in text
    assert "- 1" not in (root / "memory/working-buffer.md").read_text()


async def test_no_coercion_of_numbers_and_strings(server: Any) -> None:
    text = _one_line_error(await call_tool(server, "memory_get", path="MEMORY.md", from_line="3"))
    assert "from_line must be an integer of at least 1 (got a string)" in text
    text = _one_line_error(await call_tool(server, "memory_search", query="x", regex="yes"))
    assert "regex must be true or false (got a string)" in text


async def test_an_unknown_argument_is_refused_not_ignored(server: Any, root: Path) -> None:
    (root / ".learnings/ERRORS.md").write_text(
        (root / ".learnings/ERRORS.md").read_text() + "- nginx: [emerg] bind failed\n"
    )
    result = await call_tool(
        server,
        "memory_promote",
        lesson="nginx: [emerg] bind failed",
        file="memory/procedural/nginx.md",
        confirm=True,
        **{"as": "check the port before reloading nginx"},
    )
    text = _one_line_error(result)
    assert "memory_promote: unknown parameter 'as'" in text and "as_text" in text
    assert not (root / "memory/procedural/nginx.md").exists()


async def test_a_missing_argument_is_named(server: Any) -> None:
    text = _one_line_error(await call_tool(server, "memory_retire", old="x", file="MEMORY.md"))
    assert "memory_retire: reason is required" in text


async def test_promote_writes_the_advice_given_as_text(server: Any, root: Path) -> None:
    (root / ".learnings/ERRORS.md").write_text(
        (root / ".learnings/ERRORS.md").read_text() + "- nginx: [emerg] bind() to 0.0.0.0:80\n"
    )
    result = await call_tool(
        server,
        "memory_promote",
        lesson="nginx: [emerg] bind() to 0.0.0.0:80",
        file="memory/procedural/nginx.md",
        as_text="free port 80 before reloading nginx",
        confirm=True,
    )
    assert not result.is_error, text_of(result)
    written = (root / "memory/procedural/nginx.md").read_text()
    assert "free port 80 before reloading nginx" in written
    assert "[emerg]" not in written
