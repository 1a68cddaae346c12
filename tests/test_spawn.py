"""`memtier.spawn`: a program started without `subprocess`, its output read within a limit."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from memtier import spawn


def test_the_output_and_the_exit_status_of_a_program() -> None:
    started = spawn.start(
        [sys.executable, "-c", "import sys; sys.stdout.write('a\\0b' * 50000); sys.exit(3)"]
    )
    out = started.communicate(30.0)
    assert out == b"a\0b" * 50000  # more than a pipe holds: read while it writes
    assert started.returncode == 3


def test_input_is_empty_and_errors_go_nowhere() -> None:
    code = "import sys; sys.stderr.write('noise'); sys.stdout.write(repr(sys.stdin.read()))"
    started = spawn.start([sys.executable, "-c", code])
    assert started.communicate(30.0) == b"''"
    assert started.returncode == 0


def test_a_program_past_its_time_is_killed_and_reaped() -> None:
    started = spawn.start([sys.executable, "-c", "import time; time.sleep(60)"])
    assert started.communicate(0.3) is None
    assert started.returncode is not None and started.returncode < 0  # killed by a signal
    with pytest.raises(ProcessLookupError):
        os.kill(started.pid, 0)  # reaped: no zombie left


def test_close_stops_a_program_nobody_reads() -> None:
    started = spawn.start([sys.executable, "-c", "import time; time.sleep(60)"])
    started.close()
    assert started.returncode is not None and started.returncode < 0
    started.close()  # twice is harmless


def test_a_program_that_cannot_run_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        spawn.start([str(tmp_path / "missing-rg"), "--version"])


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="no /proc")
def test_a_closed_pipe_signal_is_the_programs_default_again() -> None:
    """Python ignores SIGPIPE; an ignored signal stays ignored across exec, so a program
    started as `subprocess` does gets the default back (what ``Popen`` does)."""
    started = spawn.start(["sh", "-c", "grep SigIgn /proc/self/status"])
    out = started.communicate(30.0)
    assert out is not None and out.startswith(b"SigIgn:")
    ignored = int(out.split()[1], 16)
    assert not ignored & (1 << (signal.SIGPIPE - 1))


def test_a_program_that_closes_its_output_and_runs_on_is_killed_at_the_limit() -> None:
    code = "import os, time; os.close(1); time.sleep(60)"
    started = spawn.start([sys.executable, "-c", code])
    assert started.communicate(0.3) is None
    assert started.returncode is not None and started.returncode < 0


def test_output_and_errors_can_go_to_files_nobody_reads_meanwhile(tmp_path: Path) -> None:
    """Search's way: the output goes to a file, so a program that prints far more than
    a pipe holds ends while the caller is busy elsewhere (a pipe would stall it)."""
    code = "import sys; sys.stdout.write('x' * 4_000_000); sys.stderr.write('warned'); sys.exit(1)"
    with (tmp_path / "out").open("w+b") as out, (tmp_path / "err").open("w+b") as err:
        started = spawn.start(
            [sys.executable, "-c", code], output=out.fileno(), errors=err.fileno()
        )
        assert started.ended_within(60.0)  # nothing was read from it so far
        assert started.returncode == 1
        out.seek(0)
        err.seek(0)
        assert out.read() == b"x" * 4_000_000
        assert err.read() == b"warned"
    with pytest.raises(ValueError, match="no output to read"):
        started.communicate(1.0)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="no /proc")
def test_a_program_in_its_own_group_is_told_apart_and_killed_with_its_children(
    tmp_path: Path,
) -> None:
    """With *group* the program leads a process group of its own: one signal to the
    group stops it and what it started; `ended_within` tells it still runs."""
    children = tmp_path / "children"
    script = f"sleep 600 & echo $! > {children}; wait"
    started = spawn.start(["sh", "-c", script], group=True)
    try:
        assert os.getpgid(started.pid) == started.pid != os.getpgid(0)
        for _ in range(3000):  # the child's pid is written once it is started
            if children.exists() and children.read_text().strip():
                break
            time.sleep(0.01)
        child = int(children.read_text())
        assert os.getpgid(child) == started.pid
        assert not started.ended_within(0.2)
        assert started.poll() is None  # still running, not reaped
        os.killpg(started.pid, signal.SIGKILL)
    finally:
        started.close()
    assert started.returncode == -signal.SIGKILL
    assert _ended_soon(child)


def _ended_soon(pid: int) -> bool:
    """A killed process (not ours to reap: its parent's) is gone or a zombie soon."""
    for _ in range(1000):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.01)
    return False


def test_a_program_runs_in_the_folder_given(tmp_path: Path) -> None:
    (tmp_path / "a folder -x").mkdir()
    started = spawn.start(
        [sys.executable, "-c", "import os; print(os.getcwd())"], cwd=str(tmp_path / "a folder -x")
    )
    assert started.communicate(30.0) == f"{tmp_path / 'a folder -x'}\n".encode()
    assert started.returncode == 0


def _programs_started(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The first word of every command `spawn.start` hands to ``posix_spawnp``."""
    started: list[str] = []
    real = os.posix_spawnp

    def recording(path: str, argv: list[str], *args: object, **kwargs: object) -> int:
        started.append(argv[0])
        return real(path, argv, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "posix_spawnp", recording)
    return started


def test_one_thread_starts_the_program_in_the_folder_without_a_shell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = _programs_started(monkeypatch)
    (tmp_path / "notes").mkdir()
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    program = spawn.start(
        [sys.executable, "-c", "import os; print(os.getcwd())"], cwd=str(tmp_path / "notes")
    )
    assert program.communicate(30.0) == f"{tmp_path / 'notes'}\n".encode()
    assert started == [sys.executable]  # no /bin/sh before it
    assert os.getcwd() == str(tmp_path / "here")  # this process is back where it was


def test_with_another_thread_running_the_shell_enters_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    started = _programs_started(monkeypatch)
    (tmp_path / "notes").mkdir()
    monkeypatch.chdir(tmp_path)
    done = threading.Event()
    other = threading.Thread(target=done.wait)
    other.start()
    try:
        program = spawn.start(
            [sys.executable, "-c", "import os; print(os.getcwd())"], cwd=str(tmp_path / "notes")
        )
        assert program.communicate(30.0) == f"{tmp_path / 'notes'}\n".encode()
    finally:
        done.set()
        other.join()
    assert started == ["/bin/sh"]  # this process's folder never changed under the thread
    assert os.getcwd() == str(tmp_path)


def test_a_relative_folder_is_entered_as_it_is_from_here_whatever_cdpath_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "here" / "-").mkdir(parents=True)
    (tmp_path / "elsewhere" / "-").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "here")
    monkeypatch.setenv("CDPATH", str(tmp_path / "elsewhere"))
    started = spawn.start([sys.executable, "-c", "import os; print(os.getcwd())"], cwd="-")
    assert started.communicate(30.0) == f"{tmp_path / 'here' / '-'}\n".encode()


def test_a_folder_that_cannot_be_entered_is_a_failed_program(tmp_path: Path) -> None:
    started = spawn.start([sys.executable, "-c", "print('ran')"], cwd=str(tmp_path / "missing"))
    assert started.communicate(30.0) == b""
    assert started.returncode not in (0, None)
