"""The pure parts of import/export (PROTOCOL §12): front matter, routing, sources, envelope."""

from __future__ import annotations

import contextlib
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memtier.formats.envelope import (
    EnvelopeError,
    ExportedFile,
    build_envelope,
    dump_envelope,
    parse_envelope,
    shift_dates,
)
from memtier.formats.frontmatter import FrontMatterError, split_front_matter
from memtier.formats.routing import SourceItem, route, source_day, split_facts
from memtier.formats.sources_json import parse_brain, parse_mcp_memory
from memtier.formats.sources_markdown import daily_note, memory_bullets, parse_claude


def test_front_matter_scalars_and_both_list_forms() -> None:
    doc = split_front_matter(
        "---\nid: 'a: b'\nscore: 0.7\nn: 3\nok: true\ntags: [x, 'y z', \"w\"]\n"
        "more:\n  - one\n  - two\nempty:\ntitle: >-\n  folded\n  title\n"
        "metadata:\n  type: user\n---\n\n# Title\nbody\n"
    )
    assert doc.fields == {
        "id": "a: b",
        "score": 0.7,
        "n": 3,
        "ok": True,
        "tags": ["x", "y z", "w"],
        "more": ["one", "two"],
        "empty": None,
        "title": "folded title",
        "metadata": {"type": "user"},
    }
    assert doc.body == "# Title\nbody"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("no fence\n", "no front matter"),
        ("---\nid: x\n", "not closed"),
        ("---\njust words\n---\n", "not a set of 'key: value' lines"),
        ("---\n- orphan\n---\n", "not a set of 'key: value' lines"),
        ("---\nx: [unclosed\n---\n", "front matter line"),
        ("---\na: &x [1]\nb: *x\n---\n", "anchors or aliases"),
        ("---\n" + "[" * 100_000 + "\n---\n", "longer than"),
        ("---\nx: " + "[" * 50 + "]" * 50 + "\n---\n", "nested deeper"),
    ],
)
def test_malformed_front_matter_says_why(text: str, why: str) -> None:
    with pytest.raises(FrontMatterError, match=why):
        split_front_matter(text)


@pytest.mark.parametrize(
    ("item", "kind"),
    [
        (SourceItem("a", ("x",), kind="user"), "preference"),
        (SourceItem("a", ("x",), kind="feedback"), "lesson"),
        (SourceItem("a", ("x",), kind="reference"), "howto:reference"),
        (SourceItem("a", ("x",), kind="note", tags=("brain", "docker")), "infrastructure"),
        (SourceItem("a", ("x",), tags=("runbook", "Restic Backup")), "howto:restic-backup"),
        (SourceItem("a", ("x",), hint="Preferences and style"), "preference"),
        (SourceItem("a", ("x",), kind="note", day=date(2026, 1, 2)), "event"),
        (SourceItem("a", ("x",), kind="person"), "preference"),
        (SourceItem("a", ("x",), kind="organization"), "project"),
        (SourceItem("a", ("x",), kind="flatmate"), "unrouted"),
    ],
)
def test_routing_table(item: SourceItem, kind: str) -> None:
    assert route(item).kind == kind


def test_split_facts_bullets_or_titled_prose() -> None:
    assert split_facts("T", "- a\n* b\n1. c\n") == ("a", "b", "c")
    assert split_facts("Docker", "runs on\nhost b") == ("Docker: runs on host b",)
    assert split_facts("Docker", "Docker runs") == ("Docker runs",)
    assert split_facts("", "") == ()


def test_source_day_reads_iso_and_epoch_milliseconds() -> None:
    assert source_day("2026-05-20T23:30:00-05:00") == date(2026, 5, 20)
    assert source_day("2026-05-20T14:30:00.000Z") == date(2026, 5, 20)
    assert source_day(1778403600000) == date(2026, 5, 10)
    assert source_day("1778403600000") == date(2026, 5, 10)
    assert source_day("last tuesday") is None
    assert source_day(True) is None


def test_brain_accepts_jsonl_envelope_and_bare_array() -> None:
    line = '{"id":"1","kind":"note","text":"t","createdAt":"2026-01-02T00:00:00Z","tags":["a"]}'
    assert len(parse_brain(line + "\n" + line).items) == 2
    assert len(parse_brain('{"version":1,"count":1,"items":[' + line + "]}").items) == 1
    assert len(parse_brain("[" + line + "]").items) == 1
    bad = parse_brain('{"version":1,"items":{}}')
    assert [i.why for i in bad.invalid] == ["'items' is not a list"]


def test_mcp_relation_follows_its_entity() -> None:
    parsed = parse_mcp_memory(
        '{"type":"relation","from":"nas01","to":"ups","relationType":"is_powered_by"}\n'
        '{"type":"entity","name":"nas01","entityType":"Server","observations":[]}\n'
    )
    relation, entity = parsed.items
    assert relation.facts == ("nas01 is powered by ups",) and relation.kind == "server"
    assert entity.facts == ("nas01 (Server)",)


def test_memory_bullets_carry_heading_and_continuations() -> None:
    items = memory_bullets("M", "# Top\n## Infra\n- a\n  b\n```\n- code\n```\nprose\n")
    assert [(i.facts, i.hint) for i in items] == [
        (("a b",), "Infra"),
        (("Infra", "", "```", "- code", "```"), "Infra"),
        (("prose",), "Infra"),
    ]


def test_daily_note_drops_its_own_date_heading() -> None:
    item = daily_note("memory/2026-11-20.md", "# 2026-11-20\n\n- a\n")
    assert not isinstance(item, type(None))
    assert getattr(item, "facts", None) == ("- a",)
    bad = daily_note("memory/2026-02-30.md", "x")
    assert getattr(bad, "why", "").startswith("file name is not a date")


def test_claude_index_link_to_a_missing_file_is_invalid() -> None:
    parsed = parse_claude("- [A](a.md) — x\n- [B](b.md) — y\n", [("a.md", "Fact about A.\n")])
    assert [i.ref for i in parsed.invalid] == ["MEMORY.md:2"]
    assert parsed.items[0].facts == ("a: Fact about A.",)


def test_envelope_rejects_what_is_not_an_export() -> None:
    for text in ("nope", "[]", '{"format": "other"}', '{"format": "memtier-export", "version": 9}'):
        with pytest.raises(EnvelopeError):
            parse_envelope(text)


def test_shift_dates_moves_paths_and_text_and_keeps_impossible_dates() -> None:
    files = [ExportedFile("memory/episodic/2026-11-29.md", "cold", "# 2026-11-29\n2026-13-01\n")]
    (moved,) = shift_dates(files, 2)
    assert moved.path == "memory/episodic/2026-12-01.md"
    assert moved.text == "# 2026-12-01\n2026-13-01\n"


texts = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=80)


@settings(max_examples=30, derandomize=True)
@given(st.lists(st.tuples(st.from_regex(r"[a-z]{1,8}\.md", fullmatch=True), texts), max_size=4))
def test_envelope_round_trip_keeps_every_character(pairs: list[tuple[str, str]]) -> None:
    files = [ExportedFile(f"memory/semantic/{n}", "warm", "\ufeff" + t + "\r\n") for n, t in pairs]
    unique = list({f.path: f for f in files}.values())
    parsed, invalid = parse_envelope(dump_envelope(build_envelope(unique, "2026-11-30")))
    assert not invalid
    assert [(f.path, f.data) for f in parsed] == [(f.path, f.data) for f in unique]


@settings(max_examples=80, derandomize=True)
@given(texts)
def test_no_input_crashes_the_parsers(text: str) -> None:
    parse_brain(text)
    parse_mcp_memory(text)
    memory_bullets("M", text)
    with contextlib.suppress(FrontMatterError):
        split_front_matter(text)
