"""The sync attributes: which merge driver git runs on which tracked file (PROTOCOL §14 v4).

Written by `sync init` into the repository's own ``info/attributes`` (never a tracked
file, so a remote cannot change them); `driver_of` reads them as git does, for the
code that must know a file's driver without asking git.
"""

from __future__ import annotations

import re
from functools import cache

ATTRIBUTES = """\
# memtier sync (PROTOCOL §14): merges that understand these files.
# The drivers are set by `memtier sync init` in the memory's repository config.
# Every tracked file has one (§14 v4); the ones below `*` take precedence.
* merge=memtier-text
/MEMORY.md merge=memtier-fact
/memory/semantic/*.md merge=memtier-fact
/memory/procedural/*.md merge=memtier-fact
/memory/episodic/*.md merge=memtier-note
/memory/archive/**/*.md merge=memtier-note
/memory/archive/learnings/** merge=memtier-lines
/memory/archive/retired.md merge=memtier-lines
/.learnings/* merge=memtier-lines
/memory/INDEX.md merge=memtier-index
/memory/consolidated/* merge=memtier-generation
"""


@cache
def _attribute_lines() -> tuple[tuple[re.Pattern[str], str], ...]:
    """Each `ATTRIBUTES` line as (the paths it matches, the driver it names). Its
    pattern is read as git reads it: a leading ``/`` anchors at the top, ``**``
    crosses folders, ``*`` and ``?`` stay within one name, and a pattern with no
    ``/`` matches a name in any folder."""
    wild = {"**/": "(?:.*/)?", "/**": "/.*", "**": ".*", "*": "[^/]*", "?": "[^/]"}
    lines: list[tuple[re.Pattern[str], str]] = []
    for line in ATTRIBUTES.splitlines():
        words = line.split()
        if len(words) != 2 or line.startswith("#") or not words[1].startswith("merge="):
            continue
        pattern = words[0]
        parts = re.split(r"(\*\*/|/\*\*|\*\*|\*|\?)", pattern.removeprefix("/"))
        regex = "".join(wild.get(part, re.escape(part)) for part in parts)
        anywhere = "/" not in pattern
        lines.append((re.compile(f"(?:.*/)?{regex}" if anywhere else regex), words[1][6:]))
    return tuple(lines)


def driver_of(path: str) -> str | None:
    """The merge driver `ATTRIBUTES` gives *path* (relative to the workspace), as
    git decides it: the last line whose pattern matches."""
    for pattern, driver in reversed(_attribute_lines()):
        if pattern.fullmatch(path):
            return driver
    return None
