"""PROTOCOL §12 (export, import, capture) through the command line, as an outside
reader of the contract would check them.

Complements tests/commands/test_{export,import,capture}.py (the cores)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.conftest import NOW_TEXT, CliRunner
from tests.protocol.s13_support import note, run
from tests.protocol.support import Snapshot, as_json, mt

FIXTURES = Path(__file__).resolve().parent.parent / "commands" / "fixtures" / "transfer"

SOURCES = {
    "indexed": "indexed",
    "structured": "structured",
    "brain": "brain.jsonl",
    "openclaw": "openclaw",
    "claude": "claude",
    "mcp-memory": "mcp-memory.jsonl",
}


# -- export ----------------------------------------------------------------------------


def test_export_envelope_keys_and_file_entries(cli: CliRunner, root: Path) -> None:
    data = as_json(mt(cli, root, "export"))
    assert set(data) == {"format", "version", "exported_at", "files"}
    assert data["format"] == "memtier-export" and data["version"] == 1
    assert data["exported_at"] == NOW_TEXT
    paths = [entry["path"] for entry in data["files"]]
    assert {"MEMORY.md", "memory/working-buffer.md", ".learnings/ERRORS.md"} <= set(paths)
    for entry in data["files"]:
        assert set(entry) == {"path", "tier", "sha256", "text"}
        assert entry["sha256"] == hashlib.sha256(entry["text"].encode("utf-8")).hexdigest()
        assert (root / entry["path"]).read_text(encoding="utf-8") == entry["text"]


def test_export_holds_the_archive_by_default_and_tier_narrows(cli: CliRunner, root: Path) -> None:
    old = root / "memory/archive/2026/01/2026-01-05.md"
    old.parent.mkdir(parents=True)
    old.write_text("# 2026-01-05\n")
    whole = as_json(mt(cli, root, "export"))  # PROTOCOL §12 v3: a whole backup
    assert "memory/archive/2026/01/2026-01-05.md" in [e["path"] for e in whole["files"]]
    live = as_json(mt(cli, root, "export", "--tier", "hot", "--tier", "cold"))
    assert all(not e["path"].startswith("memory/archive/") for e in live["files"])
    archived = as_json(mt(cli, root, "export", "--tier", "archive"))
    assert "memory/archive/2026/01/2026-01-05.md" in [e["path"] for e in archived["files"]]


def test_export_then_import_into_a_fresh_workspace_is_byte_identical(
    cli: CliRunner, root: Path, tmp_path: Path
) -> None:
    assert mt(cli, root, "remember", "nas01 runs zfs", "--kind", "infrastructure").exit_code == 0
    assert mt(cli, root, "episodic", "append", "moved the rack").exit_code == 0
    dump = root / "dump.json"  # PROTOCOL §12 v3: --output lies in the workspace
    assert mt(cli, root, "export", "--output", str(dump)).exit_code == 0
    fresh = tmp_path / "fresh"
    assert cli("--now", NOW_TEXT, "init", "--root", str(fresh)).exit_code == 0
    assert mt(cli, fresh, "import", "memtier", str(dump)).exit_code == 0
    for entry in json.loads(dump.read_text())["files"]:
        assert (fresh / entry["path"]).read_bytes() == (root / entry["path"]).read_bytes()


def test_export_and_import_carry_the_index_byte_for_byte(
    cli: CliRunner, root: Path, tmp_path: Path
) -> None:
    """PROTOCOL §12 (v3): INDEX.md and consolidated/ are the export's tier 'index'."""
    note(root, "2026-04-01", "- zanzibar relay moved")
    run(cli, root, "index", "add", "zanzibar", "--category", "projects")
    run(cli, root, "consolidate", "zanzibar")
    out = tmp_path / "backup.json"
    assert cli("--root", str(root), "export", "--output", str(out)).exit_code == 0
    fresh = tmp_path / "fresh"
    assert cli("init", "--root", str(fresh)).exit_code == 0
    assert cli("--root", str(fresh), "import", "memtier", str(out)).exit_code == 0
    for rel in ("memory/INDEX.md", "memory/consolidated/zanzibar-gen1-2026-04-15.md"):
        assert (fresh / rel).read_bytes() == (root / rel).read_bytes(), rel


# -- import ----------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", sorted(SOURCES))
def test_import_report_accounts_for_every_item_and_dry_run_changes_no_byte(
    cli: CliRunner, root: Path, snapshot: Snapshot, fmt: str
) -> None:
    source = str(FIXTURES / SOURCES[fmt])
    before = snapshot(root)
    plan = as_json(mt(cli, root, "import", fmt, source, "--dry-run", "--json"))
    assert snapshot(root) == before
    assert plan["dry_run"] is True
    real = as_json(mt(cli, root, "import", fmt, source, "--json"))
    assert real["imported"] == plan["imported"] > 0
    assert real["imported"] + real["skipped"] == real["items"] == len(real["outcomes"])
    for outcome in real["outcomes"]:
        assert outcome["status"] in {"imported", "skipped"}
        if outcome["status"] == "skipped":
            reason = outcome["reason"]
            # v3 adds expired, outside and unrecognised (PROTOCOL §12 v3)
            labels = ("invalid: ", "expired: ", "outside: ", "unrecognised: ")
            assert reason == "duplicate" or reason.startswith(labels), reason
    settled = snapshot(root)
    again = as_json(mt(cli, root, "import", fmt, source, "--json"))
    assert again["imported"] == 0
    assert snapshot(root) == settled
    assert mt(cli, root, "health-check").exit_code == 0


def test_import_reasons_through_the_cli(cli: CliRunner, root: Path, tmp_path: Path) -> None:
    lines = [
        {"id": "a1", "kind": "fact", "text": "qdrant listens on 6334", "createdAt": 1764400000000},
        "not json at all",
        {"id": "a2", "kind": "fact", "text": "", "createdAt": 1764400000000},
        {"id": "a3", "kind": "fact", "text": "qdrant listens on 6334", "createdAt": 1764400000000},
    ]
    source = tmp_path / "brain.jsonl"
    source.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    data = as_json(mt(cli, root, "import", "brain", str(source), "--json"))
    reasons = {o["item"]: o["reason"] for o in data["outcomes"]}
    assert reasons["line 1"] is None
    assert reasons["line 2"].startswith("invalid: ")
    assert reasons["line 3"].startswith("invalid: ")
    assert reasons["line 4"] == "duplicate"
    assert (data["imported"], data["skipped"]) == (1, 3)
    human = mt(cli, root, "import", "brain", str(source))
    assert human.exit_code == 0
    assert "skipped (duplicate)" in human.stdout and "skipped (invalid: " in human.stdout


def test_import_of_an_unknown_format_is_one_error_line(cli: CliRunner, root: Path) -> None:
    result = mt(cli, root, "import", "bogus", str(FIXTURES / "brain.jsonl"))
    assert result.exit_code == 2
    assert result.stderr.startswith("memtier: error: ") and result.stderr.count("\n") == 1


# -- capture ---------------------------------------------------------------------------

LONG_TAIL = " and the rest of a long message about the home lab" * 2


@pytest.mark.parametrize(
    ("message", "rules", "score", "kept"),
    [
        ("remember this: nas01 is the backup box", ["explicit"], 0.4, True),
        ("merke dir: der Router steht im Keller", ["explicit"], 0.4, True),
        ("we took a decision on the backup box", ["topic"], 0.2, False),
        ("we took a decision on the backup box" + LONG_TAIL, ["topic", "long"], 0.4, True),
        ("host: nas01\nport: 22\nuser: admin of it all", ["structured"], 0.2, False),
        ("notes on the rack:\n- a\n- b" + LONG_TAIL, ["long", "structured"], 0.4, True),
        ("just saying hello to everyone here today", [], 0.0, False),
    ],
)
def test_capture_scores_and_keeps_at_0_4(
    cli: CliRunner, root: Path, message: str, rules: list[str], score: float, kept: bool
) -> None:
    data = as_json(mt(cli, root, "capture", "--json", message))
    assert [part["rule"] for part in data["parts"]] == rules
    assert data["score"] == score
    assert data["threshold"] == 0.4
    assert data["kept"] is kept
    buffer = (root / "memory/working-buffer.md").read_text()
    assert ("#captured" in buffer) is kept


def test_a_kept_message_is_a_buffer_note_without_its_trigger(cli: CliRunner, root: Path) -> None:
    result = mt(cli, root, "capture", "-", input="Remember this: qdrant moved to host b\n")
    assert result.exit_code == 0, result.stderr
    buffer = (root / "memory/working-buffer.md").read_text()
    assert "- qdrant moved to host b #captured\n" in buffer
    assert "Remember this" not in buffer
    dash = mt(cli, root, "capture", "- keep this: the vlan for cameras is 30")
    assert dash.exit_code == 0, dash.stderr
    assert (
        "- the vlan for cameras is 30 #captured\n"
        in (root / "memory/working-buffer.md").read_text()
    )


def test_capture_exits_0_when_not_kept_and_explain_says_why(cli: CliRunner, root: Path) -> None:
    result = mt(cli, root, "capture", "--explain", "short")
    assert result.exit_code == 0
    assert result.stdout.startswith("not captured: too short")
