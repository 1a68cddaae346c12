"""YAML front matter of the markdown memories memtier imports (PROTOCOL §12): pure text.

The neighbouring systems write a small, flat subset of YAML between two ``---``
lines: ``key: value`` scalars (plain or quoted), inline lists (``[a, 'b']``) and
block lists (``key:`` followed by ``- item`` lines). That subset is all an import
needs, so memtier reads it itself instead of depending on a YAML library; anything
outside it is reported as malformed, never guessed at.
"""

from __future__ import annotations

from dataclasses import dataclass

Scalar = str | int | float | bool | None
Value = Scalar | list[Scalar]

FENCE = "---"


class FrontMatterError(ValueError):
    """The front matter is missing, unterminated or not the flat YAML subset."""


@dataclass(frozen=True)
class Document:
    """A markdown file split into its front matter fields and its body."""

    fields: dict[str, Value]
    body: str


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        inner = text[1:-1]
        if text[0] == "'":
            return inner.replace("''", "'")
        return inner.replace('\\"', '"').replace("\\\\", "\\")
    return text


def _scalar(text: str) -> Scalar:
    text = text.strip()
    if not text or text in ("~", "null", "Null", "NULL"):
        return None
    if text[0] in "'\"":
        return _unquote(text)
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    # A plain scalar ends at a comment (" #").
    return text.split(" #", 1)[0].rstrip()


def _inline_list(text: str) -> list[Scalar]:
    inner = text.strip()[1:-1].strip()
    if not inner:
        return []
    items: list[str] = []
    current: list[str] = []
    quote = ""
    for char in inner:
        if quote:
            current.append(char)
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
            current.append(char)
        elif char == ",":
            items.append("".join(current))
            current = []
        else:
            current.append(char)
    if quote:
        raise FrontMatterError("unterminated quote in a list")
    items.append("".join(current))
    return [_scalar(item) for item in items if item.strip()]


def parse_fields(lines: list[str]) -> dict[str, Value]:
    """The fields of the lines between the fences."""
    fields: dict[str, Value] = {}
    open_list: str | None = None
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("- ") or stripped == "-":
            if open_list is None:
                raise FrontMatterError(f"front matter line {number}: list item without a key")
            target = fields[open_list]
            assert isinstance(target, list)
            target.append(_scalar(stripped[1:]))
            continue
        key, colon, rest = line.partition(":")
        if not colon or not key.strip() or key != key.rstrip() or key.startswith((" ", "\t")):
            raise FrontMatterError(f"front matter line {number}: expected 'key: value'")
        rest = rest.strip()
        if not rest:
            fields[key] = []
            open_list = key
            continue
        open_list = None
        if rest.startswith("[") and rest.endswith("]"):
            fields[key] = _inline_list(rest)
        elif rest.startswith(("[", "{")):
            raise FrontMatterError(f"front matter line {number}: unsupported value for '{key}'")
        else:
            fields[key] = _scalar(rest)
    return fields


def split_front_matter(text: str) -> Document:
    """Split *text* (``\\n`` newlines) into front matter and body.

    Raises `FrontMatterError` when the file does not open with a ``---`` line or
    the closing ``---`` is missing.
    """
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    lines = text.split("\n")
    if not lines or lines[0].strip() != FENCE:
        raise FrontMatterError("no front matter (the file must start with '---')")
    for index in range(1, len(lines)):
        if lines[index].strip() == FENCE:
            fields = parse_fields(lines[1:index])
            return Document(fields=fields, body="\n".join(lines[index + 1 :]).strip("\n"))
    raise FrontMatterError("front matter is not closed by a '---' line")


def text_list(value: object) -> tuple[str, ...]:
    """A list field (or a comma-separated string) as strings; other values give ()."""
    if isinstance(value, list):
        return tuple(str(v).strip() for v in value if v is not None and str(v).strip())
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    return ()
