"""SKILL.md names only commands and options that exist, and a day run by it holds together."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from memtier.formats.buffer import parse_buffer
from memtier.formats.episodic import closure_problem
from tests.conftest import REPO, CliRunner, run_memtier

SKILL = (REPO / "SKILL.md").read_text(encoding="utf-8")
# `memtier ...` inside backticks, and every line of the sh blocks.
_INLINE = re.findall(r"`(memtier [^`]+)`", SKILL)
_BLOCKS = [
    line.split("  # ")[0].strip()
    for block in re.findall(r"```sh\n(.*?)```", SKILL, flags=re.S)
    for line in block.splitlines()
]
INVOCATIONS = sorted({c for c in _INLINE + _BLOCKS if c.startswith("memtier ")})


def _command_path(words: list[str]) -> tuple[list[str], list[str]]:
    """Split `memtier buffer task "x" --date D` into (["buffer", "task"], option names)."""
    path = [w for w in words[1:3] if re.fullmatch(r"[a-z][a-z-]*", w)]
    options = [w.split("=")[0] for w in words if w.startswith("--")]
    return path, options


@pytest.mark.parametrize("invocation", INVOCATIONS)
def test_every_named_command_and_option_exists(cli: CliRunner, invocation: str) -> None:
    text = invocation.replace("…", "").replace("TEXT|N", "1")
    words = shlex.split(text)
    path, options = _command_path(words)
    result = cli(*path, "--help")
    if result.exit_code != 0 and len(path) > 1:  # `memtier learn error ...`: KIND is an argument
        path = path[:1]
        result = cli(*path, "--help")
    assert result.exit_code == 0, (invocation, result.stderr)
    for option in options:
        assert option in result.stdout, (invocation, option)


def test_skill_names_the_lifecycle_commands() -> None:
    lifecycle = ("session-start", "session-end", "rotate", "buffer task", "buffer note",
                 "buffer done", "episodic append", "episodic close", "health-check")  # fmt: skip
    for command in lifecycle:
        assert f"memtier {command}" in SKILL


def test_a_day_by_the_skill(tmp_path: Path, cli: CliRunner) -> None:
    """Start, a dozen buffer writes, a crash, a restart, end: the files tell the story."""
    root = tmp_path / "ws"
    assert cli("init", "--root", str(root)).exit_code == 0

    def memtier(*args: str) -> int:
        return cli(*args, "--root", str(root)).exit_code

    assert memtier("session-start") == 0
    assert memtier("buffer", "task", "migrate qdrant") == 0
    assert memtier("buffer", "task", "rebuild gateway") == 0
    for n in range(8):
        assert memtier("buffer", "note", f"step {n} done") == 0
    assert memtier("buffer", "done", "rebuild gateway") == 0
    assert memtier("episodic", "append", "kernel updated on atlas") == 0
    # The session dies in the middle of a rotation (a real process, killed).
    crash = {"MEMTIER_FAULT": "rotate.note-written"}
    assert run_memtier("rotate", "--root", str(root), env=crash).returncode == -9
    assert memtier("session-start") == 0
    # The mid-session rotation kept the task in hand (§5 step 5 v3).
    assert memtier("buffer", "done", "migrate qdrant") == 0
    assert memtier("buffer", "task", "check backups") == 0
    # The end of the day, in the one order (§4 v3): session-end, then a merged close.
    assert memtier("session-end") == 0
    assert memtier("episodic", "close", "--decisions", "moved qdrant", "--signal", "apt slow",
                   "--open", "check backups (after the sftp fix)") == 0  # fmt: skip
    assert memtier("health-check") == 0

    note = next((root / "memory/episodic").glob("*.md")).read_text()
    buffer = parse_buffer((root / "memory/working-buffer.md").read_text())
    for line in ("- migrate qdrant", "- [done] migrate qdrant", "- [done] rebuild gateway",
                 "kernel updated on atlas", "- check backups",
                 *(f"- step {n} done" for n in range(8))):  # fmt: skip
        assert note.count(line + "\n") == 1, line
    assert closure_problem(note) is None
    # One item, not "check backups; check backups (after the sftp fix)"; the task
    # done after the rotation left Open:.
    assert note.rstrip("\n").endswith("Open: check backups (after the sftp fix)")
    assert buffer.active_tasks == []
