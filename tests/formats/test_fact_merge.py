"""Facts merge by identity (PROTOCOL §14 v4): sets of facts per file, ours' order."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memtier.formats.fact_merge import Retirements, logged_files, merge_facts, retirements
from memtier.formats.fact_text import fact_lines, normalise_fact

HEAD = "# Infra\n#tags: docker\n> last_verified: {d}\n"


def warm(*body: str, d: str = "2026-11-01") -> str:
    return HEAD.format(d=d) + "".join(line + "\n" for line in body)


def facts(text: str) -> list[str]:
    lines = text.split("\n")
    return [normalise_fact(line) for _n, line in fact_lines(lines, 3) if normalise_fact(line)]


def test_a_moved_fact_does_not_drop_an_addition_or_revive_a_replaced_one() -> None:
    """The finding: base a,b,c; ours a,b,d (c replaced); theirs c,a,b,e (c moved, e added)
    gave c,a,b,d with e only in a conflict block."""
    merged = merge_facts(
        warm("- a", "- b", "- c"), warm("- a", "- b", "- d"), warm("- c", "- a", "- b", "- e")
    )
    assert merged.text == warm("- a", "- b", "- d", "- e")
    assert merged.conflicts == ()


def test_the_same_fact_added_under_two_sections_stands_once_where_ours_has_it() -> None:
    base = warm("", "## Hosts", "- nas01 is 10.0.0.4")
    ours = warm("", "## Hosts", "- nas01 is 10.0.0.4", "- the router is a mikrotik")
    theirs = warm(
        "", "## Hosts", "- nas01 is 10.0.0.4", "", "## Network", "- The router is a MikroTik!"
    )
    merged = merge_facts(base, ours, theirs)
    assert merged.text == ours
    assert merged.conflicts == ()


def test_lines_only_added_or_reordered_are_no_conflict() -> None:
    base = warm("- one", "- two")
    merged = merge_facts(base, warm("- two", "- one", "- three"), warm("- one", "- two", "- four"))
    assert merged.text == warm("- two", "- one", "- three", "- four")
    assert merged.conflicts == ()


def test_an_addition_of_theirs_goes_into_its_section_which_is_made_when_missing() -> None:
    base = warm("", "## Hosts", "- nas01 is 10.0.0.4", "", "## Services", "- dns on nas01")
    ours = warm("", "## Hosts", "- nas01 is 10.0.0.4", "", "## Services", "- dns on nas01")
    theirs = warm(
        "", "## Hosts", "- nas01 is 10.0.0.4", "- nas02 is 10.0.0.5", "",
        "## Services", "- dns on nas01", "", "## Backups", "- restic every night",
    )  # fmt: skip
    merged = merge_facts(base, ours, theirs)
    assert merged.text == warm(
        "", "## Hosts", "- nas01 is 10.0.0.4", "- nas02 is 10.0.0.5", "",
        "## Services", "- dns on nas01", "", "## Backups", "- restic every night",
    )  # fmt: skip


def test_one_fact_changed_differently_is_one_conflict_of_one_line_each() -> None:
    base = warm("- nas is 10.0.0.4", "- dns on nas")
    ours = warm("- nas is 10.0.0.5", "- dns on nas", "- mail on nas")
    theirs = warm("- nas is 10.0.0.7", "- dns on nas")
    merged = merge_facts(base, ours, theirs, header_lines=3)
    assert merged.text == ours
    (conflict,) = merged.conflicts
    assert (conflict.ours, conflict.theirs, conflict.base) == (
        ("- nas is 10.0.0.5",),
        ("- nas is 10.0.0.7",),
        ("- nas is 10.0.0.4",),
    )
    assert conflict.line == 4


def test_a_fact_retired_on_one_side_and_added_again_on_the_other_stays_retired() -> None:
    log = ["- 2026-12-01 memory/semantic/infrastructure.md:5 retired: nas is 10.0.0.4 — gone"]
    gone = retirements(log, "memory/semantic/infrastructure.md")
    assert gone == Retirements(retired=frozenset({"nas is 10 0 0 4"}))
    base, ours, theirs = warm("- dns"), warm("- dns"), warm("- dns", "- nas is 10.0.0.4")
    assert merge_facts(base, ours, theirs, ours_gone=gone).text == warm("- dns")
    # The same log line on both sides is old news: a fact added again since stays.
    assert merge_facts(base, ours, theirs).text == theirs


def test_a_retirement_log_line_names_its_file_and_an_old_text_with_a_dash() -> None:
    log = [
        "- 2026-12-01 MEMORY.md:7 replaced: a — b — the reason",
        "- 2026-12-01 other.md:7 retired: c — why",
        "not a log line",
    ]
    assert retirements(log, "MEMORY.md") == Retirements(replaced=frozenset({"a", "a b"}))


def test_header_dates_take_the_later_and_memory_md_has_four_header_lines() -> None:
    hot = "# Agent Memory\n#tags: memory\nlast_verified: {v}\nlast_updated: {u}\n- a fact\n"
    merged = merge_facts(
        hot.format(v="2026-11-01", u="2026-11-01"),
        hot.format(v="2026-11-20", u="2026-11-02"),
        hot.format(v="2026-11-03", u="2026-11-25"),
        header_lines=4,
    )
    assert merged.text == hot.format(v="2026-11-20", u="2026-11-25")


def test_a_fenced_block_is_one_fact_and_its_lines_are_never_merged_apart() -> None:
    block = ["```sh", "cd /srv", "}", "```"]
    other = ["```sh", "cd /opt", "}", "```"]
    merged = merge_facts(warm("- x"), warm("- x", *block), warm("- x", *other))
    assert merged.text == warm("- x", *block, *other)


FACTS = st.sampled_from(
    ["- alpha one", "- beta two", "- gamma three", "- delta four", "- Alpha One!", "## Hosts",
     "## Services", "", "- epsilon five", "- zeta six"]
)  # fmt: skip
BODIES = st.lists(FACTS, max_size=8)


@given(BODIES, BODIES, BODIES)
def test_the_merge_is_a_set_merge_of_identities(b: list[str], o: list[str], t: list[str]) -> None:
    base, ours, theirs = warm(*b), warm(*o), warm(*t)
    merged = merge_facts(base, ours, theirs)
    got = facts(merged.text)
    assert len(got) == len(set(got))  # no fact twice
    ib, io, it = set(facts(base)), set(facts(ours)), set(facts(theirs))
    dropped = {normalise_fact(c.theirs[0]) for c in merged.conflicts}
    assert set(got) == ((io | it) - (ib - io) - (ib - it)) - dropped
    assert [f for f in got if f in io] == list(dict.fromkeys(f for f in facts(ours) if f in got))
    assert "<<<<<<<" not in merged.text


@given(BODIES, BODIES)
def test_merging_a_side_with_itself_or_with_the_base_changes_nothing(
    b: list[str], o: list[str]
) -> None:
    base, ours = warm(*b), warm(*o)
    assert set(facts(merge_facts(base, ours, ours).text)) == set(facts(ours))
    assert set(facts(merge_facts(base, ours, base).text)) == set(facts(ours))
    assert set(facts(merge_facts(base, base, ours).text)) == set(facts(ours))


@given(st.text(max_size=200), st.text(max_size=200), st.text(max_size=200))
def test_no_text_crashes_the_fact_merge(b: str, o: str, t: str) -> None:
    merged = merge_facts(b, o, t)
    assert merged.text == "" or merged.text.endswith("\n")


def test_logged_files_are_the_files_a_retirement_log_names() -> None:
    lines = [
        "# Retired facts",
        "",
        "- 2026-12-01 memory/semantic/projects.md:9 retired: a fact — why",
        "- 2026-12-02 MEMORY.md:6 replaced: another — why: new one",
        "- 2026-12-02 memory/semantic/projects.md:4 retired: a third — why",
        "- not a log line memory/semantic/x.md:1 retired: y",
    ]
    assert logged_files(lines) == {"memory/semantic/projects.md", "MEMORY.md"}
    assert logged_files([]) == set()
