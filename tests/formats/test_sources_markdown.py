"""memtier.formats.sources_markdown: Claude Code, OpenClaw and markdown-folder sources
(PROTOCOL §12)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memtier.formats.sources_markdown import daily_note, is_day_name, memory_bullets, parse_claude


def test_memory_bullets_carry_heading_and_continuations() -> None:
    items = memory_bullets("M", "# Top\n## Infra\n- a\n  b\n```\n- code\n```\nprose\n")
    assert [(i.facts, i.hint) for i in items] == [
        (("a\nb",), "Infra"),  # folded by the writer, after redaction
        (("Infra", "", "```", "- code", "```"), "Infra"),
        (("prose",), "Infra"),
    ]


def test_daily_note_drops_its_own_date_heading() -> None:
    item = daily_note("memory/2026-11-20.md", "# 2026-11-20\n\n- a\n")
    assert not isinstance(item, type(None))
    assert getattr(item, "facts", None) == ("- a",)
    bad = daily_note("memory/2026-02-30.md", "x")
    assert getattr(bad, "why", "").startswith("file name is not a date")


def test_claude_index_link_to_a_missing_file_is_invalid() -> None:
    parsed = parse_claude("- [A](a.md) — x\n- [B](b.md) — y\n", [("a.md", "Fact about A.\n")])
    assert [i.ref for i in parsed.invalid] == ["MEMORY.md:2"]
    assert parsed.items[0].facts == ("a: Fact about A.",)


texts = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=80)


@settings(max_examples=30, derandomize=True)
@given(texts)
def test_no_input_crashes_the_bullet_reader(text: str) -> None:
    memory_bullets("M", text)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("2026-11-20.md", True),
        ("notes.md", False),
        ("2026-11-20-extra.md", True),
        ("2026-11-20.txt", False),
    ],
)
def test_is_day_name(name: str, expected: bool) -> None:
    assert is_day_name(name) is expected


def test_claude_index_line_without_a_link_is_an_item_of_its_own() -> None:
    parsed = parse_claude("- the NAS runs on UPS power\n", [])
    assert [i.facts for i in parsed.items] == [("the NAS runs on UPS power",)]
    assert parsed.invalid == []


def test_claude_index_link_outside_the_folder_is_reported_as_outside() -> None:
    parsed = parse_claude("- [A](../a.md) — x\n", [])
    assert [(i.ref, i.label) for i in parsed.invalid] == [("MEMORY.md:1", "outside")]
