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

from memtier.formats.frontmatter import FrontMatterError, field, split_front_matter, text_list
from memtier.formats.routing import Invalid, Parsed, SourceItem, source_day
from memtier.formats.sources_body import grouped_bullets, is_noise, split_body

Files = list[tuple[str, str]]

STRUCTURED_TYPES: tuple[str, ...] = (
    "user", "feedback", "project", "reference", "knowledge", "event", "custom",
)  # fmt: skip
_H1 = re.compile(r"^#\s+(.+?)\s*#*\s*$")
# PROTOCOL §12 v3: OpenClaw's session hook also writes YYYY-MM-DD-<slug>.md,
# YYYY-MM-DD-HHMM.md and YYYY-MM-DD_<slug>.md; all belong to that date.
_DAY_NAME = re.compile(r"^(\d{4}-\d\d-\d\d)(?:[-_][^/]+)?\.md$")
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
    found = split_body(title, rest)
    if not found.facts:
        return Invalid(name, "empty memory")
    tags = text_list(fields.get("tags"))
    return SourceItem(name, found.facts, tags=tags, day=day, title=title, block=found.block)


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
    title = " ".join(title.split()) if isinstance(title, str) and title.strip() else heading
    if heading and heading.strip().lower() != title.lower():
        rest = body  # the body's own heading is not the title: it is content
    found = split_body(title, rest)
    if not found.facts:
        return Invalid(name, "empty memory")
    tags = text_list(fields.get("tags"))
    kind = kind.strip().lower()
    # "custom" names no home: its tags and date decide.
    item_kind = None if kind == "custom" else kind
    return SourceItem(
        name, found.facts, kind=item_kind, tags=tags, day=day, title=title, block=found.block
    )


def _each(files: Files, item: Callable[[str, str], SourceItem | Invalid]) -> Parsed:
    """One item (or invalid entry) per file, in order."""
    parsed = Parsed()
    for name, text in files:
        parsed.add(item(name, text))
    return parsed


def memory_bullets(name: str, text: str, *, hint: str = "") -> list[SourceItem]:
    """Every bullet (and prose line) of a MEMORY.md, each with the heading it stands under.

    PROTOCOL §12 v3: the heading is the bullet's context (its subject, kept in the
    text unless it only names a home); a sub-bullet or an indented line stays with
    the bullet above it; ``---`` rules and "last updated" lines are no facts; a
    fenced block is kept whole as one item.
    """
    items: list[SourceItem] = []
    heading = ""
    group: list[str] = []
    start = 0
    fence: list[str] | None = None

    def close() -> None:
        if group:
            items.extend(_bullet_items(name, start, group, heading or hint))
            group.clear()

    for number, raw in enumerate(text.replace("\r\n", "\n").split("\n"), start=1):
        line = raw.rstrip()
        if fence is not None:
            fence.append(line)
            if line.lstrip().startswith(("```", "~~~")) and len(fence) > 1:
                items.append(_fenced(name, start, fence, heading or hint))
                fence = None
            continue
        if line.lstrip().startswith(("```", "~~~")):
            close()
            fence, start = [line], number
            continue
        if not line.strip() or is_noise(line):
            close()
            continue
        if line.startswith("#"):
            close()
            level = len(line) - len(line.lstrip("#"))
            title = line.lstrip("#").strip()
            heading = "" if level == 1 else title
            continue
        if line[:1].isspace() and group:
            group.append(line)
            continue
        close()
        group.append(line)
        start = number
    close()
    if fence:
        items.append(_fenced(name, start, fence, heading or hint))
    return items


def _bullet_items(name: str, start: int, lines: list[str], heading: str) -> list[SourceItem]:
    """One item per top-level bullet of *lines* (its sub-bullets folded in)."""
    out: list[SourceItem] = []
    chunk: list[str] = []
    at = start
    for offset, line in enumerate(lines):
        if chunk and not line[:1].isspace():
            out.append(_bullet_item(name, at, chunk, heading))
            chunk, at = [], start + offset
        chunk.append(line)
    if chunk:
        out.append(_bullet_item(name, at, chunk, heading))
    return out


def _bullet_item(name: str, number: int, lines: list[str], heading: str) -> SourceItem:
    grouped = grouped_bullets(lines)
    if grouped:
        text = grouped[0]
    else:
        text = " ".join(_BULLET.sub("", line.strip()).strip() for line in lines)
    return SourceItem(f"{name}:{number}", (_with_subject(heading, text),), hint=heading)


def _with_subject(heading: str, text: str) -> str:
    """The bullet with its heading in front, unless the heading only names a home."""
    from memtier.formats.routing import TAG_HOMES

    words = re.findall(r"[\w-]+", heading.lower())
    homes = {name for _kind, names in TAG_HOMES for name in names}
    if not heading or all(w in homes for w in words) or text.lower().startswith(heading.lower()):
        return text
    return f"{heading}: {text}"


def _fenced(name: str, number: int, lines: list[str], heading: str) -> SourceItem:
    head = [heading, ""] if heading else []
    return SourceItem(f"{name}:{number}", tuple(head + lines), hint=heading, block=True)


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
        return Invalid(name, "file name is not a date (expected YYYY-MM-DD[-slug].md)")
    lines = text.replace("\r\n", "\n").removeprefix("\ufeff").strip("\n").split("\n")
    title = _H1.match(lines[0]) if lines else None
    if title:
        # memtier writes its own `# YYYY-MM-DD`; what the title says besides the date
        # stays, as a heading inside the day (PROTOCOL §12 v3).
        rest = " ".join(title.group(1).replace(day.isoformat(), "").split()).strip(" —–-:|")
        lines = ([f"## {rest}"] if rest else []) + lines[1:]
    lines = [line.rstrip() for line in lines]
    while lines and not lines[0].strip():
        lines.pop(0)
    if not any(line.strip() for line in lines):
        return Invalid(name, "empty note")
    return SourceItem(name, tuple(lines), day=day, block=True)


def _topic(name: str, text: str, hint: str = "") -> SourceItem | Invalid:
    """A topic file: optional front matter (flat, or nested under ``metadata:`` as
    Claude Code writes it), a title, a body kept as its writer meant it."""
    fields: dict[str, object] = {}
    body = text
    if text.removeprefix("\ufeff").startswith("---"):
        split = _front_matter(name, text)
        if isinstance(split, Invalid):
            return split
        fields, body = split
    heading, rest = _title_and_rest(body)
    named = field(fields, "name")
    title = " ".join(named.split()) if isinstance(named, str) and named.strip() else heading
    title = title or name.rsplit("/", 1)[-1].removesuffix(".md").replace("_", " ")
    described = field(fields, "description")
    if isinstance(described, str) and described.strip():
        title = f"{title} — {' '.join(described.split())}"
    found = split_body(title, rest)
    if not found.facts:
        return Invalid(name, "empty topic file")
    kind = field(fields, "type")
    return SourceItem(
        name,
        found.facts,
        kind=kind.strip().lower() if isinstance(kind, str) and kind.strip() else None,
        tags=text_list(field(fields, "tags")),
        hint=" ".join(part for part in (hint, title) if part),
        title=title,
        block=found.block,
    )


def _inside(target: str) -> bool:
    parts = target.removeprefix("./").split("/")
    return not target.startswith("/") and ".." not in parts


def parse_claude(index: str | None, topics: Files) -> Parsed:
    """Items of a Claude Code memory folder: topic files, and index lines that are facts.

    An index line linking to a topic file is that file's entry (the file is the
    item); one linking outside the folder is reported as ``outside``, one linking to
    a missing file as invalid (PROTOCOL §12 v3).
    """
    parsed = Parsed()
    read = {name: _topic(name, text) for name, text in topics}
    names = {name for name, item in read.items() if not isinstance(item, Invalid)}
    if index is not None:
        for item in memory_bullets("MEMORY.md", index):
            links = _LINK.findall(item.facts[0])
            targets = [t.removeprefix("./") for _label, t in links]
            targets = [t for t in targets if t.endswith(".md") and "://" not in t]
            if not targets or any(t in read and t not in names for t in targets):
                # no link, or a link to a topic file that cannot be read: the line's own
                # words are the only copy of what it says
                parsed.items.append(item)
            elif any(t in names for t in targets):
                continue
            elif not all(_inside(t) for t in targets):
                outside = next(t for t in targets if not _inside(t))
                parsed.invalid.append(
                    Invalid(item.ref, f"links to {outside}, outside the memory folder", "outside")
                )
            else:
                parsed.invalid.append(Invalid(item.ref, "index entry links to a missing file"))
    for topic in read.values():
        parsed.add(topic)
    return parsed


def parse_openclaw(
    memory_md: str | None,
    dailies: Files,
    topics: Files | None = None,
    user_md: str | None = None,
) -> Parsed:
    """Items of an OpenClaw workspace: MEMORY.md and USER.md bullets, the daily notes
    (``memory/`` and ``memory/archive/``), then topic files (``memory/<folder>/…``,
    routed by their folder and title)."""
    parsed = Parsed()
    if memory_md is not None:
        parsed.items.extend(memory_bullets("MEMORY.md", memory_md))
    if user_md is not None:
        # USER.md is about the user: its bullets are preferences unless they say otherwise.
        parsed.items.extend(memory_bullets("USER.md", user_md, hint="user"))
    for name, text in dailies:
        parsed.add(daily_note(name, text))
    for name, text in topics or []:
        folder = name.split("/")[-2] if name.count("/") >= 2 else ""
        parsed.add(_topic(name, text, hint=folder))
    return parsed


def is_day_name(name: str) -> bool:
    """True when *name* (a file name) is a daily note's name (PROTOCOL §12 v3)."""
    return bool(_DAY_NAME.match(name))
