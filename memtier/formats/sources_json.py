"""The JSON sources of `memtier import` (PROTOCOL §12): pure text in, items out.

- ``brain``: the memory-brain plugin's store, one ``{id, kind, text, createdAt,
  tags}`` object per line, or its export envelope ``{version, exportedAt, count,
  items}`` (a bare array of items is accepted too, as the plugin's own import does).
- ``mcp-memory``: the reference MCP memory server's JSONL, lines of
  ``{"type": "entity", "name", "entityType", "observations"}`` and
  ``{"type": "relation", "from", "to", "relationType"}``.

A line or item that cannot be read becomes an `Invalid` entry naming where it
stands; nothing is dropped silently.
"""

from __future__ import annotations

import json
from typing import Any

from memtier.formats.routing import Invalid, Parsed, SourceItem, source_day


def _text_list(value: object) -> tuple[str, ...] | None:
    if value is None:
        return ()
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(v.strip() for v in value if v.strip())
    return None


def _brain_item(ref: str, raw: object) -> SourceItem | Invalid:
    if not isinstance(raw, dict):
        return Invalid(ref, "not a JSON object")
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
    return SourceItem(
        ref=ref,
        facts=(text.strip(),),
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
            rows.append((ref, json.loads(line)))
        except json.JSONDecodeError as exc:
            invalid.append(Invalid(ref, f"not JSON ({exc.msg})"))
    return rows, invalid


def _whole_document(text: str) -> Any:
    """The text as one JSON document, or None when it is not one (then: JSONL)."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return None
    try:
        return json.loads(stripped)
    except json.JSONDecodeError:
        return None


def parse_brain(text: str) -> Parsed:
    """Items of a brain JSONL store or export envelope."""
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
        parsed.add(_brain_item(ref, raw))
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
