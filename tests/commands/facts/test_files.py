"""memtier.commands.facts.files: the HOT and WARM files a fact command works on, and the
rules every fact edit shares (PROTOCOL §10)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtier.commands.facts.files import (
    DuplicateFactError,
    FactFile,
    MatchError,
    clean_fact,
    find_duplicate,
    is_heading,
    matching_lines,
    one_match,
    refresh_dates,
    resolve_fact_file,
)
from memtier.errors import ConfinementError, InputError
from memtier.workspace import Workspace

HOT = FactFile(Path("/x/MEMORY.md"), "MEMORY.md", "hot")
WARM = FactFile(Path("/x/memory/semantic/docker.md"), "memory/semantic/docker.md", "warm")


def test_clean_fact_folds_to_one_line_and_drops_a_bullet() -> None:
    assert clean_fact("- the NAS\n  runs on UPS\n", "TEXT").text == "the NAS runs on UPS"


@pytest.mark.parametrize("raw", ["", "  \n", "\n\n"])
def test_an_empty_fact_is_an_input_error(raw: str) -> None:
    with pytest.raises(InputError, match="TEXT: the text is empty"):
        clean_fact(raw, "TEXT")
    with pytest.raises(InputError):
        clean_fact("- ", "TEXT", fact=True)  # a bare bullet says nothing


def test_a_fact_must_say_something() -> None:
    with pytest.raises(InputError, match="no letter or digit"):
        clean_fact("---", "TEXT", fact=True)
    assert clean_fact("---", "TEXT").text == "---"  # not a fact: allowed


def test_a_block_keeps_its_lines_and_trims_blank_edges() -> None:
    cleaned = clean_fact("\n\n```sh\n  make   \n```\n\n", "HOWTO", block=True)
    assert cleaned.text == "```sh\n  make\n```"


def test_a_credential_in_a_fact_is_redacted_and_counted() -> None:
    token = "gh" + "p_" + "x1Y2" * 9
    cleaned = clean_fact(f"push with {token}", "TEXT")
    assert token not in cleaned.text and cleaned.redacted == {"GITHUB_TOKEN": 1}


def test_headings_and_header_lines_never_match() -> None:
    lines = ["# Docker", "#tags: docker", "> last_verified: x", "## docker hosts", "- docker on b"]
    assert matching_lines(lines, "docker", WARM.header_lines) == [(5, "- docker on b")]
    assert is_heading("   ## x") and not is_heading("#tags: x") and not is_heading("    # code")


def test_one_match_says_why_nothing_matched() -> None:
    lines = ["# Docker", "#tags: docker", "> last_verified: x", "## hosts", "- a", "- a b"]
    assert one_match(WARM, lines, "a b\n") == (6, "- a b")
    with pytest.raises(MatchError, match="only header line 2 does"):
        one_match(WARM, lines, "tags")
    with pytest.raises(MatchError, match="only heading line 4 does"):
        one_match(WARM, lines, "hosts")
    with pytest.raises(MatchError) as many:
        one_match(WARM, lines, "a")
    assert many.value.matches == ((5, "- a"), (6, "- a b"))
    with pytest.raises(InputError, match="OLD: the text is empty"):
        one_match(WARM, lines, "\n")


def test_refresh_dates() -> None:
    hot = ["# M", "#tags: memory", "last_verified: 2026-01-01", "last_updated: 2026-01-01"]
    refresh_dates(HOT, hot, "2026-11-30", verified=False)
    assert hot[2:] == ["last_verified: 2026-01-01", "last_updated: 2026-11-30"]
    refresh_dates(HOT, hot, "2026-11-30", verified=True)
    assert hot[2] == "last_verified: 2026-11-30"


def test_resolve_fact_file_takes_hot_and_warm_only(ws: Workspace, tmp_path: Path) -> None:
    assert resolve_fact_file(ws, "MEMORY.md").tier == "hot"
    warm = resolve_fact_file(ws, ws.root / "memory" / "semantic" / "docker.md")
    assert (warm.tier, warm.rel, warm.exists) == ("warm", "memory/semantic/docker.md", False)
    with pytest.raises(
        InputError, match=r"--in \.learnings/ERRORS\.md: must be MEMORY\.md or a WARM"
    ):
        resolve_fact_file(ws, ".learnings/ERRORS.md", option="--in")
    with pytest.raises(ConfinementError):
        resolve_fact_file(ws, tmp_path / "MEMORY.md")


def test_find_duplicate_exact_and_near(ws: Workspace) -> None:
    infra = ws.memory_dir / "semantic" / "infrastructure.md"
    infra.write_text(infra.read_text() + "- the backup NAS runs on UPS power in the rack\n")
    exact = find_duplicate(ws, "The backup NAS runs on UPS power in the rack!")
    assert isinstance(exact, DuplicateFactError) and exact.score == 1.0
    assert exact.file == "memory/semantic/infrastructure.md"
    near = find_duplicate(ws, "the backup NAS runs on UPS power in the rack today")
    assert near is not None and 0.85 <= near.score < 1.0 and "near-duplicate" in near.message
    assert find_duplicate(ws, "the router has a new firmware") is None
    assert find_duplicate(ws, exact.existing, skip=(infra.resolve(), exact.line)) is None
