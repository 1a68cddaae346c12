"""atomic-write refuses a file memtier would then reject (PROTOCOL §10, issue: HOT cap)."""

from __future__ import annotations

import pytest

from memtier.commands.atomic_write import atomic_write
from memtier.errors import RefusedError
from memtier.workspace import Workspace

HOT_HEAD = "# Agent Memory\n#tags: memory\nlast_verified: 2026-11-30\nlast_updated: 2026-11-30\n"
WARM_HEAD = "# Docker\n#tags: docker\n> last_verified: 2026-11-30\n"


@pytest.mark.parametrize(
    ("rel", "text", "why"),
    [
        ("MEMORY.md", HOT_HEAD + "".join(f"- fact {n}\n" for n in range(60)), "64 lines"),
        ("MEMORY.md", "# Memory\nstuff\n", "header invalid"),
        ("memory/working-buffer.md", "hello\n", "working buffer"),
        ("memory/semantic/docker.md", "# Docker\nno tags\n", "missing #tags:"),
        ("memory/semantic/docker.md", "# Docker\n#tags: nginx\n> last_verified: x\n", "nginx"),
        ("memory/procedural/x.md", "# X\n#tags: docker\n", "missing last_verified"),
        ("memory/procedural/x.md", "# X\n#tags: docker\n> last_verified: soon\n", "stale or"),
    ],
)
def test_rejected_content_is_refused_and_nothing_written(
    ws: Workspace, rel: str, text: str, why: str
) -> None:
    target = ws.root / rel
    before = target.read_bytes() if target.exists() else None
    with pytest.raises(RefusedError) as err:
        atomic_write(ws, target, text.encode())
    assert why in err.value.message
    assert (target.read_bytes() if target.exists() else None) == before


@pytest.mark.parametrize(
    ("rel", "text"),
    [
        ("MEMORY.md", HOT_HEAD + "- one fact\n"),
        ("memory/semantic/docker.md", WARM_HEAD + "- a stale date is the file's age\n"),
        ("memory/notes.md", "anything at all\n"),
    ],
)
def test_valid_content_is_written(ws: Workspace, rel: str, text: str) -> None:
    atomic_write(ws, ws.root / rel, text.encode())
    assert (ws.root / rel).read_text(encoding="utf-8") == text
