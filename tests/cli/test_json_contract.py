"""The JSON contract: the keys of every command's ``--json`` object, pinned.

A key means the same thing in every command: ``line`` is a line number (or
null), ``text`` the text. With --json an error is also one object on stdout.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import NOW_TEXT, CliRunner

BUFFER = {"action", "active_tasks", "last_active", "line", "lines", "oversized", "path",
          "redacted", "stale", "text"}  # fmt: skip
EPISODIC = {"action", "closed", "date", "line", "path", "redacted", "text"}
INDEX = {"action", "changed", "path", "slug", "topics"}
ROTATION = {"appended", "id", "lines", "note", "open_tasks", "placement", "rotated"}

# Run in this order on one workspace: later commands need what earlier ones wrote.
CONTRACT: list[tuple[tuple[str, ...], set[str]]] = [
    (("atomic-write", "memory/x.md"), {"bytes", "path", "redacted"}),
    (("health-check",), {"checks", "ok"}),
    (("install-scripts",), {"scripts_dir", "unchanged", "version", "written"}),
    (("session-start",), {"actions", "buffer", "episodic", "health", "hot", "learnings"}),
    (("buffer", "task", "check the backup"), BUFFER),
    (("buffer", "note", "nas01 answers"), BUFFER),
    (("buffer", "done", "1"), BUFFER),
    (("buffer", "heartbeat"), BUFFER),
    (("buffer", "show"), BUFFER),
    (("episodic", "append", "deployed"), EPISODIC),
    (("episodic", "close", "--decisions", "d", "--signal", "s", "--open", "none"), EPISODIC),
    (("episodic", "show"), (EPISODIC - {"line"}) | {"archived"}),
    (
        ("learn", "learning", "rsync wants a slash [PROMOTE-CANDIDATE]"),
        {"file", "flagged", "line", "occurrences", "redacted", "text"},
    ),
    (("candidates",), {"candidates", "count"}),
    (
        ("promote", "rsync wants a slash", "--to", "memory/semantic/decisions.md"),
        {"already_present", "applied", "created", "flag_removed", "lesson", "source", "target"},
    ),
    (
        ("cron",),
        {
            "already_installed",
            "crontab",
            "existing",
            "flush",
            "installed",
            "remove",
            "systemd",
            "text",
        },
    ),
    # PROTOCOL §13: the topic index, consolidation, recall and the daily flush.
    (("index", "add", "deploy", "--category", "projects", "--match", "deployed"), INDEX),
    (("index", "show"), INDEX),
    (("index", "rebuild"), INDEX),
    (("consolidate", "--due", "--plan"), {"action", "generations", "plan_id", "redacted", "text"}),
    (
        ("recall", "do you remember the deploy"),
        {"chars", "current", "found_by", "newer_days", "query", "text", "topic", "truncated"},
    ),
    (("flush",), {"changed", "changes", "date", "due", "written"}),
    (("search", "rsync"), {"query", "results", "tiers", "total_matched", "warnings"}),
    (("recent-searches",), {"searches"}),
    (("tags",), {"counts", "files", "invalid", "vocabulary"}),
    (("stats",), {"buffer", "notes", "tiers", "top_tags", "total"}),
    (("archive",), {"days", "days_by_kind", "dry_run", "moved", "skipped", "warnings"}),
    (
        ("weekly-review",),
        {"archived", "closure", "flagged", "health", "lock_removed", "message", "note", "status"},
    ),
    (
        ("remember", "nas01 runs Ubuntu 24.04", "--to", "memory/semantic/infrastructure.md"),
        {
            "action",
            "created",
            "file",
            "kind",
            "line",
            "redacted",
            "routing_note",
            "section",
            "text",
        },
    ),
    (
        ("get", "memory/semantic/infrastructure.md"),
        {"archived", "from", "lines", "next", "path", "to", "total_lines", "truncated"},
    ),
    (
        (
            "replace",
            "nas01 runs Ubuntu 24.04",
            "nas01 runs Ubuntu 26.04",
            "--in",
            "memory/semantic/infrastructure.md",
        ),
        {"action", "file", "line", "log", "new", "old", "reason", "redacted"},
    ),
    (
        (
            "retire",
            "nas01 runs Ubuntu 26.04",
            "--in",
            "memory/semantic/infrastructure.md",
            "--reason",
            "moved to another host",
        ),
        {"action", "file", "line", "log", "old", "reason", "redacted"},
    ),
    (("verify", "memory/semantic/infrastructure.md"), {"action", "files"}),
    (("skill",), {"created", "description", "installed", "name", "text"}),
    (("tags", "--add", "homelab"), {"added", "config", "present"}),
    (("buffer", "task", "one more"), BUFFER),
    (("session-end",), ROTATION),
    (("buffer", "task", "and another"), BUFFER),
    (("rotate",), ROTATION),
]


def _lines(value: Any) -> list[Any]:
    """Every value under a "line" key, at any depth."""
    if isinstance(value, dict):
        found = [value["line"]] if "line" in value else []
        return found + [x for v in value.values() for x in _lines(v)]
    if isinstance(value, list):
        return [x for v in value for x in _lines(v)]
    return []


def test_every_command_json_has_its_pinned_keys(root: Path, cli: CliRunner) -> None:
    seen: set[str] = set()
    for args, keys in CONTRACT:
        result = cli("--root", str(root), "--now", NOW_TEXT, *args, "--json", input="hello\n")
        assert result.exit_code == 0, (args, result.stderr)
        payload = json.loads(result.stdout)
        assert set(payload) == keys, args
        lines = _lines(payload)
        assert all(n is None or type(n) is int for n in lines), (args, lines)
        seen.add(args[0] if args[0] not in ("buffer", "episodic") else " ".join(args[:2]))
    assert "init" not in seen  # init is pinned on its own (it needs a fresh folder)
    assert len(seen) == 34  # every command but init and mcp (a server, no report)


def test_init_json(tmp_path: Path, cli: CliRunner) -> None:
    result = cli("init", "--json", "--root", str(tmp_path / "new"), "--now", NOW_TEXT)
    assert set(json.loads(result.stdout)) == {"created", "existing", "root"}


def test_written_lines_are_numbered(root: Path, cli: CliRunner) -> None:
    shared = ("--root", str(root), "--now", NOW_TEXT, "--json")
    note = json.loads(cli(*shared, "buffer", "note", "nas01 answers").stdout)
    buffer = (root / "memory" / "working-buffer.md").read_text().split("\n")
    assert buffer[note["line"] - 1] == note["text"] == "- nas01 answers"
    task = json.loads(cli(*shared, "buffer", "task", "nas01 answers").stdout)
    buffer = (root / "memory" / "working-buffer.md").read_text().split("\n")
    assert buffer[task["line"] - 1] == "- nas01 answers"
    assert task["line"] < note["line"] + 1  # the task line, not the older note
    shown = json.loads(cli(*shared, "buffer", "show").stdout)
    assert shown["line"] is None and shown["text"] == "\n".join(buffer)
    appended = json.loads(cli(*shared, "episodic", "append", "deployed").stdout)
    note_lines = (root / appended["path"]).read_text().split("\n")
    assert note_lines[appended["line"] - 1].endswith("deployed")
    assert appended["text"] == "deployed"


def test_tags_json_names_the_vocabulary(root: Path, cli: CliRunner) -> None:
    from memtier.config import DEFAULT_VOCABULARY

    payload = json.loads(cli("tags", "--json", "--root", str(root)).stdout)
    assert payload["vocabulary"] == list(DEFAULT_VOCABULARY)
    (root / "memory" / "memtier.toml").write_text('vocabulary = ["ops", "home"]\n')
    payload = json.loads(cli("tags", "--json", "--root", str(root)).stdout)
    assert payload["vocabulary"] == ["ops", "home"]


def test_an_error_with_json_is_also_an_object_on_stdout(root: Path, cli: CliRunner) -> None:
    result = cli("--root", str(root), "buffer", "done", "no such task", "--json")
    assert result.exit_code == 2
    assert result.stderr.startswith("memtier: error: ")
    message = result.stderr.removeprefix("memtier: error: ").rstrip("\n")
    assert json.loads(result.stdout) == {"ok": False, "error": message}
    usage = cli("--json", "buffer", "note")
    assert usage.exit_code == 2
    assert json.loads(usage.stdout)["ok"] is False
    plain = cli("--root", str(root), "buffer", "done", "no such task")
    assert plain.stdout == ""


def test_transfer_commands_json(root: Path, tmp_path: Path, cli: CliRunner) -> None:
    shared = ("--root", str(root), "--now", NOW_TEXT, "--json")
    envelope = root / "export.json"  # PROTOCOL §12 v3: --output lies in the workspace
    exported = cli(*shared, "export", "--output", str(envelope))
    assert set(json.loads(exported.stdout)) == {"count", "files", "output", "redacted", "warnings"}
    assert exported.stderr == f"memtier: exported {len(json.loads(exported.stdout)['files'])} " \
        f"file(s) to {envelope}\n"  # fmt: skip
    plain = cli("--root", str(root), "export", "--output", str(envelope))
    assert plain.stdout == "" and plain.stderr == exported.stderr
    imported = json.loads(cli(*shared, "import", "memtier", str(envelope), "--dry-run").stdout)
    assert set(imported) == {"dry_run", "format", "homes", "imported", "items", "outcomes",
                             "reasons", "redacted", "skipped", "source", "warnings"}  # fmt: skip
    captured = cli(*shared, "capture", "remember this: the NAS backup runs at 02:00")
    payload = json.loads(captured.stdout)
    assert set(payload) == {"channel", "kept", "length", "line", "parts", "reason", "redacted",
                            "score", "text", "threshold"}  # fmt: skip
    assert payload["kept"] is True
    buffer = (root / "memory" / "working-buffer.md").read_text().split("\n")
    assert buffer[payload["line"] - 1] == payload["text"]


def test_search_hits_name_their_line_and_the_span_shown(root: Path, cli: CliRunner) -> None:
    # PROTOCOL §9 v3: "line" is the hit's one best line, "line_start"/"line_end" the
    # lines its excerpt shows (3 by default, more only with --context).
    note = root / "memory/episodic/2026-11-20.md"
    note.write_text("# 2026-11-20\n\n- one\n- rsync wants a slash\n- two\n- three\n")
    for context, most in (("1", 3), ("3", 7)):
        result = cli("--root", str(root), "--now", NOW_TEXT, "search", "rsync", "--json",
                     "--context", context)  # fmt: skip
        (hit,) = [h for h in json.loads(result.stdout)["results"] if h["path"].endswith("20.md")]
        assert set(hit) == {"path", "tier", "line", "line_start", "line_end", "score",
                            "excerpt", "matched_terms"}  # fmt: skip
        assert type(hit["line"]) is int and hit["line"] == 4
        assert hit["line_start"] <= hit["line"] <= hit["line_end"]
        assert hit["line_end"] - hit["line_start"] + 1 == len(hit["excerpt"].split("\n")) <= most
