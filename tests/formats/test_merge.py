"""The pure merges of PROTOCOL §14: notes by block id, facts by identity, lines as sets."""

from __future__ import annotations

from memtier.formats.fact_merge import merge_facts
from memtier.formats.merge import merge_lines, merge_note, three_way

CLOSE = "Updated: {d}\nDecisions: {dec}\nSignal: none\nOpen: {open}\n"


def note(*blocks: str, d: str = "2026-12-01", dec: str = "none", open: str = "none") -> str:
    return "# 2026-12-01\n\n" + "".join(blocks) + CLOSE.format(d=d, dec=dec, open=open)


def block(time: str, rid: str, *lines: str) -> str:
    return f"### {time} working buffer ({rid})\n" + "".join(f"- {x}\n" for x in lines)


A = block("09:00", "r-aaaaaaaa", "first")
B = block("10:00", "r-bbbbbbbb", "from b")
C = block("11:00", "r-cccccccc", "from c")


def test_blocks_of_both_sides_are_a_union_in_time_order_each_once() -> None:
    base = note(A)
    ours = note(A, C, open="task c")
    theirs = note(A, B, open="task b")
    merged = merge_note(base, ours, theirs).text
    assert merged == note(A, B, C, open="task c; task b")
    # The same merge seen from the other side gives the same blocks in the same order.
    assert merge_note(base, theirs, ours).text == note(A, B, C, open="task b; task c")


def test_an_open_item_closed_on_one_side_stays_closed() -> None:
    base = note(A, open="migrate; backup")
    ours = note(A, open="backup")  # closed `migrate`
    theirs = note(A, B, open="migrate; backup; review")
    merged = merge_note(base, ours, theirs).text
    assert merged.endswith("Open: backup; review\n")
    assert merged.count("Updated:") == 1


def test_updated_takes_the_later_date_and_lines_added_in_a_block_stay() -> None:
    base = note(A, d="2026-12-01")
    ours = note(block("09:00", "r-aaaaaaaa", "first", "ours added"), d="2026-12-02")
    theirs = note(block("09:00", "r-aaaaaaaa", "first", "theirs added"), d="2026-12-01")
    merged = merge_note(base, ours, theirs).text
    assert "- ours added\n- theirs added\n" in merged
    assert "Updated: 2026-12-02\n" in merged


def test_two_hosts_creating_the_same_note_keep_one_title_and_one_closure() -> None:
    merged = merge_note("", note(B, dec="x"), note(C, dec="y")).text
    assert merged == note(B, C, dec="x; y")


def test_a_sync_conflict_block_is_a_block_with_an_id() -> None:
    conflict = "### 12:00 sync conflict (s-12345678)\n- f changed on two hosts\n"
    merged = merge_note(note(A), note(A, conflict), note(A, B)).text
    assert merged.count("(s-12345678)") == 1
    assert merged.index("r-bbbbbbbb") < merged.index("s-12345678")


def test_fact_lines_replaced_differently_keep_ours_and_report_both() -> None:
    base = "# Infra\n#tags: docker\n> last_verified: 2026-11-01\n- nas is 10.0.0.4\n"
    ours = "# Infra\n#tags: docker\n> last_verified: 2026-11-20\n- nas is 10.0.0.5\n"
    theirs = "# Infra\n#tags: docker\n> last_verified: 2026-11-25\n- nas is 10.0.0.7\n"
    merged = merge_facts(base, ours, theirs)
    assert merged.text == "# Infra\n#tags: docker\n> last_verified: 2026-11-25\n- nas is 10.0.0.5\n"
    (conflict,) = merged.conflicts
    assert conflict.ours == ("- nas is 10.0.0.5",)
    assert conflict.theirs == ("- nas is 10.0.0.7",)
    assert conflict.base == ("- nas is 10.0.0.4",)
    assert conflict.line == 4
    assert "<<<<<<<" not in merged.text


def test_facts_only_added_on_both_sides_keep_both() -> None:
    base = "# Infra\n#tags: docker\n> last_verified: 2026-11-01\n- one\n"
    merged = merge_facts(base, base + "- two\n", base + "- three\n")
    assert merged.text == base + "- two\n- three\n"
    assert merged.conflicts == ()


def test_a_change_on_one_side_only_is_taken() -> None:
    base = ["a", "b", "c"]
    assert three_way(base, ["a", "B", "c"], ["a", "b", "c", "d"]) == (["a", "B", "c", "d"], [])


def test_lines_merge_as_sets_with_removals_kept() -> None:
    base = "- 2026-12-01 one\n- 2026-12-01 two\n"
    ours = "- 2026-12-01 one\n- 2026-12-01 two\n- 2026-12-01 ours\n"
    theirs = "- 2026-12-01 two\n- 2026-12-01 theirs\n- 2026-12-01 ours\n"  # removed `one`
    assert merge_lines(base, ours, theirs).text == (
        "- 2026-12-01 two\n- 2026-12-01 ours\n- 2026-12-01 theirs\n"
    )
