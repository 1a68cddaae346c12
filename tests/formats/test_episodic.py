"""Episodic notes and the closure block (PROTOCOL §2): pure functions."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memtier.formats.episodic import (
    ClosureBlock,
    closure_problem,
    has_rotation_id,
    insert_before_closure,
    legacy_body_found,
    merge_closure,
    merge_into_note,
    new_note,
    replace_closure,
    rotation_heading,
    rotation_id,
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
        # PROTOCOL §2 (v2, compat): `Updated:` is exactly a date.
        (BLOCK.replace("Updated: 2026-11-30", "Updated: x"), False),
        (BLOCK.replace("Updated: 2026-11-30", "Updated: 2026-11-30 late"), False),
        (BLOCK.replace("Updated: 2026-11-30", "Updated: 2026-02-30"), False),
        (BLOCK.replace("Updated: 2026-11-30", "Updated: 2026-11-30T10:00"), False),
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
    # PROTOCOL §2 (v4): a blank line before what is inserted and before the block.
    assert insert_before_closure(note, "- new") == "# day\n\n- new\n\n" + odd
    assert insert_before_closure("text", "- new\n") == "text\n\n- new\n"
    assert insert_before_closure("", "- new") == "- new\n"
    # A blank line already there is kept, never doubled.
    assert insert_before_closure("- a\n\n" + odd, "- b") == "- a\n\n- b\n\n" + odd


def test_joined_keeps_paragraphs_and_list_items_apart() -> None:
    """PROTOCOL §2 (v4): two parts never read as one paragraph or one list item."""
    from memtier.formats.episodic import joined

    assert joined("text\n", "more\n") == "text\n\nmore\n"
    assert joined("- item\n", "more\n") == "- item\n\nmore\n"
    assert joined("- item\n", "- next\n") == "- item\n- next\n"  # one tight list
    assert joined("- item\n", "  - sub\n") == "- item\n\n  - sub\n"
    assert joined("text\n\n", "more\n") == "text\n\nmore\n"
    assert joined("", "more\n") == "more\n"
    assert joined("text", "") == "text\n"


def test_replace_closure() -> None:
    block = ClosureBlock("2026-12-01", "d", "s", "o")
    assert replace_closure("# day\n" + BLOCK, block) == "# day\n\n" + block.render()
    assert replace_closure("# day\n\n" + BLOCK, block) == "# day\n\n" + block.render()
    assert replace_closure("# day", block) == "# day\n\n" + block.render()
    assert block.lines() == ["Updated: 2026-12-01", "Decisions: d", "Signal: s", "Open: o"]


def test_merge_keeps_every_old_item_and_lets_none_give_way() -> None:
    old = ClosureBlock("2026-11-29", "moved qdrant", "apt is slow", "renew DNS token before Friday")
    new = ClosureBlock(
        "2026-11-30", "working buffer rotated", "none", "fix cron; renew DNS token before Friday"
    )
    merged = merge_closure(old, new)
    # PROTOCOL §2 (v4): the rotation's placeholder gives way to a real decision.
    assert merged == ClosureBlock(
        "2026-11-30",
        "moved qdrant",
        "apt is slow",
        "renew DNS token before Friday; fix cron",
    )
    # Merging the same block again repeats nothing.
    assert merge_closure(merged, new) == merged
    blank = ClosureBlock("2026-11-30", "none", "none", "none")
    assert merge_closure(blank, blank) == blank
    assert merge_closure(blank, new).decisions == "working buffer rotated"
    assert merge_closure(None, new) == new


def test_merge_into_note_and_new_note() -> None:
    from datetime import date

    day = date(2026, 11, 30)
    note = new_note(day, "- event")
    assert (
        note
        == "# 2026-11-30\n\n- event\n\n"
        + "Updated: 2026-11-30\nDecisions: none\nSignal: none\nOpen: none\n"
    )
    assert closure_problem(note) is None
    merged = merge_into_note(note, ClosureBlock("2026-11-30", "d", "none", "t1"))
    assert merged.endswith("Decisions: d\nSignal: none\nOpen: t1\n")
    assert merged.startswith("# 2026-11-30\n\n- event\n")


def test_rotation_id_covers_the_header() -> None:
    from datetime import datetime

    one = "# Working Buffer\ncreated: a\nlast_active: b\n\n## Active Task:\n- x\n"
    two = one.replace("last_active: b", "last_active: c")
    assert rotation_id(one) == rotation_id(one)
    assert rotation_id(one) != rotation_id(two)
    rid = rotation_id(one)
    assert rid.startswith("r-") and len(rid) == 10
    heading = rotation_heading(datetime(2026, 11, 30, 14, 5), rid)
    assert heading == f"### 14:05 working buffer ({rid})\n"
    assert has_rotation_id("# day\n" + heading + "- x\n", rid)
    assert has_rotation_id(f"[RECOVERED: STALE] 2026-11-30T10:00:00+00:00 ({rid})\n", rid)
    # An id in running text is not a block's heading.
    assert not has_rotation_id(f"- see ({rid})\n", rid)
    assert not has_rotation_id("# day\n" + heading, rotation_id(two))


def test_legacy_body_found_only_outside_id_blocks() -> None:
    body = "## Active Task:\n- check backups\n"
    assert legacy_body_found("# day\n" + body + BLOCK, body)
    assert legacy_body_found(body, body)
    assert not legacy_body_found("# day\n### 09:00 working buffer (r-0123abcd)\n" + body, body)
    assert not legacy_body_found("# day\n- check backups\n", body)
    assert not legacy_body_found("# day\n", "\n")


_line = st.text(st.characters(blacklist_characters="\n"), max_size=30)
_lines = st.lists(_line, max_size=8)
_field = _line.filter(lambda s: s.strip() != "").map(str.strip)
_dates = st.dates().map(lambda d: d.isoformat()).filter(lambda d: len(d) == 10)
_blocks = st.builds(ClosureBlock, _dates, _field, _field, _field)


def _text(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


@given(_lines, _blocks, _lines)
def test_insert_keeps_block_last_and_loses_nothing(
    before: list[str], block: ClosureBlock, addition: list[str]
) -> None:
    note = _text(before) + block.render()
    result = insert_before_closure(note, _text(addition))
    head, found = split_closure(result)
    assert found == block
    assert result.endswith(block.render())
    # Only blank lines are added (PROTOCOL §2 v4), none before a blank-free head.
    assert [line for line in head.split("\n") if line] == [
        line for line in _text(before + addition).split("\n") if line
    ]
    if head.strip():  # a blank line (spaces at most) right above the block
        assert head.endswith("\n") and head.split("\n")[-2].strip() == ""


@given(_lines, _blocks, _blocks)
def test_replace_round_trip(before: list[str], old: ClosureBlock, new: ClosureBlock) -> None:
    note = _text(before) + old.render()
    head, block = split_closure(replace_closure(note, new))
    assert block == new
    assert head.rstrip("\n") == _text(before).rstrip("\n")
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

    inserted = ("# day\n\n- x\n\n" + BLOCK, "inserted")
    assert place_before_closure("# day\n" + BLOCK, "- x") == inserted
    assert place_before_closure("# day", "- x") == ("# day\n\n- x\n", "appended")
    trailing = "# day\n" + BLOCK + "late line\n"
    rebuilt = ("# day\n\nlate line\n\n- x\n\n" + BLOCK, "rebuilt")
    assert place_before_closure(trailing, "- x\n") == rebuilt
    assert place_before_closure(BLOCK + "\n", "- x\n") == ("\n- x\n\n" + BLOCK, "rebuilt")


@given(_lines, _blocks, _lines, _lines)
def test_place_before_closure_keeps_every_line(
    before: list[str], block: ClosureBlock, after: list[str], addition: list[str]
) -> None:
    from memtier.formats.episodic import place_before_closure

    note = _text(before) + block.render() + _text(after)
    result, _how = place_before_closure(note, _text(addition))
    assert closure_problem(result) is None

    # Every line kept, none repeated; only blank lines added (PROTOCOL §2 v4).
    def written(text: str) -> list[str]:
        return sorted(line for line in text.split("\n") if line)

    assert written(result) == written(note + _text(addition))


# -- PROTOCOL v3: one end-of-day order, merged; a displaced block repaired -------


def test_an_item_that_adds_detail_takes_the_place_of_the_shorter_one() -> None:
    """Issue 21: "watch tonight's backup; watch tonight's backup (sftp timeout)"."""
    from memtier.formats.episodic import ClosureBlock, merge_closure

    rotated = ClosureBlock("2026-11-30", "working buffer rotated", "none", "watch tonight's backup")
    closed = ClosureBlock(
        "2026-11-30", "moved qdrant", "s", "watch tonight's backup (sftp timeout)"
    )
    assert merge_closure(rotated, closed).open == "watch tonight's backup (sftp timeout)"
    # The other order (close, then a rotation moving the short task): still one item.
    assert merge_closure(closed, rotated).open == "watch tonight's backup (sftp timeout)"
    # A different item that merely starts alike is kept.
    other = ClosureBlock("2026-11-30", "d", "s", "watch tonight's backups")
    assert merge_closure(rotated, other).open == "watch tonight's backup; watch tonight's backups"


def test_close_note_repairs_a_displaced_block_and_replace_writes_as_given() -> None:
    from memtier.formats.episodic import ClosureBlock, close_note

    note = "# d\n- work\nUpdated: 2026-11-29\nDecisions: a\nSignal: b\nOpen: upgrade grafana\n"
    ps = note + "\nPS: by hand\n"
    block = ClosureBlock("2026-11-30", "c", "none", "none")
    text, how = close_note(ps, block)
    assert how == "rebuilt"
    assert text == (
        "# d\n- work\n\nPS: by hand\n\nUpdated: 2026-11-30\nDecisions: a; c\nSignal: b\n"
        "Open: upgrade grafana\n"
    )
    replaced, how = close_note(ps, block, replace=True)
    assert how == "rebuilt" and replaced.endswith("PS: by hand\n\n" + block.render())
    assert close_note("# d\n", block) == ("# d\n\n" + block.render(), "appended")


def test_nested_body_moves_headings_below_the_block_heading() -> None:
    from memtier.formats.episodic import nested_body

    body = "## Active Task:\n- a\n\n## Notes\n```sh\n# not a heading\n```\n### deeper\n"
    assert nested_body(body, 3) == (
        "#### Active Task:\n- a\n\n#### Notes\n```sh\n# not a heading\n```\n##### deeper\n"
    )
    assert nested_body("#### already deep\n", 3) == "#### already deep\n"
    assert nested_body("- no headings\n", 3) == "- no headings\n"


@given(st.lists(st.text(st.sampled_from("- a\n")), max_size=8))
def test_joined_all_is_joined_part_by_part(parts: list[str]) -> None:
    from memtier.formats.episodic import joined, joined_all

    expected = ""
    for part in parts:
        expected = joined(expected, part)
    assert joined_all(parts) == expected
