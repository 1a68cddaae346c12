"""PROTOCOL §13: INDEX.md, derived Dates, the due rule, people's edits kept."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import CliRunner
from tests.protocol.s13_support import index_entry, note, run


def test_dates_come_from_live_and_archived_notes_and_topic_tags(cli: CliRunner, root: Path) -> None:
    note(root, "2026-02-10", "- moved the Qdrant data", archived=True)
    note(root, "2026-04-02", "- qdrant answers on nas01")
    note(root, "2026-04-03", "- worked on it #topic:vector-store")
    note(root, "2026-04-04", "- qdrantx is another product, qdrant_db too")  # not whole words
    note(root, "2026-04-05", "- nothing about it")
    code, payload, err = run(
        cli, root, "index", "add", "vector-store", "--category", "projects", "--match", "qdrant"
    )
    assert code == 0, err
    (topic,) = payload["topics"]
    assert topic["dates"] == ["2026-02-10", "2026-04-02", "2026-04-03"]
    assert "  - Dates: [2026-02-10, 2026-04-02, 2026-04-03]" in index_entry(root, "vector-store")


def test_index_and_generations_are_never_scanned_for_topics(cli: CliRunner, root: Path) -> None:
    assert run(cli, root, "index", "add", "qdrant", "--category", "projects")[0] == 0
    folder = root / "memory" / "consolidated"
    folder.mkdir()
    (folder / "notes.md").write_text("qdrant qdrant\n")
    code, payload, _ = run(cli, root, "index", "rebuild")
    assert code == 0 and payload["topics"][0]["dates"] == []


def test_people_edit_match_and_status_and_entries_are_never_removed(
    cli: CliRunner, root: Path
) -> None:
    note(root, "2026-04-01", "- restic backup ran")
    note(root, "2026-04-02", "- borg is faster?")
    run(cli, root, "index", "add", "backups", "--category", "decisions", "--match", "restic")
    run(cli, root, "index", "add", "blog", "--category", "projects")
    path = root / "memory" / "INDEX.md"
    text = path.read_text()
    text = text.replace("  - Match: restic", "  - Match: restic, borg")
    text = text.replace(
        "- **blog**\n  - Match: blog\n  - Status: active",
        "- **blog**\n  - Match: blog\n  - Status: paused",
    )
    path.write_text(text)
    code, payload, _ = run(cli, root, "index", "rebuild")
    assert code == 0
    by_slug = {t["slug"]: t for t in payload["topics"]}
    assert by_slug["backups"]["match"] == ["restic", "borg"]
    assert by_slug["backups"]["dates"] == ["2026-04-01", "2026-04-02"]
    assert by_slug["blog"]["status"] == "paused"
    code, payload, _ = run(cli, root, "index", "set", "blog", "--status", "deprecated")
    assert code == 0 and sorted(t["slug"] for t in payload["topics"]) == ["backups", "blog"]
    assert "  - Status: deprecated" in index_entry(root, "blog")


def test_rebuild_check_changes_nothing_and_exits_1_when_stale(cli: CliRunner, root: Path) -> None:
    run(cli, root, "index", "add", "nas", "--category", "projects", "--match", "nas01")
    assert run(cli, root, "index", "rebuild", "--check")[0] == 0
    note(root, "2026-04-09", "- nas01 disk replaced")
    before = (root / "memory" / "INDEX.md").read_bytes()
    code, payload, _ = run(cli, root, "index", "rebuild", "--check")
    assert code == 1 and payload is not None and payload["changed"] is True
    assert (root / "memory" / "INDEX.md").read_bytes() == before
    health = run(cli, root, "health-check")[1]
    fresh = [c for c in health["checks"] if c["id"] == "index.fresh"]
    assert fresh and fresh[0]["status"] == "warn" and health["ok"] is True
    assert run(cli, root, "index", "rebuild")[0] == 0
    assert run(cli, root, "index", "rebuild", "--check")[0] == 0


def test_due_needs_threshold_dates_before_today(cli: CliRunner, root: Path) -> None:
    """The seed's ">3" against a threshold of 3 that fired with today counted: §13
    says at least `consolidation_threshold` dates, today excluded."""
    note(root, "2026-04-10", "- blog: picked next.js")
    note(root, "2026-04-12", "- blog: vercel account")
    note(root, "2026-04-15", "- blog: first post")  # today
    run(cli, root, "index", "add", "blog", "--category", "projects")
    assert run(cli, root, "index")[1]["topics"][0]["due"] is False
    note(root, "2026-04-14", "- blog: domain bought")
    assert run(cli, root, "index")[1]["topics"][0]["due"] is True
    (root / "memory" / "memtier.toml").write_text("consolidation_threshold = 4\n")
    assert run(cli, root, "index")[1]["topics"][0]["due"] is False


def test_health_fails_on_a_broken_index(cli: CliRunner, root: Path) -> None:
    run(cli, root, "index", "add", "blog", "--category", "projects")
    path = root / "memory" / "INDEX.md"
    text = path.read_text().replace(
        "  - Dates: []", "  - Dates: []\n  - Current: memory/consolidated/blog-gen1-2026-01-01.md"
    )
    path.write_text(text)
    health = run(cli, root, "health-check")[1]
    refs = [c for c in health["checks"] if c["id"] == "index.refs"]
    assert refs[0]["status"] == "fail" and "blog-gen1-2026-01-01.md" in refs[0]["message"]
    path.write_text(text.replace("Status: active", "Status: done"))
    health = run(cli, root, "health-check")[1]
    failed = {c["id"] for c in health["checks"] if c["status"] == "fail"}
    assert "index.format" in failed and health["ok"] is False
    code, _, err = run(cli, root, "index", "rebuild")
    assert code == 1 and "unknown status 'done'" in err


def test_add_refuses_a_bad_slug_a_taken_slug_and_a_bad_category(cli: CliRunner, root: Path) -> None:
    assert run(cli, root, "index", "add", "Blog", "--category", "projects")[0] == 2
    assert run(cli, root, "index", "add", "blog", "--category", "hobbies")[0] == 2
    assert run(cli, root, "index", "add", "blog", "--category", "projects")[0] == 0
    assert run(cli, root, "index", "add", "blog", "--category", "events")[0] == 1
    assert run(cli, root, "index", "set", "nope", "--status", "paused")[0] == 2


def test_search_covers_the_index_tier_after_warm(cli: CliRunner, root: Path) -> None:
    note(root, "2026-04-01", "- zanzibar relay moved")
    note(root, "2026-04-02", "- zanzibar relay tested")
    run(cli, root, "index", "add", "zanzibar", "--category", "projects")
    assert run(cli, root, "consolidate", "zanzibar")[0] == 0
    code, payload, _ = run(cli, root, "search", "zanzibar", "--tier", "index")
    assert code == 0 and payload["tiers"] == ["index"]
    paths = {hit["path"] for hit in payload["results"]}
    assert "memory/consolidated/zanzibar-gen1-2026-04-15.md" in paths
    everything = run(cli, root, "search", "zanzibar")[1]
    assert everything["tiers"][:3] == ["hot", "warm", "index"]
    assert {hit["tier"] for hit in everything["results"]} == {"index", "cold"}


def test_show_prints_the_index_bounded_like_get(cli: CliRunner, root: Path) -> None:
    result = cli("--root", str(root), "index")
    assert result.exit_code == 0 and "memtier index add" in result.stdout
    for slug in ("alpha", "beta", "gamma"):
        run(cli, root, "index", "add", slug, "--category", "projects")
    result = cli("--root", str(root), "index", "show", "--max-lines", "5")
    lines = result.stdout.splitlines()
    assert lines[:2] == ["# Memory Index", lines[1]] and len(lines) == 6
    assert lines[-1] == "truncated; next: memtier get memory/INDEX.md:6-10"


def test_whole_words_beside_text_without_spaces(cli: CliRunner, root: Path) -> None:
    note(root, "2026-04-01", "- 用qdrant迁移了数据")
    note(root, "2026-04-02", "- Über-qdrant test")
    note(root, "2026-04-03", "- qdrantü is not it, nor éqdrant")
    run(cli, root, "index", "add", "q", "--category", "projects", "--match", "qdrant")
    assert run(cli, root, "index")[1]["topics"][0]["dates"] == ["2026-04-01", "2026-04-02"]
