"""memtier.clock: the one place that knows the time (PROTOCOL §1, §2)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memtier.clock import (
    format_timestamp,
    parse_day,
    parse_now,
    parse_timestamp,
    resolve_now,
    today,
)
from memtier.errors import InputError
from tests.conftest import NOW, NOW_TEXT


def test_the_option_beats_the_environment() -> None:
    assert resolve_now(NOW_TEXT, "2001-01-01T00:00:00+00:00") == NOW
    assert resolve_now(None, NOW_TEXT) == NOW
    assert resolve_now(None, "").tzinfo is not None  # empty: the system clock, with an offset


def test_the_environment_names_itself_in_an_error() -> None:
    with pytest.raises(InputError, match=r"^MEMTIER_NOW: not an ISO 8601 date-time"):
        resolve_now(None, "yesterday")
    with pytest.raises(InputError, match=r"^--now: not an ISO 8601"):
        resolve_now("yesterday", None)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("20261130T091500Z", datetime(2026, 11, 30, 9, 15, tzinfo=UTC)),
        ("2026-W49-1T09:00:00+01:00", datetime(2026, 11, 30, 8, 0, tzinfo=UTC)),
        ("  2026-11-30T10:00:00+01:00 ", NOW),
    ],
)
def test_other_iso_forms(text: str, expected: datetime) -> None:
    assert parse_now(text) == expected


def test_a_value_without_an_offset_gets_the_local_one() -> None:
    assert parse_now("2026-11-30T10:00:00").tzinfo is not None


@pytest.mark.parametrize("text", ["0001-01-01T00:00:00+00:00", "9999-12-31T00:00:00+00:00"])
def test_years_past_the_range_are_refused(text: str) -> None:
    with pytest.raises(InputError, match="out of range"):
        parse_now(text)


def test_today_is_the_date_in_nows_own_offset() -> None:
    late = datetime(2026, 11, 30, 23, 30, tzinfo=timezone(timedelta(hours=-5)))
    assert today(late) == date(2026, 11, 30)  # already Dec 1 in UTC


def test_format_timestamp_is_seconds_with_an_offset() -> None:
    assert format_timestamp(NOW.replace(microsecond=123456)) == NOW_TEXT


@pytest.mark.parametrize(
    "text",
    [
        "2026-11-30T10:00:00",  # no offset
        "2026-11-30 10:00:00+01:00",  # a space, not T
        "2026-02-30T10:00:00+01:00",  # no such day
        "2026-11-30T10:00+01:00",  # no seconds
    ],
)
def test_parse_timestamp_refuses_what_the_grammar_does_not_allow(text: str) -> None:
    assert parse_timestamp(text) is None


def test_parse_timestamp_takes_fractions_with_a_comma_and_z() -> None:
    assert parse_timestamp("2026-11-30T09:00:00,5Z") == datetime(
        2026, 11, 30, 9, 0, 0, 500000, tzinfo=UTC
    )


def test_parse_day() -> None:
    assert parse_day("2026-11-30") == date(2026, 11, 30)
    assert parse_day("2026-02-30") is None
    assert parse_day("2026-11-30T10:00:00") is None


offsets = st.integers(-14 * 60, 14 * 60).map(lambda m: timezone(timedelta(minutes=m)))
moments = st.datetimes(
    min_value=datetime(1900, 1, 2), max_value=datetime(8999, 12, 30), timezones=offsets
)


@settings(max_examples=50)
@given(moments)
def test_a_written_timestamp_parses_back_to_the_same_moment(moment: datetime) -> None:
    text = format_timestamp(moment)
    assert parse_timestamp(text) == moment.replace(microsecond=0)
    assert parse_now(text) == moment.replace(microsecond=0)
