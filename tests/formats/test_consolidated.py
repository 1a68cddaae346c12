"""Generation files (PROTOCOL §13): same content, same bytes; any changed byte is found."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memtier.formats.consolidated import (
    Cited,
    GenerationFile,
    generation_problems,
    parse_generation,
    render_generation,
)

GEN2 = GenerationFile(
    slug="personal-blog",
    number=2,
    created="2026-04-15",
    covers=("2026-04-01", "2026-04-05"),
    previous="memory/consolidated/personal-blog-gen1-2026-03-26.md",
    summary="We moved the blog to Vercel.\nNext.js stays.",
    decisions=(Cited("host the blog on vercel", "memory/episodic/2026-04-01.md", 9),),
    open=(Cited("blog: write the about page", "memory/episodic/2026-04-05.md", 11),),
    evidence=(
        Cited("- set up the blog repo — with next.js", "memory/episodic/2026-04-01.md", 3),
        Cited("blog build green", "memory/archive/2026/04/2026-04-05.md", 4),
    ),
    carried=(Cited("use next.js", "memory/episodic/2026-03-22.md", 7, "decision"),),
)


def test_render_parse_round_trip_and_header() -> None:
    text = render_generation(GEN2)
    assert text.startswith(
        "# personal-blog — generation 2\nCreated: 2026-04-15\n"
        "Covers: 2026-04-01, 2026-04-05\n"
        "Previous: memory/consolidated/personal-blog-gen1-2026-03-26.md\n"
        "Summary-by: agent\nDigest: sha256:"
    )
    assert parse_generation(text) == GEN2
    assert render_generation(parse_generation(text)) == text
    assert generation_problems(GEN2.name, text) == []


def test_citations_are_relative_links_and_old_generations_still_verify() -> None:
    """PROTOCOL §2 (v4): a citation is a link whose text is `D.md:L`; a generation
    written before (plain `— <path>:<line>`) is never rewritten and still verifies."""
    import hashlib

    text = render_generation(GEN2)
    assert "- host the blog on vercel — [2026-04-01.md:9](../episodic/2026-04-01.md)\n" in text
    assert "— [2026-04-05.md:4](../archive/2026/04/2026-04-05.md)\n" in text
    body = text.split("\n", 6)[6]
    old_body = body.replace(
        "[2026-04-01.md:9](../episodic/2026-04-01.md)", "memory/episodic/2026-04-01.md:9"
    ).replace("[2026-04-01.md:3](../episodic/2026-04-01.md)", "memory/episodic/2026-04-01.md:3")
    old_body = old_body.replace(
        "[2026-04-05.md:11](../episodic/2026-04-05.md)", "memory/episodic/2026-04-05.md:11"
    ).replace(
        "[2026-04-05.md:4](../archive/2026/04/2026-04-05.md)",
        "memory/archive/2026/04/2026-04-05.md:4",
    )
    old_body = old_body.replace(
        "[2026-03-22.md:7](../episodic/2026-03-22.md)", "memory/episodic/2026-03-22.md:7"
    )
    assert "](" not in old_body
    head = "\n".join(text.split("\n")[:5])
    old = f"{head}\nDigest: sha256:{hashlib.sha256(old_body.encode()).hexdigest()}\n{old_body}"
    assert generation_problems(GEN2.name, old) == []
    assert parse_generation(old) == GEN2
    # A link that leaves the memory, or whose text names another file, is no citation.
    import pytest

    from memtier.formats.consolidated import GenerationError

    outside = text.replace("(../episodic/2026-04-01.md)", "(../../../etc/2026-04-01.md)")
    other = text.replace("[2026-04-01.md:9]", "[2026-04-02.md:9]")
    for bad in (outside, other):
        with pytest.raises(GenerationError):
            parse_generation(bad)


def test_evidence_keeps_no_bullet_of_its_own() -> None:
    from memtier.formats.consolidated import evidence_text

    assert evidence_text("- move qdrant") == "move qdrant"
    assert evidence_text("  * sub item") == "sub item"
    assert evidence_text("plain line") == "plain line"
    assert evidence_text("-not a bullet") == "-not a bullet"


def test_every_changed_byte_is_found() -> None:
    """PROTOCOL §13 immutability: the Digest covers the body, the name and body the header.

    The one span the file alone cannot judge is the date in ``Previous:`` (another
    valid name); health-check's ``consolidation.chain`` finds it (the file it
    names does not exist), see tests/protocol/test_s13_consolidate.py.
    """
    data = render_generation(GEN2).encode("utf-8")
    previous_date = data.index(b"gen1-2026-03-26") + len(b"gen1-")
    chain_span = set(range(previous_date, previous_date + 10))
    missed = []
    for at in range(len(data)):
        changed = bytearray(data)
        changed[at] = (changed[at] + 1) % 256
        try:
            text = bytes(changed).decode("utf-8")
        except UnicodeDecodeError:
            continue  # not text any more: health-check reports it unreadable
        if not generation_problems(GEN2.name, text) and at not in chain_span:
            missed.append(at)
    assert missed == []


def test_a_name_that_disagrees_with_the_file_is_a_problem() -> None:
    text = render_generation(GEN2)
    assert generation_problems("personal-blog-gen3-2026-04-15.md", text)
    assert generation_problems("personal-blog-gen2-2026-04-16.md", text)
    assert generation_problems("blog-gen2-2026-04-15.md", text)


_line = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1)


@given(st.lists(_line, max_size=5), st.lists(_line, max_size=3))
def test_same_generation_same_bytes(lines: list[str], items: list[str]) -> None:
    gen = GenerationFile(
        slug="t",
        number=1,
        created="2026-01-02",
        covers=("2026-01-01",) if lines else (),
        previous=None,
        summary=None,
        decisions=tuple(Cited(i.strip() or "x", "memory/episodic/2026-01-01.md", 5) for i in items),
        evidence=tuple(
            Cited(t, "memory/episodic/2026-01-01.md", n) for n, t in enumerate(lines, 1)
        ),
    )
    text = render_generation(gen)
    assert render_generation(gen) == text
    assert parse_generation(text).evidence == gen.evidence
    assert generation_problems(gen.name, text) == []


@given(
    st.text(max_size=400), st.sampled_from(["t-gen1-2026-01-02.md", "x.md", "t-gen2-2026-01-02.md"])
)
def test_no_input_crashes_the_checker(text: str, name: str) -> None:
    problems = generation_problems(name, text)
    assert problems  # random text is never an intact generation
