"""importers.planned: one planned fact, cleaned as `remember` cleans
(PROTOCOL §3 v2, §12 v3)."""

from __future__ import annotations

from memtier.commands.transfer.importers.planned import Planned, cleaned
from memtier.formats.routing import Route, SourceItem


def _planned(*lines: str, block: bool = False) -> Planned:
    item = SourceItem("line 1", lines, block=block)
    return Planned(0, "line 1", item, Route("preference", "type 'user'"), lines, "MEMORY.md")


def test_a_fact_is_folded_and_redacted_and_the_counts_added_up() -> None:
    token = "gh" + "p_" + "x1Y2" * 9
    counts = {"GITHUB_TOKEN": 1}
    entry = cleaned(_planned(f"push with\n{token}"), counts)
    assert entry.clean is not None and "\n" not in entry.clean and token not in entry.clean
    assert counts == {"GITHUB_TOKEN": 2}
    assert entry.label == "preference (type 'user')"


def test_a_block_keeps_its_lines_and_an_empty_fact_is_a_problem() -> None:
    block = cleaned(_planned("# Steps", "", "make", block=True), {})
    assert block.clean == "# Steps\n\nmake"
    empty = cleaned(_planned("   "), {})
    assert empty.clean is None
    assert empty.problem is not None and empty.problem.startswith("invalid: ")
