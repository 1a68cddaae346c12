"""memtier.commands.atomic_write: standard input to a file, atomically, redacted and
confined; a file memtier would then reject is refused (PROTOCOL §3, §10)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtier.commands.atomic_write import atomic_write, content_problem
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


def test_a_credential_is_redacted_before_it_reaches_disk(ws: Workspace) -> None:
    token = "gh" + "p_" + "x1Y2" * 9  # built at run time: no literal secret in the repository
    result = atomic_write(ws, ws.root / "memory" / "notes.md", f"push with {token}\n".encode())
    written = (ws.root / "memory" / "notes.md").read_text()
    assert token not in written
    assert result.redacted == {"GITHUB_TOKEN": 1}
    assert result.to_json()["bytes"] == len(written.encode())


def test_the_inputs_crlf_and_bom_are_kept(ws: Workspace) -> None:
    data = b"\xef\xbb\xbfline one\r\nline two\r\n"
    atomic_write(ws, ws.root / "memory" / "win.md", data)
    assert (ws.root / "memory" / "win.md").read_bytes() == data


def test_a_path_outside_the_workspace_is_refused(ws: Workspace, tmp_path: Path) -> None:
    from memtier.errors import ConfinementError

    with pytest.raises(ConfinementError):
        atomic_write(ws, tmp_path / "outside.md", b"x\n")
    assert not (tmp_path / "outside.md").exists()


def test_content_problem_leaves_other_tiers_alone(ws: Workspace) -> None:
    assert content_problem(ws, ".learnings/ERRORS.md", "anything\n") is None
    assert content_problem(ws, "MEMORY.md", HOT_HEAD) is None
    problem = content_problem(ws, "memory/working-buffer.md", "x\n")
    assert problem is not None and problem.startswith("not a working buffer")
