"""A search ends its process at once (`memtier.cli.fast.end`): what it printed is all
out, its exit handlers run and its exit status is the command's; another thread still
running keeps the usual exit, which waits for it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def _run(code: str) -> subprocess.CompletedProcess[str]:
    # Buffered output, as a script's is by default: what is left in the buffers is lost
    # unless `end` flushes it.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False,
        timeout=60, env=env,
    )  # fmt: skip


def test_end_flushes_a_large_output_and_keeps_the_status() -> None:
    proc = _run(
        "import sys\n"
        "from memtier.cli.fast import end\n"
        "for _ in range(30_001):\n"
        "    sys.stdout.write('x' * 10)\n"
        "sys.stderr.write('said')\n"
        "end(3)\n"
        "print('never')\n"
    )
    assert proc.returncode == 3
    assert proc.stdout == "x" * 300_010
    assert proc.stderr == "said"


def test_end_runs_the_exit_handlers() -> None:
    proc = _run(
        "import atexit, sys\n"
        "from memtier.cli.fast import end\n"
        "atexit.register(lambda: print('handled'))\n"
        "end(0)\n"
    )
    assert proc.returncode == 0
    assert proc.stdout == "handled\n"


def test_end_waits_for_another_thread_as_the_usual_exit_does() -> None:
    proc = _run(
        "import threading, time\n"
        "from memtier.cli.fast import end\n"
        "threading.Thread(target=lambda: (time.sleep(0.3), print('late'))).start()\n"
        "end(5)\n"
    )
    assert proc.returncode == 5
    assert proc.stdout == "late\n"


def test_a_search_run_as_the_script_prints_all_and_exits_with_its_status(root: Path) -> None:
    from tests.conftest import run_memtier

    found = run_memtier("search", "memory", "--json", cwd=root)
    assert found.returncode == 0
    assert found.stdout.rstrip().endswith("}")
    assert '"results"' in found.stdout
    refused = run_memtier("search", "memory", "--limit", "0", cwd=root)
    assert refused.returncode == 2
    assert "limit" in refused.stderr
