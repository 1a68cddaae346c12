"""`memtier import` on files the neighbours' own writers wrote (PROTOCOL §12 v3).

The fixtures under fixtures/real/ come from the real software (SOURCES.md says
which writer made which file; generate.mjs regenerates them). Each format: what
it reads, where each fact lands, what is skipped and why, and the variants the
real writers produce (store lines, expiresAt, nested front matter, block
scalars, slugged daily-note names, the indexed/ layout, a Claude project folder).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from memtier.commands.archive import archive_episodic
from memtier.commands.transfer.importers import import_source
from memtier.commands.transfer.importers.report import ImportResult
from memtier.errors import InputError
from memtier.health.report import run_health_check
from memtier.workspace import Workspace
from tests.conftest import NOW_TEXT, CliRunner

REAL = Path(__file__).parents[1] / "fixtures" / "real"
Snapshot = Callable[[Path], dict[str, bytes]]
SOURCES = {
    "brain": REAL / "brain" / "brain-memory.jsonl",
    "mcp-memory": REAL / "mcp-memory" / "memory.jsonl",
    "structured": REAL / "structured",
    "indexed": REAL / "indexed",
    "claude": REAL / "claude" / "-home-user-homelab",
    "openclaw": REAL / "openclaw",
}


def _run(ws: Workspace, fmt: str, dry_run: bool = False) -> ImportResult:
    return import_source(ws, fmt, SOURCES[fmt], dry_run=dry_run)


def _outcome(result: ImportResult, item: str) -> tuple[str, str | None, str | None]:
    found = next(o for o in result.outcomes if o.item == item)
    return found.status, found.home, found.reason


def _text(root: Path, rel: str) -> str:
    return (root / rel).read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", sorted(SOURCES))
def test_real_fixture_imports_cleanly_twice_and_plans_exactly(
    fmt: str, ws: Workspace, root: Path, snapshot: Snapshot
) -> None:
    before = snapshot(root)
    plan = _run(ws, fmt, dry_run=True)
    assert snapshot(root) == before
    real = _run(ws, fmt)
    assert [o.to_json() for o in plan.outcomes] == [o.to_json() for o in real.outcomes]
    assert real.imported_count > 0
    for outcome in real.outcomes:
        assert outcome.status == "imported" or outcome.reason, outcome
    check = run_health_check(ws)
    assert check.ok, [c.message for c in check.checks if c.status == "fail"]
    after = snapshot(root)
    again = _run(ws, fmt)
    assert again.imported_count == 0
    assert snapshot(root) == after


def test_brain_store_lines_expiry_tags_and_blocks(ws: Workspace, root: Path) -> None:
    result = _run(ws, "brain")
    assert result.imported_count == 4
    assert _outcome(result, "line 3")[2] == (
        "expired: expiresAt 2026-10-17T08:00:00.000Z has passed"
    )
    assert _outcome(result, "line 6")[2] == "invalid: no 'text'"
    decisions = _text(root, "memory/semantic/decisions.md")
    # a durable fact keeps its date and its tags in WARM, not in that day's note
    assert "- Backups stay on restic; borg was tried and dropped. (source: channel telegram, " in (
        decisions
    )
    assert "(2026-10-09) #backup #decision\n" in decisions
    assert not (root / "memory/episodic/2026-10-09.md").exists()
    howto = _text(root, "memory/procedural/reference.md")
    assert "```sh\n# magic packet\nwakeonlan 00:11:32:aa:bb:cc\n```\n" in howto
    everything = "".join(p.read_text() for p in (root / "memory").rglob("*.md"))
    assert "guest Wi-Fi" not in everything  # expired: the plugin hides it, so does memtier


def test_a_dated_durable_fact_survives_archive(ws: Workspace, root: Path) -> None:
    _run(ws, "structured")
    archive_episodic(ws, days=0)
    prefs = _text(root, "memory/semantic/preferences.md")
    assert "whether I want more detail: Keep replies to a few lines unless asked. (2026-04-21)" in (
        prefs
    )


def test_mcp_person_and_organization_are_facts_one_outcome_each(ws: Workspace, root: Path) -> None:
    from memtier.commands.facts.remember import remember

    remember(ws, "John_Smith: Graduated in 2019", kind="preference")
    result = _run(ws, "mcp-memory")
    assert [_outcome(result, f"line 1 #{n}")[0] for n in (1, 2, 3, 4)] == [
        "imported", "imported", "skipped", "imported",
    ]  # fmt: skip
    assert _outcome(result, "line 1 #3")[2] == "duplicate"
    prefs = _text(root, "memory/semantic/preferences.md")
    assert "- John_Smith: Speaks fluent Spanish\n" in prefs
    assert "- John_Smith works at Anthropic\n" in prefs
    assert "- Anthropic: Makes the Claude models\n" in _text(root, "memory/semantic/projects.md")
    today = _text(root, "memory/episodic/2026-11-30.md")
    assert "John_Smith" not in today and "Anthropic" not in today


def test_structured_block_scalar_title_and_kept_block(ws: Workspace, root: Path) -> None:
    source = (SOURCES["structured"] / "user" / "u-1.md").read_text()
    assert "title: >-\n" in source  # gray-matter folded the long title
    result = _run(ws, "structured")
    assert _outcome(result, "user/u-1.md")[0] == "imported"
    assert _outcome(result, "custom/c-1.md")[2].startswith("invalid: front matter line 4")
    howto = _text(root, "memory/procedural/reference.md")
    assert "## Steps\n\n```bash\n# list what there is\nrestic -r /mnt/backup snapshots\n" in howto
    assert max(len(line) for line in howto.split("\n")) < 120
    lessons = _text(root, "memory/procedural/lessons-learned.md")
    assert "- run the whole suite, not one file — under load, use -p no:xdist" in lessons


@pytest.mark.parametrize("where", ["", "memory", "memory/indexed"])
def test_indexed_layout_beside_daily_notes(ws: Workspace, root: Path, where: str) -> None:
    result = import_source(ws, "indexed", SOURCES["indexed"] / where)
    refs = {o.item for o in result.outcomes if o.status == "imported"}
    assert any("posthog-billing" in r for r in refs)
    assert any(r.startswith("indexed/2026-05-22-docker-hosts") or "docker-hosts" in r for r in refs)
    assert ("2026-05-21.md" in refs) == (where != "memory/indexed")
    infra = _text(root, "memory/semantic/infrastructure.md")
    assert "- Docker hosts: docker01 runs the media stack" not in infra
    assert "- docker01 runs the media stack (2026-05-22) #docker #infrastructure\n" in infra


def test_claude_project_folder_nested_metadata_and_outside_links(ws: Workspace, root: Path) -> None:
    result = _run(ws, "claude")  # the project folder: memory/ is found inside
    assert _outcome(result, "feedback_testing.md")[1] == "memory/procedural/lessons-learned.md"
    assert _outcome(result, "user_role.md")[1] == "memory/semantic/preferences.md"
    assert _outcome(result, "MEMORY.md:4")[2] == (
        "outside: links to ../../shared/notes.md, outside the memory folder"
    )
    lessons = _text(root, "memory/procedural/lessons-learned.md")
    assert "## How\n\n```sh\n# run the files you touched\npytest -q tests/x.py\n```\n" in lessons
    assert "#testing #workflow" in lessons


def test_openclaw_every_file_and_the_meaning_of_memory_md(ws: Workspace, root: Path) -> None:
    result = _run(ws, "openclaw")
    homes = {o.item: o.home for o in result.outcomes}
    assert homes["memory/2026-11-21-gateway-move.md"] == "memory/episodic/2026-11-21.md"
    assert homes["memory/2026-11-22-1430.md"] == "memory/episodic/2026-11-22.md"
    assert homes["memory/2026-11-23_backup-drill.md"] == "memory/episodic/2026-11-23.md"
    assert homes["memory/archive/2026-10-01.md"] == "memory/episodic/2026-10-01.md"
    assert homes["memory/projects/garage-sensor.md"] == "memory/semantic/projects.md"
    assert homes["USER.md:3"] == "memory/semantic/preferences.md"
    infra = _text(root, "memory/semantic/infrastructure.md")
    assert (
        "- nas01 is the Synology box on 192.168.1.10 — DSM on port 5001; photos on volume 2\n"
        in (infra)
    )
    today = _text(root, "memory/episodic/2026-11-30.md")
    assert "- Household sensors: Are passive observers only\n" in today
    everything = "".join(p.read_text() for p in (root / "memory").rglob("*.md"))
    assert "Last updated" not in everything and "\n- ---\n" not in everything
    day = _text(root, "memory/episodic/2026-11-20.md")
    assert "## moving the database\n" in day and "# check the new mount\n" in day
    assert len(result.outcomes) == 12


def test_openclaw_other_files_are_listed_with_a_reason(ws: Workspace, tmp_path: Path) -> None:
    import shutil

    source = tmp_path / "oc"
    shutil.copytree(SOURCES["openclaw"], source)
    (source / "memory" / "brain-memory.jsonl").write_text("{}\n")
    shutil.copytree(SOURCES["indexed"] / "memory" / "indexed", source / "memory" / "indexed")
    result = import_source(ws, "openclaw", source)
    indexed = [o for o in result.outcomes if o.item.startswith("memory/indexed/")]
    assert len(indexed) == 3
    assert {o.reason for o in indexed} == {
        "unrecognised: an indexed-memory folder: import it with the 'indexed' format"
    }
    assert _outcome(result, "memory/brain-memory.jsonl")[2] == (
        "unrecognised: not markdown (a JSONL store: import it with the 'brain' or "
        "'mcp-memory' format)"
    )


@pytest.mark.parametrize(
    ("fmt", "make", "expected"),
    [
        ("claude", lambda p: p.mkdir(), "MEMORY.md and topic *.md files"),
        ("openclaw", lambda p: p.mkdir(), "memory/YYYY-MM-DD*.md daily notes"),
        ("indexed", lambda p: p.mkdir(), "YYYY-MM-DD-slug-id.md"),
        ("structured", lambda p: p.mkdir(), "user/ feedback/ project/"),
        ("brain", lambda p: p.write_text("\n"), "JSONL store"),
        ("mcp-memory", lambda p: p.write_text(""), "memory.jsonl"),
    ],
)
def test_a_source_with_nothing_recognised_is_an_input_error(
    cli: CliRunner, root: Path, tmp_path: Path, fmt: str, make: Callable[[Path], object],
    expected: str,
) -> None:  # fmt: skip
    source = tmp_path / "empty"
    make(source)
    done = cli("--root", str(root), "import", fmt, str(source))
    assert done.exit_code == 2, done.stdout
    assert "nothing to import" in done.stderr and expected in done.stderr


def test_each_batch_takes_the_lock_and_lets_an_agent_in(ws: Workspace, root: Path) -> None:
    """Between two batches the workspace lock is free: a real `buffer note` process
    gets it without waiting out the import (PROTOCOL §12 v3 "Scale")."""
    notes: list[int] = []

    def between(done: int, total: int) -> None:
        proc = subprocess.run(
            [sys.executable, "-m", "memtier", "--now", NOW_TEXT, "--root", str(root),
             "buffer", "note", f"agent note {done}"],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        notes.append(proc.returncode)

    import_source(ws, "mcp-memory", SOURCES["mcp-memory"], progress=between)
    assert notes and set(notes) == {0}
    buffer = _text(root, "memory/working-buffer.md")
    assert buffer.count("agent note ") == len(notes)


def test_source_larger_than_the_bound_is_refused(
    ws: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memtier.commands.transfer.importers import reading

    monkeypatch.setattr(reading, "MAX_SOURCE_BYTES", 1000)
    big = tmp_path / "big.jsonl"
    big.write_text(json.dumps({"text": "x" * 2000}) + "\n")
    with pytest.raises(InputError, match="larger than the import limit of 1000 bytes"):
        import_source(ws, "brain", big)


def test_an_index_line_whose_topic_cannot_be_read_is_kept(ws: Workspace, tmp_path: Path) -> None:
    import shutil

    source = tmp_path / "memory"
    shutil.copytree(SOURCES["claude"] / "memory", source)
    (source / "user_role.md").write_text("---\nname: x\nthis front matter never ends\n")
    result = import_source(ws, "claude", source)
    assert _outcome(result, "user_role.md")[2] == (
        "invalid: front matter is not closed by a '---' line"
    )
    assert _outcome(result, "MEMORY.md:1")[0] == "imported"  # its words are the only copy
