"""Buffer and episodic commands (PROTOCOL §4): core rules and CLI wiring."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memtier.commands.episodic_writes import episodic_append, episodic_close, episodic_show
from memtier.commands.lifecycle import (
    add_note,
    add_task,
    buffer_done,
    buffer_heartbeat,
    buffer_note,
    buffer_task,
    clean_text,
    remove_task,
)
from memtier.errors import InputError, RefusedError
from memtier.formats.buffer import parse_buffer
from memtier.formats.episodic import closure_problem, split_closure
from memtier.secrets import fold_line, without_bullet
from memtier.store.write import LIFECYCLE_CHECKPOINTS as CHECKPOINTS
from memtier.workspace import Workspace
from tests.conftest import NOW, NOW_TEXT, CliRunner

LATER = NOW + timedelta(minutes=5)
BLOCK = "Updated: 2026-11-30\nDecisions: a\nSignal: b\nOpen: none\n"


def _at(ws: Workspace, moment: object) -> Workspace:
    return Workspace(root=ws.root, now=moment, config=ws.config)  # type: ignore[arg-type]


def test_checkpoint_names_are_unique_and_scoped() -> None:
    assert len(CHECKPOINTS) == len(set(CHECKPOINTS))
    areas = {name.split(".")[0] for name in CHECKPOINTS}
    assert areas == {"session_start", "buffer", "rotate", "episodic"}


# -- body edits -------------------------------------------------------------


def test_add_task_goes_after_the_last_active_line() -> None:
    body = "## Active Task:\n- a\n\n## Notes\n- n\n"
    assert add_task(body, "- b") == "## Active Task:\n- a\n- b\n\n## Notes\n- n\n"
    assert add_task("## Active Task:\n", "- b") == "## Active Task:\n- b\n"
    assert add_task("", "- b") == "## Active Task:\n- b\n"


def test_add_note_opens_a_section_after_the_active_one() -> None:
    once = add_note("## Active Task:\n- a\n", "- n1")
    assert once == "## Active Task:\n- a\n\n## Notes\n- n1\n"
    assert add_note(once, "- n2") == once + "- n2\n"
    assert parse_buffer("# Working Buffer\ncreated: " + NOW_TEXT + "\nlast_active: " + NOW_TEXT
                        + "\n\n" + once).active_tasks == ["a"]  # fmt: skip


def test_remove_task_by_number_text_and_part() -> None:
    body = "## Active Task:\n- alpha one\n- beta two\n"
    assert remove_task(body, "2") == ("## Active Task:\n- alpha one\n", "beta two")
    assert remove_task(body, "alpha one") == ("## Active Task:\n- beta two\n", "alpha one")
    assert remove_task(body, "BETA") == ("## Active Task:\n- alpha one\n", "beta two")
    for ref in ("3", "0", "gamma", "o"):
        with pytest.raises(InputError):
            remove_task(body, ref)


def test_clean_text_folds_lines_and_rejects_empty() -> None:
    assert clean_text("a\n  b\r\n\nc ", "x").text == "a b c"
    with pytest.raises(InputError, match="empty"):
        clean_text(" \n\t", "buffer note")


def test_clean_text_redacts_before_folding() -> None:
    key = "sk-ant-" + "A1b2C3d4" * 6
    clean = clean_text(f"token {key}\nnext", "x")
    assert key not in clean.text
    assert "[REDACTED:" in clean.text
    assert sum(clean.redacted.values()) == 1


# -- buffer commands ----------------------------------------------------------


def test_every_buffer_write_updates_last_active(ws: Workspace) -> None:
    for call in (
        lambda w: buffer_task(w, "t"),
        lambda w: buffer_note(w, "n"),
        lambda w: buffer_done(w, "1"),
        buffer_heartbeat,
    ):
        ws = _at(ws, ws.now + timedelta(minutes=1))
        result = call(ws)
        buf = parse_buffer(ws.buffer.read_text())
        assert buf.last_active == ws.now.isoformat()
        assert buf.created == NOW_TEXT
        assert result.last_active == buf.last_active


def test_buffer_done_moves_the_task_into_the_body(ws: Workspace) -> None:
    buffer_task(ws, "first")
    buffer_task(ws, "second")
    result = buffer_done(ws, "first")
    buf = parse_buffer(ws.buffer.read_text())
    assert buf.active_tasks == ["second"]
    assert "- [done] first\n" in buf.body
    assert result.line == "- [done] first"


def test_heartbeat_changes_only_last_active(ws: Workspace) -> None:
    buffer_task(ws, "t")
    before = ws.buffer.read_text()
    buffer_heartbeat(_at(ws, LATER))
    after = ws.buffer.read_text()
    assert after == before.replace(f"last_active: {NOW_TEXT}", f"last_active: {LATER.isoformat()}")


def test_buffer_write_keeps_crlf(ws: Workspace) -> None:
    ws.buffer.write_bytes(ws.buffer.read_bytes().replace(b"\n", b"\r\n"))
    buffer_task(ws, "t")
    data = ws.buffer.read_bytes()
    assert data.count(b"\r\n") == data.count(b"\n")
    assert b"- t\r\n" in data


def test_buffer_write_refused_while_pending(ws: Workspace) -> None:
    ws.buffer_pending.write_text(ws.buffer.read_text())
    before = ws.buffer.read_bytes()
    with pytest.raises(RefusedError, match="run memtier session-start"):
        buffer_note(ws, "x")
    assert ws.buffer.read_bytes() == before


def test_buffer_write_with_bad_header_changes_nothing(ws: Workspace) -> None:
    ws.buffer.write_text("# Working buffer\n")
    with pytest.raises(InputError, match="line 1 must be"):
        buffer_task(ws, "t")
    assert ws.buffer.read_text() == "# Working buffer\n"


def test_buffer_write_creates_a_missing_buffer(ws: Workspace) -> None:
    ws.buffer.unlink()
    buffer_task(ws, "t")
    assert parse_buffer(ws.buffer.read_text()).active_tasks == ["t"]


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(min_size=1))
def test_no_text_breaks_the_buffer(ws: Workspace, text: str) -> None:
    before = parse_buffer(ws.buffer.read_text())
    try:
        buffer_note(ws, text)
        buffer_task(ws, text)
    except InputError:
        # Control characters count as blanks and a lone bullet as no text.
        assert not without_bullet(fold_line(text).text)
        return
    after = parse_buffer(ws.buffer.read_text())
    assert after.created == before.created
    assert len(after.active_tasks) == len(before.active_tasks) + 1
    assert after.body.count("\n") == after.render().count("\n") - 4


# -- episodic commands --------------------------------------------------------


def test_episodic_append_before_closure_block(ws: Workspace) -> None:
    note = ws.episodic_note()
    note.write_text("# day\n" + BLOCK)
    episodic_append(ws, "Open: imitation\nUpdated: x")
    assert note.read_text() == "# day\n\nOpen: imitation Updated: x\n\n" + BLOCK


def test_episodic_append_to_a_new_note_and_another_day(ws: Workspace) -> None:
    # PROTOCOL §2 (v2): a note memtier creates has its date as title and a
    # closure block, so the day passes health-check after its first append.
    result = episodic_append(ws, "event", ws.yesterday)
    assert ws.episodic_note(ws.yesterday).read_text() == (
        "# 2026-11-29\n\nevent\n\nUpdated: 2026-11-30\nDecisions: none\nSignal: none\nOpen: none\n"
    )
    assert result.path == "memory/episodic/2026-11-29.md"
    assert result.closed
    episodic_append(ws, "later")
    assert ws.episodic_note().read_text().startswith("# 2026-11-30\n\nlater\n\nUpdated: ")


def test_episodic_close_merges_and_replaces(ws: Workspace) -> None:
    episodic_append(ws, "event")
    episodic_close(ws, "d1", "s1", "none")
    episodic_close(ws, "d2", "s2", "o2")
    text = ws.episodic_note().read_text()
    assert closure_problem(text) is None
    head, block = split_closure(text)
    assert head == "# 2026-11-30\n\nevent\n\n"
    # PROTOCOL §4 v3: `episodic close` merges like every writer...
    assert block is not None and (block.decisions, block.open) == ("d1; d2", "o2")
    assert block.updated == "2026-11-30"
    # ...and --replace writes the block exactly as given.
    episodic_close(ws, "d3", "s3", "none", replace=True)
    head, block = split_closure(ws.episodic_note().read_text())
    assert head == "# 2026-11-30\n\nevent\n\n"
    assert block is not None and (block.decisions, block.signal, block.open) == ("d3", "s3", "none")
    with pytest.raises(InputError):
        episodic_close(ws, "d", " ", "o")


def test_episodic_show_missing_note(ws: Workspace) -> None:
    with pytest.raises(InputError, match="no episodic note"):
        episodic_show(ws)


# -- CLI ------------------------------------------------------------------------


def test_cli_buffer_flow(cli: CliRunner, root: Path) -> None:
    base = ("--root", str(root), "--now", NOW_TEXT)
    assert cli("buffer", "task", "migrate qdrant", *base).exit_code == 0
    assert cli("buffer", "note", "apt is slow", *base).exit_code == 0
    shown = cli("buffer", "show", "--json", *base)
    data = json.loads(shown.stdout)
    assert data["active_tasks"] == ["migrate qdrant"]
    assert data["oversized"] is False
    assert "## Notes\n- apt is slow\n" in data["text"]
    done = cli("buffer", "done", "1", *base)
    assert done.exit_code == 0
    assert "[done] migrate qdrant" in done.stdout
    assert cli("buffer", "done", "7", *base).exit_code == 2


def test_cli_oversized_warning(cli: CliRunner, root: Path) -> None:
    base = ("--root", str(root), "--now", NOW_TEXT)
    for n in range(3):
        assert "oversized" not in cli("buffer", "task", f"t{n}", *base).stderr
    fourth = cli("buffer", "task", "t3", *base)
    assert fourth.exit_code == 0
    assert "memtier: warning: working buffer is oversized" in fourth.stderr
    assert "rotation is due at session end" in fourth.stderr


def test_cli_redaction_notice_never_shows_the_secret(cli: CliRunner, root: Path) -> None:
    key = "ghp_" + "a1B2c3D4e5" * 4
    result = cli("buffer", "note", f"token {key}", "--root", str(root), "--now", NOW_TEXT)
    assert result.exit_code == 0
    assert "redacted 1 secret(s): GITHUB_TOKEN" in result.stderr
    assert (
        key not in result.stderr + result.stdout + (root / "memory/working-buffer.md").read_text()
    )


def test_cli_episodic(cli: CliRunner, root: Path) -> None:
    base = ("--root", str(root), "--now", NOW_TEXT)
    assert cli("episodic", "append", "event one", *base).exit_code == 0
    closed = cli("episodic", "close", "--decisions", "d", "--signal", "s", "--open", "o", *base)
    assert closed.exit_code == 0
    shown = json.loads(cli("episodic", "show", "--json", *base).stdout)
    assert shown["closed"] is True
    assert shown["text"].startswith("# 2026-11-30\n\nevent one\n\nUpdated: 2026-11-30\n")
    assert cli("episodic", "show", "--date", "2026-02-30", *base).exit_code == 2
    missing = cli("episodic", "show", "--date", "2026-01-01", *base)
    assert missing.exit_code == 2
    assert missing.stderr.startswith("memtier: error: memory/episodic/2026-01-01.md")


def _nothing_visible(text: str) -> bool:
    """True when *text* holds no character a reader would see.

    The oracle of the test below. It once used ``text.strip()``, which keeps a
    NUL while the writer turns NUL into a space (PROTOCOL §3: NUL would make the
    note "binary"); a random run that happened to draw ``"\0"`` then failed.
    """
    return not any(char.isprintable() and not char.isspace() for char in text)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(min_size=1))
@example("\0")
@example(" \0\t\0 ")
@example("\x1c\x85\u2028")
def test_no_text_breaks_a_closed_note(ws: Workspace, text: str) -> None:
    note = ws.episodic_note()
    if not note.exists():
        note.write_text("# day\n" + BLOCK)
    before = split_closure(note.read_text())
    try:
        episodic_append(ws, text)
    except InputError:
        # Refused only when there is nothing to write; then nothing changed.
        assert _nothing_visible(text)
        assert split_closure(note.read_text()) == before
        return
    after = split_closure(note.read_text())
    assert after[1] == before[1]
    assert after[0].startswith(before[0])

    # One line more, and the blank lines that keep it apart (PROTOCOL §2 v4).
    def written(head: str) -> int:
        return sum(1 for line in head.split("\n") if line)

    assert written(after[0]) == written(before[0]) + 1
