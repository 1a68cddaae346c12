"""How the tool server names what a core error refers to (PROTOCOL §11 v3).

The core names a parameter at fault or an operation that fixes it as a
`memtier.errors.Term`; the command line words it as a flag or a command, the
tool server as the tool's parameter or the tool call. A change to the tag
vocabulary is the person's act, not a tool's: it is named as such.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memtier.errors import MemtierError, Term

# Core parameter → the tool parameter that carries it.
_PARAMETERS = {
    "kind": "kind",
    "to": "file",
    "in_file": "file",
    "date": "date",
    "section": "section",
    "tags": "tags",
    "stale": "stale=true",
    "path": "path",
    "as_text": "as_text",
    "reason": "reason",
}
_CALLS = {
    "replace": "memory_replace(old, new, file='{file}')",
    "retire": "memory_retire(old, file='{file}', reason)",
    "remember_warm": "memory_remember(text, kind)",
    "session-start": "memory_session_start",
    "health-verbose": "memory_health(verbose=true)",
    "candidates": "memory_overview",
    "tags_add": "a tag is added to memory/memtier.toml by the person, not by a tool: ask them",
}


def tool_words(term: Term) -> str:
    if term.name in _CALLS:
        return _CALLS[term.name].replace("{file}", term.file or "FILE")
    return _PARAMETERS.get(term.name, term.name)


def tool_message(error: MemtierError) -> str:
    return error.worded(tool_words)
