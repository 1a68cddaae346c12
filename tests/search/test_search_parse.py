"""Reading ripgrep's output of a word query (`found.count_words`, `found.file_counted`):
the paths of one group of matched texts are told apart as the episodic folder's notes
or not."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memtier.search.found import TermCounts, all_notes, count_words, file_counted
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
    file_counted(counted)
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
    """A ``--regex`` scan's blocks (`found.parse_blocks`): every tier file is kept
    under its relative name and tier, with its matched lines lowercased, whether the
    files are all episodic notes (told at once) or not (path by path)."""
    from memtier.search.found import ScanResult, parse_blocks
    from memtier.search.processes import SEPARATOR

    blocks = [f"{p}\0{i + 1}:3:Ab{i}X".encode() for i, p in enumerate(dict.fromkeys(paths))]
    result = ScanResult(scanner="ripgrep", words=None)
    parse_blocks((b"\n\n".join(blocks) + stats).split(SEPARATOR), result)
    expected = {}
    for i, path in enumerate(dict.fromkeys(paths)):
        rel = path.removeprefix("./")
        if tier_of(rel) is not None:
            expected[rel] = (tier_of(rel), [(i + 1, 3, f"ab{i}x")])
    assert {rel: (hits.tier, hits.matches()) for rel, hits in result.matches.items()} == expected
    assert list(result.matches) == list(expected)


def test_blocks_given_a_few_at_a_time_count_as_the_whole_output(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ripgrep's blocks come a few at a time while it runs (`processes.Followed`):
    however they are cut, the files end under the same tiers and counts as when the
    whole output is read at once, and a sequence of matched texts seen in an earlier
    run is counted once."""
    from memtier.search.found import ScanResult, parse_blocks

    texts = [b"qdrant", b"qdrant\nsnapshot", b"snapshot\nsnapshot", b"qdrant"]
    blocks = [
        f"memory/episodic/2026-01-{day:02d}.md".encode() + b"\0" + texts[day % len(texts)]
        for day in range(1, 29)
    ] + [b"MEMORY.md\0qdrant", b"memory/semantic/hosts.md\0snapshot", b"28 files searched\n"]

    calls: list[bytes] = []
    counted_in = TermCounts.count_in

    def count_in(self: TermCounts, lowered: bytes) -> tuple[int, ...]:
        calls.append(lowered)
        return counted_in(self, lowered)

    monkeypatch.setattr(TermCounts, "count_in", count_in)

    def filed(cuts: list[int]) -> tuple[dict[tuple[str, tuple[int, ...]], list[str]], int]:
        calls.clear()
        result = ScanResult("ripgrep", ["qdrant", "snapshot"])
        counted = result.counted
        assert counted is not None
        edges = [0, *cuts, len(blocks)]
        for start, end in pairwise(edges):
            parse_blocks(blocks[start:end], result, last=end == len(blocks))
        assert result.files_searched == 28
        assert len(calls) == len(set(calls))  # each distinct sequence counted once
        return {key: sorted(files) for key, files in counted.groups.items()}, len(calls)

    whole = filed([])
    assert filed([1, 2, 3, 10, 20]) == whole
    assert filed(list(range(1, len(blocks)))) == whole
    assert whole[0][("hot", (1, 0))] == ["MEMORY.md"]
