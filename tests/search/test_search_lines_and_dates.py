"""The line that answers (PROTOCOL §9): neighbouring lines as one hit, no boilerplate,
dates read in English and German. Every test runs with both scanners."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import CliRunner
from tests.search.test_search import paths, results, scanner, search, write

__all__ = ["scanner"]

BUSY = (
    "# 2026-11-12\n\n- Pruned old images.\n- Looked at the logs.\n- Read a changelog.\n"
    "- Tidied notes.\n- Checked the update.\n"
    "- Restart of grafana planned for the evening window.\n"
    "- Restart window moved because of the evening backup.\n"
    "- Evening restart of gitea postponed.\n"
    "- Window for the restart: after the evening news.\n"
    "- Restart done in the evening, window closed.\n"
    "\nUpdated: 2026-11-12\nDecisions: none\nSignal: routine\nOpen: none\n"
)
PREFS = (
    "# Preferences\n#tags: rules\n> last_verified: 2026-11-20\n\n"
    "- Replies stay short.\n"
    "- Never restart 19:00–23:00 (family evening TV); maintenance window is mornings.\n"
)


def test_neighbouring_matching_lines_are_one_hit(cli: CliRunner, root: Path, scanner: str) -> None:
    # The agent's finding: five hits that were lines 8-12 of one note, and the
    # preference never showed.
    write(root, "memory/episodic/2026-11-12.md", BUSY)
    write(root, "memory/semantic/preferences.md", PREFS)
    found = results(search(cli, root, "restart window evening", "--limit", "5"))
    busy = [r for r in found if r["path"] == "memory/episodic/2026-11-12.md"]
    assert len(busy) == 1
    assert 8 <= int(str(busy[0]["line"])) <= 12
    assert "memory/semantic/preferences.md" in paths({"results": found})


def test_a_hit_shows_its_best_line_and_the_lines_around_it(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    note = (
        "# 2026-11-20\n\n- Routine check.\n- Looked up the warranty of the nas01 disks.\n"
        "- It ends on 14 March 2028 for all four.\n- Tidied notes.\n"
    )
    write(root, "memory/episodic/2026-11-20.md", note)
    (hit,) = results(search(cli, root, "warranty nas01 disks"))
    assert hit["line"] == 4
    # The answer is the neighbour: the shown span is the line before and after.
    assert (hit["line_start"], hit["line_end"]) == (3, 5)
    assert str(hit["excerpt"]).splitlines()[2] == "- It ends on 14 March 2028 for all four."
    (wide,) = results(search(cli, root, "warranty nas01 disks", "--context", "2"))
    assert (wide["line"], wide["line_start"], wide["line_end"]) == (4, 3, 6)  # blank edge cut


def test_the_title_and_footer_give_way_to_the_content_line(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    for day in ("2026-11-08", "2026-11-09", "2026-11-10"):
        body = f"# {day}\n\n- Pruned images.\n- Changed the DNS TTL to 300 seconds.\n"
        write(root, f"memory/episodic/{day}.md", body + f"\nUpdated: {day}\nOpen: none\n")
    top = results(search(cli, root, "what did I change on 9 November?"))[0]
    assert top["path"] == "memory/episodic/2026-11-09.md"
    assert top["line"] == 4  # not the "# 2026-11-09" title, not the Updated: footer
    only_date = results(search(cli, root, "on 9 November 2026"))[0]
    assert only_date["path"] == "memory/episodic/2026-11-09.md"
    assert only_date["line"] == 3  # the day's first entry


@pytest.mark.parametrize("context", ["1", "4"])
def test_the_json_line_lies_in_the_span_shown(
    cli: CliRunner, root: Path, scanner: str, context: str
) -> None:
    write(root, "memory/episodic/2026-11-12.md", BUSY)
    for hit in results(search(cli, root, "restart evening", "--context", context)):
        line, start, end = (int(str(hit[k])) for k in ("line", "line_start", "line_end"))
        assert start <= line <= end
        assert end - start + 1 == len(str(hit["excerpt"]).split("\n"))
        assert end - start + 1 <= 2 * int(context) + 1


# --now is a Monday: 2026-11-30 (the conftest's NOW_TEXT).
GERMAN_CASES = [
    ("Router 2. März", "2026-03-02"),
    ("Router am 2. März", "2026-03-02"),
    ("Router am 2. Maerz", "2026-03-02"),
    ("Router 2. Marz", "2026-03-02"),
    ("Router 02.03.", "2026-03-02"),
    ("Router 2.3.2026", "2026-03-02"),
    ("Router 2.3.2027", "2027-03-02"),  # a year said is kept, even one after --now
    ("Router vom 4. Mai 2026", "2026-05-04"),
    ("Router gestern", "2026-11-29"),
    ("Router vorgestern", "2026-11-28"),
    ("Router letzten Montag", "2026-11-23"),
]


@pytest.mark.parametrize(("query", "day"), GERMAN_CASES)
def test_german_dates_meet_the_note_of_that_day(
    cli: CliRunner, root: Path, scanner: str, query: str, day: str
) -> None:
    days = ("2026-03-02", "2026-03-09", "2026-05-04", "2026-11-19", "2026-11-26",
            "2026-11-23", "2026-11-28", "2026-11-29", "2027-03-02")  # fmt: skip
    for name in days:
        write(root, f"memory/episodic/{name}.md", f"# {name}\n\n- Router neu gestartet.\n")
    found = search(cli, root, query)
    assert paths(found)[0] == f"memory/episodic/{day}.md"
    assert results(found)[0]["line"] == 3  # the entry, not the title


GERMAN_MONTHS = [
    ("Januar", 1), ("Jänner", 1), ("Jaenner", 1), ("Janner", 1), ("Februar", 2), ("Feber", 2),
    ("März", 3), ("Maerz", 3), ("Marz", 3), ("MÄRZ", 3), ("April", 4), ("Mai", 5), ("Juni", 6),
    ("Juli", 7), ("August", 8), ("September", 9), ("Oktober", 10), ("November", 11),
    ("Dezember", 12), ("Jän.", 1), ("Mär.", 3), ("Okt.", 10), ("Dez.", 12),
]  # fmt: skip


@pytest.mark.parametrize(("name", "month"), GERMAN_MONTHS)
def test_every_german_month_name_is_read(name: str, month: int) -> None:
    # With and without umlauts, Austria's Jänner and Feber too; --now is 2026-11-30.
    from datetime import date

    from memtier.search.dates import parse_dates

    year = 2026 if month <= 11 else 2025  # the latest such day not after today
    for query in (f"Router 2. {name}", f"Router am 2. {name}", f"Router 2. {name} {year}"):
        hint = parse_dates(query, date(2026, 11, 30))
        assert (hint.days, hint.rest.rstrip(" .")) == ({date(year, month, 2)}, "router"), query
    assert parse_dates(f"Router im {name}", date(2026, 11, 30)).months == {(year, month)}


@pytest.mark.parametrize("query", ["v4.6.14 Router", "Router 10.0.0.5", "Router 1.2.3"])
def test_versions_and_addresses_are_not_german_dates(root: Path, query: str) -> None:
    from datetime import date

    from memtier.search.dates import parse_dates

    hint = parse_dates(query, date(2026, 11, 30))
    assert not (hint.days or hint.months or hint.weeks) and hint.rest == query


@pytest.mark.parametrize("query", ["Router letzte Woche", "Router in der vergangenen Woche",
                                   "router last week"])  # fmt: skip
def test_last_week_is_monday_to_sunday_of_the_week_before(
    cli: CliRunner, root: Path, scanner: str, query: str
) -> None:
    # Today (--now) is Monday 2026-11-30: last week is 2026-11-23 .. 2026-11-29.
    for name in ("2026-11-19", "2026-11-22", "2026-11-23", "2026-11-26", "2026-11-30"):
        write(root, f"memory/episodic/{name}.md", f"# {name}\n\n- Router neu gestartet.\n")
    ranked = [str(p)[-13:-3] for p in paths(search(cli, root, query))]
    assert sorted(ranked[:2]) == ["2026-11-23", "2026-11-26"]
    alone = [str(p)[-13:-3] for p in paths(search(cli, root, "letzte Woche"))]
    assert sorted(alone) == ["2026-11-23", "2026-11-26"]  # a week alone: its days searched


def test_a_search_of_one_file_tier_finds_its_matches(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    # ripgrep names no file when it is given a single path: --tier hot found nothing.
    write(root, "MEMORY.md", "# Agent Memory\n\n- Backups: restic, nightly at 02:30.\n")
    (hit,) = results(search(cli, root, "restic", "--tier", "hot"))
    assert (hit["path"], hit["line"]) == ("MEMORY.md", 3)


def test_init_description_lines_are_not_ranked(cli: CliRunner, tmp_path: Path) -> None:
    # The agent's finding: "docker01 IP" ranked "Hosts, IPs, ports and services." first.
    root = tmp_path / "fresh"
    assert cli("init", "--root", str(root), "--now", "2026-11-30T10:00:00+01:00").exit_code == 0
    infra = root / "memory/semantic/infrastructure.md"
    infra.write_text(infra.read_text() + "\n## Hosts\n- docker01: 192.168.1.20, Debian 12\n")
    found = results(search(cli, root, "docker01 IP"))
    assert [(r["path"], r["line"]) for r in found] == [("memory/semantic/infrastructure.md", 8)]
    assert results(search(cli, root, "ports services")) == []  # only boilerplate matched
    # A description line someone changed is theirs: it is ranked again.
    infra.write_text(infra.read_text().replace("Hosts, IPs, ports", "Hosts, IPs and ports"))
    assert [r["line"] for r in results(search(cli, root, "ports"))] == [5]


@pytest.mark.parametrize("query", ["docker01 IP", "docker01 ips", "IPv4 of docker01"])
def test_an_address_word_meets_the_address(
    cli: CliRunner, root: Path, scanner: str, query: str
) -> None:
    # The agent's finding: "docker01 IP" ranked a note that said "IP" (of another host)
    # above "docker01: 192.168.1.20", a host named in many notes (so hardly rare).
    hosts = "# Infrastructure\n\n## Hosts\n- docker01: 192.168.1.20, Debian 12\n"
    hosts += "- nas01: 192.168.1.30, TrueNAS\n- edge01: 10.0.0.1, the firewall\n"
    write(root, "memory/semantic/infrastructure.md", hosts)
    write(root, "memory/episodic/2026-07-02.md", "# 2026-07-02\n\n- The relay IP was missing.\n")
    for day in range(10, 20):
        name = f"2026-11-{day:02d}"
        write(root, f"memory/episodic/{name}.md", f"# {name}\n\n- Pruned images on docker01.\n")
    (first, *_) = results(search(cli, root, query))
    assert (first["path"], first["line"]) == ("memory/semantic/infrastructure.md", 4)
    # Only the ranking knows the shape: an address alone is never a hit of "IP".
    assert [r["line"] for r in results(search(cli, root, "IP"))] == [3]


def _first_beside_backup_tests(cli: CliRunner, root: Path, fact: str, query: str) -> Any:
    """The first hit of *query* where MEMORY.md line 4 is the backup *fact* and ten
    short notes only say "Backup-Test" (the agent's lived-in workspace)."""
    memory = (
        "# Agent Memory\n\n## Key facts\n"
        f"- Backups: restic to the storage box, nightly at 02:30; {fact}\n"
        "- The user is Jana; she writes German, answers may be English.\n"
    )
    write(root, "MEMORY.md", memory)
    for day in range(10, 20):
        name = f"2026-11-{day:02d}"
        write(root, f"memory/episodic/{name}.md", f"# {name}\n\n- Backup-Test geplant.\n")
    return results(search(cli, root, query))[0]


def test_what_time_meets_a_time_of_day(cli: CliRunner, root: Path, scanner: str) -> None:
    # The agent's finding: "what time do the backups run?" ranked short notes that
    # only said "Backup-Test" above the MEMORY.md fact, whose answer is "02:30".
    fact, query = "a check on Sundays.", "what time do the backups run?"
    first = _first_beside_backup_tests(cli, root, fact, query)
    assert (first["path"], first["line"]) == ("MEMORY.md", 4)
    assert "time" in first["matched_terms"]  # type: ignore[operator]


@pytest.mark.parametrize(
    "query", ["when does the backup run", "when do backups happen", "when may I restart them"]
)
def test_when_before_a_present_verb_meets_a_time_of_day(
    cli: CliRunner, root: Path, scanner: str, query: str
) -> None:
    # The agent's findings: "when does the backup run" ranked notes that only said
    # "Backup-Test" above the MEMORY.md fact whose answer is "02:30" (7th of 8).
    first = _first_beside_backup_tests(cli, root, "restart them by hand.", query)
    assert (first["path"], first["line"]) == ("MEMORY.md", 4)
    assert "time" in first["matched_terms"]  # type: ignore[operator]


def test_a_day_without_a_note_is_told_in_the_next_days_note(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    # The finding: "Which city was Calvin at on October 3, 2023?" had no note of 3
    # October; the note of the 4th told it ("Yesterday I met ... in Boston") and held
    # only "Calvin" of the question, so its ×2 left it below every note saying "city".
    told = "# 2023-10-04\n\n- Calvin: Yesterday I met some artists in Boston.\n"
    write(root, "memory/episodic/2023-10-04.md", told)
    for day in ("2023-04-20", "2023-05-16", "2023-07-07"):
        city = f"# {day}\n\n- Calvin: The city lights, the city at night: what a city!\n"
        write(root, f"memory/episodic/{day}.md", city)
    query = "Which city was Calvin at on October 3, 2023?"
    assert paths(search(cli, root, query))[0] == "memory/episodic/2023-10-04.md"
    # The next day stands in for a day only while that day has no note, live or archived.
    own = "# 2023-10-03\n\n- Calvin: Touring today.\n"
    write(root, "memory/archive/2023/10/2023-10-03.md", own)
    live = paths(search(cli, root, query))
    assert live[0] != "memory/episodic/2023-10-04.md"
    write(root, "memory/episodic/2023-10-03.md", own)
    assert paths(search(cli, root, query))[0] == "memory/episodic/2023-10-03.md"


def test_told_days_are_the_days_said_without_a_note() -> None:
    from datetime import date

    from memtier.search.dates import parse_dates

    hint = parse_dates("on 3 October 2023 and on 9 October 2023", date(2026, 11, 30))
    held = {date(2023, 10, 9)}
    assert hint.told_days(lambda day: day in held) == [("2023-10-04", "2023-10-03")]
    assert hint.told_days(lambda day: True) == []


@pytest.mark.parametrize(
    ("query", "asks"),
    [("when does the backup run", True), ("When is the window?", True),
     ("when did I buy the spare disk", False), ("when was the cert renewed", False),
     ("backup schedule", False), ("what time do backups run", False)],
)  # fmt: skip
def test_only_a_schedule_question_asks_for_a_time(query: str, asks: bool) -> None:
    from memtier.search.tokens import Term, query_terms

    # "what time" says the word itself; a past "when" asks for the day of an event.
    added = Term("time") in query_terms(query) and "time" not in query.lower()
    assert added is asks


@pytest.mark.parametrize(
    ("word", "line", "found"),
    [("ip", "at 192.168.1.20.", ["192.168.1.20"]), ("ip", "v4.6.14, 10.0.0.5.1, 300.1.1.1", []),
     ("ip", "net 10.0.0.0/24 via 10.0.0.1:8080", ["10.0.0.0", "10.0.0.1"]),
     ("time", "never 19:00–23:00, at 9:05.", ["19:00", "23:00", "9:05"]),
     ("time", "v1.2:30, 24:00, 12:345, 10:30:15, 1.10:30", [])],
)  # fmt: skip
def test_a_shape_is_matched_whole(word: str, line: str, found: list[str]) -> None:
    import re

    from memtier.search.tokens import combined_pattern, query_terms, term_of

    terms = query_terms(word)
    matches = [m.group() for m in re.finditer(combined_pattern(terms), line, re.IGNORECASE)]
    assert matches == found
    assert all(term_of(m, terms) == terms[0] for m in matches)


def test_a_common_verb_alone_cannot_outrank_a_rarer_term(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    # The agent's finding: "when does the backup run" ranked a line that matched only
    # "runs" above the MEMORY.md fact.
    memory = (
        "# Agent Memory\n\n## Key facts\n- The user is Jana, she writes German and English,"
        " answers may be either, short ones preferred.\n"
        "- Backups: restic to the storage box, nightly at 02:30, checked on Sundays.\n"
        "- Home network 192.168.1.0/24 behind the firewall in the cellar.\n"
    )
    write(root, "MEMORY.md", memory)
    write(
        root,
        "memory/semantic/projects.md",
        "# Projects\n\n- Kiosk: the display runs, runs, runs.\n",
    )
    for day in range(1, 29):
        name = f"2026-11-{day:02d}"
        line = "- The job runs.\n" if day > 18 else "- Tidied notes.\n"  # "runs": common
        if day in (3, 5, 7):
            line = "- Looked at the backup.\n"
        write(root, f"memory/episodic/{name}.md", f"# {name}\n\n{line}")
    found = [
        (r["path"], r["matched_terms"])
        for r in results(search(cli, root, "when does the backup run"))
    ]
    home = [path for path, _ in found].index("MEMORY.md")
    assert "backup" in found[home][1]
    alone = [i for i, (_, terms) in enumerate(found) if terms == ["run"]]
    assert alone and min(alone) > home


def test_a_word_written_with_an_accented_first_letter_is_found(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    # The scan anchors terms at ASCII word starts (fast); "Über" still is a word start.
    write(root, "memory/episodic/2026-11-20.md", "# 2026-11-20\n\n- Über den Router gesprochen.\n")
    write(root, "memory/episodic/2026-11-21.md", "# 2026-11-21\n\n- Zoë and Éric met.\n")
    assert [r["line"] for r in results(search(cli, root, "uber router"))] == [3]
    assert paths(search(cli, root, "eric zoe")) == ["memory/episodic/2026-11-21.md"]
    assert results(search(cli, root, "ber")) == []  # not inside "Über"


def test_two_terms_starting_with_r_are_found_by_both_scanners(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    # Found by bench/recall ("where is the receipt for the router?": no hit with rg, the
    # right note with the built-in scanner). ripgrep 14.1.0's line-oriented search missed
    # the line for the scan pattern of "receipt" and "router" (its inner-literal bug,
    # fixed in 14.1.1); the scanner searches multi-line, which skips that step.
    note = "# 2026-07-06\n\n- Searched for the receipt of the new router.\n"
    write(root, "memory/episodic/2026-07-06.md", note)
    assert [r["line"] for r in results(search(cli, root, "receipt for the router"))] == [3]


# Pieces a query naming a date is made of, near misses among them (a needle cut short).
_DATE_PIECES = (
    "march", "märz", "maerz", "Jaenner", "mrz", "Mai", "okt.", "Dez", "sept", "ju", "ja", "de",
    "yesterday", "the day before", "gestern", "heute", "today", "last", "letzte",
    "Woche", "week", "monday", "Mittwoch", "Sonnabend", "Freitag", "am", "im", "of",
    "the", "9", "2026", "02.03.", "2026-11-09", "١٩", "٣", "3rd", "backup", "qdrant",
    "router", " ", ",", ".", "-",
)  # fmt: skip


@given(st.lists(st.sampled_from(_DATE_PIECES), max_size=6).map("".join))
def test_a_query_the_date_patterns_could_match_is_never_passed_over(query: str) -> None:
    """The date patterns are compiled only for a query that may name a date
    (`dates.may_name_a_date`); whatever any of them matches passes that check."""
    from memtier.search.dates import _patterns, may_name_a_date
    from memtier.search.tokens import fold

    folded = fold(query)
    if any(pattern.search(folded) for pattern in _patterns()):
        assert may_name_a_date(folded)


def test_a_query_without_a_date_leaves_the_date_patterns_uncompiled(root: Path) -> None:
    """A word query with no digit and no date word does not pay for the date patterns
    (a fresh process: nothing compiled them before)."""
    import subprocess
    import sys

    code = (
        "import sys; from memtier.__main__ import main; "
        f"main(['--root', {str(root)!r}, 'search', 'qdrant snapshot', '--json']); "
        "from memtier.search.dates import _patterns; "
        "sys.stderr.write(str(_patterns.cache_info().misses))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stderr.strip().splitlines()[-1] == "0"
    dated = code.replace("qdrant snapshot", "qdrant on 9 November")
    done = subprocess.run([sys.executable, "-c", dated], capture_output=True, text=True)
    assert done.stderr.strip().splitlines()[-1] == "1"


def test_a_date_without_its_year_is_the_latest_one_the_notes_are_from() -> None:
    # --now is 2026-11-30: "in June" is the latest June that holds a dated note.
    from datetime import date

    from memtier.search.dates import parse_dates

    today = date(2026, 11, 30)
    noted = {(2023, 6), (2024, 6), (2024, 9), (2027, 6)}
    assert parse_dates("router in June", today, lambda: noted).months == {(2024, 6)}
    assert parse_dates("router on 3 June", today, lambda: noted).days == {date(2024, 6, 3)}
    # No note of that month: the latest one not after today, as before.
    assert parse_dates("router in March", today, lambda: noted).months == {(2026, 3)}
    assert parse_dates("router 31. Juni", today, lambda: {(2024, 6)}).days == set()


def test_a_month_without_its_year_meets_the_notes_of_that_month(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    # A chat kept two years ago: "in June" must not mean June 2026, of which no note is.
    write(root, "memory/episodic/2024-06-11.md", "# 2024-06-11\n\n- Router neu gestartet.\n")
    busy = "# 2024-09-02\n\n- Router neu gestartet, der Router hing.\n- Router geprüft.\n"
    write(root, "memory/episodic/2024-09-02.md", busy)
    write(root, "memory/archive/2023/06/2023-06-20.md", "# 2023-06-20\n\n- Router gekauft.\n")
    assert paths(search(cli, root, "router in June"))[0] == "memory/episodic/2024-06-11.md"
    found = paths(search(cli, root, "router in June", "--all"))
    assert found[0] == "memory/episodic/2024-06-11.md"


def test_the_noted_months_come_from_note_names_and_archive_folders(tmp_path: Path) -> None:
    from memtier.search.dates import noted_months

    episodic, archive = tmp_path / "episodic", tmp_path / "archive"
    months = (archive / "2022" / "03", archive / "2022" / "13")
    for folder in (episodic, *months, archive / "learnings"):
        folder.mkdir(parents=True)
    for name in ("2024-06-11.md", "2024-06-12-host.md", "notes.md", "1899-01-01.md"):
        (episodic / name).write_text("x\n")
    assert noted_months(str(episodic), str(archive)) == {(2024, 6), (2022, 3)}
    assert noted_months(str(tmp_path / "missing"), str(tmp_path / "gone")) == set()


def test_the_note_of_the_day_after_tells_what_happened_that_day(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    # A note tells yesterday's events: "the movie on 2 March" is in the note of 3 March.
    write(root, "memory/episodic/2026-03-03.md", "# 2026-03-03\n\n- Saw a movie yesterday.\n")
    busy = "# 2026-02-10\n\n- A movie night: the movie ran late.\n- Movie tickets bought.\n"
    write(root, "memory/episodic/2026-02-10.md", busy)
    assert paths(search(cli, root, "movie on 2 March 2026"))[0] == "memory/episodic/2026-03-03.md"
    # The day's own note still comes first.
    write(root, "memory/episodic/2026-03-02.md", "# 2026-03-02\n\n- Movie tonight.\n")
    ranked = paths(search(cli, root, "movie on 2 March 2026"))
    assert ranked[:2] == ["memory/episodic/2026-03-02.md", "memory/episodic/2026-03-03.md"]


@pytest.mark.parametrize(
    ("query", "asks"),
    [("When did Anna go hiking?", True), ("when was the cert renewed", True),
     ("when does the backup run", False), ("what did Anna do last week", False),
     ("when did we last renew the cert", False), ("when was the latest restore", False),
     ("hiking", False)],
)  # fmt: skip
def test_only_a_question_about_a_past_event_asks_for_its_day(query: str, asks: bool) -> None:
    from memtier.search.tokens import Term, asks_for_a_day, query_terms

    assert asks_for_a_day(query) is asks
    assert (Term("yesterday") in query_terms(query)) is asks


def test_when_did_meets_the_line_that_tells_the_day(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    # A chat: "when did Anna go hiking" is answered by the turn that dates the hike
    # ("last Friday"), not by the note that talks about hiking most.
    talk = (
        "# 2026-10-02\n\n## Conversation 1\n\n- Anna: Hiking is my thing, hiking every month.\n"
        "- Ben: Hiking sounds fun.\n- Anna: Hiking boots are expensive.\n"
    )
    write(root, "memory/episodic/2026-10-02.md", talk)
    told = (
        "# 2026-10-12\n\n## Conversation 2\n\n- Ben: How was your week?\n"
        "- Anna: I went hiking last Friday, up the ridge.\n- Ben: Nice.\n"
    )
    write(root, "memory/episodic/2026-10-12.md", told)
    for query in ("When did Anna go hiking?", "When was Anna hiking?"):
        first = results(search(cli, root, query))[0]
        assert (first["path"], first["line"]) == ("memory/episodic/2026-10-12.md", 6), query
    # Asked without "when", the note that talks about hiking most still comes first.
    assert paths(search(cli, root, "Anna hiking"))[0] == "memory/episodic/2026-10-02.md"


def test_when_a_plan_is_to_happen_meets_the_line_that_tells_the_day_ahead(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    # The finding: "When is Jon planning to open his dance studio?" was answered by the
    # turn "The official opening night is tomorrow", which ranked ninth below turns
    # holding as many of the question's words and no day.
    told = (
        "# 2026-10-02\n\n## Conversation 1\n\n- Gina: How is the studio?\n"
        "- Jon: The dance studio opens tomorrow, come by.\n- Gina: Sure.\n"
    )
    write(root, "memory/episodic/2026-10-02.md", told)
    talk = (
        "# 2026-10-12\n\n## Conversation 2\n\n"
        "- Jon: The dance studio is open for a tour: a dance studio tour.\n- Gina: Great!\n"
    )
    write(root, "memory/episodic/2026-10-12.md", talk)
    for day in ("2026-10-03", "2026-10-04", "2026-10-05", "2026-10-06"):
        write(root, f"memory/episodic/{day}.md", f"# {day}\n\n- Jon: dance practice, then rest.\n")
    for query in (
        "When is Jon planning to open his dance studio?",
        "When will Jon open the dance studio?",
        "When did Jon plan to open the studio?",
    ):
        first = results(search(cli, root, query))[0]
        assert (first["path"], first["line"]) == ("memory/episodic/2026-10-02.md", 6), query
    # Asked without "when", the note that says the words most still comes first.
    assert paths(search(cli, root, "Jon open dance studio"))[0] == "memory/episodic/2026-10-12.md"


@pytest.mark.parametrize(
    ("text", "ahead"),
    [("see you tomorrow", True), ("next month, when it is warmer", True),
     ("in two weeks", True), ("this coming Friday", True), ("tonight at the bar", True),
     ("last month", False), ("the next step", False), ("in two words", False)],
)  # fmt: skip
def test_a_day_told_ahead_is_a_shape(text: str, ahead: bool) -> None:
    from memtier.search.shapes import shape_re

    assert (shape_re("tomorrow").search(text.lower()) is not None) is ahead


@pytest.mark.parametrize(
    ("query", "asks"),
    [("When is Jon planning to open the studio?", True), ("when will the cert expire", True),
     ("When did Joanna plan to visit?", True), ("when is Andrew going to hike", True),
     ("When did Anna go hiking?", False), ("what will Jon open", False),
     ("when does the backup run", False)],
)  # fmt: skip
def test_only_a_question_about_a_plan_asks_for_a_day_ahead(query: str, asks: bool) -> None:
    from memtier.search.shapes import asks_for_a_planned_day

    assert asks_for_a_planned_day(query) is asks


@pytest.mark.parametrize(
    "query", ["forest picture on December 1,2023", "forest picture on 1 December,2023"]
)
def test_a_year_after_a_comma_without_a_space_is_the_dates_year(query: str) -> None:
    from datetime import date

    from memtier.search.dates import parse_dates

    hint = parse_dates(query, date(2026, 11, 30))
    assert (hint.days, hint.years) == ({date(2023, 12, 1)}, set())


@pytest.mark.parametrize(
    ("phrase", "mondays"),
    [("the first weekend of October 2023", ["2023-10-02"]),  # Saturday 7 October
     ("the second week of November 2023", ["2023-11-06"]),  # the week of 8 November
     ("the last week of October 2023", ["2023-10-30"]),  # the week of 31 October
     ("the last two weeks of August 2023", ["2023-08-21", "2023-08-28"]),
     ("the last weekend of September 2023", ["2023-09-25"]),  # Saturday 30 September
     ("the first week of March", ["2026-02-23"])],  # no year: the latest March
)  # fmt: skip
def test_a_week_of_a_month_is_read_as_its_weeks(phrase: str, mondays: list[str]) -> None:
    from datetime import date

    from memtier.search.dates import parse_dates

    hint = parse_dates(f"hiking in {phrase}?", date(2026, 11, 30))
    assert sorted(d.isoformat() for d in hint.weeks) == mondays
    assert len(hint.months) == 1 and not hint.days
    assert hint.words().split()[0] == "hiking" and "first" not in hint.words()


def test_a_week_of_a_month_meets_the_notes_of_that_week(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    # "The first weekend of October 2023" is 7-8 October: the note of the 8th tells it;
    # a later note of October that says more of the question's words comes second.
    write(
        root, "memory/episodic/2023-10-08.md", "# 2023-10-08\n\n- Dave: A car show this weekend.\n"
    )
    later = "# 2023-10-25\n\n- Dave: What a weekend, doing the first car show of the season!\n"
    write(root, "memory/episodic/2023-10-25.md", later)
    ranked = paths(search(cli, root, "What was Dave doing in the first weekend of October 2023?"))
    assert ranked[:2] == ["memory/episodic/2023-10-08.md", "memory/episodic/2023-10-25.md"]


def test_a_week_running_into_the_next_month_meets_its_notes_of_that_month(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    # The finding: "the last week of October 2023" is 30 October to 5 November. The
    # notes of October held the month's date in their titles, the note of 2 November
    # held no date the query said, and it ranked below every October note although its
    # week was the one asked for. A week is now one term, met in its days' titles.
    for day in ("2023-10-04", "2023-10-15", "2023-10-23"):
        write(root, f"memory/episodic/{day}.md", f"# {day}\n\n- Calvin: The tour goes on.\n")
    write(
        root,
        "memory/episodic/2023-11-02.md",
        "# 2023-11-02\n\n- Calvin: Last week I threw a party at my house in Tokyo.\n",
    )
    ranked = paths(search(cli, root, "Where was Calvin in the last week of October 2023?"))
    assert ranked[0] == "memory/episodic/2023-11-02.md"


def test_a_season_of_a_year_is_read_as_its_months() -> None:
    from datetime import date

    from memtier.search.dates import parse_dates

    hint = parse_dates("Where was Jolene in summer 2022?", date(2026, 11, 30))
    assert sorted(hint.months) == [(2022, 6), (2022, 7), (2022, 8)] and not hint.years
    assert "summer" in hint.words() and "2022" not in hint.words()
    winter = parse_dates("skiing in the winter of 2022", date(2026, 11, 30))
    assert sorted(winter.months) == [(2022, 12), (2023, 1), (2023, 2)]
    # Without its year a season stays a word: "plans for the summer" may be next summer.
    assert not parse_dates("plans for the summer", date(2026, 11, 30)).months


def test_a_season_of_a_year_meets_the_notes_of_its_months(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    # The finding: "summer 2022" was the word "summer" and a lone year (a tie-break
    # only): every note of 2022 saying where Jolene was ranked alike.
    for day in ("2022-03-10", "2022-07-10", "2022-11-10"):
        write(root, f"memory/episodic/{day}.md", f"# {day}\n\n- Jolene: I was in France.\n")
    ranked = paths(search(cli, root, "Where was Jolene in summer 2022?"))
    assert ranked[0] == "memory/episodic/2022-07-10.md"
