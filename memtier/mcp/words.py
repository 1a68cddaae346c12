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
    "force": "force=true",
    "stale": "stale=true",
    "path": "path",
    "as_text": "as_text",
    "reason": "reason",
    "topic": "topic",
    "slug": "slug",
    "due": "topic='due'",
    "plan_id": "plan_id",
    "summary": "summary",
    "max_chars": "max_chars",
    "summary_max_chars": "summary_max_chars in memtier.toml (the person's setting)",
    "max_lines": "max_lines",
    "match": "match",
    "status": "status",
    "category": "category",
    "limit": "limit",
    "context": "context",
    "regex": "regex=true",
    "decisions": "decisions",
    "signal": "signal",
    "open": "open",
    "days": "days",
    "demo": "demo",
    "add": "tags",
    "tier": "tiers",
    "output": "output",
}
_CALLS = {
    "replace": "memory_replace(old, new, file='{arg}')",
    "retire": "memory_retire(old, file='{arg}', reason)",
    "remember_warm": "memory_remember(text, kind)",
    "session-start": "memory_session_start",
    "health-verbose": "memory_health(verbose=true)",
    "candidates": "memory_overview",
    "tags_add": "a tag is added to memory/memtier.toml by the person, not by a tool: ask them",
    "health": "memory_health",
    "consolidate_plan": "memory_consolidate(topic='{arg}') without confirm",
    "index_add": "memory_index(action='add', slug, category)",
    "index_set": "memory_index(action='set', slug, match or status)",
    # the daily flush rebuilds the index (PROTOCOL §13); no tool rebuilds it alone
    "index_rebuild": "memory_flush (it rebuilds the index)",
    "consolidate_due": "memory_consolidate(topic='due')",
    "init": "setting up the workspace, the person's step (no tool does it)",
    "sync": "memory_sync",
    "sync_init": "the person sets up sync on this host; no tool does",
    "consolidate_write": "memory_consolidate(topic='{arg}', confirm=true)",
    "consolidate_summary": "with plan_id='{arg}' and your summary",
    "get": "memory_get(path='{arg}')",
    # the fixes health names (PROTOCOL §6 v4)
    "verify": "memory_verify(files=['{arg}'])",
    "rotate": "memory_rotate",
    "session-end": "memory_session_end",
    "close_day": "memory_close_day(date='{arg}', decisions, signal, open)",
    "close_day_none": (
        "memory_close_day(date='{arg}', decisions='none', signal='none', open='none')"
    ),
    "close_replace": "memory_close_day(decisions, signal, open, replace=true)",
    "close_drop": "memory_close_day(drop='{arg}'",
    "on_date": ", date='{arg}')",
    "install_scripts": "the person refreshes the shell shims; no tool does",
    "tags_list": "memory_overview",
    "tags_add_tag": "a tag is added to memory/memtier.toml by the person, not by a tool: ask them",
}


def tool_words(term: Term) -> str:
    if term.name in _CALLS:
        return _CALLS[term.name].format(arg=term.arg or "FILE")
    return _PARAMETERS.get(term.name, term.name)


def tool_message(error: MemtierError) -> str:
    return error.worded(tool_words)


def fixing_call(error: MemtierError) -> str | None:
    """The tool call that fixes *error*, when it names one (``memory_session_start``)."""
    for part in error.parts:
        if not isinstance(part, str) and part.name in _CALLS:
            words = tool_words(part)
            if words.startswith("memory_"):
                return words.partition("(")[0]
    return None
