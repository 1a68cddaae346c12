"""PROTOCOL §13: recall (triggers, topic lookup, the budget, read-only) and the daily flush."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from memtier.commands.topics.recall import strip_trigger
from memtier.config import DEFAULT_RECALL_TRIGGERS
from tests.conftest import CliRunner
from tests.protocol.s13_support import note, run


@pytest.mark.parametrize(
    ("said", "rest"),
    [
        ("Do you remember the qdrant move?", "the qdrant move"),
        ("recall: restic backup", "restic backup"),
        ("Erinnerst du dich an die Qdrant-Migration?", "an die Qdrant-Migration"),
        ("Weißt du noch, wie der Restic-Umzug lief?", "wie der Restic-Umzug lief"),
        ("回忆一下博客项目", "博客项目"),
        ("记不记得博客项目？", "博客项目"),
    ],
)
def test_trigger_phrases_are_stripped(said: str, rest: str) -> None:
    assert strip_trigger(said, DEFAULT_RECALL_TRIGGERS) == rest


def _workspace(cli: CliRunner, root: Path) -> None:
    note(root, "2026-04-01", "- qdrant snapshot copied", closure="qdrant moves to nas01|none")
    note(root, "2026-04-03", "- qdrant restored on nas01", closure="none|test a qdrant restore")
    note(root, "2026-04-05", "- qdrant answers on 6333")
    note(root, "2026-04-12", "- qdrant container on docker01 retired")
    note(root, "2026-04-13", "- 博客 的 域名 买好了")
    run(
        cli, root, "index", "add", "qdrant-migration", "--category", "projects", "--match", "qdrant"
    )
    run(cli, root, "index", "add", "personal-blog", "--category", "projects", "--match", "博客")
    assert (
        run(cli, root, "consolidate", "qdrant-migration", now="2026-04-10T09:00:00+02:00")[0] == 0
    )
    infra = root / "memory" / "semantic" / "infrastructure.md"
    infra.write_text(infra.read_text() + "- qdrant: nas01:6333\n")


@pytest.mark.parametrize(
    ("said", "how"),
    [
        ("do you remember qdrant-migration", "slug"),
        ("do you remember the migration of qdrant", "words"),
        ("erinnerst du dich an qdrant", "match"),
        ("recall the qdrnt-migration", "similar"),
    ],
)
def test_recall_finds_the_topic_and_tells_its_story(
    cli: CliRunner, root: Path, said: str, how: str, snapshot: Callable[[Path], dict[str, bytes]]
) -> None:
    _workspace(cli, root)
    before = snapshot(root)
    code, payload, err = run(cli, root, "recall", said)
    assert code == 0, err
    assert payload["topic"] == "qdrant-migration" and payload["found_by"] == how
    text = payload["text"]
    current = "memory/consolidated/qdrant-migration-gen1-2026-04-10.md"
    assert payload["current"] == current and f"== {current}" in text
    # The generation first, then the newer days (newest first), then the WARM fact.
    newer = text.index("memory/episodic/2026-04-12.md:3: - qdrant container")
    assert text.index("# qdrant-migration — generation 1") < newer
    assert newer < text.index("memory/semantic/infrastructure.md")
    assert payload["newer_days"] == ["2026-04-12"]
    assert "2026-04-05.md:3" not in text.split("== newer")[1]  # covered: in the generation
    assert snapshot(root) == before  # read-only


def test_recall_in_chinese_and_its_budget(cli: CliRunner, root: Path) -> None:
    _workspace(cli, root)
    payload = run(cli, root, "recall", "回忆一下博客项目")[1]
    assert payload["topic"] == "personal-blog" and "域名" in payload["text"]
    for budget in (200, 400, 800):
        payload = run(cli, root, "recall", "do you remember qdrant", "--max-chars", str(budget))[1]
        assert payload["chars"] <= budget and len(payload["text"]) <= budget
        assert payload["truncated"] is True and "[cut at" in payload["text"]
    assert run(cli, root, "recall", "qdrant", "--max-chars", "100")[0] == 2


def test_recall_falls_back_to_search_without_writing(
    cli: CliRunner, root: Path, snapshot: Callable[[Path], dict[str, bytes]]
) -> None:
    _workspace(cli, root)
    before = snapshot(root)
    payload = run(cli, root, "recall", "do you remember docker01")[1]
    assert payload["topic"] is None and payload["found_by"] == "search"
    assert "docker01" in payload["text"]
    assert snapshot(root) == before  # not even the search log


def test_flush_closes_the_day_rebuilds_and_is_idempotent(
    cli: CliRunner, root: Path, snapshot: Callable[[Path], dict[str, bytes]]
) -> None:
    run(cli, root, "index", "add", "nas", "--category", "projects", "--match", "nas01")
    for day in ("2026-04-10", "2026-04-12"):
        note(root, day, "- nas01 disk check")
    open_day = root / "memory/episodic/2026-04-14.md"
    open_day.write_text("# 2026-04-14\n\n- nas01 scrub started\n")  # no closure block
    code, payload, err = run(cli, root, "flush", "--consolidate")
    assert code == 0, err
    assert payload["date"] == "2026-04-14"
    assert payload["changes"] == [
        "closed 2026-04-14.md",
        "index rebuilt",
        "1 generation(s) written",
    ]
    assert open_day.read_text().endswith(
        "Updated: 2026-04-15\nDecisions: none\nSignal: none\nOpen: none\n"
    )
    assert payload["written"] == ["memory/consolidated/nas-gen1-2026-04-15.md"]
    today = (root / "memory/episodic/2026-04-15.md").read_text()
    assert today.count("Daily flush: ") == 1
    assert "nas" not in today.split("Daily flush: ")[1].split("\n")[0]  # no topic named
    before = snapshot(root)
    code, payload, _ = run(cli, root, "flush", "--consolidate")
    assert code == 0 and payload["changed"] is False and payload["written"] == []
    assert snapshot(root) == before
    assert run(cli, root, "health-check")[1]["ok"] is True


def test_flush_lists_due_topics_without_consolidate(cli: CliRunner, root: Path) -> None:
    for day in ("2026-04-10", "2026-04-12", "2026-04-13"):
        note(root, day, "- blog post drafted")
    run(cli, root, "index", "add", "blog", "--category", "projects")
    code, payload, _ = run(cli, root, "flush", "--date", "2026-04-13")
    assert code == 0 and payload["due"] == ["blog"] and payload["written"] == []
    assert not (root / "memory" / "consolidated").exists()


def test_a_trigger_is_a_whole_phrase() -> None:
    assert (
        strip_trigger("the recalled firmware", DEFAULT_RECALL_TRIGGERS) == "the recalled firmware"
    )


def test_recall_accepts_all_and_it_changes_nothing(cli: CliRunner, root: Path) -> None:
    """PROTOCOL §13 v4: recall always reads archived notes; `--all` is accepted (an agent
    that learned it from search may give it) and the answer is the same."""
    _workspace(cli, root)
    plain = run(cli, root, "recall", "do you remember qdrant")
    everything = run(cli, root, "recall", "do you remember qdrant", "--all")
    assert plain[0] == everything[0] == 0
    assert plain[1] is not None and plain[1]["topic"] == "qdrant-migration"
    assert everything[1] == plain[1]


def test_recall_reads_archived_notes_and_takes_all(cli: CliRunner, root: Path) -> None:
    # PROTOCOL §13 v4: recall always reads the archive; --all is accepted and changes nothing.
    note(root, "2025-03-02", "- the zanzibar relay moved to host c", archived=True)
    note(root, "2026-04-14", "- the zanzibar relay is up")  # a live hit as good
    plain = run(cli, root, "recall", "zanzibar relay")
    assert plain[0] == 0, plain[2]
    assert "memory/archive/2025/03/2025-03-02.md" in plain[1]["text"]
    assert run(cli, root, "recall", "zanzibar relay", "--all")[1] == plain[1]
