"""Random writes and syncs on three hosts end in identical trees, no line lost (§14)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.sync_support import hosts, ok, settle, tracked

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("git") is None, reason="sync needs the git executable"),
]
WORDS = ("amber", "birch", "cobalt", "delta", "ember", "fjord", "garnet", "harbor", "indigo")
ACTIONS = ("remember", "append", "learn", "rotate", "sync")
steps = st.lists(st.tuples(st.integers(0, 2), st.sampled_from(ACTIONS)), min_size=1, max_size=10)


def _act(ws: Path, action: str, n: int) -> str | None:
    """Do *action* on *ws*; the unique text it wrote, if any."""
    word = f"{WORDS[n % len(WORDS)]}{n}"
    if action == "remember":
        text = f"{word} is a machine in cabinet {n} of the lab"
        ok(ws, "remember", text, "--kind", "infrastructure")
    elif action == "append":
        text = f"the day's event {word}"
        ok(ws, "episodic", "append", text)
    elif action == "learn":
        text = f"a failure called {word}"
        ok(ws, "learn", "error", text)
    elif action == "rotate":
        text = f"the task {word}"
        ok(ws, "buffer", "task", text)
        ok(ws, "session-end")
    else:
        ok(ws, "sync")
        return None
    return text


@settings(max_examples=4)
@given(steps)
def test_random_writes_and_syncs_converge(plan: list[tuple[int, str]]) -> None:
    folder = Path(tempfile.mkdtemp(prefix="memtier-sync-"))
    try:
        _remote, spaces = hosts(folder, 3)
        written = [t for n, (h, a) in enumerate(plan) if (t := _act(spaces[h], a, n))]
        assert settle(spaces) == [0, 0, 0]
        trees = [tracked(ws) for ws in spaces]
        assert trees[0] == trees[1] == trees[2]
        everything = b"".join(trees[0].values()).decode()
        for text in written:
            # A task stands in its rotation block and in the closure's Open: item.
            expected = 2 if text.startswith("the task") else 1
            assert everything.count(text) == expected, text
        note = trees[0].get("memory/episodic/2026-12-01.md", b"").decode()
        assert note.count("Updated:") <= 1
    finally:
        shutil.rmtree(folder, ignore_errors=True)
