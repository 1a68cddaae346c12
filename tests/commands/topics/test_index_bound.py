"""An INDEX.md past its bound is refused with a clear error, never parsed for minutes
(PROTOCOL §13; §3: no read without a bound)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtier.commands.topics.state import INDEX_MAX_BYTES
from tests.conftest import CliRunner

ENTRY = "## topic-{n}\nCategory: projects\nMatch: topic{n}\nStatus: active\n\n"


def _huge_index(root: Path) -> int:
    lines = "# Topic Index\n\n" + "".join(ENTRY.format(n=n) for n in range(40_000))
    (root / "memory/INDEX.md").write_text(lines)
    assert len(lines.encode()) > INDEX_MAX_BYTES
    return len(lines.encode())


def test_index_show_refuses_an_index_past_its_bound(root: Path, cli: CliRunner) -> None:
    _huge_index(root)
    done = cli("--root", str(root), "index", "show")
    assert done.exit_code == 2
    assert "memory/INDEX.md" in done.stderr and "larger than the" in done.stderr


def test_recall_and_rebuild_refuse_it_too(root: Path, cli: CliRunner) -> None:
    _huge_index(root)
    for args in (["recall", "topic7"], ["index", "rebuild", "--check"]):
        done = cli("--root", str(root), *args)
        assert done.exit_code == 2, (args, done.stderr)
        assert "larger than the" in done.stderr


@pytest.mark.slow  # a huge input: health-check reads every other file of it too
def test_health_fails_index_format_on_it_without_reading_it_all(root: Path, cli: CliRunner) -> None:
    size = _huge_index(root)
    done = cli("--root", str(root), "health-check", "--json")
    checks = json.loads(done.stdout)["checks"]
    (found,) = [c for c in checks if c["id"] == "index.format"]
    assert found["status"] == "fail"
    assert f"{size} bytes" in found["message"]
    assert not [c for c in checks if c["id"] == "index.fresh"]


def test_an_index_within_its_bound_is_read_as_before(root: Path, cli: CliRunner) -> None:
    (root / "memory/INDEX.md").write_text("# Topic Index\n\n" + ENTRY.format(n=1))
    assert cli("--root", str(root), "index", "show").exit_code == 0
