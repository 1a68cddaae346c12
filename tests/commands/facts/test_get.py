"""get's parts as plain functions (PROTOCOL §10 `get`, §7 archive names, §3 reads):
the range spelling, where a day's note is now, the bounds, what is shown."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from memtier.commands.facts.get import get_lines, split_range
from memtier.errors import InputError
from memtier.workspace import Workspace, find_day_note

PROJECTS = "memory/semantic/projects.md"


@pytest.mark.parametrize(
    ("spec", "split"),
    [
        ("MEMORY.md", ("MEMORY.md", None, None)),
        ("MEMORY.md:7", ("MEMORY.md", 7, None)),
        ("MEMORY.md:7-12", ("MEMORY.md", 7, 12)),
        ("odd:name.md:2-4", ("odd:name.md", 2, 4)),  # only the last ':' starts a range
        ("notes:1x", ("notes:1x", None, None)),  # not a range: the whole text is the path
        ("notes:3-", ("notes:3-", None, None)),
    ],
)
def test_a_range_is_the_last_colon_and_digits(
    spec: str, split: tuple[str, int | None, int | None]
) -> None:
    assert split_range(spec) == split


def test_a_range_of_too_many_digits_is_input_error() -> None:
    with pytest.raises(InputError, match="FROM: number too large"):
        split_range("MEMORY.md:" + "9" * 40)


def _archived(ws: Workspace, name: str) -> Path:
    path = ws.archive_dir / "2026" / "09" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"# {name}\n")
    return path


def test_a_live_note_is_found_before_an_archived_one(ws: Workspace) -> None:
    day = date(2026, 9, 3)
    archived = _archived(ws, "2026-09-03.md")
    assert find_day_note(ws, day) == archived
    live = ws.episodic_note(day)
    live.write_text("# live\n")
    assert find_day_note(ws, day) == live


def test_an_archived_note_under_a_taken_name_is_found_first_number_first(
    ws: Workspace,
) -> None:
    """A move that found the name taken stored the note as ``<stem>.1.md`` (§7)."""
    _archived(ws, "2026-09-03.2.md")
    first = _archived(ws, "2026-09-03.1.md")
    _archived(ws, "2026-09-30.md")
    assert find_day_note(ws, date(2026, 9, 3)) == first
    assert find_day_note(ws, date(2026, 9, 4)) is None
    assert find_day_note(ws, date(2026, 8, 3)) is None  # no such month folder


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"max_lines": 0}, "--max-lines: must be at least 1"),
        ({"from_line": 0}, "FROM: line numbers start at 1"),
        ({"from_line": 5, "to_line": 4}, "TO: must not be before FROM"),
        ({"to_line": 0}, "TO: must not be before FROM"),
        ({"from_line": 99}, "has 5 lines; FROM 99 is past the end"),
    ],
)
def test_bounds_that_cannot_hold_are_input_errors(
    ws: Workspace, kw: dict[str, int], message: str
) -> None:
    with pytest.raises(InputError, match=message):
        get_lines(ws, PROJECTS, **kw)


def test_to_past_the_end_stops_at_the_last_line(ws: Workspace) -> None:
    result = get_lines(ws, PROJECTS, from_line=4, to_line=500)
    assert (result.start, result.end, result.total) == (4, 5, 5)
    assert (result.truncated, result.next) == (False, None)


def test_an_empty_file_shows_nothing_from_line_one(ws: Workspace) -> None:
    (ws.root / PROJECTS).write_text("")
    result = get_lines(ws, PROJECTS)
    assert (result.lines, result.total, result.truncated) == ((), 0, False)


def test_a_date_and_a_path_together_are_input_error(ws: Workspace) -> None:
    with pytest.raises(InputError, match="not both"):
        get_lines(ws, PROJECTS, date=date(2026, 11, 30))


def test_a_days_note_read_from_the_archive_says_so(ws: Workspace) -> None:
    _archived(ws, "2026-09-03.md")
    result = get_lines(ws, "", date=date(2026, 9, 3))
    assert result.path == "memory/archive/2026/09/2026-09-03.md" and result.archived is True
    ws.episodic_note(date(2026, 9, 3)).write_text("# live\n")
    assert get_lines(ws, "", date=date(2026, 9, 3)).archived is False


@pytest.mark.parametrize("rel", ["notes.txt", "memory/scripts/health-check.sh", ".netrc"])
def test_a_file_that_is_no_memory_file_is_refused(ws: Workspace, rel: str) -> None:
    (ws.root / rel).parent.mkdir(parents=True, exist_ok=True)
    (ws.root / rel).write_text("machine example.org password x\n")
    with pytest.raises(InputError, match="not a memory file"):
        get_lines(ws, rel)


def test_a_credential_on_a_line_is_shown_redacted_with_the_numbering_kept(
    ws: Workspace,
) -> None:
    path = ws.root / PROJECTS
    path.write_text(path.read_text() + "- db password=hunter2hunter2\n- after\n")
    result = get_lines(ws, PROJECTS, from_line=6)
    assert list(result.numbered()) == [
        (6, "- db password=[REDACTED:PASSWORD_ASSIGNMENT]"),
        (7, "- after"),
    ]


KEY_BODY = ["MIIEowIBAAKCAQEA" + "k9P8o7I6u5Y4" * 4, "T3r2E1w0Q9a8" * 5 + "Zm9v"]


def test_a_private_key_block_in_a_file_is_never_printed(ws: Workspace) -> None:
    """The module's rule: a credential that slipped into a file is not printed back."""
    block = [
        "-----" + "BEGIN RSA PRIVATE KEY-----",
        *KEY_BODY,
        "-----" + "END RSA PRIVATE KEY-----",
    ]
    path = ws.root / PROJECTS
    path.write_text(path.read_text() + "\n".join(["- deploy key:", *block, "- after"]) + "\n")
    result = get_lines(ws, PROJECTS)
    assert result.lines[-1] == "- after"  # the numbering is kept ...
    assert "[REDACTED:PRIVATE_KEY]" in result.lines
    shown = "\n".join(result.lines)
    assert not any(part in shown for part in KEY_BODY)  # ... and no line of the key shown


def test_a_window_that_starts_inside_a_key_block_shows_none_of_it(ws: Workspace) -> None:
    """The block is found from outside the window (`KEY_BLOCK_REACH` lines around it)."""
    block = [
        "-----" + "BEGIN RSA PRIVATE KEY-----",
        *KEY_BODY,
        "-----" + "END RSA PRIVATE KEY-----",
    ]
    path = ws.root / PROJECTS
    before = len(path.read_text().splitlines())
    path.write_text(path.read_text() + "\n".join([*block, "- after"]) + "\n")
    result = get_lines(ws, PROJECTS, from_line=before + 2, to_line=before + 3)
    assert result.lines == ("[REDACTED:PRIVATE_KEY]", "[REDACTED:PRIVATE_KEY]")
