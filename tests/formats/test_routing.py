"""memtier.formats.routing: where an imported item goes (PROTOCOL §12): kinds, facts, days."""

from __future__ import annotations

from datetime import date

import pytest

from memtier.formats.routing import SourceItem, route, slug, source_day
from memtier.formats.sources_body import split_body


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
    assert split_facts("Docker", "runs on\nhost b") == ("Docker: runs on\nhost b",)
    assert split_facts("Docker", "Docker runs") == ("Docker runs",)
    assert split_facts("", "") == ()


def test_source_day_reads_iso_and_epoch_milliseconds() -> None:
    assert source_day("2026-05-20T23:30:00-05:00") == date(2026, 5, 20)
    assert source_day("2026-05-20T14:30:00.000Z") == date(2026, 5, 20)
    assert source_day(1778403600000) == date(2026, 5, 10)
    assert source_day("1778403600000") == date(2026, 5, 10)
    assert source_day("last tuesday") is None
    assert source_day(True) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Restic Backup!", "restic-backup"),
        ("", "reference"),
        ("--", "reference"),
        ("x" * 50, "x" * 40),
    ],
)
def test_slug(text: str, expected: str) -> None:
    assert slug(text) == expected


def test_a_type_wins_over_tags_and_tags_over_the_heading() -> None:
    typed = route(SourceItem("a", ("x",), kind="user", tags=("docker",)))
    assert (typed.kind, typed.why) == ("preference", "type 'user'")
    tagged = route(SourceItem("a", ("x",), tags=("docker",), hint="Preferences"))
    assert tagged.kind == "infrastructure" and tagged.why == "tag 'docker'"


def test_source_day_bounds() -> None:
    assert source_day(10**16) is None  # past any calendar
    assert source_day("9" * 16) is None
    assert source_day("2026-05-20 garbage") == date(2026, 5, 20)
    assert source_day("x" * 65) is None


def split_facts(title: str, body: str) -> tuple[str, ...]:
    return split_body(title, body).facts
