"""What ranks (PROTOCOL §9 v4): content, never metadata; the query keeps what it says;
sections rank; the archive joins when the live tiers have nothing good. Every behaviour
test runs with both scanners."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtier.commands.init import init_demo
from memtier.search.metadata import FIELD, HEADING, TAGS, TITLE, labels
from tests.conftest import NOW, CliRunner
from tests.search.test_search import results, scanner, search, write

__all__ = ["scanner"]


def _content_lines(root: Path, hits: list[dict[str, object]]) -> list[str]:
    return [
        (root / str(h["path"])).read_text(encoding="utf-8").splitlines()[int(str(h["line"])) - 1]
        for h in hits
    ]


# -- metadata is never a hit by itself ------------------------------------------------


@pytest.mark.parametrize("query", ["qdrant", "docker"])
def test_the_demo_shows_content_lines_first(
    cli: CliRunner, tmp_path: Path, scanner: str, query: str
) -> None:
    # The finding: `search qdrant` gave two #tags: lines and an INDEX.md entry first,
    # `search docker` a file's "# Docker restarts" title and a #tags: line.
    root = tmp_path / "demo"
    init_demo(root, NOW)
    found = results(search(cli, root, query, "--limit", "5"))
    assert len(found) == 5
    for path, text in zip((h["path"] for h in found), _content_lines(root, found), strict=True):
        assert not text.startswith("#"), (path, text)
        assert "last_verified" not in text
        assert path != "memory/INDEX.md", text
        assert query in text.lower(), (path, text)


def test_every_kind_of_label_is_told_apart() -> None:
    lines = [
        "# Projects",
        "#tags: tasks, qdrant",
        "> last_verified: 2026-11-30",
        "",
        "## Current",
        "- qdrant migration pending",
        "Updated: 2026-11-30",
        "Decisions: qdrant moves",
    ]
    found = labels("memory/semantic/projects.md", lines)
    assert {n: label.kind for n, label in found.items()} == {
        1: TITLE, 2: TAGS, 3: FIELD, 5: HEADING, 7: FIELD, 8: FIELD,
    }  # fmt: skip
    assert found[8].end == len("Decisions:") + 1  # the label only: what follows is content
    index = labels("memory/INDEX.md", ["## Projects", "- **qdrant-migration**", "  - Match: x"])
    assert {n: label.kind for n, label in index.items()} == {1: HEADING, 2: FIELD, 3: FIELD}
    assert labels("memory/semantic/other.md", ["- **bold** fact", "  - Match: x"]) == {}


PLAIN = "- the relay runs on host b since spring\n"


@pytest.mark.parametrize(
    ("label_file", "why"),
    [
        ("# Relay\n#tags: misc\n\n- an unrelated fact\n", "title"),
        ("# Notes\n#tags: relay\n\n- an unrelated fact\n", "tags"),
        ("# Notes\n#tags: misc\n> last_verified: 2026-11-30 relay\n\n- a fact\n", "verified"),
        ("# Notes\n#tags: misc\n\n## Relay\n- an unrelated fact\n", "heading"),
    ],
)
def test_a_label_alone_ranks_below_a_content_line(
    cli: CliRunner, root: Path, scanner: str, label_file: str, why: str
) -> None:
    write(root, "memory/semantic/labels.md", label_file)
    write(root, "memory/episodic/2026-11-20.md", f"# 2026-11-20\n\n{PLAIN}")
    found = results(search(cli, root, "relay"))
    assert found[0]["path"] == "memory/episodic/2026-11-20.md", why
    for hit in found:
        text = _content_lines(root, [hit])[0]
        assert not text.startswith(("#", ">")), (why, text)


def test_a_closure_label_is_no_hit_but_its_value_is(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    note = "# 2026-11-20\n\n- pruned images\n\nUpdated: 2026-11-20\nDecisions: none\nOpen: none\n"
    write(root, "memory/episodic/2026-11-20.md", note)
    for hit in results(search(cli, root, "decisions")):
        assert not _content_lines(root, [hit])[0].startswith(("Decisions:", "#")), hit
    write(root, "memory/episodic/2026-11-21.md", note.replace("none\nOpen", "relay to b\nOpen"))
    hit = results(search(cli, root, "decisions relay"))[0]
    assert (hit["path"], hit["line"]) == ("memory/episodic/2026-11-21.md", 6)


def test_an_index_entry_is_no_hit_but_the_topic_note_is(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    index = "# Memory Index\n\n## Projects\n- **relay-move**\n  - Match: relay\n  - Status: x\n"
    write(root, "memory/INDEX.md", index)
    write(root, "memory/episodic/2026-11-20.md", f"# 2026-11-20\n\n{PLAIN}")
    found = results(search(cli, root, "relay"))
    assert [h["path"] for h in found] == ["memory/episodic/2026-11-20.md"]


def test_a_tag_or_title_match_lifts_the_files_content_lines(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    fact = "- {} relay listens on port 3478\n"
    write(root, "memory/semantic/a.md", "# Hosts\n#tags: misc\n\n" + fact.format("the"))
    write(root, "memory/semantic/b.md", "# Hosts\n#tags: coturn\n\n" + fact.format("one"))
    write(root, "memory/semantic/c.md", "# Coturn\n#tags: misc\n\n" + fact.format("our"))
    found = results(search(cli, root, "coturn relay"))
    assert [h["line"] for h in found] == [4, 4, 4]  # each file's content line, no label
    assert found[-1]["path"] == "memory/semantic/a.md"  # the file its labels do not lift


# -- the query keeps what it says -----------------------------------------------------

CHINESE = (
    "# 2026-11-20\n\n"
    "- 我上司今年41岁，身高177厘米。\n"
    "- 会议的时间是三点，地点在三楼。\n"
    "- 周末去了公园散步。\n"
)


@pytest.mark.parametrize(
    ("query", "line", "terms"),
    [
        ("41", 3, ["41"]),  # a number written against CJK characters is a word of its own
        ("41岁", 3, ["41", "岁"]),
        ("177cm", 3, ["177"]),  # the measure's number, whatever its unit is written as
        ("的时间是", 4, ["的时", "时间", "间是"]),  # every overlapping pair of the line
    ],
)
def test_numbers_and_overlapping_pairs_in_chinese_notes(
    cli: CliRunner, root: Path, scanner: str, query: str, line: int, terms: list[str]
) -> None:
    write(root, "memory/episodic/2026-11-20.md", CHINESE)
    hit = results(search(cli, root, query))[0]
    assert (hit["path"], hit["line"]) == ("memory/episodic/2026-11-20.md", line)
    assert hit["matched_terms"] == terms


def test_date_words_are_searched_for_as_well(cli: CliRunner, root: Path, scanner: str) -> None:
    # The finding: "Where is P. going on the 10th of February 2024?" searched for
    # [p, going] only, so the line naming the day was never scored.
    note = (
        "# 2024-01-20\n\n- Paula: I am flying to Lyon next week.\n"
        "- Paula: and to Athens on the 10th of February!\n"
    )
    write(root, "memory/episodic/2024-01-20.md", note)
    hit = results(search(cli, root, "Where is Paula going on the 10th of February 2024?"))[0]
    assert hit["line"] == 4
    terms = hit["matched_terms"]
    assert isinstance(terms, list) and "february" in terms


def test_a_date_word_never_outweighs_the_note_of_that_day(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    write(root, "memory/episodic/2026-05-11.md", "# 2026-05-11\n\n- pruned images\n")
    write(root, "memory/semantic/infra.md", "# Infra\n\n- renewed in May\n- host 10.0.11.2\n")
    hit = results(search(cli, root, "what did I write down on 11 May 2026?"))[0]
    assert hit["path"] == "memory/episodic/2026-05-11.md"


@pytest.mark.parametrize(
    ("query", "line"),
    [("years", 3), ("year's", 3), ("cats", 4), ("dogs", 5), ("dog", 5)],
)
def test_possessives_and_plural_forms_meet(
    cli: CliRunner, root: Path, scanner: str, query: str, line: int
) -> None:
    note = "# 2026-11-21\n\n- last year's trip was long\n- a cat sleeps\n- the dog's bowl\n"
    write(root, "memory/episodic/2026-11-21.md", note)
    hit = results(search(cli, root, query))[0]
    assert (hit["line"], hit["matched_terms"]) == (line, [query.rstrip("s").rstrip("'")])


# -- the archive when the live tiers have nothing good ---------------------------------

ARCHIVED = "memory/archive/episodic/2025-01-10.md"


def test_the_archive_is_searched_when_the_live_tiers_have_no_good_hit(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    write(root, ARCHIVED, "# 2025-01-10\n\n- the zanzibar relay moved to host c\n")
    payload = search(cli, root, "zanzibar relay")
    assert [h["path"] for h in results(payload)] == [ARCHIVED]
    assert "'archive'" in str(payload["tiers"])
    assert "searched the archive too" in str(payload["warnings"])
    # A live hit holding the query's words: the archive stays out.
    write(root, "memory/episodic/2026-11-20.md", "# 2026-11-20\n\n- zanzibar relay is up\n")
    live = search(cli, root, "zanzibar relay")
    assert [h["path"] for h in results(live)] == ["memory/episodic/2026-11-20.md"]
    assert "'archive'" not in str(live["tiers"])
    # Only one of the two words live: a weak hit, so the archive is searched too.
    weak = search(cli, root, "zanzibar host moved")
    assert ARCHIVED in [h["path"] for h in results(weak)]
