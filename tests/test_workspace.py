"""Root discovery (PROTOCOL §1) and the clock."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from pyfakefs.fake_filesystem import FakeFilesystem

from memtier.clock import format_timestamp, parse_day, parse_now, parse_timestamp, resolve_now
from memtier.errors import InputError, WorkspaceNotFound
from memtier.workspace import (
    TIER_PATHS,
    TIERS,
    Workspace,
    find_root,
    inside_root,
    resolve_root,
    tier_of,
)
from tests.conftest import NOW, CliRunner

NOT_FOUND = (
    "memtier: error: workspace root not found "
    "(expected MEMORY.md and memory/ in an ancestor directory)\n"
)


def test_walks_up_to_the_nearest_workspace(root: Path) -> None:
    deep = root / "memory" / "semantic"
    assert find_root(deep) == root
    assert find_root(root) == root


# Root discovery is path logic alone: it runs on pyfakefs's file system (STYLE: pyfakefs
# for path logic and layouts; real folders for locks, crashes and processes).


def test_needs_both_memory_md_and_memory_folder(fs: FakeFilesystem) -> None:
    home = Path("/home/agent/notes")
    fs.create_file(home / "MEMORY.md", contents="# Agent Memory\n")
    with pytest.raises(WorkspaceNotFound):
        find_root(home)
    fs.create_dir(home / "memory")
    assert find_root(home) == home
    assert find_root(home / "memory") == home


def test_the_nearest_workspace_wins_over_an_outer_one(fs: FakeFilesystem) -> None:
    outer, inner = Path("/srv/outer"), Path("/srv/outer/projects/inner")
    for root in (outer, inner):
        fs.create_file(root / "MEMORY.md")
        fs.create_dir(root / "memory" / "episodic")
    assert find_root(inner / "memory" / "episodic") == inner
    assert find_root(outer / "projects") == outer


def test_memory_md_as_folder_is_not_a_workspace(fs: FakeFilesystem) -> None:
    fs.create_dir("/w/MEMORY.md")
    fs.create_dir("/w/memory")
    with pytest.raises(WorkspaceNotFound):
        find_root(Path("/w"))


def test_explicit_root_must_be_a_workspace(fs: FakeFilesystem) -> None:
    fs.create_dir("/w/memory")
    fs.create_dir("/elsewhere")
    fs.create_file("/file", contents="x")
    cwd = Path("/elsewhere")
    assert resolve_root("/w", cwd) == Path("/w")  # MEMORY.md may be gone (§4 step 1)
    assert resolve_root("../w", cwd) == Path("/elsewhere/../w")
    with pytest.raises(WorkspaceNotFound):
        resolve_root("/elsewhere", cwd)
    with pytest.raises(InputError, match="missing does not exist"):
        resolve_root("/missing", cwd)
    with pytest.raises(InputError, match="not a directory"):
        resolve_root("/file", cwd)


def test_every_tier_path_of_the_layout_is_placed_by_the_workspace(fs: FakeFilesystem) -> None:
    """Each path the tier table names sorts back into its own tier (PROTOCOL §1)."""
    fs.create_dir("/w/memory")
    ws = Workspace.open(Path("/w"), NOW)
    assert ws.hot == Path("/w/MEMORY.md")
    assert ws.episodic_note(date(2026, 3, 2)) == Path("/w/memory/episodic/2026-03-02.md")
    assert ws.real_root == Path("/w")
    for path, tier in [
        (ws.hot, "hot"),
        (ws.semantic_dir / "x.md", "warm"),
        (ws.episodic_note(date(2026, 3, 2)), "cold"),
        (ws.buffer, "buffer"),
        (ws.root / ".learnings" / "ERRORS.md", "scratch"),
    ]:
        assert tier_of(ws.relative(path)) == tier


def test_exact_error_text_when_no_root(tmp_path: Path, cli: CliRunner) -> None:
    result = cli("atomic-write", "x.md", input="x", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr == NOT_FOUND


def test_root_precedence_option_env_cwd(
    tmp_path: Path, root: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    monkeypatch.setenv("MEMTIER_ROOT", str(root))
    assert cli("atomic-write", str(root / "a.md"), input="a", cwd=other).exit_code == 0
    assert (root / "a.md").read_text() == "a\n"
    # --root beats $MEMTIER_ROOT
    monkeypatch.setenv("MEMTIER_ROOT", str(other))
    result = cli("--root", str(root), "atomic-write", str(root / "b.md"), input="b", cwd=other)
    assert result.exit_code == 0, result.stderr
    # the option also works after the command name
    result = cli("atomic-write", "--root", str(root), str(root / "c.md"), input="c", cwd=other)
    assert result.exit_code == 0, result.stderr


def test_clock_override_and_today_in_its_own_offset() -> None:
    late = parse_now("2026-11-30T23:30:00-05:00")
    ws = Workspace(root=Path("/nonexistent"), now=late)
    assert ws.today == date(2026, 11, 30)  # already Dec 1 in UTC, still Nov 30 there
    assert ws.yesterday == date(2026, 11, 29)
    assert resolve_now("2026-01-02T03:04:05Z", "2020-01-01T00:00:00Z") == datetime(
        2026, 1, 2, 3, 4, 5, tzinfo=UTC
    )
    assert resolve_now(None, "2020-01-01T00:00:00+02:00").utcoffset() == timedelta(hours=2)
    assert resolve_now(None, None).tzinfo is not None


@pytest.mark.parametrize("bad", ["yesterday", "2026-13-01T00:00:00Z", "", "12:00"])
def test_garbage_clock_is_an_input_error(bad: str) -> None:
    with pytest.raises(InputError, match="ISO 8601"):
        parse_now(bad, source="MEMTIER_NOW")


def test_garbage_memtier_now_on_the_cli(
    root: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMTIER_NOW", "next tuesday")
    result = cli("--root", str(root), "atomic-write", "x.md", input="x")
    assert result.exit_code == 2
    assert result.stderr.startswith("memtier: error: MEMTIER_NOW: not an ISO 8601")
    assert not (root / "x.md").exists()


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("2026-11-30T10:02:41+01:00", True),
        ("2026-11-30T10:02:41Z", True),
        ("2026-11-30T10:02:41+05:30", True),
        ("2026-11-30T10:02:41.123+05:30", True),
        ("2026-11-30T10:02:41+0530", False),
        ("2026-11-30T10:02+01:00", False),
        ("2026-11-30 10:02:41+01:00", False),
        ("2026-02-30T10:02:41+01:00", False),
        ("2026-11-30T10:02:41", False),
    ],
)
def test_buffer_timestamp_grammar(text: str, valid: bool) -> None:
    assert (parse_timestamp(text) is not None) is valid


def test_timestamps_are_written_to_the_second_with_offset() -> None:
    assert format_timestamp(NOW.replace(microsecond=123456)) == "2026-11-30T10:00:00+01:00"
    assert format_timestamp(datetime(2026, 1, 1, tzinfo=UTC)).endswith("+00:00")
    assert parse_day("2026-02-29") is None and parse_day("2028-02-29") == date(2028, 2, 29)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("20261130T091500Z", datetime(2026, 11, 30, 9, 15, tzinfo=UTC)),
        ("2026-W49-1T10:00:00+00:00", datetime(2026, 11, 30, 10, 0, tzinfo=UTC)),
    ],
)
def test_other_iso_8601_forms_are_read(text: str, expected: datetime) -> None:
    assert parse_now(text) == expected


# -- the layout's one home for tiers and confinement --------------------------


def test_inside_root_is_a_path_prefix_not_a_string_prefix() -> None:
    assert inside_root("/r/a", "/r/a")
    assert inside_root("/r/a", "/r/a/b/c.md")
    assert inside_root("/r/a/", "/r/a/b")
    assert not inside_root("/r/a", "/r/ab")
    assert not inside_root("/r/a", "/r")
    assert inside_root("/", "/anything")


def test_resolves_inside_follows_symlinks(root: Path, tmp_path: Path) -> None:
    ws = Workspace.open(root, NOW)
    outside = tmp_path / "outside.md"
    outside.write_text("x\n")
    (root / "memory/semantic/out.md").symlink_to(outside)
    (root / "memory/semantic/in.md").symlink_to(root / "MEMORY.md")
    assert ws.resolves_inside(root / "memory/semantic/in.md")
    assert not ws.resolves_inside(root / "memory/semantic/out.md")
    assert ws.resolves_inside(ws.buffer)


def test_every_tier_path_is_one_tier_of_its_own() -> None:
    assert TIERS == ("hot", "warm", "index", "buffer", "scratch", "cold", "archive")
    for tier, paths in TIER_PATHS.items():
        for rel in paths:
            if rel.endswith(".md"):
                sample = rel
            elif tier == "archive":
                sample = f"{rel}/2026/11/2026-11-01.md"  # the archive's notes sit in subfolders
            else:
                sample = f"{rel}/x.md"
            assert tier_of(sample) == tier, rel
