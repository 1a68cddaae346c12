"""Lessons a person can use (issue: promotion by number, --as, recurrence at once)."""

from __future__ import annotations

import pytest

from memtier.commands.facts.files import MatchError
from memtier.commands.learnings import learn, promote
from memtier.commands.recurrence import find_candidates
from memtier.errors import InputError, RefusedError
from memtier.workspace import Workspace

LESSONS = "memory/procedural/lessons-learned.md"


def test_learn_counts_punctuation_variants_as_one_and_flags_at_once(ws: Workspace) -> None:
    first = learn(ws, "error", "hit the rate limit !")
    assert first.flagged is None
    learn(ws, "error", "Hit the rate-limit")
    third = learn(ws, "error", "hit the rate limit.")
    assert third.occurrences == 3
    assert third.flagged == f".learnings/ERRORS.md:{first.line}"
    lines = (ws.root / ".learnings/ERRORS.md").read_text(encoding="utf-8").split("\n")
    assert lines[first.line - 1].endswith("[PROMOTE-CANDIDATE]")
    assert "memtier candidates" in "\n".join(third.text_lines())
    # once flagged, a fourth occurrence adds no second flag
    fourth = learn(ws, "error", "hit the rate limit")
    assert fourth.flagged is None
    assert sum(line.count("[PROMOTE-CANDIDATE]") for line in lines) == 1


def _two_candidates(ws: Workspace) -> None:
    errors = ws.root / ".learnings/ERRORS.md"
    errors.write_text(
        "# Errors\n\n- 2026-11-01 pip install failed: wrong index url [PROMOTE-CANDIDATE]\n"
        "- 2026-11-02 pip install timed out on the mirror [PROMOTE-CANDIDATE]\n",
        encoding="utf-8",
    )


def test_promote_by_number_as_candidates_lists_them(ws: Workspace) -> None:
    _two_candidates(ws)
    listed = find_candidates(ws)
    assert [c.number for c in listed.candidates] == [1, 2]
    assert list(listed.text_lines())[1].startswith("2. .learnings/ERRORS.md:4: ")
    result = promote(ws, "2", ws.root / LESSONS, yes=True)
    assert result.lesson == "pip install timed out on the mirror"
    assert result.source_line == 4
    with pytest.raises(InputError):
        promote(ws, "7", ws.root / LESSONS)


def test_promote_by_unique_prefix_and_refuses_an_ambiguous_one(ws: Workspace) -> None:
    _two_candidates(ws)
    with pytest.raises(MatchError) as err:
        promote(ws, "pip install", ws.root / LESSONS)
    assert ":3:" in err.value.message and ":4:" in err.value.message
    plan = promote(ws, "pip install failed", ws.root / LESSONS)
    assert plan.source_line == 3


def test_promote_as_writes_the_advice(ws: Workspace) -> None:
    _two_candidates(ws)
    result = promote(ws, "1", ws.root / LESSONS, yes=True, as_text="pin the pip index url")
    text = (ws.root / LESSONS).read_text(encoding="utf-8")
    assert "- pin the pip index url\n" in text and "wrong index url" not in text
    assert result.flag_removed
    assert len(find_candidates(ws).candidates) == 1


def test_promote_refuses_a_fact_that_already_has_another_home(ws: Workspace) -> None:
    from memtier.commands.facts.remember import remember

    _two_candidates(ws)
    remember(ws, "pin the pip index url", kind="hot")
    with pytest.raises(RefusedError) as err:
        promote(ws, "1", ws.root / LESSONS, yes=True, as_text="Pin the pip index URL!")
    assert "MEMORY.md" in err.value.message
