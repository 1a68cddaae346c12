"""`memtier.spawn`: a program started without `subprocess`, its output read within a limit."""

from __future__ import annotations

import os
import signal
import sys
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
