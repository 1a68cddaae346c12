"""INDEX.md (PROTOCOL §13): the one entry form round-trips; the seed's forms are read."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memtier.formats.index import (
    CATEGORIES,
    STATUSES,
    Generation,
    IndexEntry,
    parse_index,
    render_index,
)

SEED_INDEX = """# Memory Index

## Projects
- **project-slug**
  - Dates: [2025-03-20, 2025-03-22, 2025-03-25, 2025-04-01]
  - Consolidations:
    - gen1 (2025-03-25): consolidated/project-slug-gen1-2025-03-25.md
  - Current: consolidated/project-slug-gen1-2025-03-25.md
  - Status: active

## Major Events
- **event-slug**: [2025-03-15]
  - Description: Brief description

## Decisions
- **decision-slug**: [2025-03-10, 2025-03-12]
  - Consolidations:
    - gen1 (2025-03-12): consolidated/decision-slug-gen1-2025-03-12.md
  - Current: consolidated/decision-slug-gen1-2025-03-12.md
"""


def test_the_seed_forms_are_read() -> None:
    parsed = parse_index(SEED_INDEX)
    assert parsed.problems == ()
    project, event, decision = parsed.entries
    assert project.category == "projects" and project.status == "active"
    assert project.dates[-1] == "2025-04-01"
    # Paths relative to memory/ are read as root-relative ones.
    assert project.current == "memory/consolidated/project-slug-gen1-2025-03-25.md"
    assert project.consolidations == (
        Generation(1, "2025-03-25", "memory/consolidated/project-slug-gen1-2025-03-25.md"),
    )
    assert event.category == "events" and event.dates == ("2025-03-15",)
    assert event.extra == ("  - Description: Brief description",)
    assert decision.category == "decisions" and decision.dates == ("2025-03-10", "2025-03-12")
    # No Match line: the slug's words find the topic.
    assert project.terms == ("project slug",)


def test_memtier_writes_the_one_form_and_keeps_what_people_wrote() -> None:
    rendered = render_index(parse_index(SEED_INDEX).entries)
    assert "- **event-slug**\n  - Match: event slug\n  - Status: active\n" in rendered
    assert "  - Description: Brief description\n" in rendered
    assert "consolidated/project-slug" in rendered and " consolidated/" not in rendered
    again = parse_index(rendered)
    assert again.problems == ()
    assert render_index(again.entries) == rendered


def test_unknown_status_repeated_slug_and_stray_lines_are_problems() -> None:
    text = (
        "# Memory Index\n\n## Projects\n- **blog**\n  - Status: finished\n"
        "- **blog**\n  - Match: blog\nsomething loose\n## Hobbies\n- **Bad Slug**\n"
    )
    messages = [p.message for p in parse_index(text).problems]
    assert any("unknown status 'finished'" in m for m in messages)
    assert any("'blog' is repeated" in m for m in messages)
    assert any("does not parse" in m for m in messages)
    assert any("unknown section 'Hobbies'" in m for m in messages)
    assert any("not [a-z0-9-]+" in m for m in messages)


_slug = st.from_regex(r"[a-z0-9]{1,8}(-[a-z0-9]{1,6}){0,2}", fullmatch=True)
_term = st.from_regex(r"[a-z][a-z0-9 .]{0,12}[a-z0-9]", fullmatch=True)
_day = st.dates().map(lambda d: d.isoformat())


@st.composite
def _entries(draw: st.DrawFn) -> list[IndexEntry]:
    slugs = draw(st.lists(_slug, min_size=1, max_size=5, unique=True))
    out = []
    for slug in slugs:
        gens = tuple(
            Generation(n, day, f"memory/consolidated/{slug}-gen{n}-{day}.md")
            for n, day in enumerate(draw(st.lists(_day, max_size=3)), start=1)
        )
        out.append(
            IndexEntry(
                slug=slug,
                category=draw(st.sampled_from(list(CATEGORIES))),
                match=tuple(dict.fromkeys(draw(st.lists(_term, min_size=1, max_size=3)))),
                status=draw(st.sampled_from(STATUSES)),
                dates=tuple(sorted(set(draw(st.lists(_day, max_size=4))))),
                consolidations=gens,
                current=gens[-1].path if gens else None,
            )
        )
    return out


@settings(max_examples=40)
@given(_entries())
def test_render_parse_round_trip(entries: list[IndexEntry]) -> None:
    text = render_index(entries)
    parsed = parse_index(text)
    assert parsed.problems == ()
    assert render_index(parsed.entries) == text
    assert {e.slug: e.terms for e in parsed.entries} == {e.slug: e.terms for e in entries}


@given(st.text(max_size=300))
def test_no_input_crashes_the_parser(text: str) -> None:
    parse_index(text)
