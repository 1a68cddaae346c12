"""The store: atomic replace, crash safety, the workspace lock, confinement, residue."""

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


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x00\x01binary", "binary file"),
        (b"caf\xe9\n", "not UTF-8"),
    ],
)
def test_read_refuses_binary_and_non_utf8(tmp_path: Path, data: bytes, message: str) -> None:
    target = tmp_path / "bad.md"
    target.write_bytes(data)
    with pytest.raises(InputError, match=message):
        store.read_text(target, root=tmp_path)


def test_read_of_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        store.read_text(tmp_path / "nope.md")
    (tmp_path / "dir.md").mkdir()
    with pytest.raises(InputError, match="is a directory"):
        store.read_text(tmp_path / "dir.md")


def test_confine_refuses_parent_absolute_and_symlink_escapes(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "link").symlink_to(outside)
    for path in (Path("../x.md"), outside / "x.md", Path("link/x.md")):
        with pytest.raises(ConfinementError, match="outside the workspace"):
            store.write_text(path if path.is_absolute() else root / path, "x\n", root=root)
    assert list(outside.iterdir()) == []
    assert not (tmp_path / "x.md").exists()


def test_confine_follows_links_that_stay_inside(tmp_path: Path) -> None:
    (tmp_path / "real.md").write_text("a\n")
    (tmp_path / "alias.md").symlink_to(tmp_path / "real.md")
    store.write_text(tmp_path / "alias.md", "b\n", root=tmp_path)
    assert (tmp_path / "alias.md").is_symlink()
    assert (tmp_path / "real.md").read_text() == "b\n"


def test_symlink_loop_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(InputError, match="symlink loop"):
        store.write_text(tmp_path / "a", "x\n", root=tmp_path)


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


def test_workspace_lock_is_reentrant(tmp_path: Path) -> None:
    lock = tmp_path / "memory" / ".memtier.lock"
    with store.workspace_lock(lock), store.workspace_lock(lock):
        assert lock.exists()
    with store.workspace_lock(lock):  # released and can be taken again
        pass


_CRASH_CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from memtier import faults, store
    faults.enable("store.temp-written")
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


_COUNTER_CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from memtier import store
    root = Path(sys.argv[1])
    counter = root / "counter.txt"
    for _ in range(int(sys.argv[2])):
        with store.workspace_lock(root / "memory" / ".memtier.lock"):
            value = int(store.read_text(counter))
            store.write_text(counter, str(value + 1) + "\\n", root=root)
    """
)


def test_lock_serialises_read_modify_write_across_processes(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "counter.txt").write_text("0\n")
    workers, cycles = 4, 50
    procs = [
        subprocess.Popen([sys.executable, "-c", _COUNTER_CHILD, str(tmp_path), str(cycles)])
        for _ in range(workers)
    ]
    assert [p.wait(timeout=120) for p in procs] == [0] * workers
    assert (tmp_path / "counter.txt").read_text() == f"{workers * cycles}\n"


def test_new_files_follow_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        store.write_text(tmp_path / "fresh.md", "x\n", root=tmp_path)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "fresh.md").stat().st_mode) == 0o640


_HOLDER_CHILD = textwrap.dedent(
    """
    import sys, time
    from filelock import FileLock
    lock = FileLock(sys.argv[1])
    with lock:
        print("held", flush=True)
        time.sleep(float(sys.argv[2]))
    """
)


def test_lock_waits_for_a_filelock_holder_then_times_out(tmp_path: Path) -> None:
    """Our flock-based lock and filelock's exclude each other (both flock one file)."""
    from memtier.errors import LockTimeout

    lock = tmp_path / "memory" / ".memtier.lock"
    lock.parent.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER_CHILD, str(lock), "30"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with (
            pytest.raises(LockTimeout, match="locked by another memtier process"),
            store.workspace_lock(lock, timeout=0.3),
        ):
            pass
    finally:
        holder.kill()
        holder.wait()
    with store.workspace_lock(lock, timeout=5):  # free again once the holder is gone
        pass


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


def test_two_threads_of_one_process_exclude_each_other(tmp_path: Path) -> None:
    """The lock is re-entrant per thread, not per process: while one thread holds
    it, another thread of the same process cannot take it (the tool server runs
    calls on worker threads)."""
    import threading

    from memtier.errors import LockTimeout

    lock = tmp_path / "memory" / ".memtier.lock"
    holding, tried = threading.Event(), threading.Event()
    seen: list[str] = []

    def holder() -> None:
        # Entered twice: re-entrant in its own thread.
        with store.workspace_lock(lock), store.workspace_lock(lock):
            holding.set()
            assert tried.wait(timeout=60)

    def other() -> None:
        assert holding.wait(timeout=60)
        try:
            with store.workspace_lock(lock, timeout=0.2):
                seen.append("entered while held")
        except LockTimeout:
            seen.append("waited")
        tried.set()

    threads = [threading.Thread(target=holder), threading.Thread(target=other)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert seen == ["waited"]
    with store.workspace_lock(lock, timeout=1):  # released by the holder's thread
        seen.append("after")
    assert seen == ["waited", "after"]


_THREADED_COUNTER_CHILD = textwrap.dedent(
    """
    import sys, threading
    from pathlib import Path
    from memtier import store
    root = Path(sys.argv[1])
    counter = root / "counter.txt"
    def count():
        for _ in range(int(sys.argv[2])):
            with store.workspace_lock(root / "memory" / ".memtier.lock"):
                value = int(store.read_text(counter))
                store.write_text(counter, str(value + 1) + "\\n", root=root)
    threads = [threading.Thread(target=count) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    """
)


def test_threads_of_two_processes_lose_no_update(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "counter.txt").write_text("0\n")
    workers, cycles = 2, 20
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _THREADED_COUNTER_CHILD, str(tmp_path), str(cycles)]
        )
        for _ in range(workers)
    ]
    assert [p.wait(timeout=120) for p in procs] == [0] * workers
    assert (tmp_path / "counter.txt").read_text() == f"{workers * 3 * cycles}\n"
