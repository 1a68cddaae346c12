"""Notes render as they read (PROTOCOL §2 v4), checked with a CommonMark parser.

Every writer that puts text into a day's note (append, close, rotate, stale
recovery, import, remember without a home, sync conflict, weekly review) writes
into a sample note; the note is then parsed as a preview, a forge or an editor
would parse it, and the closure block must be a paragraph of its own, never
part of a list item or of the paragraph above it. A consolidated generation's
Evidence is a flat list whose citations are links to the notes they cite.
"""

from __future__ import annotations

import json
import posixpath
from datetime import date, timedelta
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from memtier.commands.episodic_writes import episodic_append, episodic_close
from memtier.commands.facts.remember import remember
from memtier.commands.lifecycle import buffer_task
from memtier.commands.rotation import rotate_buffer
from memtier.commands.session_start import session_start
from memtier.commands.transfer.importers.notes import DayNotes
from memtier.commands.transfer.importers.planned import Planned
from memtier.formats.buffer import Buffer
from memtier.formats.episodic import closure_problem
from memtier.formats.routing import Route, SourceItem
from memtier.workspace import Workspace
from tests.conftest import NOW

BLOCK = "Updated: 2026-11-30\nDecisions: a\nSignal: b\nOpen: c\n"
# The shapes a person leaves a note in: text, then a list, each right above the block.
ENDS_IN_LIST = "# 2026-11-30\n\nmorning\n- migrated qdrant\n- rebuilt the gateway\n" + BLOCK
ENDS_IN_TEXT = "# 2026-11-30\n\nthe morning went to the mirror\n" + BLOCK
_LISTS = ("bullet_list_open", "ordered_list_open", "list_item_open", "blockquote_open")


def _tokens(text: str) -> list[Token]:
    return MarkdownIt("commonmark").parse(text)


def assert_block_stands_apart(text: str) -> None:
    """The closure block is a paragraph of its own: no list, list item or quote
    reaches into it, and the paragraph that holds it starts at its first line."""
    assert closure_problem(text) is None, text
    start = len(text.rstrip("\n").split("\n")) - 4  # 0-based line of `Updated:`
    for token in _tokens(text):
        if token.map is None:
            continue
        first, end = token.map
        if token.type in _LISTS:
            assert end <= start, f"the closure block is inside a {token.type}:\n{text}"
        if token.type == "paragraph_open" and first <= start < end:
            assert first == start, f"line {first + 1} joins the closure block:\n{text}"


def paragraphs(text: str) -> list[str]:
    """The text of every paragraph, as a preview shows it (one string each)."""
    return [t.content for t in _tokens(text) if t.type == "inline"]


def _note(ws: Workspace, day: date | None = None) -> str:
    return ws.episodic_note(day).read_text(encoding="utf-8")


@pytest.mark.parametrize("before", [ENDS_IN_LIST, ENDS_IN_TEXT], ids=["list", "text"])
def test_append_and_close(ws: Workspace, before: str) -> None:
    ws.episodic_note().write_text(before)
    episodic_append(ws, "the backup ran at 03:00")
    episodic_append(ws, "- a bullet of my own")
    episodic_append(ws, "and a line after it")
    text = _note(ws)
    assert_block_stands_apart(text)
    shown = paragraphs(text)
    # Each appended line is read on its own, never as part of the text above.
    assert "the backup ran at 03:00" in shown
    assert "a bullet of my own" in shown
    assert "and a line after it" in shown
    episodic_close(ws, "kept the mirror", "apt is slow", "none")
    assert_block_stands_apart(_note(ws))


def test_append_and_close_create_notes_that_stand_apart(ws: Workspace) -> None:
    episodic_append(ws, "- first thing today")
    assert_block_stands_apart(_note(ws))
    episodic_close(ws, "d", "s", "o", ws.yesterday)
    assert_block_stands_apart(_note(ws, ws.yesterday))


def test_close_repairs_a_block_that_a_list_follows(ws: Workspace) -> None:
    ws.episodic_note().write_text(ENDS_IN_TEXT + "- a person's line after it\n")
    episodic_close(ws, "d", "s", "o")
    text = _note(ws)
    assert_block_stands_apart(text)
    assert "a person's line after it" in paragraphs(text)


@pytest.mark.parametrize("before", [ENDS_IN_LIST, ENDS_IN_TEXT, None], ids=["list", "text", "new"])
def test_rotation(ws: Workspace, before: str | None) -> None:
    if before is not None:
        ws.episodic_note().write_text(before)
    buffer_task(ws, "migrate qdrant")
    rotate_buffer(ws)
    text = _note(ws)
    assert_block_stands_apart(text)
    # The block's heading and parts use the one heading scheme: ### and ####.
    headings = [t.tag for t in _tokens(text) if t.type == "heading_open"]
    assert headings == ["h1", "h3", "h4"]


def test_stale_recovery_uses_the_rotation_headings(ws: Workspace) -> None:
    ws.episodic_note().write_text(ENDS_IN_LIST)
    stale = (NOW - timedelta(hours=5)).isoformat()
    body = "## Active Task:\n- abandoned work\n\n## Notes\n- a note\n"
    ws.buffer.write_text(Buffer(stale, stale, body).render())
    session_start(ws)
    text = _note(ws)
    assert_block_stands_apart(text)
    heads = [t for t in _tokens(text) if t.type == "heading_open"]
    assert [t.tag for t in heads] == ["h1", "h3", "h4", "h4"]
    assert "[RECOVERED: STALE]" in text.split("\n")[heads[1].map[0]]  # type: ignore[index]


def _planned(text: str, *, kind: str, block: bool = False) -> Planned:
    item = SourceItem("line 1", (text,), block=block)
    how = Route(kind, "dated" if kind == "event" else "no type, tag or date")
    return Planned(0, "line 1", item, how, (text,), "note:2026-11-30", clean=text)


EVENING = "## Evening\n- swapped the ups battery\nthe log says why"


@pytest.mark.parametrize("before", [ENDS_IN_LIST, ENDS_IN_TEXT, None], ids=["list", "text", "new"])
def test_import(ws: Workspace, before: str | None) -> None:
    if before is not None:
        ws.episodic_note().write_text(before)
    chunk = [
        _planned("flatmate stuff", kind="unrouted"),
        _planned(EVENING, kind="event", block=True),
        _planned("a plain line from the other memory", kind="event"),
    ]
    DayNotes(ws, {}).apply(ws.today, chunk)
    text = _note(ws)
    assert_block_stands_apart(text)
    shown = paragraphs(text)
    # The routing note is a paragraph of its own (inside the item it explains),
    # and the imported body keeps to itself.
    assert "flatmate stuff" in shown
    assert "#routing-note: no type, tag or date" in shown
    assert "a plain line from the other memory" in shown
    assert "swapped the ups battery\nthe log says why" in shown


def test_remember_without_a_home(ws: Workspace) -> None:
    ws.episodic_note().write_text(ENDS_IN_LIST)
    remember(ws, "the printer jams on duplex")
    text = _note(ws)
    assert_block_stands_apart(text)
    assert "the printer jams on duplex" in paragraphs(text)


def test_sync_conflict(ws: Workspace) -> None:
    from memtier.commands.sync._conflicts import record_conflicts

    ws.episodic_note().write_text(ENDS_IN_TEXT)
    folder = ws.sync_dir / "conflicts"
    folder.mkdir(parents=True)
    record = {"path": "memory/semantic/infrastructure.md", "line": 6, "ours": ["- a"]}
    record |= {"theirs": ["- b"], "base": ["- c"]}
    (folder / "s-0123abcd.json").write_text(json.dumps(record))
    record_conflicts(ws)
    text = _note(ws)
    assert_block_stands_apart(text)
    assert [t.tag for t in _tokens(text) if t.type == "heading_open"] == ["h1", "h3"]


def test_weekly_review_deferral(ws: Workspace) -> None:
    from memtier.commands.review import weekly_review

    ws.episodic_note().write_text(ENDS_IN_LIST)
    buffer_task(ws, "in hand")  # a live session: the review defers and says so
    assert weekly_review(ws).status == "deferred-session"
    assert_block_stands_apart(_note(ws))


def test_a_generation_cites_its_lines_as_links(ws: Workspace) -> None:
    from memtier.commands.topics.consolidate import consolidate
    from memtier.commands.topics.index import index_add
    from tests.protocol.s13_support import note

    first = ("- nas01 gets a new disk", "nas01 rebooted")
    note(ws.root, "2026-11-20", *first, closure="nas01 zfs|none")
    note(ws.root, "2026-11-21", "- nas01 scrub clean")
    note(ws.root, "2026-11-22", "* nas01 fan noise")
    index_add(ws, "nas", "projects", ["nas01"])
    (plan,) = consolidate(ws, "nas").plans
    path = ws.root / plan.path
    tokens = _tokens(path.read_text(encoding="utf-8"))
    # One flat list per section: no `- - nas01 …` item holding a list of its own.
    assert [t for t in tokens if t.type == "bullet_list_open" and t.level > 0] == []
    links = [
        (child.attrGet("href"), "".join(c.content for c in t.children[i + 1 : i + 2]))
        for t in tokens
        if t.type == "inline" and t.children
        for i, child in enumerate(t.children)
        if child.type == "link_open"
    ]
    assert len(links) >= 4
    for href, label in links:
        target = Path(posixpath.normpath(posixpath.join(str(path.parent), str(href))))
        assert target.is_file(), href  # a preview follows the link to the note
        name, _, line = label.partition(":")
        assert name == target.name and int(line) >= 1
    # health-check reads the links back: the generation is intact and its chain whole.
    from memtier.health.report import run_health_check

    checks = [c for c in run_health_check(ws).checks if c.id.startswith("consolidation.")]
    assert checks and all(c.status == "pass" for c in checks), checks
