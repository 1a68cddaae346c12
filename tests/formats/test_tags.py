"""The one ``#tags:`` parser (PROTOCOL §2), and the places that read the line through it."""

from __future__ import annotations

import pytest

from memtier.config import Config
from memtier.formats.tags import format_tag_line, parse_tag_line
from memtier.formats.templates import filter_tags_line


@pytest.mark.parametrize(
    ("line", "tags"),
    [
        ("#tags: a, b|c d", ("a", "b", "c", "d")),
        ("#tags:a|b", ("a", "b")),
        ("#tags: a\tb ,, |", ("a", "b")),
        ("#tags:", ()),
        ("#tags:   ", ()),
        ("tags: a", None),
        ("# tags: a", None),
        ("", None),
    ],
)
def test_parse_tag_line(line: str, tags: tuple[str, ...] | None) -> None:
    assert parse_tag_line(line) == tags


def test_format_is_what_parse_reads_back() -> None:
    assert format_tag_line(["docker", "ssh"]) == "#tags: docker, ssh"
    assert format_tag_line([]) == "#tags:"
    assert parse_tag_line(format_tag_line(["docker", "ssh"])) == ("docker", "ssh")


def test_template_filter_splits_on_the_bar_too() -> None:
    config = Config(vocabulary=("docker", "ssh"))
    assert filter_tags_line("#tags: docker|ssh|other", config) == "#tags: docker, ssh"
