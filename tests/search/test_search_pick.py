"""The file-level pick: grouped term counts choose exactly the files a full score would."""

from __future__ import annotations

import random
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memtier.search import SearchRequest, search
from memtier.search.dates import DateHint
from memtier.search.found import FileHits, ScanResult, TermCounts, counting_words, parse_blocks
from memtier.search.pick import Scoring, pick_counted, pick_raw, raw_counts
from memtier.search.processes import SEPARATOR
from memtier.search.scanner import find_rg, scan_with_python
from memtier.search.scoring import idf
from memtier.search.tokens import Term
from memtier.workspace import Workspace
from tests.conftest import NOW

RG = find_rg()
needs_rg = pytest.mark.skipif(RG is None, reason="no rg binary")
TODAY = date(2026, 11, 30)
WORDS = ("qdrant", "snapshot", "timeout")

_file = st.tuples(
    st.sampled_from(["memory/episodic", "memory/semantic", ".learnings", "memory/archive/2025"]),
    st.one_of(
        st.dates(date(2026, 1, 1), date(2026, 12, 31)).map(date.isoformat),
        st.sampled_from(["infra", "projects", "notes", "2026-13-40"]),
    ),
    st.tuples(*(st.integers(0, 3) for _ in WORDS)),
)


def _tier(folder: str) -> str:
    return {
        "memory/episodic": "cold",
        "memory/semantic": "warm",
        ".learnings": "scratch",
        "memory/archive/2025": "archive",
    }[folder]


_DAY = st.dates(date(2026, 1, 1), date(2026, 12, 31))
# What a query may say about dates (`dates.DateHint`): the days, months, years and
# weeks whose notes are boosted.
_HINT = st.builds(
    DateHint,
    st.just(""),
    st.frozensets(_DAY, max_size=3),
    st.frozensets(st.tuples(st.just(2026), st.integers(1, 12)), max_size=2),
    st.frozensets(st.sampled_from([2025, 2026]), max_size=1),
    st.frozensets(_DAY.map(lambda d: date.fromordinal(d.toordinal() - d.weekday())), max_size=2),
)


@settings(max_examples=150, deadline=None)
@given(
    files=st.lists(_file, min_size=1, max_size=60),
    cap=st.integers(1, 20),
    terms=st.integers(1, 3),
    bonus=st.sampled_from([0.12, 1.0]),
    dates=st.one_of(st.just(DateHint("")), _HINT),
)
def test_grouped_pick_equals_scoring_every_file(
    files: list[tuple[str, str, tuple[int, ...]]],
    cap: int,
    terms: int,
    bonus: float,
    dates: DateHint,
) -> None:
    words = WORDS[:terms]
    counts = TermCounts(words)
    raw: dict[str, dict[str, int]] = {}
    matches: dict[str, FileHits] = {}
    tiers_of: dict[str, str] = {}
    for number, (folder, stem, found) in enumerate(files):
        rel = f"{folder}/{stem}-{number}.md" if number % 3 else f"{folder}/{stem}.md"
        if rel in tiers_of or not any(found[:terms]):
            continue
        found = found[:terms]
        counts.add(rel, _tier(folder), found)
        raw[rel] = {w: n for w, n in zip(words, found, strict=True) if n}
        matches[rel] = FileHits(counted=raw[rel], tier=_tier(folder))
        tiers_of[rel] = _tier(folder)
    df = counts.document_frequency()
    assert df == {w: sum(1 for c in raw.values() if w in c) for w in words if df.get(w)}
    assert counts.file_count() == len(raw)
    n = len(raw) + 5
    weights = {w: idf(k, n) for w, k in df.items()}
    scoring = Scoring(
        tuple(Term(w) for w in words),
        False,
        weights,
        sum(weights.get(w, idf(0, n)) for w in words),
        TODAY,
        bonus,
        dates,
    )
    counted = raw_counts(matches, scoring.terms, False)
    assert counted.counted == raw
    assert counted.matches == {rel: sum(found.values()) for rel, found in raw.items()}
    assert counted.tiers == tiers_of
    assert pick_counted(counts, scoring, cap) == pick_raw(counted, scoring, cap)


def test_parse_counts_each_term_per_file_and_keeps_warnings() -> None:
    output = (
        b"memory/episodic/2026-11-01.md\0Qdrant\nsnapshot\nqdrant\n\n"
        b"memory/semantic/infra.md\0TIMEOUT\n\n"
        b"memory/scripts/x.md\0qdrant\n\n"
        b"memory/episodic/deeper/2026-11-02.md\0qdrant\n\n"
        b"memory/episodic/2026-11-03.md\0snapshot\nqdrant\nqdrant\n\n"
        b"memory/archive/2025/01/2025-01-02.md\0qdrant\nsnapshot\nqdrant\n\n"
        b'memory/episodic/bin.md: binary file matches (found "\\0" byte around offset 3)\n\n'
        b"12 matches\n3 files searched\n"
    )
    result = ScanResult("ripgrep", words=list(WORDS))
    parse_blocks(output.split(SEPARATOR), result)
    assert result.counted is not None
    assert result.counted.paths() == [
        "memory/archive/2025/01/2025-01-02.md",
        "memory/episodic/2026-11-01.md",
        "memory/episodic/2026-11-03.md",
        "memory/semantic/infra.md",
    ]
    # Equal counts in one tier share a group, whatever the order of the matches.
    assert result.counted.groups[("cold", (2, 1, 0))] == [
        "memory/episodic/2026-11-01.md",
        "memory/episodic/2026-11-03.md",
    ]
    assert result.counted.groups[("archive", (2, 1, 0))] == ["memory/archive/2025/01/2025-01-02.md"]
    assert _counts_of(result.counted, "memory/episodic/2026-11-01.md") == {
        "qdrant": 2,
        "snapshot": 1,
    }
    assert _counts_of(result.counted, "memory/semantic/infra.md") == {"timeout": 1}
    assert ("warm", (0, 0, 1)) in result.counted.groups
    assert result.counted.match_total() == 10
    assert result.files_searched == 3
    assert result.warnings == ["skipped memory/episodic/bin.md: binary file"]
    assert result.matches == {}


def test_a_term_of_digits_only_keeps_the_raw_matches() -> None:
    assert counting_words(["port", "8080"]) is None
    assert counting_words([]) is None
    assert counting_words(["v4.6.14", "10.0.0.5"]) == ["v4.6.14", "10.0.0.5"]


def test_python_scanner_counts_non_ascii_files_by_unicode_lowercase(root: Path) -> None:
    # Terms are folded (accents off, lowercase); the counts are taken in that form.
    (root / "memory/episodic/2026-11-02.md").write_text("# Day\n\nCAFÉ qdrant café QDRANT\n")
    (root / "memory/episodic/2026-11-03.md").write_text("# Day\n\nnothing here\n")
    result = scan_with_python(
        root, ("cold",), "café|qdrant", ignore_case=True, literals=["cafe", "qdrant"]
    )
    assert result.counted is not None
    assert result.counted.paths() == ["memory/episodic/2026-11-02.md"]
    assert _counts_of(result.counted, "memory/episodic/2026-11-02.md") == {"cafe": 2, "qdrant": 2}
    with pytest.raises(KeyError):
        _counts_of(result.counted, "memory/episodic/2026-11-03.md")


def _many_notes(root: Path, count: int) -> None:
    """More notes than the ranking reads, so the file-level pick decides."""
    rng = random.Random(3)
    words = ["qdrant", "snapshot", "timeout", "nginx", "restart", "backup", "disk"]
    for i in range(count):
        day = date(2026, 11, 29).toordinal() - i
        name = date.fromordinal(day).isoformat()
        lines = [f"# {name}", ""]
        for _ in range(rng.randint(2, 6)):
            lines.append("- " + " ".join(rng.choice(words) for _ in range(rng.randint(3, 9))))
        (root / f"memory/episodic/{name}.md").write_text("\n".join(lines) + "\n")


@needs_rg
@pytest.mark.parametrize(
    "query", ["qdrant snapshot timeout", "restart", "backup disk", "nginx restart 2026"]
)
def test_scanners_agree_when_most_files_are_left_unread(root: Path, query: str) -> None:
    _many_notes(root, 140)
    (root / "memory/memtier.toml").write_text("search_log = false\n")
    ws = Workspace.open(root, NOW)
    with_rg = search(ws, SearchRequest(query=query, rg=RG, limit=3))
    with_python = search(ws, SearchRequest(query=query, rg=None, limit=3))
    assert len(with_rg.hits) == 3
    assert with_rg.total_matched > 50  # an estimate over files left unread
    assert with_rg.to_json()["results"] == with_python.to_json()["results"]
    assert with_rg.total_matched == with_python.total_matched


def test_python_scanner_reads_a_file_larger_than_one_read(root: Path) -> None:
    body = "filler words only\n" * 20000  # about 360 KB: several reads
    (root / "memory/episodic/2026-11-04.md").write_text(f"# Day\n\n{body}qdrant at the end\n")
    result = scan_with_python(root, ("cold",), "qdrant", ignore_case=True, literals=["qdrant"])
    assert result.counted is not None
    assert _counts_of(result.counted, "memory/episodic/2026-11-04.md") == {"qdrant": 1}


@pytest.mark.parametrize(
    "hint",
    [
        DateHint("", days=frozenset({date(2026, 3, 2)})),
        DateHint("", weeks=frozenset({date(2026, 11, 23)})),
        DateHint("", months=frozenset({(2026, 2)})),
        DateHint("", years=frozenset({2025})),
        DateHint("", days=frozenset({date(2026, 1, 1)}), months=frozenset({(2025, 12)})),
    ],
    ids=["day", "week", "month", "year", "day and month"],
)
def test_a_name_is_boosted_exactly_when_it_starts_with_a_prefix_of_the_hint(
    hint: DateHint,
) -> None:
    # The grouped pick skips the boost for groups whose names start with none of them.
    prefixes = hint.name_prefixes()
    day = date(2024, 12, 1)
    while day < date(2027, 2, 1):
        for name in (f"{day.isoformat()}.md", f"{day.isoformat()}-2.md"):
            assert (hint.boost(name) > 1.0) == name.startswith(prefixes), name
        day = date.fromordinal(day.toordinal() + 1)
    assert not "notes.md".startswith(prefixes)


def _counts_of(counted: Any, rel: str) -> dict[str, int]:
    """One file's counts by term (zero counts left out), read from the scan's groups."""
    for (_, counts), files in counted.groups.items():
        if rel in files:
            return {w: n for w, n in zip(counted.words, counts, strict=True) if n}
    raise KeyError(rel)


# Notes of the last weeks mostly: their recency differs most (half-life 30 days).
_RECENT = st.tuples(
    st.sampled_from(["memory/episodic", "memory/episodic", "memory/semantic"]),
    st.one_of(
        st.dates(date(2026, 10, 1), date(2026, 12, 2)).map(date.isoformat),
        st.sampled_from(["infra", "2026-13-40"]),
    ),
    st.tuples(*(st.integers(0, 2) for _ in WORDS)),
)


@settings(max_examples=150, deadline=None)
@given(
    files=st.lists(_RECENT, min_size=1, max_size=40),
    cap=st.integers(1, 8),
    bonus=st.sampled_from([0.0, 0.12, 1.0, 1.0]),
    dates=st.one_of(st.just(DateHint("")), _HINT),
    regex=st.booleans(),
)
def test_raw_pick_passes_over_only_files_below_the_cap_best(
    files: list[tuple[str, str, tuple[int, ...]]],
    cap: int,
    bonus: float,
    dates: DateHint,
    regex: bool,
) -> None:
    """`pick_raw` looks up a file's recency only while the file can still reach the
    *cap* best: it picks what scoring every file picks (a cap as large as the number
    of files passes nothing over), in the same order, with the same counts left."""
    matches: dict[str, FileHits] = {}
    for number, (folder, stem, found) in enumerate(files):
        rel = f"{folder}/{stem}-{number}.md" if number % 3 else f"{folder}/{stem}.md"
        texts = [word for word, n in zip(WORDS, found, strict=True) for _ in range(n)]
        if rel not in matches and texts:
            raw = "\n".join(f"{i + 1}:1:{t}" for i, t in enumerate(texts)).encode()
            matches[rel] = FileHits(raw, tier=_tier(folder))
    if not matches:
        return
    terms = tuple(Term(w) for w in WORDS)
    counted = raw_counts(matches, terms, regex)
    n = len(matches) + 5
    weights = {w: idf(k, n) for w, k in counted.df.items()}
    scoring = Scoring(terms, regex, weights, sum(weights.values()), TODAY, bonus, dates)
    everything = pick_raw(counted, scoring, len(matches))
    picked = pick_raw(counted, scoring, cap)
    assert picked.files == everything.files[:cap]
    assert picked.unread_files == len(matches) - len(picked.files)
    assert picked.unread_matches == sum(counted.matches.values()) - sum(
        found for _, _, found in picked.files
    )


class _CountedHint(DateHint):
    """A `DateHint` that notes each name whose boost is looked up."""

    looked: list[str] = []  # noqa: RUF012 (the class is the test's own record)

    def boost(self, name: str) -> float:
        self.looked.append(name)
        return super().boost(name)


def test_a_day_said_looks_up_the_boost_of_its_own_notes_only() -> None:
    """A day said in a query ("backup on 9 November"): in a group of many files with
    the same counts, only the notes named for that day (and the next) can be
    boosted; the others are bounded without the boost, as groups are, and their
    dates are never looked at, whichever files are picked."""
    counts = TermCounts(["backup"])
    day = date(2026, 11, 9)
    names = [date.fromordinal(day.toordinal() - k).isoformat() for k in range(-1, 300)]
    for name in names:
        counts.add(f"memory/episodic/{name}.md", "cold", (1,))
    hint = _CountedHint("", frozenset({day}))
    _CountedHint.looked = []
    weights = {"backup": idf(len(names), len(names) + 5)}
    scoring = Scoring((Term("backup"),), False, weights, weights["backup"], TODAY, 0.12, hint)
    picked = pick_counted(counts, scoring, 20)
    assert sorted(_CountedHint.looked) == ["2026-11-09.md", "2026-11-10.md"]
    assert [rel for rel, _, _ in picked.files[:2]] == [
        "memory/episodic/2026-11-09.md",
        "memory/episodic/2026-11-10.md",
    ]


@settings(max_examples=150, deadline=None)
@given(
    files=st.lists(_file, min_size=1, max_size=60),
    cap=st.integers(1, 20),
    bonus=st.sampled_from([0.12, 1.0]),
    dates=st.one_of(st.just(DateHint("")), _HINT),
    regex=st.booleans(),
    plain=st.booleans(),
)
def test_notes_kept_together_by_their_texts_pick_as_each_file_would(
    files: list[tuple[str, str, tuple[int, ...]]],
    cap: int,
    bonus: float,
    dates: DateHint,
    regex: bool,
    plain: bool,
) -> None:
    """The notes a scan keeps together by their printed texts (`ScanResult.by_texts`)
    are counted once for each distinct texts: the document frequencies, the files
    picked, their order and the counts left unread are those of counting every file
    on its own (`FileHits`), with or without positions printed."""
    each: dict[str, FileHits] = {}
    kept: dict[str, FileHits] = {}
    by_texts: dict[bytes, list[str]] = {}
    for number, (folder, stem, found) in enumerate(files):
        rel = f"{folder}/{stem}-{number % 4}.md" if number % 3 else f"{folder}/{stem}.md"
        # Case differs between copies of a text: files are kept apart by the printed text.
        words = [w.upper() if number % 2 else w for w in WORDS]
        texts = [w for w, n in zip(words, found, strict=True) for _ in range(n)]
        if rel in each or not texts:
            continue
        lines = texts if plain else [f"{i + 1}:{i + 2}:{t}" for i, t in enumerate(texts)]
        body = "\n".join(lines).encode()
        each[rel] = FileHits(body.lower(), tier=_tier(folder), plain=plain)
        if folder == "memory/episodic":
            by_texts.setdefault(body, []).append(rel)
        else:
            kept[rel] = each[rel]
    if not each:
        return
    terms = tuple(Term(w) for w in WORDS)
    alone = raw_counts(each, terms, regex)
    together = raw_counts(kept, terms, regex, by_texts, plain)
    assert together.df == alone.df
    assert together.file_count() == alone.file_count() == len(each)
    n = len(each) + 5
    weights = {w: idf(k, n) for w, k in alone.df.items()}
    scoring = Scoring(terms, regex, weights, sum(weights.values()), TODAY, bonus, dates)
    assert pick_raw(together, scoring, cap) == pick_raw(alone, scoring, cap)


# Pieces of a --regex's printed texts: cases, accents, a sigma (lowercased by its
# neighbours), CJK, and bytes that are no UTF-8 (a cut sequence, a stray byte).
_PRINTED = st.sampled_from(
    [b"host10", b"HOST10", b"Zo\xc3\xab", b"ZO\xc3\x8b", b"\xce\xa3", b"A\xce\xa3", b"\xce\xa3a",
     b"\xe6\x97\xa5", b"\xe2\x82", b"\xff", b"\xc3", b"10.0.12.5", b"\r", b""]
)  # fmt: skip
_PRINTED_BODY = st.lists(
    st.lists(_PRINTED, min_size=1, max_size=3).map(b"".join), min_size=1, max_size=4
).map(b"\n".join)


@settings(max_examples=200, deadline=None)
@given(bodies=st.lists(_PRINTED_BODY, min_size=1, max_size=12))
def test_a_regex_s_notes_kept_together_count_their_texts_as_each_file_would(
    bodies: list[bytes],
) -> None:
    """A --regex's notes kept together by their printed texts (texts alone, one a
    line) are counted body by body, the whole body decoded and lowercased at once:
    each note's counts by text (in the same order), its number of matches and each
    text's document frequency are those of reading the note's texts one by one."""
    each: dict[str, FileHits] = {}
    by_texts: dict[bytes, list[str]] = {}
    for number, body in enumerate(bodies):
        rel = f"memory/episodic/2026-10-{number + 1:02d}.md"
        each[rel] = FileHits(body.lower(), tier="cold", plain=True)
        by_texts.setdefault(body, []).append(rel)
    alone = raw_counts(each, (), True)
    together = raw_counts({}, (), True, by_texts, True)
    assert list(together.df.items()) == list(alone.df.items())
    seen = 0
    for texts, total, paths in together.groups:
        for rel in paths:
            assert list(texts.items()) == list(alone.counted[rel].items())
            assert total == alone.matches[rel]
            seen += 1
    assert seen == len(each)


@needs_rg
def test_a_regex_whose_texts_read_like_positions_counts_them_as_texts(root: Path) -> None:
    """A --regex's scan prints the matched texts alone (its positions come later, for
    the files read): a text like ``10:30:45`` is a text, as the built-in scanner
    finds it, not a line and column before ``45``."""
    notes = {
        "memory/episodic/2026-11-20.md": "# 2026-11-20\n\n- started 10:30:45, done 11:02:09\n",
        "memory/episodic/2026-11-21.md": "# 2026-11-21\n\n- ping at 10:30:45\n",
        "memory/semantic/infra.md": "# Infra\n\n- cron 03:00:00 daily\n",
    }
    for rel, text in notes.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "memory/memtier.toml").write_text("search_log = false\n")
    ws = Workspace.open(root, NOW)
    both = [
        search(ws, SearchRequest(query=r"\d\d:\d\d:\d\d", regex=True, rg=rg)).to_json()
        for rg in (RG, None)
    ]
    assert both[0] == both[1]
    results = both[0]["results"]
    assert isinstance(results, list) and len(results) == 3
    assert all(":" in term for hit in results for term in hit["matched_terms"])


_HOST_NOTES = {
    "memory/episodic/2026-11-20.md": "# 2026-11-20\n\n- host10 up\n- host12 and host10\n",
    "memory/episodic/2026-11-21.md": "# 2026-11-21\n\n## Net\n\n- Zoë moved host11\n",
    "memory/semantic/infra.md": "# Infra\n\n- host10: the proxy\n",
}


def _host_workspace(root: Path, notes: dict[str, str]) -> Workspace:
    for rel, text in notes.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(text.encode("utf-8"))
    (root / "memory/memtier.toml").write_text("search_log = false\n")
    return Workspace.open(root, NOW)


def _rg_runs(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The command lines of the ripgrep runs made from now on."""
    from memtier import spawn

    runs: list[list[str]] = []
    real = spawn.start

    def recording(argv: list[str], **options: Any) -> spawn.Started:
        runs.append([str(a) for a in argv])
        return real(argv, **options)

    monkeypatch.setattr(spawn, "start", recording)
    return runs


def _located_by_ripgrep(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file's positions from the second ripgrep run, none from the lines read."""
    from memtier.search import scanner

    monkeypatch.setattr(scanner, "_located_in", lambda *args: None)


@needs_rg
def test_a_regex_is_located_in_the_lines_read_without_a_second_ripgrep_run(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A --regex's scan prints the matched texts alone; their lines and columns are
    found in the lines the ranking read (`scanner.locate`), the same as ripgrep
    tells when asked for them, and ripgrep runs once."""
    ws = _host_workspace(root, _HOST_NOTES)
    request = SearchRequest(query=r"host1\d", regex=True, rg=RG)
    runs = _rg_runs(monkeypatch)
    located = search(ws, request).to_json()
    assert len(runs) == 1
    _located_by_ripgrep(monkeypatch)
    by_ripgrep = search(ws, request).to_json()
    assert len(runs) == 3
    assert located == by_ripgrep
    assert [hit["line"] for hit in located["results"]]  # type: ignore[index]


@needs_rg
def test_a_regex_whose_texts_differ_in_the_lines_read_is_located_by_ripgrep(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ripgrep reads a line ending in CR LF with its CR, which the ranking's lines
    lack: ``up\\r?`` prints "up\\r" there. The texts found in the lines read differ, so
    ripgrep locates that file, and the hits are those of ripgrep's positions."""
    notes = {**_HOST_NOTES, "memory/semantic/crlf.md": "# Crlf\r\n\r\n- host13 up\r\n"}
    ws = _host_workspace(root, notes)
    request = SearchRequest(query=r"host1\d up\r?", regex=True, rg=RG)
    runs = _rg_runs(monkeypatch)
    located = search(ws, request).to_json()
    assert len(runs) == 2
    assert runs[1][-1] == "memory/semantic/crlf.md"  # only the file whose texts differ
    _located_by_ripgrep(monkeypatch)
    assert search(ws, request).to_json() == located
    assert any(hit["path"] == "memory/semantic/crlf.md" for hit in located["results"])  # type: ignore[index]


@needs_rg
def test_a_regex_located_without_ripgrep_shows_the_same_lines(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the texts differ, ripgrep runs once more over those files
    (`scanner.locate`); when ripgrep fails then, the built-in scanner reads those
    files, and the hits are the same."""
    from memtier.search import scanner

    ws = _host_workspace(root, _HOST_NOTES)
    request = SearchRequest(query=r"host1\d", regex=True, rg=RG)
    _located_by_ripgrep(monkeypatch)
    located = search(ws, request).to_json()
    real = scanner.scan_with_rg
    failed: list[list[str]] = []

    def failing(*args: Any, located: list[str] | None = None, **options: Any) -> Any:
        if located is not None:
            failed.append(located)
            raise scanner._RipgrepUnusable("gone")
        return real(*args, **options)

    monkeypatch.setattr(scanner, "scan_with_rg", failing)
    fallen_back = search(ws, request).to_json()
    assert failed and sorted(failed[0]) == sorted(_HOST_NOTES)
    assert fallen_back == located
    assert [hit["line"] for hit in located["results"]]  # type: ignore[index]


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(
        st.tuples(st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.25, 3.0]), st.integers(1, 4)),
        max_size=40,
    ),
    cap=st.integers(1, 30),
)
def test_the_cap_th_score_is_read_from_the_largest_values_alone(
    values: list[tuple[float, int]], cap: int
) -> None:
    """`pick._cap_th` sorts only the *cap* largest values (each counts at least once):
    the value at which the counts of all of them, largest first, reach *cap* (ties
    in either order), or -1 when they never do."""
    from memtier.search.pick import _cap_th

    seen = 0
    expected = -1.0
    for value, times in sorted(values, key=lambda v: -v[0]):
        seen += times
        if seen >= cap:
            expected = value
            break
    assert _cap_th(values, cap) == expected
