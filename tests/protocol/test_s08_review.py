"""PROTOCOL §8, the weekly review, step by step: the lock, the session and size gates,
the health gate, archive and recurrence, the merged closure block, the no-op run."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CliRunner
from tests.protocol.support import (
    BUF,
    HOT_OK,
    TODAY,
    Snapshot,
    buffer_text,
    closure,
    failed,
    mt,
    note_path,
)

LATER = "2026-11-30T13:00:00+01:00"  # more than stale_hours after the fixture's buffer
SESSION_GATE = "Active session detected; weekly review deferred"
SIZE_GATE = "Buffer oversized; deferring weekly review until session-end rotation"


# -- steps 1 and 2: the lock, the session gate -----------------------------------------


def test_review_session_gate(root: Path, cli: CliRunner) -> None:
    (root / (BUF + ".lock")).write_text("")
    mt(cli, root, "buffer", "task", "in hand")  # a fresh buffer is no session (§8 v3)
    result = mt(cli, root, "weekly-review", now="2026-11-30T11:59:00+01:00")
    assert result.exit_code == 0
    note = (root / "memory" / "episodic" / f"{TODAY}.md").read_text()
    assert "Active session detected; weekly review deferred\n" in note
    assert not (root / (BUF + ".lock")).exists()  # step 1 ran first


def test_session_gate_line_is_exact_and_before_the_closure_block(
    root: Path, cli: CliRunner
) -> None:
    note_path(root).write_text("# day\nx\n" + closure("a", "b", "c"))
    (root / BUF).write_text((root / BUF).read_text() + "- in hand\n")  # a live session
    result = mt(cli, root, "weekly-review", now="2026-11-30T11:00:00+01:00")
    assert result.exit_code == 0
    lines = note_path(root).read_text().splitlines()
    # The protocol's line, after the time it was written (issue 10: each deferral
    # line carries its time, so two deferrals on one day are told apart).
    # §2 (v4): a paragraph of its own, a blank line before the block.
    assert lines[:5] == ["# day", "x", "", f"11:00 {SESSION_GATE}", ""]
    assert lines[5:] == closure("a", "b", "c").splitlines()


@pytest.mark.parametrize(
    ("now", "deferred"),
    [("2026-11-30T09:59:59+01:00", True), ("2026-11-30T10:00:00+01:00", False)],
)
def test_review_session_gate_is_less_than_stale_hours(
    root: Path, cli: CliRunner, now: str, deferred: bool
) -> None:
    (root / BUF).write_text(buffer_text("2026-11-30T08:00:00+01:00", "work"))
    result = mt(cli, root, "weekly-review", now=now)
    assert result.exit_code == 0
    expected = "Active session detected; weekly review deferred\n"
    assert (result.stdout == expected) is deferred
    assert (root / "memory" / "episodic" / f"{TODAY}.md").exists() is deferred


def test_session_gate_is_strictly_less_than_stale_hours(root: Path, cli: CliRunner) -> None:
    # The fixture's buffer was last active at 10:00; at 12:00 exactly the gate is open.
    result = mt(cli, root, "weekly-review", now="2026-11-30T12:00:00+01:00")
    assert (result.exit_code, result.stdout) == (0, "No meaningful changes\n")
    assert not note_path(root).exists()


# -- step 3: the size gate -------------------------------------------------------------


def test_review_size_gate(root: Path, cli: CliRunner) -> None:
    (root / BUF).write_text(buffer_text("2026-11-30T07:00:00+01:00", *"abcd"))
    result = mt(cli, root, "weekly-review")
    assert result.exit_code == 0
    note = (root / "memory" / "episodic" / f"{TODAY}.md").read_text()
    assert "Buffer oversized; deferring weekly review until session-end rotation\n" in note
    assert (root / BUF).read_text().count("\n- ") == 4


def test_size_gate_line_is_exact_in_a_note_it_creates(root: Path, cli: CliRunner) -> None:
    (root / BUF).write_text(buffer_text("2026-11-30T07:00:00+01:00", *"abcd"))
    assert mt(cli, root, "weekly-review").exit_code == 0
    lines = note_path(root).read_text().splitlines()
    assert lines[:2] == [f"# {TODAY}", ""]
    assert re.fullmatch(r"\d\d:\d\d " + re.escape(SIZE_GATE), lines[2]), lines[2]
    assert failed(cli, root) == []


# -- step 4: the health gate -----------------------------------------------------------


def test_review_health_failure_exits_1_and_changes_nothing(
    root: Path, cli: CliRunner, snapshot: Callable[[Path], dict[str, bytes]]
) -> None:
    (root / "MEMORY.md").write_text(HOT_OK.replace("# Agent Memory", "# Memory"))
    (root / "memory" / "episodic" / "2026-01-01.md").write_text("old\n")
    before = snapshot(root)
    result = mt(cli, root, "weekly-review", now="2026-11-30T13:00:00+01:00")
    assert result.exit_code == 1
    assert "MEMORY.md header invalid" in result.stdout
    assert snapshot(root) == before


def test_health_failure_json_exits_1_and_changes_nothing(
    root: Path, cli: CliRunner, snapshot: Snapshot
) -> None:
    (root / "MEMORY.md").write_text("# Memory\n")
    note_path(root, "2026-01-01").write_text("old\n")
    before = snapshot(root)
    result = mt(cli, root, "weekly-review", "--json", now=LATER)
    assert result.exit_code == 1
    assert json.loads(result.stdout)["health"]["ok"] is False
    assert snapshot(root) == before


# -- steps 5 to 7: archive and recurrence ----------------------------------------------


def test_review_archives_flags_once_and_closes_today(root: Path, cli: CliRunner) -> None:
    later = "2026-11-30T13:00:00+01:00"
    (root / "memory" / "episodic" / "2026-09-01.md").write_text("old\n")
    note = root / "memory" / "episodic" / f"{TODAY}.md"
    note.write_text("# day\nUpdated: 2026-11-30\nDecisions: a\nSignal: b\nOpen: c\n")
    errors = root / ".learnings" / "ERRORS.md"
    errors.write_text(
        "# Errors\n- 2026-11-01 Restart the  daemon\n- 2026-11-02 restart the daemon\n"
    )
    (root / ".learnings" / "LEARNINGS.md").write_text(
        "# L\n- 2026-11-03T08:00:00Z restart THE daemon\n"
    )
    result = mt(cli, root, "weekly-review", now=later)
    assert result.exit_code == 0, result.stderr
    assert (
        errors.read_text().splitlines()[1] == "- 2026-11-01 Restart the  daemon [PROMOTE-CANDIDATE]"
    )
    assert errors.read_text().count("[PROMOTE-CANDIDATE]") == 1
    lines = note.read_text().splitlines()
    # The final block replaced in place, a blank line before it (§2 v4).
    assert lines[0:2] == ["# day", ""] and len(lines) == 6
    assert lines[2] == "Updated: 2026-11-30"
    assert lines[3].startswith("Decisions: ") and lines[4].startswith("Signal: ")
    assert lines[5].startswith("Open: ")
    assert (root / "memory" / "archive" / "2026" / "09" / "2026-09-01.md").exists()
    rerun = mt(cli, root, "weekly-review", now=later)
    assert rerun.stdout == "No meaningful changes\n"
    assert errors.read_text().count("[PROMOTE-CANDIDATE]") == 1


def test_recurrence_flag_lands_once_across_both_files(root: Path, cli: CliRunner) -> None:
    errors = root / ".learnings" / "ERRORS.md"
    learnings = root / ".learnings" / "LEARNINGS.md"
    errors.write_text("# Errors\n- 2026-11-01 pin the mirror #pinned\n")
    learnings.write_text("# Learnings\n- 2026-11-02 Pin the  mirror\n- pin the mirror\n")
    assert mt(cli, root, "weekly-review", now=LATER).exit_code == 0
    # The flag goes at the very end, after `#pinned`, with one leading space.
    assert (
        errors.read_text() == "# Errors\n- 2026-11-01 pin the mirror #pinned [PROMOTE-CANDIDATE]\n"
    )
    assert "[PROMOTE-CANDIDATE]" not in learnings.read_text()
    assert mt(cli, root, "weekly-review", now=LATER).stdout == "No meaningful changes\n"


def test_recurrence_counts_only_errors_and_learnings(root: Path, cli: CliRunner) -> None:
    features = root / ".learnings" / "FEATURE_REQUESTS.md"
    features.write_text("# F\n" + "".join(f"- 2026-11-2{n} want dark mode\n" for n in range(3)))
    before = features.read_bytes()
    result = mt(cli, root, "weekly-review", now="2026-11-30T13:00:00+01:00")
    assert result.stdout == "No meaningful changes\n"
    assert features.read_bytes() == before


# -- step 8: the closure block, merged -------------------------------------------------


def test_review_merges_the_agents_block_item_by_item(root: Path, cli: CliRunner) -> None:
    note_path(root).write_text("# day\nx\n" + closure("agent d", "agent s", "task o", "2026-11-29"))
    note_path(root, "2026-09-01").write_text("old\n")
    assert mt(cli, root, "weekly-review", now=LATER).exit_code == 0
    lines = note_path(root).read_text().splitlines()
    assert lines[:3] == ["# day", "x", ""] and len(lines) == 7
    assert lines[3] == f"Updated: {TODAY}"
    assert lines[4].startswith("Decisions: agent d; weekly review performed")
    assert lines[5].startswith("Signal: agent s; ")
    assert lines[6] == "Open: task o"


# -- no meaningful changes -------------------------------------------------------------


def test_review_no_changes(
    root: Path, cli: CliRunner, snapshot: Callable[[Path], dict[str, bytes]]
) -> None:
    before = snapshot(root)
    result = mt(cli, root, "weekly-review", now="2026-11-30T13:00:00+01:00")
    assert (result.exit_code, result.stdout) == (0, "No meaningful changes\n")
    assert snapshot(root) == before


def test_no_meaningful_changes_removes_only_the_lock(
    root: Path, cli: CliRunner, snapshot: Snapshot
) -> None:
    before = snapshot(root)
    (root / (BUF + ".lock")).write_text("")
    result = mt(cli, root, "weekly-review", "--json", now=LATER)
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["message"] == "No meaningful changes" and data["lock_removed"] is True
    assert snapshot(root) == before
