"""memtier.formats.templates: the files `init` writes (PROTOCOL §1, §9)."""

from __future__ import annotations

from pathlib import Path

from memtier.config import Config
from memtier.formats.tags import is_tag_line, parse_tag_line
from memtier.formats.templates import filter_tags_line, render_template, template_paths
from tests.conftest import NOW


def test_every_template_is_listed_relative_and_sorted() -> None:
    paths = list(template_paths())
    assert Path("MEMORY.md") in paths
    assert Path("memory/working-buffer.md") in paths
    assert paths == sorted(paths)
    assert all(not p.is_absolute() and p.suffix != ".pyc" for p in paths)


def test_placeholders_are_filled_with_the_fixed_clock() -> None:
    text = render_template("MEMORY.md", NOW, Config())
    assert "$today" not in text and "$now" not in text
    assert "2026-11-30" in text


def test_tags_outside_the_vocabulary_are_dropped() -> None:
    assert filter_tags_line("#tags: memory, workflow, nope", Config(vocabulary=("memory",))) == (
        "#tags: memory"
    )
    narrow = Config(vocabulary=("workflow",))
    line = render_template("MEMORY.md", NOW, narrow).split("\n")[1]
    assert is_tag_line(line)
    assert parse_tag_line(line) == ("workflow",)


def test_every_markdown_template_renders_with_only_allowed_tags() -> None:
    config = Config()
    for path in template_paths():
        text = render_template(path, NOW, config)
        lines = text.split("\n")
        if path.suffix == ".md" and len(lines) > 1 and is_tag_line(lines[1]):
            assert all(config.in_vocabulary(t) for t in parse_tag_line(lines[1]) or ())
