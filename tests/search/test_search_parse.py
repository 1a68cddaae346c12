"""Reading ripgrep's output of a word query (`found.count_words`): the paths of one
group of matched texts are told apart as the episodic folder's notes or not."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memtier.search.found import TermCounts, all_notes, count_words
from memtier.workspace import EPISODIC_PREFIX, tier_of

PATHS = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "MEMORY.md",
                "memory/semantic/hosts.md",
                "memory/working-buffer.md",
                ".learnings/errors.md",
                "memory/archive/2020/2020-01-01.md",
                "memory/episodic/sub/2026-01-01.md",
                "memory/episodicx/2026-01-01.md",
                "./memory/episodic/2026-01-02.md",
            ]
        ),
        st.from_regex(r"memory/episodic/[0-9a-z./-]{1,12}\.md", fullmatch=True),
    ),
    min_size=1,
    max_size=6,
)


@given(PATHS)
def test_all_notes_is_the_path_by_path_rule(paths: list[str]) -> None:
    joined = "\0".join(paths).encode("utf-8")
    one_by_one = all(p.startswith(EPISODIC_PREFIX) and p.count("/") == 2 for p in paths)
    assert all_notes(joined, len(paths)) == one_by_one


@given(PATHS)
def test_each_path_is_filed_under_its_tier(paths: list[str]) -> None:
    counted = TermCounts(["qdrant"])
    count_words({b"qdrant\nQdrant": [p.encode("utf-8") for p in paths]}, counted, None)
    filed = sorted((tier, rel) for (tier, _), files in counted.groups.items() for rel in files)
    expected = []
    for path in paths:
        rel = path.removeprefix("./")
        tier = tier_of(rel)
        if tier is not None:
            expected.append((tier, rel))
    assert filed == sorted(expected)
    assert {counts for _, counts in counted.groups} <= {(2,)}


@given(PATHS, st.sampled_from([b"", b"\n\n1 files searched\n"]))
def test_raw_matches_keep_each_tier_file_with_its_tier_and_lowered_text(
    paths: list[str], stats: bytes
) -> None:
    """A ``--regex`` scan's blocks (`scanner._parse_rg_output`): every tier file is kept
    under its relative name and tier, with its matched lines lowercased, whether the
    files are all episodic notes (told at once) or not (path by path)."""
    from memtier.search.found import ScanResult
    from memtier.search.scanner import _parse_rg_output

    blocks = [f"{p}\0{i + 1}:3:Ab{i}X".encode() for i, p in enumerate(dict.fromkeys(paths))]
    result = ScanResult(scanner="ripgrep", words=None)
    _parse_rg_output(b"\n\n".join(blocks) + stats, result)
    expected = {}
    for i, path in enumerate(dict.fromkeys(paths)):
        rel = path.removeprefix("./")
        if tier_of(rel) is not None:
            expected[rel] = (tier_of(rel), [(i + 1, 3, f"ab{i}x")])
    assert {rel: (hits.tier, hits.matches()) for rel, hits in result.matches.items()} == expected
    assert list(result.matches) == list(expected)
