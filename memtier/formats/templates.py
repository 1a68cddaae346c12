"""The files `init` writes, read from the package's ``templates/`` folder.

Templates are plain files with ``$today`` and ``$now`` placeholders. Line 2 of a
markdown template, when it is a ``#tags:`` line, is filtered against the
workspace's vocabulary so that a fresh workspace never carries a tag the
configuration does not allow (PROTOCOL §9).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from string import Template

from memtier.clock import format_timestamp
from memtier.config import Config
from memtier.formats.tags import format_tag_line, is_tag_line, parse_tag_line


def templates_dir() -> Path:
    """``memtier/templates`` in an installed wheel, ``<repo>/templates`` in a checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / "templates", here.parent.parent / "templates"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("memtier's templates folder is missing from the installation")


def template_paths() -> Iterator[Path]:
    """Every template file, as a path relative to the templates folder, sorted."""
    base = templates_dir()
    for path in sorted(base.rglob("*")):
        if path.is_file() and path.name != "__pycache__" and path.suffix != ".pyc":
            yield path.relative_to(base)


def filter_tags_line(line: str, config: Config) -> str:
    """The ``#tags:`` line *line* with the tags outside the vocabulary dropped."""
    return format_tag_line(t for t in parse_tag_line(line) or () if config.in_vocabulary(t))


def render_template(relpath: str | Path, now: datetime, config: Config) -> str:
    """The text of one template with today's date, the timestamp and allowed tags."""
    raw = (templates_dir() / relpath).read_text(encoding="utf-8")
    text = Template(raw).safe_substitute(today=now.date().isoformat(), now=format_timestamp(now))
    lines = text.split("\n")
    if str(relpath).endswith(".md") and len(lines) > 1 and is_tag_line(lines[1]):
        lines[1] = filter_tags_line(lines[1], config)
    return "\n".join(lines)
