"""Reading ripgrep's output of a word query (`found.count_words`): the paths of one
group of matched texts are told apart as the episodic folder's notes or not."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memtier.search.found import TermCounts, _all_notes, count_words
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
    assert _all_notes(joined, len(paths)) == one_by_one


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
