"""`memtier tags`: line-2 tags of HOT and WARM files (PROTOCOL §2, §9)."""

from __future__ import annotations

import json
from pathlib import Path

from memtier.commands.tags import collect_tags, parse_tag_line
from memtier.workspace import Workspace
from tests.conftest import NOW, CliRunner


def test_fresh_workspace_tags_are_all_in_the_vocabulary(cli: CliRunner, root: Path) -> None:
    result = cli("tags", "--json", "--root", str(root))
    assert result.exit_code == 0
    payload = json.loads(result.stdout)
    assert set(payload) == {"files", "counts", "invalid", "vocabulary"}
    assert payload["invalid"] == []
    first = payload["files"][0]
    assert first == {"path": "MEMORY.md", "tags": ["memory", "workflow"], "invalid": [],
                     "missing": False}  # fmt: skip
    assert [f["path"] for f in payload["files"]][1:] == [
        "memory/semantic/decisions.md",
        "memory/semantic/infrastructure.md",
        "memory/semantic/preferences.md",
        "memory/semantic/projects.md",
        "memory/procedural/lessons-learned.md",
    ]
    assert list(payload["counts"].values()) == sorted(payload["counts"].values(), reverse=True)


def test_counts_invalid_tokens_and_missing_lines(root: Path) -> None:
    semantic = root / "memory/semantic"
    (semantic / "infrastructure.md").write_text(
        "# Infra\n#tags: docker,docker | Networking, kubernetes\n> last_verified: 2026-11-30\n"
    )
    (semantic / "projects.md").write_text("# Projects\nno tags here\n")
    (semantic / "decisions.md").write_text("# Decisions\n#tags:\n")
    (semantic / "bad.md").write_bytes(b"# Bad\n#tags: \xff\n")
    report = collect_tags(Workspace.open(root, NOW))
    by_path = {f.path: f for f in report.files}
    infra = by_path["memory/semantic/infrastructure.md"]
    assert infra.tags == ("docker", "docker", "Networking", "kubernetes")
    assert infra.invalid == ("Networking", "kubernetes")  # case-sensitive (compat)
    assert by_path["memory/semantic/projects.md"].missing
    assert by_path["memory/semantic/decisions.md"].tags == ()
    assert not by_path["memory/semantic/decisions.md"].missing
    assert "memory/semantic/bad.md" not in by_path
    assert report.warnings == ("skipped memory/semantic/bad.md: not UTF-8 text "
                               "(invalid byte at offset 13)",)  # fmt: skip
    counts = dict(report.counts)
    assert counts["docker"] == 1  # files carrying it, not mentions
    assert report.invalid == ["Networking", "kubernetes"]


def test_custom_vocabulary_is_used(root: Path) -> None:
    (root / "memory/memtier.toml").write_text('vocabulary = ["memory"]\n')
    report = collect_tags(Workspace.open(root, NOW))
    assert "workflow" in report.invalid
    assert "memory" not in report.invalid


def test_text_output(cli: CliRunner, root: Path) -> None:
    (root / "memory/semantic/projects.md").write_text("# Projects\n#tags: tasks, zeppelin\n")
    out = cli("tags", "--root", str(root)).stdout.splitlines()
    assert out[0].split() == ["MEMORY.md", "memory,", "workflow"]
    assert out[-1] == "outside the vocabulary: zeppelin"
    assert any(line.startswith("tags: rules (2), ") for line in out)


def test_parse_tag_line() -> None:
    assert parse_tag_line("#tags: a, b|c d") == ("a", "b", "c", "d")
    assert parse_tag_line("#tags:") == ()
    assert parse_tag_line("tags: a") is None


def test_a_warm_symlink_out_of_the_workspace_is_not_read(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("# Elsewhere\n#tags: leaked\n")
    (root / "memory/semantic/linked.md").symlink_to(outside)
    report = collect_tags(Workspace.open(root, NOW))
    assert "leaked" not in report.invalid
    assert "memory/semantic/linked.md" not in {f.path for f in report.files}
    assert report.warnings == (
        "skipped memory/semantic/linked.md: symlink pointing outside the workspace",
    )
