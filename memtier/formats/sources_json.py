"""The JSON sources of `memtier import` (PROTOCOL §12): pure text in, items out.

- ``brain``: the memory-brain plugin's store as memory-core writes it, one
  ``{"item": {id, kind, text, createdAt, expiresAt, source, tags}, "embedding": […]}``
  per line (v3), flat items, or its export envelope ``{version, exportedAt, count,
  items}`` (a bare array of items is accepted too, as the plugin's own import does).
  An item past its ``expiresAt`` is skipped as ``expired``, as the plugin hides it.
- ``mcp-memory``: the reference MCP memory server's JSONL, lines of
  ``{"type": "entity", "name", "entityType", "observations"}`` and
  ``{"type": "relation", "from", "to", "relationType"}``.

A line or item that cannot be read becomes an `Invalid` entry naming where it
stands; nothing is dropped silently. Every JSON text goes through `load_json`,
bounded in nesting depth and number size (PROTOCOL §12 v3: bad input is an input
error, never a crash).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from memtier.formats.routing import Invalid, Parsed, SourceItem, source_day
from memtier.formats.sources_body import split_body

MAX_DEPTH = 64
MAX_NUMBER_DIGITS = 40


class JSONBoundError(ValueError):
    """The text is JSON past memtier's bounds (too deep, a number too long)."""


def _bounded_int(text: str) -> int:
    if len(text) > MAX_NUMBER_DIGITS:
        raise JSONBoundError(f"a number of {len(text)} digits (at most {MAX_NUMBER_DIGITS})")
    return int(text)


def _bounded_float(text: str) -> float:
    if len(text) > MAX_NUMBER_DIGITS + 10:
        raise JSONBoundError(f"a number of {len(text)} characters")
    return float(text)


def _no_constant(text: str) -> Any:
    raise JSONBoundError(f"{text} is not a JSON number")


def nests_within(value: Any, limit: int = MAX_DEPTH) -> bool:
    """True when *value* nests no deeper than *limit* (iterative: no recursion); for
    every parser of import, JSON and YAML alike (PROTOCOL §12 v3: bounded parsers)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        current, depth = stack.pop()
        if depth > limit:
            return False
        if isinstance(current, dict):
            stack.extend((v, depth + 1) for v in current.values())
        elif isinstance(current, list):
            stack.extend((v, depth + 1) for v in current)
    return True


def load_json(text: str) -> Any:
    """`json.loads`, bounded: `ValueError` (a `json.JSONDecodeError` or a
    `JSONBoundError`) for anything that is not JSON within the bounds."""
    try:
        value = json.loads(
            text, parse_int=_bounded_int, parse_float=_bounded_float, parse_constant=_no_constant
        )
    except RecursionError:
        raise JSONBoundError(f"nested deeper than {MAX_DEPTH} levels") from None
    if not nests_within(value):
        raise JSONBoundError(f"nested deeper than {MAX_DEPTH} levels")
    return value


def json_problem(exc: ValueError) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"not JSON ({exc.msg})"
    return f"not JSON within bounds ({exc})"


def _text_list(value: object) -> tuple[str, ...] | None:
    if value is None:
        return ()
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(v.strip() for v in value if v.strip())
    return None


def _expired(raw: dict[str, Any], now: datetime | None) -> str | None:
    """The reason an item past its ``expiresAt`` is skipped, else None."""
    value = raw.get("expiresAt")
    if now is None or not isinstance(value, str) or len(value) > 64:
        return None
    try:
        when = datetime.fromisoformat(value.strip().replace("z", "Z"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=now.tzinfo)
    return f"expiresAt {value.strip()} has passed" if when <= now else None


def _brain_item(ref: str, raw: object, now: datetime | None) -> SourceItem | Invalid:
    if isinstance(raw, dict) and isinstance(raw.get("item"), dict):
        raw = raw["item"]  # memory-core's store line: {"item": …, "embedding": […]}
    if not isinstance(raw, dict):
        return Invalid(ref, "not a JSON object")
    expired = _expired(raw, now)
    if expired is not None:
        return Invalid(ref, expired, label="expired")
    text = raw.get("text")
    if not isinstance(text, str) or not text.strip():
        return Invalid(ref, "no 'text'")
    tags = _text_list(raw.get("tags"))
    if tags is None:
        return Invalid(ref, "'tags' is not a list of strings")
    kind = raw.get("kind")
    created = raw.get("createdAt")
    day = source_day(created)
    if created not in (None, "") and day is None:
        return Invalid(ref, "'createdAt' is not a date")
    source = raw.get("source")
    if isinstance(source, dict):
        said = [f"{k} {v}" for k, v in source.items() if isinstance(v, str) and v.strip()]
        source = ", ".join(said) if said else None
    body = split_body("", text)
    facts = body.facts
    if isinstance(source, str) and source.strip() and not body.block:
        facts = tuple(f"{fact} (source: {source.strip()})" for fact in facts)
    return SourceItem(
        ref=ref,
        facts=facts,
        block=body.block,
        # The plugin's own import turns an unknown kind into "note"; so does routing.
        kind=kind.strip().lower() if isinstance(kind, str) and kind.strip() else None,
        tags=tags,
        day=day,
    )


def _json_lines(text: str) -> tuple[list[tuple[str, Any]], list[Invalid]]:
    rows: list[tuple[str, Any]] = []
    invalid: list[Invalid] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        ref = f"line {number}"
        try:
            rows.append((ref, load_json(line)))
        except ValueError as exc:
            invalid.append(Invalid(ref, json_problem(exc)))
    return rows, invalid


def _whole_document(text: str) -> Any:
    """The text as one JSON document, or None when it is not one (then: JSONL)."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return None
    try:
        return load_json(stripped)
    except JSONBoundError:
        raise
    except ValueError:
        return None


def parse_brain(text: str, now: datetime | None = None) -> Parsed:
    """Items of a brain JSONL store or export envelope; *now* decides ``expiresAt``.

    Raises `JSONBoundError` when the text is one JSON document past the bounds."""
    whole = _whole_document(text)
    rows: list[tuple[str, Any]]
    invalid: list[Invalid] = []
    if isinstance(whole, dict) and "items" in whole:
        items = whole["items"]
        if not isinstance(items, list):
            return Parsed([], [Invalid("envelope", "'items' is not a list")])
        rows = [(f"item {n}", item) for n, item in enumerate(items, start=1)]
    elif isinstance(whole, list):
        rows = [(f"item {n}", item) for n, item in enumerate(whole, start=1)]
    else:
        rows, invalid = _json_lines(text)
    parsed = Parsed(invalid=invalid)
    for ref, raw in rows:
        parsed.add(_brain_item(ref, raw, now))
    return parsed


def _entity(ref: str, raw: dict[str, Any]) -> SourceItem | Invalid:
    name, kind = raw.get("name"), raw.get("entityType")
    if not isinstance(name, str) or not name.strip():
        return Invalid(ref, "entity without a 'name'")
    if not isinstance(kind, str) or not kind.strip():
        return Invalid(ref, "entity without an 'entityType'")
    observations = _text_list(raw.get("observations"))
    if observations is None:
        return Invalid(ref, "'observations' is not a list of strings")
    name = name.strip()
    facts = tuple(f"{name}: {obs}" for obs in observations) or (f"{name} ({kind.strip()})",)
    return SourceItem(ref=ref, facts=facts, kind=kind.strip().lower(), title=name)


def _relation(ref: str, raw: dict[str, Any], kinds: dict[str, str]) -> SourceItem | Invalid:
    ends = [raw.get(key) for key in ("from", "relationType", "to")]
    if not all(isinstance(v, str) and v.strip() for v in ends):
        return Invalid(ref, "relation needs 'from', 'to' and 'relationType'")
    source, relation, target = (str(v).strip() for v in ends)
    fact = f"{source} {relation.replace('_', ' ')} {target}"
    # A relation lives with the entity it starts from.
    return SourceItem(ref=ref, facts=(fact,), kind=kinds.get(source), title=source)


def parse_mcp_memory(text: str) -> Parsed:
    """Entities (with their observations) and relations of an MCP memory JSONL file."""
    rows, invalid = _json_lines(text)
    parsed = Parsed(invalid=invalid)
    kinds = {
        str(raw["name"]).strip(): str(raw["entityType"]).strip().lower()
        for _ref, raw in rows
        if isinstance(raw, dict)
        and raw.get("type") == "entity"
        and isinstance(raw.get("name"), str)
        and isinstance(raw.get("entityType"), str)
    }
    for ref, raw in rows:
        item: SourceItem | Invalid
        if not isinstance(raw, dict):
            item = Invalid(ref, "not a JSON object")
        elif raw.get("type") == "entity":
            item = _entity(ref, raw)
        elif raw.get("type") == "relation":
            item = _relation(ref, raw, kinds)
        else:
            item = Invalid(ref, "'type' is neither 'entity' nor 'relation'")
        parsed.add(item)
    return parsed
