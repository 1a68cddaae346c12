"""A quoted phrase is scanned as the phrase: ripgrep (or the built-in scanner) finds
only the files where its words stand together (`memtier.search.phrases`)."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from memtier.search import SearchRequest, search
from memtier.search.scanner import find_rg
from memtier.search.tokens import python_pattern
from memtier.workspace import Workspace
from tests.conftest import NOW_TEXT, CliRunner
from tests.search.test_search import paths, results, scanner, write
from tests.search.test_search import search as cli_search

RG = find_rg()
__all__ = ["scanner"]  # the fixture: every test below runs with both scanners

NOTES = {
    "memory/episodic/2026-11-01.md": "# 2026-11-01\n\n- the proxy update went out on host b\n",
    "memory/episodic/2026-11-02.md": "# 2026-11-02\n\n- the update of the proxy waited a day\n",
    "memory/episodic/2026-11-03.md": "# 2026-11-03\n\n- Proxy \t Updated twice, then rolled back\n",
    "memory/episodic/2026-11-04.md": "# 2026-11-04\n\n- the PRÖXY update broke the relay\n",
    "memory/episodic/2026-11-05.md": "# 2026-11-05\n\n- a proxy\n- update the relay later\n",
    "memory/episodic/2026-11-06.md": "# 2026-11-06\n\n- the nightly backup ran twice\n",
}
TOGETHER = {
    "memory/episodic/2026-11-01.md",
    "memory/episodic/2026-11-03.md",
    "memory/episodic/2026-11-04.md",
}


@pytest.fixture
def notes(root: Path) -> Path:
    for rel, text in NOTES.items():
        write(root, rel, text)
    return root


def found(cli: CliRunner, root: Path, *args: str) -> set[object]:
    return set(paths(cli_search(cli, root, *args, "--limit", "50")))


def test_a_quoted_phrase_finds_only_its_words_together(
    cli: CliRunner, notes: Path, scanner: str
) -> None:
    # Case and accents folded, spaces or tabs between the words, the last word's
    # ending open; the words apart, in another order or on two lines are not it.
    assert found(cli, notes, '"proxy update"') == TOGETHER
    assert found(cli, notes, "“Proxy Update”") == TOGETHER
    assert found(cli, notes, "proxy update") == TOGETHER | {
        "memory/episodic/2026-11-02.md",
        "memory/episodic/2026-11-05.md",
    }


def test_a_phrase_beside_other_words_and_quotes_that_make_no_phrase(
    cli: CliRunner, notes: Path, scanner: str
) -> None:
    assert found(cli, notes, '"proxy update" backup') == TOGETHER | {
        "memory/episodic/2026-11-06.md"
    }
    # One quoted word, or a quote left open: read as if there were no quotes.
    plain = cli_search(cli, notes, "proxy update")
    assert cli_search(cli, notes, '"proxy" update')["results"] == plain["results"]
    assert cli_search(cli, notes, '"proxy update')["results"] == plain["results"]


def test_a_phrase_hit_shows_its_words(cli: CliRunner, notes: Path, scanner: str) -> None:
    hits = results(cli_search(cli, notes, '"proxy update"'))
    assert [hit["matched_terms"] for hit in hits] == [["proxy", "update"]] * len(TOGETHER)


@pytest.mark.skipif(RG is None, reason="no rg binary")
def test_ripgrep_is_given_the_phrase_as_one_pattern(
    notes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One ripgrep run, whose pattern finds the phrase and neither word alone."""
    from memtier import spawn

    started: list[list[str]] = []
    real = spawn.start

    def recording(argv: list[str], **options: Any) -> spawn.Started:
        started.append(list(argv))
        return real(argv, **options)

    monkeypatch.setattr(spawn, "start", recording)
    ws = Workspace.open(notes, datetime.fromisoformat(NOW_TEXT))
    report = search(ws, SearchRequest(query='"proxy update"', rg=RG, log=False))
    assert {hit.path for hit in report.hits} == TOGETHER
    assert len(started) == 1
    argv = started[0]
    pattern = re.compile(python_pattern(argv[argv.index("--regexp") + 1]), re.IGNORECASE)
    assert pattern.search("a proxy  update here")
    assert pattern.search("the Pröxy Update")
    for alone in ("a proxy here", "an update here", "update proxy", "proxy\nupdate"):
        assert not pattern.search(alone), alone


def test_a_phrase_with_a_number_counts_each_word_with_either_scanner(
    cli: CliRunner, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A term of digits keeps ripgrep's matched texts as they are (`found.counting_words`):
    a phrase's match is cut into its words there, so both scanners count the same."""
    write(
        root, "memory/episodic/2026-11-01.md", "# 2026-11-01\n\n- opened port 8080 on the relay\n"
    )
    write(root, "memory/episodic/2026-11-02.md", "# 2026-11-02\n\n- port 80 and 8080 closed\n")
    scored: list[list[tuple[object, object, object]]] = []
    for setting in ([] if RG is None else [None]) + ["none"]:
        if setting is None:
            monkeypatch.delenv("MEMTIER_RG", raising=False)
        else:
            monkeypatch.setenv("MEMTIER_RG", setting)
        hits = results(cli_search(cli, root, '"port 8080"'))
        scored.append([(hit["path"], hit["score"], hit["matched_terms"]) for hit in hits])
    assert scored[0] == [("memory/episodic/2026-11-01.md", scored[0][0][1], ["port", "8080"])]
    assert scored[-1] == scored[0]


def test_the_query_phrase_counts_with_compounds_among_its_terms(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    # The finding: each pair of neighbouring words adds its compound as a term
    # ("blueharbour", "harbourferry") between the words, so the third word never
    # stood next to the second in the query's order and a phrase of three words
    # never earned its bonus.
    write(root, "memory/episodic/2026-10-01.md", "# a\n\n- took the blue harbour ferry home late\n")
    write(root, "memory/episodic/2026-10-02.md", "# b\n\n- ferry to blue harbour\n")
    (first, *_) = results(cli_search(cli, root, "blue harbour ferry"))
    assert first["path"] == "memory/episodic/2026-10-01.md"
