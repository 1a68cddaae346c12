"""Shared pieces of tool definitions: the four hints, the budget parameter, read-on calls.

Every tool states all four hints (PROTOCOL §11): a client that finds one
missing assumes the worst (Codex asks before every call of a tool it must
treat as destructive). Nothing memtier does reaches outside the workspace, so
``openWorldHint`` is always false.
"""

from __future__ import annotations

from typing import Annotated

from mcp_types import ToolAnnotations
from pydantic import Field

from memtier.mcp.shaping import DEFAULT_MAX_CHARS, MIN_MAX_CHARS

MaxChars = Annotated[
    int,
    Field(
        ge=MIN_MAX_CHARS,
        description="Most characters of text to return (default 8000). A cut result says "
        "so and names the call that returns the rest.",
    ),
]
DEFAULT_BUDGET = DEFAULT_MAX_CHARS


def read_only(title: str) -> ToolAnnotations:
    return ToolAnnotations(
        title=title,
        read_only_hint=True,
        destructive_hint=False,
        idempotent_hint=True,
        open_world_hint=False,
    )


def writes(title: str, *, destructive: bool = False, idempotent: bool = False) -> ToolAnnotations:
    return ToolAnnotations(
        title=title,
        read_only_hint=False,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=False,
    )


def get_call(path: str, first: int | None = None, last: int | None = None) -> str:
    """The memory_get call that reads *path* from line *first* (to *last*)."""
    if first is None:
        return f"memory_get(path='{path}')"
    if last is None:
        return f"memory_get(path='{path}', from_line={first})"
    return f"memory_get(path='{path}', from_line={first}, to_line={last})"
