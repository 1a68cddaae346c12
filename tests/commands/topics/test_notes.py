"""A topic's notes (PROTOCOL §13): ripgrep names the candidates, Python decides.

The notes found with ripgrep and without it are the same, on the cases where a
term's edges, its case, the tag, an archived or duplicate note, a link, a name
that is no date, or a note that is not text could tell the two apart; and with
ripgrep only the candidates are read.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memtier.commands.topics import notes as topic_notes
from memtier.commands.topics.notes import NoteFiles
from memtier.formats.index import IndexEntry
from memtier.workspace import Workspace

ENTRY = IndexEntry("nas-move", "projects", ("qdrant", "next.js", "c++"))

# name under memory/ -> text; the comment says whether it holds the topic.
NOTES: dict[str, bytes] = {
    "episodic/2026-11-01.md": b"# 2026-11-01\n- moved QDRANT to the nas\n",  # yes: any case
    "episodic/2026-11-02.md": b"# 2026-11-02\n- qdrantx is another tool\n",  # no: longer word
    "episodic/2026-11-03.md": "# 2026-11-03\n- 用qdrant迁移\n".encode(),  # yes: CJK borders
    "episodic/2026-11-04.md": "# 2026-11-04\n- éqdrant\n".encode(),  # no: a Latin letter
    "episodic/2026-11-05.md": "# 2026-11-05\n- дqdrant\n".encode(),  # no: a Cyrillic letter
    "episodic/2026-11-06.md": b"# 2026-11-06\n- qdrant_db\n",  # no: "_" is a word character
    "episodic/2026-11-07.md": b"# 2026-11-07\n- built with Next.js\n",  # yes: punctuation
    "episodic/2026-11-08.md": b"# 2026-11-08\n- nextxjs is not it\n",  # no: "." is literal
    "episodic/2026-11-09.md": b"# 2026-11-09\n- tagged #topic:NAS-move here\n",  # yes: tag
    "episodic/2026-11-10.md": b"# 2026-11-10\n- #topic:nas-movers is not it\n",  # no
    "episodic/2026-11-11.md": b"# 2026-11-11\n- wrote C++ code\n",  # yes
    "episodic/2026-11-12.md": b"# 2026-11-12\n- qdrant\x00 binary\n",  # no: not text
    "episodic/2026-11-13.md": b"# 2026-11-13\n- qdrant \xff latin-1\n",  # no: not UTF-8
    "episodic/2026-02-30.md": b"# 2026-02-30\n- qdrant\n",  # no: no such day
    "episodic/2026-11-14.md": b"\xef\xbb\xbf# 2026-11-14\r\n- qdrant\r\n",  # yes: BOM, CRLF
    "episodic/notes-qdrant.md": b"- qdrant\n",  # no: not a day's note
    "archive/2025/03/2025-03-02.md": b"# 2025-03-02\n- qdrant in the archive\n",  # yes
    "archive/2025/03/2025-03-02.1.md": b"# 2025-03-02\n- nothing here\n",  # no
    "archive/2025/04/2025-04-01.md": b"# 2025-04-01\n- nothing here\n",  # no
}
EXPECTED = [
    "memory/archive/2025/03/2025-03-02.md",
    "memory/episodic/2026-11-01.md",
    "memory/episodic/2026-11-03.md",
    "memory/episodic/2026-11-07.md",
    "memory/episodic/2026-11-09.md",
    "memory/episodic/2026-11-11.md",
    "memory/episodic/2026-11-14.md",
    "memory/episodic/2026-11-15.md",  # a link to a note inside the root
]


def _build(ws: Workspace) -> None:
    for name, data in NOTES.items():
        path = ws.memory_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    target = ws.memory_dir / "kept.md"
    target.write_text("# kept\n- qdrant behind a link\n", encoding="utf-8")
    os.symlink(target, ws.episodic_dir / "2026-11-15.md")


def _found(ws: Workspace, monkeypatch: pytest.MonkeyPatch, rg: bool) -> tuple[list[str], int]:
    if not rg:
        monkeypatch.setattr(topic_notes, "ripgrep", lambda: None)
    notes = NoteFiles(ws)
    assert (notes.rg is not None) == rg
    found = [n.path for n in notes.matching(ENTRY)]
    return found, len(notes._read)


def test_ripgrep_and_python_find_the_same_notes(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    if topic_notes.ripgrep() is None:
        pytest.skip("no ripgrep installed")
    _build(ws)
    with_rg, read_with_rg = _found(ws, monkeypatch, rg=True)
    without, read_without = _found(ws, monkeypatch, rg=False)
    assert with_rg == without == EXPECTED
    # Python reads every day's note; with ripgrep only the candidates and the link.
    assert read_without == len(NOTES)  # every day's name (the link's, not notes-qdrant.md)
    assert read_with_rg < read_without


def test_a_ripgrep_that_fails_gives_the_python_answer(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _build(ws)
    broken = tmp_path / "rg"
    broken.write_text("#!/bin/sh\nexit 2\n", encoding="utf-8")
    broken.chmod(0o755)
    monkeypatch.setattr(topic_notes, "ripgrep", lambda: str(broken))
    notes = NoteFiles(ws)
    assert [n.path for n in notes.matching(ENTRY)] == EXPECTED


def test_a_day_holds_its_notes_of_every_folder(ws: Workspace) -> None:
    _build(ws)
    notes = NoteFiles(ws).of_days(["2025-03-02", "2026-11-02"])
    assert [n.path for n in notes] == [
        "memory/archive/2025/03/2025-03-02.1.md",
        "memory/archive/2025/03/2025-03-02.md",
        "memory/episodic/2026-11-02.md",
    ]
    assert notes[1].lines == ("# 2025-03-02", "- qdrant in the archive")


def test_a_tag_that_holds_a_term_is_found_through_the_term(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ripgrep looks for the term alone when the tag holds it; a tagged note is found."""
    _build(ws)
    (ws.episodic_dir / "2026-11-16.md").write_text("# 2026-11-16\n- #topic:QDRANT\n")
    entry = IndexEntry("qdrant", "projects", ("qdrant",))
    found = [n.path for n in NoteFiles(ws).matching(entry)]
    monkeypatch.setattr(topic_notes, "ripgrep", lambda: None)
    assert found == [n.path for n in NoteFiles(ws).matching(entry)]
    assert "memory/episodic/2026-11-16.md" in found


def test_a_folder_lists_as_day_notes_the_names_a_day_names(ws: Workspace) -> None:
    """The listing tests every name in one search (issue 37: a call per name cost
    more than the folder's scandir at 10,000 notes); a name holding a line break is
    tested alone, so the names kept are the ones `_DAY_NAME` accepts one by one."""
    names = [
        "2026-01-01.md",
        "2026-01-01.2.md",
        "x2026-01-01.md",
        "2026-01-01.md.bak",
        "2026-1-01.md",
        "2026-01-03.md\n",  # `$` stands before a final line break
        "a\n2026-01-02.md",
        "2026-01-04.md\nb",
    ]
    for name in names:
        (ws.episodic_dir / name).write_text("# d\n", encoding="utf-8")
    (ws.episodic_dir / "2026-01-05.md").mkdir()
    listed = topic_notes._listed(ws, ws.episodic_dir, True, None)
    assert listed is not None
    kept = {n for n in [*names, "2026-01-05.md"] if topic_notes._DAY_NAME.match(n)}
    assert listed.names == kept
    assert listed.odd == {"2026-01-05.md"}
    assert "2026-01-03.md\n" in kept and "a\n2026-01-02.md" not in kept
