"""`memtier export` and `memtier import memtier`: lossless, byte for byte (PROTOCOL §12)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest

from memtier.commands.init import init_workspace
from memtier.commands.transfer.export import export_memory
from memtier.commands.transfer.importers import import_source
from memtier.formats.envelope import parse_envelope
from memtier.workspace import Workspace, memory_kind
from tests.conftest import NOW, CliRunner

Snapshot = Callable[[Path], dict[str, bytes]]
LATER = datetime.fromisoformat("2026-12-09T08:00:00+01:00")


def _fill(root: Path) -> None:
    """A workspace with CRLF, a byte-order mark, non-ASCII text and an archive."""
    (root / "memory/episodic/2026-11-29.md").write_bytes(
        b"\xef\xbb\xbf# 2026-11-29\r\n\r\n- k\xc3\xb6ln trip\r\n"
        b"Updated: 2026-11-29\r\nDecisions: none\r\nSignal: none\r\nOpen: none\r\n"
    )
    infra = root / "memory/semantic/infrastructure.md"
    infra.write_bytes(infra.read_bytes() + b"- nas01 is 10.0.0.5\n")
    (root / "memory/procedural/restic.md").write_bytes(
        b"# Restic\r\n#tags: backup\r\n> last_verified: 2026-11-30\r\n\r\n- restic check\r\n"
    )
    (root / ".learnings/ERRORS.md").write_text("# Errors\n- 2026-11-28 apt mirror timed out\n")
    (root / "memory/archive/2026/09").mkdir(parents=True)
    (root / "memory/archive/2026/09/2026-09-01.md").write_text("# 2026-09-01\nold\n")


def _files(root: Path, snapshot: Snapshot) -> dict[str, bytes]:
    """The memory files (PROTOCOL §1), the archive included; not the export beside them."""
    return {k: v for k, v in snapshot(root).items() if memory_kind(k) is not None}


def _exported_and_fresh(
    tmp_path: Path, root: Path, ws: Workspace, moment: datetime
) -> tuple[Path, Path]:
    """The filled workspace exported to a file, and a workspace `init` made at *moment*."""
    _fill(root)
    export = root / "export.json"
    export_memory(ws, output=export)
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    init_workspace(fresh, moment)
    return export, fresh


@pytest.mark.parametrize("init_moment", [NOW, LATER])
def test_export_init_import_is_byte_identical(
    tmp_path: Path, root: Path, ws: Workspace, snapshot: Snapshot, init_moment: datetime
) -> None:
    export, fresh = _exported_and_fresh(tmp_path, root, ws, init_moment)
    result = import_source(Workspace.open(fresh, init_moment), "memtier", export)
    assert result.skipped_count == sum(1 for o in result.outcomes if o.reason == "duplicate")
    assert _files(fresh, snapshot) == _files(root, snapshot)


def test_a_whole_backup_by_default_and_tier_narrows(root: Path, ws: Workspace) -> None:
    _fill(root)
    (root / "memory/INDEX.md").write_text("# Memory Index\n")
    whole = {f["path"]: f["tier"] for f in json.loads(export_memory(ws).document)["files"]}
    assert whole["memory/archive/2026/09/2026-09-01.md"] == "archive"
    assert whole["memory/memtier.toml"] == "config"
    assert whole["memory/INDEX.md"] == "index"
    live = json.loads(export_memory(ws, ["hot", "warm"]).document)
    assert {f["tier"] for f in live["files"]} == {"hot", "warm"}
    archive = json.loads(export_memory(ws, ["archive"]).document)
    assert [f["path"] for f in archive["files"]] == ["memory/archive/2026/09/2026-09-01.md"]
    assert archive["files"][0]["tier"] == "archive"


def test_envelope_shape(root: Path, ws: Workspace) -> None:
    document = json.loads(export_memory(ws).document)
    assert set(document) == {"format", "version", "exported_at", "files"}
    assert (document["format"], document["version"]) == ("memtier-export", 1)
    assert document["exported_at"] == "2026-11-30T10:00:00+01:00"
    for entry in document["files"]:
        assert set(entry) == {"path", "tier", "sha256", "text"}
    tiers = {f["path"]: f["tier"] for f in document["files"]}
    assert tiers["MEMORY.md"] == "hot"
    assert tiers["memory/working-buffer.md"] == "buffer"
    assert tiers["memory/semantic/decisions.md"] == "warm"


def test_second_import_and_dry_run_change_nothing(
    tmp_path: Path, root: Path, ws: Workspace, snapshot: Snapshot
) -> None:
    export, fresh = _exported_and_fresh(tmp_path, root, ws, LATER)
    target = Workspace.open(fresh, LATER)
    before = snapshot(fresh)
    plan = import_source(target, "memtier", export, dry_run=True)
    assert snapshot(fresh) == before
    real = import_source(target, "memtier", export)
    assert [o.to_json() for o in plan.outcomes] == [o.to_json() for o in real.outcomes]
    after = snapshot(fresh)
    again = import_source(target, "memtier", export)
    assert again.imported_count == 0
    assert snapshot(fresh) == after


def test_malformed_entries_are_skipped_and_edited_files_kept(
    tmp_path: Path, root: Path, ws: Workspace
) -> None:
    document = json.loads(export_memory(ws).document)
    document["files"][0]["text"] += "tampered\n"  # sha256 no longer matches
    document["files"].append({"path": "../outside.md", "tier": "hot", "text": "x"})
    document["files"].append({"path": "memory/scripts/x.sh", "tier": "hot", "text": "x"})
    document["files"].append("not an object")
    source = tmp_path / "bad.json"
    source.write_text(json.dumps(document))
    (root / "memory/semantic/decisions.md").write_text("# Decisions\nmine\n")
    result = import_source(ws, "memtier", source)
    reasons = {o.item: o.reason for o in result.outcomes}
    assert reasons["MEMORY.md"] == "invalid: sha256 does not match the text"
    assert reasons["../outside.md"] == "invalid: path is not a plain relative path"
    assert reasons["memory/scripts/x.sh"] == "invalid: not a memory file of the workspace layout"
    assert "invalid: not a JSON object" in reasons.values()
    assert reasons["memory/semantic/decisions.md"].startswith("conflict: ")
    assert (root / "memory/semantic/decisions.md").read_text() == "# Decisions\nmine\n"
    assert not (tmp_path / "outside.md").exists()


def test_export_redacts_a_credential_standing_in_a_file(root: Path, ws: Workspace) -> None:
    (root / ".learnings/ERRORS.md").write_text("# Errors\n- token ghp_" + "a1B2" * 9 + "\n")
    result = export_memory(ws)
    assert "ghp_a1B2" not in result.document
    assert result.redacted == {"GITHUB_TOKEN": 1}
    files, invalid = parse_envelope(result.document)
    assert not invalid and files


def test_cli_export_to_stdout_and_bad_tier(cli: CliRunner, root: Path) -> None:
    done = cli("--root", str(root), "export")
    assert done.exit_code == 0
    assert json.loads(done.stdout)["format"] == "memtier-export"
    bad = cli("--root", str(root), "export", "--tier", "lukewarm")
    assert bad.exit_code == 2 and "unknown tier 'lukewarm'" in bad.stderr


def test_a_bad_output_is_named_as_each_face_names_it(cli: CliRunner, root: Path) -> None:
    """The core names the parameter (issue 20): the CLI's ``--output``, a tool's ``output``."""
    from memtier.commands.transfer.export import output_target
    from memtier.errors import InputError
    from memtier.mcp.words import tool_message

    folder = root / "backups"
    folder.mkdir()
    done = cli("--root", str(root), "export", "--output", str(folder))
    assert done.exit_code == 2
    assert f"--output {folder}: is a directory, expected a file" in done.stderr
    with pytest.raises(InputError) as caught:
        output_target(Workspace.open(root, NOW), folder)
    assert tool_message(caught.value) == f"output {folder}: is a directory, expected a file"


def test_config_and_index_are_tiers_of_export(cli: CliRunner, root: Path) -> None:
    (root / "memory/consolidated").mkdir()
    (root / "memory/consolidated/blog.md").write_text("# blog - generation 1\n")
    config = cli("--root", str(root), "export", "--tier", "config")
    assert config.exit_code == 0, config.stderr
    assert [f["path"] for f in json.loads(config.stdout)["files"]] == ["memory/memtier.toml"]
    index = cli("--root", str(root), "export", "--tier", "INDEX")
    assert [f["path"] for f in json.loads(index.stdout)["files"]] == ["memory/consolidated/blog.md"]
    every = ("hot", "warm", "buffer", "scratch", "cold", "archive")
    named = cli("--root", str(root), "export", *(a for t in every for a in ("--tier", t)))
    assert "memory/memtier.toml" not in [f["path"] for f in json.loads(named.stdout)["files"]]
    named_all = [*every, "config", "index"]
    full = cli("--root", str(root), "export", *(a for t in named_all for a in ("--tier", t)))
    # Compared without the moment each export was taken (two calls can straddle a second).
    plain = json.loads(cli("--root", str(root), "export").stdout)
    named_every = json.loads(full.stdout)
    for payload in (plain, named_every):
        del payload["exported_at"]
    assert named_every == plain


def test_round_trip_keeps_archive_retired_fact_and_vocabulary(
    cli: CliRunner, root: Path, tmp_path: Path, snapshot: Snapshot
) -> None:
    """PROTOCOL §12 v3: export → init an empty folder → import memtier reproduces
    the archived notes, the retirement log and an extended vocabulary."""
    base = ("--root", str(root), "--now", "2026-11-30T10:00:00+01:00")
    assert cli(*base, "remember", "nas01 runs zfs", "--kind", "infrastructure").exit_code == 0
    retired = cli(
        *base, "retire", "nas01 runs zfs", "--in", "memory/semantic/infrastructure.md",
        "--reason", "moved to btrfs",
    )  # fmt: skip
    assert retired.exit_code == 0, retired.stderr
    assert cli(*base, "tags", "--add", "restic", "--add", "nginx").exit_code == 0
    (root / "memory/archive/2026/09").mkdir(parents=True)
    (root / "memory/archive/2026/09/2026-09-01.md").write_text("# 2026-09-01\n- old trip\n")
    (root / "memory/archive/learnings/2026/08").mkdir(parents=True)
    (root / "memory/archive/learnings/2026/08/ERRORS.md").write_text("# Errors\n- x\n")
    (root / "memory/INDEX.md").write_text("# Memory Index\n\n## Projects\n- blog\n")
    assert cli(*base, "export", "--output", "backup.json").exit_code == 0
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    init_workspace(fresh, LATER)
    done = cli("--root", str(fresh), "import", "memtier", str(root / "backup.json"), "--json")
    assert done.exit_code == 0, done.stderr
    expected = _files(root, snapshot)
    assert "memory/archive/retired.md" in expected
    assert "moved to btrfs" in expected["memory/archive/retired.md"].decode()
    assert b"restic" in expected["memory/memtier.toml"]
    assert _files(fresh, snapshot) == expected
    vocabulary = cli("--root", str(fresh), "tags", "--json")
    assert "restic" in json.loads(vocabulary.stdout)["vocabulary"]


def test_cli_import_of_a_non_export_is_an_input_error(
    cli: CliRunner, root: Path, tmp_path: Path
) -> None:
    source = tmp_path / "x.json"
    source.write_text('{"hello": 1}')
    done = cli("--root", str(root), "import", "memtier", str(source))
    assert done.exit_code == 2 and "not a memtier export" in done.stderr
