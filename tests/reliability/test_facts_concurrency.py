"""Concurrent fact writers (PROTOCOL §3, §10): the duplicate check runs under the lock.

Real processes, started together: every distinct fact lands once, and of two
processes remembering the same fact exactly one succeeds; the other is refused
as a duplicate (exit 1), never written twice.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import NOW_TEXT, memtier_command

INFRA = "memory/semantic/infrastructure.md"


@pytest.mark.slow
def test_parallel_remembers_lose_nothing_and_never_duplicate(root: Path) -> None:
    facts = [f"host c{n} answers on port {7000 + n}" for n in range(4)]
    same = "the backup window is 02:00 to 04:00 every night"
    procs = [
        subprocess.Popen(
            [
                *memtier_command(),
                "--root",
                str(root),
                "--now",
                NOW_TEXT,
                "remember",
                text,
                "--kind",
                "infrastructure",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for text in [*facts, same, same]
    ]
    codes = [p.wait(timeout=60) for p in procs]
    for p in procs:
        assert p.stdout is not None and p.stderr is not None
        p.stdout.close()
        p.stderr.close()
    assert codes[:4] == [0, 0, 0, 0]
    assert sorted(codes[4:]) == [0, 1]
    lines = (root / INFRA).read_text(encoding="utf-8").split("\n")
    for text in facts:
        assert lines.count(f"- {text}") == 1
    assert lines.count(f"- {same}") == 1
