"""The working buffer's format (PROTOCOL §2): header, active tasks, thresholds."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memtier.config import Config
from memtier.errors import InputError
from memtier.formats.buffer import (
    ACTIVE_HEADING,
    BUFFER_TITLE,
    Buffer,
    active_task_lines,
    count_lines,
    fresh_buffer,
    header_problem,
    is_oversized,
    is_stale,
    parse_buffer,
)

NOW = datetime.fromisoformat("2026-11-30T10:00:00+01:00")
CONFIG = Config()
HEADER = (
    "# Working Buffer\ncreated: 2026-11-30T09:15:00+01:00\n"
    "last_active: 2026-11-30T10:02:41+01:00\n\n"
)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (HEADER + "## Active Task:\n", None),
        (HEADER, None),
        ("", "line 1 must be '# Working Buffer'"),
        ("# Working buffer\n" + HEADER.split("\n", 1)[1], "line 1 must be '# Working Buffer'"),
        (HEADER.replace("created: ", "created:"), "line 2 must start with 'created: '"),
        (
            HEADER.replace("created: 2026-11-30T09", "created: 2026-11-30 09"),
            "created timestamp invalid",
        ),
        (
            HEADER.replace("created: 2026-11-30T09:15:00", "created: 2026-13-30T09:15:00"),
            "created timestamp invalid",
        ),
        (
            HEADER.replace("last_active: ", "last-active: "),
            "line 3 must start with 'last_active: '",
        ),
        (HEADER.replace("10:02:41+01:00", "10:02:41"), "last_active timestamp invalid"),
        (HEADER.replace("+01:00\n\n", "+01:00\nx\n"), "line 4 must be blank"),
        (HEADER.replace("+01:00\n\n", "+01:00\n \n"), "line 4 must be blank"),
        # The fields in the wrong order: the first problem is named.
        (
            "# Working Buffer\nlast_active: 2026-11-30T10:02:41+01:00\n"
            "created: 2026-11-30T09:15:00+01:00\n\n",
            "line 2 must start with 'created: '",
        ),
        (HEADER.replace("+01:00\n\n", "Z\n\n"), None),
        (HEADER.replace("10:02:41", "10:02:41,5"), None),
    ],
)
def test_header_problem(text: str, problem: str | None) -> None:
    assert header_problem(text) == problem


def test_parse_buffer_splits_header_and_body() -> None:
    buf = parse_buffer(HEADER + "## Active Task:\n- one\n-  two\n-\n- \n")
    assert buf.created == "2026-11-30T09:15:00+01:00"
    assert buf.last_active == "2026-11-30T10:02:41+01:00"
    assert buf.body == "## Active Task:\n- one\n-  two\n-\n- \n"
    assert buf.active_task_lines == ["- one", "-  two"]
    assert buf.active_tasks == ["one", "two"]
    assert buf.last_active_at() == datetime.fromisoformat("2026-11-30T10:02:41+01:00")


def test_parse_buffer_rejects_a_bad_header() -> None:
    with pytest.raises(InputError) as caught:
        parse_buffer(HEADER.replace("+01:00\n\n", "+01:00\nx\n"))
    assert str(caught.value) == "working-buffer.md — line 4 must be blank"


def test_active_section_ends_at_next_heading() -> None:
    text = "intro\n- not a task\n## Active Task:\n- a\n\n- b\n## Notes\n- c\n"
    assert active_task_lines(text) == ["- a", "- b"]
    assert active_task_lines("no heading\n- x\n") == []
    assert active_task_lines("## Active Task:   \n-\ttabbed\n") == ["-\ttabbed"]


def test_render_round_trip_and_newline() -> None:
    buf = Buffer("2026-11-30T09:15:00+01:00", "2026-11-30T10:00:00+01:00", "## Active Task:")
    assert buf.body == "## Active Task:\n"
    assert buf.render().endswith("\n")
    assert parse_buffer(buf.render()) == buf
    assert parse_buffer(HEADER).render() == HEADER


def test_count_lines_is_wc_l() -> None:
    assert count_lines("") == 0
    assert count_lines("a") == 0
    assert count_lines("a\nb\n") == 2


def _buffer(last_active: str) -> Buffer:
    return Buffer("2026-11-30T06:00:00+01:00", last_active, "## Active Task:\n")


def test_stale_is_strictly_greater_than_stale_hours() -> None:
    exactly = (NOW - timedelta(hours=2)).isoformat()
    one_more = (NOW - timedelta(hours=2, seconds=1)).isoformat()
    assert not is_stale(_buffer(exactly), NOW, CONFIG)
    assert is_stale(_buffer(one_more), NOW, CONFIG)
    assert is_stale(_buffer("not a time"), NOW, CONFIG)
    assert not is_stale(_buffer("2026-11-30T09:00:00Z"), NOW, CONFIG)  # 10:00+01:00 = 09:00Z


def test_oversized_thresholds() -> None:
    three = HEADER + ACTIVE_HEADING + "\n" + "".join(f"- t{i}\n" for i in range(3))
    four = HEADER + ACTIVE_HEADING + "\n" + "".join(f"- t{i}\n" for i in range(4))
    assert not is_oversized(three, CONFIG)
    assert is_oversized(four, CONFIG)
    eighty = HEADER + "x\n" * (80 - count_lines(HEADER))
    assert count_lines(eighty) == 80
    assert not is_oversized(eighty, CONFIG)
    assert is_oversized(eighty + "x\n", CONFIG)


def test_fresh_buffer_is_a_valid_empty_buffer() -> None:
    text = fresh_buffer(NOW, CONFIG)
    buf = parse_buffer(text)
    assert text.startswith(BUFFER_TITLE + "\n")
    assert buf.created == buf.last_active == "2026-11-30T10:00:00+01:00"
    assert buf.body == ACTIVE_HEADING + "\n"
    assert buf.active_tasks == []
    assert not buf.has_content


_timestamps = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2099, 12, 31)).map(
    lambda d: d.replace(microsecond=0).isoformat() + "+01:00"
)


@given(_timestamps, _timestamps, st.text())
def test_round_trip_any_body(created: str, last_active: str, body: str) -> None:
    buf = Buffer(created, last_active, body)
    again = parse_buffer(buf.render())
    assert again == buf
    assert again.render() == buf.render()


@given(st.text())
def test_header_problem_never_crashes(text: str) -> None:
    problem = header_problem(text)
    if problem is None:
        assert parse_buffer(text).render().startswith(BUFFER_TITLE)
    else:
        with pytest.raises(InputError):
            parse_buffer(text)
