"""Pure text rules of facts (PROTOCOL §10): normalisation, Jaccard, insertion points."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memtier.formats.fact_text import (
    end_insert_index,
    fold_lines,
    fold_text,
    has_word_character,
    jaccard,
    merge_tags_line,
    normalise_fact,
    read_as_people_do,
    refresh_last_verified,
    section_insert_index,
    word_set,
)
from memtier.formats.lessons import normalise_lesson


def test_punctuation_folds_like_space() -> None:
    assert fold_text("Rate-limit!") == fold_text("rate limit !") == "rate limit"
    assert normalise_fact("- Qdrant: 10.0.0.7:6334") == "qdrant 10 0 0 7 6334"
    assert normalise_fact("* Ünïcode wörds_stay") == "ünïcode wörds stay"


def test_lessons_and_facts_share_the_fold() -> None:
    assert normalise_lesson("- 2026-11-30 Hit the rate-limit!") == fold_text("hit the rate limit")


@settings(max_examples=100, derandomize=True)
@given(st.text())
def test_fold_is_idempotent_and_never_crashes(text: str) -> None:
    once = fold_text(text)
    assert fold_text(once) == once
    assert normalise_fact(normalise_fact(text)) == normalise_fact(text)


@settings(max_examples=100, derandomize=True)
@given(st.text())
def test_fast_fold_equals_the_plain_rule(text: str) -> None:
    import re

    # The rule as PROTOCOL §10 states it, on the text as people read it; fold_text
    # takes a faster road to the same text.
    seen = read_as_people_do(text)
    assert fold_text(text) == " ".join(re.sub(r"[\W_]+", " ", seen).split())
    assert fold_lines(text) == [fold_text(line) for line in text.split("\n")]


@settings(max_examples=100, derandomize=True)
@given(st.frozensets(st.text(max_size=3)), st.frozensets(st.text(max_size=3)))
def test_jaccard_is_symmetric_and_bounded(a: frozenset[str], b: frozenset[str]) -> None:
    assert jaccard(a, b) == jaccard(b, a)
    assert 0.0 <= jaccard(a, b) <= 1.0
    if a and a == b:
        assert jaccard(a, b) == 1.0


def test_jaccard_threshold_example() -> None:
    a = word_set(fold_text("nightly backup runs at 02:00 on nas01 with restic to b2"))
    b = word_set(fold_text("the nightly backup runs at 02:00 on nas01 with restic to b2"))
    assert jaccard(a, b) >= 0.85


def test_section_and_end_insertion() -> None:
    lines = ["# T", "#tags: x", "> last_verified: 2026-01-01", "", "## A", "- a1", "", "## B",
             "- b1", "", ""]  # fmt: skip
    assert section_insert_index(lines, "a", 3) == 6
    assert section_insert_index(lines, "  B ", 3) == 9
    assert section_insert_index(lines, "C", 3) is None
    assert end_insert_index(lines, 3) == 9


def test_refresh_last_verified_returns_the_previous_date() -> None:
    lines = ["# T", "#tags: x", "last_verified: 2026-01-01"]
    assert refresh_last_verified(lines, "2026-02-02") == "2026-01-01"
    assert lines[2] == "last_verified: 2026-02-02"
    bare = ["# T", "#tags: x", "body"]
    assert refresh_last_verified(bare, "2026-02-02") is None
    assert bare[2] == "> last_verified: 2026-02-02"


def test_merge_tags_line() -> None:
    assert merge_tags_line("#tags: a, b", ["b", "c"]) == "#tags: a, b, c"
    assert merge_tags_line("#tags:", []) == "#tags:"


def test_facts_are_compared_as_people_read_them() -> None:
    """Issue 19: NFD, fullwidth, zero-width and bidi characters, look-alike letters."""
    import unicodedata

    plain = fold_text("nas01 runs Ubüntu on the backup shelf")
    assert fold_text(unicodedata.normalize("NFD", "nas01 runs Ubüntu on the backup shelf")) == plain
    assert fold_text("ｎａｓ０１ runs Ubüntu on the backup shelf") == plain
    assert fold_text("nas01 runs Ub\u200cü\u200bntu on the\u2060 backup shelf") == plain
    assert fold_text("nas01 runs \u202eUbüntu\u202c on the backup shelf") == plain
    assert fold_text("n\u0430s01 runs Ubüntu \u043en the b\u0430ckup shelf") == plain  # Cyrillic
    assert fold_text("nas01 runs Ubüntu \u03bfn the backup shelf") == plain  # Greek omicron
    assert fold_text("\u0397ost \u039cain") == "host main"  # Greek capitals Eta, Mu


def test_look_alike_folding_keeps_other_scripts_apart() -> None:
    # Two different Russian words stay different; ASCII text is only lowered.
    assert fold_text("Сервер работает") != fold_text("Сервер отключён")
    assert read_as_people_do("Rate-Limit!") == "rate-limit!"
    assert fold_text("ﬁle") == "file"


def test_a_fact_needs_a_letter_or_digit() -> None:
    for text in ("---", "\u200b", "***", "…", " \u200d\u2060 ", "- - -", "→ ←"):
        assert not has_word_character(text), text
    for text in ("x", "7", "ok?", "密", "нет", "①"):
        assert has_word_character(text), text
