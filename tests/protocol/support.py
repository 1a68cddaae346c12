"""Shared pieces of the PROTOCOL §1–§12 tests: the command line at a fixed moment, the
fixture workspace's paths, and the file texts the contract spells.

The unit tests of each module cover the rules one function at a time; the section
modules beside this one run the command line the way an agent, a person or cron does,
and compare its exact messages, exit codes, JSON keys and file contents with the
protocol's text.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import NOW_TEXT, CliResult, CliRunner

TODAY = NOW_TEXT[:10]

HOT_OK = (
    "# Agent Memory\n#tags: memory, workflow\nlast_verified: 2026-11-30\nlast_updated: 2026-11-30\n"
)

WARM = "memory/semantic/infrastructure.md"
BUF = "memory/working-buffer.md"
PROJECTS = "memory/semantic/projects.md"
LOG = "memory/archive/retired.md"
Snapshot = Callable[[Path], dict[str, bytes]]


def mt(cli: CliRunner, root: Path, *args: str, now: str = NOW_TEXT, **kw: Any) -> CliResult:
    """memtier with the global options before the command name."""
    return cli("--root", str(root), "--now", now, *args, **kw)


def remember(cli: CliRunner, root: Path, text: str, *args: str, now: str = NOW_TEXT) -> CliResult:
    return mt(cli, root, "remember", text, *args, now=now)


def as_json(result: CliResult) -> dict[str, Any]:
    assert result.exit_code == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def buffer_text(last_active: str, *tasks: str, created: str = "2026-11-30T09:00:00+01:00") -> str:
    body = "".join(f"- {t}\n" for t in tasks)
    return (
        f"# Working Buffer\ncreated: {created}\nlast_active: {last_active}\n\n"
        f"## Active Task:\n{body}"
    )


def note_path(root: Path, day: str = TODAY) -> Path:
    return root / "memory" / "episodic" / f"{day}.md"


def closure(decisions: str, signal: str, open_: str, updated: str = TODAY) -> str:
    return f"Updated: {updated}\nDecisions: {decisions}\nSignal: {signal}\nOpen: {open_}\n"


def health(cli: CliRunner, root: Path, now: str = NOW_TEXT) -> tuple[int, dict[str, Any]]:
    result = mt(cli, root, "health-check", "--json", now=now)
    return result.exit_code, json.loads(result.stdout)


def not_passing(report: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(c["id"], c["status"], c["message"]) for c in report["checks"] if c["status"] != "pass"]


def failed(cli: CliRunner, root: Path) -> list[tuple[str, str]]:
    result = mt(cli, root, "health-check", "--json")
    report: dict[str, Any] = json.loads(result.stdout)
    return [(c["id"], c["message"]) for c in report["checks"] if c["status"] == "fail"]
