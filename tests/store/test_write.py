"""memtier.store.write: atomic replace, crash safety, exclusive creation, moves and
residue (PROTOCOL §3, §7)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from memtier import store
from memtier.errors import ConfinementError, InputError, WriteFailed


def test_write_text_replaces_whole_file_and_ends_with_newline(tmp_path: Path) -> None:
    target = tmp_path / "note.md"
    target.write_text("old content\n")
    store.write_text(target, "new", root=tmp_path)
    assert target.read_bytes() == b"new\n"
    assert not [p for p in tmp_path.iterdir() if store.is_temp_file(p)]


def test_write_keeps_permission_bits(tmp_path: Path) -> None:
    target = tmp_path / "script.sh"
    target.write_text("echo\n")
    target.chmod(0o751)
    store.write_text(target, "echo hi\n", root=tmp_path)
    assert stat.S_IMODE(target.stat().st_mode) == 0o751


def test_write_keeps_crlf_and_bom_of_the_original(tmp_path: Path) -> None:
    target = tmp_path / "win.md"
    target.write_bytes(b"\xef\xbb\xbfline one\r\nline two\r\n")
    doc = store.read_document(target)
    assert doc.text == "line one\nline two\n" and doc.crlf and doc.bom
    store.write_text(target, doc.text + "line three\n", root=tmp_path, like=doc)
    assert target.read_bytes() == b"\xef\xbb\xbfline one\r\nline two\r\nline three\r\n"


def test_failed_write_removes_temp_and_keeps_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "keep.md"
    target.write_text("precious\n")

    def broken_replace(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(WriteFailed, match="No space left on device"):
        store.write_text(target, "new\n", root=tmp_path)
    assert target.read_text() == "precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.md"]


def test_move_never_overwrites(tmp_path: Path) -> None:
    dest = tmp_path / "archive"
    dest.mkdir()
    (dest / "2026-01-01.md").write_text("first\n")
    (dest / "2026-01-01.1.md").write_text("second\n")
    src = tmp_path / "2026-01-01.md"
    src.write_bytes(b"third\r\n")
    moved = store.move_file(src, dest, root=tmp_path)
    assert moved.name == "2026-01-01.2.md"
    assert moved.read_bytes() == b"third\r\n"
    assert not src.exists()
    assert (dest / "2026-01-01.md").read_text() == "first\n"


def test_remove_residue_refuses_memory_files(tmp_path: Path) -> None:
    note = tmp_path / "note.md"
    note.write_text("keep\n")
    with pytest.raises(ValueError, match="not protocol residue"):
        store.remove_residue(note, root=tmp_path)
    assert note.exists()
    marker = tmp_path / "working-buffer.md.lock"
    marker.write_text("")
    assert store.remove_residue(marker, root=tmp_path) is True
    assert store.remove_residue(marker, root=tmp_path) is False


def test_create_exclusive_only_once(tmp_path: Path) -> None:
    marker = tmp_path / "working-buffer.md.lock"
    assert store.create_exclusive(marker, "pid\n", root=tmp_path) is True
    assert store.create_exclusive(marker, "other\n", root=tmp_path) is False
    assert marker.read_text() == "pid\n"


_CRASH_CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from memtier import store
    store.enable_faults("store.temp-written")
    root = Path(sys.argv[1])
    store.write_text(root / "target.md", "NEW CONTENT\\n" * 1000, root=root)
    print("not reached")
    """
)


def test_sigkill_after_temp_written_leaves_old_content(tmp_path: Path) -> None:
    """A real process dies between the temp write and the rename: old bytes survive."""
    target = tmp_path / "target.md"
    original = b"old content, byte for byte\r\n\xe2\x9c\x85\n"
    target.write_bytes(original)
    proc = subprocess.run(
        [sys.executable, "-c", _CRASH_CHILD, str(tmp_path)], capture_output=True, timeout=60
    )
    assert proc.returncode == -9, proc.stderr
    assert b"not reached" not in proc.stdout
    assert target.read_bytes() == original
    leftovers = [p for p in tmp_path.iterdir() if store.is_temp_file(p)]
    assert len(leftovers) == 1  # the orphaned temp file, reported later by health-check
    assert leftovers[0].read_text() == "NEW CONTENT\n" * 1000


def test_new_files_follow_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        store.write_text(tmp_path / "fresh.md", "x\n", root=tmp_path)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "fresh.md").stat().st_mode) == 0o640


def test_a_file_where_a_folder_belongs_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "episodic").write_text("not a folder\n")
    for target in (
        tmp_path / "memory" / "episodic" / "2026-11-30.md",
        tmp_path / "memory" / "episodic" / "deeper" / "x.md",
    ):
        with pytest.raises(InputError, match="memory/episodic: exists and is not a folder"):
            store.write_text(target, "x\n", root=tmp_path)
    assert (tmp_path / "memory" / "episodic").read_text() == "not a folder\n"


def test_write_refuses_a_file_changed_since_it_was_read(tmp_path: Path) -> None:
    """A person saved the file in place after memtier read it: the write is refused."""
    from memtier.errors import ConcurrentEdit

    target = tmp_path / "note.md"
    target.write_text("as read\n")
    doc = store.read_document(target, root=tmp_path)
    target.write_text("a person's longer edit\n")
    with pytest.raises(ConcurrentEdit):
        store.write_text(target, doc.text + "mine\n", root=tmp_path, like=doc)
    assert target.read_text() == "a person's longer edit\n"
    # Read again, the write goes through.
    fresh = store.read_document(target, root=tmp_path)
    store.write_text(target, fresh.text + "mine\n", root=tmp_path, like=fresh)
    assert target.read_text() == "a person's longer edit\nmine\n"


def test_empty_text_stays_empty(tmp_path: Path) -> None:
    store.write_text(tmp_path / "empty.md", "", root=tmp_path)
    assert (tmp_path / "empty.md").read_bytes() == b""


@pytest.mark.parametrize("name", ["n" * 250 + ".md", "é" * 126 + ".md", "note.md"])
def test_temp_names_fit_a_file_name_and_are_recognised(name: str) -> None:
    temp = store.temp_name(name)
    assert len(os.fsencode(temp)) <= 255
    temp.encode("utf-8")  # cut on a character boundary
    assert store.is_temp_file(Path(temp))
    assert not store.is_temp_file(Path(name))
    assert store.temp_name(name) != temp  # random tail: two writers never share one


def test_a_long_name_can_still_be_replaced(tmp_path: Path) -> None:
    target = tmp_path / ("n" * 250 + ".md")
    target.write_text("old\n")
    store.write_text(target, "new\n", root=tmp_path)
    assert target.read_text() == "new\n"


def test_free_destination_counts_past_taken_names(tmp_path: Path) -> None:
    assert store.free_destination(tmp_path, "a.md") == tmp_path / "a.md"
    (tmp_path / "a.md").write_text("")
    (tmp_path / "a.1.md").symlink_to(tmp_path / "nowhere")  # a dangling link takes a name too
    assert store.free_destination(tmp_path, "a.md") == tmp_path / "a.2.md"


def test_make_dirs_says_whether_it_made_the_folder(tmp_path: Path) -> None:
    folder = tmp_path / "memory" / "archive" / "2026"
    assert store.make_dirs(folder, root=tmp_path) is True
    assert folder.is_dir()
    assert store.make_dirs(folder, root=tmp_path) is False
    with pytest.raises(ConfinementError):
        store.make_dirs(tmp_path.parent / "elsewhere", root=tmp_path)


def test_remove_residue_takes_pending_snapshots_and_temp_files(tmp_path: Path) -> None:
    pending = tmp_path / "working-buffer.md.pending"
    temp = tmp_path / store.temp_name("note.md")
    for path in (pending, temp):
        path.write_text("")
        assert store.remove_residue(path, root=tmp_path) is True
        assert not path.exists()
