"""The scanners (ripgrep and pure Python agree), query terms and sections."""

from __future__ import annotations

import functools
import os
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memtier.search import SearchRequest, pick, search
from memtier.search.accents import lowered_re
from memtier.search.scanner import find_rg, scan
from memtier.search.sections import inline_tags, split_sections, tag_line_tags
from memtier.search.tokens import (
    Term,
    combined_pattern,
    precise_re,
    python_pattern,
    query_terms,
    scan_pattern,
    stem,
)
from memtier.workspace import Workspace, tier_of
from tests.conftest import NOW

RG = find_rg()
needs_rg = pytest.mark.skipif(RG is None, reason="no rg binary")

WORDS = [
    "qdrant",
    "synapse",
    "coturn",
    "docker",
    "restart",
    "restarted",
    "migration",
    "snapshot",
    "timeout",
    "mirror",
    "backup",
    "rotation",
    "bridge",
    "tailscale",
    "ufw",
    "pm2",
    "samba",
    "group-identify",
    "v4.6.14",
    "10.0.0.5",
    "数据库",
    "迁移",
    "cache",
    "Cache",
    "DOCKER",
    "dockerd",
    "latency",
    "relay",
    "host",
    "port",
    "disk",
]


def generated_workspace(root: Path, seed: int = 7) -> None:
    """A deterministic workspace touching every tier, with headings, lists and tags."""
    rng = random.Random(seed)

    def paragraph() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12)))

    def body(lines: int) -> str:
        out: list[str] = []
        for _ in range(lines):
            kind = rng.random()
            if kind < 0.15:
                out.append(f"## {paragraph()}")
            elif kind < 0.3:
                out.append("")
            elif kind < 0.4:
                out.append(f"{paragraph()} #{rng.choice(['docker', 'backup', 'ssh'])}")
            else:
                out.append(f"- {paragraph()}")
        return "\n".join(out) + "\n"

    for _ in range(40):
        day = f"2026-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}"
        (root / f"memory/episodic/{day}.md").write_text(f"# {day}\n\n{body(25)}")
    for name in ("infrastructure", "projects", "extra"):
        tags = ", ".join(rng.sample(["docker", "backup", "networking", "ssh"], 2))
        (root / f"memory/semantic/{name}.md").write_text(
            f"# {name}\n#tags: {tags}\n> last_verified: 2026-11-30\n\n{body(20)}"
        )
    (root / ".learnings/ERRORS.md").write_text(body(10))
    archive = root / "memory/archive/2025/03"
    archive.mkdir(parents=True)
    (archive / "2025-03-04.md").write_text(body(15))
    (root / "memory/episodic/2026-11-30.md").write_bytes(b"caf\xe9 docker\r\n- qdrant\r\n")


QUERIES = [
    ("qdrant", {}),
    ("docker restart", {}),
    ("migration snapshot timeout", {"limit": 30}),
    ("group-identify", {}),
    ("v4.6.14", {}),
    ("数据", {}),
    ("cache", {"tiers": ("warm", "scratch")}),
    ("relay", {"all_tiers": True}),
    ("backup", {"tags": ("backup",)}),
    (r"rest\w+ed", {"regex": True}),
    ("host port disk", {"context": 0, "limit": 50}),
]


@needs_rg
@pytest.mark.parametrize(("query", "options"), QUERIES)
def test_ripgrep_and_python_scanners_agree(
    root: Path, query: str, options: dict[str, object]
) -> None:
    generated_workspace(root)
    ws = Workspace.open(root, NOW)
    (root / "memory/memtier.toml").write_text("search_log = false\n")
    ws = Workspace.open(root, NOW)
    with_rg = search(ws, SearchRequest(query=query, rg=RG, **options))  # type: ignore[arg-type]
    with_python = search(ws, SearchRequest(query=query, rg=None, **options))  # type: ignore[arg-type]
    assert with_rg.to_json()["results"], query  # the comparison is not vacuous
    assert with_rg.to_json()["results"] == with_python.to_json()["results"]
    assert with_rg.total_matched == with_python.total_matched


@needs_rg
@pytest.mark.parametrize("rg", [RG, None], ids=["ripgrep", "python"])
def test_each_file_a_raw_scan_keeps_carries_its_tier(root: Path, rg: str | None) -> None:
    # The ranking scores a --regex scan's files by the tier the scan gives them.
    generated_workspace(root)
    tiers = ("hot", "warm", "buffer", "scratch", "cold", "archive")
    scanned = scan(root, tiers, r"rest\w+ed", ignore_case=False, rg=rg, literals=[])
    assert len({hits.tier for hits in scanned.matches.values()}) > 1  # not one tier only
    assert {rel: hits.tier for rel, hits in scanned.matches.items()} == {
        rel: tier_of(rel) for rel in scanned.matches
    }


def test_find_rg_prefers_the_binary_beside_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_python = tmp_path / "bin" / "python"
    fake_python.parent.mkdir()
    fake_python.write_text("")
    rg = tmp_path / "bin" / "rg"
    rg.write_text("#!/bin/sh\n")
    rg.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(fake_python))
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert find_rg() == str(rg)
    rg.unlink()
    assert find_rg() is None
    other = tmp_path / "other" / "rg"
    other.parent.mkdir()
    other.write_text("#!/bin/sh\n")
    other.chmod(0o755)
    monkeypatch.setenv("PATH", str(other.parent))
    assert find_rg() == str(other)
    assert find_rg(str(other)) == str(other)
    assert find_rg(str(tmp_path / "missing")) is None


@pytest.mark.parametrize(
    ("rel", "tier"),
    [
        ("MEMORY.md", "hot"),
        ("memory/semantic/infrastructure.md", "warm"),
        ("memory/procedural/lessons-learned.md", "warm"),
        ("memory/working-buffer.md", "buffer"),
        (".learnings/ERRORS.md", "scratch"),
        (".learnings/other.md", "scratch"),
        ("memory/episodic/2026-11-30.md", "cold"),
        ("memory/archive/2025/01/2025-01-01.md", "archive"),
        ("memory/archive/learnings/2025/01/x.md", "archive"),
        ("memory/scripts/x.md", None),
        ("memory/episodic/sub/x.md", None),
        ("memory/.searches.jsonl", None),
        ("memory/working-buffer.md.pending", None),
        ("notes.md", None),
    ],
)
def test_tier_of(rel: str, tier: str | None) -> None:
    assert tier_of(rel) == tier


def test_query_terms() -> None:
    # v4: a hyphened word's parts are looked for too, and a word as the query wrote it.
    assert [t.shown() for t in query_terms("Restarting docker-compose, v4.6.14 on 10.0.0.5!")] == [
        "restart", "restarting", "docker-compose", "docker", "compose", "v4.6.14", "10.0.0.5",
    ]  # fmt: skip
    assert query_terms("数据库迁移") == tuple(
        Term(t, cjk=True) for t in ("数据", "据库", "库迁", "迁移")
    )
    assert query_terms("数据 qdrant") == (Term("数据", cjk=True), Term("qdrant"))
    assert query_terms("docker Docker DOCKER") == (Term("docker"),)
    assert query_terms(" ,;- ") == ()
    assert [t.text for t in query_terms("what port does the relay use")] == [
        "port",
        "relay",
        "use",
        "using",
        "relayuse",
    ]  # fmt: skip  (a word's other form, and two neighbouring words' compound)
    assert [t.text for t in query_terms("what is it")] == ["what", "is", "it"]
    said = [t.text for t in query_terms("what's qdrant's port") if not t.compound]
    assert said == ["qdrant", "port"]
    assert [t.text for t in query_terms("x")] == ["x"]


def test_stem_keeps_short_words_and_double_s() -> None:
    assert stem("restarting") == "restart"
    assert stem("containers") == "container"
    assert stem("bus") == "bus"
    assert stem("address") == "address"
    # A word in -us is no plural (v4): "status" was "statu", which also found "statue".
    assert [stem(w) for w in ("status", "famous", "campus")] == ["status", "famous", "campus"]
    assert stem("photos") == "photo"
    assert stem("v4") == "v4"


def test_stem_undoubles_a_consonant_before_ing_and_ed() -> None:
    # "What does Melanie say running has been great for?" never met "run" or "runs".
    assert [stem(w) for w in ("running", "planned", "stopped")] == ["run", "plan", "stop"]
    assert [stem(w) for w in ("falling", "missed", "buzzing")] == ["fall", "miss", "buzz"]
    assert stem("hiking") == "hiking"  # too short a stem: left whole


def test_patterns_mean_the_same_in_python_and_ripgrep(tmp_path: Path) -> None:
    import re
    import subprocess

    terms = query_terms("group-identify v4.6.14 restart 数据 10.0.0.5")
    text = "x group-identify v4.6.14 v4x6x14 restarted restartingly 数据库 10.0.0.50 10.0.0.5\n"
    python_hits = [m.group() for m in re.finditer(combined_pattern(terms), text, re.I)]
    assert python_hits == ["group-identify", "v4.6.14", "restarted", "数据", "10.0.0.5"]
    scanned = [
        "group-identify", "v4.6.14", "restart", "restart", "数据", "10.0.0.5", "10.0.0.5",
    ]  # fmt: skip
    in_python = python_pattern(scan_pattern(terms))  # the scan's ASCII word starts
    assert [m.group() for m in re.finditer(in_python, text, re.I)] == scanned
    if RG is None:
        return
    (tmp_path / "t.md").write_text(text)
    for pattern, expected in (
        (combined_pattern(terms), python_hits),
        (scan_pattern(terms), scanned),
    ):
        out = subprocess.run(
            [RG, "--no-config", "-o", "-i", "-e", pattern, "t.md"],
            cwd=tmp_path, capture_output=True, text=True, check=True,
        )  # fmt: skip
        assert out.stdout.split() == expected


_ACCENTED_TERMS = "snapshot Léa Zoë crème naïve Łódź čas ſun"
_ACCENTED_WORDS = (
    "SNAPŠHOT snąpshot Śnāpshot LEA Léa lēa ZOE zöe ŻOË creme CRÈME naive NAÏVE "
    "lodz ŁÓDŹ łodž cas ČAS čáš sun ſun SUN snapshots snap-shot Zoëlla"
)


def _in_every_place(code_points: range) -> str:
    """Each code point in each accented letter's place, a line per code point."""
    slots = "{}napshot sn{}pshot snapsh{}t l{}a {}ea zo{} {}oe cr{}me na{}ve {}odz {}as {}un"
    return "\n".join(slots.replace("{}", chr(c)) for c in code_points if not 0xD800 <= c < 0xE000)


def _same_matches(plain: re.Pattern[str], other: re.Pattern[str], text: str) -> list[object]:
    found = [(m.start(), m.group()) for m in plain.finditer(text)]
    assert [(m.start(), m.group()) for m in other.finditer(text)] == found
    return found


def test_precise_pattern_matches_what_its_accent_classes_match() -> None:
    """The ranking's compiled pattern writes the accent classes its own way (cheaper to
    compile): on words in any case and accent, it finds what the plain classes of
    `combined_pattern` find; on ASCII text, so does the pattern without the accented
    letters. Every code point in every letter's place: the test below, in the slow step."""
    terms = query_terms(_ACCENTED_TERMS)
    plain = re.compile(combined_pattern(terms), re.IGNORECASE)
    precise = precise_re(terms)
    assert precise.pattern != plain.pattern
    words = _ACCENTED_WORDS
    for text in (words, words.upper(), words.lower()):
        _same_matches(plain, precise, text)
    assert len([m for m in precise.finditer(words)]) > 10
    ascii_only = precise_re(terms, ascii_text=True)
    assert ascii_only.pattern != precise.pattern
    ascii_text = _in_every_place(range(128)) + " " + words.encode("ascii", "ignore").decode()
    for text in (ascii_text, ascii_text.upper()):
        assert _same_matches(plain, ascii_only, text)


@pytest.mark.slow  # an exhaustive sweep: 12 places by 12,288 code points
def test_precise_pattern_matches_its_accent_classes_on_every_character() -> None:
    terms = query_terms(_ACCENTED_TERMS)
    plain = re.compile(combined_pattern(terms), re.IGNORECASE)
    every = _in_every_place(range(0x3000))  # the first 12,288 code points
    _same_matches(plain, precise_re(terms), every)
    ascii_text = "".join(ch for ch in every if ch.isascii())
    for text in (ascii_text, ascii_text.upper()):
        assert _same_matches(plain, precise_re(terms, ascii_text=True), text)


# ASCII words and pieces that sit at the edges of the ranking's word pattern: parts
# of compounds, endings, negations, hyphens, apostrophes, numbers, shapes.
_EDGE_PIECES = (
    "snapshot", "SNAPSHOTS", "snap-shot", "Snap shot", "qdrant-snapshot", "timeout", "timeouted",
    "don't", "DON'T", "won't", "won", "win", "n't", "'t", "didn", "didn't", "restart", "re-start",
    "go", "goes", "going", "good", "art", "arts", "artist", "10", "10th", "10.0.0.5", "10:30",
    "yesterday", "two", "weeks", "ago", "last", "friday", "proxy", "update", "proxyupdate",
    "-", "'", ",", ".", ":", "#", "  ", "\t", "ip", "time", "priya", "Priya's", "container",
)  # fmt: skip


def _edge_text(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(1, 12)):
        words = rng.choices(_EDGE_PIECES, k=rng.randint(0, 9))
        lines.append("".join(w + rng.choice(("", " ", " ", "-", "'")) for w in words))
    return "\n".join(lines)


@pytest.mark.parametrize(
    "query",
    ["qdrant snapshot timeout", "won't win", "didn't restart", "go art 10", "what time yesterday",
     "ip of 10.0.0.5", "proxy update", "priya's container"],
)  # fmt: skip
def test_lowered_pattern_finds_what_the_case_blind_one_finds(query: str) -> None:
    """The ranking matches an ASCII line lowercased, with case (`lowered_re`): the same
    spans as the case-blind pattern on the line as written."""
    narrow = precise_re(query_terms(query), ascii_text=True)
    lowered = lowered_re(narrow)
    assert lowered is not None
    assert not lowered.flags & re.IGNORECASE
    rng = random.Random(query)
    for _ in range(300):
        text = _edge_text(rng)
        for written in (text, text.upper(), text.title()):
            expected = [m.span() for m in narrow.finditer(written)]
            assert [m.span() for m in lowered.finditer(written.lower())] == expected


def test_a_pattern_naming_a_capital_letter_is_not_lowered() -> None:
    assert lowered_re(re.compile(r"\bsnap\w{0,4}\b", re.IGNORECASE)) is not None
    assert lowered_re(re.compile(r"\bSnap\b", re.IGNORECASE)) is None


@pytest.mark.parametrize(
    "query",
    ["qdrant snapshot timeout", "won't win", "didn't restart", "go art 10", "proxy update",
     "priya's container", "snap"],
)  # fmt: skip
def test_an_ascii_file_matched_whole_gives_the_matches_of_its_lines(query: str) -> None:
    """`exact.precise_matches` runs the pattern once over an ASCII file: the same matches, lines
    and columns as line by line (a negation, a hyphen or a word at a line's edge)."""
    from datetime import date

    from memtier.search import rank
    from memtier.search.exact import precise_matches
    from memtier.search.found import FileHits

    terms = query_terms(query)
    ctx = rank._Context(terms, False, date(2026, 11, 30), frozenset(), 1)
    ctx.precise = precise_re(terms, ascii_text=True)
    ctx.lowered = lowered_re(ctx.precise)
    assert ctx.whole_text
    rng = random.Random(query)
    found_any = False
    for _ in range(300):
        lines = _edge_text(rng).split("\n")
        ctx.whole_text = False
        by_line = precise_matches(lines, FileHits(), ctx)
        ctx.whole_text = True
        assert precise_matches(lines, FileHits(), ctx) == by_line
        found_any = found_any or bool(by_line)
    assert found_any


def test_a_shape_word_keeps_the_file_matched_line_by_line() -> None:
    """A shape's form may span white space ("two weeks ago"): never across a line."""
    from datetime import date

    from memtier.search import rank

    terms = query_terms("what happened yesterday")
    assert not rank._Context(terms, False, date(2026, 11, 30), frozenset(), 1).whole_text


def test_sections_split_on_blank_lines_headings_and_long_lists() -> None:
    lines = [
        "# Title",  # 1
        "#tags: docker",  # 2
        "",  # 3
        "para one",  # 4
        "para two",  # 5
        "## Heading",  # 6
        "- a",  # 7
        "- b",  # 8
        "",  # 9
        *[f"- item {i}" for i in range(8)],  # 10..17
    ]
    sections = split_sections(lines)
    assert [(s.start, s.end, s.heading) for s in sections] == [
        (1, 2, 1),
        (4, 5, 1),
        (6, 8, 6),
        *[(i, i, 6) for i in range(10, 18)],
    ]


def test_tag_helpers() -> None:
    assert tag_line_tags("#tags: docker, networking|ssh  ,") == ["docker", "networking", "ssh"]
    assert tag_line_tags("# tags: docker") == []
    assert inline_tags("#tags: nope\n- fixed it #Docker and #fail2ban, not a#b or #1") == {
        "docker",
        "fail2ban",
    }


def test_python_scanner_never_follows_links(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "out"
    outside.mkdir()
    (outside / "2026-01-01.md").write_text("puffin\n")
    os.symlink(outside, root / "memory/archive/linked")
    ws = Workspace.open(root, NOW)
    report = search(ws, SearchRequest(query="puffin", all_tiers=True, rg=None))
    assert report.hits == ()
    assert "skipped memory/archive/linked: symlink" in " ".join(report.warnings)


# ---------------------------------------------------------------------------
# hostile patterns and a MEMTIER_RG that is not ripgrep (PROTOCOL §3 v2)


@pytest.fixture
def root_with_notes(root: Path) -> Path:
    (root / "memory/semantic/infrastructure.md").write_text(
        "# Infrastructure\n#tags: networking\nlast_verified: 2026-11-30\n\n"
        "- the apt mirror moved to host b\n"
    )
    return root


def test_a_catastrophic_pattern_finishes_on_the_built_in_scanner(tmp_path: Path) -> None:
    from memtier.commands.init import init_workspace
    from tests.conftest import NOW, NOW_TEXT, memtier_command

    root = tmp_path / "ws"
    root.mkdir()
    init_workspace(root, NOW)
    (root / "memory/semantic/long.md").write_text("a" * 5000 + "b\n" + "aaa\n")
    done = subprocess.run(
        [*memtier_command(), "search", "--regex", "(a+)+$", "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=120,  # backtracking would need ~2**5000 steps: it would never end
        env={**os.environ, "MEMTIER_RG": "none", "MEMTIER_NOW": NOW_TEXT},
    )
    assert done.returncode == 0, done.stderr
    assert "2:aaa" in done.stdout  # the one line that matches, found in linear time


@pytest.mark.parametrize("pattern", ["foo(?=bar)", "(?<!x)foo", "(?!a)b", r"(a)\1"])
def test_both_engines_refuse_look_around_the_same_way(
    cli: Any, root_with_notes: Path, pattern: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    messages = []
    for engine in ("none", ""):
        monkeypatch.setenv("MEMTIER_RG", engine)
        result = cli("search", "--regex", pattern, "--root", str(root_with_notes))
        assert result.exit_code == 2
        messages.append(result.stderr)
    assert messages[0] == messages[1]
    assert "are not supported" in messages[0] or "is not supported" in messages[0]


@pytest.mark.parametrize("program", ["/bin/true", "/bin/false", "/bin/echo"])
def test_a_memtier_rg_that_is_not_ripgrep_warns_and_falls_back(
    cli: Any, root_with_notes: Path, program: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not Path(program).exists():
        pytest.skip(f"{program} is not on this system")
    monkeypatch.setenv("MEMTIER_RG", program)
    result = cli("search", "mirror", "--root", str(root_with_notes))
    assert result.exit_code == 0
    assert f"ripgrep ({program}) failed" in result.stderr
    assert "used the built-in scanner" in result.stderr
    assert "no matches" not in result.stdout


@needs_rg
def test_ripgrep_names_files_relative_to_the_root_given_relative(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A root given as a relative path is the same folder for ripgrep (started in it,
    see `spawn.in_folder`) as for the built-in scanner."""
    (root / "memory/semantic/infrastructure.md").write_text("# Infra\n\n- nas01 backup\n")
    monkeypatch.chdir(root.parent)
    relative = Path(root.name)
    both = [
        scan(relative, ("warm", "cold"), "backup", ignore_case=True, rg=rg, literals=[])
        for rg in (RG, None)
    ]
    assert sorted(both[0].matches) == sorted(both[1].matches) != []
    assert all(tier_of(rel) is not None for rel in both[0].matches)


def test_length_in_words_counts_each_cjk_character_and_nothing_else() -> None:
    """Words, plus one per CJK character; accented text takes the short way, same count."""
    from memtier.search.tokens import length_in_words

    assert length_in_words("Léa restarted Zoë's proxy") == 5  # Léa, restarted, Zoë, s, proxy
    assert length_in_words("restart 再起動した") == 2 + 5  # two runs of letters, five CJK
    assert length_in_words("ㄱ ok") == 2  # U+3131 lies outside the CJK ranges


@given(st.text(alphabet=st.sampled_from("ab é—🚀ㄱぁ゠ヿ㐀䶿一鿿가힯豈﫿ｱ\n")))
def test_length_in_words_is_words_plus_one_per_character_in_the_cjk_ranges(text: str) -> None:
    """The regex count agrees with the ranges, edges included, character by character."""
    from memtier.search.tokens import is_cjk, length_in_words

    expected = len(re.findall(r"\w+", text)) + sum(1 for ch in text if is_cjk(ch))
    assert length_in_words(text) == expected


@given(st.text() | st.text(alphabet=st.sampled_from("aZ_9 .,-\n\téÉßøł’—\u00a0\u0301ǅ²½٣𝟘🚀再ㄱ")))
def test_words_are_counted_as_the_word_pattern_counts_them(text: str) -> None:
    """`count_words` (bytes mapped and split) counts what ``\\w+`` finds, for any text:
    accented letters, digits of other scripts, a dash, a curly quote, a combining
    accent, a no-break space."""
    from memtier.search.wordcount import count_words

    assert count_words(text) == len(re.findall(r"\w+", text))


@given(
    st.text()
    | st.text(alphabet=st.sampled_from("a é—\u2fff\u3000\u303f\u3040\u3041再🚀\U0010ffff"))
)
def test_a_text_holds_cjk_when_a_character_reaches_the_first_cjk_one(text: str) -> None:
    """`has_cjk` (read from the text's UTF-8) says what comparing every character says."""
    from memtier.search.tokens import _FIRST_CJK, has_cjk

    assert has_cjk(text) == any(ch >= _FIRST_CJK for ch in text)


def test_every_character_reaches_the_first_cjk_one_or_not_as_its_code_point_says() -> None:
    from memtier.search.tokens import _FIRST_CJK, has_cjk

    first = ord(_FIRST_CJK)
    for code in (*range(0, 0x110000, 7), *range(first - 0x400, first + 0x400)):
        assert has_cjk(f"é{chr(code)}") == (code >= first), hex(code)


def test_words_around_a_lone_surrogate_are_counted_as_the_word_pattern_counts_them() -> None:
    """A lone surrogate (text decoded leniently) is no word character and cannot be
    encoded: the pattern counts."""
    from memtier.search.wordcount import count_words

    for text in ("a\ud800b", "é\udcff é", "\ud800"):
        assert count_words(text) == len(re.findall(r"\w+", text))


def _tick() -> None:
    """Past the file system clock's tick, so the next change gives new folder times."""
    import time

    time.sleep(0.03)


def test_a_kept_folder_listing_follows_every_change(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The symlinks of a tier folder, kept between searches of one process, are listed
    again whenever the folder changed (a link added, replaced by a file, removed)."""
    from memtier import tiers

    monkeypatch.setattr(tiers, "SETTLED_NS", -(10**18))  # every listing counts as settled
    monkeypatch.setattr(tiers, "_kept", {})
    listed: list[str] = []
    real_scandir = os.scandir

    def counting_scandir(folder: Any) -> Any:
        listed.append(str(folder))
        return real_scandir(folder)

    monkeypatch.setattr(tiers.os, "scandir", counting_scandir)
    episodic = f"{root}/memory/episodic"
    outside = tmp_path / "outside.md"
    outside.write_text("# outside\n")
    assert tiers.symlinks_in(episodic) == ()
    assert tiers.symlinks_in(episodic) == ()
    assert listed == [episodic]  # the second answer was the kept one
    _tick()
    (root / "memory/episodic/2026-11-01.md").symlink_to(outside)
    assert tiers.symlinks_in(episodic) == ("2026-11-01.md",)
    _tick()
    (root / "memory/episodic/2026-11-01.md").unlink()
    (root / "memory/episodic/2026-11-01.md").write_text("# 2026-11-01\n")
    assert tiers.symlinks_in(episodic) == ()
    _tick()
    (root / "memory/episodic/2026-11-02.md").symlink_to(outside)
    assert tiers.symlinks_in(episodic) == ("2026-11-02.md",)
    assert tiers.symlinks_in(episodic) == ("2026-11-02.md",)
    assert len(listed) == 4


def test_a_folder_changed_just_before_its_listing_is_not_kept(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A change in the same clock tick as the listing would leave the folder's times
    as the listing saw them: such a listing is used once, never kept."""
    from memtier import tiers

    monkeypatch.setattr(tiers, "_kept", {})
    (root / "memory/episodic/2026-11-03.md").write_text("# 2026-11-03\n")
    tiers.symlinks_in(f"{root}/memory/episodic")
    assert tiers._kept == {}


def test_raw_matches_count_as_their_parsed_list_does() -> None:
    """``--regex`` matches as ripgrep prints them: the counts and the number of matches
    read straight from the bytes agree with the parsed list (empty matches left out)."""
    from collections import Counter

    from memtier.search.found import FileHits

    raw = b"3:1:10.0.1.5\n3:14:\n7:2:10.0.1.5\n9:1:a:b\n9:5:\r"
    hits = FileHits(raw)
    parsed = FileHits(raw).matches()
    assert [m[2] for m in parsed] == ["10.0.1.5", "10.0.1.5", "a:b", "\r"]
    assert hits.match_count() == len(parsed) == 4
    assert hits.counts() == dict(Counter(m[2] for m in parsed))


def test_a_search_starts_without_what_it_does_not_use(root: Path) -> None:
    """A search's start-up is most of a small search (STYLE: start-up is part of the
    product): no typer, no command module, and with an in-memory file for ripgrep's
    output no `tempfile` either (with its `shutil`, `random` and compression modules).
    Neither `signal` (its enums: ripgrep's signal defaults are numbers of `_signal`)
    nor `threading` (the search log's lock keeps its per-thread state in `_thread`'s
    class), for a word query or a --regex, each writing the search log."""
    code = (
        "import sys; from memtier.__main__ import main; "
        f"main(['--root', {str(root)!r}, 'search', 'backup', '--json']); "
        f"main(['--root', {str(root)!r}, 'search', '--regex', 'back.p', '--json']); "
        "sys.stderr.write(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('typer', 'click', 'rich', 'tempfile', 'signal', 'threading', 'memtier') and "
        "(m.startswith('memtier.commands') or not m.startswith('memtier')))))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    loaded = set(proc.stderr.split())
    assert loaded & {"typer", "click", "rich", "signal", "threading"} == set()
    assert {m for m in loaded if m.startswith("memtier.commands")} == set()
    if hasattr(os, "memfd_create"):
        assert "tempfile" not in loaded


def _overlapping(text: str, word: str) -> int:
    return sum(1 for i in range(len(text)) if text.startswith(word, i))


@needs_rg
@pytest.mark.parametrize("rg", [RG, None], ids=["ripgrep", "python"])
@pytest.mark.parametrize("extra", ["", " 41"], ids=["words", "with-a-number"])
def test_a_files_counts_hold_every_overlapping_cjk_pair(
    root: Path, rg: str | None, extra: str
) -> None:
    # The finding: one pass of the pairs' alternation takes 会的 and 时间 of 会的时间是,
    # so the file's counts (its pick score, each pair's document frequency) said 的时
    # and 间是 were not there. With a number the raw matched texts are counted instead.
    notes = {
        "memory/episodic/2026-11-20.md": "# 2026-11-20\n\n- 会议的时间是三点。\n- 哈哈哈哈\n",
        "memory/episodic/2026-11-21.md": "# 2026-11-21\n\n- 开会的时间是几点？时间不定。\n",
    }
    for rel, text in notes.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    terms = query_terms("会的时间是 哈哈哈" + extra)
    literals = [t.text for t in terms]
    scanned = scan(root, ("cold",), scan_pattern(terms), ignore_case=True, rg=rg, literals=literals)
    raw = pick.raw_counts(scanned.matches, terms, False)
    for rel, text in notes.items():
        if scanned.counted is not None:
            by_file = {
                path: dict(zip(scanned.counted.words, counts, strict=True))
                for (_, counts), paths in scanned.counted.groups.items()
                for path in paths
            }
            counts = by_file[rel]
        else:
            counts = raw.counted[rel]
        expected = {t.text: _overlapping(text, t.text) for t in terms if t.cjk}
        assert {word: counts.get(word, 0) for word in expected} == expected


@pytest.mark.parametrize("literals", [["backup"], []], ids=["words", "raw"])
def test_ripgreps_blocks_are_taken_apart_while_it_still_runs(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, literals: list[str]
) -> None:
    """A block ripgrep has printed is read, and a raw scan's files filed, while ripgrep
    searches on (`processes.Followed`): a stand-in prints one file's block, then
    waits (a bounded while) for a mark that only the reading of that block leaves,
    and only then prints the rest."""
    from memtier.search import scanner
    from memtier.search.found import parse_blocks

    mark = tmp_path / "block-read"
    printed = tmp_path / "ended"
    fake = tmp_path / "rg-in-steps"
    fake.write_text(
        "#!/bin/sh\n"
        "printf 'memory/episodic/2026-11-01.md\\000backup\\n\\n'\n"
        f"i=0; while [ ! -e {mark} ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i+1)); done\n"
        "printf 'memory/episodic/2026-11-02.md\\000backup\\nbackup\\n\\n2 files searched\\n'\n"
        f": > {printed}\n"
    )
    fake.chmod(0o755)
    seen: list[tuple[int, bool]] = []
    split: list[str] = []  # raw matches filed by their texts while ripgrep ran

    def parse(blocks: list[bytes], result: Any, phrase: Any = None, **options: Any) -> None:
        seen.append((len(blocks), printed.exists()))
        parse_blocks(blocks, result, phrase, **options)
        if not printed.exists():
            split.extend(rel for paths in result.by_texts.values() for rel in paths)
        mark.touch()

    monkeypatch.setattr(scanner, "parse_blocks", parse)
    result = scan(root, ("cold",), "backup", ignore_case=True, rg=str(fake), literals=literals)
    assert result.scanner == "ripgrep" and result.files_searched == 2
    assert seen[0] == (1, False)  # the first block, read before the stand-in printed the rest
    found = result.counted.paths() if result.counted is not None else sorted(result.matches)
    assert found == ["memory/episodic/2026-11-01.md", "memory/episodic/2026-11-02.md"]
    # A raw scan's files are filed by their matched texts then too (`found.keep_raw`:
    # `pick.raw_counts` counts each distinct texts once).
    assert split == ([] if literals else ["memory/episodic/2026-11-01.md"])


def test_statistics_are_ripgreps_only_where_it_prints_them(root: Path, tmp_path: Path) -> None:
    """ripgrep prints its statistics last, after a blank line: a matched text of an
    earlier block that reads like them, from a program that then stops without any,
    is no answer, and the built-in scanner searches instead."""
    fake = tmp_path / "rg-without-statistics"
    fake.write_text(
        "#!/bin/sh\nprintf 'memory/episodic/2026-11-01.md\\000backup\\n3 files searched\\n\\n"
        "memory/episodic/2026-11-02.md\\000backup\\n'\n"
    )
    fake.chmod(0o755)
    (root / "memory/episodic/2026-11-01.md").write_text("# 2026-11-01\n\n- backup done\n")
    result = scan(root, ("cold",), "backup", ignore_case=True, rg=str(fake), literals=[])
    assert result.scanner == "python"
    assert any("no search statistics" in w and "built-in scanner" in w for w in result.warnings)


# --regex patterns that match empty texts, accented letters, word characters, a CR.
_RE2_PATTERNS = [
    "x*",
    "é?",
    r"\w+",
    r"[^a\n]",
    r"1\d?",
    "a|é",
    ".",
    "^",
    r"\b",
    r"日\w*",
    r"\S+\r?",
]


@given(
    lines=st.lists(st.text(alphabet="aé1 \r日xßŁ", max_size=12), min_size=1, max_size=4),
    pattern=st.sampled_from(_RE2_PATTERNS),
)
def test_re2_finds_in_bytes_what_it_finds_in_the_text(lines: list[str], pattern: str) -> None:
    """`engine.byte_matches` (RE2 over the lines' UTF-8 bytes, as `scanner.locate`
    reads them) gives each match's line, byte column and text as RE2 over the text
    does (`engine.matches_in`), wherever its texts decode (else the file is located
    by ripgrep); and `scanner._located_in` agrees with the text's matches."""
    pytest.importorskip("re2")
    from memtier.search.engine import ascii_lower, byte_matches, compile_pattern, matches_in
    from memtier.search.found import FileHits
    from memtier.search.scanner import _located_in

    regex = compile_pattern(pattern, ignore_case=False)
    text = "\n".join(lines)
    expected = matches_in(text, regex)
    found = byte_matches(text.encode("utf-8"), regex)
    assert [(ln, col, t.decode("utf-8")) for ln, col, t in found] == expected
    # What ripgrep printed for the file (never an empty text), and what the lines'
    # matches give when read as text: they, or None where their texts differ.
    texts = [t.encode("utf-8").lower() for _, _, t in expected if t]
    as_text = [(ln, col, ascii_lower(t)) for ln, col, t in expected]
    same = [t.encode("utf-8") for _, _, t in as_text] == texts
    located = _located_in(lines, FileHits(b"\n".join(texts), plain=True), regex)
    assert located == (as_text if same else None)


@functools.cache
def _every_character() -> str:
    """Every code point but the surrogates, in order (read as UTF-32: a generator of
    1.1 million `chr` calls took ten times as long)."""
    from array import array

    points = array("I", range(0xD800))
    points.extend(range(0xE000, 0x110000))
    if sys.byteorder == "big":
        points.byteswap()
    return points.tobytes().decode("utf-32-le")


@functools.cache
def _taken_case_blind() -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """For each plain letter with an accent class: every character its class takes
    case-blind, and every character the plain letter alone takes (Python's ``re``
    over every code point). Swept once per test process: both tests below need it."""
    from memtier.search.tokens import _VARIANTS

    every = _every_character()
    return {
        plain: (
            frozenset(m.group() for m in re.finditer(accent_class, every, re.IGNORECASE)),
            frozenset(m.group() for m in re.finditer(f"[{plain}]", every, re.IGNORECASE)),
        )
        for plain, accent_class in _VARIANTS.items()
    }


def test_the_fold_table_is_what_re_takes_case_blind_beyond_each_plain_letter() -> None:
    """`accents.FOLD_LINE` maps exactly the characters an accent class takes
    case-blind (Python's ``re`` over every code point) that its plain letter alone
    does not, each to that letter; each is a word character and no ASCII letter
    takes it case-blind, so only its own class tells it from other letters."""
    from memtier.search.accents import FOLD_LINE

    folded: dict[int, str] = {}
    for plain, (wide, narrow) in _taken_case_blind().items():
        assert narrow < wide
        for ch in wide - narrow:
            assert ord(ch) not in folded  # no character in two classes
            folded[ord(ch)] = plain
    assert folded == FOLD_LINE
    letters = "".join(map(chr, folded))
    assert re.fullmatch(r"\w+", letters)
    assert re.search("[a-z]", letters, re.IGNORECASE) is None


# Queries whose ranking pattern is matched folded on lines with accents.
_FOLDED_QUERIES = [
    "qdrant snapshot timeout", "proxy update", "restarted", "backup", "Marek upgrade",
    "10.0.12.5 kernel", "Zoëlla crèmes", "rate-limit smartwatch", "docker containers",
]  # fmt: skip


def _in_word_places(words: list[str], characters: str) -> list[str]:
    """Each character in each place of each word (instead of a letter, between two,
    before, after, after a hyphen), a line per character and word."""
    lines = []
    for ch in characters:
        for word in words:
            cuts = range(len(word) + 1)
            instead = [word[:i] + ch + word[i + 1 :] for i in cuts]
            between = [word[:i] + ch + word[i:] for i in cuts]
            around = [f"{word}-{ch}", f"{ch}{word}s", f"{word}{ch}{word}"]
            lines.append(" ".join(instead + between + around))
    return lines


@pytest.mark.parametrize("query", _FOLDED_QUERIES)
def test_a_line_matched_folded_finds_what_the_accent_classes_find(query: str) -> None:
    """A line with accents is matched with the ASCII form of the pattern once its
    accented letters are folded (`tokens.folds_to_ascii`): the same texts at the same
    places as the wide pattern on the line as written (``re`` itself is the judge),
    for every character an accent class takes case-blind, ASCII letters, letters
    that fold oddly (ſ, the Kelvin and Angstrom signs, dotless and dotted i, ß, ŉ)
    and a sample of the rest, in every place of the query's words; and
    `exact.precise_matches` gives the same matches either way."""
    from datetime import date

    from memtier.search import rank
    from memtier.search.accents import FOLD_LINE
    from memtier.search.exact import precise_matches
    from memtier.search.found import FileHits
    from memtier.search.tokens import folds_to_ascii

    terms = query_terms(query)
    assert folds_to_ascii(terms)
    wide = precise_re(terms)
    narrow = precise_re(terms, ascii_text=True)
    every = _every_character()
    taken = "".join(sorted(set().union(*(chars for chars, _ in _taken_case_blind().values()))))
    rng = random.Random(query)
    others = "".join(rng.choices(every, k=400)) + "ſ\u212a\u212bıİßŉǅ’–é"
    words = [w for w in re.findall(r"[^\W\d_]+", query.lower()) if len(w) > 1] or ["kernel"]
    lines = _in_word_places(words, taken + others)
    text = "\n".join(lines)
    expected = [(m.start(), m.group()) for m in wide.finditer(text)]
    folded = text.translate(FOLD_LINE)
    assert len(folded) == len(text)
    assert [(m.start(), text[m.start() : m.end()]) for m in narrow.finditer(folded)] == expected
    assert len(expected) > 100
    ctx = rank._Context(terms, False, date(2026, 11, 30), frozenset(), 1)
    ctx.precise = narrow
    ctx.lowered = lowered_re(narrow)
    ctx.folds = True
    found = precise_matches(lines, FileHits(), ctx)
    ctx.folds = False
    assert precise_matches(lines, FileHits(), ctx) == found


@pytest.mark.parametrize(
    ("query", "line"),
    [("go home", "home goéd"), ("lea", "Leaés"), ("10 backup", "backup 10śt 10th"),
     ("yesterday backup", "backup two wéeks ago"), ("ſun", "šun")],
)  # fmt: skip
def test_a_pattern_naming_a_plain_letter_outside_its_class_is_not_folded(
    query: str, line: str
) -> None:
    """A short word's endings, a day's ordinal, a shape and a letter outside ASCII name
    plain letters outside their accent classes: folded, a line would match there
    where the wide pattern does not (an ending "és" read as "es"), so those patterns
    keep the wide form."""
    from memtier.search.accents import FOLD_LINE
    from memtier.search.tokens import folds_to_ascii

    terms = query_terms(query)
    assert not folds_to_ascii(terms)
    wide = [m.span() for m in precise_re(terms).finditer(line)]
    folded = [
        m.span() for m in precise_re(terms, ascii_text=True).finditer(line.translate(FOLD_LINE))
    ]
    assert folded != wide
