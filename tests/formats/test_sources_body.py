"""memtier.formats.sources_body: the body of an imported memory as its writer meant it
(PROTOCOL §12 v3)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memtier.formats.sources_body import bullet_text, is_noise, split_body


def test_a_flat_list_is_one_fact_per_bullet_children_kept_with_their_parent() -> None:
    body = split_body("T", "- NAS\n  - UPS\n  - 2 disks\n- router\n  wraps here\n")
    assert body.facts == ("NAS — UPS; 2 disks", "router\nwraps here")
    assert not body.block


def test_one_paragraph_is_one_fact_led_by_its_title() -> None:
    assert split_body("Docker", "runs on\nhost b").facts == ("Docker: runs on\nhost b",)
    assert split_body("Docker", "docker runs").facts == ("docker runs",)


def test_structure_is_kept_as_a_block_line_for_line() -> None:
    body = split_body("T", "intro\n\n```\n# not a heading\n```\n")
    assert body.block
    assert body.facts == ("T", "", "intro", "", "```", "# not a heading", "```")


def test_rules_and_last_updated_lines_are_not_facts() -> None:
    assert is_noise("---") and is_noise(" * * * ") and is_noise("_Last updated: 2026-01-01_")
    assert not is_noise("updates go out weekly")
    assert split_body("T", "---\n- a\n_Last updated: today_\n").facts == ("a",)
    assert split_body("T", "---\n").facts == ("T",)
    assert split_body("", "").facts == ()


@pytest.mark.parametrize(
    ("line", "text"),
    [("- a", "a"), ("* a", "a"), ("12. a", "a"), ("3) a", "a"), ("  - a", None), ("-a", None)],
)
def test_bullet_text(line: str, text: str | None) -> None:
    assert bullet_text(line) == text


bullet = st.text(st.sampled_from("abc xyz"), min_size=1, max_size=12).map(str.strip).filter(bool)


@settings(max_examples=50)
@given(st.lists(bullet, min_size=1, max_size=6))
def test_a_written_list_reads_back_as_its_items(items: list[str]) -> None:
    body = "\n".join(f"- {item}" for item in items) + "\n"
    assert split_body("T", body).facts == tuple(items)
