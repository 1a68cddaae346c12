"""Concurrency (PROTOCOL §3): 4 real processes × 50 writes, and a rotate in the middle.

Every one of the 400 lines must end up exactly once in the buffer or in today's
note. Each worker is a real process that calls the core commands 50 times in a
loop (so the test exercises the workspace lock, not interpreter start-up).
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

from memtier.commands.rotation import rotate_buffer
from memtier.formats.buffer import parse_buffer
from memtier.formats.episodic import closure_problem
from memtier.workspace import Workspace
from tests.conftest import NOW, NOW_TEXT, new_workspace

WORKERS = 4
CALLS = 50

WORKER = """
import sys
from datetime import datetime
from pathlib import Path
from memtier.commands.episodic_writes import episodic_append
from memtier.commands.lifecycle import buffer_note
from memtier.workspace import Workspace
root, worker, calls, now = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
ws = Workspace.open(Path(root), datetime.fromisoformat(now))
for i in range(calls):
    token = f"W{worker}C{i:03d}"
    if i % 2:
        episodic_append(ws, f"event {token}")
    else:
        buffer_note(ws, f"note {token}")
"""


def _tokens_in(text: str) -> list[str]:
    return re.findall(r"\bW\dC\d{3}\b", text)


def test_four_writers_and_a_rotation(tmp_path: Path) -> None:
    root = new_workspace(tmp_path / "ws")
    ws = Workspace.open(root, NOW)
    ws.episodic_note().write_text(
        "# day\nUpdated: 2026-11-30\nDecisions: a\nSignal: b\nOpen: none\n"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(root), str(n), str(CALLS), NOW_TEXT],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for n in range(WORKERS)
    ]
    # Rotate once some notes are in the buffer and the writers are still running.
    while ws.buffer.read_text().count("note W") < 10 and all(p.poll() is None for p in procs):
        time.sleep(0.01)
    # The rotation runs in this process, against the same OS-level lock.
    rotated = rotate_buffer(ws)
    codes = [p.wait(timeout=120) for p in procs]
    assert rotated.appended
    assert codes == [0] * WORKERS, [p.stderr.read() for p in procs if p.stderr]

    buffer_text = ws.buffer.read_text()
    note_text = ws.episodic_note().read_text()
    found = _tokens_in(buffer_text) + _tokens_in(note_text)
    expected = [f"W{n}C{i:03d}" for n in range(WORKERS) for i in range(CALLS)]
    assert sorted(found) == sorted(expected)
    # The rotation moved buffer notes into the note, and the structure held.
    assert "note W" in note_text
    assert closure_problem(note_text) is None
    assert parse_buffer(buffer_text).created == NOW_TEXT
    assert not ws.buffer_lock.exists() and not ws.buffer_pending.exists()
