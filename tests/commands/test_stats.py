"""`memtier stats`: files, lines and bytes per tier, buffer state, tags, notes (§9)."""

from __future__ import annotations

import json
from pathlib import Path

from memtier.commands.stats import collect_stats
from memtier.workspace import Workspace
from tests.conftest import NOW, NOW_TEXT, CliRunner


def test_json_keys_and_figures(cli: CliRunner, root: Path) -> None:
    (root / "memory/episodic/2026-11-01.md").write_bytes(b"# a\n\nline\n")
    (root / "memory/episodic/2026-10-15.md").write_bytes(b"# b\n")
    (root / "memory/archive/2025/02").mkdir(parents=True)
    (root / "memory/archive/2025/02/2025-02-03.md").write_bytes(b"x\ny\n")
    result = cli("stats", "--json", "--root", str(root), "--now", NOW_TEXT)
    assert result.exit_code == 0
    payload = json.loads(result.stdout)
    assert set(payload) == {"tiers", "total", "buffer", "top_tags", "notes"}
    assert list(payload["tiers"]) == [
        "hot",
        "warm",
        "index",
        "buffer",
        "scratch",
        "cold",
        "archive",
    ]
    assert payload["tiers"]["cold"] == {"files": 2, "lines": 4, "bytes": 14}
    assert payload["tiers"]["archive"] == {"files": 1, "lines": 2, "bytes": 4}
    hot = (root / "MEMORY.md").read_bytes()
    assert payload["tiers"]["hot"] == {"files": 1, "lines": hot.count(b"\n"), "bytes": len(hot)}
    assert payload["tiers"]["warm"]["files"] == 5
    assert payload["total"]["files"] == sum(t["files"] for t in payload["tiers"].values())
    assert payload["notes"] == {"oldest": "2025-02-03", "newest": "2026-11-01"}
    assert set(payload["buffer"]) == {
        "exists", "valid", "lines", "active_tasks", "last_active", "stale", "oversized",
    }  # fmt: skip
    assert payload["buffer"]["exists"] and payload["buffer"]["valid"]
    assert payload["buffer"]["stale"] is False
    assert payload["top_tags"][0] == {"tag": "review", "count": 2}


def test_buffer_state(root: Path) -> None:
    buffer = root / "memory/working-buffer.md"
    buffer.write_text(
        "# Working Buffer\ncreated: 2026-11-30T01:00:00+01:00\n"
        "last_active: 2026-11-30T02:00:00+01:00\n\n## Active Task:\n"
        "- one\n- two\n- three\n- four\n"
    )
    state = collect_stats(Workspace.open(root, NOW)).buffer
    assert (state.active_tasks, state.stale, state.oversized) == (4, True, True)
    assert state.last_active == "2026-11-30T02:00:00+01:00"
    buffer.write_text("not a buffer\n")
    assert collect_stats(Workspace.open(root, NOW)).buffer.valid is False
    buffer.unlink()
    assert collect_stats(Workspace.open(root, NOW)).buffer.exists is False


def test_text_output_and_symlinks_not_counted(cli: CliRunner, root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "big.md"
    outside.write_text("x\n" * 1000)
    (root / "memory/episodic/2026-11-02.md").symlink_to(outside)
    result = cli("stats", "--root", str(root), "--now", NOW_TEXT)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["tier", "files", "lines", "bytes"]
    assert lines[6].split()[:2] == ["COLD", "0"]
    assert "buffer: " in result.stdout and "(fresh)" in result.stdout
    assert lines[-1] == "notes: none"
    assert "2026-11-02.md: symlink" in result.stderr


def test_a_buffer_symlinked_out_of_the_workspace_is_not_read(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "buffer.md"
    outside.write_text(
        "# Working Buffer\ncreated: 2026-11-30T09:00:00+01:00\n"
        "last_active: 2026-11-30T09:30:00+01:00\n\n## Active Task:\n- leaked task\n"
    )
    buffer = root / "memory/working-buffer.md"
    buffer.unlink()
    buffer.symlink_to(outside)
    report = collect_stats(Workspace.open(root, NOW))
    assert report.buffer.exists and not report.buffer.valid
    assert report.buffer.active_tasks == 0
    assert "skipped memory/working-buffer.md: symlink pointing outside the workspace" in (
        report.warnings
    )
