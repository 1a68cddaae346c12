"""The markdown sources of `memtier import` (PROTOCOL §12): pure text in, items out.

Each parser takes the files as ``(relative name, text)`` pairs (the importer does
the reading) and returns `Parsed` items and invalid entries:

- ``indexed``: the BM25 memory plugin, ``YYYY-MM-DD-slug-id.md`` files whose front
  matter has ``id, created, updated, tags, source, score``; the body is ``# Title``
  then text. One file is one item.
- ``structured``: typed folders (``user/ feedback/ project/ reference/ knowledge/
  event/ custom/``) of files with ``id, type, title, createdAt`` (epoch ms),
  ``importance, tags``. One file is one item, routed by its type.
- ``openclaw``: ``MEMORY.md`` (each bullet is an item, its heading says what it is
  about) and ``memory/YYYY-MM-DD.md`` daily notes (one item each, kept as a block
  in that day's note).
- ``claude``: Claude Code's auto memory, a ``MEMORY.md`` index of links plus topic
  files (optional front matter ``name, description, type``). A topic file is an item;
  an index line that links to no topic file is invalid; any other index line is an
  item like a MEMORY.md bullet.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date

from memtier.formats.frontmatter import FrontMatterError, split_front_matter, text_list
from memtier.formats.routing import Invalid, Parsed, SourceItem, source_day, split_facts

Files = list[tuple[str, str]]

STRUCTURED_TYPES: tuple[str, ...] = (
    "user", "feedback", "project", "reference", "knowledge", "event", "custom",
)  # fmt: skip
_H1 = re.compile(r"^#\s+(.+?)\s*#*\s*$")
_DAY_NAME = re.compile(r"^(\d{4}-\d\d-\d\d)\.md$")
_LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)\)")
_BULLET = re.compile(r"^\s*([-*+]|\d+[.)])\s+")


def _title_and_rest(body: str) -> tuple[str, str]:
    """The first ``# Title`` of *body* and the body without it."""
    lines = body.split("\n")
    for index, line in enumerate(lines):
        found = _H1.match(line)
        if found:
            return found.group(1), "\n".join(lines[:index] + lines[index + 1 :])
        if line.strip():
            break
    return "", body


def _front_matter(name: str, text: str) -> tuple[dict[str, object], str] | Invalid:
    try:
        doc = split_front_matter(text)
    except FrontMatterError as exc:
        return Invalid(name, str(exc))
    return dict(doc.fields), doc.body


def parse_indexed(files: Files) -> Parsed:
    """Items of a BM25 memory folder (``indexed/``)."""
    return _each(files, _indexed_item)


def _indexed_item(name: str, text: str) -> SourceItem | Invalid:
    split = _front_matter(name, text)
    if isinstance(split, Invalid):
        return split
    fields, body = split
    day = source_day(fields.get("created"))
    if day is None:
        return Invalid(name, "no valid 'created' date in the front matter")
    title, rest = _title_and_rest(body)
    facts = split_facts(title, rest)
    if not facts:
        return Invalid(name, "empty memory")
    tags = text_list(fields.get("tags"))
    return SourceItem(name, facts, tags=tags, day=day, title=title)


def parse_structured(files: Files) -> Parsed:
    """Items of a structured-markdown folder; *files* are named ``<type>/<file>.md``."""
    return _each(files, _structured_item)


def _structured_item(name: str, text: str) -> SourceItem | Invalid:
    split = _front_matter(name, text)
    if isinstance(split, Invalid):
        return split
    fields, body = split
    kind = fields.get("type")
    folder = name.split("/", 1)[0]
    if not isinstance(kind, str) or not kind.strip():
        kind = folder  # the folder is the type when the field is missing
    created = fields.get("createdAt")
    day = source_day(created)
    if created is not None and day is None:
        return Invalid(name, "'createdAt' is not a date")
    title = fields.get("title")
    heading, rest = _title_and_rest(body)
    title = title.strip() if isinstance(title, str) and title.strip() else heading
    facts = split_facts(title, rest)
    if not facts:
        return Invalid(name, "empty memory")
    tags = text_list(fields.get("tags"))
    kind = kind.strip().lower()
    # "custom" names no home: its tags and date decide.
    item_kind = None if kind == "custom" else kind
    return SourceItem(name, facts, kind=item_kind, tags=tags, day=day, title=title)


def _each(files: Files, item: Callable[[str, str], SourceItem | Invalid]) -> Parsed:
    """One item (or invalid entry) per file, in order."""
    parsed = Parsed()
    for name, text in files:
        parsed.add(item(name, text))
    return parsed


def memory_bullets(name: str, text: str) -> list[SourceItem]:
    """Every bullet (and prose line) of a MEMORY.md, each with the heading it stands under.

    An indented line continues the bullet above it.
    """
    items: list[SourceItem] = []
    heading = ""
    pending: list[tuple[int, list[str]]] = []
    in_fence = False
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip().startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence or not line.strip():
            continue
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
            continue
        if pending and line.startswith((" ", "\t")) and not _BULLET.match(line):
            pending[-1][1].append(line.strip())
            continue
        pending.append((number, [_BULLET.sub("", line).strip()]))
        items.append(SourceItem(f"{name}:{number}", (), hint=heading))
    merged: list[SourceItem] = []
    for item, (_number, parts) in zip(items, pending, strict=True):
        merged.append(SourceItem(item.ref, (" ".join(parts),), hint=item.hint))
    return merged


def daily_note(name: str, text: str) -> SourceItem | Invalid:
    """One OpenClaw daily note ``YYYY-MM-DD.md`` as an event block of that day."""
    found = _DAY_NAME.match(name.rsplit("/", 1)[-1])
    day = None
    if found:
        try:
            day = date.fromisoformat(found.group(1))
        except ValueError:
            day = None
    if day is None:
        return Invalid(name, "file name is not a date (expected YYYY-MM-DD.md)")
    lines = text.replace("\r\n", "\n").removeprefix("\ufeff").strip("\n").split("\n")
    if lines and _H1.match(lines[0]) and day.isoformat() in lines[0]:
        lines = lines[1:]  # memtier writes its own `# YYYY-MM-DD` heading
    lines = [line.rstrip() for line in lines]
    while lines and not lines[0].strip():
        lines.pop(0)
    if not any(line.strip() for line in lines):
        return Invalid(name, "empty note")
    return SourceItem(name, tuple(lines), day=day, block=True)


def parse_openclaw(memory_md: str | None, dailies: Files) -> Parsed:
    """Items of an OpenClaw workspace: MEMORY.md bullets, then the daily notes."""
    parsed = Parsed()
    if memory_md is not None:
        parsed.items.extend(memory_bullets("MEMORY.md", memory_md))
    for name, text in dailies:
        parsed.add(daily_note(name, text))
    return parsed


def _topic(name: str, text: str) -> SourceItem | Invalid:
    fields: dict[str, object] = {}
    body = text
    if text.removeprefix("\ufeff").startswith("---"):
        split = _front_matter(name, text)
        if isinstance(split, Invalid):
            return split
        fields, body = split
    heading, rest = _title_and_rest(body)
    named = fields.get("name")
    title = named.strip() if isinstance(named, str) and named.strip() else heading
    title = title or name.rsplit("/", 1)[-1].removesuffix(".md").replace("_", " ")
    facts = split_facts(title, rest)
    if not facts:
        return Invalid(name, "empty topic file")
    kind = fields.get("type")
    tags = text_list(fields.get("tags"))
    return SourceItem(
        name,
        facts,
        kind=kind.strip().lower() if isinstance(kind, str) and kind.strip() else None,
        tags=tags,
        hint=title,
        title=title,
    )


def parse_claude(index: str | None, topics: Files) -> Parsed:
    """Items of a Claude Code memory folder: topic files, and index lines that are facts."""
    parsed = Parsed()
    names = {name for name, _text in topics}
    if index is not None:
        for item in memory_bullets("MEMORY.md", index):
            links = _LINK.findall(item.facts[0])
            targets = [t for _label, t in links if t.endswith(".md") and "://" not in t]
            if not targets:
                parsed.items.append(item)
            elif not any(t.removeprefix("./") in names for t in targets):
                parsed.invalid.append(Invalid(item.ref, "index entry links to a missing file"))
    for name, text in topics:
        parsed.add(_topic(name, text))
    return parsed
