"""memtier.commands.transfer.importers.facts_table: the import's one duplicate table
(PROTOCOL §10, §12 v3 "Scale")."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memtier.commands.transfer.importers.facts_table import FactTable, core

HEAD = ["# Infra", "#tags: x", "> last_verified: 2026-11-30"]


def test_core_drops_the_date_and_tags_an_import_adds() -> None:
    assert core("- NAS on UPS (2026-01-02) #docker #home-lab") == core("nas on ups")
    assert core("- NAS on UPS #docker in the rack") != core("nas on ups in the rack")


def test_exact_and_near_duplicates_are_found_and_others_not() -> None:
    table = FactTable()
    table.load("a.md", [*HEAD, "- the backup NAS runs on UPS power in the rack"], 3)
    exact = table.find("The backup NAS runs on UPS power in the rack (2026-05-01)")
    assert exact is not None and (exact.score, exact.file, exact.line) == (1.0, "a.md", 4)
    near = table.find("the backup NAS runs on UPS power in the rack today")
    assert near is not None and 0.85 <= near.score < 1.0
    assert table.find("the router has new firmware") is None
    assert table.find("HEAD ONLY") is None


def test_the_header_is_not_a_fact_and_reloading_forgets_old_lines() -> None:
    table = FactTable()
    table.load("a.md", [*HEAD, "- old fact about the rack"], 3)
    assert table.find("#tags: x") is None
    table.load("a.md", [*HEAD, "- new fact about the rack"], 3)
    assert table.find("old fact about the rack") is None
    found = table.find("new fact about the rack")
    assert found is not None and found.line == 4


def test_a_block_is_a_duplicate_only_when_every_line_stands() -> None:
    table = FactTable()
    table.load("a.md", [*HEAD, "step one", "step two"], 3)
    assert table.has_all(["## Heading", "step one", "", "step two"])
    assert not table.has_all(["step one", "step three"])
    assert not table.has_all(["## only a heading"])


words = st.lists(
    st.sampled_from(["nas", "ups", "rack", "power", "disk", "host", "port", "vlan"]), min_size=3
)


@settings(max_examples=50)
@given(mine=words, other=words)
def test_the_prefix_filter_finds_what_a_full_scan_finds(mine: list[str], other: list[str]) -> None:
    """The postings look-up may skip lines, but never one that reaches the threshold."""
    from memtier.formats.fact_text import NEAR_DUPLICATE_THRESHOLD, jaccard, word_set

    table = FactTable()
    table.add("a.md", 1, "- " + " ".join(other))
    a, b = word_set(core(" ".join(mine))), word_set(core(" ".join(other)))
    found = table.find(" ".join(mine))
    if a and core(" ".join(mine)) != core(" ".join(other)):
        assert (found is not None) == (jaccard(a, b) >= NEAR_DUPLICATE_THRESHOLD)


@settings(max_examples=100)
@given(lines=st.lists(words, min_size=1, max_size=8), mine=words)
def test_the_best_overlap_is_the_one_a_full_scan_finds(
    lines: list[list[str]], mine: list[str]
) -> None:
    """Several lines, some of them near each other: `find` scores what a scan of
    every line scores best (the first such line)."""
    from memtier.formats.fact_text import NEAR_DUPLICATE_THRESHOLD, jaccard, word_set

    table = FactTable()
    for number, line in enumerate(lines, start=1):
        table.add("a.md", number, "- " + " ".join(line))
    a = word_set(core(" ".join(mine)))
    scores = [jaccard(a, word_set(core(" ".join(line)))) for line in lines]
    best = max(scores)
    found = table.find(" ".join(mine))
    if core(" ".join(mine)) in {core(" ".join(line)) for line in lines}:
        assert found is not None and found.score == 1.0
    elif best >= NEAR_DUPLICATE_THRESHOLD:
        assert found is not None and found.score == best
        assert found.line == scores.index(best) + 1
    else:
        assert found is None


def _graph_fact(n: int, step: int) -> str:
    """An observation of a generated knowledge graph: a unique name among a few
    words every other fact shares too (the shape that made the check quadratic)."""
    verbs, hosts = ["restarted", "upgraded", "checked"], ["nas01", "pi-gw", "router"]
    return f"person-{n:05d} {verbs[n % 3]} qdrant on {hosts[n // 3 % 3]} step {step}"


def _examined(count: int) -> int:
    table = FactTable()
    for n in range(count):
        for step in range(3):
            table.add("a.md", 3 * n + step + 1, "- " + _graph_fact(n, step))
    table.examined = 0
    for n in range(count, count + 50):
        assert table.find(_graph_fact(n, 0)) is None
    return table.examined


def test_a_check_looks_at_as_many_lines_at_any_size() -> None:
    """PROTOCOL §12 v3 "Scale": linear imports. The lines a check compares do not
    grow with the table (before, every line sharing a common word was compared)."""
    small, large = _examined(100), _examined(2000)
    assert large <= small
