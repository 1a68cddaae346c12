"""memtier killed at random moments, not only at its named fault points.

For rotate, session-start (a stale buffer, an interrupted rotation), weekly
review and archive: a forked memtier process starts on a copy of a busy
workspace and is killed by SIGKILL after a random delay within the time an
uninterrupted run takes, so kills land anywhere: between two system calls of a
write, inside a rename, during a folder fsync. Then session-start and
health-check run, and every line of the workspace must be counted exactly as
often as before, each old note must stand in one place byte-identical, and no
marker or temporary file may be left.

Bounded in time: it stops after `KILLS` kills or `SECONDS` seconds
(``$MEMTIER_KILL_COUNT`` and ``$MEMTIER_KILL_SECONDS`` override them), whichever
comes first. The delays come from a fixed seed; where exactly the kernel stops
the process is the one thing left to chance, and every outcome must pass.
"""

from __future__ import annotations

import os
import random
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import NOW_TEXT
from tests.reliability.forked import run_forked
from tests.reliability.reliability_support import (
    STALE,
    buffer_text,
    copies_of,
    frozen_files,
    populate,
    recover_and_check,
    residue,
    token_counts,
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork"),
]

KILLS = int(os.environ.get("MEMTIER_KILL_COUNT", "320"))
SECONDS = float(os.environ.get("MEMTIER_KILL_SECONDS", "120"))
SEED = 20261201


def _interrupted_rotation(folder: Path) -> None:
    populate(folder)
    (folder / "memory/working-buffer.md.lock").write_text("")
    (folder / "memory/working-buffer.md.pending").write_text(buffer_text())


CASES: tuple[tuple[str, tuple[str, ...], Callable[[Path], object]], ...] = (
    ("rotate", ("rotate",), populate),
    ("session-start-stale", ("session-start",), lambda f: populate(f, last_active=STALE)),
    ("session-start-pending", ("session-start",), _interrupted_rotation),
    ("weekly-review", ("weekly-review",), lambda f: populate(f, last_active=STALE)),
    ("archive", ("archive",), populate),
)


def _duration(template: Path, scratch: Path, args: tuple[str, ...]) -> float:
    """How long an uninterrupted forked run takes (the window kills are drawn from)."""
    best = float("inf")
    for n in range(3):
        folder = scratch / f"timing-{n}"
        shutil.copytree(template, folder, symlinks=True)
        started = time.monotonic()
        killed, code = run_forked(folder, NOW_TEXT, *args)
        best = min(best, time.monotonic() - started)
        assert (killed, code) == (False, 0)
    return best


def test_kills_at_random_moments_lose_nothing(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    deadline = time.monotonic() + SECONDS
    problems: list[str] = []
    kills = 0
    half_done = 0
    lines = 0
    per_case = max(1, KILLS // len(CASES))
    for name, args, setup in CASES:
        template = tmp_path / name / "template"
        setup(template)
        # The parent imports what the command needs first, so a child starts
        # working at once and the whole window is the command's own work.
        warm = tmp_path / name / "warm"
        shutil.copytree(template, warm, symlinks=True)
        recover_and_check(warm)
        window = _duration(template, tmp_path / name, args)
        before = token_counts(template)
        frozen = frozen_files(template)
        clean = {
            p.relative_to(template): p.read_bytes() for p in template.rglob("*") if p.is_file()
        }
        for n in range(per_case):
            if time.monotonic() > deadline:
                break
            folder = tmp_path / name / f"kill-{n}"
            shutil.copytree(template, folder, symlinks=True)
            killed, code = run_forked(
                folder, NOW_TEXT, *args, kill_after=rng.uniform(0, window * 1.2)
            )
            if not killed:
                assert code == 0, (name, code)
            kills += killed
            # A kill that left work half done: a marker, a temporary file, or a change.
            changed = residue(folder) or any(
                not (folder / rel).is_file() or (folder / rel).read_bytes() != data
                for rel, data in clean.items()
            )
            half_done += bool(killed and changed)
            found = recover_and_check(folder)
            after = token_counts(folder)
            if after != before:
                found.append(f"tokens {dict(before - after)} lost, {dict(after - before)} added")
            for rel, data in frozen.items():
                if len(copies_of(folder, data)) != 1:
                    found.append(f"{rel} is not in exactly one place")
            problems += [f"{name} kill {n}: {p}" for p in found]
            lines += sum(before.values())
            shutil.rmtree(folder)
    print(
        f"\nkill harness: {kills} kills at random moments ({half_done} mid-write) across "
        f"{len(CASES)} commands, {lines} lines checked, {len(problems)} problems"
    )
    assert problems == []
    assert kills > 0
