"""An editor that saves in place while memtier rewrites the same note (PROTOCOL §3).

memtier cannot lock an editor out; it must never write back a note that changed
between its read and its replace. The deterministic tests below pin the two
mechanisms (the stamp compared just before ``os.replace``, and a read repeated
until it is stable); the slow one races a real in-place saver for 30 s
(``bench/editor`` prints the same figures).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memtier import store
from memtier.commands.episodic_writes import episodic_append
from memtier.store import write as store_write
from memtier.workspace import Workspace
from tests.conftest import NOW, NOW_TEXT, REPO, CliRunner


def _save_in_place(path: Path, text: str) -> None:
    with open(path, "r+b") as handle:
        handle.truncate(0)
        handle.write(text.encode("utf-8"))


def test_a_file_changed_after_the_read_is_not_replaced(ws: Workspace) -> None:
    note = ws.episodic_note()
    note.write_text("# 2026-11-30\n- first\n")
    doc = store.read_document(note, root=ws.root)
    _save_in_place(note, "# 2026-11-30\n- first\n- typed in the editor\n")
    with pytest.raises(store.ConcurrentEdit, match="changed it while memtier was updating it"):
        store.write_text(note, doc.text + "- memtier\n", root=ws.root, like=doc)
    assert note.read_text() == "# 2026-11-30\n- first\n- typed in the editor\n"
    assert not list(note.parent.glob(".*" + store.TEMP_SUFFIX))


def test_a_file_saved_by_rename_after_the_read_is_not_replaced(ws: Workspace) -> None:
    note = ws.episodic_note()
    note.write_text("# 2026-11-30\n- same size\n")
    doc = store.read_document(note, root=ws.root)
    other = note.with_name("saved.tmp")
    other.write_text("# 2026-11-30\n- same size\n")  # same bytes, another inode
    os.replace(other, note)
    with pytest.raises(store.ConcurrentEdit):
        store.write_text(note, doc.text + "- memtier\n", root=ws.root, like=doc)


def test_a_document_written_elsewhere_is_not_compared(ws: Workspace) -> None:
    note = ws.episodic_note()
    note.write_text("# 2026-11-30\n")
    doc = store.read_document(note, root=ws.root)
    copy = note.with_name("copy.md")
    copy.write_text("something else\n")
    store.write_text(copy, doc.text, root=ws.root, like=doc)
    assert copy.read_text() == "# 2026-11-30\n"


def test_a_read_torn_by_an_in_place_save_is_read_again(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = ws.episodic_note()
    note.write_text("# 2026-11-30\n- half")
    real_read = os.read
    torn = {"done": False}

    def read_during_a_save(fd: int, size: int) -> bytes:
        data = real_read(fd, size)
        if not torn["done"]:
            torn["done"] = True  # the editor finishes its save right after this read
            _save_in_place(note, "# 2026-11-30\n- half of a longer line\n")
        return data

    monkeypatch.setattr(os, "read", read_during_a_save)
    doc = store.read_document(note, root=ws.root)
    assert doc.text == "# 2026-11-30\n- half of a longer line\n"


def test_a_refused_append_is_one_clear_error(
    cli: CliRunner, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = Workspace.open(root, NOW)
    note = ws.episodic_note()
    note.write_text("# 2026-11-30\n")
    real = store_write._refuse_if_changed

    def editor_saves_first(target: Path, expect: tuple[int, int, int], shown: str) -> None:
        _save_in_place(target, "# 2026-11-30\n- the editor's line\n")
        real(target, expect, shown)

    monkeypatch.setattr(store_write, "_refuse_if_changed", editor_saves_first)
    result = cli("episodic", "append", "memtier's line", "--root", str(root), "--now", NOW_TEXT)
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1
    assert "changed it while memtier was updating it" in result.stderr
    assert note.read_text() == "# 2026-11-30\n- the editor's line\n"
    with pytest.raises(store.ConcurrentEdit):
        episodic_append(ws, "again")  # the stamp check is in the store, for every writer


@pytest.mark.slow
def test_thirty_seconds_of_an_editor_saving_in_place() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "editor"), "--seconds", "30", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    figures = json.loads(done.stdout)
    print(figures)  # the note of the issue reports these (pytest -s shows them)
    assert figures["tracebacks"] == 0
    assert figures["memtier_other_error_count"] == 0, figures["memtier_other_errors"]
    # How often memtier meets a save in progress (and refuses) depends on timing: a
    # CI run kept every line of both sides with no refusal at all. The refusal itself
    # is pinned by the deterministic tests above; here only what always holds.
    # Every line memtier acknowledged and the editor did not save over is kept:
    # at least one of each side survives a race that lost nearly all of them.
    assert figures["memtier_lines_kept"] > 0
    assert figures["editor_lines_kept"] > 0


def test_a_file_cut_mid_line_a_moment_ago_is_read_once_the_save_ends(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from memtier.store import read

    # "A moment ago" is 50 ms; on a loaded machine this thread may run later than
    # that after its own write, and the read then (rightly) takes the cut file as
    # saved. A minute-long moment and wait keep the case the same on any machine.
    monkeypatch.setattr(read, "_QUIET_NS", 60_000_000_000)
    monkeypatch.setattr(read, "_TORN_WAIT_SECONDS", 60.0)
    note = ws.episodic_note()
    note.write_text("# 2026-11-30\n- the editor is still wri")  # mtime: now
    finish = threading.Timer(0.02, lambda: _save_in_place(note, "# 2026-11-30\n- done\n"))
    finish.start()
    try:
        doc = store.read_document(note, root=ws.root)
    finally:
        finish.join()
    assert doc.text == "# 2026-11-30\n- done\n"


def test_an_old_file_without_a_final_newline_is_read_at_once(ws: Workspace) -> None:
    note = ws.episodic_note()
    note.write_text("# 2026-11-30\n- no final newline")
    os.utime(note, (1_700_000_000, 1_700_000_000))
    assert store.read_document(note, root=ws.root).text.endswith("- no final newline")
