"""PROTOCOL §4, the session lifecycle: session-start step by step, then the buffer,
session-end and episodic commands, through the `memtier` command."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memtier.formats.buffer import fresh_buffer
from memtier.formats.episodic import rotation_id
from memtier.workspace import Workspace
from tests.conftest import NOW, NOW_TEXT, CliRunner
from tests.protocol.support import BUF, TODAY, Snapshot, buffer_text, closure, mt, note_path

BLOCK = closure("a", "b", "none")  # a closed note's last four lines


def session_start(cli: CliRunner, root: Path, now: str = NOW_TEXT) -> dict[str, Any]:
    result = mt(cli, root, "session-start", "--json", now=now)
    assert result.exit_code == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    return data


# -- session-start step 1: MEMORY.md ---------------------------------------------------


def test_step_1_recreates_memory_md_under_an_explicit_root(root: Path, cli: CliRunner) -> None:
    (root / "MEMORY.md").unlink()
    data = session_start(cli, root)
    assert (root / "MEMORY.md").read_text() == (
        "# Agent Memory\n#tags: memory\nlast_verified: 2026-11-30\nlast_updated: 2026-11-30\n"
    )
    assert data["health"]["ok"] is True


# -- step 2: the buffer ----------------------------------------------------------------


def test_step_2_creates_the_buffer(root: Path, cli: CliRunner) -> None:
    (root / BUF).unlink()
    session_start(cli, root)
    assert (root / BUF).read_text() == buffer_text(NOW_TEXT, created=NOW_TEXT)


# -- step 3: the lock ------------------------------------------------------------------


def test_step_3_removes_the_lock(root: Path, cli: CliRunner) -> None:
    (root / (BUF + ".lock")).write_text("")
    session_start(cli, root)
    assert not (root / (BUF + ".lock")).exists()


# -- step 4: the pending snapshot ------------------------------------------------------


@pytest.mark.parametrize(
    ("pending", "fragment"),
    [
        ("", "empty"),
        ("  \n\t\n", "whitespace"),
        (
            "# Working Buffer\nlast_active: 2026-11-30T09:00:00Z\n"
            "created: 2026-11-30T09:00:00Z\n\n",
            "",
        ),
        (
            "# Working Buffer\ncreated: 2026-11-30T09:00:00Z\nlast_active: 2026-11-30T9:00:00Z\n\n",
            "",
        ),
        (
            "# Working Buffer\ncreated: 2026-11-30T09:00:00Z\n"
            "last_active: 2026-11-30T09:00:00Z\nx\n",
            "",
        ),
        (
            "Working Buffer\ncreated: 2026-11-30T09:00:00Z\nlast_active: 2026-11-30T09:00:00Z\n\n",
            "",
        ),
    ],
)
def test_step_4_failed_recovery(root: Path, cli: CliRunner, pending: str, fragment: str) -> None:
    (root / (BUF + ".pending")).write_text(pending)
    result = mt(cli, root, "session-start")
    assert result.exit_code == 0
    assert "pending" in result.stderr  # the person is told
    errors = (root / ".learnings" / "ERRORS.md").read_text().splitlines()
    prefix = f"- {TODAY} working-buffer.md.pending failed recovery: "
    assert errors[-1].startswith(prefix) and len(errors[-1]) > len(prefix)
    assert fragment in errors[-1]
    assert not (root / (BUF + ".pending")).exists()
    assert (root / BUF).read_text() == buffer_text(NOW_TEXT, created=NOW_TEXT)


def test_failed_recovery_is_told_on_stderr(cli: CliRunner, root: Path) -> None:
    (root / "memory/working-buffer.md.pending").write_text("")
    result = cli("session-start", "--root", str(root), "--now", NOW_TEXT)
    assert result.exit_code == 0
    assert "memtier: warning: working-buffer.md.pending could not be recovered" in result.stderr


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


def test_step_4_pending_already_in_a_note_is_discarded(root: Path, cli: CliRunner) -> None:
    pending = buffer_text("2026-11-30T09:50:00+01:00", "ship it")
    note = root / "memory" / "episodic" / f"{TODAY}.md"
    # PROTOCOL §4 step 4 (v2): the finished rotation is known by its id, not its text.
    heading = f"### 09:50 working buffer ({rotation_id(pending)})\n"
    note.write_text(
        heading
        + "## Active Task:\n- ship it\nUpdated: 2026-11-30\nDecisions: a\nSignal: b\nOpen: c\n"
    )
    current = buffer_text("2026-11-30T09:55:00+01:00", "next thing")
    (root / BUF).write_text(current)
    (root / (BUF + ".pending")).write_text(pending)
    session_start(cli, root)
    assert not (root / (BUF + ".pending")).exists()
    assert (root / BUF).read_text() == current.replace("09:55:00+01:00\n", "10:00:00+01:00\n", 1)
    assert note.read_text().count("- ship it") == 1


def test_step_4_restores_a_live_pending(root: Path, cli: CliRunner) -> None:
    (root / (BUF + ".pending")).write_text(buffer_text("2026-11-30T09:30:00+01:00", "live"))
    session_start(cli, root)
    assert (root / BUF).read_text() == buffer_text(NOW_TEXT, "live")
    assert not (root / (BUF + ".pending")).exists()


def test_a_restored_pending_with_fractional_utc_stamps(root: Path, cli: CliRunner) -> None:
    pending = buffer_text("2026-11-30T08:59:00.123Z", "live", created="2026-11-30T08:00:00,5Z")
    (root / (BUF + ".pending")).write_text(pending)
    mt(cli, root, "session-start")
    assert (root / BUF).read_text() == buffer_text(
        NOW_TEXT, "live", created="2026-11-30T08:00:00,5Z"
    )
    assert (root / ".learnings" / "ERRORS.md").read_text() == "# Errors\n"


def test_lock_and_pending_together_recover_in_order(root: Path, cli: CliRunner) -> None:
    (root / (BUF + ".lock")).write_text("")
    (root / (BUF + ".pending")).write_text(buffer_text("2026-11-30T09:30:00+01:00", "live"))
    data = json.loads(mt(cli, root, "session-start", "--json").stdout)
    assert not (root / (BUF + ".lock")).exists() and not (root / (BUF + ".pending")).exists()
    assert (root / BUF).read_text() == buffer_text(NOW_TEXT, "live")
    assert data["health"] == {"ok": True, "failed": []}


@pytest.mark.parametrize("tasks", [(), ("late",)])
def test_step_4_stale_or_taskless_pending_goes_to_today(
    root: Path, cli: CliRunner, tasks: tuple[str, ...]
) -> None:
    last = "2026-11-30T07:00:00+01:00" if tasks else "2026-11-30T09:59:00+01:00"
    pending = buffer_text(last, *tasks) + "\nnotes kept\n"
    (root / (BUF + ".pending")).write_text(pending)
    session_start(cli, root)
    lines = (root / "memory" / "episodic" / f"{TODAY}.md").read_text().splitlines()
    # PROTOCOL §4 step 4 (v2): the marker carries the snapshot's id; §2 (v4) it heads
    # the block as `### HH:MM`, like every block memtier writes into a note.
    assert f"### 10:00 [RECOVERED: STALE] {last} ({rotation_id(pending)})" in lines
    assert "notes kept" in lines
    assert [line.split(":")[0] for line in lines[-4:]] == ["Updated", "Decisions", "Signal", "Open"]
    assert (root / BUF).read_text() == buffer_text(NOW_TEXT, created=NOW_TEXT)


def test_step_4_oversized_pending_is_rotated(root: Path, cli: CliRunner) -> None:
    (root / (BUF + ".pending")).write_text(buffer_text("2026-11-30T09:30:00+01:00", *"abcd"))
    session_start(cli, root)
    note = (root / "memory" / "episodic" / f"{TODAY}.md").read_text()
    assert note.endswith("Open: a; b; c; d\n")
    # A mid-session rotation keeps the active tasks in the fresh buffer (§5 step 5 v3).
    assert (root / BUF).read_text() == buffer_text(NOW_TEXT, *"abcd", created=NOW_TEXT)


# -- step 5: a stale buffer ------------------------------------------------------------


def test_step_5_stale_buffer_goes_to_today_with_the_closure_block_last(
    root: Path, cli: CliRunner
) -> None:
    note = root / "memory" / "episodic" / f"{TODAY}.md"
    note.write_text("# day\nUpdated: 2026-11-30\nDecisions: a\nSignal: b\nOpen: c\n")
    (root / BUF).write_text(buffer_text("2026-11-30T07:59:59+01:00", "abandoned"))
    rid = rotation_id((root / BUF).read_text())
    session_start(cli, root)
    # PROTOCOL §4 step 5 and §2 (v2): the marker names the snapshot; the block is merged.
    # §2 (v4): blank lines around the block, its parts at ####, the placeholder gone.
    assert note.read_text() == (
        f"# day\n\n### 10:00 [RECOVERED: STALE] 2026-11-30T07:59:59+01:00 ({rid})\n"
        "#### Active Task:\n- abandoned\n\n"
        "Updated: 2026-11-30\nDecisions: a\nSignal: b\n"
        "Open: c; abandoned\n"
    )


def test_stale_recovery_into_a_new_note_opens_it_with_its_date(root: Path, cli: CliRunner) -> None:
    (root / BUF).write_text(buffer_text("2026-11-30T07:00:00+01:00", "old") + "\n## Notes\n- n\n")
    rid = rotation_id((root / BUF).read_text())
    mt(cli, root, "session-start")
    assert note_path(root).read_text() == (
        f"# {TODAY}\n\n### 10:00 [RECOVERED: STALE] 2026-11-30T07:00:00+01:00 ({rid})\n"
        "#### Active Task:\n- old\n\n#### Notes\n- n\n\n"
        + closure("stale working buffer recovered", "none", "old")
    )


@pytest.mark.parametrize(
    ("last_active", "recovered"),
    [("2026-11-30T08:00:00+01:00", False), ("2026-11-30T07:59:59+01:00", True)],
)
def test_step_5_stale_means_more_than_stale_hours(
    root: Path, cli: CliRunner, last_active: str, recovered: bool
) -> None:
    (root / BUF).write_text(buffer_text(last_active, "task"))
    session_start(cli, root)
    assert (root / "memory" / "episodic" / f"{TODAY}.md").exists() is recovered
    assert ("- task" in (root / BUF).read_text()) is not recovered


def test_step_5_an_empty_stale_buffer_is_not_appended(root: Path, cli: CliRunner) -> None:
    (root / BUF).write_text(buffer_text("2026-11-29T07:00:00+01:00"))
    session_start(cli, root)
    assert not (root / "memory" / "episodic" / f"{TODAY}.md").exists()


# -- step 6: heartbeat -----------------------------------------------------------------


def test_step_6_heartbeat(root: Path, cli: CliRunner) -> None:
    (root / BUF).write_text(buffer_text("2026-11-30T09:00:00+01:00", "keep"))
    session_start(cli, root, now="2026-11-30T10:30:00+01:00")
    assert (root / BUF).read_text() == buffer_text("2026-11-30T10:30:00+01:00", "keep")


# -- step 7: the base context, exit 0 --------------------------------------------------


def test_step_7_context_and_verdict(root: Path, cli: CliRunner) -> None:
    (root / "memory" / "episodic" / "2026-11-29.md").write_text("yesterday's note\n")
    (root / "memory" / "episodic" / "2026-11-28.md").write_text("older note\n")
    errors = root / ".learnings" / "ERRORS.md"
    errors.write_text("".join(f"- 2026-11-30 e{n}\n" for n in range(30)))
    data = session_start(cli, root)
    assert list(data["episodic"]) == ["2026-11-29"]
    assert data["learnings"]["ERRORS.md"].splitlines() == [
        f"- 2026-11-30 e{n}" for n in range(10, 30)
    ]
    assert data["health"] == {"ok": False, "failed": ["episodic.closure"]}
    text = mt(cli, root, "session-start")
    assert text.exit_code == 0  # a failing verdict is reported, not an error
    assert "yesterday's note" in text.stdout and "older note" not in text.stdout
    verdict = text.stdout.splitlines()[-1]
    # §6 (v4): an integrity failure is named as one, apart from staleness.
    assert "integrity check(s) failed (episodic.closure)" in verdict
    assert "memtier health-check" in verdict


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


def test_text_output_ends_with_the_health_verdict(cli: CliRunner, root: Path) -> None:
    result = cli("session-start", "--root", str(root), "--now", NOW_TEXT)
    assert result.exit_code == 0
    lines = result.stdout.rstrip("\n").split("\n")
    assert lines[-1].startswith("health-check: ")
    assert "===== MEMORY.md =====" in lines
    assert "===== memory/working-buffer.md =====" in lines


def test_session_start_json_keys(root: Path, cli: CliRunner) -> None:
    data = session_start(cli, root)
    assert set(data) == {"actions", "hot", "buffer", "episodic", "learnings", "health"}
    assert set(data["health"]) == {"ok", "failed"}
    assert isinstance(data["actions"], list) and data["hot"].startswith("# Agent Memory\n")
    assert data["buffer"].startswith("# Working Buffer\n")


def test_json_shape(cli: CliRunner, root: Path) -> None:
    (root / "memory/episodic/2026-11-29.md").write_text("yesterday\n" + BLOCK)
    result = cli("session-start", "--json", "--root", str(root), "--now", NOW_TEXT)
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert list(data) == ["actions", "hot", "buffer", "episodic", "learnings", "health"]
    assert data["episodic"] == {"2026-11-29": "yesterday\n" + BLOCK}
    assert set(data["learnings"]) == {"ERRORS.md", "LEARNINGS.md", "FEATURE_REQUESTS.md"}
    assert data["hot"].startswith("# Agent Memory\n")
    assert data["buffer"] == fresh_buffer(NOW, Workspace.open(root, NOW).config)
    assert set(data["health"]) == {"ok", "failed"}


def test_health_failure_still_exits_zero(cli: CliRunner, root: Path) -> None:
    (root / "MEMORY.md").write_text("not a header\n")
    result = cli("session-start", "--json", "--root", str(root), "--now", NOW_TEXT)
    assert result.exit_code == 0
    health = json.loads(result.stdout)["health"]
    assert health["ok"] is False and "hot.header" in health["failed"]


# -- buffer ----------------------------------------------------------------------------


def test_buffer_commands(root: Path, cli: CliRunner) -> None:
    assert mt(cli, root, "buffer", "task", "first").exit_code == 0
    mt(cli, root, "buffer", "task", "second")
    mt(cli, root, "buffer", "note", "a remark")
    assert mt(cli, root, "buffer", "done", "2").exit_code == 0
    mt(cli, root, "buffer", "task", "third", now="2026-11-30T10:20:00+01:00")
    assert mt(cli, root, "buffer", "done", "first", now="2026-11-30T10:21:00+01:00").exit_code == 0
    text = (root / BUF).read_text()
    head, _, rest = text.partition("## Active Task:\n")
    assert head == (
        "# Working Buffer\ncreated: 2026-11-30T10:00:00+01:00\n"
        "last_active: 2026-11-30T10:21:00+01:00\n\n"
    )
    active, _, body = rest.partition("\n## ")
    assert active.strip().splitlines() == ["- third"]
    assert {"- a remark", "- [done] second", "- [done] first"} <= set(body.splitlines())
    shown = mt(cli, root, "buffer", "show")
    assert shown.exit_code == 0 and shown.stdout.count("- third") == 1


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


def test_buffer_heartbeat_changes_only_last_active(root: Path, cli: CliRunner) -> None:
    before = buffer_text("2026-11-30T09:00:00+01:00", "x") + "\nbody\n"
    (root / BUF).write_text(before)
    assert mt(cli, root, "buffer", "heartbeat").exit_code == 0
    assert (root / BUF).read_text() == before.replace(
        "last_active: 2026-11-30T09:00", "last_active: 2026-11-30T10:00"
    )


@pytest.mark.parametrize("args", [("buffer", "done", "9"), ("buffer", "done", "nothing like it")])
def test_buffer_done_without_a_match_is_an_input_error(
    root: Path, cli: CliRunner, args: tuple[str, ...]
) -> None:
    mt(cli, root, "buffer", "task", "only")
    result = mt(cli, root, *args)
    assert result.exit_code == 2 and result.stderr.startswith("memtier: error:")


def test_oversized_buffer_write_succeeds_with_a_warning(root: Path, cli: CliRunner) -> None:
    for name in "abc":
        assert "warning" not in mt(cli, root, "buffer", "task", name).stderr
    result = mt(cli, root, "buffer", "task", "d")
    assert result.exit_code == 0
    assert "rotation is due at session end" in result.stderr
    assert "- d\n" in (root / BUF).read_text()


# -- session-end -----------------------------------------------------------------------


def test_session_end_without_tasks(
    root: Path, cli: CliRunner, snapshot: Callable[[Path], dict[str, bytes]]
) -> None:
    before = snapshot(root)
    result = mt(cli, root, "session-end")
    assert (result.exit_code, result.stdout) == (0, "nothing to rotate\n")
    assert snapshot(root) == before


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


def test_session_end_rotates_into_a_fresh_closure_block(root: Path, cli: CliRunner) -> None:
    mt(cli, root, "buffer", "task", "migrate qdrant")
    mt(cli, root, "buffer", "task", "check mirror")
    result = mt(cli, root, "session-end", now="2026-11-30T11:00:00+01:00")
    assert result.exit_code == 0
    note = (root / "memory" / "episodic" / f"{TODAY}.md").read_text()
    assert note.endswith(
        "- migrate qdrant\n- check mirror\n\nUpdated: 2026-11-30\n"
        "Decisions: working buffer rotated\nSignal: none\nOpen: migrate qdrant; check mirror\n"
    )
    fresh = "2026-11-30T11:00:00+01:00"
    assert (root / BUF).read_text() == buffer_text(fresh, created=fresh)
    assert not (root / (BUF + ".pending")).exists() and not (root / (BUF + ".lock")).exists()


# -- episodic --------------------------------------------------------------------------


def test_episodic_commands(root: Path, cli: CliRunner) -> None:
    note = root / "memory" / "episodic" / "2026-11-20.md"
    assert mt(cli, root, "episodic", "append", "first", "--date", "2026-11-20").exit_code == 0
    close = ("episodic", "close", "--decisions", "D1", "--signal", "S1", "--open", "none")
    assert mt(cli, root, *close, "--date", "2026-11-20").exit_code == 0
    mt(cli, root, "episodic", "append", "second", "--date", "2026-11-20")
    again = ("episodic", "close", "--decisions", "D2", "--signal", "S2", "--open", "O2")
    mt(cli, root, *again, "--date", "2026-11-20")
    lines = note.read_text().splitlines()
    # PROTOCOL §4 v3: merged with the block already there.
    # §2 (v4): each appended line its own paragraph, a blank line before the block.
    assert lines[-8:] == [
        "first",
        "",
        "second",
        "",
        "Updated: 2026-11-30",
        "Decisions: D1; D2",
        "Signal: S1; S2",
        "Open: O2",
    ]
    mt(cli, root, *again, "--date", "2026-11-20", "--replace")
    assert note.read_text().splitlines()[-3:] == ["Decisions: D2", "Signal: S2", "Open: O2"]
    shown = mt(cli, root, "episodic", "show", "--date", "2026-11-20")
    assert shown.exit_code == 0 and "Decisions: D2" in shown.stdout
    mt(cli, root, "episodic", "append", "today's line")
    assert (root / "memory" / "episodic" / f"{TODAY}.md").read_text() == (
        f"# {TODAY}\n\ntoday's line\n\n"
        "Updated: 2026-11-30\nDecisions: none\nSignal: none\nOpen: none\n"
    )
    assert "today's line" in mt(cli, root, "episodic", "show").stdout


def test_episodic_close_on_a_missing_day_creates_a_titled_note(root: Path, cli: CliRunner) -> None:
    args = ("episodic", "close", "--decisions", "d", "--signal", "s", "--open", "o")
    assert mt(cli, root, *args, "--date", "2026-11-21").exit_code == 0
    assert note_path(root, "2026-11-21").read_text() == "# 2026-11-21\n\n" + closure("d", "s", "o")


def test_episodic_append_to_an_unclosed_note_appends_at_the_end(root: Path, cli: CliRunner) -> None:
    note_path(root).write_text("# mine\nfirst\n")
    mt(cli, root, "episodic", "append", "second")
    assert note_path(root).read_text() == "# mine\nfirst\n\nsecond\n"


@pytest.mark.parametrize(
    "args",
    [
        ("episodic", "close", "--decisions", "", "--signal", "s", "--open", "o"),
        ("episodic", "close", "--decisions", "d", "--signal", "  ", "--open", "o"),
        ("episodic", "append", "x", "--date", "2026-02-30"),
        ("episodic", "append", "x", "--date", "30/11/2026"),
    ],
)
def test_episodic_bad_input_is_exit_2_and_writes_nothing(
    root: Path, cli: CliRunner, snapshot: Callable[[Path], dict[str, bytes]], args: tuple[str, ...]
) -> None:
    before = snapshot(root)
    result = mt(cli, root, *args)
    assert result.exit_code == 2 and result.stderr.startswith("memtier: error:")
    assert snapshot(root) == before
