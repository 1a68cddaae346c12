"""memtier.store.lock: the workspace lock, re-entrant per thread, exclusive across
threads and processes (PROTOCOL §3)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from memtier import store


def test_workspace_lock_is_reentrant(tmp_path: Path) -> None:
    lock = tmp_path / "memory" / ".memtier.lock"
    with store.workspace_lock(lock), store.workspace_lock(lock):
        assert lock.exists()
    with store.workspace_lock(lock):  # released and can be taken again
        pass


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
