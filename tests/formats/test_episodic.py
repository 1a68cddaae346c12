"""Episodic notes and the closure block (PROTOCOL §2): pure functions."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memtier.formats.episodic import (
    ClosureBlock,
    closure_problem,
    contains_lines,
    insert_before_closure,
    replace_closure,
    split_closure,
)

BLOCK = "Updated: 2026-11-30\nDecisions: moved qdrant\nSignal: apt is slow\nOpen: none\n"


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        (BLOCK, True),
        ("# day\n\n" + BLOCK, True),
        (BLOCK.rstrip("\n"), True),  # no final newline: still the last four lines
        (BLOCK + "\n", False),  # a blank line after the block
        (BLOCK + "more\n", False),
        (BLOCK.replace("Open: none", "Open:"), False),
        (BLOCK.replace("Signal: apt is slow", "Signal:   "), False),
        (BLOCK.replace("Updated: 2026-11-30", "Updated:"), False),
        (BLOCK.replace("Decisions:", "Decision:"), False),
        ("Decisions: a\nSignal: b\nOpen: c\n", False),
        ("", False),
        (" Updated: x\nDecisions: a\nSignal: b\nOpen: c\n", False),
    ],
)
def test_closure_problem(text: str, valid: bool) -> None:
    assert (closure_problem(text) is None) is valid


def test_split_closure() -> None:
    head, block = split_closure("# day\n- event\n" + BLOCK)
    assert head == "# day\n- event\n"
    assert block == ClosureBlock("2026-11-30", "moved qdrant", "apt is slow", "none")
    assert split_closure("no block\n") == ("no block\n", None)


def test_insert_before_closure_keeps_block_verbatim_and_last() -> None:
    odd = "Updated:2026-11-30\nDecisions:  a \nSignal: b\nOpen: c\n"
    note = "# day\n" + odd
    assert insert_before_closure(note, "- new") == "# day\n- new\n" + odd
    assert insert_before_closure("text", "- new\n") == "text\n- new\n"
    assert insert_before_closure("", "- new") == "- new\n"


def test_replace_closure() -> None:
    block = ClosureBlock("2026-12-01", "d", "s", "o")
    assert replace_closure("# day\n" + BLOCK, block) == "# day\n" + block.render()
    assert replace_closure("# day", block) == "# day\n" + block.render()
    assert block.lines() == ["Updated: 2026-12-01", "Decisions: d", "Signal: s", "Open: o"]


def test_contains_lines_is_line_aligned() -> None:
    note = "# day\n- alpha beta\n- gamma\n"
    assert contains_lines(note, "- alpha beta\n- gamma\n")
    assert contains_lines(note, "- gamma")
    assert not contains_lines(note, "beta\n- gamma\n")
    assert not contains_lines(note, "- alpha\n")


_line = st.text(st.characters(blacklist_characters="\n"), max_size=30)
_lines = st.lists(_line, max_size=8)
_field = _line.filter(lambda s: s.strip() != "").map(str.strip)
_blocks = st.builds(ClosureBlock, _field, _field, _field, _field)


def _text(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


@given(_lines, _blocks, _lines)
def test_insert_keeps_block_last_and_loses_nothing(
    before: list[str], block: ClosureBlock, addition: list[str]
) -> None:
    note = _text(before) + block.render()
    result = insert_before_closure(note, _text(addition))
    assert result == _text(before) + _text(addition) + block.render()
    head, found = split_closure(result)
    assert found == block
    assert head == _text(before + addition)


@given(_lines, _blocks, _blocks)
def test_replace_round_trip(before: list[str], old: ClosureBlock, new: ClosureBlock) -> None:
    note = _text(before) + old.render()
    assert split_closure(replace_closure(note, new)) == (_text(before), new)
    assert split_closure(replace_closure(_text(before) + "x\n", new))[1] == new


@given(st.text(), st.text())
def test_insert_never_crashes_and_keeps_every_line(note: str, addition: str) -> None:
    result = insert_before_closure(note, addition)
    for line in note.split("\n") + addition.split("\n"):
        assert line in result
    if closure_problem(note) is None:
        assert closure_problem(result) is None
        assert split_closure(result)[1] == split_closure(note)[1]


def test_place_before_closure_three_paths() -> None:
    from memtier.formats.episodic import place_before_closure

    assert place_before_closure("# day\n" + BLOCK, "- x") == ("# day\n- x\n" + BLOCK, "inserted")
    assert place_before_closure("# day", "- x") == ("# day\n- x\n", "appended")
    trailing = "# day\n" + BLOCK + "late line\n"
    assert place_before_closure(trailing, "- x\n") == ("# day\nlate line\n- x\n" + BLOCK, "rebuilt")
    assert place_before_closure(BLOCK + "\n", "- x\n") == ("\n- x\n" + BLOCK, "rebuilt")


@given(_lines, _blocks, _lines, _lines)
def test_place_before_closure_keeps_every_line(
    before: list[str], block: ClosureBlock, after: list[str], addition: list[str]
) -> None:
    from memtier.formats.episodic import place_before_closure

    note = _text(before) + block.render() + _text(after)
    result, _how = place_before_closure(note, _text(addition))
    assert closure_problem(result) is None
    assert sorted(result.split("\n")) == sorted((note + _text(addition)).split("\n"))
