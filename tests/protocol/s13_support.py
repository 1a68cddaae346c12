"""Shared pieces of the PROTOCOL §13 tests: notes on disk and a CLI at a moment."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import CliRunner

NOW_TEXT = "2026-04-15T10:00:00+02:00"


def note(root: Path, day: str, *lines: str, archived: bool = False, closure: str = "") -> Path:
    """A daily note with *lines* and a closure block (``closure``: the Decisions, Open)."""
    decisions, _, open_items = (closure or "none|none").partition("|")
    body = [f"# {day}", "", *lines]
    body += [f"Updated: {day}", f"Decisions: {decisions}", "Signal: none", f"Open: {open_items}"]
    if archived:
        path = root / "memory" / "archive" / day[:4] / day[5:7] / f"{day}.md"
    else:
        path = root / "memory" / "episodic" / f"{day}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(body) + "\n", encoding="utf-8")
    return path


def run(cli: CliRunner, root: Path, *args: str, now: str = NOW_TEXT, input: str = "") -> Any:
    """``memtier --root R --now NOW ARGS --json``: (exit code, JSON payload or None, stderr)."""
    result = cli("--root", str(root), "--now", now, *args, "--json", input=input)
    try:
        payload = json.loads(result.stdout)
    except json.JSONDecodeError:
        payload = None
    return result.exit_code, payload, result.stderr


def index_entry(root: Path, slug: str) -> str:
    text = (root / "memory" / "INDEX.md").read_text(encoding="utf-8")
    start = text.index(f"- **{slug}**")
    end = text.find("\n- **", start + 1)
    return text[start : end if end > 0 else len(text)]
