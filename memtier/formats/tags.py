"""The ``#tags:`` line of HOT and WARM files (PROTOCOL §2): parsed and written here only.

Line 2 of ``MEMORY.md`` and of every WARM file starts with ``#tags:``; the rest
splits on spaces, commas and ``|`` (PROTOCOL §2, compat: the original scripts
split on the shell's whitespace too, so a tab separates as well). Empty tokens
are dropped. memtier writes the line as ``#tags: a, b`` (or a bare ``#tags:``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

TAGS_PREFIX = "#tags:"
_SPLIT = re.compile(r"[\s,|]+")


def is_tag_line(line: str) -> bool:
    return line.startswith(TAGS_PREFIX)


def parse_tag_line(line: str) -> tuple[str, ...] | None:
    """The tokens of a ``#tags:`` line, in order, empty ones dropped; None if not one."""
    if not line.startswith(TAGS_PREFIX):
        return None
    return tuple(token for token in _SPLIT.split(line[len(TAGS_PREFIX) :]) if token)


def format_tag_line(tags: Iterable[str]) -> str:
    """The ``#tags:`` line memtier writes for *tags*."""
    joined = ", ".join(tags)
    return f"{TAGS_PREFIX} {joined}" if joined else TAGS_PREFIX
