"""Topic entries merge as a union (PROTOCOL §13, §14 v4)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memtier.formats.index import IndexEntry, parse_index, render_index
from memtier.formats.index_merge import merge_index


def index(*entries: IndexEntry) -> str:
    return render_index(list(entries))


ALPHA = IndexEntry("alpha", "projects", ("alpha",))
BETA = IndexEntry("beta", "projects", ("beta",))
GAMMA = IndexEntry("gamma", "decisions", ("gamma",))


def test_an_entry_added_on_either_side_is_kept_and_none_is_removed() -> None:
    """The finding: an entry added on another host since the last sync vanished."""
    merged = merge_index(index(ALPHA), index(ALPHA, GAMMA), index(ALPHA, BETA))
    assert [e.slug for e in parse_index(merged.text).entries] == ["alpha", "beta", "gamma"]
    assert merged.conflicts == ()
    # An entry one side dropped by hand comes back: entries are never removed.
    kept = merge_index(index(ALPHA, BETA), index(ALPHA), index(ALPHA, BETA)).text
    assert parse_index(kept).find("beta") == BETA


def test_a_field_changed_on_one_side_takes_that_side() -> None:
    ours = IndexEntry("alpha", "projects", ("alpha", "blog"))
    theirs = IndexEntry("alpha", "projects", ("alpha",), status="paused")
    merged = merge_index(index(ALPHA), index(ours), index(theirs))
    assert parse_index(merged.text).find("alpha") == IndexEntry(
        "alpha", "projects", ("alpha", "blog"), status="paused"
    )
    assert merged.conflicts == ()


def test_a_field_changed_differently_on_both_keeps_ours_and_records_theirs() -> None:
    ours = IndexEntry("alpha", "projects", ("alpha",), status="completed")
    theirs = IndexEntry("alpha", "projects", ("alpha",), status="paused")
    merged = merge_index(index(ALPHA), index(ours), index(theirs))
    assert parse_index(merged.text).find("alpha") == ours
    (conflict,) = merged.conflicts
    assert conflict.ours == ("alpha Status: completed",)
    assert conflict.theirs == ("alpha Status: paused",)
    assert conflict.base == ("alpha Status: active",)


def test_an_index_that_does_not_parse_keeps_ours_whole() -> None:
    broken = "# Memory Index\n\nnot an entry\n"
    merged = merge_index(index(ALPHA), index(ALPHA, BETA), broken)
    assert merged.text == index(ALPHA, BETA)
    assert merged.conflicts[0].theirs == tuple(broken.splitlines())


SLUGS = st.lists(st.sampled_from([ALPHA, BETA, GAMMA]), unique=True)


@given(SLUGS, SLUGS, SLUGS)
def test_every_entry_of_either_side_stays(
    b: list[IndexEntry], o: list[IndexEntry], t: list[IndexEntry]
) -> None:
    merged = parse_index(merge_index(index(*b), index(*o), index(*t)).text)
    assert not merged.problems
    assert {e.slug for e in merged.entries} == {e.slug for e in (*o, *t)}
