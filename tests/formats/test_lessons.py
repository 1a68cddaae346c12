"""memtier.formats.lessons: lesson lines of the SCRATCH files (PROTOCOL §2, §10)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memtier.formats.lessons import (
    CANDIDATE_FLAG,
    PIN_FLAG,
    is_candidate_line,
    is_lesson_line,
    lesson_text,
    normalise_lesson,
    remove_candidate_flag,
)


@pytest.mark.parametrize(
    "line",
    [
        "- rate limit !",
        "- 2026-11-30 Rate-limit",
        "- 2026-11-30T10:00:00+01:00 rate limit [PROMOTE-CANDIDATE]",
        "- 2026-11-30 10:00 rate   limit #pinned [promote-candidate]",
        "rate limit",
    ],
)
def test_one_lesson_however_it_is_dated_flagged_or_punctuated(line: str) -> None:
    assert normalise_lesson(line) == normalise_lesson("- rate-limit")


def test_different_lessons_stay_different() -> None:
    assert normalise_lesson("- use the rate limit") != normalise_lesson("- rate limit")
    # A date in the middle is part of the lesson, only a leading one goes.
    assert normalise_lesson("- moved on 2026-11-30") != normalise_lesson("- moved on")


def test_lesson_text_keeps_the_writers_words() -> None:
    line = "- 2026-11-30 Restart the NAS first! [PROMOTE-CANDIDATE] #pinned"
    assert lesson_text(line) == "Restart the NAS first!"


@pytest.mark.parametrize(
    ("line", "candidate"),
    [
        ("- x [PROMOTE-CANDIDATE]", True),
        ("- x [PROMOTE-CANDIDATE] #pinned  ", True),
        ("- x #pinned [PROMOTE-CANDIDATE]", True),
        ("- [PROMOTE-CANDIDATE] x", False),
        ("- x", False),
    ],
)
def test_is_candidate_line(line: str, candidate: bool) -> None:
    assert is_candidate_line(line) is candidate


def test_remove_candidate_flag_keeps_a_pin() -> None:
    assert remove_candidate_flag("- x [PROMOTE-CANDIDATE] #pinned") == "- x #pinned"
    assert remove_candidate_flag("- x [PROMOTE-CANDIDATE]  ") == "- x"
    assert remove_candidate_flag("- x") == "- x"


def test_is_lesson_line() -> None:
    assert is_lesson_line("- x")
    assert not is_lesson_line("## Lessons")
    assert not is_lesson_line("-x")


words = st.text(st.sampled_from("abc XYZ-!,."), min_size=1, max_size=30).filter(str.strip)


@settings(max_examples=50)
@given(text=words, pinned=st.booleans())
def test_flagging_then_unflagging_is_the_same_lesson(text: str, pinned: bool) -> None:
    line = f"- {text}" + (f" {PIN_FLAG}" if pinned else "")
    flagged = f"- {text} {CANDIDATE_FLAG}" + (f" {PIN_FLAG}" if pinned else "")
    assert is_candidate_line(flagged)
    unflagged = remove_candidate_flag(flagged)
    assert not is_candidate_line(unflagged)
    assert normalise_lesson(unflagged) == normalise_lesson(line) == normalise_lesson(flagged)
