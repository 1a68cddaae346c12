"""`memtier import FORMAT SOURCE` for the six foreign formats (PROTOCOL §12).

Each format has a hand-written fixture under fixtures/transfer/ (shapes from the
format's documentation), malformed items included. For each: where the items
land, that every malformed item is listed as skipped with an ``invalid:``
reason, that a second import changes no byte, and that a dry run changes no
byte yet plans exactly what the real run then does.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from memtier.commands.archive import archive_episodic
from memtier.commands.transfer.importers import import_source
from memtier.health.report import run_health_check
from memtier.workspace import Workspace
from tests.conftest import CliRunner

FIXTURES = Path(__file__).parents[1] / "fixtures" / "transfer"
Snapshot = Callable[[Path], dict[str, bytes]]

# format → (source, homes that receive items, number of malformed items)
CASES: dict[str, tuple[str, set[str], int]] = {
    "indexed": (
        "indexed",
        {
            "memory/episodic/2026-05-20.md",
            "memory/semantic/infrastructure.md",
            "memory/semantic/preferences.md",
        },
        2,
    ),
    "structured": (
        "structured",
        {
            "memory/semantic/preferences.md",
            "memory/procedural/lessons-learned.md",
            "memory/semantic/projects.md",
            "memory/procedural/reference.md",
            "memory/episodic/2026-05-15.md",
            "memory/episodic/2026-05-16.md",
        },
        1,
    ),
    "brain": (
        "brain.jsonl",
        {
            "memory/episodic/2026-10-05.md",
            "memory/episodic/2026-10-09.md",
            "memory/episodic/2026-10-11.md",
            "memory/semantic/decisions.md",
            "memory/semantic/infrastructure.md",
            "memory/semantic/preferences.md",
        },
        3,
    ),
    "openclaw": (
        "openclaw",
        {
            "memory/episodic/2026-11-20.md",
            "memory/episodic/2026-11-21.md",
            "memory/episodic/2026-11-30.md",
            "memory/semantic/infrastructure.md",
            "memory/semantic/preferences.md",
        },
        1,
    ),
    "claude": (
        "claude",
        {
            "memory/episodic/2026-11-30.md",
            "memory/procedural/lessons-learned.md",
            "memory/semantic/preferences.md",
            "memory/semantic/projects.md",
        },
        2,
    ),
    "mcp-memory": (
        "mcp-memory.jsonl",
        {
            "memory/episodic/2026-11-30.md",
            "memory/semantic/infrastructure.md",
            "memory/semantic/preferences.md",
            "memory/semantic/projects.md",
        },
        4,
    ),
}
FORMATS = sorted(CASES)


def _import(ws: Workspace, fmt: str, dry_run: bool = False):  # type: ignore[no-untyped-def]
    return import_source(ws, fmt, FIXTURES / CASES[fmt][0], dry_run=dry_run)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_item_is_imported_or_skipped_with_its_reason(fmt: str, ws: Workspace) -> None:
    result = _import(ws, fmt)
    _source, homes, malformed = CASES[fmt]
    assert result.imported_count > 0
    assert set(result.homes()) == homes
    invalid = [o for o in result.outcomes if (o.reason or "").startswith("invalid: ")]
    assert len(invalid) == malformed
    assert all(o.status == "skipped" for o in invalid)
    assert result.imported_count + result.skipped_count == len(result.outcomes)
    for outcome in result.outcomes:
        if outcome.status == "imported":
            assert (ws.root / str(outcome.home)).is_file()
    assert run_health_check(ws).ok, [
        c.message for c in run_health_check(ws).checks if c.status == "fail"
    ]


@pytest.mark.parametrize("fmt", FORMATS)
def test_second_import_changes_no_byte(
    fmt: str, ws: Workspace, root: Path, snapshot: Snapshot
) -> None:
    _import(ws, fmt)
    before = snapshot(root)
    again = _import(ws, fmt)
    assert again.imported_count == 0
    reasons = {o.reason.split(":")[0] for o in again.outcomes if o.reason}
    assert reasons <= {"duplicate", "invalid", "unrecognised", "expired", "outside"}
    assert snapshot(root) == before


@pytest.mark.parametrize("fmt", FORMATS)
def test_dry_run_changes_no_byte_and_plans_the_real_run(
    fmt: str, ws: Workspace, root: Path, snapshot: Snapshot
) -> None:
    before = snapshot(root)
    plan = _import(ws, fmt, dry_run=True)
    assert plan.dry_run
    assert snapshot(root) == before
    real = _import(ws, fmt)
    assert [o.to_json() for o in plan.outcomes] == [o.to_json() for o in real.outcomes]


def test_an_event_dated_d_lands_in_ds_note_created_closed(ws: Workspace, root: Path) -> None:
    _import(ws, "brain")
    note = (root / "memory/episodic/2026-10-05.md").read_text()
    assert note.startswith("# 2026-10-05\n\n")
    assert "- Remember: the ISP resets the router every first Monday at 04:00. #brain\n" in note
    assert note.endswith("Updated: 2026-11-30\nDecisions: none\nSignal: none\nOpen: none\n")


def test_imported_old_notes_age_out_like_any_other(ws: Workspace, root: Path) -> None:
    _import(ws, "brain")
    moved = archive_episodic(ws)
    assert (root / "memory/archive/2026/10/2026-10-05.md").is_file()
    assert not (root / "memory/episodic/2026-10-05.md").exists()
    assert moved.moved


def test_secrets_are_redacted_in_every_imported_item(ws: Workspace, root: Path) -> None:
    result = _import(ws, "brain")
    assert result.redacted == {"PASSWORD_ASSIGNMENT": 1}
    note = (root / "memory/episodic/2026-10-09.md").read_text()
    assert "Hunter2Secret99" not in note
    assert "[REDACTED:PASSWORD_ASSIGNMENT]" in note


def test_a_fact_goes_through_remember_and_a_near_duplicate_is_skipped(
    ws: Workspace, root: Path
) -> None:
    from memtier.commands.facts.remember import remember

    remember(ws, "Pi-hole answers DNS for the whole LAN on 192.168.1.2", kind="infrastructure")
    result = _import(ws, "brain")
    line = next(o for o in result.outcomes if o.item == "line 3")
    assert (line.status, line.reason) == ("skipped", "duplicate")


def test_unroutable_item_goes_to_today_with_a_routing_note(ws: Workspace, root: Path) -> None:
    _import(ws, "mcp-memory")
    note = (root / "memory/episodic/2026-11-30.md").read_text().split("\n")
    at = note.index("- Sam: is the user's flatmate and shares the NAS")
    assert note[at + 1] == ""  # PROTOCOL §2 (v4): a paragraph of the item
    assert note[at + 2].startswith("  #routing-note: ")


def test_openclaw_daily_note_block_keeps_its_lines(ws: Workspace, root: Path) -> None:
    _import(ws, "openclaw")
    note = (root / "memory/episodic/2026-11-20.md").read_text()
    assert "## Morning\n- moved the Home Assistant database to the SSD\n" in note
    infra = (root / "memory/semantic/infrastructure.md").read_text()
    assert "- the reverse proxy is Caddy on gateway01 and renews its certificates itself\n" in infra


def test_openclaw_import_adds_to_an_existing_closed_note(ws: Workspace, root: Path) -> None:
    day = root / "memory/episodic/2026-11-20.md"
    day.write_text(
        "# 2026-11-20\n\nmy own line\nUpdated: 2026-11-20\nDecisions: a\nSignal: b\nOpen: c\n"
    )
    _import(ws, "openclaw")
    text = day.read_text()
    assert text.startswith("# 2026-11-20\n\nmy own line\n\n## Morning\n")
    assert text.endswith("Updated: 2026-11-20\nDecisions: a\nSignal: b\nOpen: c\n")


def test_cli_json_report_and_exit_code(cli: CliRunner, root: Path) -> None:
    done = cli("--root", str(root), "import", "claude", str(FIXTURES / "claude"), "--json")
    assert done.exit_code == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["imported"] == 5 and report["skipped"] == 2
    assert report["reasons"] == {"invalid": 2}
    assert {o["status"] for o in report["outcomes"]} == {"imported", "skipped"}
    assert "\x1b" not in done.stderr  # no progress bar when not on a terminal


def test_cli_reads_a_jsonl_source_from_stdin(cli: CliRunner, root: Path) -> None:
    data = (FIXTURES / "mcp-memory.jsonl").read_bytes()
    done = cli("--root", str(root), "import", "mcp-memory", "-", "--json", input=data)
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout)["imported"] == 7  # one outcome per observation


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("import", "evernote", "x"), "unknown import format 'evernote'"),
        (("import", "brain", "{missing}/brain.jsonl"), "no such file"),
        (("import", "openclaw", "{missing}"), "no such folder"),
    ],
)
def test_cli_bad_source_is_an_input_error(
    cli: CliRunner, root: Path, tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    missing = str(tmp_path / "missing")
    done = cli("--root", str(root), *(a.format(missing=missing) for a in args))
    assert done.exit_code == 2
    assert done.stderr.startswith("memtier: error: ") and message in done.stderr


def test_a_file_source_for_a_folder_format_is_an_input_error(cli: CliRunner, root: Path) -> None:
    done = cli("--root", str(root), "import", "claude", str(FIXTURES / "brain.jsonl"))
    assert done.exit_code == 2 and "reads a folder" in done.stderr


def test_no_progress_bar_when_piped(cli: CliRunner, root: Path, tmp_path: Path) -> None:
    lines = [
        json.dumps({"id": str(n), "kind": "note", "text": f"event {n}",
                    "createdAt": f"2026-11-{1 + n % 28:02d}T08:00:00Z", "tags": []})
        for n in range(400)
    ]  # fmt: skip
    source = tmp_path / "many.jsonl"
    source.write_text("\n".join(lines) + "\n")
    done = cli("--root", str(root), "import", "brain", str(source))
    assert done.exit_code == 0, done.stderr
    assert "importing" not in done.stderr and "\r" not in done.stderr
    assert done.stdout.rstrip().endswith("imported 400 of 400 item(s) from brain; skipped 0")


def test_progress_bar_appears_only_above_a_few_hundred_items() -> None:
    from memtier.cli.transfer import PROGRESS_MIN_ITEMS, _progress_bar

    with _progress_bar(False) as none:
        assert none is None
    with _progress_bar(True) as advance:
        assert advance is not None
        advance(1, PROGRESS_MIN_ITEMS)  # small import: no bar is started


@pytest.mark.parametrize("fmt", ["brain", "openclaw"])
def test_reimport_after_the_notes_were_archived_adds_nothing(
    fmt: str, ws: Workspace, root: Path
) -> None:
    _import(ws, fmt)
    archive_episodic(ws, days=0)
    assert not [p for p in (root / "memory/episodic").glob("*.md") if p.name < "2026-11-30"]
    again = _import(ws, fmt)
    assert again.imported_count == 0
    assert not [p for p in (root / "memory/episodic").glob("*.md") if p.name < "2026-11-30"]
