"""PROTOCOL §2, §4, §5, §8 and §9 (v2) through the `memtier` command, as a reader of the
contract would check them: file formats, the session lifecycle, rotation, the weekly
review and search. Rules already pinned in `test_protocol_conformance.py` and
`tests/commands/test_nothing_lost.py` are not repeated here; these are the cases
those leave open (exact whole lines, merges item by item, edge cases of each format).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memtier.formats.episodic import rotation_id
from tests.cli.test_protocol_conformance import BUF, buffer_text, mt
from tests.conftest import NOW_TEXT, CliRunner

TODAY = NOW_TEXT[:10]
LATER = "2026-11-30T13:00:00+01:00"  # more than stale_hours after the fixture's buffer
SESSION_GATE = "Active session detected; weekly review deferred"
SIZE_GATE = "Buffer oversized; deferring weekly review until session-end rotation"
Snapshot = Callable[[Path], dict[str, bytes]]


def note_path(root: Path, day: str = TODAY) -> Path:
    return root / "memory" / "episodic" / f"{day}.md"


def closure(decisions: str, signal: str, open_: str, updated: str = TODAY) -> str:
    return f"Updated: {updated}\nDecisions: {decisions}\nSignal: {signal}\nOpen: {open_}\n"


def failed(cli: CliRunner, root: Path) -> list[tuple[str, str]]:
    result = mt(cli, root, "health-check", "--json")
    report: dict[str, Any] = json.loads(result.stdout)
    return [(c["id"], c["message"]) for c in report["checks"] if c["status"] == "fail"]


# -- §2 file formats -------------------------------------------------------------------


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


def test_tags_split_on_spaces_commas_and_bars_case_sensitively(root: Path, cli: CliRunner) -> None:
    hot = "# Agent Memory\n#tags: memory,,workflow | docker  Memory\n"
    (root / "MEMORY.md").write_text(hot + "last_verified: 2026-11-30\nlast_updated: 2026-11-30\n")
    assert failed(cli, root) == [("tags", "MEMORY.md — invalid tag(s): Memory")]


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


# -- §4 session-start ------------------------------------------------------------------


def test_failed_recovery_keeps_what_the_current_buffer_held(root: Path, cli: CliRunner) -> None:
    # §4 step 4 (v2, kept lines): a fresh buffer is written, the old one's lines are not lost.
    (root / (BUF + ".pending")).write_text("garbage\n")
    (root / BUF).write_text(buffer_text("2026-11-30T09:30:00+01:00", "precious"))
    result = mt(cli, root, "session-start", "--json")
    assert result.exit_code == 0
    errors = (root / ".learnings" / "ERRORS.md").read_text().splitlines()
    assert errors[-1] == (
        f"- {TODAY} working-buffer.md.pending failed recovery: line 1 must be '# Working Buffer'"
    )
    assert "- precious" in note_path(root).read_text().splitlines()
    assert (root / BUF).read_text() == buffer_text(NOW_TEXT, created=NOW_TEXT)
    assert json.loads(result.stdout)["health"] == {"ok": True, "failed": []}


def test_a_restored_pending_with_fractional_utc_stamps(root: Path, cli: CliRunner) -> None:
    pending = buffer_text("2026-11-30T08:59:00.123Z", "live", created="2026-11-30T08:00:00,5Z")
    (root / (BUF + ".pending")).write_text(pending)
    mt(cli, root, "session-start")
    assert (root / BUF).read_text() == buffer_text(
        NOW_TEXT, "live", created="2026-11-30T08:00:00,5Z"
    )
    assert (root / ".learnings" / "ERRORS.md").read_text() == "# Errors\n"


def test_stale_recovery_into_a_new_note_opens_it_with_its_date(root: Path, cli: CliRunner) -> None:
    (root / BUF).write_text(buffer_text("2026-11-30T07:00:00+01:00", "old") + "\n## Notes\n- n\n")
    rid = rotation_id((root / BUF).read_text())
    mt(cli, root, "session-start")
    assert note_path(root).read_text() == (
        f"# {TODAY}\n\n[RECOVERED: STALE] 2026-11-30T07:00:00+01:00 ({rid})\n"
        "## Active Task:\n- old\n\n## Notes\n- n\n"
        + closure("stale working buffer recovered", "none", "old")
    )


def test_lock_and_pending_together_recover_in_order(root: Path, cli: CliRunner) -> None:
    (root / (BUF + ".lock")).write_text("")
    (root / (BUF + ".pending")).write_text(buffer_text("2026-11-30T09:30:00+01:00", "live"))
    data = json.loads(mt(cli, root, "session-start", "--json").stdout)
    assert not (root / (BUF + ".lock")).exists() and not (root / (BUF + ".pending")).exists()
    assert (root / BUF).read_text() == buffer_text(NOW_TEXT, "live")
    assert data["health"] == {"ok": True, "failed": []}


def test_base_context_comes_in_the_protocols_order(root: Path, cli: CliRunner) -> None:
    # §4 step 7: MEMORY.md, the buffer, today's then yesterday's note, the SCRATCH
    # files, and the health verdict as the last line.
    note_path(root, "2026-11-29").write_text("# y\nYESTERDAY\n" + closure("a", "b", "c"))
    mt(cli, root, "episodic", "append", "TODAYLINE")
    mt(cli, root, "learn", "learning", "LEARNX")
    result = mt(cli, root, "session-start")
    out = result.stdout
    marks = ["# Agent Memory", "# Working Buffer", "TODAYLINE", "YESTERDAY", "LEARNX"]
    positions = [out.index(mark) for mark in marks]
    assert positions == sorted(positions)
    assert out.splitlines()[-1].startswith("health-check: ✅")
    data = json.loads(mt(cli, root, "session-start", "--json").stdout)
    assert list(data["episodic"]) == [TODAY, "2026-11-29"]


# -- §4 buffer, session-end, episodic --------------------------------------------------


def test_buffer_done_writes_a_done_line_after_the_active_section(
    root: Path, cli: CliRunner
) -> None:
    mt(cli, root, "buffer", "task", "one")
    mt(cli, root, "buffer", "task", "two")
    assert mt(cli, root, "buffer", "done", "1").exit_code == 0
    text = (root / BUF).read_text()
    active = text.partition("## Active Task:\n")[2].partition("\n## ")[0]
    assert active.strip().splitlines() == ["- two"]
    assert "- [done] one" in text.partition("## Active Task:\n")[2].partition("\n## ")[2]


@pytest.mark.parametrize("body", ["\n\n", "   \n"])
def test_session_end_with_only_blank_lines_has_nothing_to_rotate(
    root: Path, cli: CliRunner, snapshot: Snapshot, body: str
) -> None:
    (root / BUF).write_text(buffer_text("2026-11-30T09:30:00+01:00") + body)
    before = snapshot(root)
    result = mt(cli, root, "session-end")
    assert (result.exit_code, result.stdout) == (0, "nothing to rotate\n")
    assert snapshot(root) == before


def test_session_end_rotates_loose_text_too(root: Path, cli: CliRunner) -> None:
    (root / BUF).write_text(buffer_text("2026-11-30T09:30:00+01:00") + "loose words\n")
    assert mt(cli, root, "session-end").exit_code == 0
    lines = note_path(root).read_text().splitlines()
    assert "loose words" in lines
    assert lines[-3:] == closure("working buffer rotated", "none", "none").splitlines()[1:]


def test_episodic_close_on_a_missing_day_creates_a_titled_note(root: Path, cli: CliRunner) -> None:
    args = ("episodic", "close", "--decisions", "d", "--signal", "s", "--open", "o")
    assert mt(cli, root, *args, "--date", "2026-11-21").exit_code == 0
    assert note_path(root, "2026-11-21").read_text() == "# 2026-11-21\n\n" + closure("d", "s", "o")


def test_episodic_append_to_an_unclosed_note_appends_at_the_end(root: Path, cli: CliRunner) -> None:
    note_path(root).write_text("# mine\nfirst\n")
    mt(cli, root, "episodic", "append", "second")
    assert note_path(root).read_text() == "# mine\nfirst\nsecond\n"


# -- §5 rotation -----------------------------------------------------------------------


def test_rotation_merge_none_gives_way_and_items_are_not_repeated(
    root: Path, cli: CliRunner
) -> None:
    note_path(root).write_text(
        "# day\n" + closure("working buffer rotated", "none", "none", updated="2026-11-29")
    )
    mt(cli, root, "buffer", "task", "t1")
    assert mt(cli, root, "rotate").exit_code == 0
    assert note_path(root).read_text().endswith(closure("working buffer rotated", "none", "t1"))


def test_rotation_open_is_the_union_in_order(root: Path, cli: CliRunner) -> None:
    note_path(root).write_text("# day\n" + closure("a", "b", "t2; older"))
    mt(cli, root, "buffer", "task", "t1")
    mt(cli, root, "buffer", "task", "t2")
    mt(cli, root, "rotate")
    expected = closure("a; working buffer rotated", "b", "t2; older; t1")
    assert note_path(root).read_text().endswith(expected)


def test_rotation_heading_names_the_time_in_nows_offset(root: Path, cli: CliRunner) -> None:
    late = "2026-11-30T23:30:00-05:00"
    mt(cli, root, "buffer", "task", "late", now=late)
    rid = rotation_id((root / BUF).read_text())
    assert mt(cli, root, "rotate", now=late).exit_code == 0
    assert f"### 23:30 working buffer ({rid})" in note_path(root).read_text().splitlines()


def test_rotation_leaves_an_unmergeable_tail_and_closes_after_it(
    root: Path, cli: CliRunner
) -> None:
    note_path(root).write_text("# day\nfree text\nUpdated: x\n")
    mt(cli, root, "buffer", "task", "a")
    rid = rotation_id((root / BUF).read_text())
    mt(cli, root, "rotate")
    assert note_path(root).read_text() == (
        f"# day\nfree text\nUpdated: x\n### 10:00 working buffer ({rid})\n#### Active Task:\n- a\n"
        + closure("working buffer rotated", "none", "a")
    )


# -- §8 weekly review ------------------------------------------------------------------


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
    assert lines[:3] == ["# day", "x", f"11:00 {SESSION_GATE}"]
    assert lines[3:] == closure("a", "b", "c").splitlines()


def test_size_gate_line_is_exact_in_a_note_it_creates(root: Path, cli: CliRunner) -> None:
    (root / BUF).write_text(buffer_text("2026-11-30T07:00:00+01:00", *"abcd"))
    assert mt(cli, root, "weekly-review").exit_code == 0
    lines = note_path(root).read_text().splitlines()
    assert lines[:2] == [f"# {TODAY}", ""]
    assert re.fullmatch(r"\d\d:\d\d " + re.escape(SIZE_GATE), lines[2]), lines[2]
    assert failed(cli, root) == []


def test_session_gate_is_strictly_less_than_stale_hours(root: Path, cli: CliRunner) -> None:
    # The fixture's buffer was last active at 10:00; at 12:00 exactly the gate is open.
    result = mt(cli, root, "weekly-review", now="2026-11-30T12:00:00+01:00")
    assert (result.exit_code, result.stdout) == (0, "No meaningful changes\n")
    assert not note_path(root).exists()


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


def test_review_merges_the_agents_block_item_by_item(root: Path, cli: CliRunner) -> None:
    note_path(root).write_text("# day\nx\n" + closure("agent d", "agent s", "task o", "2026-11-29"))
    note_path(root, "2026-09-01").write_text("old\n")
    assert mt(cli, root, "weekly-review", now=LATER).exit_code == 0
    lines = note_path(root).read_text().splitlines()
    assert lines[:2] == ["# day", "x"] and len(lines) == 6
    assert lines[2] == f"Updated: {TODAY}"
    assert lines[3].startswith("Decisions: agent d; weekly review performed")
    assert lines[4].startswith("Signal: agent s; ")
    assert lines[5] == "Open: task o"


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


# -- §9 search and the report commands -------------------------------------------------


def hits(cli: CliRunner, root: Path, *args: str) -> dict[str, Any]:
    result = mt(cli, root, "search", *args, "--json")
    assert result.exit_code == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_each_hit_names_path_line_tier_and_score(root: Path, cli: CliRunner) -> None:
    mt(cli, root, "buffer", "note", "qdrant in the buffer")
    mt(cli, root, "learn", "error", "qdrant crashed")
    mt(cli, root, "episodic", "append", "qdrant moved")
    data = hits(cli, root, "qdrant")
    assert data["tiers"] == ["hot", "warm", "index", "buffer", "scratch", "cold"]
    found = {(h["tier"], h["path"]) for h in data["results"]}
    assert found == {
        ("buffer", BUF),
        ("scratch", ".learnings/ERRORS.md"),
        ("cold", f"memory/episodic/{TODAY}.md"),
    }
    for hit in data["results"]:
        assert isinstance(hit["line"], int) and isinstance(hit["score"], float)
        assert "qdrant" in (root / hit["path"]).read_text().splitlines()[hit["line"] - 1]


def test_tiers_are_searched_in_protocol_order_whatever_the_order_given(
    root: Path, cli: CliRunner
) -> None:
    data = hits(cli, root, "zzzq", "--tier", "COLD", "--tier", "Hot", "--tier", "archive")
    assert data["tiers"] == ["hot", "cold", "archive"]
    text = mt(cli, root, "search", "zzzq", "--tier", "cold", "--tier", "warm")
    assert text.exit_code == 0 and "WARM, COLD" in text.stdout and "HOT" not in text.stdout


@pytest.mark.parametrize(
    "args",
    [
        ("--tier", "bogus"),
        ("--regex", "--limit", "3", "("),
        ("--limit", "0"),
        ("--context", "-1"),
    ],
)
def test_search_bad_options_are_one_line_exit_2(
    root: Path, cli: CliRunner, args: tuple[str, ...]
) -> None:
    query = () if "(" in args else ("qdrant",)
    result = mt(cli, root, "search", *query, *args)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("memtier: error:") and result.stderr.count("\n") == 1


def test_all_adds_the_archive_after_the_live_tiers(root: Path, cli: CliRunner) -> None:
    data = hits(cli, root, "zzzq", "--all")
    assert data["tiers"] == ["hot", "warm", "index", "buffer", "scratch", "cold", "archive"]
    text = mt(cli, root, "search", "zzzq", "--all").stdout
    assert "HOT, WARM, INDEX, BUFFER, SCRATCH, COLD, ARCHIVE" in text


def test_search_limit_and_tag(root: Path, cli: CliRunner) -> None:
    infra = root / "memory" / "semantic" / "infrastructure.md"
    infra.write_text("# I\n#tags: docker\n> last_verified: 2026-11-30\nqdrant one\n")
    prefs = root / "memory" / "semantic" / "preferences.md"
    prefs.write_text("# P\n#tags: rules\n> last_verified: 2026-11-30\nqdrant two\n")
    assert len(hits(cli, root, "qdrant", "--limit", "1")["results"]) == 1
    tagged = hits(cli, root, "qdrant", "--tag", "docker")["results"]
    assert [h["path"] for h in tagged] == ["memory/semantic/infrastructure.md"]


@pytest.mark.parametrize(
    "command",
    [
        ("session-end",),
        ("buffer", "show"),
        ("recent-searches",),
        ("candidates",),
        ("tags",),
        ("stats",),
        ("archive", "--dry-run"),
    ],
)
def test_report_commands_answer_json(root: Path, cli: CliRunner, command: tuple[str, ...]) -> None:
    result = mt(cli, root, *command, "--json")
    assert result.exit_code == 0, result.stderr
    assert isinstance(json.loads(result.stdout), dict)
