"""Budgets and hints as plain functions (no SDK needed)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memtier.mcp.shaping import bound_lines, tool_hint


def test_text_within_budget_is_untouched() -> None:
    bounded = bound_lines(["a", "b"], 600)
    assert bounded.text == "a\nb" and not bounded.truncated


def test_cut_says_what_was_shown_and_how_to_get_the_rest() -> None:
    lines = [f"{n:>3}  line {n}" for n in range(1, 200)]
    bounded = bound_lines(lines, 600, lambda shown: f"memory_get(from_line={shown + 1})")
    assert bounded.truncated
    assert len(bounded.text) <= 600
    last = bounded.text.split("\n")[-1]
    assert last == (
        f"[cut at 600 characters: {bounded.shown_lines} of 199 lines shown; "
        f"the rest: memory_get(from_line={bounded.shown_lines + 1})]"
    )


def test_one_huge_line_is_shortened_not_dropped() -> None:
    bounded = bound_lines(["x" * 5000], 600)
    assert bounded.truncated and bounded.text.startswith("xxx") and len(bounded.text) <= 600


@settings(max_examples=60, derandomize=True)
@given(st.lists(st.text(max_size=300), max_size=60), st.integers(min_value=500, max_value=3000))
def test_never_over_budget(lines: list[str], budget: int) -> None:
    assert len(bound_lines(lines, budget, "memory_get(path='x')").text) <= budget


def test_hints_name_tools() -> None:
    assert tool_hint("run memtier session-start to recover") == "fix: call memory_session_start"
    assert tool_hint("found at MEMORY.md:7; use memtier replace") == "fix: call memory_replace"
    assert tool_hint("no such file") is None
