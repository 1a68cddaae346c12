"""Core errors reach a model in tool terms, never in the command line's (issue 20, §11 v3).

Each call below fails in the core (the topic commands, the rotation marker, the
clock's range, the closure block's fields, a search's pattern, sync's refusals); the
core names the parameter at fault or the operation that fixes it as a
`memtier.errors.Term`, and the tool server words it. No face rewrites the other's
text: the source of both faces holds no ``.replace`` on a message.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import NOW_TEXT, REPO
from tests.source_trees import tree_of

CLI_WORDS = re.compile(r"(?<![\w-])--[a-z]|\bmemtier [a-z]")


def _index(root: Path) -> None:
    """One topic, `qdrant`, with one note that mentions it."""
    from datetime import datetime

    from memtier.commands.topics.index import index_add
    from memtier.workspace import Workspace
    from tests.conftest import NOW_TEXT

    note = root / "memory" / "episodic" / "2026-04-01.md"
    note.write_text("# 2026-04-01\n\n- qdrant moved to the new host\n", encoding="utf-8")
    index_add(Workspace.open(root, datetime.fromisoformat(NOW_TEXT)), "qdrant", "projects")


FAILING_CALLS: tuple[tuple[str, dict[str, Any], str], ...] = (
    ("memory_consolidate", {"topic": "qdrant", "summary": "x", "confirm": True}, "plan_id"),
    ("memory_consolidate", {"topic": "due", "summary": "x", "plan_id": "p-1"}, "summary"),
    ("memory_consolidate", {"topic": "qdrant", "summary": " ", "plan_id": "p-1"}, "summary"),
    ("memory_consolidate", {"topic": "qdrant", "summary": "- a", "plan_id": "p-0"}, "unknown"),
    ("memory_consolidate", {"topic": "nope"}, "no topic 'nope'"),
    (
        "memory_close_day",
        {"decisions": "d", "signal": "s", "open": "o", "date": "9999-01-01"},
        "date",
    ),
    ("memory_note", {"text": "x", "to": "today", "date": "1800-01-01"}, "date"),
    ("memory_close_day", {"decisions": " ", "signal": "s", "open": "o"}, "decisions"),
    ("memory_close_day", {"decisions": "d", "signal": "s", "open": " "}, "open"),
    ("memory_search", {"query": "", "regex": True}, "regex=true needs a non-empty pattern"),
    ("memory_search", {"query": "(", "regex": True}, "invalid search pattern"),
    ("memory_search", {"query": "x", "limit": 0}, "limit"),
    ("memory_sync", {}, "sync is not set up"),
)


@pytest.mark.anyio
@pytest.mark.parametrize(("tool", "arguments", "wanted"), FAILING_CALLS)
async def test_core_errors_name_tool_parameters_and_calls(
    server: Any, root: Path, tool: str, arguments: dict[str, Any], wanted: str
) -> None:
    from tests.mcp.conftest import call_tool, text_of

    _index(root)
    result = await call_tool(server, tool, **arguments)
    text = text_of(result)
    assert result.is_error and wanted in text, text
    assert CLI_WORDS.search(text) is None, text


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("residue", "tool", "arguments"),
    [
        ("working-buffer.md.lock", "memory_rotate", {}),
        ("working-buffer.md.pending", "memory_note", {"text": "x"}),
    ],
)
async def test_rotation_residue_names_the_session_start_tool(
    server: Any, root: Path, residue: str, tool: str, arguments: dict[str, Any]
) -> None:
    from tests.mcp.conftest import call_tool, text_of

    (root / "memory" / residue).write_text("", encoding="utf-8")
    result = await call_tool(server, tool, **arguments)
    text = text_of(result)
    assert result.is_error and "memory_session_start" in text, text
    assert CLI_WORDS.search(text) is None, text


needs_git = pytest.mark.skipif(__import__("shutil").which("git") is None, reason="needs git")


@pytest.mark.anyio
@needs_git
async def test_sync_refusals_name_tools_and_the_persons_step(tmp_path: Path) -> None:
    """memory_sync on a host that is set up: a rotation marker names the session-start
    tool; a missing merge driver, the person's set-up step (no tool does it)."""
    from memtier.mcp.runtime import ToolRuntime
    from memtier.mcp.server import build_server
    from tests.mcp.conftest import call_tool, text_of
    from tests.sync_support import NOW, git, hosts

    _remote, (host,) = hosts(tmp_path, 1)
    server = build_server(ToolRuntime(root=str(host), now=NOW))
    marker = host / "memory" / "working-buffer.md.lock"
    marker.write_text("", encoding="utf-8")
    result = await call_tool(server, "memory_sync")
    text = text_of(result)
    assert result.is_error and "run memory_session_start first" in text, text
    assert CLI_WORDS.search(text) is None, text
    marker.unlink()
    git(host, "config", "--unset", "merge.memtier-note.driver")
    result = await call_tool(server, "memory_sync")
    text = text_of(result)
    assert result.is_error and "memtier-note" in text, text
    assert "the person sets up sync on this host" in text, text
    assert CLI_WORDS.search(text) is None, text


def test_the_cli_words_search_and_sync_errors_as_flags_and_commands(cli: Any, root: Path) -> None:
    for args, wanted in (
        (("search", "", "--regex"), "--regex needs a non-empty pattern"),
        (("search", "x", "--limit", "0"), "--limit must be at least 1"),
        (("search", "x", "--context", "-1"), "--context must be 0 or more"),
        (("recent-searches", "--limit", "0"), "--limit must be at least 1"),
        (("episodic", "close", "--decisions", " ", "--signal", "s", "--open", "o"), "--decisions:"),
        (("episodic", "close", "--decisions", "d", "--signal", "s", "--open", " "), "--open:"),
        (("sync",), "(set it up: memtier sync init REMOTE)"),
    ):
        done = cli("--root", str(root), *args)
        assert done.exit_code != 0 and wanted in done.stderr, (args, done.stderr)


def test_the_cli_words_the_same_errors_as_flags_and_commands() -> None:
    from memtier.clock import require_in_range
    from memtier.commands.rotation import LOCK_PRESENT_MESSAGE
    from memtier.errors import InputError, RefusedError

    with pytest.raises(InputError) as caught:
        from datetime import date

        require_in_range(date(9999, 1, 1))
    assert caught.value.message.startswith("--date: 9999-01-01 is out of range")
    assert RefusedError(LOCK_PRESENT_MESSAGE).message.endswith("run memtier session-start")


def test_no_face_rewrites_a_message_with_replace() -> None:
    """``str.replace`` in the two faces is used only on help text, never on a message
    (the one exception: click's own usage line, whose ``\\n`` escapes are restored so
    a credential quoted in it is recognised and redacted)."""
    allowed = {("memtier/cli/_app.py", "get_help"), ("memtier/cli/_app.py", "_parse_and_run")}
    found = []
    for face in ("cli", "mcp"):
        for path in sorted((REPO / "memtier" / face).rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            tree = tree_of(path)
            for func in ast.walk(tree):
                if not isinstance(func, ast.FunctionDef):
                    continue
                for node in ast.walk(func):
                    call = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    if call and node.func.attr == "replace" and (rel, func.name) not in allowed:  # type: ignore[union-attr]
                        found.append(f"{rel}:{node.lineno} ({func.name})")
    assert found == []


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("tool", "arguments", "wanted"),
    [
        # a plan names the call that writes it (the core's line, worded by the server)
        ("memory_consolidate", {"topic": "qdrant"}, "memory_consolidate(topic='qdrant', confirm"),
        # a story cut to its budget names the tool that reads a source whole
        ("memory_recall", {"text": "recall qdrant", "max_chars": 500}, "memory_get(path="),
    ],
)
async def test_results_name_tools_not_commands(
    server: Any, root: Path, tool: str, arguments: dict[str, Any], wanted: str
) -> None:
    """A successful result that names how to go on names a tool call (§11 v3)."""
    from tests.mcp.conftest import call_tool, text_of

    _index(root)
    for day in range(2, 30):  # enough lines for the recall to be cut at 500 characters
        note = root / "memory" / "episodic" / f"2026-04-{day:02d}.md"
        note.write_text(f"# 2026-04-{day:02d}\n\n- qdrant step {day} {'x' * 40}\n", "utf-8")
    result = await call_tool(server, tool, **arguments)
    text = text_of(result)
    assert not result.is_error and wanted in text, text
    assert CLI_WORDS.search(text) is None, text


def test_a_recurring_lesson_names_the_overview_tool_to_a_model_and_the_command_to_a_shell() -> None:
    from memtier.commands.learnings import LearnResult
    from memtier.mcp.words import tool_words

    result = LearnResult(
        file=".learnings/LEARNINGS.md", line=3, entry="x", occurrences=3, flagged="f:3"
    )
    assert "memtier candidates" in "\n".join(result.text_lines())
    told = "\n".join(result.worded_lines(tool_words))
    assert "memory_overview" in told and CLI_WORDS.search(told) is None, told


def test_the_cli_still_names_the_commands_in_a_plan(cli: Any, root: Path) -> None:
    _index(root)
    result = cli("--root", str(root), "--now", NOW_TEXT, "consolidate", "qdrant", "--plan")
    assert result.exit_code == 0, result.stderr
    assert (
        "write it: memtier consolidate qdrant; with a summary: memtier consolidate qdrant --plan-id"
        in result.stdout
    )


@pytest.mark.anyio
async def test_remember_without_a_kind_says_so_in_tool_terms(server: Any) -> None:
    """Issue 33: the note said `no --kind or --to`; a model knows `kind` and `file`."""
    from tests.mcp.conftest import call_tool, text_of

    result = await call_tool(server, "memory_remember", text="the nas has 4 disks")
    text = text_of(result)
    assert not result.is_error, text
    assert "  no kind or file: kept in today's note with a #routing-note: line" in text
    assert not CLI_WORDS.search(text), text
