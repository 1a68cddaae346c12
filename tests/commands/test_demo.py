"""`memtier init --demo`: the packaged sample memory, dated so its newest day is today."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from memtier.commands.init import init_demo
from memtier.commands.review import weekly_review
from memtier.demo import DEMO_EXPORT
from memtier.formats.envelope import newest_note_day, parse_envelope
from memtier.health.report import run_health_check
from memtier.workspace import Workspace
from tests.conftest import NOW, CliRunner


def test_the_packaged_demo_is_a_valid_export() -> None:
    files, invalid = parse_envelope(DEMO_EXPORT.read_text(encoding="utf-8"))
    assert not invalid
    paths = {f.path for f in files}
    assert "MEMORY.md" in paths and "memory/procedural/lessons-learned.md" in paths
    assert sum(p.startswith("memory/episodic/") for p in paths) >= 10
    assert newest_note_day(files) is not None


def test_init_demo_moves_the_dates_to_today_and_passes_health(tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    result = init_demo(folder, NOW)
    assert result.demo
    ws = Workspace.open(folder, NOW)
    notes = sorted(p.name for p in ws.episodic_dir.glob("*.md"))
    assert notes[-1] == "2026-11-30.md"
    assert (ws.episodic_dir / "2026-11-29.md").is_file()  # yesterday, checked by health
    assert "last_verified: 2026-11-30" in ws.hot.read_text()
    report = run_health_check(ws)
    assert report.ok, [c.message for c in report.checks if c.status == "fail"]


def test_the_demo_holds_a_recurring_lesson_the_weekly_review_flags(tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    init_demo(folder, NOW)
    later = Workspace.open(folder, NOW + timedelta(hours=3))  # past the session gate
    review = weekly_review(later)
    assert [f.lesson for f in review.flagged] == ["apt mirror timed out during rebuild"]


def test_init_demo_refuses_an_existing_workspace(cli: CliRunner, root: Path) -> None:
    done = cli("init", "--root", str(root), "--demo")
    assert done.exit_code == 1
    assert "already holds a workspace" in done.stderr


def test_cli_init_demo_json(cli: CliRunner, tmp_path: Path) -> None:
    done = cli(
        "--now",
        "2027-03-10T09:00:00+01:00",
        "init",
        "--root",
        str(tmp_path / "d"),
        "--demo",
        "--json",
    )
    assert done.exit_code == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["demo"]["files"]
    assert (tmp_path / "d/memory/episodic/2027-03-10.md").is_file()


def test_the_demo_shows_a_topic_with_one_generation(tmp_path: Path) -> None:
    """PROTOCOL §13: the first run of `memtier index` / `recall` has something to show."""
    from memtier.commands.topics.index import index_show
    from memtier.commands.topics.recall import recall

    folder = tmp_path / "demo"
    result = init_demo(folder, NOW)
    ws = Workspace.open(folder, NOW)
    generation = "memory/consolidated/qdrant-migration-gen1-2026-11-30.md"
    assert {"memory/INDEX.md", generation} <= set(result.demo or ())
    (topic,) = index_show(ws).entries
    assert topic.current == generation and len(topic.dates) >= 4
    story = recall(ws, "do you remember the qdrant move")
    assert story.topic == "qdrant-migration" and story.newer_days == ("2026-11-30",)
    assert run_health_check(ws).ok
