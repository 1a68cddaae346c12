"""Crash matrix (PROTOCOL §5 "crash safety is a requirement").

For every write command of the lifecycle, a real memtier process is killed by
SIGKILL at each fault checkpoint it passes through; then `memtier session-start`
runs, and every line written before the crash must stand exactly once across
the buffer and the episodic notes, and health-check must pass.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest

from memtier.cli import run
from memtier.commands.session_start import session_start
from memtier.errors import MemtierError
from memtier.formats.buffer import Buffer, parse_buffer
from memtier.health.report import run_health_check
from memtier.store import write as faults
from memtier.store.write import LIFECYCLE_CHECKPOINTS as CHECKPOINTS
from memtier.workspace import Workspace
from tests.conftest import NOW, NOW_TEXT, new_workspace, run_memtier
from tests.reliability.reliability_support import content_lines, note_lines, uncarried_lines

CREATED = "2026-11-30T08:00:00+01:00"
RECENT = (NOW - timedelta(minutes=20)).isoformat()
STALE = (NOW - timedelta(hours=5)).isoformat()
BLOCK = "Updated: 2026-11-30\nDecisions: started\nSignal: none\nOpen: none\n"
OLD_LINES = ("L01", "L02", "L03", "L04", "L05", "N01")
NEW_TOKEN = "NEW99"


def _body(tasks: int = 2) -> str:
    active = "".join(f"- task {t}\n" for t in OLD_LINES[:tasks])
    notes = "".join(f"- note {t}\n" for t in OLD_LINES[tasks:5])
    return f"## Active Task:\n{active}\n## Notes\n{notes}"


def _setup(
    folder: Path,
    *,
    last_active: str = RECENT,
    tasks: int = 2,
    pending: bool = False,
    bad: bool = False,
) -> None:
    new_workspace(folder)
    ws = Workspace.open(folder, NOW)
    ws.episodic_note().write_text("# day\n- event N01\n" + BLOCK)
    text = Buffer(CREATED, last_active, _body(tasks)).render()
    ws.buffer.write_text(text)
    if pending:
        # The state a rotation leaves when it dies right after its step 3.
        ws.buffer_lock.write_text("")
        ws.buffer_pending.write_text("# Working Buffer\n" if bad else text)


@dataclass(frozen=True)
class Scenario:
    name: str
    args: tuple[str, ...]
    setup: Callable[[Path], None]
    writes_new: bool = False
    # A mid-session rotation: these tasks must be in hand afterwards (§5 step 5 v3).
    tasks: tuple[str, ...] = ()

    @property
    def keeps_tasks(self) -> bool:
        return bool(self.tasks)


# session-end, buffer heartbeat and a recovered buffer without tasks pass through
# the same checkpoints as rotate, buffer note and a stale recovered buffer.
SCENARIOS = (
    Scenario("rotate", ("rotate",), _setup, tasks=OLD_LINES[:2]),
    Scenario("buffer-task", ("buffer", "task", f"task {NEW_TOKEN}"), _setup, True),
    Scenario("buffer-note", ("buffer", "note", f"note {NEW_TOKEN}"), _setup, True),
    Scenario("buffer-done", ("buffer", "done", "1"), _setup),
    Scenario("episodic-append", ("episodic", "append", f"event {NEW_TOKEN}"), _setup, True),
    Scenario(
        "episodic-close",
        ("episodic", "close", "--decisions", "d", "--signal", "s", "--open", "none"),
        _setup,
    ),
    Scenario("start-stale", ("session-start",), lambda f: _setup(f, last_active=STALE)),
    Scenario("start-pending", ("session-start",), lambda f: _setup(f, pending=True)),
    Scenario("start-pending-bad", ("session-start",), lambda f: _setup(f, pending=True, bad=True)),
    Scenario(
        "start-pending-stale",
        ("session-start",),
        lambda f: _setup(f, last_active=STALE, pending=True),
    ),
    Scenario(
        "start-pending-oversized",
        ("session-start",),
        lambda f: _setup(f, tasks=4, pending=True),
        tasks=OLD_LINES[:4],
    ),
)


def _points_passed(scenario: Scenario, folder: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The lifecycle checkpoints one uninterrupted run goes through, in order."""
    scenario.setup(folder)
    faults.SEEN.clear()
    monkeypatch.delenv("MEMTIER_FAULT", raising=False)
    assert run([*scenario.args, "--root", str(folder), "--now", NOW_TEXT]) == 0
    seen = [p for p in dict.fromkeys(faults.SEEN) if p in CHECKPOINTS]
    faults.SEEN.clear()
    return seen


def _occurrences(folder: Path, token: str) -> int:
    notes = sorted((folder / "memory/episodic").glob("*.md"))
    lines = [line for f in notes for line in content_lines(f.read_text())]
    # A task a mid-session rotation carried stands in the note and, in hand, in
    # the buffer: one line (PROTOCOL §5 step 5 v3).
    buffer = (folder / "memory/working-buffer.md").read_text()
    lines += uncarried_lines(buffer, note_lines(folder))
    return sum(line.count(token) for line in lines)


def _crash_and_recover(scenario: Scenario, point: str, folder: Path) -> str | None:
    """Kill a real process at *point*, run session-start; the problem found, or None."""
    scenario.setup(folder)
    env = {"MEMTIER_FAULT": point}
    crashed = run_memtier(*scenario.args, "--root", str(folder), "--now", NOW_TEXT, env=env)
    if crashed.returncode != -9:
        return f"{point}: process was not killed (exit {crashed.returncode}): {crashed.stderr}"
    # The recovery runs in this process (the crash itself was a real process).
    try:
        session_start(Workspace.open(folder, NOW))
    except MemtierError as exc:
        return f"{point}: session-start failed: {exc}"
    for token in OLD_LINES:
        if _occurrences(folder, token) != 1:
            return f"{point}: {token} found {_occurrences(folder, token)} times"
    if scenario.keeps_tasks:
        # Rotated or not, a mid-session rotation leaves the tasks in hand (§5 step 5 v3).
        tasks = parse_buffer((folder / "memory/working-buffer.md").read_text()).active_tasks
        if [t for t in tasks if t.startswith("task ")] != [f"task {t}" for t in scenario.tasks]:
            return f"{point}: the active tasks are {tasks}"
    if scenario.writes_new and _occurrences(folder, NEW_TOKEN) > 1:
        return f"{point}: the new line was duplicated"
    report = run_health_check(Workspace.open(folder, NOW))
    if not report.ok:
        return f"{point}: health-check failed: {[c.message for c in report.failed]}"
    return None


@pytest.mark.slow
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_crash_at_every_checkpoint(
    scenario: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    points = _points_passed(scenario, tmp_path / "dry", monkeypatch)
    assert points, "the command passed no checkpoint"
    folders = [tmp_path / f"crash-{i}" for i in range(len(points))]
    with ThreadPoolExecutor(max_workers=4) as pool:
        problems = list(pool.map(_crash_and_recover, [scenario] * len(points), points, folders))
    assert [p for p in problems if p] == []


def test_rotate_passes_every_rotate_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    points = _points_passed(SCENARIOS[0], tmp_path, monkeypatch)
    assert [p for p in points if p.startswith("rotate.")] == [
        p for p in CHECKPOINTS if p.startswith("rotate.")
    ]


def test_no_dry_run_leaves_residue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for i, scenario in enumerate(SCENARIOS):
        folder = tmp_path / str(i)
        _points_passed(scenario, folder, monkeypatch)
        assert not (folder / "memory/working-buffer.md.pending").exists(), scenario.name
        assert not (folder / "memory/working-buffer.md.lock").exists(), scenario.name
    shutil.rmtree(tmp_path, ignore_errors=True)
