"""recall's parts one at a time (PROTOCOL §13): the trigger phrase taken off, the topic
found by slug, slug words, a Match term or the closest slug, and the bounds."""

from __future__ import annotations

import pytest

from memtier.commands.topics.recall import (
    MIN_MAX_CHARS,
    SIMILARITY,
    find_topic,
    recall,
    strip_trigger,
)
from memtier.errors import InputError
from memtier.formats.index import IndexEntry
from memtier.workspace import Workspace
from tests.conftest import exit_and_loaded
from tests.protocol.s13_support import note


def test_the_longest_trigger_that_occurs_is_taken_off() -> None:
    """Shorter first would leave "do you" behind."""
    triggers = ("remember", "do you remember")
    assert strip_trigger("Do you remember the nas move?", triggers) == "the nas move"


def test_only_the_first_occurrence_goes_and_the_case_is_kept() -> None:
    assert strip_trigger("RECALL the Recall button", ("recall",)) == "the Recall button"


@pytest.mark.parametrize(
    ("said", "rest"),
    [
        ("qdrant move?!", "qdrant move"),  # no trigger: only the end punctuation goes
        ("recall, qdrant.", "qdrant"),
        ("  recall:\tqdrant  ", "qdrant"),
        ("回忆一下 博客。", "博客"),
    ],
)
def test_end_punctuation_and_spaces_go_with_the_trigger(said: str, rest: str) -> None:
    assert strip_trigger(said, ("recall", "回忆一下")) == rest


def _topic(slug: str, *match: str, status: str = "active") -> IndexEntry:
    return IndexEntry(slug, "projects", tuple(match), status)


@pytest.mark.parametrize(
    "rest",
    [
        "qdrant-move",
        "the qdrant move",  # words joined by '-', filler words dropped
        "our project about the qdrant move",
        "big qdrant move plan",  # the slug inside the joined words
    ],
)
def test_a_slug_is_found_in_the_words_joined(rest: str) -> None:
    entry = _topic("qdrant-move")
    assert find_topic(rest, [_topic("blog"), entry]) == (entry, "slug")


def test_a_one_word_slug_is_found_as_any_word() -> None:
    entry = _topic("nas01")
    assert find_topic("status of nas01 disks", [entry]) == (entry, "slug")


def test_the_slugs_words_in_any_order() -> None:
    entry = _topic("blog-personal")
    assert find_topic("my personal blog", [entry]) == (entry, "words")


def test_the_topic_with_most_match_hits_wins() -> None:
    site = _topic("site", "vercel")
    nas = _topic("storage", "nas01", "zfs")
    found = find_topic("vercel deploys backed up to nas01 zfs", [site, nas])
    assert found == (nas, "match")


@pytest.mark.parametrize(
    ("rest", "found"),
    [
        ("abcx", True),  # SequenceMatcher ratio 6/8 = 0.75: found
        ("abcxy", False),  # 6/9 < 0.75: none
        ("qdrnt", False),  # against "abcd": nothing alike
    ],
)
def test_the_closest_slug_counts_from_the_similarity_up(rest: str, found: bool) -> None:
    assert SIMILARITY == 0.75
    entry = _topic("abcd")
    assert find_topic(rest, [entry]) == ((entry, "similar") if found else (None, ""))


def test_a_deprecated_topic_is_found_only_when_nothing_else_is_indexed() -> None:
    old = _topic("qdrant", status="deprecated")
    live = _topic("qdrant-move")
    assert find_topic("qdrant", [old, live]) == (None, "")
    assert find_topic("qdrant", [old]) == (old, "slug")


def test_max_chars_below_the_minimum_is_input_error(ws: Workspace) -> None:
    with pytest.raises(InputError, match=f"--max-chars: at least {MIN_MAX_CHARS}"):
        recall(ws, "recall qdrant", max_chars=MIN_MAX_CHARS - 1)


def test_a_query_that_is_only_the_trigger_is_input_error(ws: Workspace) -> None:
    with pytest.raises(InputError, match="nothing to recall"):
        recall(ws, "Do you remember?")


def test_the_story_is_cut_within_the_budget_and_says_so(ws: Workspace) -> None:
    from memtier.commands.topics.index import index_add

    for day in range(1, 20):
        note(ws.root, f"2026-11-{day:02d}", f"- qdrant step {day} " + "x" * 40)
    index_add(ws, "qdrant", "projects")
    report = recall(ws, "recall qdrant", max_chars=MIN_MAX_CHARS)
    assert report.topic == "qdrant" and report.truncated is True
    assert report.chars <= MIN_MAX_CHARS
    assert list(report.text_lines())[-1].startswith(f"[cut at {MIN_MAX_CHARS} characters;")
    whole = recall(ws, "recall qdrant")
    assert whole.truncated is False
    assert whole.newer_days == tuple(f"2026-11-{day:02d}" for day in range(19, 0, -1))


def test_recall_starts_its_ripgrep_pass_without_subprocess(ws: Workspace) -> None:
    """recall is asked often: its topic's ripgrep pass is started by `memtier.spawn`,
    not `subprocess` (with `selectors` and `locale`, ~4 ms of every start)."""

    from memtier.commands.topics.index import index_add
    from memtier.commands.topics.notes import ripgrep

    if ripgrep() is None:
        pytest.skip("no rg binary")
    note(ws.root, "2026-11-20", "- moved qdrant to the nas")
    index_add(ws, "qdrant", "projects")
    loaded = exit_and_loaded(
        ["--root", str(ws.root), "recall", "qdrant", "--json"], ("subprocess", "memtier.spawn")
    )
    assert loaded == ["0", "memtier.spawn"], loaded
