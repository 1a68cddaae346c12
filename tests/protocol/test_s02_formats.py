"""PROTOCOL §2, file formats, as health-check and the writers read them: tags lines,
WARM headers, buffer timestamps and active tasks, closure blocks, SCRATCH lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import CliRunner
from tests.protocol.support import BUF, TODAY, buffer_text, closure, failed, mt, note_path

# -- tags line -------------------------------------------------------------------------


def test_tags_split_on_spaces_commas_and_bars_case_sensitively(root: Path, cli: CliRunner) -> None:
    hot = "# Agent Memory\n#tags: memory,,workflow | docker  Memory\n"
    (root / "MEMORY.md").write_text(hot + "last_verified: 2026-11-30\nlast_updated: 2026-11-30\n")
    assert failed(cli, root) == [("tags", "MEMORY.md — invalid tag(s): Memory")]


# -- WARM file header ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("third", "ok"),
    [
        ("> last_verified: 2026-11-30", True),
        ("last_verified: 2026-11-30", True),
        (">last_verified: 2026-11-30", False),
        ("  last_verified: 2026-11-30", False),
    ],
)
def test_warm_last_verified_line_forms(root: Path, cli: CliRunner, third: str, ok: bool) -> None:
    warm = root / "memory" / "semantic" / "infrastructure.md"
    warm.write_text(f"# Infra\n#tags: docker\n{third}\n")
    path = "memory/semantic/infrastructure.md"
    assert failed(cli, root) == ([] if ok else [("warm.fresh", f"{path} — missing last_verified")])


# -- working buffer --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stamp", "ok"),
    [
        ("2026-11-30T09:00:00Z", True),
        ("2026-11-30T09:00:00.5+01:00", True),
        ("2026-11-30T09:00:00,123Z", True),
        ("2026-11-30T09:00:00+0100", False),
        ("2026-11-30T09:00+01:00", False),
        ("2026-11-30 09:00:00Z", False),
    ],
)
def test_buffer_timestamp_forms(root: Path, cli: CliRunner, stamp: str, ok: bool) -> None:
    (root / BUF).write_text(buffer_text("2026-11-30T09:00:00Z", created=stamp))
    message = "working-buffer.md — created timestamp invalid"
    assert failed(cli, root) == ([] if ok else [("buffer.header", message)])


def test_active_task_lines_run_to_the_next_level_two_heading(root: Path, cli: CliRunner) -> None:
    # `^-\s+\S` lines between `## Active Task:` and the next line starting `## `:
    # a `### ` heading does not end the section, `-c` and an indented bullet are no task.
    section = "- a\n-\tb\n-c\n### sub\n- d\n  - e\n## Notes\n- n1\n- n2\n"
    (root / BUF).write_text(buffer_text("2026-11-30T09:59:00+01:00") + section)
    buffer = json.loads(mt(cli, root, "stats", "--json").stdout)["buffer"]
    assert (buffer["active_tasks"], buffer["oversized"]) == (3, False)
    result = mt(cli, root, "buffer", "task", "f")
    assert result.exit_code == 0 and "rotation is due at session end" in result.stderr


# -- episodic note and its closure block -----------------------------------------------


@pytest.mark.parametrize(
    ("updated", "ok"),
    [
        ("Updated: 2026-11-30", True),
        ("Updated: 2026-11-30 and more", False),
        ("Updated: 2026-11-30T10:00", False),
        ("Updated: 2026-11-3", False),
        ("Updated: 2026-02-30", False),
        ("Updated: today", False),
    ],
)
def test_updated_is_exactly_a_date(root: Path, cli: CliRunner, updated: str, ok: bool) -> None:
    note_path(root).write_text(f"# day\n{updated}\nDecisions: d\nSignal: s\nOpen: o\n")
    expected = (
        [] if ok else [("episodic.closure", f"{TODAY}.md — closure block missing or malformed")]
    )
    assert failed(cli, root) == expected


@pytest.mark.parametrize(
    "tail",
    [
        closure("d", "s", "o") + "\n",  # a blank line after the block
        "Updated: 2026-11-30\nDecisions: d\nSignal: s\nOpen: \n",  # an empty field
        "Updated: 2026-11-30\nSignal: s\nDecisions: d\nOpen: o\n",  # fields out of order
    ],
)
def test_a_closure_block_is_the_last_four_lines_exactly(
    root: Path, cli: CliRunner, tail: str
) -> None:
    note_path(root).write_text("# day\n" + tail)
    assert [check for check, _ in failed(cli, root)] == ["episodic.closure"]


# -- SCRATCH entry ---------------------------------------------------------------------


def test_scratch_normalisation_drops_dates_flags_case_and_spacing(
    root: Path, cli: CliRunner
) -> None:
    errors = root / ".learnings" / "ERRORS.md"
    errors.write_text(
        "# Errors\n- 2026-11-01T08:00:00.123Z Disk   FULL #pinned [PROMOTE-CANDIDATE]\n"
    )
    refused = mt(cli, root, "learn", "learning", "disk full")
    assert refused.exit_code == 1 and refused.stderr.startswith("memtier: error:")
    errors.write_text("# Errors\n- 2026-11-01 disk full [PROMOTE-CANDIDATE] #pinned\n")
    assert mt(cli, root, "learn", "learning", "DISK full").exit_code == 1
    assert mt(cli, root, "learn", "learning", "disk fuller").exit_code == 0
