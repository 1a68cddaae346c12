"""PROTOCOL §1, workspace layout: what init creates, root discovery, the clock and the
configuration, through the `memtier` command."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import NOW_TEXT, CliRunner, run_memtier
from tests.protocol.support import HOT_OK, TODAY, health, mt, not_passing

# -- the layout init creates -----------------------------------------------------------


def test_init_uses_the_current_folder_without_root(tmp_path: Path, cli: CliRunner) -> None:
    result = cli("init", "--now", NOW_TEXT, cwd=tmp_path)
    assert result.exit_code == 0
    warm = {
        "semantic/infrastructure.md",
        "semantic/preferences.md",
        "semantic/projects.md",
        "semantic/decisions.md",
        "procedural/lessons-learned.md",
    }
    for rel in warm:
        assert (tmp_path / "memory" / rel).is_file(), rel
    for name in ("ERRORS.md", "LEARNINGS.md", "FEATURE_REQUESTS.md"):
        assert (tmp_path / ".learnings" / name).is_file()
    for folder in ("episodic", "archive", "scripts"):
        assert (tmp_path / "memory" / folder).is_dir()
    again = cli("init", "--now", NOW_TEXT, cwd=tmp_path)
    assert again.exit_code == 0 and "created" not in again.stdout.replace("nothing to create", "")


def test_init_never_overwrites(root: Path, cli: CliRunner) -> None:
    hot = root / "MEMORY.md"
    hot.write_text("# Agent Memory\n#tags: memory\nlast_verified: 2026-01-01\nlast_updated: x\n")
    before = hot.read_bytes()
    assert mt(cli, root, "init").exit_code == 0
    assert hot.read_bytes() == before


# -- root discovery --------------------------------------------------------------------

NOT_FOUND = (
    "memtier: error: workspace root not found "
    "(expected MEMORY.md and memory/ in an ancestor directory)\n"
)


@pytest.mark.parametrize(
    "args",
    [
        ("health-check",),
        ("session-start",),
        ("stats", "--json"),
        ("buffer", "show"),
        ("archive", "episodic", "--days", "45"),
        ("weekly-review",),
    ],
)
def test_no_workspace_is_exit_2_with_the_exact_text(
    tmp_path: Path, cli: CliRunner, args: tuple[str, ...]
) -> None:
    result = cli(*args, cwd=tmp_path)
    # With --json the error is also one JSON object on stdout (beside the stderr line).
    error = NOT_FOUND.removeprefix("memtier: error: ").rstrip("\n")
    shown = json.loads(result.stdout) if "--json" in args else result.stdout
    expected = {"ok": False, "error": error} if "--json" in args else ""
    assert (result.exit_code, result.stderr, shown) == (2, NOT_FOUND, expected)


def test_no_workspace_exact_text_from_a_real_process(tmp_path: Path) -> None:
    proc = run_memtier("health-check", cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (2, NOT_FOUND)


def test_root_from_the_environment(root: Path, tmp_path: Path) -> None:
    proc = run_memtier(
        "health-check", cwd=tmp_path, env={"MEMTIER_ROOT": str(root), "MEMTIER_NOW": NOW_TEXT}
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "=== Memory Health Check (2026-11-30 10:00) ==="


def test_explicit_root_needs_the_memory_folder(tmp_path: Path, cli: CliRunner) -> None:
    (tmp_path / "MEMORY.md").write_text(HOT_OK)
    result = cli("--root", str(tmp_path), "--now", NOW_TEXT, "health-check")
    assert (result.exit_code, result.stderr) == (2, NOT_FOUND)
    (tmp_path / "MEMORY.md").unlink()
    (tmp_path / "memory").mkdir()
    missing = cli("--root", str(tmp_path), "--now", NOW_TEXT, "health-check")
    assert missing.exit_code == 1 and "❌ MEMORY.md missing" in missing.stdout.splitlines()


@pytest.mark.parametrize("layout", ["hot-is-a-folder", "memory-is-a-file"])
def test_root_needs_a_file_memory_md_and_a_folder_memory(tmp_path: Path, layout: str) -> None:
    if layout == "hot-is-a-folder":
        (tmp_path / "MEMORY.md").mkdir()
        (tmp_path / "memory").mkdir()
    else:
        (tmp_path / "MEMORY.md").write_text("# Agent Memory\n")
        (tmp_path / "memory").write_text("")
    proc = run_memtier("stats", cwd=tmp_path, env={"MEMTIER_NOW": NOW_TEXT})
    assert proc.returncode == 2
    assert proc.stderr == (
        "memtier: error: workspace root not found "
        "(expected MEMORY.md and memory/ in an ancestor directory)\n"
    )


@pytest.mark.parametrize(
    "command",
    [
        ("health-check",),
        ("stats",),
        ("tags",),
        ("candidates",),
        ("buffer", "show"),
        ("buffer", "heartbeat"),
        ("session-end",),
        ("archive", "all"),
        ("search", "hot"),
        ("episodic", "append", "seen"),
    ],
)
@pytest.mark.parametrize("placement", ["before", "after"])
def test_root_and_now_before_or_after_the_command(
    root: Path, cli: CliRunner, tmp_path: Path, command: tuple[str, ...], placement: str
) -> None:
    opts = ("--root", str(root), "--now", "2026-12-01T07:05:00+01:00")
    args = (*opts, *command) if placement == "before" else (*command, *opts)
    result = cli(*args, "--json", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    json.loads(result.stdout)
    if command[0] == "episodic":
        assert (root / "memory" / "episodic" / "2026-12-01.md").is_file()


@pytest.mark.parametrize("placement", ["before", "after"])
def test_init_root_before_or_after(tmp_path: Path, cli: CliRunner, placement: str) -> None:
    target = tmp_path / "fresh"
    opts = ("--root", str(target), "--now", NOW_TEXT)
    result = cli(*opts, "init") if placement == "before" else cli("init", *opts)
    assert result.exit_code == 0, result.stderr
    assert (target / "MEMORY.md").read_text().splitlines()[2:4] == [
        f"last_verified: {TODAY}",
        f"last_updated: {TODAY}",
    ]
    code, report = health(cli, target)
    assert code == 0 and report["ok"] is True


# -- clock -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("moment", "heading"),
    [
        ("2026-11-30T23:30:00-05:00", "2026-11-30 23:30"),
        ("2026-12-01T04:30:00Z", "2026-12-01 04:30"),
        ("2026-11-30T08:15:00.250+05:30", "2026-11-30 08:15"),
    ],
)
def test_today_is_the_date_in_nows_own_offset(
    root: Path, cli: CliRunner, moment: str, heading: str
) -> None:
    result = mt(cli, root, "health-check", now=moment)
    assert result.stdout.splitlines()[0] == f"=== Memory Health Check ({heading}) ==="
    mt(cli, root, "episodic", "append", "x", now=moment)
    assert (root / "memory" / "episodic" / f"{heading[:10]}.md").is_file()


def test_now_from_the_environment(root: Path, cli: CliRunner, monkeypatch: Any) -> None:
    monkeypatch.setenv("MEMTIER_NOW", "2026-12-24T18:00:00+01:00")
    result = cli("--root", str(root), "health-check")
    assert result.stdout.startswith("=== Memory Health Check (2026-12-24 18:00) ===\n")


# -- configuration ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("toml", "key"),
    [
        ("colour = true\n", "colour"),
        ("hot_max_lines = 'sixty'\n", "hot_max_lines"),
        ("stale_hours = [2]\n", "stale_hours"),
        ("vocabulary = 'docker'\n", "vocabulary"),
        ("recurrence_threshold = 2.5\n", "recurrence_threshold"),
        ("episodic_ttl_days = true\n", "episodic_ttl_days"),
    ],
)
@pytest.mark.parametrize("command", [("health-check",), ("buffer", "task", "x"), ("stats",)])
def test_config_unknown_key_or_wrong_type_is_exit_2_naming_the_key(
    root: Path,
    cli: CliRunner,
    snapshot: Callable[[Path], dict[str, bytes]],
    toml: str,
    key: str,
    command: tuple[str, ...],
) -> None:
    (root / "memory" / "memtier.toml").write_text(toml)
    before = snapshot(root)
    result = mt(cli, root, *command)
    assert result.exit_code == 2
    assert result.stderr.startswith("memtier: error:") and key in result.stderr
    assert result.stderr.count("\n") == 1
    assert snapshot(root) == before


def test_config_values_drive_the_limits(root: Path, cli: CliRunner) -> None:
    (root / "memory" / "memtier.toml").write_text(
        "hot_max_lines = 5\nbuffer_max_lines = 4\nvocabulary = ['memory']\n"
    )
    code, report = health(cli, root)
    assert code == 1
    found = not_passing(report)
    assert ("hot.size", "fail", "MEMORY.md — 8 lines — exceeds 5 line limit") in found
    assert ("buffer.size", "fail", "5 lines — exceeds 4 line limit") in found
    assert ("tags", "fail", "MEMORY.md — invalid tag(s): workflow") in found
