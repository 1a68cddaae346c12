"""`episodic append` on an archived day, `episodic close --drop` (PROTOCOL §4, §14 v4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import CliRunner
from tests.protocol.support import mt

OLD = "2026-10-01"  # more than episodic_ttl_days before NOW (2026-11-30)
ARCHIVED = f"memory/archive/2026/10/{OLD}.md"


def _archive_old_day(cli: CliRunner, root: Path) -> Path:
    assert mt(cli, root, "episodic", "append", "the first line", "--date", OLD).exit_code == 0
    done = mt(cli, root, "archive", "episodic")
    assert done.exit_code == 0, done.stderr
    assert not (root / f"memory/episodic/{OLD}.md").exists()
    return root / ARCHIVED


def test_append_to_an_archived_day_goes_to_the_archived_note(root: Path, cli: CliRunner) -> None:
    archived = _archive_old_day(cli, root)
    done = mt(cli, root, "episodic", "append", "a late line", "--date", OLD)
    assert done.exit_code == 0, done.stderr
    assert not (root / f"memory/episodic/{OLD}.md").exists()
    text = archived.read_text()
    assert text.index("the first line") < text.index("a late line") < text.index("Updated:")
    assert text.rstrip("\n").rsplit("\n", 1)[1].startswith("Open:")  # the block stays last
    assert ARCHIVED in done.stdout
    assert mt(cli, root, "health-check").exit_code == 0


def test_the_archive_again_after_a_late_append_makes_no_second_note(
    root: Path, cli: CliRunner
) -> None:
    _archive_old_day(cli, root)
    assert mt(cli, root, "episodic", "append", "a late line", "--date", OLD).exit_code == 0
    assert mt(cli, root, "archive", "episodic").exit_code == 0
    assert sorted(p.name for p in (root / "memory/archive/2026/10").iterdir()) == [f"{OLD}.md"]


def test_append_json_names_the_archived_note(root: Path, cli: CliRunner) -> None:
    _archive_old_day(cli, root)
    done = mt(cli, root, "episodic", "append", "a late line", "--date", OLD, "--json")
    payload = json.loads(done.stdout)
    assert payload["path"] == ARCHIVED
    assert payload["text"] == "a late line"
    lines = (root / ARCHIVED).read_text().split("\n")
    assert lines[payload["line"] - 1] == "a late line"


def test_close_of_an_archived_day_closes_the_archived_note(root: Path, cli: CliRunner) -> None:
    archived = _archive_old_day(cli, root)
    args = ("--decisions", "moved the nas", "--signal", "none", "--open", "none")
    done = mt(cli, root, "episodic", "close", *args, "--date", OLD)
    assert done.exit_code == 0, done.stderr
    assert not (root / f"memory/episodic/{OLD}.md").exists()
    assert "Decisions: moved the nas" in archived.read_text()


# ---------------------------------------------------------------------------
# episodic close --drop


def _with_open_items(cli: CliRunner, root: Path, items: str) -> Path:
    args = ("--decisions", "d", "--signal", "s", "--open", items, "--replace")
    assert mt(cli, root, "episodic", "close", *args).exit_code == 0
    return root / "memory/episodic/2026-11-30.md"


def _open_line(note: Path) -> str:
    return note.read_text().rstrip("\n").rsplit("\n", 1)[1]


def test_drop_removes_one_open_item_and_keeps_the_rest(root: Path, cli: CliRunner) -> None:
    note = _with_open_items(
        cli, root, "watch the backup; settle sync conflict s-1a2b3c4d in MEMORY.md; renew certs"
    )
    before = note.read_text()
    done = mt(cli, root, "episodic", "close", "--drop", "settle sync conflict s-1a2b3c4d")
    assert done.exit_code == 0, done.stderr
    assert _open_line(note) == "Open: watch the backup; renew certs"
    # nothing else of the note changed
    assert note.read_text().rsplit("Open:", 1)[0] == before.rsplit("Open:", 1)[0]
    assert "dropped" in done.stdout and "s-1a2b3c4d" in done.stdout


def test_drop_matches_the_whole_item_before_a_part_of_one(root: Path, cli: CliRunner) -> None:
    note = _with_open_items(cli, root, "renew certs on nas01; renew certs")
    assert mt(cli, root, "episodic", "close", "--drop", "Renew  certs").exit_code == 0
    assert _open_line(note) == "Open: renew certs on nas01"


def test_dropping_the_last_item_leaves_none(root: Path, cli: CliRunner) -> None:
    note = _with_open_items(cli, root, "renew certs")
    assert mt(cli, root, "episodic", "close", "--drop", "renew certs").exit_code == 0
    assert _open_line(note) == "Open: none"


def test_drop_of_an_item_that_is_not_there_changes_nothing(root: Path, cli: CliRunner) -> None:
    note = _with_open_items(cli, root, "renew certs; watch the backup")
    before = note.read_text()
    done = mt(cli, root, "episodic", "close", "--drop", "feed the cat")
    assert done.exit_code == 2
    assert "feed the cat" in done.stderr and "renew certs; watch the backup" in done.stderr
    assert note.read_text() == before


def test_drop_of_a_part_two_items_share_is_refused(root: Path, cli: CliRunner) -> None:
    note = _with_open_items(cli, root, "renew certs on nas01; renew certs on nas02")
    before = note.read_text()
    done = mt(cli, root, "episodic", "close", "--drop", "renew certs")
    assert done.exit_code == 2 and "2 open items" in done.stderr
    assert note.read_text() == before


def test_drop_with_the_block_options_is_a_usage_error(root: Path, cli: CliRunner) -> None:
    _with_open_items(cli, root, "renew certs")
    done = mt(cli, root, "episodic", "close", "--drop", "renew certs", "--open", "none")
    assert done.exit_code == 2 and "--drop" in done.stderr


def test_close_without_drop_still_needs_the_three_fields(root: Path, cli: CliRunner) -> None:
    done = mt(cli, root, "episodic", "close", "--decisions", "d", "--signal", "s")
    assert done.exit_code == 2 and "--open" in done.stderr


def test_drop_json_says_what_was_dropped(root: Path, cli: CliRunner) -> None:
    _with_open_items(cli, root, "renew certs; watch the backup")
    done = mt(cli, root, "episodic", "close", "--drop", "watch the backup", "--json")
    assert done.exit_code == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["action"] == "drop"
    assert payload["dropped"] == "watch the backup"
    assert payload["closed"] is True


@pytest.mark.parametrize("day", [None, OLD])
def test_drop_on_a_day_without_a_note_is_an_input_error(
    root: Path, cli: CliRunner, day: str | None
) -> None:
    dated = ("--date", "2026-11-20") if day is None else ("--date", "2026-09-09")
    done = mt(cli, root, "episodic", "close", "--drop", "x", *dated)
    assert done.exit_code == 2 and "no episodic note" in done.stderr
