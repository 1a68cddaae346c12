"""YAML front matter of the markdown memories memtier imports (PROTOCOL §12 v3): pure text.

The neighbouring systems write their front matter with real YAML writers
(gray-matter and js-yaml): block scalars (``title: >-``), nested mappings (Claude
Code's ``metadata:``), flow and block lists, quoted dates. So it is read with a real
YAML parser, PyYAML's safe loader, imported here only (the import command is the
one reader of foreign front matter). The front matter is bounded before parsing
(size, no aliases, nesting depth): hostile input is malformed, never a crash.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memtier.formats.sources_json import nests_within

FENCE = "---"
MAX_FRONT_MATTER = 64 * 1024  # characters between the fences
MAX_DEPTH = 20


class FrontMatterError(ValueError):
    """The front matter is missing, unterminated or not a YAML mapping."""


@dataclass(frozen=True)
class Document:
    """A markdown file split into its front matter fields and its body."""

    fields: dict[str, Any]
    body: str


def _no_aliases(text: str) -> None:
    """An alias makes a small text a huge value (PROTOCOL §12 v3: bounded parsers)."""
    import yaml

    loader_class = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader = loader_class(text)
    try:
        while loader.check_token():
            token = loader.get_token()
            if isinstance(token, yaml.AliasToken | yaml.AnchorToken):
                raise FrontMatterError("front matter uses YAML anchors or aliases")
    finally:
        loader.dispose()


def parse_fields(block: str) -> dict[str, Any]:
    """The fields of the text between the fences (a YAML mapping, or nothing)."""
    import yaml

    if len(block) > MAX_FRONT_MATTER:
        raise FrontMatterError(f"front matter longer than {MAX_FRONT_MATTER} characters")
    if block.count("[") + block.count("{") > 2 * MAX_DEPTH and not _shallow(block):
        raise FrontMatterError(f"front matter nested deeper than {MAX_DEPTH} levels")
    try:
        _no_aliases(block)
        loader_class = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        value = yaml.load(block, Loader=loader_class)
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        line = f" line {where.line + 1}" if where is not None else ""
        problem = getattr(exc, "problem", None) or "not YAML"
        raise FrontMatterError(f"front matter{line}: {problem}") from None
    except RecursionError:
        raise FrontMatterError(f"front matter nested deeper than {MAX_DEPTH} levels") from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise FrontMatterError("front matter is not a set of 'key: value' lines")
    if not nests_within(value, MAX_DEPTH):
        raise FrontMatterError(f"front matter nested deeper than {MAX_DEPTH} levels")
    return {str(k): v for k, v in value.items()}


def _shallow(block: str) -> bool:
    """True when the brackets of *block* never nest deeper than MAX_DEPTH."""
    depth = 0
    for char in block:
        if char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return False
        elif char in "]}":
            depth = max(0, depth - 1)
    return True


def split_front_matter(text: str) -> Document:
    """Split *text* (``\\n`` newlines) into front matter and body.

    Raises `FrontMatterError` when the file does not open with a ``---`` line, the
    closing ``---`` is missing, or the block between is not a YAML mapping.
    """
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    lines = text.split("\n")
    if not lines or lines[0].strip() != FENCE:
        raise FrontMatterError("no front matter (the file must start with '---')")
    for index in range(1, len(lines)):
        if lines[index].strip() == FENCE:
            fields = parse_fields("\n".join(lines[1:index]))
            return Document(fields=fields, body="\n".join(lines[index + 1 :]).strip("\n"))
    raise FrontMatterError("front matter is not closed by a '---' line")


def field(fields: dict[str, Any], key: str) -> Any:
    """*key* of the front matter, or of its nested ``metadata:`` (Claude Code's layout)."""
    if key in fields and fields[key] is not None:
        return fields[key]
    nested = fields.get("metadata")
    if isinstance(nested, dict):
        return nested.get(key)
    return None


def text_list(value: object) -> tuple[str, ...]:
    """A list field (or a comma-separated string) as strings; other values give ()."""
    if isinstance(value, list):
        return tuple(
            str(v).strip()
            for v in value
            if isinstance(v, str | int | float) and not isinstance(v, bool) and str(v).strip()
        )
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    return ()
