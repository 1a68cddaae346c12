"""Killing `memtier flush --consolidate` anywhere, then flushing again (PROTOCOL §3, §13).

Each pass of every fault point of an uninterrupted run is tried in a real
process killed by SIGKILL at that point; the rerun must leave the same
generation, index and notes as a run that was never interrupted, and a
workspace that passes health-check. No half-written generation survives to be
chained onto.
"""

from __future__ import annotations

import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from memtier.store import write as faults
from tests.conftest import memtier_command, new_workspace
from tests.protocol.s13_support import NOW_TEXT, note
from tests.reliability.reliability_support import run_in_process
from tests.reliability.test_crash_matrix import TOPIC_POINTS

pytestmark = pytest.mark.slow
ARGS = ("flush", "--consolidate")


def _setup(folder: Path) -> Path:
    root = new_workspace(folder)
    for day in ("2026-04-10", "2026-04-11", "2026-04-12"):
        note(root, day, f"- restic backup run on {day}", closure="restic keeps 7 dailies|none")
    (root / "memory/episodic/2026-04-14.md").write_text("# 2026-04-14\n\n- restic prune\n")
    code, _out, err = run_in_process(
        "--root", str(root), "--now", NOW_TEXT, "index", "add", "restic", "--category", "projects"
    )
    assert code == 0, err
    return root


def _state(root: Path) -> dict[str, bytes]:
    keep = ("memory/consolidated/", "memory/INDEX.md", "memory/episodic/2026-04-1")
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
        and p.relative_to(root).as_posix().startswith(keep)
        and not p.name.startswith("2026-04-15")  # today's note holds the run's own log line
        and not p.name.endswith(".memtier-tmp")  # residue: session-start removes it (§6)
    }


def _passes(folder: Path) -> list[str]:
    root = _setup(folder)
    faults.SEEN.clear()
    code, _out, err = run_in_process("--root", str(root), "--now", NOW_TEXT, *ARGS)
    assert code == 0, err
    counted: Counter[str] = Counter()
    passes = []
    for name in faults.SEEN:
        counted[name] += 1
        passes.append(f"{name}@{counted[name]}")
    faults.SEEN.clear()
    return passes


def test_a_flush_killed_anywhere_reruns_to_the_same_state(tmp_path: Path) -> None:
    points = _passes(tmp_path / "clean")
    clean = _state(tmp_path / "clean")
    assert any(p.startswith("consolidate.generation-written") for p in points)
    # Every topic point the crash matrix leaves to this test is killed here.
    assert set(TOPIC_POINTS) <= {p.split("@")[0] for p in points}
    problems = []
    for number, point in enumerate(points):
        root = _setup(tmp_path / f"crash-{number}")
        proc = subprocess.run(
            [*memtier_command(), "--root", str(root), "--now", NOW_TEXT, *ARGS],
            capture_output=True,
            env={**os.environ, faults.FAULT_ENV_VAR: point},
            timeout=60,
        )
        if proc.returncode != -9:
            problems.append(f"{point}: not killed ({proc.returncode})")
            continue
        code, _out, err = run_in_process("--root", str(root), "--now", NOW_TEXT, *ARGS)
        if code != 0:
            problems.append(f"{point}: rerun failed: {err.strip()}")
            continue
        if _state(root) != clean:
            problems.append(f"{point}: state differs from an uninterrupted run")
        code, out, _err = run_in_process("--root", str(root), "--now", NOW_TEXT, "health-check")
        if code != 0:
            problems.append(f"{point}: health-check failed\n{out}")
    assert problems == []
