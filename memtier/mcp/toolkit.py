"""How a memtier tool is defined: the conventions every tool follows (PROTOCOL §11 v3).

A client sends the whole tool list (names, descriptions, schemas) to the model on
every turn, and hands the model one channel of each result: the content blocks
or the structured content. So, for a new tool:

- **Description**: a sentence or two, written for a model: what the tool is for
  and when to call it (not how it works). The rest goes in code comments.
- **Parameters**: `Annotated[T, Field(description=...)]`, a few words each;
  plain types (str, int, bool, Literal, list[str]); integers bounded (`ge`,
  `le`). No description for what the name says (``max_chars`` is `MaxChars`).
  Arguments are checked strictly (no coercion: a boolean is not a string) and
  an unknown argument is refused (`memtier.mcp.arguments`).
- **Output**: the function returns a `CallToolResult`; its body returns the
  answer's text through `ToolRuntime.call`, which makes it the one text block
  of the result, within ``max_chars`` plus `ENVELOPE` characters. There is no
  structured content and no output schema (PROTOCOL §11 v4, "an answer is paid
  once": clients pass the structured part instead of the text, or beside it).
  Whatever an agent acts on (the call that returns the rest, a plan id, a
  ``path:line``) is in the text. A write reports what it did, not the input
  echoed.
- **Title and hints**: a short `title` a client shows a person, and all four
  hints through `read_only` or `writes`, true to what the tool does
  (``open_world`` only for a tool that reaches past the workspace: memory_sync).
- **Errors**: raise a `MemtierError` from the core; `ToolRuntime.call` words it
  in tool terms (parameter and tool names, never CLI flags or shell commands).
- **Shape**: a function of its family's module, its last parameter the
  keyword-only ``ctx: Context`` the SDK passes (never in the schema); the body
  starts with ``rt = runtime_of(ctx)``, the runtime the server was built with
  (its lifespan's value), so one definition serves every server of a process.
- Register it with `tool(...)` in its module's `tools()` list; the tool list's
  size is tested (`tests/mcp/test_budgets.py`, at most 12,000 characters).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from mcp_types import ToolAnnotations
from pydantic import Field

from memtier.mcp.shaping import DEFAULT_MAX_CHARS, MIN_MAX_CHARS

MaxChars = Annotated[int, Field(ge=MIN_MAX_CHARS)]
DEFAULT_BUDGET = DEFAULT_MAX_CHARS
LineNo = Annotated[int, Field(ge=1)]


def read_only() -> ToolAnnotations:
    return ToolAnnotations(
        read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    )


def writes(
    *, destructive: bool = False, idempotent: bool = False, open_world: bool = False
) -> ToolAnnotations:
    return ToolAnnotations(
        read_only_hint=False,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=open_world,
    )


def tool(fn: Callable[..., Any], title: str, annotations: ToolAnnotations) -> Any:
    """The SDK's `Tool` for *fn*, its input schema stripped of pydantic's titles."""
    from mcp.server.mcpserver.tools import Tool

    description = " ".join((fn.__doc__ or "").split())
    built = Tool.from_function(
        fn, name=fn.__name__, title=title, description=description, annotations=annotations
    )
    built.parameters = lean_schema(built.parameters)
    return built


def lean_schema(schema: Any) -> Any:
    """*schema* without what pydantic adds and a model does not need: ``title`` keys
    (the names say as much), ``anyOf [T, null]`` with ``default: null`` for an
    optional parameter (leaving it out says the same), defaults of ``[]`` and ``false``."""
    if isinstance(schema, dict):
        options = schema.get("anyOf")
        optional = isinstance(options, list) and len(options) == 2 and {"type": "null"} in options
        if optional and schema.get("default", ...) is None:
            (kept,) = [o for o in options or () if o != {"type": "null"}]
            rest = {k: v for k, v in schema.items() if k not in ("anyOf", "default")}
            return lean_schema({**kept, **rest})
        if schema.get("default", None) in ([], False) and schema.get("type") != "integer":
            schema = {k: v for k, v in schema.items() if k != "default"}
        return {
            key: (
                {name: lean_schema(sub) for name, sub in value.items()}
                if key in ("properties", "$defs")
                else lean_schema(value)
            )
            for key, value in schema.items()
            if not (key == "title" and isinstance(value, str))
        }
    if isinstance(schema, list):
        return [lean_schema(item) for item in schema]
    return schema


def get_call(path: str, first: int | None = None, last: int | None = None) -> str:
    """The memory_get call that reads *path* from line *first* (to *last*)."""
    if first is None:
        return f"memory_get(path='{path}')"
    if last is None:
        return f"memory_get(path='{path}', from_line={first})"
    return f"memory_get(path='{path}', from_line={first}, to_line={last})"
